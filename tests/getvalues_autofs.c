// SPDX-License-Identifier: MIT
/*
 * getvalues_autofs.c - the keys of an autofs indirect map, through every
 * backend: a key that is there but not mounted is an automount point,
 * described untriggered by stat:/lstat: and a directory to data: (ENODATA);
 * a name the map does not have, and anything beneath a key, is EXDEV, as
 * openat2(2) with RESOLVE_NO_XDEV gives it (SPEC v3). No lookup may ask
 * the daemon to mount anything (SPEC v2): the daemon here counts every
 * request it gets and fails it, so that a call that asks still returns.
 *
 * autofs makes this hard for a library: RESOLVE_NO_XDEV refuses every name
 * of an indirect map's directory, present or not, and any other lookup of
 * a name that is not there asks the daemon, AT_NO_AUTOMOUNT or not. The
 * native calls look at the dentry itself (guest/ovl_autofs.c and
 * guest/gvautofs.c run them); the sync and uring backends gave data:key
 * EXDEV before lookup.c read the directory's listing first.
 *
 * Needs real root and a kernel with autofs (CONFIG_AUTOFS_FS): in make
 * kcheck's guest, not on a host without the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/auto_fs.h>
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

#define CHECKS 7
/* after the backends: the daemon sees a lookup that does ask */
#define CHECKS_AFTER 1

static char top[2048], ind[2100];

/*
 * The daemon, in a process group of its own (autofs lets that group
 * through, and asks it for what others look up): makes the key "key" when
 * told on @go and says so on @done, then counts on @report each request
 * read from @pkt and fails it (AUTOFS_IOC_FAIL), until @pkt ends.
 */
static void daemon_main(int go, int done, int pkt, int report)
{
	union autofs_v5_packet_union p;
	char c = 1, key[2200];
	int root;

	if (read(go, &c, 1) == 1) {
		snprintf(key, sizeof(key), "%s/key", ind);
		c = mkdir(key, 0755) ? 1 : 0;
	}
	if (write(done, &c, 1) != 1 || c)
		_exit(1);
	root = open(ind, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		_exit(1);
	while (read(pkt, &p, sizeof(p)) > 0) {
		if (write(report, "r", 1) != 1 ||
		    ioctl(root, AUTOFS_IOC_FAIL, p.v5_packet.wait_queue_token))
			_exit(1);
	}
	_exit(0);
}

/* Requests the daemon counted since the last time asked. */
static int requests(int report)
{
	char got[64];
	ssize_t r;
	int n = 0;

	while ((r = read(report, got, sizeof(got))) > 0)
		n += r;
	return n;
}

static bool error_is(const struct name_val *e, int err)
{
	return e->error == (unsigned int)err;
}

static void check(const struct t_backend *b, int report)
{
	static const char *const names[] = {
		"data:key", "data:nothere", "stat:type:key", "lstat:type:key",
		"stat:type:nothere", "lstat:type:nothere", "dir:key",
		"data:key/x", "stat:type:key/x", "dir:",
	};
	enum { N = GV_ARRAY_SIZE(names) };
	static char buf[4096];
	struct name_val v[N];
	int ret, err, asked;

	gv_backend_force(b->id);
	for (int i = 0; i < N; i++)
		v[i] = (struct name_val){ .name = names[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	errno = 0;
	ret = getvalues(AT_FDCWD, ind, v, N, 0);
	err = errno;
	asked = requests(report);
	if (ret != N) {
		tap_ok(false, "%s: the call: %d (%s)", b->name, ret,
		       ret < 0 ? strerrorname_np(err) : "-");
		tap_skip(CHECKS - 2, "%s: no values", b->name);
	} else {
		tap_ok(error_is(&v[0], ENODATA), "%s: data:key, a key not "
		       "mounted: a directory, ENODATA (%s)", b->name,
		       t_got(1, 0, &v[0]));
		tap_ok(error_is(&v[1], EXDEV), "%s: data:nothere, a name the "
		       "map does not have: EXDEV (%s)", b->name,
		       t_got(1, 0, &v[1]));
		tap_ok(t_is(1, &v[2], "dir", 3) && t_is(1, &v[3], "dir", 3),
		       "%s: stat:/lstat: of the key: the directory, "
		       "untriggered (%s, %s)", b->name, t_got(1, 0, &v[2]),
		       t_got(1, 0, &v[3]));
		tap_ok(error_is(&v[4], EXDEV) && error_is(&v[5], EXDEV),
		       "%s: stat:/lstat: of a name the map does not have: "
		       "EXDEV (%s, %s)", b->name, t_got(1, 0, &v[4]),
		       t_got(1, 0, &v[5]));
		tap_ok(error_is(&v[6], EXDEV) && error_is(&v[7], EXDEV) &&
		       error_is(&v[8], EXDEV), "%s: dir: of the key, data: "
		       "and stat: beneath it: EXDEV (%s, %s, %s)", b->name,
		       t_got(1, 0, &v[6]), t_got(1, 0, &v[7]),
		       t_got(1, 0, &v[8]));
		tap_ok(t_is(1, &v[9], "key", 4), "%s: dir: of the map lists "
		       "the key alone (%s)", b->name, t_got(1, 0, &v[9]));
	}
	tap_is_long(asked, 0, "%s: no request reached the daemon", b->name);
}

/* autofs on @ind, indirect, with the daemon; NULL or why it cannot be */
static const char *setup(pid_t *daemon, int *report)
{
	int go[2], done[2], pkt[2], rep[2];
	static char why[128];
	char opts[128], made = 1;

	if (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC) ||
	    pipe2(pkt, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	*daemon = fork();
	if (*daemon < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!*daemon) {
		setpgid(0, 0);
		daemon_main(go[0], done[1], pkt[0], rep[1]);
	}
	setpgid(*daemon, *daemon);
	close(go[0]);
	close(done[1]);
	close(pkt[0]);
	close(rep[1]);
	snprintf(opts, sizeof(opts),
		 "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect", pkt[1],
		 (int)*daemon);
	if (mount("gv-autofs", ind, "autofs", 0, opts)) {
		snprintf(why, sizeof(why), "mount autofs: %s%s",
			 strerror(errno), errno == ENODEV ?
			 " (no autofs in this kernel: CONFIG_AUTOFS_FS)" : "");
		kill(*daemon, SIGKILL);
		waitpid(*daemon, NULL, 0);
		return why;
	}
	close(pkt[1]);
	if (write(go[1], "", 1) != 1 || read(done[0], &made, 1) != 1 || made)
		tap_bail("the daemon's mkdir of %s/key", ind);
	close(go[1]);
	close(done[0]);
	if (fcntl(rep[0], F_SETFL, O_NONBLOCK))
		tap_bail("fcntl: %s", strerror(errno));
	*report = rep[0];
	return NULL;
}

static void run(void *arg)
{
	const struct t_backend *bs = arg;
	int n = 0, report, all = 0, ret, err, asked;
	const char *why;
	struct stat st;
	char fresh[2200];
	pid_t daemon;
	bool userns;

	while (bs[n].name)
		n++;
	all = CHECKS * n + CHECKS_AFTER;
	if ((why = t_private_mounts(&userns))) {
		tap_skip(all, "no private mount namespace: %s", why);
		return;
	}
	if (userns) {
		tap_skip(all, "mounting autofs needs real root (not in a user "
			 "namespace)");
		return;
	}
	if ((why = setup(&daemon, &report))) {
		tap_skip(all, "%s", why);
		return;
	}
	for (int i = 0; i < n; i++)
		check(&bs[i], report);
	/* the same lookup by stat(2) does ask: the count is real */
	snprintf(fresh, sizeof(fresh), "%s/fresh", ind);
	ret = stat(fresh, &st);
	err = errno;
	asked = requests(report);
	tap_ok(ret < 0 && asked == 1, "stat(2) of a name the map does not "
	       "have asks the daemon: %d request(s) (%s)", asked,
	       ret < 0 ? strerrorname_np(err) : "found");
	umount2(ind, MNT_DETACH);
	kill(daemon, SIGKILL);
	waitpid(daemon, NULL, 0);
}

int main(void)
{
	struct t_backend bs[5] = { { 0 } };

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("autofs"));
	snprintf(ind, sizeof(ind), "%s/ind", top);
	if (mkdir(ind, 0755))
		tap_bail("mkdir %s: %s", ind, strerror(errno));
	t_backends(bs, CHECKS);
	t_sub("an autofs indirect map", 60, run, bs);
	return tap_done();
}
