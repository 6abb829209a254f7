/* SPDX-License-Identifier: MIT */
/*
 * uring.h - the io_uring backend's per-thread ring (uring.c), shared with
 * the getvalues() batch that runs on it (uring_batch.c).
 */
#ifndef GV_URING_H
#define GV_URING_H

#include <liburing.h>
#include <stdbool.h>

#define GV_URING_SLOTS	64		/* files in flight, at most */
#define GV_URING_SQES	(4 * GV_URING_SLOTS)	/* up to four a file */

struct gv_ring {
	struct io_uring ring;
	unsigned long gen;		/* fork generation it belongs to */
	unsigned int slots;		/* direct descriptor slots registered */
	bool ready;
	bool busy;			/* a signal handler must not reenter */
	bool broken;			/* io_uring_enter() failed for good */
	/*
	 * Staging memory kept from call to call: freeing it gives it back to
	 * the kernel (brk), and taking it again costs page faults each call.
	 */
	char *stage;			/* GV_STAGE_KEEP bytes */
	bool stage_busy;		/* a batch of this thread holds it */
};

#define GV_STAGE_KEEP	(1u << 20)	/* staging memory a thread keeps */

/* This thread's ring, made on first use; NULL with *@err if none. */
struct gv_ring *gv_ring_get(int *err);
/* The next free SQE; submits what is queued when the ring is full. */
struct io_uring_sqe *gv_ring_sqe(struct gv_ring *r);
/*
 * Submit what is queued and wait for @want completions. 0, or -errno when
 * the ring cannot be entered any more (then it is marked broken, and a
 * seccomp filter's refusal makes io_uring unusable in this process).
 */
int gv_ring_wait(struct gv_ring *r, unsigned int want);
/* Submit what is queued, without waiting (errors as gv_ring_wait()). */
int gv_ring_submit(struct gv_ring *r);

#endif /* GV_URING_H */
