/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - the types of one getvalues() call that every layer from the
 * value sinks up shares: the per-call context, a group's table (struct
 * gv_group: the ops through which the lower layers reach the groups), and
 * a parsed name.
 */
#ifndef GV_CTX_H
#define GV_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/vfs.h>

#include "common.h"
#include "fds.h"

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
	/* "GROUP" alone: its listing (gv_list_fields: its fields' names) */
	gv_getter list;
	/* "GROUP:ARG" for verbatim groups */
	gv_getter get;
	/* "mntns:ID" alone: checks ID, then lists these fields */
	const struct gv_field *id_fields;
	/* "GROUP:SUBPATH" is a file's contents (data:), read by data_open.c */
	bool reads_files;
	/* Optional: at the end of a call, drop what it kept in the ctx. */
	void (*release)(struct gv_ctx *ctx);
};

/* A parsed name. */
struct gv_req {
	const struct gv_group *group;	/* NULL: unknown (err ENOENT) */
	const struct gv_field *field;	/* NULL: a listing */
	const char *arg;		/* SUBPATH, xattr name: NUL-terminated */
	uint32_t id;			/* mntns:ID */
	bool has_id;
	bool bad_id;			/* ID is no number (err ENOENT) */
	bool follow;			/* stat (true) or lstat (false) */
	int err;			/* > 0: the name itself is bad */
};

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

	/* data_policy.c: how data: values are fetched (gv_batch_state) */
	int batch_state;
	struct gv_batch *batch;
	bool running;		/* in data_policy.c's calls running */
	/* data_policy.c: auto's measure of this call (cost.h); t0 0: none */
	uint64_t cost_t0;
	size_t cost_files;
	uint8_t cost_class, cost_mech;

	/* facts about $ORIGIN, fetched once per call when first needed */
	bool have_statfs;
	int statfs_err;
	struct statfs *sfs;
	uint32_t fs_magic;	/* sfs->f_type; 0 when fstatfs(2) failed */

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
 * names.c's gv_prefix_next(), for a backend that splits a vector into
 * calls of its own (native): passed down, as the registry is above it.
 */
typedef const char *gv_prefix_next_fn(struct gv_prefix *p, const char *name,
				      int len, char *full);

#endif /* GV_CTX_H */
