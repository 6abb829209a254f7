// SPDX-License-Identifier: GPL-2.0
/*
 * openintent.c - getvalues(2)'s data: opens a file through open(2)'s own
 * path, and opens nothing but a regular file.
 *
 * 1-4: the open intent.  A file system sees that a lookup is for an open
 * by LOOKUP_OPEN in the flags of its ->d_revalidate() (NFS revalidates
 * the file for close-to-open consistency only then).  A kprobe event on
 * procfs's pid_revalidate() records those flags while the calls below
 * look up /proc/PID/status from a descriptor of /proc/PID, whose dentry
 * is then in the dcache: readfile(2) (an open(2), the control) and
 * data:status must show LOOKUP_OPEN, stat:size:status (no open) must
 * not.  A kernel without kprobe events (CONFIG_KPROBE_EVENTS) skips them.
 *
 * 5-6: refused before ->open.  A writer waits in open(2) of a FIFO until
 * a reader opens it; data: of that FIFO, as $ORIGIN/SUBPATH or as
 * $ORIGIN itself, must be ENODATA and leave the writer waiting.
 *
 * 7: an automount point, which the open does not go through (EXDEV), is
 * looked at without opening it: data: of debugfs's "tracing" is ENODATA
 * (a directory) and leaves it untriggered, data:tracing/README is EXDEV.
 * A kernel without tracing (no automount point in debugfs) skips it.
 *
 * Runs as root in the kcheck guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"

#define LOOKUP_OPEN	0x0100
#define TRACING		"/sys/kernel/tracing"
#define EVENT		"gvkopen/reval"

static char buf[65536];
static char trace[1 << 20];
static int tests;

static void result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int getvalues1(int dfd, const char *path, unsigned int flags,
		      const char *name, struct gv_entry *e)
{
	*e = (struct gv_entry){
		.name = PTR(name),
		.value_in = { PTR(buf), sizeof(buf) },
	};
	return syscall(NR_GETVALUES, dfd, path, e, 1, sizeof(*e), flags);
}

/* write @s to the tracefs file @name; with @append, add to what is there */
static int tracefs_write(const char *name, const char *s, bool append)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", TRACING, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static bool kprobe_events(void)
{
	if (access(TRACING "/kprobe_events", W_OK) == 0)
		return true;
	mount("nodev", TRACING, "tracefs", 0, NULL);
	return access(TRACING "/kprobe_events", W_OK) == 0;
}

struct seen {
	int calls;	/* of pid_revalidate() */
	int open;	/* of them with LOOKUP_OPEN */
};

/*
 * Run @fn with the event enabled for this thread only, and count the
 * calls it recorded.
 */
static int traced(void (*fn)(int), int dfd, struct seen *s)
{
	char *line, *f;
	ssize_t n;
	int fd;

	*s = (struct seen){ };
	if (tracefs_write("trace", "", false) ||
	    tracefs_write("events/" EVENT "/enable", "1", false))
		return -1;
	fn(dfd);
	tracefs_write("events/" EVENT "/enable", "0", false);
	fd = open(TRACING "/trace", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, trace, sizeof(trace) - 1);
	close(fd);
	if (n < 0)
		return -1;
	trace[n] = '\0';
	for (line = strtok(trace, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		f = strstr(line, "flags=0x");
		if (!f)
			continue;
		s->calls++;
		if (strtoul(f + 8, NULL, 16) & LOOKUP_OPEN)
			s->open++;
	}
	return 0;
}

static void do_readfile(int dfd)
{
	syscall(NR_READFILE, dfd, "status", buf, sizeof(buf), 0);
}

static struct gv_entry last;
static long last_ret;

static void do_data(int dfd)
{
	last_ret = getvalues1(dfd, "", AT_EMPTY_PATH, "data:status", &last);
}

static void do_stat(int dfd)
{
	last_ret = getvalues1(dfd, "", AT_EMPTY_PATH, "stat:size:status",
			      &last);
}

static void test_intent(void)
{
	char probe[128], filter[64];
	struct seen s;
	int dfd, err;

	if (!kprobe_events()) {
		for (int i = 0; i < 4; i++)
			printf("ok %d # SKIP no kprobe events (CONFIG_KPROBE_EVENTS)\n",
			       ++tests);
		return;
	}
	snprintf(probe, sizeof(probe), "p:%s pid_revalidate flags=$arg2:x32\n",
		 EVENT);
	err = tracefs_write("kprobe_events", probe, true);
	if (err) {
		printf("Bail out! kprobe on pid_revalidate: %s\n",
		       strerror(-err));
		exit(1);
	}
	snprintf(filter, sizeof(filter), "common_pid == %d\n", gettid());
	tracefs_write("events/" EVENT "/filter", filter, false);
	dfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		printf("Bail out! /proc/self: %s\n", strerror(errno));
		exit(1);
	}
	/* the dentry of status in the dcache, so that it is revalidated */
	do_readfile(dfd);
	do_data(dfd);

	traced(do_readfile, dfd, &s);
	result(s.calls > 0 && s.open == s.calls,
	       "control: readfile(2) of /proc/PID/status: LOOKUP_OPEN in %d of %d ->d_revalidate() calls",
	       s.open, s.calls);
	traced(do_data, dfd, &s);
	result(s.calls > 0 && s.open == s.calls,
	       "data:status: LOOKUP_OPEN in %d of %d ->d_revalidate() calls",
	       s.open, s.calls);
	result(last_ret == 1 && !last.error && last.value_out.len > 5 &&
	       !memcmp(buf, "Name:", 5),
	       "data:status: the file's contents (ret %ld, error %u)",
	       last_ret, last.error);
	traced(do_stat, dfd, &s);
	result(s.calls > 0 && !s.open && last_ret == 1 && !last.error,
	       "control: stat:size:status, no open: LOOKUP_OPEN in %d of %d ->d_revalidate() calls",
	       s.open, s.calls);
	close(dfd);
	tracefs_write("kprobe_events", "-:" EVENT "\n", true);
}

/*
 * A child opens @fifo for writing, which waits for a reader, and writes a
 * byte to @report once its open returned.
 */
static pid_t fifo_writer(const char *fifo, int report)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = open(fifo, O_WRONLY);
	if (write(report, "o", 1) != 1 || fd < 0)
		_exit(1);
	_exit(0);
}

/* whether a byte arrives on @fd within @ms milliseconds */
static bool arrives(int fd, int ms)
{
	struct timespec t = { 0, 10 * 1000 * 1000 };
	char c;

	for (; ms > 0; ms -= 10) {
		if (read(fd, &c, 1) == 1)
			return true;
		nanosleep(&t, NULL);
	}
	return false;
}

/*
 * data: of a FIFO that a writer waits to open: ENODATA, and the writer
 * still waits, so nothing opened the FIFO.
 */
static void fifo_case(const char *fifo, int dfd, const char *path,
		      const char *name)
{
	bool released;
	struct gv_entry e;
	int p[2];
	pid_t pid;
	long r;

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
		printf("Bail out! pipe: %s\n", strerror(errno));
		exit(1);
	}
	pid = fifo_writer(fifo, p[1]);
	usleep(100 * 1000);	/* the writer is waiting in open(2) */
	r = getvalues1(dfd, path, 0, name, &e);
	released = arrives(p[0], 200);
	result(r == 1 && e.error == ENODATA && !released,
	       "%s of a FIFO: ENODATA (ret %ld, error %u), its writer %s",
	       name, r, e.error, released ? "released" : "still waits");
	/* a reader of our own lets the writer go */
	close(open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
}

static void test_fifo(void)
{
	char dir[] = "/tmp/openintent.XXXXXX", fifo[64];
	int dfd;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600)) {
		printf("Bail out! mkfifo: %s\n", strerror(errno));
		exit(1);
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fifo_case(fifo, dfd, ".", "data:fifo");
	fifo_case(fifo, AT_FDCWD, fifo, "data:");
	close(dfd);
	unlink(fifo);
	rmdir(dir);
}

/* debugfs's "tracing", described without triggering it */
static int automount_point(const char *point, struct statx *st)
{
	if (statx(AT_FDCWD, point, AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_MNT_ID, st))
		return -1;
	return st->stx_attributes & STATX_ATTR_AUTOMOUNT ? 0 : -1;
}

static void test_automount(void)
{
	char dir[] = "/tmp/openintent.XXXXXX", point[64];
	struct gv_entry v[2] = { };
	struct statx before, after;
	bool untriggered;
	long r;

	/* a debugfs of our own, in a mount namespace of our own */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    !mkdtemp(dir) || mount("none", dir, "debugfs", 0, NULL)) {
		printf("ok %d # SKIP automount: no debugfs of our own: %s\n",
		       ++tests, strerror(errno));
		return;
	}
	snprintf(point, sizeof(point), "%s/tracing", dir);
	if (automount_point(point, &before)) {
		printf("ok %d # SKIP automount: no tracing in debugfs\n",
		       ++tests);
		umount2(dir, MNT_DETACH);
		rmdir(dir);
		return;
	}
	v[0] = (struct gv_entry){
		.name = PTR("data:tracing"),
		.value_in = { PTR(buf), sizeof(buf) },
	};
	v[1].name = PTR("data:tracing/README");
	r = syscall(NR_GETVALUES, AT_FDCWD, dir, v, 2, sizeof(v[0]), 0);
	untriggered = !automount_point(point, &after) &&
		      after.stx_mnt_id == before.stx_mnt_id;
	result(r == 2 && v[0].error == ENODATA && v[1].error == EXDEV &&
	       untriggered,
	       "data: of an automount point: ENODATA (%u), through it: EXDEV (%u), untriggered: %s",
	       v[0].error, v[1].error, untriggered ? "yes" : "no");
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

int main(void)
{
	struct gv_entry e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..7\n");
	if (getvalues1(AT_FDCWD, "/", 0, "", &e) < 0 && errno == ENOSYS) {
		for (int i = 0; i < 7; i++)
			printf("ok %d # SKIP no getvalues(2)\n", ++tests);
		return 0;
	}
	test_intent();
	test_fifo();
	test_automount();
	return 0;
}
