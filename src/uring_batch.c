// SPDX-License-Identifier: MIT
/*
 * uring_batch.c - the io_uring backend's part of getvalues(): the data:
 * files of a call read, checked for end of file and closed as linked
 * io_uring requests, many files in flight at once, with a handful of
 * io_uring_enter() calls.
 *
 * What is opened, and how, is exactly what data.c opens, and open.c opens
 * it: the last component is pinned with an O_PATH descriptor, typed from
 * that inode and reopened through the thread's /proc fd directory, so that
 * nothing but a regular file is ever opened, even when a rename swaps a
 * FIFO in. That cannot be done in the ring: a direct descriptor cannot be
 * looked at, and io_uring hands an open through a magic link to a worker
 * thread (11-25 us instead of 5). So each such file is opened in system
 * calls while the ring reads the files already open. Its descriptor is
 * put into a direct slot (a slot of the ring's registered file table) by
 * the first request of its chain, and closed here once the chain is done
 * (closing it in the ring would free its number at a moment this thread
 * does not see, while fds.c still owns it):
 *
 *   files update -> read -> read 1 byte -> close of the slot
 *              LINK    HARDLINK      HARDLINK
 *
 * The reads are hard-linked, so that a short read (which io_uring counts
 * as a failure) still lets the second one run. The second read proves end
 * of file: the sync path reads until read(2) returns 0, and a procfs or
 * sysfs file may well return less than asked before its end. Where open.c
 * opens by name (procfs, sysfs and cgroupfs hold no special files), so
 * does the ring: an openat2 with RESOLVE_IN_ROOT | RESOLVE_NO_XDEV into
 * the slot takes the place of the files update.
 *
 * No descriptor number is ever looked up outside this thread. io_uring
 * hands work it cannot do at once to io-wq worker threads, and a worker
 * keeps the descriptor table its thread had when the worker was made: after
 * unshare(CLONE_FILES) a number may name another file there. The head of
 * a chain is issued by io_uring_enter() in this thread; the ring's opens
 * carry RESOLVE_CACHED, so that one whose lookup is not all in the dcache
 * fails with EAGAIN (and data.c opens that file) instead of being handed
 * to a worker with $ORIGIN's number; and every read names a direct slot,
 * which is the ring's, never a number. Names whose lookup can never be
 * cached (a "self" or "thread-self" component: procfs follows those links
 * only outside RCU) are left to data.c from the start.
 *
 * Where the bytes go. The first entry of the batch is the one the walk is
 * at: its place in the caller's buffer is known, and so are the places of
 * the files after it in the same buffer, from the sizes statx gave for the
 * files before them: those are read straight there (see gv_batch_plan()).
 * Every other file is read into library memory and copied by the walk
 * like any staged value: a call that stops on an overflow must leave the
 * buffers of later entries untouched, which a read ahead into them would
 * not. A result that cannot be judged exactly as the sync path would (an
 * error, a value larger than what was read) is dropped and the entry
 * fetched again by data.c, so values, errors and overflows are those of
 * the sync backend by construction; a read that would block (EAGAIN) ends
 * the value, as in data.c, since what it read is gone from the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "uring.h"

#define GV_STAGE_MAX	(1u << 20)	/* largest value staged in the batch */
#define GV_STAGE_TOTAL	(32u << 20)	/* staging memory of one batch */
#define GV_URING_SUBMIT	8		/* files opened, then submitted */
#define GV_READ_MAX	(1u << 30)	/* one read request */

/* What a completion is about: user_data = slot << 40 | op << 32 | job. */
enum gv_op { GV_OP_OPEN, GV_OP_READ, GV_OP_EOF, GV_OP_CLOSE };

enum gv_job_state {
	GV_JOB_SYNC,		/* fetch it one at a time after all */
	GV_JOB_VALUE,		/* n bytes, up to end of file */
	GV_JOB_FULL,		/* the read filled all len bytes */
	GV_JOB_ERROR,		/* err, as data.c would find it */
};

struct gv_job {
	size_t idx;		/* the entry */
	const char *path;	/* SUBPATH */
	char *dst;		/* where the read goes */
	size_t len;		/* of the read */
	size_t room;		/* placed: the room; staged: the most it has */
	bool placed;		/* dst is in the caller's buffer */
	bool chain;		/* in the buffer the walk is at, no gap */
	bool direct;		/* opened by the ring into its slot */
	bool done;		/* every completion of its chain is in */
	unsigned int owed;	/* completions still to come */
	unsigned int slot;	/* its direct slot, for the chain */
	int fd;			/* opened by open.c, closed here */
	int state;
	int err;
	int res_open, res_read, res_eof;
	int64_t expect;		/* placed by a prediction made with this */
	size_t n;
	char eof_byte;		/* the second read's target */
};

struct gv_batch {
	size_t from, num;
	/* where the next value of the walk's buffer will go, 0: unknown */
	uintptr_t pred, pred_end;
	struct gv_job **of;	/* entry from + k -> its job, or NULL */
	struct gv_job *jobs;
	size_t njobs;
	struct gv_closer *closing;	/* the call's: files done with */
	int direct_err;		/* 0, or why no direct open may be made */
	bool direct_checked;
	bool lost;		/* requests in flight when the ring broke */
	/* staging memory: the ring's own, then chunks of our own */
	struct gv_ring *kept;
	char **chunks;
	size_t nchunks;
	char *cur;
	size_t cur_left, staged;
};

static inline uint64_t gv_tag(unsigned int slot, enum gv_op op, size_t job)
{
	return (uint64_t)slot << 40 | (uint64_t)op << 32 | (uint32_t)job;
}

static uintptr_t gv_end(uintptr_t base, size_t len)
{
	return base + len < base ? UINTPTR_MAX : base + len;
}

/*
 * Does [@lo, @hi) overlap the buffer of any entry of @vec but @self? Then
 * a value read there ahead of the walk could be overwritten by a value the
 * walk writes later for an entry before it, where the walk, writing in
 * entry order, would have written it the other way round.
 */
static bool gv_overlaps_other(const struct name_val *vec, size_t num,
			      uintptr_t lo, uintptr_t hi, size_t self)
{
	if (lo >= hi)
		return false;
	for (size_t i = 0; i < num; i++) {
		uintptr_t base = (uintptr_t)vec[i].value_in.iov_base;

		if (i != self && base && base < hi &&
		    lo < gv_end(base, vec[i].value_in.iov_len))
			return true;
	}
	return false;
}

/*
 * Memory that requests of a broken ring may still write into: never freed,
 * and kept reachable (a leak checker would report it otherwise). At most
 * one batch's worth per ring that breaks, which happens once a process.
 */
struct gv_grave {
	struct gv_grave *next;
	void *mem;
};

static struct gv_grave *gv_graves;

static void gv_bury(void *mem)
{
	struct gv_grave *g = malloc(sizeof(*g));

	if (!g || !mem) {
		free(g);
		return;		/* left unreachable: no harm but the report */
	}
	g->mem = mem;
	g->next = __atomic_load_n(&gv_graves, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&gv_graves, &g->next, g, true,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

void gv_uring_batch_free(struct gv_batch *b)
{
	if (!b)
		return;
	/* a request in flight reads through its slot, not this number */
	for (size_t k = 0; k < b->njobs; k++)
		if (!b->jobs[k].direct)
			gv_fd_close(b->jobs[k].fd);
	/*
	 * Reads still in flight in a ring that broke under them may land in
	 * the staging memory later, and their end-of-file bytes in the jobs:
	 * both are left to them, never reused (getvalues(3), BUGS).
	 */
	if (b->lost) {
		gv_bury(b->jobs);
		b->jobs = NULL;
	}
	for (size_t k = 0; k < b->nchunks; k++) {
		if (!b->lost)
			free(b->chunks[k]);
		else
			gv_bury(b->chunks[k]);
	}
	if (b->kept) {
		if (b->lost) {
			gv_bury(b->kept->stage);
			b->kept->stage = NULL;
		}
		b->kept->stage_busy = false;
	}
	free(b->chunks);
	free(b->of);
	free(b->jobs);
	free(b);
}

/*
 * @len bytes of staging memory: first the thread's own buffer (freeing it
 * each call would give it back to the kernel and fault it in again), then
 * chunks of our own. NULL past GV_STAGE_TOTAL: data.c reads the rest.
 */
static char *gv_stage_alloc(struct gv_ring *r, struct gv_batch *b,
			    size_t len)
{
	char *p;

	if (!len || b->staged + len > GV_STAGE_TOTAL)
		return NULL;
	if (len > b->cur_left) {
		if (!b->kept && !r->stage_busy &&
		    (r->stage || (r->stage = malloc(GV_STAGE_KEEP)))) {
			r->stage_busy = true;
			b->kept = r;
			b->cur = r->stage;
			b->cur_left = GV_STAGE_KEEP;
		} else {
			size_t size = len > GV_STAGE_KEEP ? len : GV_STAGE_KEEP;
			char **c = realloc(b->chunks, (b->nchunks + 1) *
					   sizeof(*c));

			if (!c)
				return NULL;
			b->chunks = c;
			p = malloc(size);
			if (!p)
				return NULL;
			b->chunks[b->nchunks++] = p;
			b->cur = p;
			b->cur_left = size;
		}
	}
	p = b->cur;
	b->cur += len;
	b->cur_left -= len;
	b->staged += len;
	return p;
}

/*
 * Where each data: file of entries @from.. is to be read: b->jobs in entry
 * order, b->of mapping entries to them. Nothing is opened yet.
 *
 * The buffer the walk is at (entry @from's, and every entry after it that
 * continues it) is filled in entry order, and what lies past the values
 * written in it is unspecified: the files there are read straight to where
 * the sizes of the values before them say they go. That holds as long as
 * nothing of unknown length comes between (another group, a symlink, a
 * procfs file), and unless the buffer overlaps another entry's (the walk
 * writes in entry order, io_uring does not). Every other file is staged:
 * an entry that makes a buffer of its own may never be reached, if the
 * call stops on an overflow before it, and its buffer must then be left
 * untouched.
 */
static void gv_batch_plan(struct gv_ctx *ctx, size_t from,
			  const struct gv_out *out, struct gv_batch *b)
{
	const struct name_val *vec = ctx->vec;
	size_t num = ctx->nreqs, setter = from;
	size_t room_bound = out->room;	/* most room a value can have */
	bool chain;

	/* the entry that made entry @from's buffer the current one */
	while (setter > 0 && !vec[setter].value_in.iov_base)
		setter--;
	b->pred_end = gv_end(out->dst, out->room);
	chain = !gv_overlaps_other(vec, num, out->dst, b->pred_end, setter);
	b->pred = chain ? out->dst : 0;
	for (size_t i = from; i < num; i++) {
		struct gv_job *j = &b->jobs[b->njobs];

		if (i > from && vec[i].value_in.iov_base) {
			room_bound = vec[i].value_in.iov_len;
			chain = false;
		}
		if (!gv_data_is_file(&ctx->reqs[i])) {
			chain = false;
			continue;
		}
		*j = (struct gv_job){
			.idx = i, .path = ctx->reqs[i].arg, .fd = -1,
			.room = room_bound, .chain = chain, .expect = -1,
		};
		b->of[i - from] = j;
		b->njobs++;
	}
}

/* Whether @path has the component @name. */
static bool gv_has_component(const char *path, const char *name)
{
	size_t len = strlen(name);

	for (const char *c = path; c; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (!strncmp(c, name, len) && (!c[len] || c[len] == '/'))
			return true;
	}
	return false;
}

/*
 * Files the ring must leave to data.c, opened by name on procfs and the
 * like (GV_DATA_TRY):
 *   - a name with a "self" or "thread-self" component: a cached lookup
 *     (RESOLVE_CACHED) cannot follow those links, the open would fail;
 *   - a name of a procfs symlink (gv_data_proc_link()): the ring's open,
 *     O_NOFOLLOW, would fail, and data.c would do it all again;
 *   - procfs's kmsg, the one file of those file systems whose read, with
 *     O_NONBLOCK, gives EAGAIN (Linux 6.12: fs/proc/kmsg.c): io_uring
 *     counts O_NONBLOCK as "may retry" on a file it can poll, and would
 *     wait for the next kernel message (io_uring/rw.c, __io_read()).
 */
bool gv_uring_refuses(struct gv_ctx *ctx, const char *path)
{
	const struct statfs *sfs;

	if (gv_has_component(path, "thread-self") ||
	    gv_has_component(path, "self") || gv_data_proc_link(ctx, path))
		return true;
	return !strcmp(path, "kmsg") && !gv_origin_statfs(ctx, &sfs) &&
	       (uint32_t)sfs->f_type == PROC_SUPER_MAGIC;
}

/*
 * SPEC v2: EMFILE exactly where open(2) would give it. A direct open takes
 * no descriptor, so whether one is free is asked once per batch, the way
 * the kernel would: by taking one and giving it back.
 */
static int gv_direct_allowed(struct gv_ctx *ctx, struct gv_batch *b)
{
	int fd;

	if (!b->direct_checked) {
		fd = fcntl(ctx->origin, F_DUPFD_CLOEXEC, 0);
		b->direct_err = fd < 0 ? -errno : 0;
		gv_fd_close(gv_fd_own(fd));
		b->direct_checked = true;
	}
	return b->direct_err;
}

/* gv_data_open() of @j, or -EGV_SYNC: a file the ring leaves to data.c. */
static int gv_job_kind(struct gv_ctx *ctx, struct gv_batch *b,
		       struct gv_job *j, struct gv_data_file *f)
{
	int kind = gv_data_open(ctx, j->path, f);

	/*
	 * An open file that says it is empty is either empty (data.c reads
	 * it with one read) or one whose reads make its data, a trace pipe
	 * that the ring would wait on as on kmsg (see gv_uring_refuses()).
	 */
	if (kind == GV_DATA_FILE && f->size == 0) {
		gv_fd_close(f->fd);
		kind = -EGV_SYNC;
	}
	if (kind == GV_DATA_TRY) {
		if (gv_uring_refuses(ctx, j->path))
			kind = -EGV_SYNC;
		else if (gv_direct_allowed(ctx, b))
			kind = gv_direct_allowed(ctx, b);
	}
	return kind;
}

/* Place @j where the chain predicts it, and predict where the next goes. */
static void gv_job_predict(struct gv_batch *b, struct gv_job *j, int kind,
			   const struct gv_data_file *f)
{
	if (j->chain && b->pred) {
		j->placed = true;
		j->dst = (char *)b->pred;
		j->room = b->pred_end - b->pred;
		j->len = j->room < GV_READ_MAX ? j->room : GV_READ_MAX;
	}
	/*
	 * The next value of the buffer goes after this one, if it fits. A
	 * file that says it is empty may be one whose reads make its data
	 * (a trace pipe): no prediction from that.
	 */
	if (kind == GV_DATA_FILE && f->size > 0 &&
	    (size_t)f->size < j->room && j->placed)
		j->expect = f->size;
	if (kind < 0 && kind != -EMFILE && kind != -ENFILE &&
	    kind != -ENOMEM && kind != -EGV_SYNC) {
		/* an error: the value takes no room */
	} else if (j->expect >= 0) {
		b->pred += j->expect;
	} else {
		b->pred = 0;
	}
}

/*
 * Stage @j, of @size bytes (-1: unknown): the size and one byte more, so
 * that its end shows, and never more than the buffer could take. Files of
 * unknown size (procfs) get a page, and if that is not all, data.c reads
 * them again; so do files bigger than GV_STAGE_MAX, and values with no
 * room at all (they overflow, which data.c tells best). False: left to
 * data.c, its descriptor closed.
 */
static bool gv_job_stage(struct gv_ring *r, struct gv_batch *b,
			 struct gv_job *j, int64_t size)
{
	size_t want = size >= 0 ? (size_t)size + 1 : 4096;

	if (want > j->room)
		want = j->room;
	if (want <= GV_STAGE_MAX) {
		j->len = want;
		j->dst = gv_stage_alloc(r, b, want);
		if (j->dst)
			return true;
	}
	gv_fd_close(j->fd);
	j->fd = -1;
	j->direct = false;
	return false;
}

/*
 * Open the file of @j as data.c would, and size its read. Returns false
 * when the ring has nothing to do for it: an error (kept, data.c would get
 * the same), a symlink, a file too big to stage, no memory or descriptors
 * left (data.c will do those, one at a time).
 */
static bool gv_job_open(struct gv_ring *r, struct gv_ctx *ctx,
			struct gv_batch *b, struct gv_job *j)
{
	struct gv_data_file f;
	int kind = gv_job_kind(ctx, b, j, &f);

	gv_job_predict(b, j, kind, &f);
	switch (kind) {
	case GV_DATA_FILE:
		j->fd = f.fd;
		break;
	case GV_DATA_TRY:
		j->direct = true;
		break;
	case GV_DATA_LINK:
		gv_fd_close(f.fd);
		return false;
	case -EMFILE: case -ENFILE: case -ENOMEM: case -EGV_SYNC:
		return false;
	default:
		j->state = GV_JOB_ERROR;
		j->err = kind;
		return false;
	}
	return j->placed || gv_job_stage(r, b, j, f.size);
}

/*
 * Queue the requests of @j (job number @k): first what puts its file into
 * its direct slot (an openat2 on procfs and the like, else a files update
 * with the descriptor open.c opened), linked, so that its failure cancels
 * the rest; then the two reads; a close of the slot at the end. (Not
 * IOSQE_CQE_SKIP_SUCCESS on it: a failed request with it also hides the
 * completions of the ones it cancels, and the count of completions would
 * depend on the outcome.)
 */
static bool gv_prep_chain(struct gv_ring *r, int origin, struct gv_job *j,
			  size_t k)
{
	static const struct open_how how = {
		/* as open.c opens, but O_CLOEXEC is not for direct slots */
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV | RESOLVE_CACHED,
	};
	struct io_uring_sqe *sqe;

	/* a chain must not be split by a submission: room for all of it */
	if (io_uring_sq_space_left(&r->ring) < 4 && gv_ring_submit(r))
		return false;
	sqe = io_uring_get_sqe(&r->ring);
	if (j->direct)
		io_uring_prep_openat2_direct(sqe, origin, j->path,
					     (struct open_how *)&how, j->slot);
	else	/* fget() of the number now, in this thread */
		io_uring_prep_files_update(sqe, &j->fd, 1, (int)j->slot);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = gv_tag(j->slot, GV_OP_OPEN, k);

	sqe = io_uring_get_sqe(&r->ring);
	io_uring_prep_read(sqe, (int)j->slot, j->dst, j->len, -1);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
	sqe->user_data = gv_tag(j->slot, GV_OP_READ, k);

	sqe = io_uring_get_sqe(&r->ring);
	io_uring_prep_read(sqe, (int)j->slot, &j->eof_byte, 1, -1);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
	sqe->user_data = gv_tag(j->slot, GV_OP_EOF, k);

	sqe = io_uring_get_sqe(&r->ring);
	io_uring_prep_close_direct(sqe, j->slot);
	sqe->user_data = gv_tag(j->slot, GV_OP_CLOSE, k);
	j->owed = 4;
	return true;
}

/* Collect the completions that arrived; returns the number of jobs done. */
static size_t gv_batch_reap(struct gv_ring *r, struct gv_batch *b,
			    unsigned int *slots, unsigned int *nslots,
			    uint64_t *unclosed, unsigned int *owed)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	size_t done = 0;

	io_uring_for_each_cqe(&r->ring, head, cqe) {
		uint32_t k = (uint32_t)cqe->user_data;
		unsigned int slot = cqe->user_data >> 40;
		struct gv_job *j;

		seen++;
		if (k >= b->njobs)
			continue;	/* a close of a slot, below */
		j = &b->jobs[k];
		switch ((cqe->user_data >> 32) & 0xff) {
		case GV_OP_OPEN:
			j->res_open = cqe->res;
			break;
		case GV_OP_READ:
			j->res_read = cqe->res;
			break;
		case GV_OP_EOF:
			j->res_eof = cqe->res;
			break;
		case GV_OP_CLOSE:
			/*
			 * Cancelled means the open failed and the slot is
			 * empty. An open into a slot that still holds a file
			 * replaces (and closes) it, so the slot is free
			 * either way; a close that failed is tried again at
			 * the end all the same.
			 */
			if (cqe->res < 0 && cqe->res != -ECANCELED)
				*unclosed |= 1ull << slot;
			else
				*unclosed &= ~(1ull << slot);
			break;
		}
		(*owed)--;
		if (--j->owed)
			continue;
		j->done = true;
		done++;
		slots[(*nslots)++] = j->slot;
		if (!j->direct && (j->res_eof != 1 || j->placed)) {
			gv_fd_defer(b->closing, j->fd);
			j->fd = -1;
		}	/* else batch_get reads on from it */
	}
	io_uring_cq_advance(&r->ring, seen);
	return done;
}

/*
 * Open and read every job's file, GV_URING_SLOTS files in flight. Opening
 * (open.c's checks, in system calls) goes on while the ring reads what is
 * already open, and what is ready is submitted every GV_URING_SUBMIT files,
 * so that cold reads start early. Every request posts its completion, done
 * or cancelled, so waiting for up to the number still owed never hangs.
 */
static void gv_batch_run(struct gv_ring *r, struct gv_ctx *ctx,
			 struct gv_batch *b)
{
	unsigned int slots[GV_URING_SLOTS], nslots = 0, owed = 0, queued = 0;
	uint64_t unclosed = 0;
	size_t next = 0, inflight = 0;

	io_uring_cq_advance(&r->ring, io_uring_cq_ready(&r->ring));
	for (unsigned int s = r->slots; s-- > 0;)
		slots[nslots++] = s;
	while (next < b->njobs || inflight) {
		unsigned int want;

		while (next < b->njobs && inflight < GV_URING_SLOTS &&
		       nslots) {
			struct gv_job *j = &b->jobs[next];

			if (gv_job_open(r, ctx, b, j)) {
				j->slot = slots[--nslots];
				if (!gv_prep_chain(r, ctx->origin, j, next)) {
					b->lost = inflight > 0;
					return;
				}
				owed += j->owed;
				inflight++;
				if (++queued == GV_URING_SUBMIT) {
					if (gv_ring_submit(r)) {
						b->lost = true;
						return;
					}
					queued = 0;
				}
			}
			next++;
		}
		if (!inflight)
			break;
		want = owed;
		if (next < b->njobs && want > GV_URING_SLOTS)
			want = GV_URING_SLOTS;	/* a quarter done: refill */
		queued = 0;
		if (gv_ring_wait(r, want)) {
			/*
			 * The ring cannot be entered any more (ring.c says
			 * why). Chains in flight are lost to us; data.c reads
			 * every file that is not done.
			 */
			b->lost = true;
			return;
		}
		inflight -= gv_batch_reap(r, b, slots, &nslots, &unclosed,
					  &owed);
	}
	for (unsigned int s = 0; unclosed; s++, unclosed >>= 1) {
		struct io_uring_sqe *sqe;

		if (!(unclosed & 1) || !(sqe = gv_ring_sqe(r)))
			continue;
		io_uring_prep_close_direct(sqe, s);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		sqe->user_data = gv_tag(s, GV_OP_CLOSE, UINT32_MAX);
		gv_ring_wait(r, 0);
	}
}

/*
 * What the sync path would make of what the chain got. A read that would
 * block ends the value (EAGAIN, as in data.c). A file with more to read
 * than the first read took (the second read got its byte) goes on in
 * batch_get from its descriptor, still open; a placed one, or one opened
 * by the ring, is read again by data.c.
 */
static void gv_job_judge(struct gv_job *j)
{
	int res_read = j->res_read == -EAGAIN ? 0 : j->res_read;
	int res_eof = j->res_eof == -EAGAIN ? 0 : j->res_eof;

	if (j->state == GV_JOB_ERROR)
		return;
	j->state = GV_JOB_SYNC;
	if (!j->done || j->res_open < 0 || res_read < 0)
		return;
	j->n = (size_t)res_read;
	if (j->n == j->len)
		j->state = GV_JOB_FULL;
	else if (res_eof == 0 && (j->expect < 0 || j->n == (size_t)j->expect))
		j->state = GV_JOB_VALUE;
	/*
	 * A file that is not the size its place was predicted with may have
	 * run into the next file's place, read at the same time: data.c
	 * reads it again (and the places of those after it are wrong, which
	 * the walk's placement check sees).
	 */
}

/*
 * Judge every job. The placed reads of a buffer ran at the same time, each
 * allowed to the end of the buffer: one that read more than its file was
 * predicted to hold wrote over the places after its own, perhaps after
 * those reads had landed there, so their results cannot be trusted either.
 */
static void gv_batch_judge(struct gv_batch *b)
{
	bool overran = false;

	for (size_t k = 0; k < b->njobs; k++) {
		struct gv_job *j = &b->jobs[k];

		gv_job_judge(j);
		if (!j->placed || j->state == GV_JOB_ERROR)
			continue;
		if (overran)
			j->state = GV_JOB_SYNC;
		else if (j->state != GV_JOB_VALUE)
			overran = true;
	}
}

int gv_uring_batch_fetch(struct gv_ctx *ctx, size_t from,
			 const struct gv_out *out, struct gv_batch **batch)
{
	size_t num = ctx->nreqs;
	struct gv_batch *b;
	struct gv_ring *r;
	int err = 0;

	r = gv_ring_get(&err);
	if (!r)
		return err;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->from = from;
	b->num = num;
	b->closing = &ctx->closing;
	b->of = calloc(num - from, sizeof(*b->of));
	b->jobs = calloc(num - from, sizeof(*b->jobs));
	if (!b->of || !b->jobs) {
		gv_uring_batch_free(b);
		return -ENOMEM;
	}
	gv_batch_plan(ctx, from, out, b);
	r->busy = true;
	gv_batch_run(r, ctx, b);
	r->busy = false;
	gv_batch_judge(b);
	*batch = b;
	return 0;
}

int gv_uring_batch_get(struct gv_batch *b, size_t i, struct gv_out *out)
{
	struct gv_job *j;
	int err;

	if (i < b->from || i >= b->num)
		return -EGV_SYNC;
	j = b->of[i - b->from];
	if (!j)
		return -EGV_SYNC;
	if (j->placed &&
	    ((uintptr_t)j->dst != out->dst || j->room != out->room))
		return -EGV_SYNC;	/* not where it was read to */
	switch (j->state) {
	case GV_JOB_ERROR:
		return j->err;
	case GV_JOB_VALUE:
		if (j->placed)
			return gv_out_direct_done(out, j->n);
		return gv_put(out, j->dst, j->n);
	case GV_JOB_FULL:
		/*
		 * At least len bytes, and no room for them: EOVERFLOW, or
		 * EFAULT if the part that fits cannot be written (as in
		 * data.c, the write decides).
		 */
		if (j->len >= out->room)
			return j->placed ? -EOVERFLOW :
				gv_put(out, j->dst, j->n);
		break;
	}
	if (j->done && j->res_eof == 1 && j->fd >= 0) {
		/* the rest of the file, from where the ring left it */
		err = gv_put(out, j->dst, j->n);
		if (!err)
			err = gv_put(out, &j->eof_byte, 1);
		if (!err)
			err = gv_put_read(out, j->fd, false);
		gv_fd_close(j->fd);
		j->fd = -1;
		return err;
	}
	return -EGV_SYNC;
}

/* Tests: how many slots of this thread's ring hold a file (closing them). */
int gv_uring_busy_slots(void)
{
	struct gv_ring *r;
	int busy = 0, err;

	r = gv_ring_get(&err);
	if (!r)
		return 0;
	for (unsigned int s = 0; s < r->slots; s++) {
		struct io_uring_sqe *sqe = gv_ring_sqe(r);
		struct io_uring_cqe *cqe;

		if (!sqe)
			break;
		io_uring_prep_close_direct(sqe, s);
		if (gv_ring_wait(r, 1) || io_uring_wait_cqe(&r->ring, &cqe))
			break;
		busy += cqe->res == 0;
		io_uring_cqe_seen(&r->ring, cqe);
	}
	return busy;
}
