// SPDX-License-Identifier: MIT
/*
 * scratch.c - the buffers of one getvalues() call that grow with the
 * number of entries, kept for the next call.
 *
 * A vector of 140000 entries (every field of 10000 mounts) needs some
 * 15 MB of such buffers. glibc serves them from fresh mmap()ed pages, or
 * from the top of its heap, which free() trims again: either way the next
 * call faults every page in anew, and on a virtual machine that costs more
 * than the call's own work. So each finished buffer is parked, one per
 * use, for the next call of any thread: taken and given back with atomic
 * exchanges, like the mount cache of mnt.c. A call that finds nothing
 * parked (the first one, or one racing another thread) allocates.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "scratch.h"

/*
 * Past this size a buffer is freed rather than kept: a vector of more
 * than some 300000 entries is a one-off, not worth its memory for good.
 */
#define GV_SCRATCH_KEEP_MAX (16u << 20)

struct gv_scratch {
	size_t cap;
	max_align_t data[];
};

static struct gv_scratch *gv_scratch_parked[GV_SCRATCH_NR];

static struct gv_scratch *gv_scratch_of(void *p)
{
	return (struct gv_scratch *)((char *)p -
				     offsetof(struct gv_scratch, data));
}

void *gv_scratch_get(enum gv_scratch_id id, void *p, size_t size)
{
	struct gv_scratch *s;

	if (size > SIZE_MAX - sizeof(*s))
		return NULL;
	if (p) {
		s = gv_scratch_of(p);
		if (s->cap >= size)
			return p;
	} else {
		s = __atomic_exchange_n(&gv_scratch_parked[id], NULL,
					__ATOMIC_ACQUIRE);
		if (s && s->cap >= size)
			return s->data;
		free(s);
		s = NULL;
	}
	s = realloc(s, sizeof(*s) + size);
	if (!s)
		return NULL;
	s->cap = size;
	return s->data;
}

size_t gv_scratch_cap(void *p)
{
	return gv_scratch_of(p)->cap;
}

void gv_scratch_put(enum gv_scratch_id id, void *p)
{
	struct gv_scratch *s, *expected = NULL;

	if (!p)
		return;
	s = gv_scratch_of(p);
	if (s->cap > GV_SCRATCH_KEEP_MAX ||
	    !__atomic_compare_exchange_n(&gv_scratch_parked[id], &expected, s,
					 false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		free(s);
}
