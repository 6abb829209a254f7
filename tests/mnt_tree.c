// SPDX-License-Identifier: MIT
/*
 * mnt_tree.c - the mnt and mntns groups against /proc/self/mountinfo, over a
 * mount tree built for the purpose in a private mount namespace: tmpfs
 * mounts with options, a bind mount of a subdirectory and of a file, shared
 * peers, a slave, an unbindable mount, stacked mounts, mount points with a
 * space, a backslash, a tab and a newline, 1000 more mounts, and, seen from
 * a chroot, a slave whose master is out of reach (propagate_from) and
 * mounts that are not reachable at all (ENOENT). Every field of every mount
 * is compared through each source: auto, mountinfo and statmount.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/mountinfo.h"
#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"
#include "mnt.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

#define EXTRA_MOUNTS 1000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *top;

static void build_tree(void)
{
	top = mt_new_top("mnt");
	/* uid=1: a user namespace maps only its own user */
	mt_mount_at("plain", "gv plain\\src", "tmpfs", 0,
		    t_real_root() ? "size=1m,mode=0750,uid=1" :
		    "size=1m,mode=0750");
	mt_mkdir("plain/dir");
	if (t_write_file(AT_FDCWD, mt_at("plain/file"), "x", 1, 0644))
		tap_bail("file: %s", strerror(errno));

	mt_mount_at("sub", mt_at("plain/dir"), NULL, MS_BIND, NULL);
	if (t_write_file(AT_FDCWD, mt_at("filebind"), "", 0, 0644))
		tap_bail("filebind: %s", strerror(errno));
	mt_mount(mt_at("plain/file"), mt_at("filebind"), NULL, MS_BIND, NULL);

	mt_propagation_tree();

	mt_mount_at("ro", "gv-ro", "tmpfs", MS_RDONLY | MS_NOSUID |
		    MS_NOEXEC | MS_NODEV | MS_NOATIME | MS_NODIRATIME, NULL);
	mt_mount_at("strict", "gv-strict", "tmpfs", MS_STRICTATIME |
		    MS_NOSYMFOLLOW | MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME,
		    NULL);
	mt_mount_at("relnodir", "gv-relnodir", "tmpfs", MS_RELATIME |
		    MS_NODIRATIME, NULL);

	mt_mount_at("sp ace\\back", "", "tmpfs", 0, NULL);
	mt_mount_at("new\nline\ttab", "gv-newline", "tmpfs", 0, NULL);

	mt_mount_at("stack", "gv-stack1", "tmpfs", 0, NULL);
	mt_mount("gv-stack2", mt_at("stack"), "tmpfs", 0, NULL);

	mt_mount_at("many", "gv-many", "tmpfs", 0, NULL);
	for (int i = 0; i < EXTRA_MOUNTS; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "many/%d", i);
		mt_mount_at(rel, mt_at("plain/dir"), NULL, MS_BIND, NULL);
	}

	/*
	 * For the chroot: "c" is a slave of group B, whose only member "b"
	 * is outside the new root; B is itself a slave of group A, which "a"
	 * (inside) belongs to. From inside, c shows master:B propagate_from:A.
	 */
	mt_mount_at("root", "gv-root", "tmpfs", 0, NULL);
	/* a user namespace may not mount a procfs for a PID namespace it
	 * does not own: there, the one it sees, bound with its submounts */
	if (t_real_root())
		mt_mount_at("root/proc", "proc", "proc", 0, NULL);
	else
		mt_mount_at("root/proc", "/proc", NULL, MS_BIND | MS_REC,
			    NULL);
	mt_mount_at("root/a", "gv-a", "tmpfs", 0, NULL);
	mt_change("root/a", MS_SHARED);
	mt_mount_at("b", mt_at("root/a"), NULL, MS_BIND, NULL);
	mt_change("b", MS_SLAVE);
	mt_change("b", MS_SHARED);
	mt_mount_at("root/c", mt_at("b"), NULL, MS_BIND, NULL);
	mt_change("root/c", MS_SLAVE);
}

/* Whether the list @v holds the IDs of mountinfo, in its order. */
static bool list_is(const struct name_val *v, const struct mi_table *mi,
		    size_t *at)
{
	const char *buf = v->value_out.iov_base;
	size_t i = 0, off = 0;
	bool same = v->error == 0;

	while (same && off < v->value_out.iov_len) {
		const char *item = buf + off;

		same = i < mi->n && !strcmp(item, mi->m[i].val[MF_ID]);
		off += strlen(item) + 1;
		i++;
	}
	*at = i;
	return same && i == mi->n;
}

/* mntns against the IDs of mountinfo, in its order. */
static void check_list(const char *src, const struct mi_table *mi)
{
	static char buf[1 << 20];
	struct name_val v = { .name = "mntns",
			      .value_in = { buf, sizeof(buf) } };
	size_t i;
	int r = getvalues(AT_FDCWD, "/", &v, 1, 0);

	if (!tap_ok(r == 1 && list_is(&v, mi, &i),
		    "%s: mntns lists the %zu IDs of mountinfo in its order",
		    src, mi->n))
		tap_diag("ret %d error %u, differs at item %zu", r, v.error,
			 i);
}

/*
 * The list before and after a field of the same call: the library lists
 * from the IDs of mountinfo's lines until a field has it parse them all,
 * then from the mounts parsed; the two must agree.
 */
static void check_list_mixed(const char *src, const struct mi_table *mi)
{
	static char buf[1 << 21];
	const struct mi_mount *last = &mi->m[mi->n - 1];
	char name[64];
	struct name_val v[3] = {
		{ .name = "mntns", .value_in = { buf, sizeof(buf) } },
		{ .name = name },
		{ .name = "mntns" },
	};
	size_t i, j;
	int r;

	snprintf(name, sizeof(name), "mntns:%lu:mountpoint", last->id);
	r = getvalues(AT_FDCWD, "/", v, 3, 0);
	tap_ok(r == 3 && list_is(&v[0], mi, &i) &&
	       nv_is(&v[1], last->val[MF_MOUNTPOINT],
		     last->len[MF_MOUNTPOINT]) && list_is(&v[2], mi, &j),
	       "%s: mntns, a field, mntns again in one call: both lists are "
	       "mountinfo's", src);
}

/* Every field of every mount through mntns:ID:FIELD, in one call. */
static void check_all_fields(const char *src, const struct mi_table *mi)
{
	unsigned long *ids = malloc(mi->n * sizeof(*ids));
	size_t per = 1 + MF_NUM, bad[MF_NUM] = { 0 }, badlist = 0;
	struct ns_fetch r;
	char names[512];
	size_t nlen = 0;

	if (!ids)
		tap_bail("out of memory");
	for (int f = 0; f < MF_NUM; f++) {
		memcpy(names + nlen, mf_names[f], strlen(mf_names[f]) + 1);
		nlen += strlen(mf_names[f]) + 1;
	}
	for (size_t i = 0; i < mi->n; i++)
		ids[i] = mi->m[i].id;
	ns_fetch(&r, ids, mi->n);
	tap_is_long(r.ret, (long long)(mi->n * per),
		    "%s: one call with %zu entries handles them all", src,
		    mi->n * per);
	for (size_t i = 0; i < mi->n; i++) {
		const struct name_val *e = &r.vec[i * per];

		if (!nv_is(e, names, nlen) && !badlist++)
			nv_diag(r.names[i], e, names, nlen);
		for (int f = 0; f < MF_NUM; f++) {
			e = &r.vec[i * per + 1 + f];
			if (nv_is(e, mi->m[i].val[f], mi->m[i].len[f]))
				continue;
			if (!bad[f]++) {
				char what[64];

				snprintf(what, sizeof(what), "%s:%s",
					 r.names[i], mf_names[f]);
				nv_diag(what, e, mi->m[i].val[f],
					mi->m[i].len[f]);
			}
		}
	}
	tap_ok(!badlist, "%s: mntns:ID lists the mnt fields for all %zu mounts",
	       src, mi->n);
	for (int f = 0; f < MF_NUM; f++)
		tap_ok(!bad[f], "%s: mntns:ID:%s equals mountinfo for all %zu "
		       "mounts (%zu differ)", src, mf_names[f], mi->n, bad[f]);
	ns_fetch_free(&r);
	free(ids);
}

/*
 * The mnt group with each mount point as $ORIGIN. The mount on top at that
 * path is the one statx() names; mounts hidden under another are skipped.
 */
static void check_origins(const char *src, const struct mi_table *mi)
{
	static char buf[1 << 16], names[2][MF_NUM][32];
	size_t tried = 0, bad = 0;

	for (int f = 0; f < MF_NUM; f++) {
		snprintf(names[0][f], 32, "mnt:%s", mf_names[f]);
		snprintf(names[1][f], 32, ":%s", mf_names[f]);
	}
	for (size_t i = 0; i < mi->n; i++) {
		const struct mi_mount *m = &mi->m[i];
		struct name_val v[MF_NUM] = { 0 };
		struct statx stx;
		int r;

		if (statx(AT_FDCWD, m->val[MF_MOUNTPOINT], AT_SYMLINK_NOFOLLOW |
			  AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) ||
		    stx.stx_mnt_id != m->id)
			continue;
		tried++;
		/* full names and shorthand, alternately */
		for (int f = 0; f < MF_NUM; f++)
			v[f].name = names[f % 2][f];
		v[0].value_in.iov_base = buf;
		v[0].value_in.iov_len = sizeof(buf);
		r = getvalues(AT_FDCWD, m->val[MF_MOUNTPOINT], v, MF_NUM,
			      AT_SYMLINK_NOFOLLOW);
		for (int f = 0; f < MF_NUM; f++) {
			if (r == MF_NUM && nv_is(&v[f], m->val[f], m->len[f]))
				continue;
			if (!bad++)
				nv_diag(m->val[MF_MOUNTPOINT], &v[f], m->val[f],
					m->len[f]);
		}
	}
	tap_ok(tried > EXTRA_MOUNTS / 2 || tried >= mi->n / 2,
	       "%s: %zu mount points reached as $ORIGIN", src, tried);
	tap_ok(!bad, "%s: mnt:FIELD of $ORIGIN equals mountinfo for each "
	       "(%zu values differ)", src, bad);
}

/* Values we built the tree to have: proof that the tree is what we think. */
static const struct mi_mount *by_point(const struct mi_table *mi,
				       const char *path)
{
	const struct mi_mount *found = NULL;

	for (size_t i = 0; i < mi->n; i++)
		if (!strcmp(mi->m[i].val[MF_MOUNTPOINT], path))
			found = &mi->m[i];	/* the last: on top */
	return found;
}

static void one_value(const char *path, const char *name, char *out,
		      size_t size, uint32_t *err)
{
	struct name_val v = { .name = name, .value_in = { out, size - 1 } };

	*err = getvalues(AT_FDCWD, path, &v, 1, AT_SYMLINK_NOFOLLOW) == 1 ?
		v.error : (uint32_t)errno;
	out[*err ? 0 : v.value_out.iov_len] = 0;
}

static void expect(const char *src, const char *rel, const char *name,
		   const char *want)
{
	char got[4096], shown[256];
	uint32_t err;
	size_t n = 0;

	/* TAP lines must stay lines */
	for (const char *p = rel; *p && n < sizeof(shown) - 3; p++) {
		if (*p == '\n' || *p == '\t') {
			shown[n++] = '\\';
			shown[n++] = *p == '\n' ? 'n' : 't';
		} else {
			shown[n++] = *p;
		}
	}
	shown[n] = 0;
	one_value(mt_at(rel), name, got, sizeof(got), &err);
	if (!tap_ok(!err && !strcmp(got, want), "%s: %s of %s", src, name,
		    shown))
		tap_diag("got error %u, '%s'", err, got);
}

/* The id outside this user namespace of its 0 (@map: a uid or gid map). */
static unsigned long outer_id(const char *map)
{
	unsigned long inside, outside, count;
	char buf[128];
	ssize_t n = t_orc_read(AT_FDCWD, map, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	if (sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) != 3 ||
	    inside)
		tap_bail("%s: %s", map, buf);
	return outside;
}

static void check_tree_shape(const char *src, const struct mi_table *mi)
{
	const struct mi_mount *shared = by_point(mi, mt_at("shared"));
	const struct mi_mount *peer = by_point(mi, mt_at("peer"));
	const struct mi_mount *slave = by_point(mi, mt_at("slave"));
	char got[4096];
	uint32_t err;

	if (!shared || !peer || !slave)
		tap_bail("the tree is missing its shared mounts");
	expect(src, "sub", "mnt:root", "/dir");
	expect(src, "filebind", "mnt:root", "/file");
	expect(src, "plain", "mnt:source", "gv plain\\src");
	expect(src, "plain", "mnt:fstype", "tmpfs");
	expect(src, "ro", "mnt:options",
	       "ro,nosuid,nodev,noexec,noatime,nodiratime");
	expect(src, "strict", "mnt:options", "rw,nosymfollow");
	if (t_real_root()) {
		expect(src, "strict", "mnt:superopts",
		       "rw,sync,dirsync,lazytime");
	} else {
		/* made by root of a user namespace: tmpfs shows the owner */
		snprintf(got, sizeof(got), "rw,sync,dirsync,lazytime,uid=%lu,"
			 "gid=%lu", outer_id("/proc/self/uid_map"),
			 outer_id("/proc/self/gid_map"));
		expect(src, "strict", "mnt:superopts", got);
	}
	expect(src, "relnodir", "mnt:options", "rw,nodiratime,relatime");
	expect(src, "sp ace\\back", "mnt:mountpoint", mt_at("sp ace\\back"));
	expect(src, "sp ace\\back", "mnt:source", "");
	expect(src, "new\nline\ttab", "mnt:mountpoint", mt_at("new\nline\ttab"));
	expect(src, "stack", "mnt:source", "gv-stack2");
	expect(src, "unbind", "mnt:unbindable", "yes");
	expect(src, "shared", "mnt:unbindable", "");
	expect(src, "shared", "mnt:master", "");
	one_value(mt_at("shared"), "mnt:shared", got, sizeof(got), &err);
	tap_ok(!err && *got && !strcmp(got, peer->val[MF_SHARED]),
	       "%s: shared mount and its peer share group '%s'", src, got);
	one_value(mt_at("slave"), "mnt:master", got, sizeof(got), &err);
	tap_ok(!err && *got && !strcmp(got, shared->val[MF_SHARED]),
	       "%s: the slave's master is the shared group '%s'", src, got);
	expect(src, "slave", "mnt:shared", "");
}

static void run_checks(const char *src, bool inside_root)
{
	struct mi_table mi = { 0 };

	gv_mnt_force_source(src);
	mi_load(&mi);
	check_list(src, &mi);
	check_list_mixed(src, &mi);
	check_all_fields(src, &mi);
	check_origins(src, &mi);
	if (!inside_root)
		check_tree_shape(src, &mi);
	mi_free(&mi);
}

/* IDs of @before that mountinfo no longer lists: ENOENT in every form. */
static void check_unreachable(const char *src, const struct mi_table *before,
			      int outside_fd)
{
	struct mi_table now = { 0 };
	unsigned long *ids;
	size_t n = 0, bad = 0, per = 1 + MF_NUM;
	struct ns_fetch r;
	char got[64];
	uint32_t err;
	struct name_val v = { .name = "mnt:id", .value_in = { got, 63 } };

	gv_mnt_force_source(src);
	mi_load(&now);
	ids = malloc(before->n * sizeof(*ids));
	if (!ids)
		tap_bail("out of memory");
	for (size_t i = 0; i < before->n; i++)
		if (!mi_find(&now, before->m[i].id))
			ids[n++] = before->m[i].id;
	ns_fetch(&r, ids, n);
	for (size_t i = 0; i < n * per; i++)
		bad += r.vec[i].error != ENOENT;
	tap_ok(n > EXTRA_MOUNTS && r.ret == (int)(n * per) && !bad,
	       "%s: %zu mounts outside the root: mntns:ID and mntns:ID:FIELD "
	       "are ENOENT (%zu are not)", src, n, bad);
	ns_fetch_free(&r);

	err = getvalues(outside_fd, "", &v, 1, AT_EMPTY_PATH) == 1 ?
		v.error : (uint32_t)errno;
	tap_is_long(err, ENOENT, "%s: mnt:id of an $ORIGIN whose mount is out "
		    "of reach is ENOENT", src);
	one_value("/c", "mnt:propagate_from", got, sizeof(got), &err);
	tap_ok(!err && *got, "%s: a slave of an unreachable group shows "
	       "propagate_from '%s'", src, got);
	mi_free(&now);
	free(ids);
}

static void check_bad_ids(const char *src)
{
	static const char *const names[] = {
		"mntns:4294967295", "mntns:4294967295:id", "mntns:0:id",
		"mntns:4294967296:id", "mntns:-1:id", "mntns:1x:id",
		"mntns::id",
	};
	char buf[256];

	gv_mnt_force_source(src);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct name_val v = { .name = names[i],
				      .value_in = { buf, sizeof(buf) } };
		int r = getvalues(AT_FDCWD, "/", &v, 1, 0);

		tap_ok(r == 1 && v.error == ENOENT, "%s: %s is ENOENT", src,
		       names[i]);
	}
}

int main(void)
{
	static const char *const sources[] = { "auto", "mountinfo",
					       "statmount" };
	struct mi_table before = { 0 };
	int oldroot, outside;
	const char *why;

	why = t_private_mounts(NULL);
	if (why)
		tap_skip_all("no private mount namespace: %s", why);
	build_tree();

	for (size_t s = 0; s < ARRAY_SIZE(sources); s++) {
		if (s == 2 && !mnt_statmount_complete()) {
			tap_skip(1, "kernel's statmount() cannot tell fstype "
				 "and source (Linux 6.13)");
			continue;
		}
		run_checks(sources[s], false);
		check_bad_ids(sources[s]);
	}

	/* the same from a chroot, where some mounts are out of reach */
	mi_load(&before);
	oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	outside = open(mt_at("plain"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (oldroot < 0 || outside < 0 || chdir(mt_at("root")) || chroot("."))
		tap_bail("chroot %s: %s", mt_at("root"), strerror(errno));
	for (size_t s = 0; s < ARRAY_SIZE(sources); s++) {
		if (s == 2 && !mnt_statmount_complete()) {
			tap_skip(1, "kernel's statmount() cannot tell fstype "
				 "and source (Linux 6.13)");
			continue;
		}
		run_checks(sources[s], true);
		check_unreachable(sources[s], &before, outside);
	}
	if (fchdir(oldroot) || chroot("."))
		tap_bail("leave the chroot: %s", strerror(errno));
	close(oldroot);
	close(outside);
	mi_free(&before);
	umount2(top, MNT_DETACH);
	return tap_done();
}
