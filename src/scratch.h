/* SPDX-License-Identifier: MIT */
/*
 * scratch.h - large buffers that one getvalues() call needs for as long as
 * it runs and whose memory the next call reuses (scratch.c).
 */
#ifndef GV_SCRATCH_H
#define GV_SCRATCH_H

#include <stddef.h>

/* One parked buffer per use: a call takes each at most once. */
enum gv_scratch_id {
	GV_SCRATCH_VEC,		/* getvalues.c: the copy of the vector */
	GV_SCRATCH_REQS,	/* getvalues.c: the parsed names */
	GV_SCRATCH_NAMES,	/* names.c: where each name is and its length */
	GV_SCRATCH_ARENA,	/* walk.h: the staged values */
	GV_SCRATCH_IOV,		/* walk.c: the iovecs of a write */
	GV_SCRATCH_PREREAD,	/* getvalues.c: names read with the vector */
	GV_SCRATCH_NR,
};

/*
 * A buffer of at least @size bytes, contents undefined, or NULL. With @p
 * (from an earlier gv_scratch_get() with the same @id): @p grown to @size,
 * its contents kept, as realloc() does.
 */
void *gv_scratch_get(enum gv_scratch_id id, void *p, size_t size);
/* How many bytes @p (from gv_scratch_get()) holds. */
size_t gv_scratch_cap(void *p);
/* Done with @p (may be NULL): parked for the next call, or freed. */
void gv_scratch_put(enum gv_scratch_id id, void *p);

#endif /* GV_SCRATCH_H */
