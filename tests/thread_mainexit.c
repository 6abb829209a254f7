// SPDX-License-Identifier: MIT
/*
 * thread_mainexit.c - after the main thread's pthread_exit(), the calls of
 * the threads that remain work: the library acts from the calling thread,
 * not from the thread-group leader, which is a zombie now (its memory and
 * its /proc/PID/fd are gone). Run in a forked child, so that the test
 * itself keeps its main thread; every backend.
 *
 * Asked for by the hardening review of issue 14, as harden_mainexit.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char content[] = "a file read after the main thread left\n";
static char top[2048];
static struct t_backend bs[4];
static int nbs;

static bool leader_gone(pid_t pid)
{
	long long until = t_now_ms() + 3000;
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)pid);
	while (t_now_ms() < until) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		char *paren;

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return true;
		buf[n] = 0;
		paren = strrchr(buf, ')');
		if (paren && (paren[2] == 'Z' || paren[2] == 'X'))
			return true;
		usleep(2000);
	}
	return false;
}

static void check_backend(const struct t_backend *b, int dir)
{
	char buf[8192], want[64], comm[16];
	struct name_val v[4];
	struct stat st;
	int ret, err;
	ssize_t n;

	gv_backend_force(b->id);
	v[0] = (struct name_val){ .name = "data:file",
				  .value_in = { buf, sizeof(buf) } };
	v[1] = (struct name_val){ .name = "stat:size:file" };
	v[2] = (struct name_val){ .name = "data:file" };
	v[3] = (struct name_val){ .name = "dir:" };
	errno = 0;
	ret = getvalues(dir, "", v, 4, AT_EMPTY_PATH);
	err = errno;
	snprintf(want, sizeof(want), "%zu", strlen(content));
	if (!tap_ok(ret == 4 && t_is(1, &v[0], content, strlen(content)) &&
		    t_is(1, &v[1], want, strlen(want)) &&
		    t_is(1, &v[2], content, strlen(content)) &&
		    t_is(1, &v[3], "file", 5),
		    "%s: getvalues() from a thread after the main thread's "
		    "pthread_exit()", b->name))
		tap_diag("   returned %d (%s), entry 0: %s", ret,
			 ret < 0 ? strerrorname_np(err) : "-",
			 t_got(ret, err, &v[0]));

	snprintf(buf, sizeof(buf), "%s/dir", top);
	ret = t_get1(AT_FDCWD, buf, 0, "data:file", buf, sizeof(buf), &v[0],
		      &err);
	if (!tap_ok(t_is(ret, &v[0], content, strlen(content)),
		    "%s: ... $ORIGIN by path", b->name))
		tap_diag("   got %s", t_got(ret, err, &v[0]));

	errno = 0;
	n = readfile(dir, "file", buf, sizeof(buf), 0);
	if (!tap_ok(n == (ssize_t)strlen(content) &&
		    !memcmp(buf, content, n), "%s: readfile() from that thread",
		    b->name))
		tap_diag("   returned %zd (%s)", n, strerrorname_np(errno));

	pthread_getname_np(pthread_self(), comm, sizeof(comm));
	snprintf(want, sizeof(want), "%s\n", comm);
	ret = t_get1(AT_FDCWD, "/proc", 0, "data:thread-self/comm", buf,
		      sizeof(buf), &v[0], &err);
	if (!tap_ok(t_is(ret, &v[0], want, strlen(want)),
		    "%s: data:thread-self/comm of /proc is that thread's",
		    b->name))
		tap_diag("   got %s", t_got(ret, err, &v[0]));
	if (!fstat(dir, &st)) {
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)st.st_ino);
		ret = t_get1(AT_FDCWD, "/proc/thread-self", 0, "stat:ino:fd/3",
			      buf, sizeof(buf), &v[0], &err);
		if (!tap_ok(dir != 3 || t_is(ret, &v[0], want, strlen(want)),
			    "%s: stat:ino:fd/3 of /proc/thread-self is the "
			    "open directory", b->name))
			tap_diag("   got %s", t_got(ret, err, &v[0]));
	}
}

static pid_t leader;

static void *survivor_main(void *arg)
{
	char path[2100];
	int dir;

	(void)arg;
	pthread_setname_np(pthread_self(), "gv-survivor");
	if (!leader_gone(leader))
		tap_diag("the main thread is still there");
	snprintf(path, sizeof(path), "%s/dir", top);
	dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir != 3)
		dir = dup2(dir, 3);
	for (int i = 0; i < nbs; i++)
		check_backend(&bs[i], dir);
	fflush(stdout);
	_exit(0);
}

static void run(void *arg)
{
	pthread_t t;

	(void)arg;
	leader = getpid();
	if (pthread_create(&t, NULL, survivor_main, NULL))
		tap_bail("pthread_create");
	pthread_exit(NULL);
}

int main(void)
{
	int dfd;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("mainexit"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "dir", 0755) ||
	    t_write_file(dfd, "dir/file", content, strlen(content), 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	close(dfd);
	nbs = t_backends(bs, 5);
	t_sub("after pthread_exit() of the main thread", 60, run, NULL);
	return tap_done();
}
