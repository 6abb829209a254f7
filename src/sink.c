// SPDX-License-Identifier: MIT
/*
 * sink.c - the value sinks of getvalues(): how a getter puts a value where
 * the walk will write it, and the overflow rule of SPEC 2.2.
 *
 * Small values are staged in the walk's arena and written into the
 * caller's buffer later, many in one system call (walk.c). A value that
 * does not fit still has its first bytes staged, as many as the space left
 * holds: SPEC v2 decides between EFAULT and EOVERFLOW by that write alone
 * (a byte of it faults: EFAULT; otherwise EOVERFLOW). File contents beyond
 * a staging chunk, and xattrs, are written by the kernel straight into the
 * caller's buffer (gv_out_direct), which reports a fault itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uaccess.h"
#include "walk.h"

#define GV_READ_CHUNK	65536u		/* staged part of a file */
#define GV_DIRECT_CHUNK	(1u << 20)	/* one read into the caller's buffer */

/* gv_put() when the value outgrows its space or the arena its memory. */
static __attribute__((noinline)) int gv_put_slow(struct gv_out *out,
						 const void *p, size_t n)
{
	size_t left = out->room - out->len;
	struct gv_walk *w = out->walk;
	bool over = n >= left;
	int err;

	if (over)
		n = left;
	err = gv_arena_reserve(w, n);
	if (err)
		return err;
	if (n)
		memcpy(w->arena + w->arena_len, p, n);
	w->arena_len += n;
	out->len += n;
	return over ? -EOVERFLOW : 0;
}

/*
 * Append @n bytes to the value. If the value no longer fits, the bytes up
 * to the end of the space are staged all the same and -EOVERFLOW returned;
 * from then on nothing more is added.
 */
int gv_put(struct gv_out *out, const void *p, size_t n)
{
	struct gv_walk *w = out->walk;

	if (n >= out->room - out->len || n > w->arena_cap - w->arena_len)
		return gv_put_slow(out, p, n);
	if (n) {	/* (an empty value: maybe no arena yet, nor @p) */
		memcpy(w->arena + w->arena_len, p, n);
		w->arena_len += n;
		out->len += n;
	}
	return 0;
}

int gv_puts(struct gv_out *out, const char *s)
{
	return gv_put(out, s, strlen(s));
}

int gv_putf(struct gv_out *out, const char *fmt, ...)
{
	char small[128], *big = NULL;
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return gv_put(out, small, n);
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	err = gv_put(out, big, n);
	free(big);
	return err;
}

int gv_put_u64(struct gv_out *out, uint64_t v)
{
	char buf[24];
	int i = sizeof(buf);

	do {
		buf[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	return gv_put(out, buf + i, sizeof(buf) - i);
}

int gv_put_item(struct gv_out *out, const char *s, size_t n)
{
	int err = gv_put(out, s, n);

	return err ? err : gv_put(out, "", 1);
}

int gv_put_field_names(struct gv_out *out, const struct gv_field *fields)
{
	int err = 0;

	for (; fields && fields->name && !err; fields++)
		err = gv_put_item(out, fields->name, strlen(fields->name));
	return err;
}

/* A group's listing when it is the names of its fields (stat, fs, mnt). */
int gv_list_fields(struct gv_ctx *ctx, const struct gv_req *req,
		   struct gv_out *out)
{
	(void)ctx;
	return gv_put_field_names(out, req->group->fields);
}

/*
 * One read(2). A read that would block ends the value (SPEC v2: data:
 * never waits, and what was read is kept): 0, like end of file.
 */
static ssize_t gv_read_some(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	if (n >= 0)
		return n;
	return errno == EAGAIN ? 0 : -errno;
}

/* A read straight into the caller's buffer (uaccess.c), like the above. */
static ssize_t gv_read_user(int fd, uintptr_t dst, size_t len)
{
	ssize_t n = gv_read_into_user(fd, dst, len, GV_DIRECT_CHUNK);

	return n == -EAGAIN ? 0 : n;
}

/*
 * The contents of @fd from its offset to end of file, after what the value
 * already holds. A first chunk is staged like any value (its write joins
 * the batch); a file that fills it is read by the kernel straight into the
 * caller's buffer after the staged part is written there.
 */
int gv_put_read(struct gv_out *out, int fd, bool short_is_eof)
{
	struct gv_walk *w = out->walk;
	size_t want, got = out->len, room;
	ssize_t n;
	void *dst;
	int err;

	want = out->room - got < GV_READ_CHUNK ? out->room - got :
						  GV_READ_CHUNK;
	want += got;
	err = gv_arena_reserve(w, want - got);
	if (err)
		return err;
	while (got < want) {
		n = gv_read_some(fd, w->arena + out->start + got, want - got);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += n;
		w->arena_len += n;
		out->len = got;
		if (short_is_eof && got < want)
			return 0;
	}
	if (got < want)			/* end of file: a staged value */
		return 0;
	if (want == out->room)		/* filled the space: the part that fits */
		return -EOVERFLOW;

	/*
	 * A big file. Once gv_out_direct() has flushed, nothing is pending,
	 * so the staged part is the arena's only content, still at
	 * out->start.
	 */
	err = gv_out_direct(out, &dst, &room);
	if (err)
		return err;
	err = gv_copy_to_user((uintptr_t)dst, w->arena + out->start, got);
	w->arena_len = 0;
	out->start = 0;
	if (err)
		return err;
	/*
	 * Into the caller's memory a read also returns short at a page that
	 * faults: here the read that follows tells, whatever the file system.
	 */
	while (got < room) {
		n = gv_read_user(fd, (uintptr_t)dst + got, room - got);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += n;
	}
	return gv_out_direct_done(out, got);
}

int gv_out_direct(struct gv_out *out, void **dst, size_t *room)
{
	int err = gv_walk_flush(out->walk);

	if (err)
		return err;
	*dst = (void *)out->dst;
	*room = out->room;
	return 0;
}

int gv_out_direct_done(struct gv_out *out, size_t len)
{
	out->direct = true;
	out->len = len;
	return len >= out->room ? -EOVERFLOW : 0;
}
