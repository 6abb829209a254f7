// SPDX-License-Identifier: MIT
/*
 * data_nowait.c - data: never waits, and never throws away what it read
 * (SPEC v2, data group). A file whose read consumes what it returns and
 * then would block - trace_pipe of a private tracefs instance - gives the
 * bytes read, then an empty value once it is drained, at once; a file
 * under a conflicting lease gives EAGAIN at once. Every backend; each case
 * runs in a child under a deadline, so that a wait is a failing check.
 *
 * Asked for by the hardening review of issue 14, as harden_nowait.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static char top[2048];
static char instance[2200];	/* the tracefs instance, once made */

/* Marks written to trace_marker come out of trace_pipe once. */
static void trace_one(void *arg)
{
	const struct t_backend *b = arg;
	static char buf[1 << 16];
	char path[2300], mark[64];
	struct name_val e;
	int ret, err;

	gv_backend_force(b->id);
	for (int round = 1; round <= 2; round++) {
		snprintf(mark, sizeof(mark), "gv-mark-%s-%d", b->name, round);
		snprintf(path, sizeof(path), "%s/trace_marker", instance);
		if (t_write_str(path, mark))
			tap_bail("%s: %s", path, strerror(errno));
		memset(buf, 0, sizeof(buf));
		ret = t_get1(AT_FDCWD, instance, 0, "data:trace_pipe", buf,
			      sizeof(buf), &e, &err);
		if (!tap_ok(ret == 1 && !e.error &&
			    memmem(buf, e.value_out.iov_len, mark,
				   strlen(mark)),
			    "%s: data:trace_pipe gives what it read (%s), not "
			    "EAGAIN with the bytes lost", b->name, mark))
			tap_diag("   got %s", t_got(ret, err, &e));
	}
	/* drained: a read would block; data: does not wait */
	ret = t_get1(AT_FDCWD, instance, 0, "data:trace_pipe", buf,
		      sizeof(buf), &e, &err);
	if (!tap_ok(ret == 1 && !e.error && e.value_out.iov_len == 0,
		    "%s: data:trace_pipe drained: an empty value at once",
		    b->name))
		tap_diag("   got %s", t_got(ret, err, &e));
}

static void trace_all(void *arg)
{
	const struct t_backend *bs = arg;
	char dir[2100];
	const char *why;
	bool userns;
	int n = 0;

	while (bs[n].name)
		n++;
	if ((why = t_private_mounts(&userns))) {
		tap_skip(3 * n, "tracefs: no private mount namespace: %s", why);
		return;
	}
	if (userns) {
		tap_skip(3 * n, "tracefs: mounting it needs real root (not "
			 "in a user namespace)");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/tracing", top);
	if (mkdir(dir, 0755) || mount("nodev", dir, "tracefs", 0, NULL)) {
		tap_skip(3 * n, "no tracefs here: %s", strerror(errno));
		return;
	}
	/*
	 * An instance and a child per backend: a reader left blocked in a
	 * killed child keeps trace_pipe busy for a while.
	 */
	for (int i = 0; i < n; i++) {
		char what[64];
		long long until;

		snprintf(instance, sizeof(instance),
			 "%s/instances/gv-nowait-%d-%s", dir, (int)getpid(),
			 bs[i].name);
		if (mkdir(instance, 0700)) {
			tap_skip(3, "no tracefs instance: %s", strerror(errno));
			continue;
		}
		snprintf(what, sizeof(what), "%s, trace_pipe", bs[i].name);
		t_sub(what, 10, trace_one, (void *)&bs[i]);
		until = t_now_ms() + 5000;
		while (rmdir(instance) && errno == EBUSY && t_now_ms() < until)
			usleep(10000);
		if (!access(instance, F_OK))
			tap_diag("could not remove the tracefs instance %s: %s",
				 instance, strerror(errno));
	}
}

/* A write lease on "leased": an open for reading must break it first. */
static void lease_one(void *arg)
{
	const struct t_backend *b = arg;
	char path[2200], buf[4096];
	struct name_val e;
	int fd, ret, err;

	signal(SIGIO, SIG_IGN);	/* the break's notice */
	snprintf(path, sizeof(path), "%s/origin/leased", top);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK)) {
		tap_skip(1, "%s: no file lease here: %s", b->name,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	gv_backend_force(b->id);
	snprintf(path, sizeof(path), "%s/origin", top);
	ret = t_get1(AT_FDCWD, path, 0, "data:leased", buf, sizeof(buf), &e,
		      &err);
	if (!tap_ok(ret == 1 && e.error == EAGAIN,
		    "%s: data: of a file under a conflicting lease: EAGAIN at "
		    "once", b->name))
		tap_diag("   got %s", t_got(ret, err, &e));
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

int main(void)
{
	struct t_backend bs[5] = { { 0 } };
	int n, dfd;

	alarm(600);	/* t_sub() bounds each case; this, the whole */
	snprintf(top, sizeof(top), "%s", t_tmpdir("nowait"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "origin", 0755) ||
	    t_write_file(dfd, "origin/leased", "leased\n", 7, 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	close(dfd);

	n = t_backends(bs, 4);
	t_sub("trace_pipe", 60, trace_all, bs);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, lease", bs[i].name);
		t_sub(what, 10, lease_one, &bs[i]);
	}
	return tap_done();
}
