// SPDX-License-Identifier: MIT
/*
 * statmount.c - mounts from statmount(2) and listmount(2) (Linux 6.8+),
 * turned into what /proc/self/mountinfo would show.
 *
 * statmount() returns one consistent snapshot of a mount, with only the
 * parts asked for; it has grown a part at a time (strings for options in
 * 6.10, source in 6.11, subtype in 6.13, supported_mask in 6.15), so every
 * fact is marked known only when this kernel really answered it. A string
 * the kernel left out of the result mask is empty only if supported_mask
 * says the kernel knows that part; otherwise the caller asks mountinfo.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "fds.h"
#include "mnt.h"

/*
 * The UAPI of <linux/mount.h> and <linux/stat.h> from Linux 6.8 on; older
 * headers (Debian 12 ships 6.1's) lack it. The numbers are those of the
 * generic system call table, which every architecture shares for them.
 */
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#ifndef __NR_listmount
#define __NR_listmount 458
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef LSMT_ROOT
#define LSMT_ROOT 0xffffffffffffffffULL
#endif
#ifndef MNT_ID_REQ_SIZE_VER0
#define MNT_ID_REQ_SIZE_VER0 24
#endif

#ifndef STATMOUNT_SB_BASIC
#define STATMOUNT_SB_BASIC		0x00000001U
#define STATMOUNT_MNT_BASIC		0x00000002U
#define STATMOUNT_PROPAGATE_FROM	0x00000004U
#define STATMOUNT_MNT_ROOT		0x00000008U
#define STATMOUNT_MNT_POINT		0x00000010U
#define STATMOUNT_FS_TYPE		0x00000020U
#endif
#ifndef STATMOUNT_MNT_OPTS
#define STATMOUNT_MNT_OPTS		0x00000080U
#endif
#ifndef STATMOUNT_FS_SUBTYPE
#define STATMOUNT_FS_SUBTYPE		0x00000100U
#endif
#ifndef STATMOUNT_SB_SOURCE
#define STATMOUNT_SB_SOURCE		0x00000200U
#endif
#ifndef STATMOUNT_SUPPORTED_MASK
#define STATMOUNT_SUPPORTED_MASK	0x00001000U
#endif

/* The request both calls take: mount ID and a parameter. */
struct gv_mnt_id_req {
	uint32_t size;
	uint32_t spare;
	uint64_t mnt_id;
	uint64_t param;		/* statmount: parts; listmount: last ID */
};

/*
 * struct statmount as of Linux 6.15; an older kernel writes a prefix of it
 * and says which parts in @mask. String members are offsets into @str.
 */
struct gv_statmount {
	uint32_t size;
	uint32_t mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;
	uint32_t fs_type;
	uint64_t mnt_id;
	uint64_t mnt_parent_id;
	uint32_t mnt_id_old;
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;
	uint64_t mnt_propagation;
	uint64_t mnt_peer_group;
	uint64_t mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;
	uint32_t mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype;
	uint32_t sb_source;
	uint32_t opt_num;
	uint32_t opt_array;
	uint32_t opt_sec_num;
	uint32_t opt_sec_array;
	uint64_t supported_mask;
	uint32_t mnt_uidmap_num;
	uint32_t mnt_uidmap;
	uint32_t mnt_gidmap_num;
	uint32_t mnt_gidmap;
	uint64_t spare2[43];
	char str[];
};

_Static_assert(sizeof(struct gv_statmount) == 512,
	       "struct statmount is 512 bytes before its strings");

/* MOUNT_ATTR_* (<linux/mount.h>, 5.12+) and MS_* propagation, SB_* flags */
#define GV_ATTR_RDONLY		0x00000001ULL
#define GV_ATTR_NOSUID		0x00000002ULL
#define GV_ATTR_NODEV		0x00000004ULL
#define GV_ATTR_NOEXEC		0x00000008ULL
#define GV_ATTR__ATIME		0x00000070ULL
#define GV_ATTR_RELATIME	0x00000000ULL
#define GV_ATTR_NOATIME		0x00000010ULL
#define GV_ATTR_NODIRATIME	0x00000080ULL
#define GV_ATTR_IDMAP		0x00100000ULL
#define GV_ATTR_NOSYMFOLLOW	0x00200000ULL
#define GV_MS_UNBINDABLE	(1ULL << 17)
#define GV_MS_SLAVE		(1ULL << 19)
#define GV_MS_SHARED		(1ULL << 20)
#define GV_SB_RDONLY		0x00000001U
#define GV_SB_SYNCHRONOUS	0x00000010U
#define GV_SB_DIRSYNC		0x00000080U
#define GV_SB_LAZYTIME		0x02000000U

/* 0 unknown, 1 usable, -ENOSYS missing: kept for the process */
static int gv_sm_state;

int gv_statmount_usable(void)
{
	return __atomic_load_n(&gv_sm_state, __ATOMIC_RELAXED) < 0 ?
		-ENOSYS : 0;
}

static void gv_sm_note(int err)
{
	if (err == -ENOSYS)
		__atomic_store_n(&gv_sm_state, -ENOSYS, __ATOMIC_RELAXED);
}

int gv_statmount_id_of(int fd, uint64_t *unique)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_MNT_ID_UNIQUE, &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -ENOSYS;		/* before Linux 6.8 */
	*unique = stx.stx_mnt_id;
	return 0;
}

/* The statmount() parts that the facts @need take. */
static uint64_t gv_sm_parts(unsigned int need)
{
	static const struct { unsigned int fact; uint64_t parts; } map[] = {
		{ GV_MK_BASIC, STATMOUNT_MNT_BASIC },
		{ GV_MK_PROPFROM, STATMOUNT_PROPAGATE_FROM },
		{ GV_MK_ROOT, STATMOUNT_MNT_ROOT },
		{ GV_MK_POINT, STATMOUNT_MNT_POINT },
		{ GV_MK_DEV, STATMOUNT_SB_BASIC },
		{ GV_MK_FSTYPE, STATMOUNT_FS_TYPE | STATMOUNT_FS_SUBTYPE },
		{ GV_MK_SOURCE, STATMOUNT_SB_SOURCE },
		{ GV_MK_SUPEROPTS, STATMOUNT_SB_BASIC | STATMOUNT_MNT_OPTS },
	};
	/* the IDs are always needed; kernels that do not know a bit ignore it */
	uint64_t parts = STATMOUNT_MNT_BASIC | STATMOUNT_SUPPORTED_MASK;

	for (size_t i = 0; i < GV_ARRAY_SIZE(map); i++)
		if (need & map[i].fact)
			parts |= map[i].parts;
	return parts;
}

/*
 * String part @part at offset @off, or empty when the kernel left it out.
 * Returns false if the kernel said nothing about @part at all.
 */
static bool gv_sm_string(const struct gv_statmount *sm, size_t len,
			 uint64_t supported, uint64_t part, uint32_t off,
			 struct gv_str *s)
{
	size_t room = len - sizeof(*sm);

	s->p = "";
	s->len = 0;
	if (!(sm->mask & part))
		return supported & part;
	if (off >= room)
		return false;
	s->p = sm->str + off;
	s->len = strnlen(s->p, room - off);
	return true;
}

/* Copy @n bytes of @p into the arena, as @s. */
static int gv_sm_keep(struct gv_mnt_arena *a, struct gv_str *s,
		      const char *p, size_t n)
{
	char *d = gv_mnt_alloc(a, n + 1);

	if (!d)
		return -ENOMEM;
	memcpy(d, p, n);
	d[n] = 0;
	s->p = d;
	s->len = n;
	return 0;
}

/*
 * Per-mount options in the order show_mnt_opts() of fs/proc_namespace.c
 * writes them. MOUNT_ATTR_RELATIME is 0: a relatime mount has no atime
 * bit, while strictatime shows no word at all.
 */
static int gv_sm_options(struct gv_mnt_arena *a, uint64_t attr,
			 struct gv_str *s)
{
	static const struct { uint64_t bit, val; const char *word; } w[] = {
		{ GV_ATTR_NOSUID, GV_ATTR_NOSUID, ",nosuid" },
		{ GV_ATTR_NODEV, GV_ATTR_NODEV, ",nodev" },
		{ GV_ATTR_NOEXEC, GV_ATTR_NOEXEC, ",noexec" },
		{ GV_ATTR__ATIME, GV_ATTR_NOATIME, ",noatime" },
		{ GV_ATTR_NODIRATIME, GV_ATTR_NODIRATIME, ",nodiratime" },
		{ GV_ATTR__ATIME, GV_ATTR_RELATIME, ",relatime" },
		{ GV_ATTR_NOSYMFOLLOW, GV_ATTR_NOSYMFOLLOW, ",nosymfollow" },
		{ GV_ATTR_IDMAP, GV_ATTR_IDMAP, ",idmapped" },
	};
	char buf[128];
	size_t n;

	memcpy(buf, attr & GV_ATTR_RDONLY ? "ro" : "rw", 2);
	n = 2;
	for (size_t i = 0; i < GV_ARRAY_SIZE(w); i++) {
		size_t l = strlen(w[i].word);

		if ((attr & w[i].bit) != w[i].val)
			continue;
		memcpy(buf + n, w[i].word, l);
		n += l;
	}
	return gv_sm_keep(a, s, buf, n);
}

/*
 * Super-block options as show_sb_opts() and the file system write them:
 * "rw" or "ro", the SB_* words, then the security module's and the file
 * system's own options, which statmount() gives escaped as mountinfo does,
 * without their leading comma. They stay escaped (SPEC 2.4).
 */
static int gv_sm_superopts(struct gv_mnt_arena *a, uint32_t flags,
			   const struct gv_str *fsopts, struct gv_str *s)
{
	static const struct { uint32_t bit; const char *word; } w[] = {
		{ GV_SB_SYNCHRONOUS, ",sync" },
		{ GV_SB_DIRSYNC, ",dirsync" },
		{ GV_SB_LAZYTIME, ",lazytime" },
	};
	size_t n = 2;
	char *d = gv_mnt_alloc(a, 32 + fsopts->len + 1);

	if (!d)
		return -ENOMEM;
	memcpy(d, flags & GV_SB_RDONLY ? "ro" : "rw", 2);
	for (size_t i = 0; i < GV_ARRAY_SIZE(w); i++) {
		size_t l = strlen(w[i].word);

		if (!(flags & w[i].bit))
			continue;
		memcpy(d + n, w[i].word, l);
		n += l;
	}
	if (fsopts->len) {
		d[n++] = ',';
		memcpy(d + n, fsopts->p, fsopts->len);
		n += fsopts->len;
	}
	d[n] = 0;
	s->p = d;
	s->len = n;
	return 0;
}

/* Turn the kernel's answer into a gv_mount with what mountinfo shows. */
static int gv_sm_convert(const struct gv_statmount *sm, size_t len,
			 struct gv_mnt_arena *a, struct gv_mount *m)
{
	uint64_t sup = sm->mask & STATMOUNT_SUPPORTED_MASK ?
		sm->supported_mask : 0;
	struct gv_str type, sub, opts;
	int err;

	m->unique = sm->mnt_id;
	m->id = sm->mnt_id_old;
	m->parent = sm->mnt_parent_id_old;
	m->known = GV_MK_BASIC;
	if (sm->mnt_propagation & GV_MS_SHARED)
		m->shared = (uint32_t)sm->mnt_peer_group;
	if (sm->mnt_propagation & GV_MS_SLAVE)
		m->master = (uint32_t)sm->mnt_master;
	m->unbindable = sm->mnt_propagation & GV_MS_UNBINDABLE;
	err = gv_sm_options(a, sm->mnt_attr, &m->options);
	if (err)
		return err;

	/* mountinfo shows the dominating group only when it is not the master */
	if (sm->mask & STATMOUNT_PROPAGATE_FROM) {
		m->known |= GV_MK_PROPFROM;
		if (m->master && sm->propagate_from != m->master)
			m->propagate_from = (uint32_t)sm->propagate_from;
	}
	if (sm->mask & STATMOUNT_SB_BASIC) {
		m->known |= GV_MK_DEV;
		m->major = sm->sb_dev_major;
		m->minor = sm->sb_dev_minor;
	}
	/* the kernel unescapes root and source itself; mnt_point is raw */
	if (gv_sm_string(sm, len, sup, STATMOUNT_MNT_ROOT, sm->mnt_root,
			 &m->root))
		m->known |= GV_MK_ROOT;
	if (gv_sm_string(sm, len, sup, STATMOUNT_MNT_POINT, sm->mnt_point,
			 &m->point))
		m->known |= GV_MK_POINT;
	if (gv_sm_string(sm, len, sup, STATMOUNT_SB_SOURCE, sm->sb_source,
			 &m->source))
		m->known |= GV_MK_SOURCE;
	if (gv_sm_string(sm, len, sup, STATMOUNT_FS_TYPE, sm->fs_type, &type) &&
	    gv_sm_string(sm, len, sup, STATMOUNT_FS_SUBTYPE, sm->fs_subtype,
			 &sub)) {
		char *d = gv_mnt_alloc(a, type.len + 1 + sub.len + 1);

		if (!d)
			return -ENOMEM;
		memcpy(d, type.p, type.len);
		m->fstype = (struct gv_str){ d, type.len };
		if (sub.len) {
			d[m->fstype.len++] = '.';
			memcpy(d + m->fstype.len, sub.p, sub.len);
			m->fstype.len += sub.len;
		}
		m->known |= GV_MK_FSTYPE;
	}
	if ((sm->mask & STATMOUNT_SB_BASIC) &&
	    gv_sm_string(sm, len, sup, STATMOUNT_MNT_OPTS, sm->mnt_opts,
			 &opts)) {
		err = gv_sm_superopts(a, sm->sb_flags, &opts, &m->superopts);
		if (err)
			return err;
		m->known |= GV_MK_SUPEROPTS;
	}

	/* strings we point at must outlive the reused buffer */
	if (m->root.len && (err = gv_sm_keep(a, &m->root, m->root.p,
					     m->root.len)))
		return err;
	if (m->point.len && (err = gv_sm_keep(a, &m->point, m->point.p,
					      m->point.len)))
		return err;
	if (m->source.len && (err = gv_sm_keep(a, &m->source, m->source.p,
					       m->source.len)))
		return err;
	return 0;
}

int gv_statmount(struct gv_sm_buf *buf, uint64_t unique, unsigned int need,
		 struct gv_mnt_arena *a, struct gv_mount **out)
{
	struct gv_mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = unique,
		.param = gv_sm_parts(need),
	};
	struct gv_statmount *sm;
	struct gv_mount *m;
	size_t len;
	long n;
	int err;

	for (;;) {
		if (!buf->p) {
			buf->size = 4096;
			buf->p = malloc(buf->size);
			if (!buf->p)
				return -ENOMEM;
		}
		n = syscall(__NR_statmount, &req, buf->p, buf->size, 0);
		if (n == 0)
			break;
		err = -errno;
		if (err != -EOVERFLOW) {
			gv_sm_note(err);
			return err;
		}
		/* long strings (overlayfs options): grow and ask again */
		if (buf->size >= (64u << 20))
			return -EOVERFLOW;
		free(buf->p);
		buf->size *= 4;
		buf->p = malloc(buf->size);
		if (!buf->p)
			return -ENOMEM;
	}
	sm = buf->p;
	if (!(sm->mask & STATMOUNT_MNT_BASIC))
		return -ENOSYS;		/* cannot happen: 6.8 has it */
	len = sm->size < buf->size ? sm->size : buf->size;
	if (len < sizeof(*sm))
		len = sizeof(*sm);
	m = gv_mnt_alloc(a, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct gv_mount){ 0 };
	err = gv_sm_convert(sm, len, a, m);
	if (err)
		return err;
	*out = m;
	return 0;
}

long gv_listmount(uint64_t last, uint64_t *ids, size_t max)
{
	struct gv_mnt_id_req req = {
		.size = MNT_ID_REQ_SIZE_VER0,
		.mnt_id = LSMT_ROOT,
		.param = last,
	};
	long n = syscall(__NR_listmount, &req, ids, max, 0);

	if (n < 0) {
		gv_sm_note(-errno);
		return -errno;
	}
	return n;
}

/* IDs per listmount(): 3 calls for ten thousand mounts */
#define GV_LISTMOUNT_MAX 4096

/*
 * One listing for gv_listmount_ids(), @u room for GV_LISTMOUNT_MAX IDs;
 * @check gets the last pair it took from those kept, if any.
 */
static int gv_listmount_pass(struct gv_mnt_ids *ids, struct gv_sm_buf *buf,
			     struct gv_mnt_arena *a, struct gv_mnt_idlist *out,
			     uint64_t *u, struct gv_mnt_idpair *check)
{
	uint64_t last = 0;
	struct gv_mount *m;
	uint32_t id;
	long n;
	int err;

	do {
		n = gv_listmount(last, u, GV_LISTMOUNT_MAX);
		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++) {
			last = u[i];
			if (gv_mnt_idmap_find(&ids->known, u[i], &id)) {
				*check = (struct gv_mnt_idpair){ u[i], id };
			} else {
				/* ENOENT: unmounted meanwhile */
				err = gv_statmount(buf, u[i], 0, a, &m);
				if (err == -ENOENT)
					continue;
				if (err)
					return err;
				id = m->id;
			}
			err = gv_mnt_idmap_add(&ids->next, u[i], id);
			if (!err)
				err = gv_mnt_idlist_add(out, id);
			if (err)
				return err;
		}
	} while (n == GV_LISTMOUNT_MAX);
	return 0;
}

/*
 * Whether the pair @check still holds: 1, 0, or -errno. A mount unmounted
 * meanwhile tells nothing against it.
 */
static int gv_listmount_holds(struct gv_sm_buf *buf, struct gv_mnt_arena *a,
			      const struct gv_mnt_idpair *check)
{
	struct gv_mount *m;
	int err = gv_statmount(buf, check->unique, 0, a, &m);

	if (err == -ENOENT)
		return 1;
	return err ? err : m->id == check->id;
}

/*
 * A list needs the 32-bit ID of every mount, which only a statmount() of
 * it tells (0.6 us a mount, where listmount() costs 40 to 140 ns). But a
 * mount keeps both its IDs while it exists, and a unique ID is never given
 * to another mount (a 64-bit counter, fs/namespace.c): a pair once read
 * cannot go stale, as a copy of mountinfo would. So the pairs of a listing
 * are kept for the next (gv_mnt_ids), which asks statmount() only of the
 * mounts new since and keeps only its own pairs (unmounted ones are
 * forgotten). One pair used is checked per listing: a process restored
 * onto another boot (CRIU) would find other mounts under the unique IDs it
 * kept; then they are all forgotten and the listing made again.
 */
int gv_listmount_ids(struct gv_mnt_ids *ids, struct gv_sm_buf *buf,
		     struct gv_mnt_arena *a, struct gv_mnt_idlist *out)
{
	uint64_t *u = malloc(GV_LISTMOUNT_MAX * sizeof(*u));
	struct gv_mnt_idpair check;
	struct gv_mnt_idmap t;
	size_t had = out->n;
	int held = -ENOMEM;

	for (int pass = 0; u && pass < 2; pass++) {
		check.unique = 0;
		held = gv_listmount_pass(ids, buf, a, out, u, &check);
		if (!held)
			held = check.unique ?
			       gv_listmount_holds(buf, a, &check) : 1;
		if (held)
			break;		/* it holds, or an error */
		/* a pair kept was false: all forgotten, the listing again */
		gv_mnt_idmap_clear(&ids->known);
		gv_mnt_idmap_clear(&ids->next);
		out->n = had;
	}
	free(u);
	if (held < 0)
		return held;
	t = ids->known;
	ids->known = ids->next;
	ids->next = t;
	gv_mnt_idmap_seal(&ids->known);
	gv_mnt_idmap_clear(&ids->next);
	return 0;
}
