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
#include <stddef.h>
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
 * getvalues(dfd, "", ..., AT_EMPTY_PATH): $ORIGIN is the file @dfd names,
 * taken with F_DUPFD_CLOEXEC, cheaper than open_tree(2). The call works on
 * a descriptor of its own, as the kernel holds a reference to the file for
 * the whole of a system call: the caller's number may be closed or dup2()ed
 * over by another thread meanwhile, and the checks data: makes once per
 * call (the file system, from fstatfs(2)) would no longer hold of what it
 * names. The copy is closed with the call's other descriptors.
 *
 * With no descriptor free, the call still goes on, as the kernel's would,
 * on the caller's number itself; then nothing is opened by name on the
 * strength of that check (gv_data_shortcut()): every data: file is pinned
 * and looked at first, so a number dup2()ed over meanwhile makes the call
 * read regular files of another directory at worst, as openat(2) would.
 */
static int gv_dup_origin(struct gv_ctx *ctx, int dfd, const char *path,
			 unsigned int flags)
{
	const struct statfs *sfs;
	int fd;

	if (!(flags & AT_EMPTY_PATH) || !path || *path || dfd < 0)
		return -1;
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		fd = dfd;
		ctx->origin_borrowed = true;
	} else if (fd < 0) {
		return -1;	/* open_tree() gives the error */
	}
	ctx->origin = ctx->origin_borrowed ? fd : gv_fd_own(fd);
	if (gv_origin_statfs(ctx, &sfs)) {
		free(ctx->sfs);
		ctx->sfs = NULL;
		ctx->have_statfs = false;
		if (!ctx->origin_borrowed)
			gv_fd_close(fd);
		ctx->origin_borrowed = false;
		return -1;
	}
	return fd;
}

/*
 * Copy the caller's vector in, in growing chunks, so that a huge @num with
 * a small readable vector fails with EFAULT rather than ENOMEM. The copy
 * is scratch memory (scratch.c): a big vector reuses the last call's, and
 * the first chunk fills all of it, so that a program asking for the same
 * table again copies it in one process_vm_readv(2), not one per doubling
 * (7 for a table of 1000 mounts' 13 fields).
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
			cap = gv_scratch_cap(p) / sizeof(*vec);
			if (cap > num)
				cap = num;
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

/*
 * A call for the library's own callers (struct gv_call): the value_in of
 * the @n entries handled is ignored, the first gets the call's buffer.
 */
static void gv_call_buffers(struct name_val *vec, size_t n,
			    const struct gv_call *call)
{
	for (size_t i = 1; i < n; i++)
		vec[i].value_in = (struct iovec){ NULL, 0 };
	vec[0].value_in = (struct iovec){ call->buf, call->size };
}

/*
 * The bytes of the call's buffer that the @got of @n entries of @vec
 * handled took: up to the place of the one that overflowed (@overflow),
 * or to the end of the last value (every entry handled has its place in
 * value_out).
 */
static size_t gv_call_used(const struct name_val *vec, size_t got,
			   bool overflow, const void *buf)
{
	const struct name_val *e;

	if (overflow)
		return (size_t)((const char *)vec[got].value_out.iov_base -
				(const char *)buf);
	if (!got)
		return 0;
	e = &vec[got - 1];
	return (size_t)((const char *)e->value_out.iov_base +
			e->value_out.iov_len - (const char *)buf);
}

/*
 * The walk of the entries from the call's @from (0 for getvalues()) to
 * @num, their names parsed into @reqs: the count handled, or -errno.
 */
static int gv_walk_entries(struct gv_ctx *ctx, struct name_val *uvec,
			   struct name_val *vec, const struct gv_req *reqs,
			   size_t num, struct gv_call *call)
{
	size_t from = call ? call->from : 0;
	struct gv_walk walk;
	int ret;

	if (call)
		gv_call_buffers(vec + from, num - from, call);
	ctx->reqs = reqs + from;
	ctx->nreqs = num - from;
	ctx->vec = vec + from;
	gv_batch_begin(ctx);
	gv_walk_init(&walk, ctx, vec + from, (uintptr_t)(uvec + from),
		     num - from, reqs + from);
	walk.tail = call && call->tail[0].iov_len ? call->tail : NULL;
	ret = gv_walk(&walk);
	gv_walk_release(&walk);
	if (call && ret >= 0) {
		/* the library stops early only at EOVERFLOW */
		call->overflow = (size_t)ret < num - from;
		call->used = gv_call_used(vec + from, ret, call->overflow,
					  call->buf);
	}
	return ret;
}

/* The end of a call: what it kept, and its descriptors, closed at once. */
static void gv_ctx_release(struct gv_ctx *ctx)
{
	gv_batch_end(ctx);
	gv_lookup_release(ctx);
	gv_groups_release(ctx);
	if (!ctx->origin_borrowed)
		gv_fd_defer(&ctx->closing, ctx->origin);
	gv_uaccess_defer(&ctx->closing);
	gv_fd_flush(&ctx->closing);
	free(ctx->sfs);
}

static int gv_library_getvalues(int dfd, const char *path,
				struct name_val *uvec, size_t num,
				unsigned int flags, struct gv_call *call)
{
	struct gv_ctx ctx = {
		.origin = -1, .dir_fd = -1, .proc_fd = -1, .link_dir = -1,
		.flags = flags, .dfd = dfd, .path = (uintptr_t)path,
	};
	struct name_val *vec = NULL;
	struct gv_req *reqs = NULL;
	struct gv_names names = { 0 };
	struct gv_preread *pre;
	int ret = 0;

	/*
	 * $ORIGIN is looked up first, before the library holds any descriptor
	 * of its own (the copy of vec may need a pipe): a closed @dfd must
	 * stay closed for the lookup. Its errors still come after those of
	 * vec, in the order getvalues(3) gives.
	 */
	ctx.origin = gv_dup_origin(&ctx, dfd, path, flags);
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
	/* from entry 0 always: a shorthand at @from keeps its prefix */
	ret = gv_parse_names(vec, num, reqs, &names,
			     pre && pre->n ? pre : NULL);
	gv_scratch_put(GV_SCRATCH_PREREAD, pre);
	pre = NULL;
	if (ret)
		goto out;
	ret = gv_walk_entries(&ctx, uvec, vec, reqs, num, call);
out:
	gv_ctx_release(&ctx);
	gv_names_free(&names);
	gv_scratch_put(GV_SCRATCH_PREREAD, pre);
	gv_scratch_put(GV_SCRATCH_REQS, reqs);
	gv_scratch_put(GV_SCRATCH_VEC, vec);
	return ret;
}

/*
 * The name entry @i of @uvec stands for: into *@name its shorthand written
 * out in @full, or NULL to pass the entry on as it is (no shorthand, or
 * one that fails whatever reads it: no prefix before it, a bad name). The
 * names before it are read to find its prefix. 0 or -errno.
 */
static int gv_name_at(const struct name_val *uvec, size_t i, char *full,
		      const char **name)
{
	struct gv_prefix prefix = { 0 };
	const char **raw, *own;
	struct name_val *vec;
	char *store = NULL, first;
	uintptr_t *src;
	int *lens, err;

	*name = NULL;
	if (gv_copy_from_user(&own, (uintptr_t)&uvec[i].name, sizeof(own)))
		return -EFAULT;
	if (gv_copy_from_user(&first, (uintptr_t)own, 1) || first != ':')
		return 0;
	vec = malloc((i + 1) * (sizeof(*vec) + sizeof(*src) + sizeof(*raw) +
				sizeof(*lens)));
	if (!vec)
		return -ENOMEM;
	src = (uintptr_t *)(vec + i + 1);
	raw = (const char **)(src + i + 1);
	lens = (int *)(raw + i + 1);
	err = gv_copy_from_user(vec, (uintptr_t)uvec, (i + 1) * sizeof(*vec));
	for (size_t k = 0; !err && k <= i; k++)
		src[k] = (uintptr_t)vec[k].name;
	if (!err)
		err = gv_strings_from_user(src, i + 1, GV_NAME_MAX, raw, lens,
					   &store, NULL);
	for (size_t k = 0; !err && k <= i; k++)
		*name = gv_prefix_next(&prefix, lens[k] < 0 ? "" : raw[k],
				       lens[k], full);
	if (*name != full)
		*name = NULL;
	free(store);
	free(vec);
	return err;
}

/*
 * Tests: make a library call (struct gv_call) through a copy of the vector
 * on every backend, as it is on one that takes whole calls (native).
 */
static bool gv_call_copy_always;

void gv_getvalues_test_copy(bool on)
{
	__atomic_store_n(&gv_call_copy_always, on, __ATOMIC_RELAXED);
}

/*
 * A library call on a backend that takes whole calls (native): the kernel
 * reads the caller's vector as it is, so it gets a copy of the entries
 * from @call->from on, with the first one's buffer and its shorthand
 * written out, and the results are copied back, the tail after them.
 */
static int gv_call_copy(int dfd, const char *path, struct name_val *uvec,
			size_t num, unsigned int flags, struct gv_call *call)
{
	size_t n = num - call->from;
	char full[GV_FULL_SIZE];
	struct name_val *vec;
	const char *name;
	int ret;

	if (n > SIZE_MAX / sizeof(*vec))
		return -EFAULT;
	vec = malloc(n * sizeof(*vec));
	if (!vec)
		return -ENOMEM;
	ret = gv_copy_from_user(vec, (uintptr_t)(uvec + call->from),
				n * sizeof(*vec));
	if (ret)
		goto out;
	name = NULL;
	if (call->from)
		ret = gv_name_at(uvec, call->from, full, &name);
	if (ret)
		goto out;
	if (name)
		vec[0].name = name;
	gv_call_buffers(vec, n, call);
	for (size_t i = 0; i < n; i++)
		vec[i].error = 0;	/* not the caller's: see overflow */
	ret = gv_getvalues_call(dfd, path, vec, n, flags, NULL);
	if (ret >= 0) {
		call->overflow = (size_t)ret < n && vec[ret].error == EOVERFLOW;
		call->used = gv_call_used(vec, ret, call->overflow, call->buf);
		if (gv_results_to_user(uvec + call->from, vec,
				       (size_t)ret + call->overflow,
				       call->tail))
			ret = -EFAULT;
	}
out:
	free(vec);
	gv_uaccess_end();
	return ret;
}

int gv_getvalues_call(int dfd, const char *path, struct name_val *vec,
		      size_t num, unsigned int flags, struct gv_call *call)
{
	enum gv_backend_id id = gv_backend_forced();
	int ret, cancel;

	if (flags & ~GV_ORIGIN_FLAGS)
		return -EINVAL;
	/* the count of handled entries must fit the return value */
	if (num > INT_MAX)
		return -EINVAL;
	if (id == GV_BACKEND_UNKNOWN)
		return -EINVAL;		/* GETVALUES_BACKEND names nothing */
	/*
	 * ENOSYS; or EMFILE and the like when the probe could not tell, but
	 * for uring: its batch falls back to one file at a time by itself,
	 * and the entries get EMFILE where open(2) would.
	 */
	ret = id == GV_BACKEND_AUTO ? 0 : gv_backend_usable(id);
	if (ret && (id != GV_BACKEND_URING || ret == -ENOSYS))
		return ret;
	/* SPEC v2: with AT_EMPTY_PATH, NULL means "" on every kernel */
	if (!path && (flags & AT_EMPTY_PATH))
		path = "";
	if (call && (gv_backend_whole(id) ||
		     __atomic_load_n(&gv_call_copy_always, __ATOMIC_RELAXED)))
		return gv_call_copy(dfd, path, vec, num, flags, call);
	/* the native system call, where the kernel has it */
	ret = call ? -EGV_SYNC :
		     gv_backend_getvalues(id, dfd, path, vec, num, flags,
					  gv_prefix_next);
	if (ret == -EGV_SYNC) {
		/*
		 * Not a cancellation point: the data: reads never wait, and a
		 * cancellation acted upon inside would leave descriptors open
		 * (getvalues(3)).
		 */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
		ret = gv_library_getvalues(dfd, path, vec, num, flags, call);
		gv_uaccess_end();
		pthread_setcancelstate(cancel, NULL);
	}
	return ret;
}

GV_EXPORT int getvalues(int dfd, const char *path, struct name_val *vec,
			size_t num, unsigned int flags)
{
	int ret = gv_getvalues_call(dfd, path, vec, num, flags, NULL);

	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}
