// SPDX-License-Identifier: MIT
/*
 * fds.c - the descriptors a running call holds, so that fork() never waits
 * for a call and a child never keeps one of them; and the calling thread's
 * id, which the library works from.
 *
 * readfile() and getvalues() hold descriptors for microseconds, or for as
 * long as a read of a FIFO blocks. A fork() in another thread meanwhile
 * must neither wait (the old fork guard held a lock across the blocking
 * read, so fork() hung) nor leave the child with a descriptor it never
 * asked for (O_CLOEXEC only helps across exec). So every descriptor the
 * library opens is entered in a table indexed by its number, and the
 * child's fork handler closes the entries of the other threads, whose
 * calls do not go on in the child. No lock anywhere: an entry is one
 * atomic store.
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
 * the library's when its descriptor table was taken. Hence sequence
 * numbers, in a shared header: forks started (prepare handlers run), forks
 * done (parent handlers run), children that have not yet read the table.
 * An entry records the forks done when it was made; the child of fork N
 * closes it only if fewer than N were done (it was made before this fork
 * was over, so its descriptor may be in the child's table). While some
 * child has not yet read the table, a close leaves a mark with the forks
 * started, kept through later entries of the same number, and the child
 * of fork N closes the numbers marked by forks N and later (closed after
 * its fork began, so open when it took the descriptor table, or opened
 * and closed since). The child then leaves the parent's table for one of
 * its own.
 *
 * An entry is made after open() returns the descriptor and cleared (or
 * marked) before close(), so that it never names a number the caller may
 * already have reused. What remains is the window getvalues(3) documents:
 * a descriptor that open() returned, or that close() was about to take,
 * in the instant fork() began, may reach the child (O_CLOEXEC); and a
 * number that another thread of the caller closed, and this library took
 * again while fork() ran, could be closed in the child.
 *
 * The table has two levels of GV_FD_PAGE entries, mapped on first use and
 * kept for the life of the process (8 KiB per 1024 descriptor numbers in
 * use). Numbers past GV_FD_MAX (fs.nr_open's default) and entries whose
 * memory could not be mapped are not entered: the same window.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define GV_FD_PAGE	1024
#define GV_FD_PAGES	1023	/* the header takes the directory's 1024th */
#define GV_FD_MAX	(GV_FD_PAGE * GV_FD_PAGES)
#define GV_FD_BYTES	(GV_FD_PAGE * sizeof(uint64_t))

/*
 * An entry: bit 0, owned, by thread (bits 2-15) since forks done (16-39);
 * bit 1, closed while forks started (40-63) had a child that had not read
 * the table. Sequence numbers are 24-bit, compared modulo 2^24.
 */
#define GV_FD_OWNED		1ull
#define GV_FD_MARKED		2ull
#define GV_FD_THREAD(v)		((uint32_t)((v) >> 2) & 0x3fff)
#define GV_FD_DONE(v)		((uint32_t)((v) >> 16) & 0xffffff)
#define GV_FD_STARTED(v)	((uint32_t)((v) >> 40) & 0xffffff)
#define GV_FD_MARK_BITS		(GV_FD_MARKED | 0xffffffull << 40)

struct gv_fd_table {
	uint64_t *pages[GV_FD_PAGES];
	uint32_t started;	/* forks whose prepare handler ran */
	uint32_t done;		/* forks whose parent handler ran */
	uint32_t unread;	/* children that have not read the table */
};

static struct gv_fd_table *gv_fds;
/*
 * The pages again, in private memory: the pages of the parent's table that
 * a child has mapped are those its copy of this array names (a page the
 * parent maps after the child's memory was taken is not in the child).
 */
static uint64_t *gv_fd_mapped[GV_FD_PAGES];
/* In the forking thread's memory, for its child: which fork this is. */
static uint32_t gv_this_fork;
static uint32_t gv_threads;

/* This thread's number (the same in a fork()ed child), from 1. */
static __thread uint32_t gv_thread_no;
/* This thread's id, 0 until first asked for; reset in a child. */
static __thread pid_t gv_thread_id;

/* Serial number arithmetic, 24 bits: @a is at or after @b. */
static bool gv_seq_ge(uint32_t a, uint32_t b)
{
	return ((a - b) & 0xffffff) < 0x800000;
}

/* Shared zeroed memory, its pages present (no fault later, in a fork). */
static void *gv_fd_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* *@slot, mapped if need be and @make. */
static void *gv_fd_level(void **slot, size_t size, bool make)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *fresh;

	if (p || !make)
		return p;
	fresh = gv_fd_map(size);
	if (!fresh)
		return NULL;
	if (__atomic_compare_exchange_n(slot, &p, fresh, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return fresh;
	munmap(fresh, size);	/* another thread made it first */
	return p;
}

static uint64_t *gv_fd_slot(int fd, bool make)
{
	unsigned int p = (unsigned int)fd / GV_FD_PAGE;
	struct gv_fd_table *t;
	uint64_t *page;

	if (fd < 0 || fd >= GV_FD_MAX)
		return NULL;
	t = gv_fd_level((void **)&gv_fds, sizeof(*t), make);
	if (!t)
		return NULL;
	page = gv_fd_level((void **)&t->pages[p], GV_FD_BYTES, make);
	if (!page)
		return NULL;
	if (!__atomic_load_n(&gv_fd_mapped[p], __ATOMIC_RELAXED))
		__atomic_store_n(&gv_fd_mapped[p], page, __ATOMIC_RELEASE);
	return &page[(unsigned int)fd % GV_FD_PAGE];
}

/* The mark an entry keeps while a child has not read the table. */
static uint64_t gv_fd_mark(uint64_t old)
{
	if (!__atomic_load_n(&gv_fds->unread, __ATOMIC_SEQ_CST))
		return 0;
	return old & GV_FD_MARK_BITS;
}

int gv_fd_own(int fd)
{
	uint64_t *slot = gv_fd_slot(fd, true), old, new;
	uint32_t done;

	if (!slot)
		return fd;
	if (!gv_thread_no)
		gv_thread_no = (__atomic_add_fetch(&gv_threads, 1,
						   __ATOMIC_RELAXED) &
				0x3fff) ?: 1;
	old = __atomic_load_n(slot, __ATOMIC_SEQ_CST);
	do {
		done = __atomic_load_n(&gv_fds->done, __ATOMIC_SEQ_CST);
		new = GV_FD_OWNED | (uint64_t)gv_thread_no << 2 |
		      (uint64_t)(done & 0xffffff) << 16 | gv_fd_mark(old);
	} while (!__atomic_compare_exchange_n(slot, &old, new, false,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	return fd;
}

void gv_fd_disown(int fd)
{
	uint64_t *slot = gv_fd_slot(fd, false), old, new;
	uint32_t started;

	if (!slot)
		return;
	old = __atomic_load_n(slot, __ATOMIC_SEQ_CST);
	do {
		new = 0;
		if (__atomic_load_n(&gv_fds->unread, __ATOMIC_SEQ_CST)) {
			started = __atomic_load_n(&gv_fds->started,
						  __ATOMIC_SEQ_CST);
			new = GV_FD_MARKED |
			      (uint64_t)(started & 0xffffff) << 40;
		}
	} while (!__atomic_compare_exchange_n(slot, &old, new, false,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
}

/*
 * close(2) as a raw system call: glibc's close() is a cancellation point,
 * and a cancellation acted upon there would leave the descriptor open.
 */
void gv_fd_close(int fd)
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

pid_t gv_tid(void)
{
	if (!gv_thread_id)
		gv_thread_id = (pid_t)syscall(SYS_gettid);
	return gv_thread_id;
}

static void gv_fork_prepare(void)
{
	struct gv_fd_table *t = __atomic_load_n(&gv_fds, __ATOMIC_ACQUIRE);

	if (!t)
		return;
	/* a fork that fails leaves unread raised: marks then, no harm */
	__atomic_add_fetch(&t->unread, 1, __ATOMIC_SEQ_CST);
	gv_this_fork = __atomic_add_fetch(&t->started, 1, __ATOMIC_SEQ_CST);
}

static void gv_fork_parent(void)
{
	struct gv_fd_table *t = __atomic_load_n(&gv_fds, __ATOMIC_ACQUIRE);

	if (t)
		__atomic_add_fetch(&t->done, 1, __ATOMIC_SEQ_CST);
}

/* Whether the child of this fork closes the number of entry @v. */
static bool gv_fd_child_closes(uint64_t v)
{
	uint32_t fork = gv_this_fork & 0xffffff;

	/* closed after this fork began */
	if ((v & GV_FD_MARKED) && gv_seq_ge(GV_FD_STARTED(v), fork))
		return true;
	/* owned by another thread since before this fork was over */
	return (v & GV_FD_OWNED) && GV_FD_THREAD(v) != gv_thread_no &&
	       !gv_seq_ge(GV_FD_DONE(v), fork);
}

/*
 * In the child, only the thread that called fork() exists: the calls of
 * the others do not go on, so their descriptors go. This thread's own (a
 * fork() from a signal handler that interrupted a call) stay, and its call
 * closes them: they move to the child's own table.
 */
static void gv_fork_child(void)
{
	struct gv_fd_table *t = gv_fds;
	int mine[16];
	unsigned int nmine = 0;

	gv_thread_id = 0;
	if (!t)
		return;
	for (unsigned int p = 0; p < GV_FD_PAGES; p++) {
		uint64_t *page = gv_fd_mapped[p];

		for (unsigned int i = 0; page && i < GV_FD_PAGE; i++) {
			uint64_t v = __atomic_load_n(&page[i],
						     __ATOMIC_SEQ_CST);
			int fd = (int)(p * GV_FD_PAGE + i);

			if ((v & GV_FD_OWNED) &&
			    GV_FD_THREAD(v) == gv_thread_no &&
			    nmine < GV_ARRAY_SIZE(mine))
				mine[nmine++] = fd;
			else if (gv_fd_child_closes(v))
				syscall(SYS_close, fd);
		}
	}
	__atomic_sub_fetch(&t->unread, 1, __ATOMIC_SEQ_CST);
	for (unsigned int p = 0; p < GV_FD_PAGES; p++) {
		if (gv_fd_mapped[p])
			munmap(gv_fd_mapped[p], GV_FD_BYTES);
		gv_fd_mapped[p] = NULL;
	}
	munmap(t, sizeof(*t));
	gv_fds = NULL;
	for (unsigned int k = 0; k < nmine; k++)
		gv_fd_own(mine[k]);
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

static int gv_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void gv_fd_flush(struct gv_closer *c)
{
	unsigned int i = 0, j;

	if (c->n > 1)
		qsort(c->fd, c->n, sizeof(c->fd[0]), gv_int_cmp);
	while (i < c->n) {
		for (j = i + 1; j < c->n && c->fd[j] == c->fd[j - 1] + 1; j++)
			;
		for (unsigned int k = i; k < j; k++)
			gv_fd_disown(c->fd[k]);
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
