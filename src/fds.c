// SPDX-License-Identifier: MIT
/*
 * fds.c - the descriptors a running call holds, so that fork() never waits
 * for a call and a child never keeps one of them; and which process and
 * thread the library runs in, which it works from.
 *
 * readfile() and getvalues() hold descriptors for microseconds, or for as
 * long as a read of a FIFO blocks. A fork() in another thread meanwhile
 * must neither wait (the old fork guard held a lock across the blocking
 * read, so fork() hung) nor leave the child with a descriptor it never
 * asked for (O_CLOEXEC only helps across exec). So every descriptor the
 * library opens is entered in a table indexed by its number, and the
 * child's fork handler closes the entries of the other threads, whose
 * calls do not go on in the child. No lock anywhere: an entry is two
 * words, each written by one atomic store.
 *
 * Why the table is shared memory (MAP_SHARED, which fork() does not copy):
 * fork(2) takes the descriptor table at one moment (copy_files()) and the
 * memory later, page by page (copy_mm()), and a thread's store to private
 * memory in between may fault on a page the fork has made copy-on-write
 * and wait for the fork to end, unseen by the child; and the child's
 * handler may run milliseconds after that. Measured with a thread looping
 * readfile(): a quarter of 300 children kept a descriptor with a private
 * table. With a shared one, the child reads the parent's table as it is
 * when the child's handler runs, and must tell from it which numbers were
 * the library's when its descriptor table was taken: only those, for the
 * child closes a number, and the number may be the caller's by then.
 * Hence sequence numbers, in a shared header: forks started (prepare
 * handlers run, before the descriptor table is taken) and forks done (all
 * of the first N over: parent handlers run, after it was taken). An
 * entry's first word records the owning thread and the forks started when
 * it was made, after open() returned; the child of fork N closes it if
 * fewer than N had started (opened before the fork began, and still open),
 * or if kcmp(2) finds the child's descriptor the very file the parent
 * still has under that number (opened while the fork ran, before the table
 * was taken). A close stores into the entry's second word the forks done
 * and how many forks before them had started since the entry was made: the
 * child of fork N closes the number if N is one of those (open from before
 * fork N began to after it was over, so in the child's table). The mark
 * stays through later entries of the same number that no fork saw whole (a
 * later one that did overwrites it, and the older fork's child may keep
 * the descriptor). A close while a fork runs waits a little for it to be
 * over: gv_fd_await(). The child then leaves the parent's table (mapped,
 * unused) for one of its own. The counters are 64-bit, an entry's 40-bit:
 * a call would have to stay open across 2^39 forks for the comparison to
 * wrap.
 *
 * It used to close what was closed after its fork began, and what another
 * thread owned since before the fork was over. Both took numbers the
 * library had opened after the descriptor table was taken: the parent's
 * thread closes its end of a pipe as fork() returns, the library opens
 * and closes the same number before the child's handler runs, and the
 * child closed its own end of the pipe (some 5 forks in 200, from Python).
 *
 * The owner is the thread's id: unique among the live threads, and no
 * thread exits with an entry (a call closes its descriptors, a cancelled
 * one in its cleanup handler), so the kernel's reuse of an id is harmless.
 * The table is made at the latest by the prepare handler of the first
 * fork, so that the child always reads the table its fork was counted in,
 * never one another thread made while the fork ran.
 *
 * An entry is made after open() returns the descriptor and cleared (and
 * marked) before close(), so that it never names a number the caller may
 * already have reused. When in doubt the child keeps a descriptor: one
 * that is the library's is O_CLOEXEC, one that is the caller's must stay.
 * So what remains is the window getvalues(3) documents: a descriptor that
 * open() returned while fork() ran (or in the instant before) and that was
 * closed before the child's handler looked, or that was closed while a
 * fork ran longer than the wait, may reach the child: whether the table
 * was taken before or after, no one can tell. Nothing in the child closes
 * a number that was not the library's when its descriptor table was
 * taken. (Measured with tests/fork_reuse, a thread looping getvalues() of
 * 8 files: a fifth to a half of the children keep one; without the wait,
 * half of them.)
 *
 * The table has two levels of GV_FD_PAGE entries, mapped on first use and
 * kept for the life of the process (16 KiB per 1024 descriptor numbers in
 * use). Numbers past GV_FD_MAX (fs.nr_open's default) and entries whose
 * memory could not be mapped are not entered: the same window.
 */
#include <errno.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fds.h"

#define GV_FD_PAGE	1024
#define GV_FD_PAGES	1023	/* the header takes the directory's 1024th */
#define GV_FD_MAX	(GV_FD_PAGE * GV_FD_PAGES)
#define GV_FD_BYTES	(GV_FD_PAGE * sizeof(struct gv_fd_entry))

/*
 * An entry. own: bit 0, owned, by thread id (bits 1-23) since forks
 * started (bits 24-63, the low 40 bits of the count); 0, not owned.
 * closed: the forks done at the last close of the number that a fork saw
 * whole (bits 0-39, low bits), and how many forks before those were not
 * started when it was opened (bits 40-63, at most 2^24 - 1: the older
 * ones' children keep it); 0 if none.
 */
struct gv_fd_entry {
	uint64_t own;
	uint64_t closed;
};

#define GV_FD_OWNED		1ull
#define GV_FD_TID(v)		((pid_t)((v) >> 1) & 0x7fffff)
#define GV_FD_SINCE(v)		((v) >> 24)
#define GV_FD_MASK		0xffffffffffull	/* 40-bit counts */
#define GV_FD_SPAN(v)		((v) >> 40)
#define GV_FD_SPAN_MAX		0xffffffull

/* The counters first: one cache line with the first pages' pointers. */
struct gv_fd_table {
	uint64_t started;	/* forks whose prepare handler ran */
	uint64_t finished;	/* forks whose parent handler ran */
	uint64_t done;		/* the last @finished that was @started */
	struct gv_fd_entry *pages[GV_FD_PAGES];
};

/*
 * What every call reads, in one cache line (a system call leaves little of
 * the caller's in the CPU's caches): the process check's word, the
 * generation, the table, and the first of the pages again, in private
 * memory: the pages of the parent's table that a child has mapped are
 * those its copy of @mapped names (a page the parent maps after the
 * child's memory was taken is not in the child). @self and @gen: below.
 */
static struct {
	unsigned int *self;
	unsigned long gen;
	struct gv_fd_table *fds;
	struct gv_fd_entry *mapped[GV_FD_PAGES];
} gv_fd __attribute__((aligned(64)));

/*
 * In the forking thread's memory, for its child: the table this fork was
 * counted in (NULL once the parent or the child is done with it), which
 * fork it is, and the thread's id in the parent.
 */
static __thread struct gv_fd_table *gv_fork_table;
static __thread uint64_t gv_this_fork;
static __thread pid_t gv_fork_tid;

static void gv_fd_leave(int *mine, unsigned int *nmine, unsigned int max);

/*
 * Which process this is. fork() runs our handlers in its child; _Fork(),
 * clone(2) without CLONE_VM and a fork system call made directly run
 * none, and leave the child a copy of our memory as it was: the thread id
 * cached for process_vm_writev(2) (with it the child would write into its
 * parent's memory), the thread's io_uring ring (not mapped in the child:
 * MADV_DONTFORK) and the pointer to the parent's table. So every use of
 * them begins with a check that this is still the process they belong to:
 * a word in a MADV_WIPEONFORK page (Linux 4.14), which reads 0 in every
 * child and is set at the first use in a process. That first use, at the
 * start or in such a child, begins a new generation, in which caches made
 * in an older one are made again. A child of fork() leaves the parent's
 * table as the fork handler does (the first use may come before our
 * handler, from another library's); any other child drops it without
 * writing to it, and does not know which of its descriptors were the
 * library's. Neither unmaps it: the child's copy of a call that a signal
 * handler interrupted (to fork) may still be about to write one of its
 * entries, the same entry as the parent's copy of the call writes. Where
 * madvise() refuses MADV_WIPEONFORK (Linux 4.13 and older), getpid() is
 * compared with the pid last seen instead: a system call per check, and a
 * child in a new PID namespace with its parent's number goes unnoticed.
 */
enum { GV_SELF_NEW, GV_SELF_BUSY, GV_SELF_KNOWN };

/*
 * gv_fd.self: the word, NULL before first use; gv_fd.gen: the generation,
 * from 1.
 */
static unsigned int gv_self_nowipe;	/* gv_fd.self without MADV_WIPEONFORK */
static pid_t gv_self_pid;		/* then: checked in; -pid while set up */

/*
 * This thread's id, and the generation it was asked for in. Initial-exec:
 * read at a fixed offset from the thread pointer, with no __tls_get_addr()
 * call for every descriptor the library opens. Its 16 bytes come from the
 * static TLS that glibc keeps for libraries loaded with dlopen() (the
 * Python module's way in).
 */
static __thread struct {
	pid_t tid;
	unsigned long gen;
} gv_me __attribute__((tls_model("initial-exec")));

static unsigned int *gv_self_word(void)
{
	unsigned int *w = __atomic_load_n(&gv_fd.self, __ATOMIC_ACQUIRE), *fresh;
	long size = sysconf(_SC_PAGESIZE);

	if (w)
		return w;
	fresh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED) {
		fresh = &gv_self_nowipe;
	} else if (madvise(fresh, size, MADV_WIPEONFORK)) {
		munmap(fresh, size);
		fresh = &gv_self_nowipe;
	}
	if (__atomic_compare_exchange_n(&gv_fd.self, &w, fresh, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return fresh;
	if (fresh != &gv_self_nowipe)
		munmap(fresh, size);	/* another thread was first */
	return w;
}

/*
 * A new process: nothing of the parent's is used from now on. The child
 * of a fork() counted in a table leaves it; the descriptors of this
 * thread's own calls go into @mine, to enter in the child's table.
 */
static void gv_self_new(int *mine, unsigned int *nmine, unsigned int max)
{
	if (gv_fork_table)
		gv_fd_leave(mine, nmine, max);
	for (unsigned int p = 0; p < GV_FD_PAGES; p++)
		__atomic_store_n(&gv_fd.mapped[p], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&gv_fd.fds, NULL, __ATOMIC_RELEASE);
	__atomic_add_fetch(&gv_fd.gen, 1, __ATOMIC_RELEASE);
}

/*
 * One thread sets the process up; the others wait for it. Signals are
 * blocked meanwhile, so that a handler that calls us on this thread
 * cannot wait for itself. A fork() in another thread meanwhile leaves the
 * child to do the same for itself (the word reads 0 there, and the pid
 * another).
 */
static void gv_self_renew(void)
{
	unsigned int *w = gv_self_word(), s, nmine = 0;
	sigset_t all, old;
	pid_t me, v;
	int mine[16];

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (w != &gv_self_nowipe) {
		s = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		while (s != GV_SELF_KNOWN) {
			if (s == GV_SELF_NEW &&
			    __atomic_compare_exchange_n(w, &s, GV_SELF_BUSY,
							false, __ATOMIC_ACQUIRE,
							__ATOMIC_ACQUIRE)) {
				gv_self_new(mine, &nmine, GV_ARRAY_SIZE(mine));
				__atomic_store_n(w, GV_SELF_KNOWN,
						 __ATOMIC_RELEASE);
				break;
			}
			if (s == GV_SELF_BUSY) {
				sched_yield();
				s = __atomic_load_n(w, __ATOMIC_ACQUIRE);
			}
		}
	} else {
		me = getpid();
		v = __atomic_load_n(&gv_self_pid, __ATOMIC_ACQUIRE);
		while (v != me) {
			if (v == -me) {
				sched_yield();
				v = __atomic_load_n(&gv_self_pid,
						    __ATOMIC_ACQUIRE);
			} else if (__atomic_compare_exchange_n(&gv_self_pid,
							       &v, -me, false,
							       __ATOMIC_ACQUIRE,
							       __ATOMIC_ACQUIRE)) {
				gv_self_new(mine, &nmine, GV_ARRAY_SIZE(mine));
				__atomic_store_n(&gv_self_pid, me,
						 __ATOMIC_RELEASE);
				break;
			}
		}
	}
	/* the process is known now: this calls no gv_self_renew() again */
	for (unsigned int k = 0; k < nmine; k++)
		gv_fd_own(mine[k]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* That this is the process the caches and the table belong to. */
static inline void gv_self_check(void)
{
	unsigned int *w = __atomic_load_n(&gv_fd.self, __ATOMIC_ACQUIRE);

	if (__builtin_expect(w && __atomic_load_n(w, __ATOMIC_ACQUIRE) ==
			     GV_SELF_KNOWN, 1))
		return;
	if (w == &gv_self_nowipe &&
	    getpid() == __atomic_load_n(&gv_self_pid, __ATOMIC_ACQUIRE))
		return;
	gv_self_renew();
}

GV_HOT unsigned long gv_fork_gen(void)
{
	gv_self_check();
	return __atomic_load_n(&gv_fd.gen, __ATOMIC_ACQUIRE);
}

/*
 * The id first, then its generation: a signal handler that interrupts
 * this and calls us again on this thread never pairs the new generation
 * with the parent's id. Inline in gv_fd_own(), which every descriptor
 * the library opens goes through.
 */
static inline __attribute__((always_inline)) pid_t gv_tid_now(void)
{
	unsigned long gen = gv_fork_gen();

	if (gv_me.gen != gen) {
		gv_me.gen = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		gv_me.tid = (pid_t)syscall(SYS_gettid);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		gv_me.gen = gen;
	}
	return gv_me.tid;
}

GV_HOT pid_t gv_tid(void)
{
	return gv_tid_now();
}

/* Tests: check by pid from now on, as where MADV_WIPEONFORK is missing. */
void gv_self_test_nowipe(void)
{
	gv_self_check();
	__atomic_store_n(&gv_self_pid, getpid(), __ATOMIC_RELEASE);
	__atomic_store_n(&gv_fd.self, &gv_self_nowipe, __ATOMIC_RELEASE);
}

/* Shared zeroed memory, its pages present (no fault later, in a fork). */
static void *gv_fd_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* *@slot, which is NULL: mapped now. */
static __attribute__((noinline)) void *gv_fd_level_map(void **slot,
							size_t size)
{
	void *p = NULL, *fresh;

	fresh = gv_fd_map(size);
	if (!fresh)
		return NULL;
	if (__atomic_compare_exchange_n(slot, &p, fresh, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return fresh;
	munmap(fresh, size);	/* another thread made it first */
	return p;
}

/* *@slot, mapped if need be and @make. */
static inline void *gv_fd_level(void **slot, size_t size, bool make)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (__builtin_expect(p != NULL, 1) || !make)
		return p;
	return gv_fd_level_map(slot, size);
}

static inline struct gv_fd_entry *gv_fd_slot(struct gv_fd_table *t, int fd,
					     bool make)
{
	unsigned int p = (unsigned int)fd / GV_FD_PAGE;
	struct gv_fd_entry *page;

	if (!t || fd < 0 || fd >= GV_FD_MAX)
		return NULL;
	page = gv_fd_level((void **)&t->pages[p], GV_FD_BYTES, make);
	if (!page)
		return NULL;
	if (!__atomic_load_n(&gv_fd.mapped[p], __ATOMIC_RELAXED))
		__atomic_store_n(&gv_fd.mapped[p], page, __ATOMIC_RELEASE);
	return &page[(unsigned int)fd % GV_FD_PAGE];
}

GV_HOT int gv_fd_own(int fd)
{
	struct gv_fd_table *t;
	struct gv_fd_entry *e;
	uint64_t started;
	pid_t tid = gv_tid_now();	/* checks the process */

	t = gv_fd_level((void **)&gv_fd.fds, sizeof(*t), true);
	e = gv_fd_slot(t, fd, true);
	if (!e)
		return fd;
	/* after open(): a fork counted in it took the descriptor table after */
	started = __atomic_load_n(&t->started, __ATOMIC_SEQ_CST);
	__atomic_store_n(&e->own, GV_FD_OWNED |
			 (uint64_t)(tid & 0x7fffff) << 1 |
			 (started & GV_FD_MASK) << 24, __ATOMIC_SEQ_CST);
	return fd;
}

/*
 * A descriptor open since before a fork began and closed while it runs may
 * be in the child's table or not (closed after the fork took the table, or
 * before), and the child then has to keep it. So its close waits for the
 * forks to be over, but not long and once per fork and thread: fork()
 * never waits for a call, and the child of a fork that takes longer (of a
 * large process, or one whose handler waits for this thread) keeps it.
 * Returns the forks done.
 */
#define GV_FD_WAIT_NS	2000000L

static __thread uint64_t gv_fd_waited;	/* the forks started, last wait */

static __attribute__((noinline, cold)) uint64_t
gv_fd_await(struct gv_fd_table *t, uint64_t started)
{
	uint64_t done = __atomic_load_n(&t->done, __ATOMIC_SEQ_CST);
	struct timespec now, end;

	if (gv_fd_waited == started)
		return done;
	gv_fd_waited = started;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += GV_FD_WAIT_NS;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (done < started) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec &&
						now.tv_nsec >= end.tv_nsec))
			break;
		sched_yield();
		done = __atomic_load_n(&t->done, __ATOMIC_SEQ_CST);
	}
	return done;
}

/* Inline in gv_fd_flush() too, which disowns a call's descriptors. */
static inline __attribute__((always_inline)) void gv_fd_disown_now(int fd)
{
	struct gv_fd_table *t;
	struct gv_fd_entry *e;
	uint64_t own, done, started, span;

	gv_self_check();
	t = __atomic_load_n(&gv_fd.fds, __ATOMIC_ACQUIRE);
	e = gv_fd_slot(t, fd, false);
	if (!e)
		return;
	/*
	 * The forks that began after the entry was made and were over
	 * before close(): those whose children have the descriptor for
	 * sure. None, and the last mark stays. Marked before the entry
	 * goes, so that a child always sees one.
	 */
	own = __atomic_load_n(&e->own, __ATOMIC_RELAXED);
	done = __atomic_load_n(&t->done, __ATOMIC_SEQ_CST);
	started = __atomic_load_n(&t->started, __ATOMIC_SEQ_CST);
	if (__builtin_expect(started != done, 0) && (own & GV_FD_OWNED) &&
	    ((GV_FD_SINCE(own) - started) & GV_FD_MASK) > GV_FD_MASK / 2)
		done = gv_fd_await(t, started);
	span = (done - GV_FD_SINCE(own)) & GV_FD_MASK;
	if ((own & GV_FD_OWNED) && span && span <= GV_FD_MASK / 2)
		__atomic_store_n(&e->closed, (done & GV_FD_MASK) |
				 (span < GV_FD_SPAN_MAX ? span :
				  GV_FD_SPAN_MAX) << 40, __ATOMIC_SEQ_CST);
	__atomic_store_n(&e->own, 0, __ATOMIC_SEQ_CST);
}

GV_HOT void gv_fd_disown(int fd)
{
	gv_fd_disown_now(fd);
}

/*
 * close(2) as a raw system call: glibc's close() is a cancellation point,
 * and a cancellation acted upon there would leave the descriptor open.
 */
GV_HOT void gv_fd_close(int fd)
{
	if (fd < 0)
		return;
	gv_fd_disown(fd);
	syscall(SYS_close, fd);
}

/* pthread_cleanup_push() handler: @arg points at a descriptor or -1. */
void gv_fd_close_cleanup(void *arg)
{
	gv_fd_close(*(int *)arg);
}

/* Tests: @n forks more started and done, as if they had been made. */
void gv_fd_test_forks(uint64_t n)
{
	struct gv_fd_table *t;

	gv_self_check();
	t = gv_fd_level((void **)&gv_fd.fds, sizeof(*t), true);
	if (t) {
		__atomic_add_fetch(&t->started, n, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&t->finished, n, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&t->done, n, __ATOMIC_SEQ_CST);
	}
}

/*
 * The table is made here if no call has made it yet: a table that another
 * thread made while this fork ran would count no fork, and the child could
 * not tell which of its entries were in its descriptor table.
 */
static void gv_fork_prepare(void)
{
	struct gv_fd_table *t;

	gv_fork_tid = gv_tid();	/* not a table inherited without handlers */
	t = gv_fd_level((void **)&gv_fd.fds, sizeof(*t), true);
	if (!t)
		return;
	gv_this_fork = __atomic_add_fetch(&t->started, 1, __ATOMIC_SEQ_CST);
	gv_fork_table = t;
}

/*
 * Forks done moves only when every fork started is over: with two threads
 * forking, the second may end first, and its count would say the first's
 * descriptor table was taken when it may not have been yet. Then it lags
 * until no fork runs: a child may keep a descriptor, none loses one.
 */
static void gv_fork_parent(void)
{
	struct gv_fd_table *t = gv_fork_table;
	uint64_t n, d;

	gv_fork_table = NULL;
	if (!t)
		return;
	n = __atomic_add_fetch(&t->finished, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->started, __ATOMIC_SEQ_CST) != n)
		return;
	d = __atomic_load_n(&t->done, __ATOMIC_SEQ_CST);
	while (d < n && !__atomic_compare_exchange_n(&t->done, &d, n, false,
						     __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST))
		;
}

/*
 * Whether the child's descriptor @fd is the very file the parent's @fd is
 * now (kcmp(2)): a descriptor of the library that the parent still holds
 * and the child took. Not known (no kcmp(2), or not allowed): no.
 */
static bool gv_fd_is_parents(int fd)
{
	return syscall(SYS_kcmp, getpid(), getppid(), KCMP_FILE, fd, fd) == 0;
}

/*
 * Whether the child of this fork closes @fd, the number of an entry: only
 * if the library's descriptor is in its table for sure.
 */
static bool gv_fd_child_closes(int fd, uint64_t own, uint64_t closed)
{
	uint64_t fork = gv_this_fork;

	if ((own & GV_FD_OWNED) && GV_FD_TID(own) != gv_fork_tid) {
		/* owned by another thread since before this fork began */
		if (((GV_FD_SINCE(own) - fork) & GV_FD_MASK) > GV_FD_MASK / 2)
			return true;
		/* since it began: before the table was taken, or after */
		if (gv_fd_is_parents(fd))
			return true;
	}
	/* open from before this fork began to after it was over */
	return ((closed - fork) & GV_FD_MASK) < GV_FD_SPAN(closed);
}

/*
 * In the child, only the thread that called fork() exists: the calls of
 * the others do not go on, so their descriptors go. This thread's own (a
 * fork() from a signal handler that interrupted a call) stay, and its call
 * closes them: they go into @mine, for the child's own table.
 */
static void gv_fd_leave(int *mine, unsigned int *nmine, unsigned int max)
{
	gv_fork_table = NULL;
	for (unsigned int p = 0; p < GV_FD_PAGES; p++) {
		struct gv_fd_entry *page = gv_fd.mapped[p];

		for (unsigned int i = 0; page && i < GV_FD_PAGE; i++) {
			uint64_t own = __atomic_load_n(&page[i].own,
						       __ATOMIC_SEQ_CST);
			uint64_t closed = __atomic_load_n(&page[i].closed,
							  __ATOMIC_SEQ_CST);
			int fd = (int)(p * GV_FD_PAGE + i);

			if ((own & GV_FD_OWNED) &&
			    GV_FD_TID(own) == gv_fork_tid && *nmine < max)
				mine[(*nmine)++] = fd;
			else if (gv_fd_child_closes(fd, own, closed))
				syscall(SYS_close, fd);
		}
	}
}

/* The child's first check leaves the parent's table: gv_self_new(). */
static void gv_fork_child(void)
{
	gv_self_check();
}

/*
 * glibc removes the handlers of a dlclose()d library itself (they are
 * registered against its __dso_handle).
 */
__attribute__((constructor)) static void gv_fds_init(void)
{
	pthread_atfork(gv_fork_prepare, gv_fork_parent, gv_fork_child);
}

/*
 * Closing in batches. A getvalues() call closes a descriptor or two for
 * every data: file; the numbers it opens one after the other are mostly
 * adjacent, and close_range(2) closes a run of them in one system call
 * (one instead of 64 for 64 procfs files). A number goes into a run only
 * if it is in the batch: never one of the caller's.
 */
static int gv_have_close_range = 1;

/*
 * The numbers a call opens come mostly in rising order, a few out of it
 * (a directory kept for later, $ORIGIN last): an insertion sort does that
 * in a pass, where qsort() merges through a buffer and calls a comparison
 * for every step (some 100 instructions a descriptor).
 */
static void gv_fd_sort(int *fd, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++) {
		int v = fd[i];
		unsigned int lo = 0, hi = i - 1, mid;

		if (fd[hi] <= v)
			continue;
		/* the first of fd[0, i) greater than @v: fd[hi] is one */
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (fd[mid] > v)
				hi = mid;
			else
				lo = mid + 1;
		}
		/* $ORIGIN, opened first and closed last: one move */
		memmove(fd + hi + 1, fd + hi, (i - hi) * sizeof(*fd));
		fd[hi] = v;
	}
}

void gv_fd_flush(struct gv_closer *c)
{
	unsigned int i = 0, j;

	gv_fd_sort(c->fd, c->n);
	while (i < c->n) {
		for (j = i + 1; j < c->n && c->fd[j] == c->fd[j - 1] + 1; j++)
			;
		for (unsigned int k = i; k < j; k++)
			gv_fd_disown_now(c->fd[k]);
		if (j - i == 1 ||
		    !__atomic_load_n(&gv_have_close_range, __ATOMIC_RELAXED) ||
		    syscall(SYS_close_range, c->fd[i], c->fd[j - 1], 0)) {
			if (j - i > 1 && errno == ENOSYS)
				__atomic_store_n(&gv_have_close_range, 0,
						 __ATOMIC_RELAXED);
			for (unsigned int k = i; k < j; k++)
				syscall(SYS_close, c->fd[k]);
		}
		i = j;
	}
	c->n = 0;
}

void gv_fd_defer(struct gv_closer *c, int fd)
{
	if (fd < 0)
		return;
	if (c->n == GV_ARRAY_SIZE(c->fd))
		gv_fd_flush(c);
	c->fd[c->n++] = fd;
}
