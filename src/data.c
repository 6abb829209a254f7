// SPDX-License-Identifier: MIT
/*
 * data.c - the data group: the contents of a regular file, or the target of
 * a symlink, at $ORIGIN/SUBPATH.
 *
 * One value, from the getter to the system calls: gv_data_get() asks the
 * call's batch first (data_policy.c: the io_uring backend may have read it with
 * the others already); otherwise the file is opened without side effects
 * (data_open.c), read to end of file into the value (sink.c: gv_put_read) and
 * closed here. SPEC v2: data: never waits. Files are opened O_NONBLOCK, and
 * a read that would block ends the value with the bytes already read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* Read @fd to end of file as the value, and close it; a directory: no data. */
static int gv_data_read(struct gv_ctx *ctx, int fd, struct gv_out *out)
{
	int err = gv_put_read(out, fd, gv_data_short_is_eof(ctx));

	gv_fd_defer(&ctx->closing, fd);
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

/* A file opened by data_open.c (GV_DATA_FILE or GV_DATA_LINK) as the value. */
static int gv_data_value(struct gv_ctx *ctx, int kind,
			 const struct gv_data_file *f, struct gv_out *out)
{
	int err;

	switch (kind) {
	case GV_DATA_FILE:
		return gv_data_read(ctx, f->fd, out);
	case GV_DATA_LINK:
		err = gv_data_readlink(f->fd, "", out);
		gv_fd_defer(&ctx->closing, f->fd);
		return err;
	}
	return kind;
}

/*
 * The shortcut of data_open.c: open by name. A symlink is what refuses (ELOOP).
 * A name with the shape of a procfs symlink is read as a link first, and
 * elsewhere (sysfs), once a name in a directory turned out to be a link,
 * the next names there are: one system call, not two. readlinkat(2) of the
 * last component neither follows it nor leaves the confined directory;
 * EINVAL says it is no link after all.
 */
static int gv_data_by_name(struct gv_ctx *ctx, const char *sub,
			   const char *slash, struct gv_out *out)
{
	const char *base;
	int dfd, fd;

	if (gv_data_proc_link_at(ctx, sub, slash)) {
		dfd = gv_lookup_parent(ctx, sub, &base);
		if (dfd < 0)
			return dfd;
		fd = gv_data_readlink(dfd, base, out);
		if (fd != -EINVAL)
			return fd;
	}
	if (ctx->link_dir >= 0 && !gv_origin_on_procfs(ctx) &&
	    gv_lookup_cached(ctx, sub, &base) == ctx->link_dir) {
		fd = gv_data_readlink(ctx->link_dir, base, out);
		if (fd != -EINVAL)
			return fd;
		ctx->link_dir = -1;
	}
	fd = gv_open_beneath(ctx, ctx->origin, sub, GV_DATA_OPEN);
	if (fd >= 0)
		return gv_data_read(ctx, fd, out);
	if (fd != -ELOOP)
		return fd;
	/* a symlink, or a loop before the last component */
	dfd = gv_lookup_parent(ctx, sub, &base);
	if (dfd < 0)
		return dfd;
	fd = gv_data_readlink(dfd, base, out);
	if (fd == -EINVAL)
		return -ELOOP;
	if (!fd && !gv_origin_on_procfs(ctx))
		ctx->link_dir = dfd;
	return fd;
}

static int gv_data_get(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	const char *sub = req->arg, *slash;
	struct gv_data_file f;
	int kind, err;

	if (!gv_subpath_check(sub, &slash))
		return -EINVAL;
	if (!*sub) {	/* $ORIGIN itself */
		kind = gv_data_open_pinned(ctx, ctx->origin, NULL, &f);
		if (kind == GV_DATA_LINK)
			return gv_data_readlink(ctx->origin, "", out);
		return gv_data_value(ctx, kind, &f, out);
	}
	if (ctx->batch_state != GV_BATCH_OFF) {
		err = gv_batch_data(ctx, req, out);
		if (err != -EGV_SYNC)
			return err;
	}
	/* where gv_data_open() would say GV_DATA_TRY, asked inline */
	if (gv_data_shortcut(ctx))
		return gv_data_by_name(ctx, sub, slash, out);
	kind = gv_data_open(ctx, sub, &f);
	if (kind == GV_DATA_FILE && ctx->batch_state == GV_BATCH_PROBE) {
		err = gv_batch_probe(ctx, req, f.fd, out);
		if (err != -EGV_SYNC) {
			gv_fd_defer(&ctx->closing, f.fd);
			return err;
		}
	}
	return gv_data_value(ctx, kind, &f, out);
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
	.reads_files = true,
};
