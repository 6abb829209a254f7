// SPDX-License-Identifier: MIT
/*
 * batch.c - how the data: values of one getvalues() call are fetched: one
 * at a time by data.c, or all at once by the io_uring backend
 * (uring_batch.c), and the auto policy that chooses.
 *
 * The auto policy, from bench/batch (figures in bench/RESULTS.md). What
 * io_uring saves is system calls, about a microsecond each on the VMs this
 * was measured on; what it costs is the ring's work and, where a read
 * cannot complete without blocking, a hand-over to an io-wq worker thread.
 *   - procfs, from 16 data: files on, where the process may run on more
 *     CPUs than it has getvalues() calls running: io_uring. Its workers
 *     open and read the files on a spare CPU while this thread submits:
 *     1.3x-1.7x the wall time of sync (16 to 256 files), and less CPU
 *     time too, since the files are opened, read and closed without a
 *     system call each.
 *   - sysfs, tmpfs and the other memory file systems: sync. On sysfs the
 *     workers win no wall time and take some 1.7x the CPU time; on tmpfs
 *     the files are opened by this thread all the same (they may be
 *     FIFOs) and the ring only adds its work.
 *   - ext2/3/4, xfs, btrfs, f2fs: io_uring reads cached files inline,
 *     and queues the reads of cold ones to the disk all at once; the
 *     files are opened as data.c opens them, in system calls. Up to
 *     1.2x-1.3x faster than sync for cached files, 3x-5x for cold ones
 *     (64 and 1000 files); even one cached file is some 5% faster in
 *     wall and CPU time (its value is read straight into the caller's
 *     buffer: one system call fewer). uring from one data: file on.
 *   - other file systems (network, FUSE, overlay, ...): only when the
 *     files are cold, which one preadv2(RWF_NOWAIT) of the first file's
 *     first byte tells (EAGAIN), made on the descriptor the sync path
 *     has just opened: one system call per call, only from 8 data: files
 *     on, where it costs less than 2%. A file system that cannot answer
 *     (EOPNOTSUPP: overlayfs, for one) stays on sync.
 */
#include <errno.h>
#include <sched.h>
#include <linux/magic.h>
#include <sys/uio.h>

#include "internal.h"

/* data: files from which auto batches; see above */
#define GV_AUTO_PROC_FILES	16	/* on procfs, with two CPUs or more */
#define GV_AUTO_DISK_FILES	1	/* on the file systems listed below */
#define GV_AUTO_PROBE_FILES	8	/* elsewhere, if the first is cold */

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

void gv_batch_new_process(void)
{
	__atomic_store_n(&gv_calls_running, 0, __ATOMIC_RELAXED);
}

/* Tests: @n more calls running (or fewer), as if other threads made them. */
void gv_batch_test_running(int n)
{
	__atomic_add_fetch(&gv_calls_running, n, __ATOMIC_RELAXED);
}

void gv_batch_begin(struct gv_ctx *ctx)
{
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
	gv_backend_set_last(GV_BACKEND_SYNC);
}

void gv_batch_end(struct gv_ctx *ctx)
{
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
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC:
	case BPF_FS_MAGIC:
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
 * data: files from entry @i on, up to @max. On procfs, only those the ring
 * would fetch: a process's fd/N, cwd, exe and the like are links that it
 * leaves to data.c (uring_batch.c), and a call of thousands of them, as
 * gvlsof makes, would plan a batch for nothing.
 */
static size_t gv_count_files(struct gv_ctx *ctx, size_t i, size_t max,
			     bool ring_only)
{
	size_t files = 0;

	for (; i < ctx->nreqs && files < max; i++)
		files += gv_data_is_file(&ctx->reqs[i]) &&
			 !(ring_only && gv_uring_refuses(ctx,
							 ctx->reqs[i].arg));
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

/* auto, at the first data: entry (@i): batch, probe, or one at a time? */
static int gv_auto_decide(struct gv_ctx *ctx, size_t i)
{
	int state;

	switch (gv_fs_class(ctx)) {
	case GV_FS_PROC:
		if (!gv_cpu_to_spare() ||
		    gv_count_files(ctx, i, GV_AUTO_PROC_FILES, true) <
		    GV_AUTO_PROC_FILES)
			return GV_BATCH_OFF;
		/*
		 * A thread's first batch pays for its ring, the ring's io-wq
		 * workers and the page faults of its staging memory, more
		 * than 16 to 256 procfs files save: gvlsof, whose threads
		 * make a call or two each, took some 11% longer through
		 * io_uring than on plain system calls. So a thread's first
		 * such call is made on plain system calls; its batches begin
		 * with the second, or where the ring is there already.
		 */
		if (!gv_ring_warm() && !gv_proc_calls++)
			return GV_BATCH_OFF;
		state = GV_BATCH_NOW;
		break;
	case GV_FS_DISK:
		if (gv_count_files(ctx, i, GV_AUTO_DISK_FILES, false) <
		    GV_AUTO_DISK_FILES)
			return GV_BATCH_OFF;
		state = GV_BATCH_NOW;
		break;
	case GV_FS_OTHER:
		if (gv_count_files(ctx, i, GV_AUTO_PROBE_FILES, false) <
		    GV_AUTO_PROBE_FILES)
			return GV_BATCH_OFF;
		state = GV_BATCH_PROBE;
		break;
	default:
		return GV_BATCH_OFF;
	}
	return gv_backend_usable(GV_BACKEND_URING) ? GV_BATCH_OFF : state;
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
		 */
		err = be->batch_fetch(ctx, i, out, &ctx->batch);
		if (err) {
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

/*
 * auto: @fd is the first data: file of the call, just opened. If its first
 * byte cannot be read without waiting for the device, the rest likely
 * cannot either: fetch them all at once, this one included. An empty file
 * tells nothing (end of file needs no page): ask the next one.
 */
int gv_batch_probe(struct gv_ctx *ctx, const struct gv_req *req, int fd,
		   struct gv_out *out)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	ssize_t n;

	if (ctx->batch_state != GV_BATCH_PROBE)
		return -EGV_SYNC;
	n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (n < 0 && errno == EAGAIN) {
		ctx->batch_state = GV_BATCH_NOW;
		return gv_batch_data(ctx, req, out);
	}
	if (n != 0)
		ctx->batch_state = GV_BATCH_OFF;
	return -EGV_SYNC;
}
