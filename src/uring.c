// SPDX-License-Identifier: MIT
/*
 * uring.c - the io_uring backend: the data: files of a getvalues() call,
 * and readfile(), read, checked for end of file and closed as linked
 * io_uring requests, many files in flight at once, with a handful of
 * io_uring_enter() calls.
 *
 * What is opened, and how, is exactly what data.c opens, and data.c opens
 * it: gv_data_open() pins the last component with an O_PATH descriptor,
 * takes the type from that inode and reopens a regular file through
 * /proc/self/fd, so that nothing but a regular file is ever opened, even
 * when a rename swaps a FIFO in. That cannot be done in the ring: a direct
 * descriptor cannot be looked at or reopened, and io_uring hands an open
 * through the /proc/self/fd magic link to a worker thread (11-25 us instead
 * of 5). So each file is opened in system calls while the ring reads the
 * files already open:
 *
 *   read -> read 1 byte -> close
 *     HARDLINK  HARDLINK
 *
 * The reads are hard-linked, so that a short read (which io_uring counts
 * as a failure) still lets the close run. The second read proves end of
 * file: the sync path reads until read(2) returns 0, and a procfs or sysfs
 * file may well return less than asked before its end. On procfs, sysfs
 * and cgroupfs, which hold no special files, data.c opens by name and so
 * does the ring: an openat2 with RESOLVE_IN_ROOT | RESOLVE_NO_XDEV into a
 * direct descriptor (a slot of the ring's registered file table), linked
 * in front of the same three.
 *
 * Where the bytes go. The first entry of the batch is the one the walk is
 * at: its place in the caller's buffer is known, and so are the places of
 * the files after it in the same buffer, from the sizes statx gave for the
 * files before them: those are read straight there (see gv_batch_plan()).
 * Every other file is read into library memory and copied by the walk
 * like any staged value: a call that stops on an overflow must leave the
 * buffers of later entries untouched, which a read ahead into them would
 * not. A result
 * that cannot be judged exactly as the sync path would (an error, a value
 * larger than what was read) is dropped and the entry fetched again by
 * data.c, so values, errors and overflows are those of the sync backend by
 * construction.
 *
 * Rings. One per thread, made at its first use and kept: the sparse file
 * table is registered once, the ring's own descriptor is registered with
 * the ring and then closed (so no descriptor survives a call), and its
 * memory is MADV_DONTFORK. A child after fork() sees a new fork generation
 * and builds its own ring without touching the parent's. io_uring that is
 * missing, disabled (io_uring_disabled), filtered by seccomp (EPERM, ENOSYS)
 * or lacking an opcode makes the probe fail: auto then never uses it and a
 * forced uring gets ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define GV_URING_SLOTS	64		/* files in flight */
#define GV_URING_SQES	(4 * GV_URING_SLOTS)	/* up to four a file */
#define GV_STAGE_MAX	(1u << 20)	/* largest value staged in the batch */
#define GV_STAGE_TOTAL	(32u << 20)	/* staging memory of one batch */
#define GV_STAGE_KEEP	(1u << 20)	/* staging memory a thread keeps */
#define GV_URING_SUBMIT	8		/* files opened, then submitted */
#define GV_READ_MAX	(1u << 30)	/* one read request */

/* What a completion is about: user_data = slot << 40 | op << 32 | job. */
enum gv_op {
	GV_OP_OPEN, GV_OP_READ, GV_OP_EOF, GV_OP_CLOSE, GV_OP_POLL, GV_OP_CANCEL,
};

struct gv_ring {
	struct io_uring ring;
	unsigned long gen;		/* fork generation it belongs to */
	bool ready;
	bool busy;			/* a signal handler must not reenter */
	bool broken;			/* io_uring_enter() failed for good */
	char eof_byte;			/* the second read's target */
	/*
	 * Staging memory kept from call to call: freeing it gives it back to
	 * the kernel (brk), and taking it again costs page faults each call.
	 */
	char *stage;			/* GV_STAGE_KEEP bytes */
	bool stage_busy;		/* a batch of this thread holds it */
};

static __thread struct gv_ring gv_tring;
static unsigned long gv_fork_gen;
static pthread_key_t gv_ring_key;
static pthread_once_t gv_ring_once = PTHREAD_ONCE_INIT;
/* io_uring refused this process (seccomp, disabled): -errno, else 0 */
static int gv_uring_refused;

/* ---- rings ---- */

static void gv_ring_unmap(struct io_uring *ring)
{
	munmap(ring->sq.sqes, ring->sq.ring_entries *
	       sizeof(struct io_uring_sqe));
	if (ring->cq.ring_ptr && ring->cq.ring_ptr != ring->sq.ring_ptr)
		munmap(ring->cq.ring_ptr, ring->cq.ring_sz);
	munmap(ring->sq.ring_ptr, ring->sq.ring_sz);
}

/*
 * Thread exit. The registered ring descriptor goes away with the thread
 * (the kernel drops a task's registered rings when it exits); the memory
 * maps are ours to undo.
 */
static void gv_ring_destroy(void *arg)
{
	struct gv_ring *r = arg;

	if (r->ready &&
	    r->gen == __atomic_load_n(&gv_fork_gen, __ATOMIC_RELAXED))
		gv_ring_unmap(&r->ring);
	free(r->stage);
	memset(r, 0, sizeof(*r));
}

/* In a fork()ed child: the parent's rings are not ours (nor mapped). */
static void gv_uring_atfork_child(void)
{
	__atomic_add_fetch(&gv_fork_gen, 1, __ATOMIC_RELAXED);
}

static void gv_ring_init_once(void)
{
	pthread_key_create(&gv_ring_key, gv_ring_destroy);
	pthread_atfork(NULL, NULL, gv_uring_atfork_child);
}

/* The opcodes the chains use; a kernel without one of them cannot help. */
static int gv_ring_check_ops(struct io_uring *ring)
{
	static const int ops[] = {
		IORING_OP_OPENAT, IORING_OP_OPENAT2, IORING_OP_READ,
		IORING_OP_CLOSE, IORING_OP_POLL_ADD,
	};
	struct io_uring_probe *probe = io_uring_get_probe_ring(ring);
	int err = 0;

	if (!probe)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < GV_ARRAY_SIZE(ops); i++)
		if (!io_uring_opcode_supported(probe, ops[i]))
			err = -EOPNOTSUPP;
	io_uring_free_probe(probe);
	return err;
}

/*
 * Whether a file closed through a direct descriptor is let go at once, as
 * close(2) lets it go. Linux 6.1 and older put the files taken out of the
 * table from a delayed work item, up to a second later (io_rsrc_put_work):
 * a getvalues() call would leave its files open behind it, a FIFO with a
 * reader, a mount busy. Seen from a pipe: once its last reader is gone,
 * poll(2) on the write end says POLLERR.
 */
static int gv_ring_check_close(struct io_uring *ring)
{
	char path[64];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct pollfd pfd;
	int p[2], res, err;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, path,
				    O_RDONLY | O_NONBLOCK, 0, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_close_direct(sqe, 0);
	err = io_uring_submit_and_wait(ring, 2);
	close(p[0]);
	res = 0;
	for (int i = 0; i < 2 && err >= 0; i++) {
		err = io_uring_wait_cqe(ring, &cqe);
		if (!err && cqe->res < 0)
			res = cqe->res;
		if (!err)
			io_uring_cqe_seen(ring, cqe);
	}
	pfd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	if (err >= 0 && !res && poll(&pfd, 1, 0) == 1 &&
	    !(pfd.revents & POLLERR))
		res = -EOPNOTSUPP;	/* the reader is still there */
	close(p[1]);
	/* without /proc this cannot be told: nor can the pinned lookups work */
	return err < 0 ? err : res == -ENOENT ? -EOPNOTSUPP : res;
}

/*
 * A new ring for this thread. The newest setup flags first (6.1: a ring
 * only this thread submits to, completions run when it waits), then the
 * 5.18 set. IORING_SETUP_SUBMIT_ALL keeps a bad request from stopping the
 * submission of the chains after it; direct descriptors need 5.15, skipped
 * completions 5.17 and registered ring descriptors 5.18.
 */
static int gv_ring_setup(struct io_uring *ring)
{
	static const unsigned int flag_sets[] = {
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SUBMIT_ALL,
	};
	const unsigned int need = IORING_FEAT_NODROP | IORING_FEAT_RW_CUR_POS |
				  IORING_FEAT_CQE_SKIP;
	struct io_uring_params p;
	int err = -EINVAL;

	for (size_t i = 0; i < GV_ARRAY_SIZE(flag_sets) && err == -EINVAL;
	     i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flag_sets[i];
		err = io_uring_queue_init_params(GV_URING_SQES, ring, &p);
	}
	if (err)
		return err;
	if ((p.features & need) != need)
		err = -EOPNOTSUPP;
	if (!err)
		err = gv_ring_check_ops(ring);
	if (!err)
		err = io_uring_ring_dontfork(ring);
	if (!err)
		err = io_uring_register_files_sparse(ring, GV_URING_SLOTS);
	if (!err)
		err = gv_ring_check_close(ring);
	if (!err) {
		err = io_uring_register_ring_fd(ring);
		if (err == 1)
			err = 0;
		else if (err >= 0)
			err = -EOPNOTSUPP;
	}
	close(ring->ring_fd);
	ring->ring_fd = -1;
	if (err)
		gv_ring_unmap(ring);
	return err;
}

/*
 * This thread's ring, made on first use. NULL with *@err when there is
 * none; EPERM or ENOSYS from io_uring_setup() (seccomp, io_uring_disabled)
 * and a missing feature stop every later attempt in this process.
 */
static struct gv_ring *gv_ring_get(int *err)
{
	struct gv_ring *r = &gv_tring;
	unsigned long gen = __atomic_load_n(&gv_fork_gen, __ATOMIC_RELAXED);

	if (r->ready && r->gen != gen) {
		/* made by our parent before fork(): not mapped here */
		free(r->stage);
		memset(r, 0, sizeof(*r));
	}
	if (r->busy || r->broken) {
		/* in use by the code a signal handler interrupted */
		*err = r->broken ? -EIO : -EBUSY;
		return NULL;
	}
	if (r->ready)
		return r;
	*err = __atomic_load_n(&gv_uring_refused, __ATOMIC_RELAXED);
	if (*err)
		return NULL;
	pthread_once(&gv_ring_once, gv_ring_init_once);
	/* the ring's descriptor exists for a moment: keep fork() out */
	gv_fork_guard_enter();
	r->busy = true;
	*err = gv_ring_setup(&r->ring);
	r->busy = false;
	gv_fork_guard_leave();
	if (*err) {
		if (*err == -EPERM || *err == -ENOSYS || *err == -EOPNOTSUPP)
			__atomic_store_n(&gv_uring_refused, -ENOSYS,
					 __ATOMIC_RELAXED);
		return NULL;
	}
	r->gen = gen;
	r->ready = true;
	pthread_setspecific(gv_ring_key, r);
	return r;
}

static int gv_uring_probe(void)
{
	int err = 0;

	/* EBUSY: a signal handler probes while this thread makes its ring */
	return gv_ring_get(&err) || err == -EBUSY ? 0 : err;
}

/* The next free SQE; submits what is queued when the ring is full. */
static struct io_uring_sqe *gv_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	while (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	return sqe;
}

static inline uint64_t gv_tag(unsigned int slot, enum gv_op op, size_t job)
{
	return (uint64_t)slot << 40 | (uint64_t)op << 32 | (uint32_t)job;
}

/*
 * Submit what is queued and wait for @want completions. An interrupted
 * wait is retried, unless @intr: then -EINTR comes back, as read(2) gives
 * it (io_uring_enter() restarts by itself for SA_RESTART handlers).
 * Nothing returns to the caller before the requests in flight are done:
 * they write into the caller's memory.
 */
static int gv_ring_wait(struct io_uring *ring, unsigned int want, bool intr)
{
	int ret;

	do
		ret = io_uring_submit_and_wait(ring, want);
	while ((ret == -EINTR && !intr) || ret == -EAGAIN || ret == -EBUSY);
	return ret < 0 ? ret : 0;
}

/* ---- getvalues(): the data: files of a call as one batch ---- */

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
	bool direct;		/* opened by the ring into a direct slot */
	bool closed;		/* the chain is over */
	int fd;			/* opened by data.c, closed by the ring */
	int state;
	int err;
	int res_open, res_read, res_eof;
	int64_t expect;		/* placed by a prediction made with this */
	size_t n;
};

struct gv_batch {
	size_t from, num;
	/* where the next value of the walk's buffer will go, 0: unknown */
	uintptr_t pred, pred_end;
	struct gv_job **of;	/* entry from + k -> its job, or NULL */
	struct gv_job *jobs;
	size_t njobs;
	/* staging memory: the ring's own, then chunks of our own */
	struct gv_ring *kept;
	char **chunks;
	size_t nchunks;
	char *cur;
	size_t cur_left, staged;
};

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

static void gv_batch_free(struct gv_batch *b)
{
	if (!b)
		return;
	for (size_t k = 0; k < b->njobs; k++)
		if (b->jobs[k].fd >= 0)
			close(b->jobs[k].fd);	/* only if a ring broke */
	for (size_t k = 0; k < b->nchunks; k++)
		free(b->chunks[k]);
	free(b->chunks);
	if (b->kept)
		b->kept->stage_busy = false;
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

	if (b->staged + len > GV_STAGE_TOTAL)
		return NULL;
	if (len > b->cur_left) {
		if (!b->kept && !r->stage_busy &&
		    (r->stage || (r->stage = malloc(GV_STAGE_KEEP)))) {
			r->stage_busy = true;
			b->kept = r;
			b->cur = r->stage;
			b->cur_left = GV_STAGE_KEEP;
		} else {
			size_t size = GV_STAGE_KEEP;
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
	int kind = gv_data_open(ctx, j->path, &f);
	size_t want;

	if (j->chain && b->pred) {
		j->placed = true;
		j->dst = (char *)b->pred;
		j->room = b->pred_end - b->pred;
		j->len = j->room < GV_READ_MAX ? j->room : GV_READ_MAX;
	}
	/* the next value of the buffer goes after this one, if it fits */
	if (kind == GV_DATA_FILE && f.size >= 0 && (size_t)f.size < j->room &&
	    j->placed)
		j->expect = f.size;
	if (kind < 0 && kind != -EMFILE && kind != -ENFILE &&
	    kind != -ENOMEM) {
		/* an error: the value takes no room */
	} else if (j->expect >= 0) {
		b->pred += j->expect;
	} else {
		b->pred = 0;
	}

	switch (kind) {
	case GV_DATA_FILE:
		j->fd = f.fd;
		break;
	case GV_DATA_TRY:
		j->direct = true;
		break;
	case GV_DATA_LINK:
		close(f.fd);
		return false;
	case -EMFILE: case -ENFILE: case -ENOMEM:
		return false;
	default:
		j->state = GV_JOB_ERROR;
		j->err = kind;
		return false;
	}
	if (j->placed)
		return true;
	/*
	 * Staged: the file's size and one byte more, so that its end shows,
	 * and never more than the buffer could take. Files of unknown size
	 * (procfs) get a page, and if that is not all, data.c reads them
	 * again; so do files bigger than GV_STAGE_MAX.
	 */
	want = f.size >= 0 ? (size_t)f.size + 1 : 4096;
	if (want > j->room)
		want = j->room;
	if (want <= GV_STAGE_MAX) {
		j->len = want;
		j->dst = gv_stage_alloc(r, b, want);
		if (j->dst || !want)
			return true;
	}
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	return false;
}

/*
 * The requests of @j, in flight under @token. A file data.c opened: read,
 * one-byte read, close, the reads hard-linked so that a short read (which
 * io_uring counts as a failure) still lets the close run. On procfs and
 * the like (no special files there): first an openat2 into the direct
 * slot @token, linked, so that a failed open cancels the rest. (Not
 * IOSQE_CQE_SKIP_SUCCESS on it: a failed request with it also hides the
 * completions of the ones it cancels, and the count of completions would
 * depend on the outcome.)
 */
static unsigned int gv_prep_chain(struct gv_ring *r, int origin,
				  struct gv_job *j, size_t job,
				  unsigned int token)
{
	static const struct open_how how = {
		/* as data.c opens, but O_CLOEXEC is not for direct slots */
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV,
	};
	struct io_uring *ring = &r->ring;
	unsigned int fixed = j->direct ? IOSQE_FIXED_FILE : 0;
	int fd = j->direct ? (int)token : j->fd;
	struct io_uring_sqe *sqe;

	if (j->direct) {
		sqe = gv_sqe(ring);
		io_uring_prep_openat2_direct(sqe, origin, j->path,
					     (struct open_how *)&how, token);
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = gv_tag(token, GV_OP_OPEN, job);
	}

	sqe = gv_sqe(ring);
	io_uring_prep_read(sqe, fd, j->dst, j->len, -1);
	sqe->flags |= fixed | IOSQE_IO_HARDLINK;
	sqe->user_data = gv_tag(token, GV_OP_READ, job);

	sqe = gv_sqe(ring);
	io_uring_prep_read(sqe, fd, &r->eof_byte, 1, -1);
	sqe->flags |= fixed | IOSQE_IO_HARDLINK;
	sqe->user_data = gv_tag(token, GV_OP_EOF, job);

	sqe = gv_sqe(ring);
	if (j->direct)
		io_uring_prep_close_direct(sqe, token);
	else
		io_uring_prep_close(sqe, fd);
	sqe->user_data = gv_tag(token, GV_OP_CLOSE, job);
	return j->direct ? 4 : 3;
}

/* Forget completions nobody waits for (failures of skipped requests). */
static void gv_ring_drain(struct io_uring *ring)
{
	io_uring_cq_advance(ring, io_uring_cq_ready(ring));
}

/*
 * Open and read every job's file, GV_URING_SLOTS files in flight. Opening
 * (data.c's checks, in system calls) goes on while the ring reads what is
 * already open, and what is ready is submitted every GV_URING_SUBMIT files,
 * so that cold reads start early. Every request posts its completion, done
 * or cancelled, so waiting for up to the number still owed never hangs.
 * Once everything is submitted one wait collects the rest.
 */
static void gv_batch_run(struct gv_ring *r, struct gv_ctx *ctx,
			 struct gv_batch *b)
{
	unsigned int token[GV_URING_SLOTS], ntok = 0, owed = 0, queued = 0;
	uint64_t unclosed = 0;
	struct io_uring *ring = &r->ring;
	size_t next = 0, inflight = 0;

	gv_ring_drain(ring);
	for (unsigned int s = GV_URING_SLOTS; s-- > 0;)
		token[ntok++] = s;
	while (next < b->njobs || inflight) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0, want;

		while (ntok && next < b->njobs) {
			struct gv_job *j = &b->jobs[next];

			if (gv_job_open(r, ctx, b, j)) {
				owed += gv_prep_chain(r, ctx->origin, j, next,
						      token[--ntok]);
				inflight++;
				if (++queued == GV_URING_SUBMIT) {
					io_uring_submit(ring);
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
		if (gv_ring_wait(ring, want, false)) {
			/*
			 * Not one of the errors a working ring gives. Chains
			 * in flight are lost to us: give up on this ring (a
			 * new one is not made either), and let data.c read
			 * every file that is not done.
			 */
			r->broken = true;
			return;
		}
		io_uring_for_each_cqe(ring, head, cqe) {
			uint32_t k = (uint32_t)cqe->user_data;
			unsigned int slot = cqe->user_data >> 40;
			struct gv_job *j;

			seen++;
			if (k >= next)
				continue;
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
				 * A direct slot: cancelled means the open
				 * failed and the slot is empty. An open into
				 * a slot that still holds a file replaces
				 * (and closes) it, so the slot is free
				 * either way; a close that failed is tried
				 * again below all the same. A descriptor:
				 * close(2) lets go of it whatever it says.
				 */
				if (j->direct && cqe->res < 0 &&
				    cqe->res != -ECANCELED)
					unclosed |= 1ull << slot;
				else if (j->direct)
					unclosed &= ~(1ull << slot);
				j->fd = -1;
				j->closed = true;
				token[ntok++] = slot;
				inflight--;
				break;
			}
			owed--;
		}
		io_uring_cq_advance(ring, seen);
	}
	for (unsigned int s = 0; unclosed; s++, unclosed >>= 1) {
		struct io_uring_sqe *sqe;

		if (!(unclosed & 1))
			continue;
		sqe = gv_sqe(ring);
		io_uring_prep_close_direct(sqe, s);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		sqe->user_data = gv_tag(s, GV_OP_CLOSE, UINT32_MAX);
		gv_ring_wait(ring, 0, false);
	}
}

/* What the sync path would make of what the chain got. */
static void gv_job_judge(struct gv_job *j)
{
	if (j->state == GV_JOB_ERROR)
		return;
	j->state = GV_JOB_SYNC;
	if (!j->closed || j->res_open < 0 || j->res_read < 0)
		return;
	j->n = (size_t)j->res_read;
	if (j->n == j->len)
		j->state = GV_JOB_FULL;
	else if (j->res_eof == 0 && (j->expect < 0 || j->n == (size_t)j->expect))
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

static int gv_uring_batch_fetch(struct gv_ctx *ctx, size_t from,
				const struct gv_out *out,
				struct gv_batch **batch)
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
	b->of = calloc(num - from, sizeof(*b->of));
	b->jobs = calloc(num - from, sizeof(*b->jobs));
	if (!b->of || !b->jobs) {
		gv_batch_free(b);
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

static int gv_uring_batch_get(struct gv_batch *b, size_t i,
			      struct gv_out *out)
{
	struct gv_job *j;

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
		/* at least len bytes, and no room for them */
		if (j->len >= out->room)
			return -EOVERFLOW;
		break;
	}
	return -EGV_SYNC;
}

/* ---- readfile() ---- */

/*
 * Submit what is queued and wait until the completion of @op on slot 0
 * arrives; returns its result. The open's, if it comes along, goes to
 * *@open_res. With @intr, a signal that interrupts the wait cancels the
 * request (and a poll linked before it): if it had not completed by then,
 * the result is -EINTR.
 */
static int gv_ring_result(struct gv_ring *r, enum gv_op op, int *open_res,
			  bool intr)
{
	struct io_uring *ring = &r->ring;
	struct io_uring_cqe *cqe;
	bool got = false, cancelled = false;
	int res = 0, err;

	while (!got) {
		unsigned int head, seen = 0;

		err = gv_ring_wait(ring, 1, intr && !cancelled);
		if (err && err != -EINTR) {
			/* as in gv_batch_run(): this ring is lost */
			r->broken = true;
			return -EIO;
		}
		if (err) {
			const enum gv_op ops[] = { GV_OP_POLL, op };

			for (size_t k = 0; k < GV_ARRAY_SIZE(ops); k++) {
				struct io_uring_sqe *sqe = gv_sqe(ring);

				io_uring_prep_cancel64(sqe,
						       gv_tag(0, ops[k], 0), 0);
				sqe->user_data = gv_tag(0, GV_OP_CANCEL, 0);
			}
			cancelled = true;
			continue;
		}
		io_uring_for_each_cqe(ring, head, cqe) {
			enum gv_op o = (cqe->user_data >> 32) & 0xff;

			seen++;
			if (o == op) {
				res = cqe->res;
				got = true;
			} else if (o == GV_OP_OPEN && open_res) {
				*open_res = cqe->res;
			}
		}
		io_uring_cq_advance(ring, seen);
	}
	if (cancelled && (res == -ECANCELED || res == -EINTR))
		res = -EINTR;
	return res;
}

static void gv_prep_read(struct io_uring *ring, char *buf, size_t len,
			 unsigned int flags)
{
	struct io_uring_sqe *sqe = gv_sqe(ring);

	io_uring_prep_read(sqe, 0, buf, len < GV_READ_MAX ? len : GV_READ_MAX,
			   -1);
	sqe->flags |= IOSQE_FIXED_FILE | flags;
	sqe->user_data = gv_tag(0, GV_OP_READ, 0);
}

/*
 * gv_read_fd() on slot 0: read until end of file or a full buffer. The
 * file is non-blocking and a direct descriptor cannot be switched back, so
 * where read(2) would block after EAGAIN, a poll for input linked to the
 * read waits instead (io_uring already waits so for pipes and terminals;
 * this is for the rest).
 */
static ssize_t gv_ring_read_all(struct gv_ring *r, char *buf, size_t size,
				int n)
{
	struct io_uring *ring = &r->ring;
	bool blocking = false;
	size_t got = 0;

	for (;;) {
		if (n > 0) {
			got += n;
			if (got == size)
				return got;
		} else if (n == 0) {
			return got;
		} else if (n == -EAGAIN && !blocking) {
			struct io_uring_sqe *sqe = gv_sqe(ring);

			blocking = true;
			io_uring_prep_poll_add(sqe, 0, POLLIN);
			sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
			sqe->user_data = gv_tag(0, GV_OP_POLL, 0);
		} else {
			return got ? (ssize_t)got : n;
		}
		gv_prep_read(ring, buf + got, size - got, 0);
		n = gv_ring_result(r, GV_OP_READ, NULL, true);
	}
}

/*
 * readfile() as io_uring requests: an open into slot 0 linked to the
 * first read, more reads as gv_read_fd() would make them, then the close.
 * A zero-sized buffer goes to the sync path: there is nothing to transfer,
 * and only read(2) says EISDIR for a zero-length read of a directory.
 */
static ssize_t gv_uring_readfile(int dfd, const char *path, void *buf,
				 size_t size, int flags)
{
	struct io_uring_sqe *sqe;
	struct io_uring *ring;
	struct gv_ring *r;
	int err = 0, n, open_res = INT_MIN;
	ssize_t ret;

	r = gv_ring_get(&err);
	if (!size || !r)
		return gv_sync_readfile(dfd, path, buf, size, flags);
	ring = &r->ring;
	r->busy = true;
	gv_ring_drain(ring);

	sqe = gv_sqe(ring);
	io_uring_prep_openat_direct(sqe, dfd, path, O_RDONLY | O_NOCTTY |
				    O_NONBLOCK | flags, 0, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = gv_tag(0, GV_OP_OPEN, 0);
	gv_prep_read(ring, buf, size, 0);
	n = gv_ring_result(r, GV_OP_READ, &open_res, true);
	if (open_res == INT_MIN)	/* came after the read's, if ever */
		open_res = gv_ring_result(r, GV_OP_OPEN, NULL, false);
	if (open_res < 0) {
		r->busy = false;
		return open_res;
	}
	ret = gv_ring_read_all(r, buf, size, n);

	sqe = gv_sqe(ring);
	io_uring_prep_close_direct(sqe, 0);
	sqe->user_data = gv_tag(0, GV_OP_CLOSE, 0);
	gv_ring_result(r, GV_OP_CLOSE, NULL, false);
	r->busy = false;
	return ret;
}

/* Tests: how many slots of this thread's ring hold a file (closing them). */
int gv_uring_busy_slots(void)
{
	struct gv_ring *r = &gv_tring;
	int busy = 0;

	if (!r->ready ||
	    r->gen != __atomic_load_n(&gv_fork_gen, __ATOMIC_RELAXED))
		return 0;
	for (unsigned int s = 0; s < GV_URING_SLOTS; s++) {
		struct io_uring_sqe *sqe = gv_sqe(&r->ring);

		io_uring_prep_close_direct(sqe, s);
		sqe->user_data = gv_tag(s, GV_OP_CLOSE, 0);
		busy += gv_ring_result(r, GV_OP_CLOSE, NULL, false) == 0;
	}
	return busy;
}

const struct gv_backend gv_backend_uring = {
	.name = "uring",
	.probe = gv_uring_probe,
	.readfile = gv_uring_readfile,
	.batch_fetch = gv_uring_batch_fetch,
	.batch_get = gv_uring_batch_get,
	.batch_free = gv_batch_free,
};
