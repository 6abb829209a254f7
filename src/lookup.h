/* SPDX-License-Identifier: MIT */
/*
 * lookup.h - lookups and opens beneath $ORIGIN: SUBPATH rules and
 * confined lookups (lookup.c), the reopen of a pinned file (reopen.c), and
 * a data: file opened without side effects (data_open.c).
 */
#ifndef GV_LOOKUP_H
#define GV_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "ctx.h"

/* lookup.c: SUBPATH rules and confined lookups beneath $ORIGIN */
bool gv_subpath_valid(const char *sub);
bool gv_subpath_check(const char *sub, const char **slash);
int gv_lookup_parent(struct gv_ctx *ctx, const char *sub, const char **base);
int gv_lookup_cached(struct gv_ctx *ctx, const char *sub, const char **base);
int gv_open_beneath(struct gv_ctx *ctx, int dfd, const char *path,
		    int oflags);
/*
 * @fn(name, @arg) for each name of the open directory @fd, "." and ".."
 * among them, until it returns non-zero: that value; 0 at the end, or
 * -errno from getdents64(2).
 */
int gv_dir_each(int fd, int (*fn)(const char *name, void *arg), void *arg);
int gv_autofs_statx(struct gv_ctx *ctx, int dfd, const char *base, int flags,
		    unsigned int mask, struct statx *stx);
int gv_origin_statfs(struct gv_ctx *ctx, const struct statfs **sfs);
uint32_t gv_origin_magic_slow(struct gv_ctx *ctx);

/*
 * The f_type of $ORIGIN's file system, 0 when fstatfs(2) cannot say: asked
 * for every data: value, so inline, and a system call only the first time.
 */
static inline uint32_t gv_origin_magic(struct gv_ctx *ctx)
{
	if (__builtin_expect(ctx->have_statfs, 1))
		return ctx->fs_magic;
	return gv_origin_magic_slow(ctx);
}

/* $ORIGIN is on procfs (as fstatfs(2) says; not when it cannot say) */
static inline bool gv_origin_on_procfs(struct gv_ctx *ctx)
{
	return gv_origin_magic(ctx) == PROC_SUPER_MAGIC;
}
void gv_lookup_release(struct gv_ctx *ctx);

struct statx;
/* reopen.c: the file pinned by @pin, opened with @oflags, checked */
int gv_reopen(struct gv_ctx *ctx, int pin, const char *sub, int oflags,
	      const struct statx *pinned);

/*
 * data_open.c: data:SUBPATH opened without side effects, for data.c and the
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
#define GV_DATA_OPEN (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/*
 * $ORIGIN is on a file system without special files, where data: opens
 * by name (data_open.c says why that is sound there); not on a borrowed
 * $ORIGIN, a number that may name another file by now.
 */
static inline bool gv_data_shortcut(struct gv_ctx *ctx)
{
	if (ctx->origin_borrowed)
		return false;
	switch (gv_origin_magic(ctx)) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
		return true;
	}
	return false;
}

/*
 * $ORIGIN's regular files end where a read returns less than asked. So on
 * tmpfs and ramfs, whose files are read from the page cache to the end of
 * what was asked or of the file, whatever comes first (Linux 6.12:
 * shmem_file_read_iter(), and filemap_read() for ramfs, stop early only on
 * a fault, or on a fatal signal, which the caller does not outlive): no
 * second read is needed to see end of file there. (On a disk file system
 * a read error after the first pages also returns short; the read that
 * follows tells EIO.)
 */
static inline bool gv_data_short_is_eof(struct gv_ctx *ctx)
{
	uint32_t magic = gv_origin_magic(ctx);

	return magic == TMPFS_MAGIC || magic == RAMFS_MAGIC;
}
/* data:SUBPATH with a non-empty SUBPATH (the name of a file beneath) */
bool gv_data_is_file(const struct gv_req *req);
/* @sub has the shape of one of procfs's symlinks, $ORIGIN on procfs */
bool gv_data_proc_link(struct gv_ctx *ctx, const char *sub);
/* ... @slash its last '/' (NULL: none), as gv_subpath_check() gives it */
bool gv_data_proc_link_at(struct gv_ctx *ctx, const char *sub,
			  const char *slash);

#endif /* GV_LOOKUP_H */
