// SPDX-License-Identifier: MIT
/*
 * fs.c - the fs group: statfs(2) data of the file system $ORIGIN is on.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>

#include "groups.h"
#include "lookup.h"

static int gv_fs_number(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	const struct statfs *sfs;
	const char *p;
	uint64_t v;
	int err = gv_origin_statfs(ctx, &sfs);

	if (err)
		return err;
	p = (const char *)sfs + req->field->arg;
	v = req->field->arg2 == 4 ? *(const uint32_t *)p : *(const uint64_t *)p;
	return gv_put_u64(out, v);
}

static int gv_fs_type(struct gv_ctx *ctx, const struct gv_req *req,
		      struct gv_out *out)
{
	const struct statfs *sfs;
	int err = gv_origin_statfs(ctx, &sfs);

	(void)req;
	return err ? err :
		gv_putf(out, "0x%lx", (unsigned long)(uint32_t)sfs->f_type);
}

/* The ST_* bits of statfs f_flags, in bit order; ST_VALID is internal. */
static const struct { unsigned long bit; const char *name; } gv_st_flags[] = {
	{ ST_RDONLY, "rdonly" },	{ ST_NOSUID, "nosuid" },
	{ ST_NODEV, "nodev" },		{ ST_NOEXEC, "noexec" },
	{ ST_SYNCHRONOUS, "synchronous" }, { ST_MANDLOCK, "mandlock" },
	{ ST_WRITE, "write" },		{ ST_APPEND, "append" },
	{ ST_IMMUTABLE, "immutable" },	{ ST_NOATIME, "noatime" },
	{ ST_NODIRATIME, "nodiratime" }, { ST_RELATIME, "relatime" },
	{ 0x2000, "nosymfollow" },	/* ST_NOSYMFOLLOW, Linux 5.10 */
};

static int gv_fs_flags(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	const struct statfs *sfs;
	bool first = true;
	int err = gv_origin_statfs(ctx, &sfs);

	(void)req;
	for (size_t i = 0; !err && i < GV_ARRAY_SIZE(gv_st_flags); i++) {
		if (!(sfs->f_flags & gv_st_flags[i].bit))
			continue;
		if (!first)
			err = gv_put(out, ",", 1);
		if (!err)
			err = gv_puts(out, gv_st_flags[i].name);
		first = false;
	}
	return err;
}

#define N(name, member) { #name, gv_fs_number, \
	offsetof(struct statfs, member), sizeof(((struct statfs *)0)->member) }

static const struct gv_field gv_fs_fields[] = {
	{ "type", gv_fs_type, 0, 0 },
	N(bsize, f_bsize),
	N(frsize, f_frsize),
	N(blocks, f_blocks),
	N(bfree, f_bfree),
	N(bavail, f_bavail),
	N(files, f_files),
	N(ffree, f_ffree),
	N(namelen, f_namelen),
	{ "flags", gv_fs_flags, 0, 0 },
	{ NULL, NULL, 0, 0 },
};

const struct gv_group gv_group_fs = {
	.name = "fs",
	.syntax = GV_SYNTAX_FIELD,
	.fields = gv_fs_fields,
	.list = gv_list_fields,
};
