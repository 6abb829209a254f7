// SPDX-License-Identifier: MIT
/*
 * readfile_errors.c - every flag rule and errno of readfile(): a table of
 * cases run against a scratch tree, flags checked before anything is opened
 * (watched with inotify), permission errors as an unprivileged user, and
 * FIFOs that must neither hang nor lose the EINTR of a blocking read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static int dir;			/* the scratch tree, O_RDONLY */
static char dirpath[PATH_MAX];
static char *noaccess;		/* a PROT_NONE page */
static char *readonly;		/* a PROT_READ page */
static char longname[NAME_MAX + 2];
static char longpath[PATH_MAX + 16];

#define T_ORC (-2)

enum { DFD_TREE, DFD_BAD, DFD_CLOSED, DFD_FILE, DFD_CWD };
enum { BUF_OK, BUF_NULL, BUF_ONE, BUF_NOACCESS, BUF_READONLY };

struct rf_case {
	const char *name;
	int dfd;
	const char *path;	/* NULL here means a NULL path */
	const char *(*path_fn)(void);
	int buf;
	size_t size;
	int flags;
	ssize_t ret;		/* -1: expect .err; T_ORC: what open/read/close gives */
	int err;
};

static const char *path_one(void) { return (const char *)1; }
static const char *path_noaccess(void) { return noaccess; }
static const char *path_longname(void) { return longname; }
static const char *path_longpath(void) { return longpath; }

static const struct rf_case cases[] = {
	{ "regular file",		DFD_TREE, "file", NULL, BUF_OK, 64, 0, 6, 0 },
	{ "O_NOFOLLOW|O_NOATIME on own file", DFD_TREE, "file", NULL, BUF_OK, 64,
	  O_NOFOLLOW | O_NOATIME, 6, 0 },
	{ "empty file",			DFD_TREE, "empty", NULL, BUF_OK, 64, 0, 0, 0 },
	{ "missing file: ENOENT",	DFD_TREE, "missing", NULL, BUF_OK, 64, 0, -1, ENOENT },
	{ "dangling symlink: ENOENT",	DFD_TREE, "dangling", NULL, BUF_OK, 64, 0, -1, ENOENT },
	{ "empty path: ENOENT",		DFD_TREE, "", NULL, BUF_OK, 64, 0, -1, ENOENT },
	{ "O_NOFOLLOW on symlink: ELOOP", DFD_TREE, "link", NULL, BUF_OK, 64, O_NOFOLLOW, -1, ELOOP },
	{ "symlink loop: ELOOP",	DFD_TREE, "loop1", NULL, BUF_OK, 64, 0, -1, ELOOP },
	{ "directory: EISDIR",		DFD_TREE, "dir", NULL, BUF_OK, 64, 0, -1, EISDIR },
	{ "directory, bufsize 0: EISDIR", DFD_TREE, "dir", NULL, BUF_OK, 0, 0, -1, EISDIR },
	{ "\".\": EISDIR",		DFD_TREE, ".", NULL, BUF_OK, 64, 0, -1, EISDIR },
	{ "\"/\": EISDIR",		DFD_TREE, "/", NULL, BUF_OK, 64, 0, -1, EISDIR },
	{ "file as a directory: ENOTDIR", DFD_TREE, "file/x", NULL, BUF_OK, 64, 0, -1, ENOTDIR },
	{ "dfd is a file: ENOTDIR",	DFD_FILE, "x", NULL, BUF_OK, 64, 0, -1, ENOTDIR },
	{ "dfd -1, relative: EBADF",	DFD_BAD, "file", NULL, BUF_OK, 64, 0, -1, EBADF },
	{ "closed dfd, relative: EBADF", DFD_CLOSED, "file", NULL, BUF_OK, 64, 0, -1, EBADF },
	{ "NULL path: EFAULT",		DFD_TREE, NULL, NULL, BUF_OK, 64, 0, -1, EFAULT },
	{ "path (char *)1: EFAULT",	DFD_TREE, NULL, path_one, BUF_OK, 64, 0, -1, EFAULT },
	{ "path in a PROT_NONE page: EFAULT", DFD_TREE, NULL, path_noaccess, BUF_OK, 64, 0, -1, EFAULT },
	{ "NULL buffer: EFAULT",	DFD_TREE, "file", NULL, BUF_NULL, 64, 0, -1, EFAULT },
	{ "buffer (void *)1: EFAULT",	DFD_TREE, "file", NULL, BUF_ONE, 64, 0, -1, EFAULT },
	{ "PROT_NONE buffer: EFAULT",	DFD_TREE, "file", NULL, BUF_NOACCESS, 64, 0, -1, EFAULT },
	{ "read-only buffer: EFAULT",	DFD_TREE, "file", NULL, BUF_READONLY, 64, 0, -1, EFAULT },
	{ "NULL buffer, bufsize 0",	DFD_TREE, "file", NULL, BUF_NULL, 0, 0, 0, 0 },
	{ "NULL buffer, empty file",	DFD_TREE, "empty", NULL, BUF_NULL, 64, 0, 0, 0 },
	{ "component of 256 bytes: ENAMETOOLONG", DFD_TREE, NULL, path_longname, BUF_OK, 64, 0, -1, ENAMETOOLONG },
	{ "path over PATH_MAX: ENAMETOOLONG", DFD_TREE, NULL, path_longpath, BUF_OK, 64, 0, -1, ENAMETOOLONG },
	{ "AT_FDCWD with absolute path", DFD_CWD, "/proc/self/comm", NULL, BUF_OK, 64, 0, T_ORC, 0 },
};

static void setup(void)
{
	strcpy(dirpath, t_tmpdir("readfile-errors"));
	dir = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || fchmod(dir, 0755) ||
	    t_write_file(dir, "file", "hello\n", 6, 0644) ||
	    t_write_file(dir, "empty", "", 0, 0644) ||
	    t_write_file(dir, "secret", "secret\n", 7, 0600) ||
	    mkdirat(dir, "dir", 0755) || symlinkat("file", dir, "link") ||
	    symlinkat("loop2", dir, "loop1") || symlinkat("loop1", dir, "loop2") ||
	    symlinkat("nowhere", dir, "dangling") || mkfifoat(dir, "fifo", 0644))
		tap_bail("setup: %s", strerror(errno));

	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	readonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (noaccess == MAP_FAILED || readonly == MAP_FAILED)
		tap_bail("mmap");
	memset(longname, 'n', NAME_MAX + 1);
	for (size_t i = 0; i < sizeof(longpath) - 1; i++)
		longpath[i] = i % 64 == 63 ? '/' : 'p';
}

static void run_case(const struct rf_case *c)
{
	char buf[128];
	void *b = buf;
	const char *path = c->path_fn ? c->path_fn() : c->path;
	int dfd = dir, fd = -1, closed;
	ssize_t r;

	switch (c->dfd) {
	case DFD_BAD: dfd = -1; break;
	case DFD_CWD: dfd = AT_FDCWD; break;
	case DFD_CLOSED:
		closed = dup(0);
		close(closed);
		dfd = closed;
		break;
	case DFD_FILE:
		fd = openat(dir, "file", O_RDONLY | O_CLOEXEC);
		dfd = fd;
		break;
	}
	switch (c->buf) {
	case BUF_NULL: b = NULL; break;
	case BUF_ONE: b = (void *)1; break;
	case BUF_NOACCESS: b = noaccess; break;
	case BUF_READONLY: b = readonly; break;
	}
	errno = 0;
	r = readfile(dfd, path, b, c->size, c->flags);
	if (c->ret == T_ORC) {
		char want[128];
		ssize_t w = t_orc_read(dfd, path, want, c->size);

		tap_is_mem(buf, r < 0 ? 0 : r, want, w < 0 ? 0 : w, "%s", c->name);
	} else {
		tap_is_errno(r, errno, c->ret, c->err, "%s", c->name);
	}
	if (fd >= 0)
		close(fd);
}

/* Every flag bit but O_NOFOLLOW and O_NOATIME: EINVAL before any open. */
static void test_flags(void)
{
	int ino, wd, bad = 0, bits = 0;
	char ev[4096], buf[64];
	ssize_t n;

	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	wd = inotify_add_watch(ino, dirpath, IN_OPEN | IN_ACCESS);
	if (ino < 0 || wd < 0)
		tap_bail("inotify: %s", strerror(errno));
	for (int bit = 0; bit < 32; bit++) {
		int flag = (int)(1u << bit);

		if (flag == O_NOFOLLOW || flag == O_NOATIME)
			continue;
		bits++;
		errno = 0;
		if (readfile(dir, "file", buf, sizeof(buf), flag) != -1 ||
		    errno != EINVAL) {
			bad++;
			tap_diag("flag %#x: not EINVAL", flag);
		}
		if (readfile(dir, "missing", buf, sizeof(buf),
			     flag | O_NOFOLLOW) != -1 || errno != EINVAL) {
			bad++;
			tap_diag("flag %#x|O_NOFOLLOW on a missing file: not EINVAL",
				 flag);
		}
	}
	tap_ok(bad == 0, "each of %d disallowed flag bits: EINVAL, also before ENOENT",
	       bits);
	errno = 0;
	n = readfile(dir, "file", buf, sizeof(buf), -1);
	tap_is_errno(n, errno, -1, EINVAL, "flags -1: EINVAL");
	n = read(ino, ev, sizeof(ev));
	tap_ok(n < 0 && errno == EAGAIN,
	       "inotify saw no open or read for any rejected call");
	readfile(dir, "file", buf, sizeof(buf), 0);
	n = read(ino, ev, sizeof(ev));
	tap_ok(n > 0, "inotify does see the open of an accepted call");
	close(ino);
}

static void unprivileged_calls(void *arg, void *res)
{
	int *r = res;
	char buf[64];

	(void)arg;
	r[0] = readfile(dir, "secret", buf, sizeof(buf), 0);
	r[1] = errno;
	r[2] = readfile(dir, "file", buf, sizeof(buf), O_NOATIME);
	r[3] = errno;
	r[4] = readfile(dir, "file", buf, sizeof(buf), 0);
	r[5] = errno;
}

/* EACCES and EPERM need a caller without CAP_DAC_OVERRIDE and CAP_FOWNER. */
static void test_unprivileged(void)
{
	int res[6];

	if (t_as_nobody(unprivileged_calls, NULL, res, sizeof(res))) {
		tap_skip(3, T_NO_SECOND_USER);
		return;
	}
	tap_is_errno(res[0], res[1], -1, EACCES, "mode 0600 file of another user: EACCES");
	tap_is_errno(res[2], res[3], -1, EPERM, "O_NOATIME on a file not owned: EPERM");
	tap_is_errno(res[4], res[5], 6, 0, "the same file without O_NOATIME reads");
}

static void test_noatime(void)
{
	struct timespec old[2] = { { 946684800, 0 }, { 0, UTIME_OMIT } };
	struct statvfs sv;
	struct stat st;
	char buf[64];

	if (fstatvfs(dir, &sv) == 0 && (sv.f_flag & ST_NOATIME)) {
		tap_skip(2, "scratch file system is mounted noatime");
		return;
	}
	utimensat(dir, "file", old, 0);
	readfile(dir, "file", buf, sizeof(buf), O_NOATIME);
	fstatat(dir, "file", &st, 0);
	tap_is_long(st.st_atime, old[0].tv_sec, "O_NOATIME leaves atime alone");
	readfile(dir, "file", buf, sizeof(buf), 0);
	fstatat(dir, "file", &st, 0);
	tap_ok(st.st_atime != old[0].tv_sec, "without O_NOATIME atime moves");
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_fifo(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char buf[64];
	ssize_t r;
	pid_t pid;

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */

	/* SPEC v2: opened as open(2) opens it, waiting for a writer */
	alarm(1);
	errno = 0;
	r = readfile(dir, "fifo", buf, sizeof(buf), 0);
	alarm(0);
	tap_is_errno(r, errno, -1, EINTR,
		     "FIFO without a writer: the open waits, a signal gives EINTR");

	pid = fork();
	if (pid == 0) {
		int fd;

		usleep(200 * 1000);	/* the reader is waiting by then */
		fd = openat(dir, "fifo", O_WRONLY | O_CLOEXEC);
		_exit(fd < 0 || write(fd, "late", 4) != 4);
	}
	alarm(5);
	r = readfile(dir, "fifo", buf, sizeof(buf), 0);
	alarm(0);
	tap_is_mem(buf, r < 0 ? 0 : r, "late", 4,
		   "FIFO: a writer that comes later is waited for");
	waitpid(pid, NULL, 0);

	pid = t_fifo_writer(dir, "fifo", "data", 0);
	alarm(5);
	r = readfile(dir, "fifo", buf, sizeof(buf), 0);
	alarm(0);
	tap_is_mem(buf, r < 0 ? 0 : r, "data", 4,
		   "FIFO: waits for the writer's data, then EOF");
	waitpid(pid, NULL, 0);

	pid = t_fifo_writer(dir, "fifo", NULL, 3);
	alarm(1);
	errno = 0;
	r = readfile(dir, "fifo", buf, sizeof(buf), 0);
	alarm(0);
	tap_is_errno(r, errno, -1, EINTR,
		     "FIFO with a silent writer: the read blocks, a signal gives EINTR");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A buffer that ends in an inaccessible page: the bytes that fit. */
static void test_partial_buffer(void)
{
	char *map = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char data[300];
	ssize_t r;

	if (map == MAP_FAILED || mprotect(map + 4096, 4096, PROT_NONE))
		tap_bail("mmap");
	t_fill_pattern(data, sizeof(data), 7);
	if (t_write_file(dir, "big", data, sizeof(data), 0644))
		tap_bail("write big");
	r = readfile(dir, "big", map + 4096 - 100, sizeof(data), 0);
	tap_is_mem(map + 4096 - 100, r < 0 ? 0 : r, data, 100,
		   "buffer running into a PROT_NONE page: the 100 bytes that fit");
	munmap(map, 8192);
}

int main(void)
{
	setup();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_flags();
	test_unprivileged();
	test_noatime();
	test_fifo();
	test_partial_buffer();
	close(dir);
	return tap_done();
}
