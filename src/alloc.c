// SPDX-License-Identifier: MIT
/*
 * alloc.c - getvalues() into a buffer that the library allocates and grows
 * until the values fit, under one of two policies:
 *
 *   getvalues_alloc()       the whole call again in a larger buffer, so
 *                           that every value comes from one call (the
 *                           fields of one mount stay one snapshot), up to
 *                           a limit; the entry that does not fit then
 *                           ends the call, as in getvalues().
 *   getvalues_alloc_each()  every entry: the call goes on from the entry
 *                           that did not fit with more room (a file is
 *                           read once), an entry too large alone gets
 *                           EOVERFLOW and the next one goes on.
 *
 * EOVERFLOW says that a value did not fit, not how large it is: files under
 * /proc and /sys have no size until they are read. The caller would have to
 * guess and call again; getvalues(1), gvlsof and the Python module did,
 * each in its own way. The rule of growth is here, once, for both.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * The first buffer: enough for the usual handful of numbers and small
 * files, and for a long vector a path or a line of a /proc file more per
 * entry, so that a listing of thousands of names (gvlsof's) is one call.
 */
#define GV_ALLOC_FIRST	(64u << 10)
#define GV_ALLOC_ENTRY	256u

static size_t gv_alloc_first(size_t num, size_t limit)
{
	if (limit <= GV_ALLOC_FIRST ||
	    num >= (limit - GV_ALLOC_FIRST) / GV_ALLOC_ENTRY)
		return limit;
	return GV_ALLOC_FIRST + num * GV_ALLOC_ENTRY;
}

/*
 * The next size after @got of @num entries fitted in @size bytes, @used of
 * them taken: twice as much, or all @num at the rate of those that fitted
 * and a quarter more, whichever is larger (a long mount table then costs
 * one more call, not five); at most @limit.
 */
static size_t gv_alloc_next(size_t size, size_t used, size_t got, size_t num,
			    size_t limit)
{
	size_t want = size > limit / 2 ? limit : size * 2;

	if (got && used / got < limit / num) {
		size_t rate = (used / got + 1) * num;

		rate = rate > limit - rate / 4 ? limit : rate + rate / 4;
		if (rate > want)
			want = rate;
	}
	return want;
}

/* Copy the caller's vector in (EFAULT rather than a crash, as getvalues()). */
static int gv_alloc_copy_in(void *dst, const void *src, size_t len)
{
	int err = gv_copy_from_user(dst, (uintptr_t)src, len);

	gv_uaccess_end();
	return err;
}

/*
 * The end of a call: *@bufp is the caller's memory too, @buf in it unless
 * the call failed (@err), NULL then. Returns what the call returns.
 */
static int gv_alloc_done(void **bufp, void *buf, int got, int err)
{
	if (err) {
		free(buf);
		buf = NULL;
		gv_copy_to_user((uintptr_t)bufp, &buf, sizeof(buf));
		gv_uaccess_end();
		errno = -err;
		return -1;
	}
	return got;
}

/* *@bufp = @buf, after the results, in the same system call */
static void gv_alloc_tail(struct iovec *tail, void **bufp, void *const *buf)
{
	tail[0] = (struct iovec){ (void *)buf, sizeof(*buf) };
	tail[1] = (struct iovec){ bufp, sizeof(*buf) };
}

/* num 0: the checks of getvalues() and of $ORIGIN, no buffer */
static int gv_alloc_none(int dfd, const char *path, struct name_val *uvec,
			 unsigned int flags, void **bufp)
{
	void *none = NULL;
	int got = gv_getvalues_call(dfd, path, uvec, 0, flags, NULL);

	if (!got && gv_copy_to_user((uintptr_t)bufp, &none, sizeof(none)))
		got = -EFAULT;
	gv_uaccess_end();
	return gv_alloc_done(bufp, NULL, 0, got < 0 ? got : 0);
}

GV_EXPORT int getvalues_alloc(int dfd, const char *path, struct name_val *uvec,
			      size_t num, unsigned int flags, size_t max_size,
			      void **bufp)
{
	size_t limit = max_size ? max_size : GETVALUES_ALLOC_MAX;
	size_t size = gv_alloc_first(num, limit);
	struct name_val *orig = NULL, *vec = NULL;
	struct iovec tail[2];
	char *buf = NULL;
	int got = -1, err = 0;

	if (!bufp || num > INT_MAX)
		return errno = EINVAL, -1;
	if (!num)
		return gv_alloc_none(dfd, path, uvec, flags, bufp);
	orig = malloc(num * sizeof(*orig));
	vec = malloc(num * sizeof(*vec));
	if (!orig || !vec) {
		err = -ENOMEM;
		goto out;
	}
	err = gv_alloc_copy_in(orig, uvec, num * sizeof(*orig));
	if (err)
		goto out;
	for (;;) {
		size_t used = 0;

		free(buf);
		buf = malloc(size);
		if (!buf) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(vec, orig, num * sizeof(*vec));
		for (size_t i = 0; i < num; i++) {
			vec[i].value_in = (struct iovec){ NULL, 0 };
			vec[i].error = 0;	/* not the caller's: below */
		}
		vec[0].value_in = (struct iovec){ buf, size };
		got = gv_getvalues_call(dfd, path, vec, num, flags, NULL);
		if (got < 0) {
			err = got;
			goto out;
		}
		/* short of num without EOVERFLOW: see getvalues(3) */
		if ((size_t)got == num || vec[got].error != EOVERFLOW ||
		    size >= limit)
			break;
		if (got)
			used = (char *)vec[got - 1].value_out.iov_base +
			       vec[got - 1].value_out.iov_len - buf;
		size = gv_alloc_next(size, used, got, num, limit);
	}
	/* the entries handled, the one that overflowed at the limit, *bufp */
	gv_alloc_tail(tail, bufp, (void *const *)&buf);
	err = gv_results_to_user(uvec, vec, (size_t)got +
				 ((size_t)got < num &&
				  vec[got].error == EOVERFLOW), tail);
	gv_uaccess_end();
out:
	free(orig);
	free(vec);
	return gv_alloc_done(bufp, buf, got, err);
}

/*
 * The buffer grown to @cap bytes, its first @used kept. realloc() may move
 * it: value_out of the entries before @from, written by the calls so far,
 * then point into the old place, and are moved with it. 0 or -errno.
 */
static int gv_alloc_grow(char **buf, size_t used, size_t cap,
			 struct name_val *uvec, size_t from)
{
	struct name_val *vec;
	char *nbuf;
	int err;

	if (cap < used)
		return -ENOMEM;
	nbuf = realloc(*buf, cap);
	if (!nbuf)
		return -ENOMEM;
	if (nbuf == *buf || !from) {
		*buf = nbuf;
		return 0;
	}
	vec = malloc(from * sizeof(*vec));
	err = vec ? gv_copy_from_user(vec, (uintptr_t)uvec,
				      from * sizeof(*vec)) : -ENOMEM;
	for (size_t i = 0; !err && i < from; i++)
		vec[i].value_out.iov_base = nbuf +
			((uintptr_t)vec[i].value_out.iov_base - (uintptr_t)*buf);
	if (!err)
		err = gv_results_to_user(uvec, vec, from, NULL);
	gv_uaccess_end();
	free(vec);
	*buf = nbuf;
	return err;
}

GV_EXPORT int getvalues_alloc_each(int dfd, const char *path,
				   struct name_val *uvec, size_t num,
				   unsigned int flags, size_t max_size,
				   void **bufp)
{
	size_t limit = max_size ? max_size : GETVALUES_ALLOC_MAX;
	size_t cap = gv_alloc_first(num, limit), used = 0;
	struct gv_call call = { 0 };
	char *buf = NULL;
	int got = 0;

	if (!bufp || num > INT_MAX)
		return errno = EINVAL, -1;
	if (!num)
		return gv_alloc_none(dfd, path, uvec, flags, bufp);
	buf = malloc(cap);
	if (!buf)
		return gv_alloc_done(bufp, NULL, 0, -ENOMEM);
	gv_alloc_tail(call.tail, bufp, (void *const *)&buf);
	while (call.from < num) {
		size_t todo = num - call.from;

		call.buf = buf + used;
		call.size = cap - used;
		got = gv_getvalues_call(dfd, path, uvec, num, flags, &call);
		if (got < 0)
			return gv_alloc_done(bufp, buf, got, got);
		if ((size_t)got == todo)
			break;
		if (!call.overflow)	/* see getvalues(3): the count done */
			return gv_alloc_done(bufp, buf,
					     (int)(call.from + got), 0);
		/* entry from + got overflowed: too large alone, or more room */
		if (!got && call.size >= limit) {
			call.from++;
			continue;
		}
		used += call.used;
		call.from += got;
		cap = used + gv_alloc_next(call.size, call.used, got, todo,
					   limit);
		got = gv_alloc_grow(&buf, used, cap, uvec, call.from);
		if (got)
			return gv_alloc_done(bufp, buf, got, got);
	}
	return gv_alloc_done(bufp, buf, (int)num, 0);
}
