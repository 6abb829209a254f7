// SPDX-License-Identifier: MIT
/*
 * walk.c - the vector walk of getvalues(): buffers, value_out, per-entry
 * errors, the strict overflow rule, and writing values and results into
 * the caller's memory. Independent of how values are fetched: getters only
 * see a gv_out (sink.c).
 *
 * Writing into the caller's memory costs a system call (uaccess.c), so
 * staged values are written in batches, and the last batch carries the
 * results too: value_out and error of every entry handled, and nothing
 * else of the entries (SPEC v2: name, value_in and reserved are never
 * written). A call that fits one batch writes once.
 *
 * A batch that cannot be written entirely means some value buffer is bad.
 * The walk then goes back to the entry of the first write that failed,
 * with the buffer position it had there, and writes the rest one value at
 * a time ("careful" mode), so that the bad value gets EFAULT and does not
 * move the position, exactly as if every value had been written on its
 * own. Values already fetched are written again as they were, not fetched
 * again: a file whose read consumes what it reads (a kernel log, a trace
 * pipe) does not lose it. The entry that overflowed is fetched again, since
 * the space before it may have grown, and so is a value the io_uring batch
 * read straight into the caller's buffer (it is not where it now belongs)
 * with every entry after it. Values written by the kernel otherwise
 * (gv_out_direct) flush the batch first, so they never come after a
 * pending write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "uaccess.h"
#include "walk.h"

#define GV_BATCH_WRITES	1024		/* pending writes before a flush */
#define GV_BATCH_BYTES	(1u << 20)	/* staged bytes before a flush */

/*
 * The arena is scratch memory (scratch.c): a call's staged values go where
 * the last call's went, instead of growing the heap and trimming it again
 * (two brk() calls and the page faults in between, every call).
 */
int gv_arena_reserve(struct gv_walk *w, size_t extra)
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
	p = gv_scratch_get(GV_SCRATCH_ARENA, w->arena, cap);
	if (!p)
		return -ENOMEM;
	w->arena = p;
	w->arena_cap = gv_scratch_cap(p);
	return 0;
}

/*
 * Room for @n writes: the two iovecs and the pending index of each, in one
 * scratch buffer kept from call to call (for the results of 10000 mounts'
 * fields, half a megabyte that would be faulted in anew every call).
 */
static int gv_iov_reserve(struct gv_walk *w, size_t n)
{
	const size_t one = 2 * sizeof(struct iovec) + sizeof(size_t);
	char *p;

	if (n <= w->iov_cap)
		return 0;
	if (n > SIZE_MAX / one)
		return -ENOMEM;
	p = gv_scratch_get(GV_SCRATCH_IOV, w->liov, n * one);
	if (!p)
		return -ENOMEM;
	n = gv_scratch_cap(p) / one;
	w->liov = (struct iovec *)p;
	w->riov = w->liov + n;
	w->first = (size_t *)(w->riov + n);
	w->iov_cap = n;
	return 0;
}

/* Results per write: one readv(2) from the pipe takes 1024 (IOV_MAX). */
#define GV_RESULTS_CHUNK 1024

/*
 * The iovecs of one write: with @from 0, the pending writes, values that
 * follow each other both in the arena and in the caller's buffer (a
 * shared buffer) merged into one; then the results of entries @from on,
 * up to @nres and up to GV_RESULTS_CHUNK iovecs in all, into *@to; and
 * after the last result the tail, if any. The results are copied into the
 * arena after the values, one after the other, so that the pipe of
 * uaccess.c takes them in one piece (a writev(2) of 1024 pieces of 20
 * bytes costs 14 us, a write(2) of them 8 us). Returns the number of
 * iovecs.
 *
 * Each result's line of the caller's vector is prefetched for writing as
 * its iovec is made: by the time the results go out, the vector the
 * caller filled before the call has mostly left the caches (6 MB for
 * 10000 mounts' 13 fields), and the readv(2) that writes it would wait
 * for each line in turn. A prefetch is a hint that never faults, on an
 * unmapped or read-only address either (x86 PREFETCHh, arm64 PRFM; GCC
 * documents __builtin_prefetch() so): the library learns nothing from it
 * and changes nothing, the lines only come in while the other iovecs are
 * made. 2-3% of a table of 10000 mounts (bench/mounts).
 */
static size_t gv_walk_iov(struct gv_walk *w, size_t from, size_t nres,
			  size_t *to)
{
	char *res = w->arena + w->arena_len;
	size_t n = 0, i;

	for (i = 0; !from && i < w->npend; i++) {
		const struct gv_pending *p = &w->pend[i];
		struct iovec *l = n ? &w->liov[n - 1] : NULL;
		struct iovec *r = n ? &w->riov[n - 1] : NULL;

		if (!p->len)
			continue;
		if (l && (char *)l->iov_base + l->iov_len == w->arena + p->off &&
		    (uintptr_t)r->iov_base + r->iov_len == p->dst) {
			l->iov_len += p->len;
			r->iov_len += p->len;
			continue;
		}
		w->first[n] = i;
		w->liov[n] = (struct iovec){ w->arena + p->off, p->len };
		w->riov[n] = (struct iovec){ (void *)p->dst, p->len };
		n++;
	}
	for (i = from; i < nres && (n < GV_RESULTS_CHUNK || i == from);
	     i++, res += GV_RESULT_LEN) {
		memcpy(res, (char *)&w->vec[i] + GV_RESULT_OFF, GV_RESULT_LEN);
		w->first[n] = SIZE_MAX;
		w->liov[n] = (struct iovec){ res, GV_RESULT_LEN };
		w->riov[n] = (struct iovec){
			(void *)(w->uvec + i * sizeof(struct name_val) +
				 GV_RESULT_OFF), GV_RESULT_LEN };
		/* the line readv(2) will write: see the comment above */
		__builtin_prefetch(w->riov[n].iov_base, 1, 3);
		n++;
	}
	*to = i;
	if (i == nres && nres && w->tail) {
		w->first[n] = SIZE_MAX;
		w->liov[n] = w->tail[0];
		w->riov[n] = w->tail[1];
		n++;
	}
	return n;
}

/*
 * Write the pending values and, with @nres, the results of entries
 * [0, @nres) and the tail, GV_RESULTS_CHUNK iovecs at a time. 0 when all
 * landed; -EGV_RETRY when a value did not (the walk goes back to it:
 * w->npend is cut to the pending write that failed); -EFAULT when the
 * results or the tail could not be written.
 */
static int gv_walk_write(struct gv_walk *w, size_t nres)
{
	size_t chunk = nres < GV_RESULTS_CHUNK ? nres : GV_RESULTS_CHUNK;
	size_t from = 0, n, done;
	int err = gv_iov_reserve(w, w->npend + chunk + 2);

	if (!err)
		err = gv_arena_reserve(w, chunk * GV_RESULT_LEN);
	if (err)
		return err;
	do {
		n = gv_walk_iov(w, from, nres, &from);
		done = gv_copy_to_user_iov(w->liov, w->riov, n);
		if (done < n && w->first[done] == SIZE_MAX)
			return -EFAULT;
		if (done < n) {
			/* keep the pending writes from the one that failed */
			memmove(w->pend, w->pend + w->first[done],
				(w->npend - w->first[done]) *
				sizeof(*w->pend));
			w->npend -= w->first[done];
			return -EGV_RETRY;
		}
	} while (from < nres);
	w->npend = 0;
	w->arena_len = 0;
	return 0;
}

int gv_walk_flush(struct gv_walk *w)
{
	return w->npend ? gv_walk_write(w, 0) : 0;
}

/*
 * A value to write: it joins the pending write before it when it follows
 * that one both in the arena and in the caller's buffer (a shared buffer),
 * so that a table of small values makes few pending writes, not one each.
 */
static int gv_add_pending(struct gv_walk *w, const struct gv_bufstate *before,
			  const struct gv_out *out, bool overflow)
{
	struct gv_pending *last = w->npend ? &w->pend[w->npend - 1] : NULL;

	if (last && !overflow && !last->overflow &&
	    last->off + last->len == out->start &&
	    last->dst + last->len == out->dst) {
		last->len += out->len;
		last->last = w->cur;
		return 0;
	}
	if (w->npend == w->pend_cap) {
		size_t cap = w->pend_cap ? w->pend_cap * 2 : 64;
		struct gv_pending *p = realloc(w->pend, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		w->pend = p;
		w->pend_cap = cap;
	}
	w->pend[w->npend++] = (struct gv_pending){
		.idx = w->cur, .last = w->cur, .before = *before,
		.overflow = overflow,
		.off = out->start, .len = out->len, .dst = out->dst,
	};
	return 0;
}

static void gv_entry_set(struct name_val *e, const struct gv_bufstate *b,
			 size_t len, int err)
{
	e->value_out.iov_base = b->valid ? (void *)(b->base + b->pos) : NULL;
	e->value_out.iov_len = len;
	e->error = err;
}

/* A new current buffer, if the entry brings one (SPEC 2.2). */
static void gv_entry_buffer(const struct name_val *e, struct gv_bufstate *b)
{
	if (e->value_in.iov_base) {
		b->base = (uintptr_t)e->value_in.iov_base;
		b->size = e->value_in.iov_len;
		b->pos = 0;
		b->valid = true;
	}
}

/*
 * Place a value the getter produced (@len bytes at arena offset @off, or
 * already in the caller's buffer if @out->direct): written now in careful
 * mode, else staged. Returns 0, -ENOMEM (the call's error) or, written
 * now, the write's (the entry's).
 */
static int gv_place(struct gv_walk *w, const struct gv_bufstate *before,
		    const struct gv_out *out, bool overflow)
{
	int err;

	if (out->direct || !out->len)
		return 0;
	if (!w->careful)
		return gv_add_pending(w, before, out, overflow);
	err = gv_copy_to_user(out->dst, w->arena + out->start, out->len);
	w->arena_len = out->start;
	return err;
}

/*
 * The value of the parsed name @req, from its group's table: a field's
 * getter, the group's getter for an argument or an ID, or its listing.
 */
static int gv_get_value(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	const struct gv_group *g = req->group;

	if (req->field)
		return req->field->get(ctx, req, out);
	if (req->arg || req->has_id)
		return g->get(ctx, req, out);
	return g->list(ctx, req, out);
}

/*
 * Fetch and place the value of entry w->cur. Returns 0 when the walk goes
 * on, 1 when the entry overflowed (the walk stops), -EGV_RETRY when the
 * batch a getter flushed could not be written, or -ENOMEM: SPEC 2.2, the
 * call fails, and this entry is left as it was.
 */
static int gv_walk_entry(struct gv_walk *w, struct gv_bufstate *b)
{
	struct name_val *e = &w->vec[w->cur];
	const struct gv_req *req = &w->reqs[w->cur];
	struct gv_out out;
	int err, placed;

	gv_entry_buffer(e, b);
	if (!b->valid) {
		gv_entry_set(e, b, 0, EINVAL);
		return 0;
	}
	if (req->err) {
		gv_entry_set(e, b, 0, req->err);
		return 0;
	}
	out = (struct gv_out){
		.walk = w,
		.room = b->size - b->pos,
		.start = w->arena_len,
		.dst = b->base + b->pos,
	};
	err = gv_get_value(w->ctx, req, &out);
	if (!err && out.len >= out.room)
		err = -EOVERFLOW;
	if (err == -EGV_RETRY)
		return err;
	if (err == -ENOMEM) {
		w->arena_len = out.start;
		return err;
	}
	if (err && err != -EOVERFLOW) {
		w->arena_len = out.start;
		gv_entry_set(e, b, 0, -err);
		return 0;
	}
	/*
	 * A value, or the part of one that fitted: its write decides. The
	 * buffer is still as the entry found it (the getter cannot reach
	 * @b): a pending write starting here keeps that.
	 */
	placed = gv_place(w, b, &out, err == -EOVERFLOW);
	if (placed == -ENOMEM) {
		w->arena_len = out.start;
		return placed;
	}
	if (placed) {
		w->arena_len = out.start;
		gv_entry_set(e, b, 0, -placed);
		return 0;
	}
	if (err) {
		gv_entry_set(e, b, 0, EOVERFLOW);
		return 1;
	}
	gv_entry_set(e, b, out.len, 0);
	b->pos += out.len;
	return 0;
}

/*
 * A batch write failed at w->pend[0]: redo, one value at a time, every
 * entry from that one to the one being fetched, with the values already
 * fetched. Returns the entry to go on from, in careful mode, and its
 * buffer state in @b.
 */
static size_t gv_walk_replay(struct gv_walk *w, struct gv_bufstate *b)
{
	size_t i = w->pend[0].idx, p = 0, off = 0, len;

	*b = w->pend[0].before;
	w->careful = true;
	for (; i < w->cur; i++) {
		struct name_val *e = &w->vec[i];
		const struct gv_pending *pd;
		int err;

		while (p < w->npend && w->pend[p].last < i)
			p++;
		pd = p < w->npend && w->pend[p].idx <= i ? &w->pend[p] : NULL;
		if (pd && pd->idx == i)
			off = pd->off;	/* its values' bytes, in order */
		if (i > w->pend[0].idx)
			gv_entry_buffer(e, b);
		if (pd && pd->overflow)
			break;		/* fetched again: it may fit now */
		len = e->error ? 0 : e->value_out.iov_len;
		/*
		 * A value without a pending write and not empty was placed in
		 * the caller's buffer by the batch, where it would go had the
		 * failed write landed: fetched again from here on.
		 */
		if (!pd && len)
			break;
		if (!len) {
			/* an error or an empty value: only its place moves */
			gv_entry_set(e, b, 0, e->error);
			continue;
		}
		err = gv_copy_to_user(b->base + b->pos, w->arena + off, len);
		off += len;
		if (err) {
			gv_entry_set(e, b, 0, -err);
			continue;
		}
		gv_entry_set(e, b, len, 0);
		b->pos += len;
	}
	w->npend = 0;
	w->arena_len = 0;
	return i;
}

void gv_walk_init(struct gv_walk *w, struct gv_ctx *ctx, struct name_val *vec,
		  uintptr_t uvec, size_t num, const struct gv_req *reqs)
{
	*w = (struct gv_walk){
		.ctx = ctx, .vec = vec, .uvec = uvec, .num = num, .reqs = reqs,
	};
}

void gv_walk_release(struct gv_walk *w)
{
	gv_scratch_put(GV_SCRATCH_ARENA, w->arena);
	gv_scratch_put(GV_SCRATCH_IOV, w->liov);
	free(w->pend);
}

/*
 * Walk the entries (copied into w->vec), fill in value_out and error, and
 * write values and results into the caller's memory. Returns the number
 * of entries handled (w->num, or the index of the entry that overflowed),
 * or -errno for the call: -EFAULT when the results could not be written;
 * -ENOMEM when memory ran out, after the values and results of the
 * entries handled before were written, as the kernel writes each entry
 * when it is handled (SPEC 2.2: they keep what they got).
 */
int gv_walk(struct gv_walk *w)
{
	struct gv_bufstate b = { 0 };
	size_t stop;
	int err;

	w->cur = 0;
	for (;;) {
		stop = w->num;
		for (err = 0; w->cur < w->num;) {
			err = gv_walk_entry(w, &b);
			if (err == 1) {
				stop = w->cur;
				break;
			}
			if (err < 0)
				break;
			w->cur++;
			if (w->npend >= GV_BATCH_WRITES ||
			    w->arena_len >= GV_BATCH_BYTES) {
				err = gv_walk_flush(w);
				if (err)
					break;
			}
		}
		if (err == 1 || err == 0)
			err = gv_walk_write(w, stop < w->num ? stop + 1 : stop);
		else if (err == -ENOMEM && gv_walk_write(w, w->cur) ==
			 -EGV_RETRY)
			err = -EGV_RETRY;
		if (err != -EGV_RETRY)
			break;
		w->cur = gv_walk_replay(w, &b);
	}
	return err < 0 ? err : (int)stop;
}
