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
 * The object the O_PATH descriptor @fd refers to (an O_PATH open opens
 * nothing: no FIFO wakes up, no driver is called): a symlink's target, a
 * regular file's contents, else ENODATA. Deciding on the pinned inode
 * rather than on a name is what keeps a FIFO or a device that a rename
 * swaps in under a file's name from ever being opened.
 */
static int gv_data_object(int fd, struct gv_out *out)
{
	struct statx stx;
	int rfd;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE,
		  &stx))
		return -errno;
	if (S_ISLNK(stx.stx_mode))
		return gv_data_readlink(fd, "", out);
	if (!S_ISREG(stx.stx_mode))
		return -ENODATA;
	rfd = gv_reopen(fd, GV_DATA_OPEN & ~O_NOFOLLOW);
	return rfd < 0 ? rfd : gv_data_read(rfd, out);
}

static int gv_data_get(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	const char *sub = req->arg, *base;
	int dfd, fd, err;

	if (!gv_subpath_valid(sub))
		return -EINVAL;
	if (!*sub)	/* $ORIGIN itself */
		return gv_data_object(ctx->origin, out);

	if (gv_no_special_files(ctx)) {
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
		return fd == -EINVAL ? -ELOOP : fd;
	}

	dfd = gv_lookup_parent(ctx, sub, &base);
	if (dfd < 0)
		return dfd;
	/* RESOLVE_NO_XDEV: a mount point as the last component is EXDEV */
	fd = gv_open_beneath(dfd, base, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	err = gv_data_object(fd, out);
	close(fd);
	return err;
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
