// SPDX-License-Identifier: MIT
/*
 * names.c - the name language of getvalues(), in one place.
 *
 *   ""              the list of groups
 *   GROUP           the list of names in GROUP
 *   GROUP:FIELD     one value (stat:FIELD:SUBPATH, mntns:ID:FIELD)
 *   GROUP:ARG       data:SUBPATH, dir:SUBPATH, xattr:NAME (ARG verbatim)
 *   :REST           the previous entry's prefix, then REST
 *
 * The groups are data (struct gv_group in each group's file); this file only
 * reads the names, expands the shorthand and finds group and field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scratch.h"

/* The top-level list, in the order SPEC gives. */
static const struct gv_group *const gv_top[] = {
	&gv_group_mnt, &gv_group_mntns, &gv_group_xattr, &gv_group_data,
	&gv_group_dir, &gv_group_stat, &gv_group_lstat, &gv_group_fs,
};

static const struct gv_group *gv_find_group(const char *name, size_t len)
{
	for (size_t i = 0; i < GV_ARRAY_SIZE(gv_top); i++)
		if (strlen(gv_top[i]->name) == len &&
		    !memcmp(gv_top[i]->name, name, len))
			return gv_top[i];
	return NULL;
}

static const struct gv_field *gv_find_field(const struct gv_field *f,
					    const char *name, size_t len)
{
	for (; f && f->name; f++)
		if (f->name[0] == *name && !strncmp(f->name, name, len) &&
		    !f->name[len])
			return f;
	return NULL;
}

/* mntns IDs: decimal digits only, fitting in 32 bits. */
static bool gv_parse_id(const char *s, size_t len, uint32_t *id)
{
	uint64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*id = (uint32_t)v;
	return true;
}

/*
 * Parse the expanded name @name into @req. Returns the length of the prefix
 * a following ":REST" would reuse (0: none).
 */
static size_t gv_parse_one(const char *name, struct gv_req *req)
{
	const char *colon = strchr(name, ':'), *rest, *c2;
	size_t glen = colon ? (size_t)(colon - name) : strlen(name);
	const struct gv_group *g;

	*req = (struct gv_req){ 0 };
	if (!*name)
		return 0;	/* the list of groups; no prefix */

	g = gv_find_group(name, glen);
	req->group = g;
	req->follow = g == &gv_group_stat;
	if (!g) {
		req->err = ENOENT;
		return glen + 1;
	}
	if (!colon)
		return glen + 1;	/* a group listing */

	rest = colon + 1;
	switch (g->syntax) {
	case GV_SYNTAX_FIELD:
		req->field = gv_find_field(g->fields, rest, strlen(rest));
		if (!req->field)
			req->err = ENOENT;
		break;
	case GV_SYNTAX_FIELD_SUBPATH:
		c2 = strchr(rest, ':');
		req->field = gv_find_field(g->fields, rest,
					   c2 ? (size_t)(c2 - rest) : strlen(rest));
		if (!req->field)
			req->err = ENOENT;
		req->arg = c2 ? c2 + 1 : NULL;
		break;
	case GV_SYNTAX_VERBATIM:
		req->arg = rest;
		break;
	case GV_SYNTAX_ID_FIELD:
		c2 = strchr(rest, ':');
		if (!gv_parse_id(rest, c2 ? (size_t)(c2 - rest) : strlen(rest),
				 &req->id)) {
			req->err = ENOENT;
			req->bad_id = true;
		}
		req->has_id = true;
		if (c2) {
			req->field = gv_find_field(g->id_fields, c2 + 1,
						   strlen(c2 + 1));
			if (!req->field)
				req->err = ENOENT;
		}
		if (c2 || *rest)	/* "mntns:ID" and "mntns:ID:F" keep ID */
			return (c2 ? (size_t)(c2 - name) :
				     strlen(name)) + 1;
		break;
	}
	return glen + 1;
}

/* Expanded names, in blocks that never move once handed out. */
struct gv_strblock {
	struct gv_strblock *next;
	size_t used;
	char data[16384];
};

static char *gv_str_alloc(struct gv_strblock **head, size_t n)
{
	struct gv_strblock *b = *head;

	if (!b || sizeof(b->data) - b->used < n) {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->used = 0;
		b->next = *head;
		*head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

void gv_names_free(struct gv_names *names)
{
	struct gv_strblock *b = names->expanded, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	free(names->raw);
	*names = (struct gv_names){ 0 };
}

/*
 * Read and parse every name of @vec into @reqs. The requests point into
 * @names, which the caller frees with gv_names_free() after the walk.
 *
 * A shorthand name is expanded on the stack and kept only when its request
 * points into it (a SUBPATH, an xattr name): a table of mounts, 13 fields
 * each, would otherwise copy every expansion into memory of its own.
 */
int gv_parse_names(const struct name_val *vec, size_t num,
		   struct gv_req *reqs, struct gv_names *names,
		   const struct gv_preread *pre)
{
	char prefix[GV_EXPANDED_MAX + 1], full[2 * GV_EXPANDED_MAX + 2];
	size_t prefix_len = 0;
	bool have_prefix = false, base_ok = false;
	struct gv_req base = { 0 };
	const char **raw;
	uintptr_t *src;
	int *lens, err;
	void *mem;

	*names = (struct gv_names){ 0 };
	/* where each name is, then its copy and length: one scratch buffer */
	mem = gv_scratch_get(GV_SCRATCH_NAMES, NULL,
			     num * (sizeof(*src) + sizeof(*raw) +
				    sizeof(*lens)));
	if (!mem)
		return -ENOMEM;
	src = mem;
	raw = (const char **)(src + num);
	lens = (int *)(raw + num);
	for (size_t i = 0; i < num; i++)
		src[i] = (uintptr_t)vec[i].name;
	err = gv_strings_from_user(src, num, GV_NAME_MAX, raw, lens,
				   &names->raw, pre);
	if (err)
		goto out;

	for (size_t i = 0; i < num; i++) {
		const char *name = raw[i];
		struct gv_req *req = &reqs[i];
		size_t plen;
		char *keep;

		if (lens[i] < 0) {
			*req = (struct gv_req){ .err = -lens[i] };
			have_prefix = false;
			continue;
		}
		if (name[0] == ':') {
			if (!have_prefix) {
				*req = (struct gv_req){ .err = EINVAL };
				continue;
			}
			/*
			 * "GROUP:" or "mntns:ID:" then REST: the same request
			 * as the expansion would parse to, but for a field
			 * looked up in REST; the prefix stays (a table of
			 * mounts, 13 fields each, parses its ID once).
			 */
			if (base_ok) {
				*req = base;
				req->field = gv_find_field(
					base.has_id ? base.group->id_fields :
						      base.group->fields,
					name + 1, lens[i] - 1);
				if (!req->field)
					req->err = ENOENT;
				continue;
			}
			memcpy(full, prefix, prefix_len);
			memcpy(full + prefix_len, name + 1, lens[i]); /* + NUL */
			name = full;
		}
		plen = gv_parse_one(name, req);
		if (name == full && req->arg) {
			keep = gv_str_alloc(&names->expanded,
					    prefix_len + lens[i]);
			if (!keep) {
				*req = (struct gv_req){ .err = ENOMEM };
				have_prefix = false;
				continue;
			}
			memcpy(keep, full, prefix_len + lens[i]);
			req->arg = keep + (req->arg - full);
		}
		have_prefix = plen > 0;
		if (have_prefix) {
			memcpy(prefix, name, plen - 1);
			prefix[plen - 1] = ':';
			prefix_len = plen;
		}
		base_ok = have_prefix && req->group &&
			  (req->group->syntax == GV_SYNTAX_FIELD ||
			   (req->group->syntax == GV_SYNTAX_ID_FIELD &&
			    req->has_id));
		if (base_ok)
			base = (struct gv_req){
				.group = req->group, .id = req->id,
				.has_id = req->has_id, .bad_id = req->bad_id,
				.err = req->bad_id ? ENOENT : 0,
				.follow = req->follow,
			};
	}
	err = 0;
out:
	if (err)
		gv_names_free(names);
	gv_scratch_put(GV_SCRATCH_NAMES, mem);
	return err;
}

static int gv_list_groups(struct gv_out *out)
{
	int err = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(gv_top) && !err; i++)
		err = gv_put_item(out, gv_top[i]->name,
				  strlen(gv_top[i]->name));
	return err;
}

int gv_get_value(struct gv_ctx *ctx, const struct gv_req *req,
		 struct gv_out *out)
{
	const struct gv_group *g = req->group;

	if (!g)
		return gv_list_groups(out);
	if (req->field)
		return req->field->get(ctx, req, out);
	if (req->arg || req->has_id)
		return g->get(ctx, req, out);
	if (g->list)
		return g->list(ctx, req, out);
	return gv_put_field_names(out, g->fields);
}
