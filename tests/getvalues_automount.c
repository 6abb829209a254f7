// SPDX-License-Identifier: MIT
/*
 * getvalues_automount.c - no lookup for data:, dir:, stat: or lstat:
 * triggers an automount (SPEC v2), and one that would pass through an
 * automount point gets EXDEV, as openat2(2) with RESOLVE_NO_XDEV gives it
 * (SPEC v3): beneath the point, and for the directory dir: lists; a last
 * component that is one is described by stat:/lstat: untriggered, and is
 * a directory to data: (ENODATA). dir: of $ORIGIN itself, an untriggered
 * point, lists it without a lookup. The automount point is debugfs's
 * "tracing" (it mounts tracefs when walked into), in a private mount
 * namespace; this needs root, and a kernel with debugfs. After every call
 * no new mount is there.
 *
 * Written for SPEC version 2 as spec2_automount.c; version 3's EXDEV, as
 * the kernel series gives it, by issue 23.
 */
#include <errno.h>
#include <fcntl.h>
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

#ifndef STATX_ATTR_AUTOMOUNT
#define STATX_ATTR_AUTOMOUNT 0x00001000
#endif

#define CHECKS 9

static char top[2048];

/* Mounts whose mount point is @dir or beneath it. */
static int mounts_at(const char *dir)
{
	char line[4096], mp[4096];
	size_t len = strlen(dir);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 &&
		    !strncmp(mp, dir, len) && (!mp[len] || mp[len] == '/'))
			n++;
	fclose(f);
	return n;
}

static void check(const struct t_backend *b, const char *dbg,
		  const struct statx *am)
{
	static const char *const names[] = {
		"stat:type:tracing", ":ino:tracing", "lstat:type:tracing",
		"dir:tracing", "data:tracing/README", "stat:type:tracing/README",
		"dir:tracing/instances", "stat:mntid:tracing", "data:tracing",
		"lstat:type:tracing/instances",
	};
	enum { N = GV_ARRAY_SIZE(names) };
	static char buf[65536];
	char ino[32], mntid[32], tracing[2200];
	struct name_val v[N], own[2];
	int ret, err;

	gv_backend_force(b->id);
	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)am->stx_ino);
	snprintf(mntid, sizeof(mntid), "%llu",
		 (unsigned long long)am->stx_mnt_id);
	for (int i = 0; i < N; i++)
		v[i] = (struct name_val){ .name = names[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	errno = 0;
	ret = getvalues(AT_FDCWD, dbg, v, N, 0);
	err = errno;
	if (ret != N) {
		tap_ok(false, "%s: the call: %d (%s)", b->name, ret,
		       ret < 0 ? strerrorname_np(err) : "-");
		tap_skip(CHECKS - 3, "%s: no values", b->name);
	} else {
		tap_ok(t_is(1, &v[0], "dir", 3) &&
		       t_is(1, &v[1], ino, strlen(ino)) &&
		       t_is(1, &v[2], "dir", 3), "%s: stat:/lstat: of the "
		       "automount point: the directory itself (%s, %s)",
		       b->name, t_got(1, 0, &v[0]), t_got(1, 0, &v[1]));
		tap_ok(t_is(1, &v[7], mntid, strlen(mntid)), "%s: stat:mntid "
		       "of it: debugfs's mount (%s)", b->name,
		       t_got(1, 0, &v[7]));
		tap_ok(v[3].error == EXDEV, "%s: dir:tracing: EXDEV, as "
		       "openat2(2) gives it (%s)", b->name, t_got(1, 0, &v[3]));
		tap_ok(v[4].error == EXDEV && v[5].error == EXDEV &&
		       v[9].error == EXDEV, "%s: data:, stat: and lstat: "
		       "beneath it: EXDEV (%s)", b->name, t_got(1, 0, &v[4]));
		tap_ok(v[6].error == EXDEV, "%s: dir: beneath it: EXDEV (%s)",
		       b->name, t_got(1, 0, &v[6]));
		tap_ok(v[8].error == ENODATA, "%s: data:tracing: a directory, "
		       "ENODATA (%s)", b->name, t_got(1, 0, &v[8]));
		tap_ok(!memmem(buf, sizeof(buf), "README", 6),
		       "%s: nothing of tracefs was listed or read", b->name);
	}

	/* $ORIGIN the point itself, untriggered: dir: looks nothing up */
	snprintf(tracing, sizeof(tracing), "%s/tracing", dbg);
	own[0] = (struct name_val){ .name = "stat:ino",
				    .value_in = { buf, sizeof(buf) } };
	own[1] = (struct name_val){ .name = "dir:" };
	errno = 0;
	ret = getvalues(AT_FDCWD, tracing, own, 2, AT_NO_AUTOMOUNT);
	tap_ok(ret == 2 && t_is(1, &own[0], ino, strlen(ino)) &&
	       t_is(1, &own[1], "", 0), "%s: dir: of the untriggered point "
	       "as $ORIGIN: listed, empty (%s)", b->name,
	       t_got(ret, errno, &own[1]));
	tap_is_long(mounts_at(dbg), 1, "%s: no automount was triggered under "
		    "%s", b->name, dbg);
}

static void run(void *arg)
{
	const struct t_backend *bs = arg;
	char dbg[2100], tracing[2200];
	struct statx am;
	const char *why;
	bool userns;
	int n = 0;

	while (bs[n].name)
		n++;
	if ((why = t_private_mounts(&userns))) {
		tap_skip(CHECKS * n, "no private mount namespace: %s", why);
		return;
	}
	if (userns) {
		tap_skip(CHECKS * n, "mounting debugfs needs real root (not in "
			 "a user namespace)");
		return;
	}
	snprintf(dbg, sizeof(dbg), "%s/dbg", top);
	snprintf(tracing, sizeof(tracing), "%s/tracing", dbg);
	if (mount("none", dbg, "debugfs", 0, NULL)) {
		tap_skip(CHECKS * n, "no debugfs here: %s", strerror(errno));
		return;
	}
	if (statx(AT_FDCWD, tracing, AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW,
		  STATX_BASIC_STATS | STATX_MNT_ID, &am) ||
	    !(am.stx_attributes_mask & STATX_ATTR_AUTOMOUNT) ||
	    !(am.stx_attributes & STATX_ATTR_AUTOMOUNT)) {
		tap_skip(CHECKS * n, "debugfs has no tracing automount point "
			 "here");
		return;
	}
	for (int i = 0; i < n; i++) {
		check(&bs[i], dbg, &am);
		if (mounts_at(dbg) > 1)	/* start over for the next */
			umount2(tracing, MNT_DETACH);
	}
}

int main(void)
{
	struct t_backend bs[5] = { { 0 } };
	int dfd;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("automount"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "dbg", 0755))
		tap_bail("setup in %s: %s", top, strerror(errno));
	close(dfd);
	t_backends(bs, CHECKS);
	t_sub("an automount point", 60, run, bs);
	return tap_done();
}
