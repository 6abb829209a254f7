// SPDX-License-Identifier: MIT
/*
 * uring.c - the io_uring backend's rings: one per thread, made at its first
 * use and kept; whether one can be made is the backend's probe
 * (uring_backend.c).
 *
 * A ring's own descriptor is registered with the ring and then closed, so
 * no descriptor survives a call; its sparse table of direct descriptors is
 * registered once, sized to what RLIMIT_NOFILE allows (the kernel refuses
 * a table larger than the limit); its memory is MADV_DONTFORK. A child of
 * fork(), or of _Fork() or clone(2) that run no fork handlers, is in a new
 * generation (fds.c) and builds its own ring without touching the
 * parent's. io_uring that is missing, disabled
 * (io_uring_disabled), filtered by seccomp (EPERM, ENOSYS) or lacking an
 * opcode makes the probe fail: auto then never uses it and a forced uring
 * gets ENOSYS. A seccomp filter installed later, which refuses
 * io_uring_enter() to a ring that worked (with any errno, EINTR included:
 * gv_ring_enter()), does the same from then on (gv_uring_lost()); the
 * batch in progress falls back to one file at a time, so no call sees an
 * error of the backend, and none waits for ever.
 *
 * A thread's ring is taken down when the thread exits, by a thread-specific
 * data destructor. If the library is dlclose()d first, that destructor
 * would no longer be mapped: the key is deleted when the library is
 * unloaded, and rings of threads still alive then stay with them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fds.h"
#include "internal.h"
#include "uring.h"

static __thread struct gv_ring gv_tring;
static pthread_key_t gv_ring_key;
static bool gv_ring_key_made;
static pthread_once_t gv_ring_once = PTHREAD_ONCE_INIT;
/* io_uring refused this process (seccomp, disabled): -errno, else 0 */
static int gv_uring_refused;

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

	if (r->ready && r->gen == gv_fork_gen())
		gv_ring_unmap(&r->ring);
	free(r->stage);
	memset(r, 0, sizeof(*r));
}

/*
 * Whether this thread has its ring already, working and of this process:
 * a batch on it costs no set-up (ring, io-wq workers, staging memory).
 */
bool gv_ring_warm(void)
{
	const struct gv_ring *r = &gv_tring;

	return r->ready && !r->broken && r->stage &&
	       r->gen == gv_fork_gen();
}

static void gv_ring_init_once(void)
{
	gv_ring_key_made = !pthread_key_create(&gv_ring_key, gv_ring_destroy);
}

/* dlclose(): no destructor of ours may run once our code is unmapped. */
__attribute__((destructor)) static void gv_uring_unload(void)
{
	if (gv_ring_key_made)
		pthread_key_delete(gv_ring_key);
	gv_ring_key_made = false;
}

/* The opcodes the chains use; a kernel without one of them cannot help. */
static int gv_ring_check_ops(struct io_uring *ring)
{
	static const int ops[] = {
		IORING_OP_OPENAT2, IORING_OP_READ, IORING_OP_CLOSE,
		IORING_OP_FILES_UPDATE,
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
 * poll(2) on the write end says POLLERR. The read end goes into slot 0
 * with a table update, not by a path (nothing under /proc is trusted).
 */
static int gv_ring_check_close(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct pollfd pfd;
	int p[2], err;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	gv_fd_own(p[0]);
	gv_fd_own(p[1]);
	err = io_uring_register_files_update(ring, 0, &p[0], 1);
	gv_fd_close(p[0]);
	if (err == 1) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_close_direct(sqe, 0);
		err = io_uring_submit_and_wait(ring, 1);
	} else if (err >= 0) {
		err = -EOPNOTSUPP;
	}
	if (err >= 0) {
		err = io_uring_wait_cqe(ring, &cqe);
		if (!err) {
			err = cqe->res < 0 ? cqe->res : 0;
			io_uring_cqe_seen(ring, cqe);
		}
	}
	pfd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	if (!err && (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLERR)))
		err = -EOPNOTSUPP;	/* the reader is still there */
	gv_fd_close(p[1]);
	return err;
}

/* Direct descriptor slots: the kernel allows no more than RLIMIT_NOFILE. */
static unsigned int gv_ring_slots(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= GV_URING_SLOTS)
		return GV_URING_SLOTS;
	return (unsigned int)rl.rlim_cur;
}

/*
 * A new ring for this thread. The newest setup flags first (6.1: a ring
 * only this thread submits to, completions run when it waits), then the
 * 5.18 set. IORING_SETUP_SUBMIT_ALL keeps a bad request from stopping the
 * submission of the chains after it; direct descriptors need 5.15, skipped
 * completions 5.17 and registered ring descriptors 5.18.
 */
static int gv_ring_setup(struct gv_ring *r)
{
	static const unsigned int flag_sets[] = {
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SUBMIT_ALL,
	};
	const unsigned int need = IORING_FEAT_NODROP | IORING_FEAT_RW_CUR_POS |
				  IORING_FEAT_CQE_SKIP;
	struct io_uring *ring = &r->ring;
	struct io_uring_params p;
	int err = -EINVAL;

	r->slots = gv_ring_slots();
	if (!r->slots)
		return -EMFILE;
	for (size_t i = 0; i < GV_ARRAY_SIZE(flag_sets) && err == -EINVAL;
	     i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flag_sets[i];
		err = io_uring_queue_init_params(GV_URING_SQES, ring, &p);
	}
	if (err)
		return err;
	gv_fd_own(ring->ring_fd);
	if ((p.features & need) != need)
		err = -EOPNOTSUPP;
	if (!err)
		err = gv_ring_check_ops(ring);
	if (!err)
		err = io_uring_ring_dontfork(ring);
	if (!err)
		err = io_uring_register_files_sparse(ring, r->slots);
	if (!err)
		err = gv_ring_check_close(ring);
	if (!err) {
		err = io_uring_register_ring_fd(ring);
		if (err == 1)
			err = 0;
		else if (err >= 0)
			err = -EOPNOTSUPP;
	}
	gv_fd_close(ring->ring_fd);
	ring->ring_fd = -1;
	if (err)
		gv_ring_unmap(ring);
	return err;
}

/* io_uring is of no use in this process from now on. */
static void gv_uring_refuse(void)
{
	__atomic_store_n(&gv_uring_refused, -ENOSYS, __ATOMIC_RELAXED);
}

/* The backend table's lost member: io_uring was refused after its probe. */
bool gv_uring_lost(void)
{
	return __atomic_load_n(&gv_uring_refused, __ATOMIC_RELAXED) != 0;
}

struct gv_ring *gv_ring_get(int *err)
{
	struct gv_ring *r = &gv_tring;
	unsigned long gen = gv_fork_gen();

	if (r->ready && r->gen != gen) {
		/* made in our parent before it forked: not mapped here */
		free(r->stage);
		memset(r, 0, sizeof(*r));
	}
	if (r->busy || r->broken) {
		/* in use by the code a signal handler interrupted */
		*err = r->broken ? -ENOSYS : -EBUSY;
		return NULL;
	}
	if (r->ready)
		return r;
	*err = __atomic_load_n(&gv_uring_refused, __ATOMIC_RELAXED);
	if (*err)
		return NULL;
	pthread_once(&gv_ring_once, gv_ring_init_once);
	r->busy = true;
	*err = gv_ring_setup(r);
	r->busy = false;
	/* no descriptor for the ring (EMFILE) is no refusal: next time */
	if (*err) {
		if (*err == -EPERM || *err == -ENOSYS || *err == -EOPNOTSUPP)
			gv_uring_refuse();
		return NULL;
	}
	r->gen = gen;
	r->ready = true;
	if (gv_ring_key_made)
		pthread_setspecific(gv_ring_key, r);
	return r;
}

struct io_uring_sqe *gv_ring_sqe(struct gv_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	while (!sqe) {
		if (gv_ring_submit(r))
			return NULL;
		sqe = io_uring_get_sqe(&r->ring);
	}
	return sqe;
}

/*
 * A failure to enter a ring that worked: a seccomp filter installed since
 * (EPERM, ENOSYS, EACCES) makes io_uring unusable for the whole process;
 * anything else, for this thread's ring.
 */
static int gv_ring_failed(struct gv_ring *r, int err)
{
	r->broken = true;
	if (err == -EPERM || err == -ENOSYS || err == -EACCES)
		gv_uring_refuse();
	return err;
}

/*
 * io_uring_enter() tries in a row that may say EINTR, EAGAIN or EBUSY while
 * no completion arrives, before the ring is given up (see below).
 */
#define GV_RING_TRIES	64

/*
 * Enter the ring: submit what is queued and, with @wait, wait for @want
 * completions. EINTR (a signal interrupted the wait), EAGAIN and EBUSY (the
 * kernel was short of memory for a moment) are tried again: the requests
 * go on in the kernel, they write into the caller's memory, and getvalues()
 * has no EINTR to give. But a seccomp filter may say any of those to every
 * call, and a retry would then never end. So each time the ring is entered
 * without waiting (io_uring_get_events(), which no signal interrupts and
 * which allocates nothing): if even that fails, the ring cannot be entered
 * at all and io_uring is refused, as for EPERM. A filter that refuses only
 * some calls (those that submit, say) ends the tries after GV_RING_TRIES in
 * a row with no completion arriving: the ring is given up as broken, and
 * the batch falls back to one file at a time.
 */
static int gv_ring_enter(struct gv_ring *r, unsigned int want, bool wait)
{
	unsigned int tries = 0, ready = io_uring_cq_ready(&r->ring);
	int ret;

	for (;;) {
		ret = wait ? io_uring_submit_and_wait(&r->ring, want) :
			     io_uring_submit(&r->ring);
		if (ret >= 0)
			return 0;
		if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			break;
		if (io_uring_get_events(&r->ring) < 0) {
			gv_uring_refuse();
			break;
		}
		if (io_uring_cq_ready(&r->ring) != ready) {
			ready = io_uring_cq_ready(&r->ring);
			tries = 0;
		}
		if (++tries == GV_RING_TRIES)
			break;
	}
	return gv_ring_failed(r, ret);
}

int gv_ring_wait(struct gv_ring *r, unsigned int want)
{
	return gv_ring_enter(r, want, true);
}

int gv_ring_submit(struct gv_ring *r)
{
	return gv_ring_enter(r, 0, false);
}
