/* SPDX-License-Identifier: MIT */
/*
 * groups.h - the groups (stat.c, fs.c, xattr.c, data.c, dir.c, mnt.c):
 * each a struct gv_group, found by the name registry (names.c).
 */
#ifndef GV_GROUPS_H
#define GV_GROUPS_H

#include "ctx.h"
#include "sink.h"

extern const struct gv_group gv_group_mnt, gv_group_mntns, gv_group_xattr,
	gv_group_data, gv_group_dir, gv_group_stat, gv_group_lstat,
	gv_group_fs;
int gv_dir_list(struct gv_ctx *ctx, const struct gv_req *req,
		struct gv_out *out);

#endif /* GV_GROUPS_H */
