// SPDX-License-Identifier: MIT
/*
 * data_policy.c - how the data: values of one getvalues() call are
 * fetched: one at a time by data.c, or all at once by the io_uring
 * backend (uring_batch.c), and the auto policy that chooses.
 *
 * auto chooses from what it measured of the library's own calls in this
 * process (cost.c): the time per file of each mechanism, by class of
 * files and size of call. What io_uring saves is system calls, some 100 ns
 * each on a machine without page-table isolation, a microsecond or more
 * with it or behind a long seccomp filter; what it costs is the ring's
 * work and, where a read cannot complete without blocking, a hand-over to
 * an io-wq worker thread, which wins wall time only with a CPU to spare.
 * Until it has measured both, auto starts from constants (its priors),
 * measured with bench/batch (bench/RESULTS.md):
 *   - procfs, from 16 data: files on: io_uring where a system call costs
 *     800 ns or more (measured once per process, cost.c), sync below.
 *     16 to 256 files through io_uring took 0.59-0.77x the wall time of
 *     sync on a VM with page-table isolation (a call ~1 us), 0.91-1.00x
 *     behind a seccomp filter that made a call cost 500-550 ns, and
 *     1.2-1.4x on an AMD EPYC without it (120 ns). Behind that filter a
 *     short-lived program pays for a ring and the calls that learn it is
 *     no faster: gvlsof took 1.26x the wall time of plain calls with the
 *     prior at 400 ns (bench/lsof). Below 800 ns no ring is made for it;
 *   - sysfs, tmpfs and the other memory file systems: sync (the workers
 *     win no wall time and take more CPU time);
 *   - ext2/3/4, xfs, btrfs, f2fs: io_uring from one file on; it reads
 *     cached files inline and queues the reads of cold ones all at once
 *     (3x-5x faster than sync for 64 and 1000 cold files);
 *   - other file systems: sync.
 * Some choices are not learned, since the next call would not be like the
 * last: a file system that may hold cold files (disk, other) on sync from
 * 8 files on first reads one byte of the first file with
 * preadv2(RWF_NOWAIT), and a file that is not cached (EAGAIN) sends the
 * call to io_uring; procfs goes to io_uring's workers only where this
 * process has fewer calls running than CPUs, and not at a thread's first
 * such call, which would pay for the ring; nor is a ring made only to see
 * whether io_uring became the cheaper.
 */
#include <errno.h>
#include <sched.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cost.h"
#include "internal.h"

/* data: files from which auto batches by its priors; see above */
#define GV_AUTO_PROC_FILES	16	/* on procfs, with two CPUs or more */
#define GV_AUTO_PROC_SYSCALL	800	/* ns a system call costs, at least */
#define GV_AUTO_DISK_FILES	1	/* on disk file systems */
#define GV_AUTO_PROBE_FILES	8	/* sync: probe the first for cold */

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif

/*
 * getvalues() calls running in this process on the library's path, this
 * one included: io_uring's workers win wall time on procfs only with a
 * CPU of their own, which a program already calling from one thread per
 * CPU (gvlsof shares a listing out that way) does not leave them. Where
 * they ran beside such threads, the listing took some 17% longer than on
 * plain system calls (bench/lsof). A new process starts from 0: the
 * calls of its parent's other threads do not go on in it.
 */
static int gv_calls_running;
static unsigned long gv_calls_gen;	/* the gv_fork_gen() it counts in */

/*
 * The first call in a new process starts the count from 0, as uring.c
 * makes a new ring: fds.c's generation says the process is new.
 */
static void gv_calls_new_process(void)
{
	unsigned long gen = gv_fork_gen();
	unsigned long old = __atomic_load_n(&gv_calls_gen, __ATOMIC_ACQUIRE);

	if (old != gen &&
	    __atomic_compare_exchange_n(&gv_calls_gen, &old, gen, false,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		__atomic_store_n(&gv_calls_running, 0, __ATOMIC_RELAXED);
}

/* Tests: @n more calls running (or fewer), as if other threads made them. */
void gv_batch_test_running(int n)
{
	__atomic_add_fetch(&gv_calls_running, n, __ATOMIC_RELAXED);
}

void gv_batch_begin(struct gv_ctx *ctx)
{
	gv_calls_new_process();
	__atomic_add_fetch(&gv_calls_running, 1, __ATOMIC_RELAXED);
	ctx->running = true;
	switch (gv_backend_forced()) {
	case GV_BACKEND_AUTO:
		ctx->batch_state = GV_BATCH_DECIDE;
		break;
	case GV_BACKEND_URING:
		ctx->batch_state = GV_BATCH_NOW;
		break;
	default:
		ctx->batch_state = GV_BATCH_OFF;
		break;
	}
	ctx->batch = NULL;
	ctx->cost_t0 = 0;
	gv_backend_set_last(GV_BACKEND_SYNC);
}

void gv_batch_end(struct gv_ctx *ctx)
{
	if (ctx->cost_t0)
		gv_cost_record(ctx->cost_class, ctx->cost_files,
			       ctx->cost_mech, gv_cost_now() - ctx->cost_t0);
	ctx->cost_t0 = 0;
	if (ctx->running)
		__atomic_sub_fetch(&gv_calls_running, 1, __ATOMIC_RELAXED);
	ctx->running = false;
	if (ctx->batch)
		gv_backend_uring.batch_free(ctx->batch);
	ctx->batch = NULL;
	ctx->batch_state = GV_BATCH_OFF;
}

#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xf2f52010
#endif

static int gv_fs_class_forced = -1;

void gv_backend_force_fs_class(int cls)
{
	__atomic_store_n(&gv_fs_class_forced, cls, __ATOMIC_RELAXED);
}

static enum gv_fs_class gv_fs_class(struct gv_ctx *ctx)
{
	int forced = __atomic_load_n(&gv_fs_class_forced, __ATOMIC_RELAXED);
	const struct statfs *sfs;

	if (forced >= 0)
		return forced;
	if (gv_origin_statfs(ctx, &sfs))
		return GV_FS_MEMORY;
	switch ((uint32_t)sfs->f_type) {
	/* in memory: nothing to wait for, and io_uring punts to a worker */
	case PROC_SUPER_MAGIC:
		return GV_FS_PROC;
	case SYSFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC:
	case BPF_FS_MAGIC:
		return GV_FS_SYS;
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case DEVPTS_SUPER_MAGIC:
	case HUGETLBFS_MAGIC:
		return GV_FS_MEMORY;
	/* block devices, buffered reads io_uring completes or queues inline */
	case EXT4_SUPER_MAGIC:		/* ext2, ext3 too */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case F2FS_SUPER_MAGIC:
		return GV_FS_DISK;
	}
	return GV_FS_OTHER;
}

/*
 * data: files from entry @i on; *@slow when one of them is learned apart
 * (cost.c). On procfs, only those the ring would fetch: a process's fd/N,
 * cwd, exe and the like are links that it leaves to data.c
 * (uring_batch.c), and a call of thousands of them, as gvlsof makes, would
 * plan a batch for nothing.
 */
static size_t gv_count_files(struct gv_ctx *ctx, size_t i, bool proc,
			     bool *slow)
{
	size_t files = 0;

	for (; i < ctx->nreqs; i++) {
		const struct gv_req *req = &ctx->reqs[i];

		if (!gv_data_is_file(req) ||
		    (proc && gv_backend_uring.refuses(ctx, req->arg)))
			continue;
		files++;
		*slow = *slow || (proc && gv_cost_slow_file(req->arg));
	}
	return files;
}

/*
 * Whether io_uring's workers would have a CPU of their own: this process
 * may run on more CPUs (asked once) than it has calls running.
 */
static bool gv_cpu_to_spare(void)
{
	static int cpus;
	cpu_set_t set;

	if (!__atomic_load_n(&cpus, __ATOMIC_RELAXED))
		__atomic_store_n(&cpus, sched_getaffinity(0, sizeof(set), &set) ?
				 2 : CPU_COUNT(&set), __ATOMIC_RELAXED);
	return __atomic_load_n(&cpus, __ATOMIC_RELAXED) >
	       __atomic_load_n(&gv_calls_running, __ATOMIC_RELAXED);
}

/* procfs calls of this thread that could have been batches */
static __thread unsigned int gv_proc_calls;

/*
 * A thread's first batch pays for its ring, the ring's io-wq workers and
 * the page faults of its staging memory, more than 16 to 256 procfs files
 * save: gvlsof, whose threads make a call or two each, took some 11%
 * longer through io_uring than on plain system calls. So a thread's first
 * such call is made on plain system calls; its batches begin with the
 * second, or where the ring is there already.
 */
static bool gv_proc_first_call(void)
{
	return !gv_backend_uring.warm() && !gv_proc_calls++;
}

/* The constant policy: auto's choice before it has measured. */
static enum gv_mech gv_auto_prior(enum gv_fs_class fs, size_t files)
{
	if (fs == GV_FS_PROC && files >= GV_AUTO_PROC_FILES &&
	    gv_cost_syscall() >= GV_AUTO_PROC_SYSCALL)
		return GV_MECH_URING;
	if (fs == GV_FS_DISK && files >= GV_AUTO_DISK_FILES)
		return GV_MECH_URING;
	return GV_MECH_SYNC;
}

static enum gv_cost_class gv_cost_class_of(enum gv_fs_class fs, bool slow)
{
	switch (fs) {
	case GV_FS_PROC:
		return slow ? GV_COST_PROC_SLOW : GV_COST_PROC;
	case GV_FS_SYS:
		return GV_COST_SYS;
	case GV_FS_MEMORY:
		return GV_COST_MEMORY;
	case GV_FS_DISK:
		return GV_COST_DISK;
	default:
		return GV_COST_OTHER;
	}
}

/* auto, at the first data: entry (@i): batch, probe, or one at a time? */
static int gv_auto_decide(struct gv_ctx *ctx, size_t i)
{
	enum gv_fs_class fs = gv_fs_class(ctx);
	bool slow = false, may_be_cold;
	size_t files = gv_count_files(ctx, i, fs == GV_FS_PROC, &slow);
	enum gv_mech mech, prior;

	/* procfs without a CPU to spare: no batch, and nothing to learn */
	if (!files || (fs == GV_FS_PROC && !gv_cpu_to_spare()))
		return GV_BATCH_OFF;
	ctx->cost_class = gv_cost_class_of(fs, slow);
	prior = gv_auto_prior(fs, files);
	mech = gv_cost_decide(ctx->cost_class, files, prior);
	/* no ring is made to explore: a child of fork() has none */
	if (mech == GV_MECH_URING && prior != mech && !gv_backend_uring.warm())
		mech = GV_MECH_SYNC;
	may_be_cold = fs == GV_FS_DISK || fs == GV_FS_OTHER;
	if (mech == GV_MECH_URING || (may_be_cold &&
				      files >= GV_AUTO_PROBE_FILES)) {
		if (gv_backend_usable(GV_BACKEND_URING))
			return GV_BATCH_OFF;
		if (mech == GV_MECH_URING && fs == GV_FS_PROC &&
		    gv_proc_first_call())
			return GV_BATCH_OFF;
	}
	if (gv_cost_learning()) {
		ctx->cost_files = files;
		ctx->cost_mech = mech;
		ctx->cost_t0 = gv_cost_now();
	}
	if (mech == GV_MECH_URING)
		return GV_BATCH_NOW;
	return may_be_cold && files >= GV_AUTO_PROBE_FILES ? GV_BATCH_PROBE :
	       GV_BATCH_OFF;
}

int gv_batch_data(struct gv_ctx *ctx, const struct gv_req *req,
		  struct gv_out *out)
{
	const struct gv_backend *be = &gv_backend_uring;
	size_t i = req - ctx->reqs;
	int err;

	switch (ctx->batch_state) {
	case GV_BATCH_DECIDE:
		ctx->batch_state = gv_auto_decide(ctx, i);
		if (ctx->batch_state != GV_BATCH_NOW)
			return -EGV_SYNC;
		/* fall through */
	case GV_BATCH_NOW:
		/*
		 * A batch that cannot be made (no ring in this thread, no
		 * memory) is no error: the values are fetched one at a time.
		 * A call that makes the thread's ring tells nothing of the
		 * next: it is not measured.
		 */
		if (!gv_backend_uring.warm())
			ctx->cost_t0 = 0;
		err = be->batch_fetch(ctx, i, out, &ctx->batch);
		if (err) {
			ctx->cost_t0 = 0;
			ctx->batch_state = GV_BATCH_OFF;
			return -EGV_SYNC;
		}
		ctx->batch_state = GV_BATCH_DONE;
		gv_backend_set_last(GV_BACKEND_URING);
		/* fall through */
	case GV_BATCH_DONE:
		return be->batch_get(ctx->batch, i, out);
	default:
		return -EGV_SYNC;
	}
}

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* every architecture's table */
#endif

/* cachestat(2)'s range and answer (Linux 6.5, <linux/mman.h>) */
struct gv_cachestat_range {
	uint64_t off, len;
};

struct gv_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/* cachestat(2) is missing or refused here: ask it no more */
static bool gv_no_cachestat;

/*
 * Whether the first page of @fd is in the page cache: 1 or 0 as
 * cachestat(2) says, which starts no I/O; -1 when it cannot say (a kernel
 * before 6.5, a seccomp filter, a file system without a page cache).
 */
static int gv_first_page_cached(int fd)
{
	struct gv_cachestat_range range = { 0, 1 };
	struct gv_cachestat cs;

	if (__atomic_load_n(&gv_no_cachestat, __ATOMIC_RELAXED))
		return -1;
	if (syscall(__NR_cachestat, fd, &range, &cs, 0)) {
		if (errno == ENOSYS || errno == EPERM)
			__atomic_store_n(&gv_no_cachestat, true,
					 __ATOMIC_RELAXED);
		return -1;
	}
	return cs.nr_cache != 0;
}

/*
 * auto: @fd is the first data: file of the call, just opened. If its first
 * page is not cached, the rest likely are not either: fetch them all at
 * once, this one included. cachestat(2) tells; a one-byte read then tells
 * an empty file (end of file needs no page: ask the next one) from a cold
 * one. Without cachestat(2), the read with RWF_NOWAIT decides alone
 * (EAGAIN: cold); it starts readahead, though, and where the device
 * answers within the call (a VM whose host has the file cached) it
 * returns the byte as if it had been cached. A call found cold is not
 * measured: the next is likely cached.
 */
int gv_batch_probe(struct gv_ctx *ctx, const struct gv_req *req, int fd,
		   struct gv_out *out)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	int cached;
	ssize_t n;

	if (ctx->batch_state != GV_BATCH_PROBE)
		return -EGV_SYNC;
	cached = gv_first_page_cached(fd);
	if (cached == 1) {
		ctx->batch_state = GV_BATCH_OFF;
		return -EGV_SYNC;
	}
	n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (n == 0)		/* empty */
		return -EGV_SYNC;
	if (cached == 0 || (n < 0 && errno == EAGAIN)) {
		ctx->cost_t0 = 0;	/* cold files: not what sync costs */
		ctx->batch_state = GV_BATCH_NOW;
		return gv_batch_data(ctx, req, out);
	}
	ctx->batch_state = GV_BATCH_OFF;
	return -EGV_SYNC;
}
