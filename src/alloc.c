// SPDX-License-Identifier: MIT
/*
 * alloc.c - getvalues_alloc(): getvalues() into a buffer that the library
 * allocates and grows until every value fits.
 *
 * EOVERFLOW says that a value did not fit, not how large it is: files under
 * /proc and /sys have no size until they are read. The caller would have to
 * guess and call again. This does it for them, the way getvalues(1) does:
 * the whole call again in a larger buffer, so that every value comes from
 * one call (the fields of one mount stay one snapshot), up to a limit.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Enough for the usual handful of numbers and small files: one call. */
#define GV_ALLOC_FIRST	(64u << 10)

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

/*
 * Copy the caller's vector in (EFAULT rather than a crash for a bad
 * pointer, as getvalues() itself does), or *@bufp out.
 */
static int gv_alloc_copy(void *dst, uintptr_t src, size_t len, bool out)
{
	int err;

	err = out ? gv_copy_to_user(src, dst, len) :
		    gv_copy_from_user(dst, src, len);
	gv_uaccess_end();
	return err;
}

/*
 * The results out: value_out and error of the first @n entries, and
 * nothing else of them (SPEC v2, as getvalues() writes back).
 */
static int gv_alloc_results(struct name_val *uvec, const struct name_val *vec,
			    size_t n)
{
	const size_t off = offsetof(struct name_val, value_out);
	const size_t len = offsetof(struct name_val, error) + sizeof(uint32_t) -
			   off;
	struct iovec *l = malloc(2 * n * sizeof(*l)), *r = l + n;
	int err = 0;

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		l[i] = (struct iovec){ (char *)&vec[i] + off, len };
		r[i] = (struct iovec){ (char *)&uvec[i] + off, len };
	}
	if (gv_copy_to_user_iov(l, r, n) != n)
		err = -EFAULT;
	gv_uaccess_end();
	free(l);
	return err;
}

GV_EXPORT int getvalues_alloc(int dfd, const char *path, struct name_val *uvec,
			      size_t num, unsigned int flags, size_t max_size,
			      void **bufp)
{
	size_t limit = max_size ? max_size : GETVALUES_ALLOC_MAX;
	size_t size = GV_ALLOC_FIRST < limit ? GV_ALLOC_FIRST : limit;
	struct name_val *orig = NULL, *vec = NULL;
	char *buf = NULL;
	int got = -1, err = 0;

	if (!bufp || num > INT_MAX)
		return errno = EINVAL, -1;
	if (!num) {
		got = getvalues(dfd, path, uvec, 0, flags);
		goto out;
	}
	orig = malloc(num * sizeof(*orig));
	vec = malloc(num * sizeof(*vec));
	if (!orig || !vec) {
		err = -ENOMEM;
		goto out;
	}
	err = gv_alloc_copy(orig, (uintptr_t)uvec, num * sizeof(*orig), false);
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
		for (size_t i = 0; i < num; i++)
			vec[i].value_in = (struct iovec){ NULL, 0 };
		vec[0].value_in = (struct iovec){ buf, size };
		got = getvalues(dfd, path, vec, num, flags);
		if (got < 0) {
			err = -errno;
			goto out;
		}
		if ((size_t)got == num || vec[got].error != EOVERFLOW ||
		    size >= limit)
			break;
		if (got)
			used = (char *)vec[got - 1].value_out.iov_base +
			       vec[got - 1].value_out.iov_len - buf;
		size = gv_alloc_next(size, used, got, num, limit);
	}
	/* the entries handled, and the one that overflowed at the limit */
	err = gv_alloc_results(uvec, vec,
			       (size_t)got < num ? (size_t)got + 1 : num);
out:
	free(orig);
	free(vec);
	if (err || got < 0) {
		free(buf);
		buf = NULL;
	}
	/* *bufp is the caller's memory too: NULL unless the call worked */
	if (!err && got < 0)
		err = -errno;
	if (gv_alloc_copy(&buf, (uintptr_t)bufp, sizeof(buf), true) && !err)
		err = -EFAULT;
	if (err) {
		free(buf);
		errno = -err;
		return -1;
	}
	return got;
}
