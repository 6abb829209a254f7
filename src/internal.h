/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the library's own declarations, not installed: the headers
 * of every layer, and the backends and fetch policy declared here.
 *
 * Internal functions return 0 or a negative errno; only the public entry
 * points turn that into -1 and errno.
 *
 * The files of src/ keep to layers, lowest first: a file calls only files
 * of its own layer or lower: make layers (scripts/layers.py, whose
 * LAYERS is this list) reads the calls from the objects and fails on a
 * cycle or a call up a layer. Upward, only through the ops tables: a
 * group's struct gv_group (ctx.h), a backend's struct gv_backend (below),
 * and the callbacks those take (gv_prefix_next_fn, ctx.h).
 *
 *   1. descriptors, scratch memory, the caller's memory, /proc:
 *      fds.c (fds.h), scratch.c (scratch.h), uaccess.c (uaccess.h),
 *      proc.c (proc.h); the types of a call: ctx.h; common.h beneath all
 *   2. value sinks: walk.c (walk.h), sink.c (sink.h)
 *   3. lookup and open beneath $ORIGIN: lookup.c, reopen.c, data_open.c
 *      (lookup.h)
 *   4. the mount table and sources: mnt_table.c, mountinfo.c,
 *      statmount.c (mnt.h); io_uring: uring.c (uring.h), uring_batch.c,
 *      uring_backend.c; native.c; sync.c; the registry of backends:
 *      backend.c (below)
 *   5. the fetch policy of the data: values: data_policy.c (below)
 *   6. the groups: stat.c, fs.c, xattr.c, data.c, dir.c, mnt.c (groups.h)
 *   7. the name registry: names.c (names.h)
 *   8. the entry points: getvalues.c (call.h), readfile.c, alloc.c,
 *      version.c
 *
 * An edge that must go against this for a while is listed, with the change
 * that removes it, in scripts/layers.py (ALLOWED); there is none now.
 */
#ifndef GV_INTERNAL_H
#define GV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>

#include "common.h"
#include "fds.h"
#include "uaccess.h"
#include "proc.h"
#include "ctx.h"
#include "sink.h"
#include "walk.h"
#include "lookup.h"

/* ---- 4, 5: the backends and the fetch policy ---- */

/* sync.c: readfile() on plain system calls (the sync and uring backends) */
ssize_t gv_sync_readfile(int dfd, const char *path, void *buf, size_t size,
			 int flags);

/* backend.c: one ops table per mechanism, chosen per call */
enum gv_backend_id {
	GV_BACKEND_AUTO,
	GV_BACKEND_SYNC,
	GV_BACKEND_URING,
	GV_BACKEND_NATIVE,
	GV_BACKEND_UNKNOWN,
};

struct gv_ctx;
struct gv_req;
struct gv_out;
struct gv_batch;

struct gv_backend {
	const char *name;
	/*
	 * 0 when usable in this process, else -errno; run once, cached.
	 * @forced: GETVALUES_BACKEND (or a test) names this backend.
	 */
	int (*probe)(bool forced);
	ssize_t (*readfile)(int dfd, const char *path, void *buf, size_t size,
			    int flags);
	/*
	 * getvalues(), optional: fetch the data: values of entries @from to
	 * the end as one batch, before the walk reaches them. @out is entry
	 * @from's sink, so its place in the caller's buffer is known. The
	 * values stay in *@batch until batch_free().
	 */
	int (*batch_fetch)(struct gv_ctx *ctx, size_t from,
			   const struct gv_out *out, struct gv_batch **batch);
	/* Entry @i's value from the batch, or -EGV_SYNC: not in the batch. */
	int (*batch_get)(struct gv_batch *batch, size_t i, struct gv_out *out);
	void (*batch_free)(struct gv_batch *batch);
	/*
	 * Optional: whether a batch now costs no set-up (uring: this
	 * thread's ring is made, working, of this process).
	 */
	bool (*warm)(void);
	/* Optional: whether the batch leaves data:@path to data.c. */
	bool (*refuses)(struct gv_ctx *ctx, const char *path);
	/*
	 * Optional: whether the backend stopped working in this process
	 * after its probe succeeded (a seccomp filter installed later).
	 */
	bool (*lost)(void);
	/*
	 * getvalues(), optional: the whole call, for a backend that does it
	 * all itself (native). The count of entries handled, or -errno.
	 * @next writes out the shorthand of the entries it splits off.
	 */
	int (*whole_call)(int dfd, const char *path, struct name_val *vec,
			 size_t num, unsigned int flags,
			 gv_prefix_next_fn *next);
};

extern const struct gv_backend gv_backend_sync, gv_backend_uring,
	gv_backend_native;

enum gv_backend_id gv_backend_forced(void);
int gv_backend_usable(enum gv_backend_id id);
/* Tests and benchmarks: override GETVALUES_BACKEND in this process. */
void gv_backend_force(enum gv_backend_id id);
/* The backend that fetched the data: values of this thread's last call. */
enum gv_backend_id gv_backend_last(void);
void gv_backend_set_last(enum gv_backend_id id);
/*
 * getvalues() on a backend that takes the whole call (native: forced, or
 * under auto when the kernel has it), or -EGV_SYNC: the library does it.
 */
int gv_backend_getvalues(enum gv_backend_id id, int dfd, const char *path,
			 struct name_val *vec, size_t num, unsigned int flags,
			 gv_prefix_next_fn *next);
/* Whether getvalues() under @id goes to a backend that takes whole calls. */
bool gv_backend_whole(enum gv_backend_id id);
/* Tests of the sync and uring policy: let auto take native (default) or not */
void gv_backend_auto_native(bool allow);
/*
 * The backend readfile() reads with (auto: native where usable, else sync);
 * NULL and *@err: EINVAL for a GETVALUES_BACKEND that names nothing,
 * ENOSYS for a forced backend that does not work here.
 */
const struct gv_backend *gv_backend_readfile(int *err);
/* native.c: the probe, aimed at system call @nr (tests aim it elsewhere) */
int gv_native_probe_nr(long nr, bool force);
/*
 * The kernel's vector for getvalues(2) (kernel/patches/0005,
 * include/uapi/linux/getvalues.h: struct getvalues_entry): 48 bytes, every
 * field at the same offset on every ABI; its size is the call's fifth
 * argument. native.c translates struct name_val into it and back.
 */
typedef uint64_t gv_u64 __attribute__((aligned(8)));

struct gv_kbuf {
	gv_u64 base;
	gv_u64 len;
};

struct gv_kentry {
	gv_u64 name;
	struct gv_kbuf value_in;
	struct gv_kbuf value_out;
	uint32_t error;
	uint32_t reserved;
};

_Static_assert(sizeof(struct gv_kentry) == 48, "GETVALUES_ENTRY_SIZE_VER0");
#define GV_U64(p)	((uint64_t)(uintptr_t)(p))
/* How auto sees the file system of $ORIGIN (data_policy.c). */
enum gv_fs_class {
	GV_FS_MEMORY, GV_FS_DISK, GV_FS_OTHER, GV_FS_PROC,
	GV_FS_SYS,	/* sysfs, cgroupfs and the other kernel files */
};
/* Tests: make auto see every $ORIGIN as @cls (-1: as it is). */
void gv_backend_force_fs_class(int cls);

/*
 * data_policy.c: how one getvalues() call fetches its data: values. data.c asks
 * gv_batch_data() first; -EGV_SYNC means: fetch this one yourself, one at
 * a time. When the auto policy waits for the first file (GV_BATCH_PROBE),
 * data.c hands it the open file through gv_batch_probe().
 */
enum gv_batch_state {
	GV_BATCH_OFF,		/* one at a time, by the groups */
	GV_BATCH_DECIDE,	/* auto: decide at the first data: entry */
	GV_BATCH_PROBE,		/* auto: decide by whether that file is cached */
	GV_BATCH_NOW,		/* fetch the batch at the first data: entry */
	GV_BATCH_DONE,		/* fetched: the values are in ctx->batch */
};
void gv_batch_begin(struct gv_ctx *ctx);
int gv_batch_data(struct gv_ctx *ctx, const struct gv_req *req,
		  struct gv_out *out);
int gv_batch_probe(struct gv_ctx *ctx, const struct gv_req *req, int fd,
		   struct gv_out *out);
void gv_batch_end(struct gv_ctx *ctx);
void gv_batch_test_running(int n);

/* uring_batch.c: the uring backend's batch ops, and for tests, the slots
 * of this thread's ring still holding a file */
int gv_uring_batch_fetch(struct gv_ctx *ctx, size_t from,
			 const struct gv_out *out, struct gv_batch **batch);
int gv_uring_batch_get(struct gv_batch *b, size_t i, struct gv_out *out);
void gv_uring_batch_free(struct gv_batch *b);
bool gv_uring_refuses(struct gv_ctx *ctx, const char *path);
bool gv_ring_warm(void);
bool gv_uring_lost(void);
int gv_uring_busy_slots(void);

#include "groups.h"
#include "names.h"
#include "call.h"

#endif /* GV_INTERNAL_H */
