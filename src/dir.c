// SPDX-License-Identifier: MIT
/*
 * dir.c - the dir group: the names in the directory $ORIGIN/SUBPATH, in the
 * order the file system returns them, without "." and "..".
 *
 * SUBPATH is confined as data: is (see lookup.c); a last component that is a
 * symlink is not followed, so it is not a directory: ENOTDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "groups.h"
#include "lookup.h"

/* A name of the listing as an item, but "." and "..". */
static int gv_dir_name(const char *s, void *out)
{
	if (s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2])))
		return 0;
	return gv_put_item(out, s, strlen(s));
}

int gv_dir_list(struct gv_ctx *ctx, const struct gv_req *req,
		struct gv_out *out)
{
	const char *sub = req->arg ? req->arg : "";
	int fd, err;

	if (!gv_subpath_valid(sub))
		return -EINVAL;
	if (*sub)
		fd = gv_open_beneath(ctx, ctx->origin, sub,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	else if ((fd = openat(ctx->origin, ".",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fd = -errno;
	else
		gv_fd_own(fd);
	if (fd < 0)
		return fd;
	err = gv_dir_each(fd, gv_dir_name, out);
	gv_fd_defer(&ctx->closing, fd);
	return err;
}

const struct gv_group gv_group_dir = {
	.name = "dir",
	.syntax = GV_SYNTAX_VERBATIM,
	.list = gv_dir_list,
	.get = gv_dir_list,
};
