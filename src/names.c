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
 * The groups are data (struct gv_group in each group's file); this file
 * reads the names, expands the shorthand and finds group and field, and is
 * the registry of the groups: "" lists them, and a call's end releases
 * them through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "names.h"
#include "scratch.h"

/* The top-level list, in the order SPEC gives. */
static const struct gv_group *const gv_top[] = {
	&gv_group_mnt, &gv_group_mntns, &gv_group_xattr, &gv_group_data,
	&gv_group_dir, &gv_group_stat, &gv_group_lstat, &gv_group_fs,
};

/* "": the list of groups, as a group of its own that only lists */
static int gv_list_groups(struct gv_ctx *ctx, const struct gv_req *req,
			  struct gv_out *out)
{
	int err = 0;

	(void)ctx;
	(void)req;
	for (size_t i = 0; i < GV_ARRAY_SIZE(gv_top) && !err; i++)
		err = gv_put_item(out, gv_top[i]->name,
				  strlen(gv_top[i]->name));
	return err;
}

static const struct gv_group gv_group_top = {
	.name = "",
	.list = gv_list_groups,
};

/* A group in the list twice (stat and lstat) is released twice: no harm. */
void gv_groups_release(struct gv_ctx *ctx)
{
	for (size_t i = 0; i < GV_ARRAY_SIZE(gv_top); i++)
		if (gv_top[i]->release)
			gv_top[i]->release(ctx);
}

/*
 * Whether @s is the @len bytes at @name. Names of groups are a few bytes
 * long and mostly part at the first: compared here, byte by byte, with no
 * strlen() and memcmp() of every group for every name.
 */
static inline bool gv_name_is(const char *s, const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != name[i])	/* s's NUL parts from any name byte */
			return false;
	return !s[len];
}

static const struct gv_group *gv_find_group(const char *name, size_t len)
{
	for (size_t i = 0; i < GV_ARRAY_SIZE(gv_top); i++)
		if (gv_top[i]->name[0] == name[0] &&
		    gv_name_is(gv_top[i]->name, name, len))
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

/*
 * Whether @name's group part is the group name @gname, and its length into
 * *@glen: one pass for the group of the name before, which most names
 * share.
 */
static inline bool gv_group_at(const char *gname, const char *name,
			       size_t *glen)
{
	size_t i = 0;

	while (gname[i] && gname[i] == name[i])
		i++;
	if (gname[i] || (name[i] && name[i] != ':'))
		return false;
	*glen = i;
	return true;
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

/* The length of the group part of @name: up to its first ':', if any. */
static size_t gv_group_len(const char *name)
{
	size_t n = 0;

	/* a few bytes to the ':' mostly: no strchr() and strlen() */
	while (name[n] && name[n] != ':')
		n++;
	return n;
}

/*
 * The length of the prefix that a ":REST" after the expanded name @name
 * takes, its ':' included (0: none), @glen being the length of its group
 * part and @g that group (NULL: unknown). SPEC 2.3: the group; for
 * "mntns:ID" and "mntns:ID:FIELD", the group and the ID. "GROUP" alone
 * leaves "GROUP:", and an unknown group its name all the same.
 */
static inline __attribute__((always_inline))
size_t gv_prefix_len(const char *name, size_t glen, const struct gv_group *g)
{
	const char *c2;

	if (!*name)
		return 0;	/* the list of groups; no prefix */
	if (g && g->syntax == GV_SYNTAX_ID_FIELD && name[glen] == ':' &&
	    name[glen + 1]) {
		c2 = strchr(name + glen + 1, ':');
		return (c2 ? (size_t)(c2 - name) : strlen(name)) + 1;
	}
	return glen + 1;
}

/* The text after "GROUP:" into @req, by the syntax of group @g. */
static void gv_parse_rest(const struct gv_group *g, const char *rest,
			  struct gv_req *req)
{
	const char *c2;

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
		break;
	}
}

/*
 * Parse the expanded name @name into @req. Returns the length of the prefix
 * a following ":REST" would reuse (0: none).
 */
static size_t gv_parse_one(const char *name, struct gv_req *req,
			   const struct gv_group *hint)
{
	const struct gv_group *g;
	size_t glen;

	*req = (struct gv_req){ 0 };
	if (!*name) {
		req->group = &gv_group_top;
		return 0;	/* the list of groups: no prefix */
	}
	/* (the list of groups has no name to match: never a hint) */
	if (hint && hint != &gv_group_top &&
	    gv_group_at(hint->name, name, &glen)) {
		g = hint;
	} else {
		glen = gv_group_len(name);
		g = gv_find_group(name, glen);
	}
	req->group = g;
	req->follow = g == &gv_group_stat;
	if (!g)
		req->err = ENOENT;
	else if (name[glen] == ':')
		gv_parse_rest(g, name + glen + 1, req);
	/* else a group listing */
	return gv_prefix_len(name, glen, g);
}

/* The prefix length of the expanded name @name, as gv_parse_one() gives. */
static size_t gv_name_prefix_len(const char *name)
{
	size_t glen = gv_group_len(name);

	return gv_prefix_len(name, glen, gv_find_group(name, glen));
}

/*
 * @p becomes the prefix that the expanded name @name leaves, @plen long.
 * An expanded name is at most GV_EXPANDED_MAX bytes (a prefix of at most
 * the group and an ID of one name, then the rest of another), so that its
 * prefix fits.
 */
static inline __attribute__((always_inline))
void gv_prefix_take(struct gv_prefix *p, const char *name, size_t plen)
{
	p->len = plen <= sizeof(p->buf) ? plen : 0;
	if (p->len) {
		memcpy(p->buf, name, p->len - 1);
		p->buf[p->len - 1] = ':';
	}
}

/* The shorthand @name (@len bytes) after @p, written out into @full. */
static char *gv_prefix_expand(const struct gv_prefix *p, const char *name,
			      size_t len, char *full)
{
	memcpy(full, p->buf, p->len);
	memcpy(full + p->len, name + 1, len);	/* REST and its NUL */
	return full;
}

const char *gv_prefix_next(struct gv_prefix *p, const char *name, int len,
			   char *full)
{
	if (len < 0 || (name[0] == ':' && !p->len)) {
		p->len = 0;
		return NULL;
	}
	if (name[0] == ':')
		name = gv_prefix_expand(p, name, len, full);
	gv_prefix_take(p, name, gv_name_prefix_len(name));
	return name;
}

GV_EXPORT ssize_t getvalues_expand_name(const char *prev, const char *name,
					char *buf, size_t size)
{
	char full[GV_FULL_SIZE];
	struct gv_prefix p = { 0 };
	size_t len, plen;

	if (!name)
		return errno = EINVAL, -1;
	len = strnlen(name, GV_NAME_MAX + 1);
	if (len > GV_NAME_MAX)
		return errno = ENAMETOOLONG, -1;
	if (prev) {
		plen = gv_name_prefix_len(prev);
		if (plen > sizeof(p.buf))
			return errno = ENAMETOOLONG, -1;
		gv_prefix_take(&p, prev, plen);
	}
	name = gv_prefix_next(&p, name, len, full);
	if (!name)
		return errno = EINVAL, -1;
	len = strlen(name);
	if (size) {
		plen = len < size ? len : size - 1;
		memcpy(buf, name, plen);
		buf[plen] = '\0';
	}
	return len;
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

/* How the names of one call are read, entry after entry. */
struct gv_parser {
	struct gv_names *names;
	struct gv_prefix prefix;	/* only its len is set to begin with */
	/*
	 * What the prefix parses to when a ":REST" after it differs from it
	 * only in the field REST names ("GROUP:" of a group of fields,
	 * "mntns:ID:"): a table of mounts, 13 fields each, parses its ID
	 * once.
	 */
	struct gv_req base;
	bool base_ok;
	/*
	 * The field after the one the last ":FIELD" named, in its table: a
	 * vector that asks every field of one object asks them in order.
	 */
	const struct gv_field *next_field, *next_table;
	/*
	 * Fields found by where their name lay: the names read at one
	 * address are one copy (ustrings.c), so a ":root" given 10000 times
	 * is looked for once.
	 */
	struct {
		const char *name;
		const struct gv_field *table, *field;
	} seen[32];
	bool memo;		/* @seen in use: not for a few names */
	/*
	 * The group of the name before, whose "GROUP:" the prefix holds
	 * (unless its len was reset since): most vectors keep to one or two.
	 */
	const struct gv_group *group;
	char full[GV_FULL_SIZE];	/* a shorthand written out */
};

/* The base that a ":FIELD" after the name of @req starts from, if any. */
static void gv_parser_base(struct gv_parser *ps, const struct gv_req *req)
{
	ps->base_ok = ps->prefix.len && req->group &&
		      (req->group->syntax == GV_SYNTAX_FIELD ||
		       (req->group->syntax == GV_SYNTAX_ID_FIELD &&
			req->has_id));
	if (ps->base_ok)
		ps->base = (struct gv_req){
			.group = req->group, .id = req->id,
			.has_id = req->has_id, .bad_id = req->bad_id,
			.err = req->bad_id ? ENOENT : 0,
			.follow = req->follow,
		};
}

/*
 * ":FIELD" after a base: the base's request, with FIELD of @len bytes,
 * looked for first where the field before it suggests (@ps->next_field).
 */
static void gv_parse_field_of(struct gv_parser *ps, const char *field,
			      size_t len, struct gv_req *req)
{
	const struct gv_req *base = &ps->base;
	const struct gv_field *f = ps->next_field, *table;
	size_t h = ps->memo ? (uint64_t)(uintptr_t)field *
			      0x9e3779b97f4a7c15ull >> 59 : 0;

	*req = *base;
	table = base->has_id ? base->group->id_fields : base->group->fields;
	if (ps->memo && ps->seen[h].name == field &&
	    ps->seen[h].table == table) {
		f = ps->seen[h].field;
		req->field = f;
		ps->next_field = f + 1;
		ps->next_table = table;
		return;
	}
	/* (FIELD is the rest of a name: its NUL ends it) */
	if (!f || ps->next_table != table || !f->name ||
	    f->name[0] != *field || strcmp(f->name, field))
		f = gv_find_field(table, field, len);
	if (ps->memo) {
		ps->seen[h].name = f ? field : NULL;
		ps->seen[h].table = table;
		ps->seen[h].field = f;
	}
	req->field = f;
	ps->next_field = f ? f + 1 : NULL;
	ps->next_table = table;
	if (!f)
		req->err = ENOENT;
}

/*
 * The name @name of @len bytes (a negative errno: it could not be read)
 * into @req. A shorthand name is written out on the stack and kept only
 * when the request points into it (a SUBPATH, an xattr name): a table of
 * mounts would otherwise copy every expansion into memory of its own.
 */
static void gv_parse_entry(struct gv_parser *ps, const char *name, int len,
			   struct gv_req *req)
{
	size_t plen;
	char *keep;

	if (len < 0) {
		*req = (struct gv_req){ .err = -len };
		ps->prefix.len = 0;
		return;
	}
	if (name[0] == ':') {
		if (!ps->prefix.len) {
			*req = (struct gv_req){ .err = EINVAL };
			return;
		}
		/* the prefix stays, and so does the base */
		if (ps->base_ok) {
			gv_parse_field_of(ps, name + 1, len - 1, req);
			return;
		}
		name = gv_prefix_expand(&ps->prefix, name, len, ps->full);
	}
	plen = gv_parse_one(name, req, ps->group);
	if (name == ps->full && req->arg) {
		keep = gv_str_alloc(&ps->names->expanded, ps->prefix.len + len);
		if (!keep) {
			*req = (struct gv_req){ .err = ENOMEM };
			ps->prefix.len = 0;
			return;
		}
		memcpy(keep, ps->full, ps->prefix.len + len);
		req->arg = keep + (req->arg - ps->full);
	}
	/* "GROUP:" of the name before, the same group: the prefix holds it */
	if (!req->group || req->group != ps->group || plen != ps->prefix.len ||
	    req->group->syntax == GV_SYNTAX_ID_FIELD)
		gv_prefix_take(&ps->prefix, name, plen);
	ps->group = req->group;
	gv_parser_base(ps, req);
}

/*
 * Read and parse every name of @vec into @reqs. The requests point into
 * @names, which the caller frees with gv_names_free() after the walk.
 */
int gv_parse_names(const struct name_val *vec, size_t num,
		   struct gv_req *reqs, struct gv_names *names,
		   const struct gv_preread *pre)
{
	struct gv_parser ps;
	const char **raw;
	uintptr_t *src;
	int *lens, err;
	void *mem;

	*names = (struct gv_names){ 0 };
	ps.names = names;
	ps.prefix.len = 0;
	ps.base_ok = false;
	ps.next_field = NULL;
	ps.next_table = NULL;
	ps.memo = num >= 64;
	if (ps.memo)
		memset(ps.seen, 0, sizeof(ps.seen));
	ps.group = NULL;
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
		gv_names_free(names);
	else
		for (size_t i = 0; i < num; i++)
			gv_parse_entry(&ps, raw[i], lens[i], &reqs[i]);
	gv_scratch_put(GV_SCRATCH_NAMES, mem);
	return err;
}
