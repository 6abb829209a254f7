// SPDX-License-Identifier: MIT
/*
 * columns.c - the columns of the mount table, which the options name
 * (options.c) and the mounts mode fetches (mounts.c).
 */
#include <string.h>
#include <strings.h>

#include "cmd.h"

/*
 * The columns of the mount table: each field of the mnt group under its
 * own name (options merged with superopts, as findmnt(8) shows them),
 * then under the names findmnt gives the same values.
 */
const struct mnt_column mnt_columns[] = {
	{ .name = "id",			.field = "id",		.number = true },
	{ .name = "parentid",		.field = "parentid",	.number = true },
	{ .name = "root",		.field = "root" },
	{ .name = "mountpoint",		.field = "mountpoint" },
	/* findmnt's OPTIONS: the mount's and the super-block's */
	{ .name = "options",		.field = "options",
					.field2 = "superopts" },
	{ .name = "shared",		.field = "shared",	.number = true },
	{ .name = "master",		.field = "master",	.number = true },
	{ .name = "propagate_from",	.field = "propagate_from",
					.number = true },
	{ .name = "unbindable",		.field = "unbindable" },
	{ .name = "dev",		.field = "dev" },
	{ .name = "fstype",		.field = "fstype" },
	{ .name = "source",		.field = "source" },
	{ .name = "superopts",		.field = "superopts" },
	/* findmnt's names; its OPTIONS also holds the super-block's */
	{ .name = "target",		.field = "mountpoint" },
	{ .name = "parent",		.field = "parentid",	.number = true },
	{ .name = "fsroot",		.field = "root" },
	{ .name = "maj:min",		.field = "dev" },
	{ .name = "vfs-options",	.field = "options" },
	{ .name = "fs-options",		.field = "superopts" },
};

_Static_assert(sizeof(mnt_columns) / sizeof(mnt_columns[0]) == NMNT_COLUMNS,
	       "NMNT_COLUMNS in cmd.h counts the columns");

/* The column named @name (@len bytes, any case), or NULL. */
const struct mnt_column *mnt_column_find(const char *name, size_t len)
{
	for (size_t i = 0; i < NMNT_COLUMNS; i++)
		if (strlen(mnt_columns[i].name) == len &&
		    !strncasecmp(mnt_columns[i].name, name, len))
			return &mnt_columns[i];
	return NULL;
}
