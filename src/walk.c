// SPDX-License-Identifier: MIT
/*
 * walk.c - the vector walk of getvalues(): buffers, value_out, per-entry
 * errors, the strict overflow rule, and writing values into the caller's
 * memory. Independent of how values are fetched: getters only see a gv_out.
 *
 * Writing into the caller's memory costs a system call (see uaccess.c), so
 * staged values are written in batches. A batch that cannot be written
 * entirely means some value buffer is bad. The walk then goes back to the
 * entry of the first write that failed, with the buffer position it had
 * there, and redoes the rest one value at a time ("careful" mode), so that
 * the bad value gets EFAULT and does not move the position, exactly as if
 * every value had been written on its own. Values written by the kernel
 * (gv_out_direct) flush the batch first, so nothing after a pending write
 * has touched the caller's memory when the walk goes back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define GV_BATCH_WRITES	1024		/* pending writes before a flush */
#define GV_BATCH_BYTES	(1u << 20)	/* staged bytes before a flush */

struct gv_bufstate {
	uintptr_t base;
	size_t size;
	size_t pos;
	bool valid;
};

struct gv_pending {
	size_t idx;			/* the entry */
	struct gv_bufstate before;	/* buffer state before that entry */
	struct gv_uwrite w;
};

struct gv_walk {
	char *arena;
	size_t arena_len, arena_cap;
	struct gv_pending *pend;
	struct gv_uwrite *writes;	/* pending writes, merged */
	size_t *first;			/* first pending of each merged one */
	size_t npend, pend_cap;
	size_t retry;			/* pending index that failed */
	bool careful;
};

static int gv_arena_reserve(struct gv_walk *w, size_t extra)
{
	size_t need = w->arena_len + extra, cap = w->arena_cap;
	char *p;

	if (need < w->arena_len)
		return -ENOMEM;
	if (need <= cap)
		return 0;
	if (!cap)
		cap = 4096;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	p = realloc(w->arena, cap);
	if (!p)
		return -ENOMEM;
	w->arena = p;
	w->arena_cap = cap;
	return 0;
}

int gv_put(struct gv_out *out, const void *p, size_t n)
{
	struct gv_walk *w = out->walk;
	int err;

	if (n >= out->room - out->len)
		return -EOVERFLOW;
	err = gv_arena_reserve(w, n);
	if (err)
		return err;
	if (n)
		memcpy(w->arena + w->arena_len, p, n);
	w->arena_len += n;
	out->len += n;
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
	int err;

	if (n + 1 >= out->room - out->len || n + 1 < n)
		return -EOVERFLOW;
	err = gv_put(out, s, n);
	if (!err)
		err = gv_put(out, "", 1);
	return err;
}

int gv_put_field_names(struct gv_out *out, const struct gv_field *fields)
{
	int err = 0;

	for (; fields && fields->name && !err; fields++)
		err = gv_put_item(out, fields->name, strlen(fields->name));
	return err;
}

/* Read one chunk; non-blocking descriptors report EAGAIN as it is. */
static ssize_t gv_read_some(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

/*
 * The contents of @fd from its current offset to EOF as the value. Small
 * files are staged like any value (their write joins the batch); a file that
 * outgrows the staging chunk is read by the kernel straight into the
 * caller's buffer, after the staged part is written there.
 */
int gv_put_read(struct gv_out *out, int fd)
{
	const size_t chunk = 65536;
	struct gv_walk *w = out->walk;
	size_t want, got = 0, room;
	ssize_t n;
	void *dst;
	int err;

	want = out->room < chunk ? out->room : chunk;
	err = gv_arena_reserve(w, want);
	if (err)
		return err;
	while (got < want) {
		n = gv_read_some(fd, w->arena + w->arena_len + got, want - got);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += n;
	}
	if (got < want) {		/* EOF: a staged value */
		w->arena_len += got;
		out->len = got;
		return 0;
	}
	if (want == out->room)		/* filled all the space: no fit */
		return -EOVERFLOW;

	/*
	 * A big file: the staged part first, the rest straight in. Once
	 * gv_out_direct() has flushed, nothing is pending, so the arena is
	 * empty but for this chunk, still in place at out->start.
	 */
	w->arena_len += got;
	err = gv_out_direct(out, &dst, &room);
	if (err)
		return err;
	err = gv_copy_to_user((uintptr_t)dst, w->arena + out->start, got);
	w->arena_len = 0;
	out->start = 0;
	if (err)
		return err;
	while (got < room) {
		n = gv_read_some(fd, (char *)dst + got, room - got);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += n;
	}
	return gv_out_direct_done(out, got);
}

/*
 * Write all pending values; on failure remember which one failed. Values
 * that follow each other both in the arena and in the caller's buffer (a
 * shared buffer) go out as one write: fewer iovecs, fewer page pins.
 */
static int gv_flush(struct gv_walk *w)
{
	size_t done, i, n = 0;

	if (!w->npend)
		return 0;
	for (i = 0; i < w->npend; i++) {
		const struct gv_uwrite *x = &w->pend[i].w;
		struct gv_uwrite *last = n ? &w->writes[n - 1] : NULL;

		if (last && last->off + last->len == x->off &&
		    last->dst + last->len == x->dst) {
			last->len += x->len;
		} else {
			w->first[n] = i;
			w->writes[n++] = *x;
		}
	}
	done = gv_copy_to_user_batch(w->arena, w->writes, n);
	if (done < n) {
		w->retry = w->first[done];
		return -EGV_RETRY;
	}
	w->npend = 0;
	w->arena_len = 0;
	return 0;
}

int gv_out_direct(struct gv_out *out, void **dst, size_t *room)
{
	int err = gv_flush(out->walk);

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

static int gv_add_pending(struct gv_walk *w, size_t idx,
			  const struct gv_bufstate *before,
			  const struct gv_out *out)
{
	if (w->npend == w->pend_cap) {
		size_t cap = w->pend_cap ? w->pend_cap * 2 : 64;
		struct gv_pending *p = realloc(w->pend, cap * sizeof(*p));
		struct gv_uwrite *u;
		size_t *f;

		if (!p)
			return -ENOMEM;
		w->pend = p;
		u = realloc(w->writes, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		w->writes = u;
		f = realloc(w->first, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		w->first = f;
		w->pend_cap = cap;
	}
	w->pend[w->npend++] = (struct gv_pending){
		.idx = idx,
		.before = *before,
		.w = { .off = out->start, .len = out->len, .dst = out->dst },
	};
	return 0;
}

static void gv_entry_error(struct name_val *e, const struct gv_bufstate *b,
			   int err)
{
	e->value_out.iov_base = b->valid ? (void *)(b->base + b->pos) : NULL;
	e->value_out.iov_len = 0;
	e->error = err;
}

/*
 * Fetch and place the value of entry @i. Returns 0 when the walk goes on,
 * 1 when the entry overflowed (the walk stops), -EGV_RETRY when a batch
 * could not be written, or another negative errno for the whole call.
 */
static int gv_walk_entry(struct gv_ctx *ctx, struct gv_walk *w,
			 struct name_val *e, const struct gv_req *req,
			 size_t i, struct gv_bufstate *b)
{
	struct gv_bufstate before;
	struct gv_out out;
	int err;

	if (e->value_in.iov_base) {
		b->base = (uintptr_t)e->value_in.iov_base;
		b->size = e->value_in.iov_len;
		b->pos = 0;
		b->valid = true;
	}
	before = *b;
	if (!b->valid) {
		gv_entry_error(e, b, EINVAL);
		return 0;
	}
	if (req->err) {
		gv_entry_error(e, b, req->err);
		return 0;
	}
	out = (struct gv_out){
		.walk = w,
		.room = b->size - b->pos,
		.start = w->arena_len,
		.dst = b->base + b->pos,
	};
	err = gv_get_value(ctx, req, &out);
	if (!err && out.len >= out.room)
		err = -EOVERFLOW;
	if (err) {
		if (!out.direct)
			w->arena_len = out.start;
		if (err == -EGV_RETRY)
			return err;
		gv_entry_error(e, b, -err);
		return err == -EOVERFLOW;
	}
	if (!out.direct && out.len) {
		if (w->careful) {
			err = gv_copy_to_user(out.dst, w->arena + out.start,
					      out.len);
			w->arena_len = out.start;
			if (err) {
				gv_entry_error(e, b, -err);
				return 0;
			}
		} else {
			err = gv_add_pending(w, i, &before, &out);
			if (err) {
				w->arena_len = out.start;
				gv_entry_error(e, b, -err);
				return 0;
			}
		}
	}
	e->value_out.iov_base = (void *)out.dst;
	e->value_out.iov_len = out.len;
	e->error = 0;
	b->pos += out.len;
	if (w->npend >= GV_BATCH_WRITES || w->arena_len >= GV_BATCH_BYTES)
		return gv_flush(w);
	return 0;
}

/*
 * Walk @vec (the caller's entries, copied into library memory) and fill in
 * value_out and error. Returns the number of entries handled: @num, or the
 * index of the entry that overflowed.
 */
int gv_walk(struct gv_ctx *ctx, struct name_val *vec, size_t num,
	    const struct gv_req *reqs)
{
	struct gv_walk w = { 0 };
	struct gv_bufstate b = { 0 };
	size_t i = 0, stop = num;
	int err = 0;

	for (;;) {
		for (; i < num; i++) {
			err = gv_walk_entry(ctx, &w, &vec[i], &reqs[i], i, &b);
			if (err == 1) {
				stop = i;
				break;
			}
			if (err == -EGV_RETRY)
				break;
		}
		if (err != -EGV_RETRY)
			err = gv_flush(&w);
		if (err != -EGV_RETRY)
			break;
		/* go back to the first value that could not be written */
		i = w.pend[w.retry].idx;
		b = w.pend[w.retry].before;
		w.npend = 0;
		w.arena_len = 0;
		w.careful = true;
		stop = num;
	}
	free(w.arena);
	free(w.pend);
	free(w.writes);
	free(w.first);
	return stop;
}
