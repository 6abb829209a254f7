// SPDX-License-Identifier: MIT
/*
 * xattr.c - the xattr group: extended attributes of $ORIGIN itself.
 *
 * $ORIGIN is an O_PATH descriptor, which fgetxattr(2) refuses (EBADF, still
 * in 6.18). getxattrat(2)/listxattrat(2) with AT_EMPTY_PATH are tried first,
 * for kernels that accept O_PATH there; otherwise the calling thread's
 * /proc fd magic link reaches the same inode (proc.c checks that /proc is
 * procfs first), and the kernel follows it to the object itself (a symlink
 * $ORIGIN included) without resolving any name again: with getxattrat(2)
 * from that directory (Linux 6.13), else with getxattr(2) of its path.
 * The kernel writes the value straight into the caller's buffer; a value
 * longer than the space left is fetched whole and its first bytes written
 * there, since that write decides between EFAULT and EOVERFLOW (SPEC v2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "groups.h"
#include "lookup.h"
#include "proc.h"
#include "uaccess.h"

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

/* Whether the *at calls take an O_PATH descriptor; whether they exist. */
static int gv_xattrat_opath = 1, gv_xattrat_exist = 1;

/* Returns the length, or -errno; -ENOSYS when the *at calls are missing. */
static ssize_t gv_xattrat(int dfd, const char *path, int flags,
			  const char *name, void *buf, size_t size)
{
	struct gv_xattr_args args = {
		.value = (uintptr_t)buf,
		.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
	};
	long r;

	if (!__atomic_load_n(&gv_xattrat_exist, __ATOMIC_RELAXED))
		return -ENOSYS;
	if (name)
		r = syscall(SYS_getxattrat, dfd, path, flags, name, &args,
			    sizeof(args));
	else
		r = syscall(SYS_listxattrat, dfd, path, flags, buf, size);
	if (r < 0 && errno == ENOSYS)	/* before Linux 6.13 */
		__atomic_store_n(&gv_xattrat_exist, 0, __ATOMIC_RELAXED);
	return r < 0 ? -errno : r;
}

static ssize_t gv_xattr_call(struct gv_ctx *ctx, int fd, const char *name,
			     void *buf, size_t size)
{
	char path[48];
	ssize_t r = -EBADF;
	int dir;

	/*
	 * EBADF where the *at calls take AT_EMPTY_PATH but not an O_PATH
	 * descriptor (6.13 to at least 6.18): @fd is valid, so it means
	 * "through /proc", from now on.
	 */
	if (__atomic_load_n(&gv_xattrat_opath, __ATOMIC_RELAXED)) {
		r = gv_xattrat(fd, "", AT_EMPTY_PATH, name, buf, size);
		if (r != -EBADF && r != -ENOSYS)
			return r;
		__atomic_store_n(&gv_xattrat_opath, 0, __ATOMIC_RELAXED);
	}
	dir = gv_proc_fd_dirfd(ctx);
	if (dir < 0)
		return dir;
	snprintf(path, sizeof(path), "%d", fd);
	r = gv_xattrat(dir, path, 0, name, buf, size);
	if (r != -ENOSYS)
		return r;
	r = gv_proc_fd_path(ctx, fd, path, sizeof(path));
	if (r)
		return r;
	r = name ? getxattr(path, name, buf, size) : listxattr(path, buf, size);
	return r < 0 ? -errno : r;
}

/*
 * A value longer than the @room bytes at @dst: fetched whole into library
 * memory, and its first @room bytes written there (EOVERFLOW, or EFAULT if
 * that write faults).
 */
static int gv_xattr_too_long(struct gv_ctx *ctx, const char *name,
			     struct gv_out *out, void *dst, size_t room)
{
	ssize_t size, r;
	char *buf;
	int err;

	for (;;) {
		size = gv_xattr_call(ctx, ctx->origin, name, NULL, 0);
		if (size < 0)
			return size;
		buf = malloc(size ? size : 1);
		if (!buf)
			return -ENOMEM;
		r = gv_xattr_call(ctx, ctx->origin, name, buf, size);
		if (r != -ERANGE)
			break;
		free(buf);	/* it grew meanwhile */
	}
	if (r >= 0 && (size_t)r < room)	/* it shrank meanwhile */
		room = r;
	err = r < 0 ? r : gv_copy_to_user((uintptr_t)dst, buf, room);
	free(buf);
	return err ? err : gv_out_direct_done(out, room);
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
	r = gv_xattr_call(ctx, ctx->origin, name, dst, room);
	if (r == -ERANGE)
		return gv_xattr_too_long(ctx, name, out, dst, room);
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
