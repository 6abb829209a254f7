/* SPDX-License-Identifier: MIT */
/*
 * internal.h - declarations shared by the library's own files; not installed.
 *
 * Internal functions return 0 or a negative errno; only the public entry
 * points turn that into -1 and errno.
 */
#ifndef GV_INTERNAL_H
#define GV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>

#include "getvalues.h"

#define GV_EXPORT __attribute__((visibility("default")))

/*
 * The code of readfile() and of every descriptor's bookkeeping, kept
 * together in .text.hot. With page-table isolation and no PCID (x86
 * without the Meltdown fix in hardware, as in many virtual machines) every
 * system call empties the TLB, and each page of code or data touched after
 * it costs a page walk: some 10 ns here, as much as 30 instructions.
 */
#define GV_HOT __attribute__((hot))

#define GV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * fds.c: every descriptor the library opens is owned, from open() to
 * close, so that a fork() in another thread closes it in the child.
 */
int gv_fd_own(int fd);			/* returns @fd */
void gv_fd_disown(int fd);
void gv_fd_close(int fd);		/* disown, close; -1 is ignored */
void gv_fd_close_cleanup(void *arg);	/* pthread_cleanup_push(): int * */
/* Descriptors a call closes later, many in one close_range(2). */
struct gv_closer {
	unsigned int n;
	int fd[64];
};
void gv_fd_defer(struct gv_closer *c, int fd);	/* -1 is ignored */
void gv_fd_flush(struct gv_closer *c);
pid_t gv_tid(void);			/* the calling thread, cached */

/* readfile.c */
ssize_t gv_sync_readfile(int dfd, const char *path, void *buf, size_t size,
			 int flags);

/*
 * uaccess.c: the caller's memory is read and written through
 * process_vm_readv/writev on our own pid, so that a bad pointer becomes
 * EFAULT instead of a crash, as it would in a system call.
 */
void gv_uaccess_end(void);	/* at the end of a call */
int gv_copy_from_user(void *dst, uintptr_t src, size_t len);
ssize_t gv_read_into_user(int fd, uintptr_t dst, size_t len, size_t chunk);
int gv_copy_to_user(uintptr_t dst, const void *src, size_t len);

/* Pairs of iovecs written in few system calls: how many landed, in order. */
struct iovec;
size_t gv_copy_to_user_iov(const struct iovec *l, const struct iovec *r,
			   size_t n);
/* Read a NUL-terminated string of at most @max bytes (NUL excluded). */
int gv_strncpy_from_user(char *dst, uintptr_t src, size_t max);
/*
 * The regions the names of this thread's last call lay in, read again with
 * the next call's vector, as a guess (see uaccess.c).
 */
#define GV_PREREAD_MAX 4
struct gv_preread {
	unsigned int n;
	uintptr_t base[GV_PREREAD_MAX];
	size_t len[GV_PREREAD_MAX], got[GV_PREREAD_MAX];
	char data[16384];	/* GV_PREREAD_BYTES */
};
int gv_copy_from_user_pre(void *dst, uintptr_t src, size_t len,
			  struct gv_preread *pre);
bool gv_preread_take(const struct gv_preread *pre, struct iovec *r,
		     void *dst);
void gv_preread_remember(const struct iovec *r, size_t nreg);
int gv_strings_from_user(const uintptr_t *src, size_t n, size_t max,
			 const char **out, int *lens, char **store,
			 const struct gv_preread *pre);

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
	/* 0 when usable in this process, else -errno; run once, cached */
	int (*probe)(void);
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
	 * getvalues(), optional: the whole call, for a backend that does it
	 * all itself (native). The count of entries handled, or -errno.
	 */
	int (*getvalues)(int dfd, const char *path, struct name_val *vec,
			 size_t num, unsigned int flags);
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
/* Backend @id stopped working in this process (seccomp, rlimits). */
void gv_backend_lost(enum gv_backend_id id);
/*
 * getvalues() on a backend that takes the whole call (native: forced, or
 * under auto when the kernel has it), or -EGV_SYNC: the library does it.
 */
int gv_backend_getvalues(enum gv_backend_id id, int dfd, const char *path,
			 struct name_val *vec, size_t num, unsigned int flags);
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
/* How auto sees the file system of $ORIGIN (batch.c). */
enum gv_fs_class {
	GV_FS_MEMORY, GV_FS_DISK, GV_FS_OTHER, GV_FS_PROC,
	GV_FS_SYS,	/* sysfs, cgroupfs and the other kernel files */
};
/* Tests: make auto see every $ORIGIN as @cls (-1: as it is). */
void gv_backend_force_fs_class(int cls);

/*
 * batch.c: how one getvalues() call fetches its data: values. data.c asks
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
#define EGV_SYNC 4097
void gv_batch_begin(struct gv_ctx *ctx);
int gv_batch_data(struct gv_ctx *ctx, const struct gv_req *req,
		  struct gv_out *out);
int gv_batch_probe(struct gv_ctx *ctx, const struct gv_req *req, int fd,
		   struct gv_out *out);
void gv_batch_end(struct gv_ctx *ctx);
void gv_batch_new_process(void);
void gv_batch_test_running(int n);

/* uring_batch.c: the uring backend's batch ops, and for tests, the slots
 * of this thread's ring still holding a file */
int gv_uring_batch_fetch(struct gv_ctx *ctx, size_t from,
			 const struct gv_out *out, struct gv_batch **batch);
int gv_uring_batch_get(struct gv_batch *b, size_t i, struct gv_out *out);
void gv_uring_batch_free(struct gv_batch *b);
bool gv_uring_refuses(struct gv_ctx *ctx, const char *path);
bool gv_ring_warm(void);
int gv_uring_busy_slots(void);

/*
 * getvalues.c: a getvalues() call the library makes for its own callers
 * (alloc.c). Entries @from to the end are handled, their names parsed from
 * entry 0 on so that a shorthand at @from keeps its prefix; the value_in
 * of every entry is ignored: the first handled gets @buf, the others
 * follow it. @tail[0], if not empty, is written into @tail[1] after the
 * results, in the same system call. Returns the count of entries handled
 * from @from, as getvalues() would (@from < num), or -errno.
 */
struct gv_call {
	size_t from;
	void *buf;
	size_t size;
	struct iovec tail[2];
	size_t used;		/* out: the bytes of @buf the values took */
};
int gv_getvalues_call(int dfd, const char *path, struct name_val *vec,
		      size_t num, unsigned int flags, struct gv_call *call);
/* value_out and error of @n entries of @vec into @uvec, then @tail (or NULL) */
int gv_results_to_user(struct name_val *uvec, const struct name_val *vec,
		       size_t n, const struct iovec *tail);
/* Tests: library calls through a copy of the vector, as for native. */
void gv_getvalues_test_copy(bool on);

/* ---- getvalues(): the per-call context, parsed names and value sinks ---- */

#define GV_NAME_MAX	255	/* longest name as the caller writes it */
#define GV_EXPANDED_MAX	(2 * GV_NAME_MAX + 32)

struct gv_ctx;
struct gv_req;
struct gv_out;

typedef int (*gv_getter)(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out);

/* One field of a group: one table line plus its getter. */
struct gv_field {
	const char *name;
	gv_getter get;
	size_t arg;		/* for the getter: an offset, a selector */
	unsigned int arg2;
};

/* How the text after "GROUP:" is read. */
enum gv_syntax {
	GV_SYNTAX_FIELD,	 /* mnt:FIELD, fs:FIELD */
	GV_SYNTAX_FIELD_SUBPATH, /* stat:FIELD[:SUBPATH] */
	GV_SYNTAX_VERBATIM,	 /* data:SUBPATH, dir:SUBPATH, xattr:NAME */
	GV_SYNTAX_ID_FIELD,	 /* mntns:ID[:FIELD] */
};

struct gv_group {
	const char *name;
	enum gv_syntax syntax;
	const struct gv_field *fields;	/* NULL-terminated, or NULL */
	/* "GROUP" alone, when it is not the list of field names */
	gv_getter list;
	/* "GROUP:ARG" for verbatim groups */
	gv_getter get;
	/* "mntns:ID" alone: checks ID, then lists these fields */
	const struct gv_field *id_fields;
};

/* A parsed name. */
struct gv_req {
	const struct gv_group *group;	/* NULL: the list of groups */
	const struct gv_field *field;	/* NULL: a listing */
	const char *arg;		/* SUBPATH, xattr name: NUL-terminated */
	uint32_t id;			/* mntns:ID */
	bool has_id;
	bool bad_id;			/* ID is no number (err ENOENT) */
	bool follow;			/* stat (true) or lstat (false) */
	int err;			/* > 0: the name itself is bad */
};

/*
 * Where a getter puts its value. Small values are staged in library memory
 * (gv_put*); file contents and xattrs go straight into the caller's buffer
 * through the kernel (gv_out_direct). A value fits only if it is strictly
 * shorter than @room; gv_put* return -EOVERFLOW as soon as it cannot.
 */
struct gv_out {
	struct gv_walk *walk;
	size_t room;		/* space left in the current buffer */
	size_t start;		/* of this value in the staging arena */
	size_t len;		/* bytes of this value so far */
	uintptr_t dst;		/* current position in the caller's buffer */
	bool direct;		/* the value is already in the caller's buffer */
};

int gv_put(struct gv_out *out, const void *p, size_t n);
int gv_puts(struct gv_out *out, const char *s);
int gv_putf(struct gv_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int gv_put_u64(struct gv_out *out, uint64_t v);
/* A list item: @s and its NUL. */
int gv_put_item(struct gv_out *out, const char *s, size_t n);
/*
 * The contents of @fd, from its offset to EOF. @short_is_eof: a read that
 * returns less than asked is at end of file (a regular file of a file
 * system that says so, open.c), so no read is made to see EOF.
 */
int gv_put_read(struct gv_out *out, int fd, bool short_is_eof);
/* The names of @fields as a list. */
int gv_put_field_names(struct gv_out *out, const struct gv_field *fields);
/*
 * Let the kernel write the value into the caller's buffer: @*dst gets the
 * address, @*room the space. Returns -EGV_RETRY when earlier staged values
 * could not be written (the walk then redoes them one by one): pass it up.
 * Finish with gv_out_direct_done(), giving the length written. A value a
 * batch backend placed in the caller's buffer before the walk began needs
 * no flush: it only calls gv_out_direct_done().
 */
#define EGV_RETRY 4096
int gv_out_direct(struct gv_out *out, void **dst, size_t *room);
int gv_out_direct_done(struct gv_out *out, size_t len);

/* One getvalues() call. */
struct gv_ctx {
	int origin;		/* O_PATH descriptor of $ORIGIN */
	unsigned int flags;
	int dfd;		/* the caller's, and path in its memory */
	uintptr_t path;

	/*
	 * Every parsed name of the call, so that a group can fetch at once
	 * all that later entries will ask of one object (one snapshot).
	 */
	const struct gv_req *reqs;
	size_t nreqs;
	/* ... and the entries themselves, for where their values go */
	const struct name_val *vec;

	/* backend.c: how the data: values are fetched (enum gv_batch_state) */
	int batch_state;
	struct gv_batch *batch;
	bool running;		/* counted in batch.c's calls running */
	/* batch.c: auto's measurement of this call (cost.h); t0 0: none */
	uint64_t cost_t0;
	size_t cost_files;
	uint8_t cost_class, cost_mech;

	/* facts about $ORIGIN, fetched once per call when first needed */
	bool have_statfs;
	int statfs_err;
	struct statfs *sfs;

	/* lookup.c: the directory of the previous SUBPATH */
	int dir_fd;
	char *dir_path;
	int proc_fd;		/* proc.c: the thread's /proc fd directory */
	bool origin_borrowed;	/* the caller's dfd itself (no descriptor free) */
	int link_dir;		/* data.c: a directory whose names were links */

	/* descriptors to close, many at once (fds.c) */
	struct gv_closer closing;

	/* stat.c: the statx of the previous object */
	struct gv_stat_cache *stat;

	/* mnt.c: what the mount groups keep between entries */
	struct gv_mnt_cache *mnt;
};

/* names.c */
extern const struct gv_group gv_groups[];
/*
 * The prefix a shorthand ":REST" takes from the entry before it (SPEC 2.3),
 * carried from entry to entry.
 */
struct gv_prefix {
	size_t len;			/* with its ':'; 0: none */
	char buf[GV_EXPANDED_MAX + 1];
};
/* Room for a name written out: a prefix, then REST and its NUL. */
#define GV_FULL_SIZE	(GV_EXPANDED_MAX + 1 + GV_NAME_MAX)
/*
 * The name an entry stands for, after the entry that left @p: @name itself,
 * or its shorthand written out into @full (GV_FULL_SIZE bytes); and @p
 * becomes the prefix this entry leaves to the next. @len is the length of
 * @name, or the negative errno of an entry whose name could not be read.
 * NULL, and no prefix for the next entry, for such an entry and for a
 * shorthand without a prefix (the entry's EINVAL). The backend that splits
 * a vector into calls of its own carries @p across them.
 */
const char *gv_prefix_next(struct gv_prefix *p, const char *name, int len,
			   char *full);
struct gv_names {
	char *raw;			/* the names as read */
	struct gv_strblock *expanded;	/* shorthand expansions */
};
int gv_parse_names(const struct name_val *vec, size_t num,
		   struct gv_req *reqs, struct gv_names *names,
		   const struct gv_preread *pre);
void gv_names_free(struct gv_names *names);
int gv_get_value(struct gv_ctx *ctx, const struct gv_req *req,
		 struct gv_out *out);

/* walk.c: see walk.h */
struct gv_walk;
void gv_walk_init(struct gv_walk *w, struct gv_ctx *ctx, struct name_val *vec,
		  uintptr_t uvec, size_t num, const struct gv_req *reqs);
int gv_walk(struct gv_walk *w);
void gv_walk_release(struct gv_walk *w);

/* lookup.c: SUBPATH rules and confined lookups beneath $ORIGIN */
bool gv_subpath_valid(const char *sub);
int gv_lookup_parent(struct gv_ctx *ctx, const char *sub, const char **base);
int gv_lookup_cached(struct gv_ctx *ctx, const char *sub, const char **base);
int gv_open_beneath(struct gv_ctx *ctx, int dfd, const char *path,
		    int oflags);
int gv_origin_statfs(struct gv_ctx *ctx, const struct statfs **sfs);
void gv_lookup_release(struct gv_ctx *ctx);

/* proc.c: /proc, checked to be procfs before anything is opened there */
struct statx;
int gv_proc_open(const char *rel, int oflags);
int gv_reopen(struct gv_ctx *ctx, int pin, const char *sub, int oflags,
	      const struct statx *pinned);
int gv_proc_fd_path(struct gv_ctx *ctx, int fd, char *buf, size_t size);
int gv_proc_fd_dirfd(struct gv_ctx *ctx);
void gv_proc_release(struct gv_ctx *ctx);

/*
 * open.c: data:SUBPATH opened without side effects, for data.c and the
 * uring batch alike.
 */
enum gv_data_kind {
	GV_DATA_FILE = 1,	/* a regular file, open for reading in fd */
	GV_DATA_LINK,		/* a symlink, O_PATH in fd: its target */
	GV_DATA_TRY,		/* no special files on this file system:
				   open SUBPATH by name beneath $ORIGIN */
};
struct gv_data_file {
	int fd;			/* the caller closes it */
	int64_t size;		/* of a GV_DATA_FILE; -1 when unknown */
};
/* A gv_data_kind, or -errno for the entry. */
int gv_data_open(struct gv_ctx *ctx, const char *sub, struct gv_data_file *f);
int gv_data_open_pinned(struct gv_ctx *ctx, int pin, const char *sub,
			struct gv_data_file *f);
/* The open(2) flags of a data: file (O_NONBLOCK: data: never waits). */
int gv_data_open_flags(void);
/* $ORIGIN is on a file system without special files (open.c says which) */
bool gv_data_shortcut(struct gv_ctx *ctx);
/* ... whose regular files end where a read returns less than asked */
bool gv_data_short_is_eof(struct gv_ctx *ctx);
/* data:SUBPATH with a non-empty SUBPATH (the name of a file beneath) */
bool gv_data_is_file(const struct gv_req *req);
/* @sub has the shape of one of procfs's symlinks, $ORIGIN on procfs */
bool gv_data_proc_link(struct gv_ctx *ctx, const char *sub);

/* the groups */
extern const struct gv_group gv_group_mnt, gv_group_mntns, gv_group_xattr,
	gv_group_data, gv_group_dir, gv_group_stat, gv_group_lstat,
	gv_group_fs;
int gv_dir_list(struct gv_ctx *ctx, const struct gv_req *req,
		struct gv_out *out);
void gv_stat_release(struct gv_ctx *ctx);
void gv_mnt_release(struct gv_ctx *ctx);

#endif /* GV_INTERNAL_H */
