// SPDX-License-Identifier: MIT
/*
 * data.c - the data group: the contents of a regular file, or the target of
 * a symlink, at $ORIGIN/SUBPATH.
 *
 * Reading must have no side effects, so nothing but a regular file is ever
 * opened: a device, FIFO or socket beneath $ORIGIN gets ENODATA without being
 * touched. The last component is pinned with an O_PATH descriptor from its
 * (confined) directory, and reopened for reading only if that inode is a
 * regular file. procfs, sysfs and cgroupfs cannot hold devices, FIFOs or
 * sockets, so there the file is opened directly, saving the O_PATH step: on
 * them, opening is what tells a directory (EISDIR on read) or a symlink
 * (ELOOP) apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define GV_DATA_OPEN (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static bool gv_no_special_files(struct gv_ctx *ctx)
{
	const struct statfs *sfs;

	if (gv_origin_statfs(ctx, &sfs))
		return false;
	switch ((uint32_t)sfs->f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
		return true;
	}
	return false;
}

/* Read @fd to EOF as the value; a directory is no data. */
static int gv_data_read(int fd, struct gv_out *out)
{
	int err = gv_put_read(out, fd);

	close(fd);
	return err == -EISDIR ? -ENODATA : err;
}

static int gv_data_readlink(int dfd, const char *name, struct gv_out *out)
{
	char small[4096], *buf = small;
	size_t size = sizeof(small);
	ssize_t n;
	int err;

	/* Linux link targets are shorter than PATH_MAX; be safe anyway. */
	for (;;) {
		n = readlinkat(dfd, name, buf, size);
		if (n < 0 || (size_t)n < size)
			break;
		if (buf != small)
			free(buf);
		size *= 2;
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
	}
	err = n < 0 ? -errno : gv_put(out, buf, n);
	if (buf != small)
		free(buf);
	return err;
}

/*
 * The object the O_PATH descriptor @pin refers to (an O_PATH open opens
 * nothing: no FIFO wakes up, no driver is called), made ready to read:
 * GV_DATA_FILE for a regular file, then open for reading in @f->fd;
 * GV_DATA_LINK for a symlink (read it through @pin); else -ENODATA.
 * Deciding on the pinned inode rather than on a name is what keeps a FIFO
 * or a device that a rename swaps in under a file's name from ever being
 * opened.
 */
static int gv_data_pinned(struct gv_ctx *ctx, int pin,
			  struct gv_data_file *f)
{
	struct statx stx;

	f->fd = -1;
	f->size = -1;
	if (statx(pin, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_SIZE, &stx))
		return -errno;
	if (S_ISLNK(stx.stx_mode))
		return GV_DATA_LINK;
	if (!S_ISREG(stx.stx_mode))
		return -ENODATA;
	if (stx.stx_mask & STATX_SIZE)
		f->size = (int64_t)stx.stx_size;
	f->fd = gv_reopen(ctx, pin, GV_DATA_OPEN & ~O_NOFOLLOW);
	return f->fd < 0 ? f->fd : GV_DATA_FILE;
}

static int gv_data_object(struct gv_ctx *ctx, int pin, struct gv_out *out)
{
	struct gv_data_file f;
	int kind = gv_data_pinned(ctx, pin, &f);

	if (kind == GV_DATA_LINK)
		return gv_data_readlink(pin, "", out);
	return kind < 0 ? kind : gv_data_read(f.fd, out);
}

bool gv_data_is_file(const struct gv_req *req)
{
	return req->group == &gv_group_data && !req->err && req->arg &&
	       *req->arg && gv_subpath_valid(req->arg);
}

int gv_data_open(struct gv_ctx *ctx, const char *sub, struct gv_data_file *f)
{
	const char *base;
	int dfd, pin, kind;

	f->fd = -1;
	f->size = -1;
	if (gv_no_special_files(ctx))
		return GV_DATA_TRY;
	dfd = gv_lookup_parent(ctx, sub, &base);
	if (dfd < 0)
		return dfd;
	/* RESOLVE_NO_XDEV: a mount point as the last component is EXDEV */
	pin = gv_open_beneath(dfd, base, O_PATH | O_NOFOLLOW);
	if (pin < 0)
		return pin;
	kind = gv_data_pinned(ctx, pin, f);
	if (kind == GV_DATA_LINK)
		f->fd = pin;
	else
		close(pin);
	return kind;
}

/*
 * procfs and the like: open first; a symlink is what refuses. Once a name
 * in a directory turned out to be a link, the next names there are read
 * as links first (the /proc/PID/fd/N pattern): one system call, not two.
 * readlinkat(2) of the last component neither follows it nor leaves the
 * confined directory; EINVAL says it is no link after all.
 */
static int gv_data_try(struct gv_ctx *ctx, const char *sub,
		       struct gv_out *out)
{
	const char *base;
	int dfd, fd;

	dfd = gv_lookup_cached(ctx, sub, &base);
	if (dfd >= 0 && dfd == ctx->link_dir) {
		fd = gv_data_readlink(dfd, base, out);
		if (fd != -EINVAL)
			return fd;
		ctx->link_dir = -1;
	}
	fd = gv_open_beneath(ctx->origin, sub, GV_DATA_OPEN);
	if (fd >= 0)
		return gv_data_read(fd, out);
	if (fd != -ELOOP)
		return fd;
	/* a symlink, or a loop before the last component */
	dfd = gv_lookup_parent(ctx, sub, &base);
	if (dfd < 0)
		return dfd;
	fd = gv_data_readlink(dfd, base, out);
	if (fd == -EINVAL)
		return -ELOOP;
	if (!fd)
		ctx->link_dir = dfd;
	return fd;
}

static int gv_data_get(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	const char *sub = req->arg;
	struct gv_data_file f;
	int kind, err;

	if (!gv_subpath_valid(sub))
		return -EINVAL;
	if (!*sub)	/* $ORIGIN itself */
		return gv_data_object(ctx, ctx->origin, out);
	if (ctx->batch_state != GV_BATCH_OFF) {
		err = gv_batch_data(ctx, req, out);
		if (err != -EGV_SYNC)
			return err;
	}

	kind = gv_data_open(ctx, sub, &f);
	switch (kind) {
	case GV_DATA_TRY:
		return gv_data_try(ctx, sub, out);
	case GV_DATA_LINK:
		err = gv_data_readlink(f.fd, "", out);
		close(f.fd);
		return err;
	case GV_DATA_FILE:
		break;
	default:
		return kind;
	}
	if (ctx->batch_state == GV_BATCH_PROBE) {
		err = gv_batch_probe(ctx, req, f.fd, out);
		if (err != -EGV_SYNC) {
			close(f.fd);
			return err;
		}
	}
	return gv_data_read(f.fd, out);
}

static int gv_data_list(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	return gv_dir_list(ctx, req, out);
}

const struct gv_group gv_group_data = {
	.name = "data",
	.syntax = GV_SYNTAX_VERBATIM,
	.list = gv_data_list,
	.get = gv_data_get,
};
