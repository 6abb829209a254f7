// SPDX-License-Identifier: MIT
/*
 * mnt.c - the mnt and mntns groups: the mount $ORIGIN is on, and the mounts
 * of the caller's mount namespace.
 *
 * The field names are final; the values come with statmount()/listmount()
 * and the mountinfo fallback. Until then every value is ENOENT.
 */
#include <errno.h>

#include "internal.h"

static int gv_mnt_todo(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	(void)ctx;
	(void)req;
	(void)out;
	return -ENOENT;
}

static const struct gv_field gv_mnt_fields[] = {
	{ "id", gv_mnt_todo, 0, 0 },
	{ "parentid", gv_mnt_todo, 0, 0 },
	{ "root", gv_mnt_todo, 0, 0 },
	{ "mountpoint", gv_mnt_todo, 0, 0 },
	{ "options", gv_mnt_todo, 0, 0 },
	{ "shared", gv_mnt_todo, 0, 0 },
	{ "master", gv_mnt_todo, 0, 0 },
	{ "propagate_from", gv_mnt_todo, 0, 0 },
	{ "unbindable", gv_mnt_todo, 0, 0 },
	{ "dev", gv_mnt_todo, 0, 0 },
	{ "fstype", gv_mnt_todo, 0, 0 },
	{ "source", gv_mnt_todo, 0, 0 },
	{ "superopts", gv_mnt_todo, 0, 0 },
	{ NULL, NULL, 0, 0 },
};

void gv_mnt_release(struct gv_ctx *ctx)
{
	(void)ctx;
}

const struct gv_group gv_group_mnt = {
	.name = "mnt",
	.syntax = GV_SYNTAX_FIELD,
	.fields = gv_mnt_fields,
};

const struct gv_group gv_group_mntns = {
	.name = "mntns",
	.syntax = GV_SYNTAX_ID_FIELD,
	.list = gv_mnt_todo,
	.get = gv_mnt_todo,
	.id_fields = gv_mnt_fields,
};
