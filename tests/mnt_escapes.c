// SPDX-License-Identifier: MIT
/*
 * mnt_escapes.c - mnt:options and mnt:superopts are exactly mountinfo's
 * text, the file system's own escapes included, while root, mountpoint and
 * source have mountinfo's escapes undone (SPEC 2.4), through both mount
 * sources (statmount() and mountinfo) and on every backend.
 *
 * The mounts are real: a tmpfs whose source and mount point hold a space
 * and a backslash, and an overlay over lower, upper and work directories
 * whose names hold a space and a comma, which overlayfs writes in its
 * options as \040, \134 and \054 ("lowerdir=/x/lo\040wer"); undone, the
 * comma would read as a separator of options. They are made in a mount
 * namespace of the test's own, as root and, where the kernel lets an
 * unprivileged user mount these file systems, in a user namespace too, and
 * every value is compared with /proc/self/mountinfo byte for byte.
 *
 * Asked for by issue 23 (item D).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/mountinfo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"
#include "mnt.h"

/* the fields compared, and where the tests' own mountinfo reading has them */
static const struct { const char *name; int mf; } fields[] = {
	{ "options", MF_OPTIONS }, { "superopts", MF_SUPEROPTS },
	{ "source", MF_SOURCE }, { "mountpoint", MF_MOUNTPOINT },
	{ "root", MF_ROOT }, { "fstype", MF_FSTYPE },
};
#define NFIELDS GV_ARRAY_SIZE(fields)

static const char *const sources[] = { "auto", "statmount", "mountinfo" };
#define NSOURCES GV_ARRAY_SIZE(sources)

/* per backend and namespace: 2 mounts x sources x 2 ways of asking */
#define CHECKS_BACKEND	(2 * NSOURCES * 2)
#define CHECKS_FIXED	2

static char top[2048];
static struct t_backend bs[5];
static int nbs;

/*
 * A user namespace, our uid and gid mapped to 0, and a mount namespace.
 * (Our ids are taken before: in the new namespace they are not mapped.)
 */
static int enter_userns(void)
{
	char umap[64], gmap[64];

	snprintf(umap, sizeof(umap), "0 %u 1", (unsigned int)geteuid());
	snprintf(gmap, sizeof(gmap), "0 %u 1", (unsigned int)getegid());
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    t_write_str("/proc/self/uid_map", umap) ||
	    (t_write_str("/proc/self/setgroups", "deny") && errno != ENOENT))
		return -1;
	return t_write_str("/proc/self/gid_map", gmap);
}

static char *at(const char *rel)
{
	static char paths[4][2200];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", top, rel);
	return p;
}

/* The mount ID (mountinfo's) of the mount @path is the root of. */
static unsigned long mount_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		tap_bail("statx %s: %s", path, strerror(errno));
	return (unsigned long)stx.stx_mnt_id;
}

/*
 * statmount() forced on a kernel before 6.13: it has neither the source
 * (STATMOUNT_SB_SOURCE) nor the subtype that fstype needs (STATMOUNT_FS_
 * SUBTYPE), and the library answers ENOSYS for those two rather than mix
 * in mountinfo's text (the kcheck guest runs 6.12); every other field
 * must still match, and on a later kernel all of them.
 */
static bool forced_statmount, statmount_before_6_13;

static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

static bool excused(int mf, const struct name_val *e)
{
	return forced_statmount && statmount_before_6_13 &&
	       (mf == MF_SOURCE || mf == MF_FSTYPE) && e->error == ENOSYS;
}

/*
 * Entries @v[@first..] hold the fields of @row, in the order of fields[];
 * the first that does not is said in a diagnostic.
 */
static bool same(const struct name_val *v, const struct mi_mount *row)
{
	for (size_t f = 0; f < NFIELDS; f++) {
		const struct name_val *e = &v[f];
		int mf = fields[f].mf;

		if (excused(mf, e))
			continue;
		if (nv_is(e, row->val[mf], row->len[mf]))
			continue;
		nv_diag(fields[f].name, e, row->val[mf], row->len[mf]);
		return false;
	}
	return true;
}

/*
 * The mount @path is the root of, asked two ways: of $ORIGIN ("mnt:...",
 * one mount: statmount() under auto) and by its ID after a listing of the
 * namespace ("mntns", then "mntns:ID:...": mountinfo under auto).
 */
static void check_mount(const char *be, const char *src, const char *path,
			const struct mi_table *mi)
{
	static char buf[1 << 16];
	unsigned long id = mount_id(path);
	const struct mi_mount *row = mi_find(mi, id);
	struct name_val v[NFIELDS + 1];
	char first[64], shorts[NFIELDS][32];
	int ret;

	if (!row)
		tap_bail("mount %lu of %s is not in mountinfo", id, path);
	/* mnt:options, then :superopts, ... by shorthand */
	for (size_t f = 1; f < NFIELDS; f++) {
		snprintf(shorts[f], sizeof(shorts[f]), ":%s", fields[f].name);
		v[f] = (struct name_val){ .name = shorts[f] };
	}
	snprintf(first, sizeof(first), "mnt:%s", fields[0].name);
	v[0] = (struct name_val){ .name = first,
				  .value_in = { buf, sizeof(buf) } };
	ret = getvalues(AT_FDCWD, path, v, NFIELDS, 0);
	tap_ok(ret == (int)NFIELDS && same(v, row), "%s, %s: mnt: of %s is "
	       "mountinfo's text (returned %d)", be, src, path, ret);

	/* the same after "mntns", in one buffer */
	memmove(v + 1, v, NFIELDS * sizeof(*v));
	snprintf(first, sizeof(first), "mntns:%lu:%s", id, fields[0].name);
	v[1] = (struct name_val){ .name = first };
	v[0] = (struct name_val){ .name = "mntns",
				  .value_in = { buf, sizeof(buf) } };
	ret = getvalues(AT_FDCWD, "/", v, NFIELDS + 1, 0);
	tap_ok(ret == (int)NFIELDS + 1 && !v[0].error && same(v + 1, row),
	       "%s, %s: mntns:%lu: after the listing is mountinfo's text "
	       "(returned %d)", be, src, id, ret);
}

/*
 * The premise: mountinfo escapes what overlayfs wrote in its options, and
 * what the tests' own reading unescapes (the source) holds a byte that
 * mountinfo escapes.
 */
static void check_premise(const struct mi_table *mi, const char *ovl)
{
	const struct mi_mount *o = mi_find(mi, mount_id(ovl));
	const struct mi_mount *t = mi_find(mi, mount_id(top));

	tap_ok(o && strstr(o->val[MF_SUPEROPTS], "lo\\040wer") &&
	       strstr(o->val[MF_SUPEROPTS], "\\054"), "mountinfo escapes the "
	       "space and the comma in overlayfs's options: %s",
	       o ? o->val[MF_SUPEROPTS] : "(no such mount)");
	tap_ok(t && !strcmp(t->val[MF_SOURCE], "gv tmp\\fs"), "the source of "
	       "the tmpfs, unescaped: %s", t ? t->val[MF_SOURCE] : "-");
}

static void mount_all(bool userns, const char *ovl)
{
	char opts[8192];

	if (mount("gv tmp\\fs", top, "tmpfs", 0, "mode=0755"))
		tap_bail("tmpfs on %s: %s", top, strerror(errno));
	if (mkdir(at("lo wer"), 0755) || mkdir(at("lo,wer"), 0755) ||
	    mkdir(at("up per"), 0755) || mkdir(at("wo rk"), 0755) ||
	    mkdir(at("mnt pt"), 0755) || mkdir(at("tmp fs"), 0755))
		tap_bail("mkdir in %s: %s", top, strerror(errno));
	if (mount("gv inner\\tmp", at("tmp fs"), "tmpfs", MS_NOSUID,
		  "mode=0700,nr_inodes=100"))
		tap_bail("tmpfs on %s: %s", at("tmp fs"), strerror(errno));
	/* a comma in a path is written "\," to overlayfs's own parser */
	snprintf(opts, sizeof(opts), "lowerdir=%s:%s/lo\\,wer,upperdir=%s,"
		 "workdir=%s", at("lo wer"), top, at("up per"), at("wo rk"));
	if (mount("gv overlay", ovl, "overlay", 0, opts)) {
		tap_skip(CHECKS_FIXED + nbs * CHECKS_BACKEND,
			 "no overlayfs mount here%s: %s",
			 userns ? " in a user namespace" : "", strerror(errno));
		exit(0);
	}
}

static void run(void *arg)
{
	bool userns = *(bool *)arg;
	struct mi_table mi = { 0 };
	char ovl[2200];

	if (!userns && geteuid()) {
		tap_skip(CHECKS_FIXED + nbs * CHECKS_BACKEND, "a mount "
			 "namespace without a user namespace needs root (the "
			 "user namespace case runs as this user)");
		return;
	}
	if (userns ? enter_userns() : unshare(CLONE_NEWNS)) {
		tap_skip(CHECKS_FIXED + nbs * CHECKS_BACKEND, "no %s here: %s",
			 userns ? "user namespace" : "mount namespace",
			 strerror(errno));
		return;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		tap_bail("private /: %s", strerror(errno));
	snprintf(ovl, sizeof(ovl), "%s", at("mnt pt"));
	mount_all(userns, ovl);
	mi_load(&mi);
	check_premise(&mi, ovl);
	for (int b = 0; b < nbs; b++) {
		gv_backend_force(bs[b].id);
		for (size_t s = 0; s < NSOURCES; s++) {
			if (s == 1 && !mnt_have_statmount()) {
				tap_skip(4, "%s: no statmount() before Linux "
					 "6.8", bs[b].name);
				continue;
			}
			gv_mnt_force_source(sources[s]);
			forced_statmount = s == 1;
			check_mount(bs[b].name, sources[s], ovl, &mi);
			check_mount(bs[b].name, sources[s], at("tmp fs"), &mi);
		}
	}
	mi_free(&mi);
}

int main(void)
{
	static bool plain = false, userns = true;

	alarm(300);
	statmount_before_6_13 = kernel_before(6, 13);
	snprintf(top, sizeof(top), "%s", t_tmpdir("mnt-escapes"));
	nbs = t_backends(bs, 2 * CHECKS_BACKEND);
	t_sub("a mount namespace of our own", 60, run, &plain);
	t_sub("a user namespace", 60, run, &userns);
	return tap_done();
}
