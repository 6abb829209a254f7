// SPDX-License-Identifier: MIT
/*
 * data_fakeproc.c - data: never trusts a /proc that is not procfs (SPEC v2
 * section 3). In a private mount namespace a tmpfs is mounted over /proc,
 * with every fd/N under self/, thread-self/, PID/ and PID/task/TID/ planted
 * as a symlink to a file outside $ORIGIN, to a FIFO holding data, or to
 * /dev/zero; or with self/ and thread-self/ leading into a genuine procfs
 * (a bind mount of the real one) of another process whose descriptors are
 * that outside file. Then a chroot without any /proc. The values must be
 * the files beneath $ORIGIN (read through open_by_handle_at(2) where the
 * caller has CAP_DAC_READ_SEARCH) or EOPNOTSUPP for the entry; the file
 * outside is never read and the FIFO keeps its data.
 *
 * Asked for by the hardening review of issue 14, as harden_fakeproc.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define HIGH	256	/* fd/0 .. fd/255 are planted */

static const char inside[] = "inside: the file beneath $ORIGIN\n";
static const char secret[] = "SECRET: a file outside $ORIGIN\n";
static const char fifo_data[] = "FIFODATA";

static char top[2048];
static bool handle_cap;		/* CAP_DAC_READ_SEARCH, initial namespace */

enum plant { P_FILE, P_FIFO, P_ZERO, P_OTHERPROC, P_CHROOT };
static const char *const plant_names[] = {
	"tmpfs on /proc, fd/N -> a file outside $ORIGIN",
	"tmpfs on /proc, fd/N -> a FIFO holding data",
	"tmpfs on /proc, fd/N -> /dev/zero",
	"tmpfs on /proc, self -> a genuine procfs of another process",
	"a chroot without /proc",
};

struct job {
	const struct t_backend *b;
	enum plant p;
};

static void mkdirs(const char *path)
{
	char buf[4200], *s;

	snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(buf, 0755);
		*s = '/';
	}
	mkdir(buf, 0755);
}

/* dir/fd/0 .. dir/fd/HIGH-1 -> @target */
static int plant_fds(const char *dir, const char *target)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/fd", dir);
	mkdirs(path);
	for (int n = 0; n < HIGH; n++) {
		snprintf(path, sizeof(path), "%s/fd/%d", dir, n);
		if (symlink(target, path))
			return -1;
	}
	return 0;
}

/* A process whose every descriptor from 3 on is the file outside. */
static pid_t start_decoy(void)
{
	int ready[2];
	char c;
	pid_t pid;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		char path[4200];

		close(ready[0]);
		snprintf(path, sizeof(path), "%s/secret", top);
		for (int fd = 3; fd < HIGH; fd++)
			if (fd != ready[1] && fcntl(fd, F_GETFD) < 0)
				dup2(open(path, O_RDONLY), fd);
		close(ready[1]);	/* the parent goes on */
		if (open(path, O_RDONLY) != ready[1])	/* and fills its place */
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) < 0)
		c = 0;
	close(ready[0]);
	return pid;
}

/* The /proc planted for @p; the path of $ORIGIN to use in *@origin. */
static int make_fake_proc(enum plant p, pid_t decoy, char *origin,
			  size_t size)
{
	char target[4200], dir[64], realproc[2100];
	pid_t pid = getpid(), tid = gettid();

	snprintf(origin, size, "%s/origin", top);
	if (p == P_CHROOT) {
		if (chroot(top) || chdir("/"))
			return -1;
		snprintf(origin, size, "/origin");
		return 0;
	}
	if (p == P_OTHERPROC) {
		snprintf(realproc, sizeof(realproc), "%s/realproc", top);
		if (mount("/proc", realproc, NULL, MS_BIND | MS_REC, NULL))
			return -1;
	}
	if (mount("fakeproc", "/proc", "tmpfs", 0, "mode=0755"))
		return -1;
	switch (p) {
	case P_FILE:
		snprintf(target, sizeof(target), "%s/secret", top);
		break;
	case P_FIFO:
		snprintf(target, sizeof(target), "%s/fifo", top);
		break;
	case P_ZERO:
		snprintf(target, sizeof(target), "/dev/zero");
		break;
	default:
		snprintf(target, sizeof(target), "%s/%d", realproc, decoy);
		if (symlink(target, "/proc/self"))
			return -1;
		snprintf(target, sizeof(target), "%s/%d/task/%d", realproc,
			 decoy, decoy);
		return symlink(target, "/proc/thread-self");
	}
	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", pid, tid);
	if (plant_fds("/proc/self", target) ||
	    plant_fds("/proc/thread-self", target) || plant_fds(dir, target))
		return -1;
	snprintf(dir, sizeof(dir), "/proc/self/task/%d", tid);
	if (plant_fds(dir, target))
		return -1;
	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	return plant_fds(dir, target);
}

/* The entry is the file beneath, or EOPNOTSUPP where that is allowed. */
static bool acceptable(int ret, const struct name_val *e, bool handle)
{
	if (t_is(ret, e, inside, strlen(inside)))
		return true;
	return !handle && ret == 1 && e->error == EOPNOTSUPP;
}

static void run(void *arg)
{
	const struct job *j = arg;
	const struct t_backend *b = j->b;
	char origin[2100], path[4200], buf[8192];
	int fifo_w, queued = -1, ret, err;
	bool userns, handle, leaked;
	const char *why;
	struct name_val e;
	pid_t decoy = -1;

	snprintf(path, sizeof(path), "%s/fifo", top);
	fifo_w = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fifo_w < 0 || write(fifo_w, fifo_data, strlen(fifo_data)) !=
	    (ssize_t)strlen(fifo_data))
		tap_bail("FIFO: %s", strerror(errno));
	if ((why = t_private_mounts(&userns))) {
		tap_skip(3, "%s: no private mount namespace: %s",
			 plant_names[j->p], why);
		goto out;
	}
	/* forked in the namespaces, so that its /proc/PID/fd is ours to read */
	if (j->p == P_OTHERPROC && (decoy = start_decoy()) < 0)
		tap_bail("decoy: %s", strerror(errno));
	if (make_fake_proc(j->p, decoy, origin, sizeof(origin))) {
		tap_skip(3, "%s: cannot be made here: %s", plant_names[j->p],
			 strerror(errno));
		goto out;
	}
	/* open_by_handle_at(2) needs CAP_DAC_READ_SEARCH in the first one */
	handle = handle_cap && !userns;
	gv_backend_force(b->id);

	memset(buf, 0, sizeof(buf));
	ret = t_get1(AT_FDCWD, origin, 0, "data:inside", buf, sizeof(buf),
		      &e, &err);
	if (b->id == GV_BACKEND_URING && ret < 0 && err == ENOSYS) {
		tap_diag("forced uring says io_uring is unusable here (ENOSYS)");
		tap_skip(1, "uring: unusable here");
	} else if (!tap_ok(acceptable(ret, &e, handle), "%s, %s: data:SUBPATH "
			   "is the file beneath $ORIGIN%s", b->name,
			   plant_names[j->p], handle ? " (open_by_handle_at)" :
			   " or EOPNOTSUPP")) {
		tap_diag("   got %s", t_got(ret, err, &e));
	}
	leaked = memmem(buf, sizeof(buf), "SECRET", 6) ||
		 (ret >= 0 && e.error == EOVERFLOW);

	/* data: of $ORIGIN itself, a regular file */
	snprintf(path, sizeof(path), "%s/inside", origin);
	memset(buf, 0, sizeof(buf));
	ret = t_get1(AT_FDCWD, path, 0, "data:", buf, sizeof(buf), &e, &err);
	if (b->id == GV_BACKEND_URING && ret < 0 && err == ENOSYS)
		tap_skip(1, "uring: unusable here");
	else if (!tap_ok(acceptable(ret, &e, handle),
			 "%s, %s: data: of a file $ORIGIN is that file%s",
			 b->name, plant_names[j->p],
			 handle ? "" : " or EOPNOTSUPP"))
		tap_diag("   got %s", t_got(ret, err, &e));
	leaked |= memmem(buf, sizeof(buf), "SECRET", 6) ||
		  (ret >= 0 && e.error == EOVERFLOW);
	tap_ok(!leaked, "%s, %s: nothing outside $ORIGIN was read", b->name,
	       plant_names[j->p]);
	if (j->p == P_FIFO) {
		if (ioctl(fifo_w, FIONREAD, &queued))
			queued = -1;
		tap_is_long(queued, strlen(fifo_data), "%s, %s: the FIFO "
			    "still holds its data (never opened)", b->name,
			    plant_names[j->p]);
	}
out:
	if (decoy > 0) {
		kill(decoy, SIGKILL);
		waitpid(decoy, NULL, 0);
	}
	close(fifo_w);
}

int main(void)
{
	struct t_backend bs[4];
	int n, dfd;

	alarm(600);	/* t_sub() bounds each case; this, the whole */
	snprintf(top, sizeof(top), "%s", t_tmpdir("fakeproc"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "origin", 0755) ||
	    mkdirat(dfd, "realproc", 0755) ||
	    t_write_file(dfd, "origin/inside", inside, strlen(inside), 0644) ||
	    t_write_file(dfd, "secret", secret, strlen(secret), 0644) ||
	    mkfifoat(dfd, "fifo", 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	close(dfd);
	handle_cap = t_has_cap(CAP_DAC_READ_SEARCH);
	tap_diag("CAP_DAC_READ_SEARCH: %s", handle_cap ? "yes" : "no");

	n = t_backends(bs, 1);
	for (int i = 0; i < n; i++)
		for (int p = P_FILE; p <= P_CHROOT; p++) {
			struct job j = { &bs[i], p };
			char what[128];

			snprintf(what, sizeof(what), "%s, %s", bs[i].name,
				 plant_names[p]);
			t_sub(what, 10, run, &j);
		}
	return tap_done();
}
