// SPDX-License-Identifier: GPL-2.0
/*
 * gvautofs.c - no getvalues(2) lookup triggers an automount (SPEC v2),
 * not even of a name that an autofs indirect map has not mounted yet.
 *
 * An indirect autofs mount with this program's child as its daemon: a
 * lookup of a name that is not there makes a negative managed dentry, and
 * follow_automount() asks the daemon to mount it whatever the lookup's
 * flags, LOOKUP_NO_XDEV alone excepted.  The daemon counts the requests
 * it gets and fails each one (AUTOFS_IOC_FAIL), so that a kernel that
 * triggers still answers.  stat:, lstat:, data: and dir: of such a name
 * must get EXDEV (SPEC v3 2.3, as openat2(2) with RESOLVE_NO_XDEV) and the
 * daemon no request; stat: of $ORIGIN, the autofs root, works.
 *
 * Needs root and CONFIG_AUTOFS_FS; skips without.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/auto_fs.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "entry.h"


static const char *const names[] = {
	"stat:type:nothere-stat", "lstat:type:nothere-lstat",
	"data:nothere-data", "dir:nothere-dir", "stat:mode:nothere/below",
};
#define NNAMES	(sizeof(names) / sizeof(names[0]))

static char mnt[] = "/tmp/gvautofs.XXXXXX";

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * The daemon: each request read from @pkt is counted on @report, then
 * failed, until @pkt ends.
 */
static void daemon_loop(int pkt, int report)
{
	union autofs_v5_packet_union p;
	int root = -1;

	for (;;) {
		ssize_t n = read(pkt, &p, sizeof(p));

		if (n <= 0)
			_exit(0);
		if (write(report, "r", 1) != 1)
			_exit(1);
		if (root < 0)
			root = open(mnt, O_RDONLY | O_DIRECTORY);
		if (root < 0 || ioctl(root, AUTOFS_IOC_FAIL,
				      p.v5_packet.wait_queue_token))
			_exit(1);
	}
}

static int requests(int report)
{
	char c;
	int n = 0;

	while (read(report, &c, 1) == 1)
		n++;
	return n;
}

int main(void)
{
	struct gv_entry v[NNAMES + 1];
	char buf[4096], opts[128];
	int pkt[2], rep[2], bad = 0, got;
	pid_t child;
	long ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", NNAMES + 2);
	if (!mkdtemp(mnt))
		die("mkdtemp");
	if (pipe(pkt) || pipe2(rep, O_NONBLOCK))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		/* the daemon's own lookups never trigger: oz_mode */
		setpgid(0, 0);
		close(pkt[1]);
		close(rep[0]);
		daemon_loop(pkt[0], rep[1]);
	}
	setpgid(child, child);
	close(pkt[0]);
	close(rep[1]);
	snprintf(opts, sizeof(opts),
		 "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect", pkt[1],
		 (int)child);
	if (mount("gvautofs", mnt, "autofs", 0, opts)) {
		int err = errno;

		kill(child, SIGKILL);
		rmdir(mnt);
		for (size_t i = 0; i < NNAMES + 2; i++)
			printf("ok %zu # SKIP autofs: %s (CONFIG_AUTOFS_FS, root)\n",
			       i + 1, strerror(err));
		return 0;
	}
	close(pkt[1]);

	/* each name alone: a stop or a failure of one does not hide another */
	for (size_t i = 0; i < NNAMES; i++) {
		v[0] = (struct gv_entry){
			.name = PTR(names[i]),
			.value_in = { PTR(buf), sizeof(buf) },
		};
		ret = syscall(NR_GETVALUES, AT_FDCWD, mnt, v, 1UL,
			      sizeof(v[0]), 0);
		got = requests(rep[0]);
		printf("%sok %zu - %s: EXDEV, no automount (returned %ld, error %u, %d requests)\n",
		       ret == 1 && v[0].error == EXDEV && !got ? "" : "not ",
		       i + 1, names[i], ret, v[0].error, got);
		bad |= !(ret == 1 && v[0].error == EXDEV && !got);
	}
	v[0] = (struct gv_entry){
		.name = PTR("stat:type"),
		.value_in = { PTR(buf), sizeof(buf) },
	};
	ret = syscall(NR_GETVALUES, AT_FDCWD, mnt, v, 1UL, sizeof(v[0]), 0);
	got = requests(rep[0]);
	printf("%sok %zu - stat:type of the autofs root: dir (returned %ld, error %u, %d requests)\n",
	       ret == 1 && !v[0].error && v[0].value_out.len == 3 &&
	       !memcmp(buf, "dir", 3) && !got ? "" : "not ", NNAMES + 1,
	       ret, v[0].error, got);
	bad |= !(ret == 1 && !v[0].error && !got);
	/* the daemon itself works: stat(2) of a name asks it, and fails */
	{
		struct stat st;
		int r = stat(strcat(strcpy(buf, mnt), "/asked"), &st);

		got = requests(rep[0]);
		printf("%sok %zu - stat(2) of a new name asks the daemon (%d, %d requests)\n",
		       r && got == 1 ? "" : "not ", NNAMES + 2, r, got);
		bad |= !(r && got == 1);
	}
	umount2(mnt, MNT_DETACH);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	rmdir(mnt);
	return bad;
}
