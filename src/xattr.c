// SPDX-License-Identifier: MIT
/*
 * xattr.c - the xattr group: extended attributes of $ORIGIN itself.
 *
 * $ORIGIN is an O_PATH descriptor, which fgetxattr(2) refuses (EBADF, still
 * in 6.18). getxattrat(2)/listxattrat(2) with AT_EMPTY_PATH are tried first,
 * for kernels that accept O_PATH there; otherwise the /proc/self/fd magic
 * link reaches the same inode, and getxattr(2) follows it to the object
 * itself (a symlink $ORIGIN included) without resolving any name again. The
 * kernel writes the value straight into the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "internal.h"

#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif

struct gv_xattr_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

static int gv_have_xattrat = -1;	/* -1 unknown, 0 no, 1 yes */

/* Returns the length, or -errno; -ENOSYS when the *at calls are missing. */
static ssize_t gv_xattrat(int fd, const char *name, void *buf, size_t size)
{
	struct gv_xattr_args args = {
		.value = (uintptr_t)buf,
		.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
	};
	long r;

	if (!__atomic_load_n(&gv_have_xattrat, __ATOMIC_RELAXED))
		return -ENOSYS;
	if (name)
		r = syscall(SYS_getxattrat, fd, "", AT_EMPTY_PATH, name, &args,
			    sizeof(args));
	else
		r = syscall(SYS_listxattrat, fd, "", AT_EMPTY_PATH, buf, size);
	/*
	 * ENOSYS before Linux 6.13; EBADF where the *at calls take
	 * AT_EMPTY_PATH but not an O_PATH descriptor (6.13 to at least 6.18):
	 * @fd is valid, so either means "use the fallback", from now on.
	 */
	if (r < 0 && (errno == ENOSYS || errno == EBADF)) {
		__atomic_store_n(&gv_have_xattrat, 0, __ATOMIC_RELAXED);
		return -ENOSYS;
	}
	return r < 0 ? -errno : r;
}

static ssize_t gv_xattr_call(int fd, const char *name, void *buf, size_t size)
{
	char path[40];
	ssize_t r = gv_xattrat(fd, name, buf, size);

	if (r != -ENOSYS)
		return r;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = name ? getxattr(path, name, buf, size) : listxattr(path, buf, size);
	return r < 0 ? -errno : r;
}

/* @name NULL: the list of names. */
static int gv_xattr_fetch(struct gv_ctx *ctx, const char *name,
			  struct gv_out *out)
{
	size_t room;
	ssize_t r;
	void *dst;
	int err;

	err = gv_out_direct(out, &dst, &room);
	if (err)
		return err;
	/*
	 * With room 0 the kernel only reports the size: the value exists,
	 * but no value fits in no space.
	 */
	r = gv_xattr_call(ctx->origin, name, dst, room);
	if (r == -ERANGE)
		return -EOVERFLOW;
	if (r < 0)
		return r;
	return gv_out_direct_done(out, room ? (size_t)r : room);
}

static int gv_xattr_get(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	if (!*req->arg)
		return -EINVAL;
	return gv_xattr_fetch(ctx, req->arg, out);
}

static int gv_xattr_list(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out)
{
	(void)req;
	return gv_xattr_fetch(ctx, NULL, out);
}

const struct gv_group gv_group_xattr = {
	.name = "xattr",
	.syntax = GV_SYNTAX_VERBATIM,
	.list = gv_xattr_list,
	.get = gv_xattr_get,
};
