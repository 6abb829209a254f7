// SPDX-License-Identifier: MIT
/*
 * getvalues.c - getvalues(): checks of the call itself, $ORIGIN, and the
 * copy of the caller's vector in and out.
 *
 * Order of errors (getvalues(3)): unknown flags; the vector (readable, every
 * reserved field 0); $ORIGIN. Only then is anything written, and the
 * caller's vector is written back once, at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "scratch.h"
#include "walk.h"

#define GV_ORIGIN_FLAGS (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT)

#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif

/*
 * $ORIGIN as an O_PATH descriptor, resolved as statx(2) resolves. Without
 * OPEN_TREE_CLONE, open_tree(2) is exactly an O_PATH open that takes the
 * AT_* flags; where it is missing or filtered, openat(2) with O_PATH.
 */
static int gv_open_origin(int dfd, const char *path, unsigned int flags)
{
	int fd = syscall(SYS_open_tree, dfd, path, OPEN_TREE_CLOEXEC | flags);

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd < 0 ? -errno : gv_fd_own(fd);
	if ((flags & AT_EMPTY_PATH) && path && !*path)
		fd = dfd == AT_FDCWD ? open(".", O_PATH | O_CLOEXEC) :
				       fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	else
		fd = syscall(SYS_openat, dfd, path, O_PATH | O_CLOEXEC |
			     (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0));
	return fd < 0 ? -errno : gv_fd_own(fd);
}

/*
 * getvalues(dfd, "", ..., AT_EMPTY_PATH): $ORIGIN is @dfd itself, which the
 * call can work with as it is, with no descriptor of its own (two system
 * calls fewer, none taken from RLIMIT_NOFILE). fstatfs(2), which data:
 * needs anyway, says that it is a descriptor (else EBADF from open_tree).
 * The caller's descriptor is used as the kernel would use it, without a
 * reference of its own: closed meanwhile by another thread, the number
 * names whatever the caller opened next, as for read(2).
 */
static int gv_borrow_origin(struct gv_ctx *ctx, int dfd, const char *path,
			    unsigned int flags)
{
	const struct statfs *sfs;

	if (!(flags & AT_EMPTY_PATH) || !path || *path || dfd < 0)
		return -1;
	ctx->origin = dfd;
	if (gv_origin_statfs(ctx, &sfs)) {
		free(ctx->sfs);
		ctx->sfs = NULL;
		ctx->have_statfs = false;
		return -1;
	}
	ctx->origin_borrowed = true;
	return dfd;
}

/*
 * Copy the caller's vector in, in growing chunks, so that a huge @num with
 * a small readable vector fails with EFAULT rather than ENOMEM. The copy
 * is scratch memory (scratch.c): a big vector reuses the last call's.
 */
static int gv_copy_vec(const struct name_val *uvec, size_t num,
		       struct name_val **out, struct gv_preread *pre)
{
	size_t have = 0, cap = 0;
	struct name_val *vec = NULL;
	int err;

	if (num > SIZE_MAX / sizeof(*vec))
		return -EFAULT;
	while (have < num) {
		size_t n = num - have;

		if (have == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct name_val *p;

			if (ncap > num)
				ncap = num;
			p = gv_scratch_get(GV_SCRATCH_VEC, vec,
					   ncap * sizeof(*vec));
			if (!p) {
				gv_scratch_put(GV_SCRATCH_VEC, vec);
				return -ENOMEM;
			}
			vec = p;
			cap = ncap;
		}
		if (n > cap - have)
			n = cap - have;
		/* the first part with the names of the last call: a guess */
		if (!have && pre)
			err = gv_copy_from_user_pre(vec, (uintptr_t)uvec,
						    n * sizeof(*vec), pre);
		else
			err = gv_copy_from_user(vec + have,
						(uintptr_t)(uvec + have),
						n * sizeof(*vec));
		if (err) {
			gv_scratch_put(GV_SCRATCH_VEC, vec);
			return err;
		}
		have += n;
	}
	*out = vec;
	return 0;
}

static int gv_library_getvalues(int dfd, const char *path,
				struct name_val *uvec, size_t num,
				unsigned int flags)
{
	struct gv_ctx ctx = {
		.origin = -1, .dir_fd = -1, .proc_fd = -1, .link_dir = -1,
		.flags = flags, .dfd = dfd, .path = (uintptr_t)path,
	};
	struct name_val *vec = NULL;
	struct gv_req *reqs = NULL;
	struct gv_names names = { 0 };
	struct gv_preread *pre;
	struct gv_walk walk;
	int ret = 0;

	/*
	 * $ORIGIN is looked up first, before the library holds any descriptor
	 * of its own (the copy of vec may need a pipe): a closed @dfd must
	 * stay closed for the lookup. Its errors still come after those of
	 * vec, in the order getvalues(3) gives.
	 */
	ctx.origin = gv_borrow_origin(&ctx, dfd, path, flags);
	if (ctx.origin < 0)
		ctx.origin = gv_open_origin(dfd, path, flags);
	pre = num ? gv_scratch_get(GV_SCRATCH_PREREAD, NULL, sizeof(*pre)) :
		    NULL;
	if (num) {
		ret = gv_copy_vec(uvec, num, &vec, pre);
		for (size_t i = 0; !ret && i < num; i++)
			if (vec[i].reserved)
				ret = -EINVAL;
		if (ret)
			goto out;
	}
	if (ctx.origin < 0) {
		ret = ctx.origin;
		goto out;
	}
	if (!num)
		goto out;

	/* gv_parse_names() sets every request */
	if (num <= SIZE_MAX / sizeof(*reqs))
		reqs = gv_scratch_get(GV_SCRATCH_REQS, NULL,
				      num * sizeof(*reqs));
	if (!reqs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = gv_parse_names(vec, num, reqs, &names,
			     pre && pre->n ? pre : NULL);
	gv_scratch_put(GV_SCRATCH_PREREAD, pre);
	pre = NULL;
	if (ret)
		goto out;
	ctx.reqs = reqs;
	ctx.nreqs = num;
	ctx.vec = vec;
	gv_batch_begin(&ctx);
	gv_walk_init(&walk, &ctx, vec, (uintptr_t)uvec, num, reqs);
	ret = gv_walk(&walk);
	gv_walk_release(&walk);
out:
	gv_batch_end(&ctx);
	gv_lookup_release(&ctx);
	gv_stat_release(&ctx);
	gv_mnt_release(&ctx);
	if (!ctx.origin_borrowed)
		gv_fd_defer(&ctx.closing, ctx.origin);
	gv_fd_flush(&ctx.closing);
	free(ctx.sfs);
	gv_names_free(&names);
	gv_scratch_put(GV_SCRATCH_PREREAD, pre);
	gv_scratch_put(GV_SCRATCH_REQS, reqs);
	gv_scratch_put(GV_SCRATCH_VEC, vec);
	return ret;
}

GV_EXPORT int getvalues(int dfd, const char *path, struct name_val *vec,
			size_t num, unsigned int flags)
{
	enum gv_backend_id id = gv_backend_forced();
	int ret, cancel;

	if (flags & ~GV_ORIGIN_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	/* the count of handled entries must fit the return value */
	if (num > INT_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (id == GV_BACKEND_UNKNOWN) {
		errno = EINVAL;		/* GETVALUES_BACKEND names nothing */
		return -1;
	}
	if (id != GV_BACKEND_AUTO && gv_backend_usable(id)) {
		errno = ENOSYS;
		return -1;
	}
	/* SPEC v2: with AT_EMPTY_PATH, NULL means "" on every kernel */
	if (!path && (flags & AT_EMPTY_PATH))
		path = "";
	/* the native system call, where the kernel has it */
	ret = gv_backend_getvalues(id, dfd, path, vec, num, flags);
	if (ret == -EGV_SYNC) {
		/*
		 * Not a cancellation point: the data: reads never wait, and a
		 * cancellation acted upon inside would leave descriptors open
		 * (getvalues(3)).
		 */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
		ret = gv_library_getvalues(dfd, path, vec, num, flags);
		gv_uaccess_end();
		pthread_setcancelstate(cancel, NULL);
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
