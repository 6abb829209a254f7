// SPDX-License-Identifier: MIT
/*
 * stat.c - the stat and lstat groups: statx(2) data of $ORIGIN or of
 * $ORIGIN/SUBPATH, one field per name.
 *
 * SPEC v2: SUBPATH is confined beneath $ORIGIN for every component, the
 * last included (see lookup.c): an ordinary symlink resolves as if $ORIGIN
 * were "/" and never crosses into another mount, so a container's
 * etc/localtime is looked up inside the container, never on the host. The
 * one exception is a final magic link: on procfs, stat follows the last
 * component as stat(2) would, with the kernel's own permission checks, so
 * stat:ino:fd/3 of /proc/PID describes the open file. (procfs's ordinary
 * symlinks, "self" or "mounts", are relative and stay in procfs; its magic
 * links are refused before the last component by the confined lookup.)
 * lstat never follows the last component. No lookup triggers an automount:
 * one through an automount point is EXDEV, and a last component that is
 * one is described untriggered (SPEC v3). Consecutive names about one
 * object share one statx: one snapshot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "groups.h"
#include "lookup.h"

#define GV_STATX_MASK (STATX_BASIC_STATS | STATX_BTIME | STATX_MNT_ID)

/* A final ordinary symlink, followed inside $ORIGIN and its mount. */
static int gv_statx_confined(struct gv_ctx *ctx, const char *sub,
			     struct statx *stx)
{
	int fd = gv_open_beneath(ctx, ctx->origin, sub, O_PATH), err = 0;

	if (fd < 0)
		return fd;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, GV_STATX_MASK,
		  stx))
		err = -errno;
	gv_fd_defer(&ctx->closing, fd);
	return err;
}

/*
 * The last component, from its directory @dfd (or $ORIGIN itself, @base
 * ""). On autofs, a name is first pinned with RESOLVE_NO_XDEV, which never
 * asks the daemon: a name autofs does not manage is described as anywhere
 * else; one it manages (EXDEV) is looked for in the directory's listing
 * before any lookup that could ask the daemon to mount it (lookup.c).
 */
static int gv_statx_last(struct gv_ctx *ctx, int dfd, const char *base,
			 int flags, struct statx *stx)
{
	int pin, err;

	if (*base && gv_origin_magic(ctx) == AUTOFS_SUPER_MAGIC) {
		pin = gv_open_beneath(ctx, dfd, base, O_PATH | O_NOFOLLOW);
		if (pin == -EXDEV)
			return gv_autofs_statx(ctx, dfd, base, flags,
					       GV_STATX_MASK, stx);
		if (pin < 0)
			return pin;
		/* the pinned object itself, not a second lookup of @base */
		err = statx(pin, "", flags | AT_EMPTY_PATH, GV_STATX_MASK,
			    stx) ? -errno : 0;
		gv_fd_defer(&ctx->closing, pin);
		return err;
	}
	return statx(dfd, base, flags, GV_STATX_MASK, stx) ? -errno : 0;
}

struct gv_stat_cache {
	bool valid;
	bool follow;
	char *path;		/* SUBPATH, "" for $ORIGIN */
	int err;
	struct statx stx;
};

static int gv_statx(struct gv_ctx *ctx, const struct gv_req *req,
		    const struct statx **out)
{
	struct gv_stat_cache *c = ctx->stat;
	const char *sub = req->arg ? req->arg : "", *base;
	bool follow = req->follow && *sub;
	int dfd, flags = AT_NO_AUTOMOUNT;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		ctx->stat = c;
	}
	if (c->valid && c->follow == follow && !strcmp(c->path, sub)) {
		*out = &c->stx;
		return c->err;
	}
	if (!gv_subpath_valid(sub))
		return -EINVAL;
	if (*sub) {
		dfd = gv_lookup_parent(ctx, sub, &base);
		if (dfd < 0)
			return dfd;
		/* procfs: a final symlink may be a magic link, followed */
		if (!follow || !gv_origin_on_procfs(ctx))
			flags |= AT_SYMLINK_NOFOLLOW;
	} else {
		dfd = ctx->origin;
		base = "";
		flags |= AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW;
	}
	free(c->path);
	c->path = strdup(sub);
	if (!c->path) {
		c->valid = false;
		return -ENOMEM;
	}
	c->valid = true;
	c->follow = follow;
	c->err = gv_statx_last(ctx, dfd, base, flags, &c->stx);
	if (!c->err && follow && (flags & AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(c->stx.stx_mode))
		c->err = gv_statx_confined(ctx, sub, &c->stx);
	*out = &c->stx;
	return c->err;
}

static void gv_stat_release(struct gv_ctx *ctx)
{
	if (ctx->stat) {
		free(ctx->stat->path);
		free(ctx->stat);
		ctx->stat = NULL;
	}
}

/* Numbers: arg is the offset in struct statx, arg2 the width in bytes. */
static int gv_stat_number(struct gv_ctx *ctx, const struct gv_req *req,
			  struct gv_out *out)
{
	const struct statx *stx;
	const char *p;
	uint64_t v;
	int err = gv_statx(ctx, req, &stx);

	if (err)
		return err;
	p = (const char *)stx + req->field->arg;
	switch (req->field->arg2) {
	case 2: v = *(const uint16_t *)p; break;
	case 4: v = *(const uint32_t *)p; break;
	default: v = *(const uint64_t *)p; break;
	}
	return gv_put_u64(out, v);
}

static int gv_stat_type(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	static const struct { unsigned int fmt; const char *name; } types[] = {
		{ S_IFREG, "reg" },  { S_IFDIR, "dir" },   { S_IFLNK, "lnk" },
		{ S_IFCHR, "chr" },  { S_IFBLK, "blk" },   { S_IFIFO, "fifo" },
		{ S_IFSOCK, "sock" },
	};
	const struct statx *stx;
	int err = gv_statx(ctx, req, &stx);

	if (err)
		return err;
	for (size_t i = 0; i < GV_ARRAY_SIZE(types); i++)
		if ((stx->stx_mode & S_IFMT) == types[i].fmt)
			return gv_puts(out, types[i].name);
	return gv_put(out, "", 0);
}

static int gv_stat_mode(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	const struct statx *stx;
	int err = gv_statx(ctx, req, &stx);

	return err ? err : gv_putf(out, "%04o", stx->stx_mode & 07777);
}

/* dev, rdev: arg is the offset of the major, the minor follows it. */
static int gv_stat_dev(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	const struct statx *stx;
	const uint32_t *mm;
	int err = gv_statx(ctx, req, &stx);

	if (err)
		return err;
	mm = (const uint32_t *)((const char *)stx + req->field->arg);
	return gv_putf(out, "%u:%u", mm[0], mm[1]);
}

/* Timestamps: arg is the offset, arg2 the STATX_* bit that must be set. */
static int gv_stat_time(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	const struct statx_timestamp *t;
	const struct statx *stx;
	int err = gv_statx(ctx, req, &stx);

	if (err)
		return err;
	if (!(stx->stx_mask & req->field->arg2))
		return gv_put(out, "", 0);
	t = (const void *)((const char *)stx + req->field->arg);
	return gv_putf(out, "%lld.%09u", (long long)t->tv_sec, t->tv_nsec);
}

/*
 * mntid: STATX_MNT_ID, which statx(2) gives from Linux 5.8 on, and glibc's
 * emulation of it never. Without it there is no mount ID to give: ENOSYS,
 * as mnt:id says then too (0 would read as an ID).
 */
static int gv_stat_mntid(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out)
{
	const struct statx *stx;
	int err = gv_statx(ctx, req, &stx);

	if (err)
		return err;
	if (!(stx->stx_mask & STATX_MNT_ID))
		return -ENOSYS;
	return gv_put_u64(out, stx->stx_mnt_id);
}

#define N(name, member) { #name, gv_stat_number, \
	offsetof(struct statx, member), sizeof(((struct statx *)0)->member) }
#define T(name, member, bit) { #name, gv_stat_time, \
	offsetof(struct statx, member), bit }

static const struct gv_field gv_stat_fields[] = {
	{ "type", gv_stat_type, 0, 0 },
	{ "mode", gv_stat_mode, 0, 0 },
	N(nlink, stx_nlink),
	N(uid, stx_uid),
	N(gid, stx_gid),
	N(size, stx_size),
	N(blocks, stx_blocks),
	N(blksize, stx_blksize),
	N(ino, stx_ino),
	{ "dev", gv_stat_dev, offsetof(struct statx, stx_dev_major), 0 },
	{ "rdev", gv_stat_dev, offsetof(struct statx, stx_rdev_major), 0 },
	T(atime, stx_atime, STATX_ATIME),
	T(mtime, stx_mtime, STATX_MTIME),
	T(ctime, stx_ctime, STATX_CTIME),
	T(btime, stx_btime, STATX_BTIME),
	{ "mntid", gv_stat_mntid, 0, 0 },
	{ NULL, NULL, 0, 0 },
};

const struct gv_group gv_group_stat = {
	.name = "stat",
	.syntax = GV_SYNTAX_FIELD_SUBPATH,
	.fields = gv_stat_fields,
	.list = gv_list_fields,
	.release = gv_stat_release,
};

const struct gv_group gv_group_lstat = {
	.name = "lstat",
	.syntax = GV_SYNTAX_FIELD_SUBPATH,
	.fields = gv_stat_fields,
	.list = gv_list_fields,
	.release = gv_stat_release,
};
