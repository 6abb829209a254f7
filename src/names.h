/* SPDX-License-Identifier: MIT */
/*
 * names.h - the name registry (names.c): the groups by name, the names of
 * a call parsed and their shorthand written out.
 */
#ifndef GV_NAMES_H
#define GV_NAMES_H

#include <stddef.h>

#include "ctx.h"
#include "uaccess.h"

/* names.c: the registry of groups, and the names that find them */
/* At the end of a call: every group's release. */
void gv_groups_release(struct gv_ctx *ctx);
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

#endif /* GV_NAMES_H */
