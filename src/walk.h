/* SPDX-License-Identifier: MIT */
/*
 * walk.h - the walk of a vector (walk.c): each entry's value fetched
 * through its group's table and placed in the caller's buffer; its state,
 * shared with the value sinks the getters write into (sink.c).
 */
#ifndef GV_WALK_H
#define GV_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ctx.h"
#include "sink.h"

/* The current buffer of the walk (SPEC 2.2). */
struct gv_bufstate {
	uintptr_t base;
	size_t size;
	size_t pos;
	bool valid;
};

/*
 * Values staged in the arena, to be written into the caller's buffer: the
 * values of entries @idx to @last, which follow each other both in the
 * arena and in the caller's buffer (entries in between with an error or
 * an empty value have no bytes), or the part of one value that fitted.
 */
struct gv_pending {
	size_t idx, last;		/* the entries */
	struct gv_bufstate before;	/* the buffer as entry @idx found it */
	size_t off, len;		/* the bytes in the arena */
	uintptr_t dst;
	bool overflow;			/* the part of a value that fitted */
};

struct gv_walk {
	struct gv_ctx *ctx;
	struct name_val *vec;		/* library copy of the caller's vector */
	uintptr_t uvec;			/* the caller's vector */
	size_t num;
	const struct gv_req *reqs;
	size_t cur;			/* the entry being fetched */

	char *arena;			/* staged values */
	size_t arena_len, arena_cap;
	struct gv_pending *pend;	/* staged writes, in entry order */
	size_t npend, pend_cap;
	struct iovec *liov, *riov;	/* a flush's writes */
	size_t *first;			/* pending index of each write */
	size_t iov_cap;
	bool careful;			/* write every value at once */
	/* written after the results, in the same system call: [0] into [1] */
	const struct iovec *tail;
};

void gv_walk_init(struct gv_walk *w, struct gv_ctx *ctx, struct name_val *vec,
		  uintptr_t uvec, size_t num, const struct gv_req *reqs);
int gv_walk(struct gv_walk *w);
void gv_walk_release(struct gv_walk *w);

/* Make room for @extra more staged bytes. */
int gv_arena_reserve(struct gv_walk *w, size_t extra);
/* Write every staged value; -EGV_RETRY if one could not be. */
int gv_walk_flush(struct gv_walk *w);

#endif /* GV_WALK_H */
