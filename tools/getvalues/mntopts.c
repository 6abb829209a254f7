// SPDX-License-Identifier: MIT
/*
 * mntopts.c - a mount's options as findmnt(8) shows them (its OPTIONS
 * column): the per-mount options and the super-block's merged into one
 * list, as libmount merges mountinfo's two, with one "rw" or "ro" first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/*
 * The option named @name (with or without "=value") in the list @s of
 * @len bytes: its start *@b and end *@e. Commas inside double quotes do
 * not separate options.
 */
static bool option_find(const char *s, size_t len, const char *name,
			size_t *b, size_t *e)
{
	size_t nlen = strlen(name);

	for (size_t i = 0; i <= len;) {
		size_t end = i, nend;
		bool quoted = false;

		while (end < len && (quoted || s[end] != ',')) {
			quoted ^= s[end] == '"';
			end++;
		}
		for (nend = i; nend < end && s[nend] != '='; nend++)
			;
		if (nend - i == nlen && !memcmp(s + i, name, nlen)) {
			*b = i;
			*e = end;
			return true;
		}
		i = end + 1;
	}
	return false;
}

/*
 * Remove the first option named @name from the list @s (*@len bytes),
 * and the comma that separated it: true if there was one.
 */
static bool option_remove(char *s, size_t *len, const char *name)
{
	size_t b, e;

	if (!option_find(s, *len, name, &b, &e))
		return false;
	if (e < *len)
		e++;			/* the comma after it */
	else if (b > 0)
		b--;			/* the last one: the comma before */
	memmove(s + b, s + e, *len - e);
	*len -= e - b;
	return true;
}

/*
 * The per-mount options @vfs and the super-block's @fs merged as libmount
 * merges them (merge_optstr()): the two lists one after the other, their
 * "rw" and "ro" taken out, and "ro" first if either said "ro" (both "rw":
 * "rw"). Into *@out, @outlen bytes, allocated; -ENOMEM.
 */
static int options_merge(const char *vfs, size_t vlen, const char *fs,
			 size_t flen, char **out, size_t *outlen)
{
	size_t len = vlen + 1 + flen;
	char *s = malloc(len + 4);
	int rw = 0, ro = 0;

	if (!s)
		return -ENOMEM;
	if (!vlen || !flen || (vlen == flen && !memcmp(vfs, fs, vlen))) {
		/* one list alone, or both the same: as it is */
		len = vlen ? vlen : flen;
		memcpy(s, vlen ? vfs : fs, len);
		*out = s;
		*outlen = len;
		return 0;
	}
	memcpy(s + 3, vfs, vlen);
	s[3 + vlen] = ',';
	memcpy(s + 4 + vlen, fs, flen);
	rw += option_remove(s + 3, &len, "rw");
	rw += option_remove(s + 3, &len, "rw");
	if (rw != 2) {
		ro += option_remove(s + 3, &len, "ro");
		if (ro + rw < 2)
			ro += option_remove(s + 3, &len, "ro");
	}
	memcpy(s, ro ? "ro," : "rw,", 3);
	*out = s;
	*outlen = len ? len + 3 : 2;
	return 0;
}

/*
 * The cells of the columns that merge two fields (options), for every
 * mount of @t: a failed field fails the cell with its errno.
 */
int mtable_merge(const struct gv_cmd *cmd, struct mtable *t)
{
	size_t n = t->nmounts * cmd->ncols;

	t->ncols = cmd->ncols;
	t->merged = calloc(n ? n : 1, sizeof(*t->merged));
	if (!t->merged)
		return -ENOMEM;
	for (size_t c = 0; c < cmd->ncols; c++) {
		if (!cmd->cols[c]->field2)
			continue;
		t->merged_col[c] = true;
		for (size_t m = 0; m < t->nmounts; m++) {
			const struct entry *row = &t->cells[m * t->nfields];
			const struct entry *v = &row[t->fidx[c]];
			const struct entry *f = &row[t->fidx2[c]];
			struct entry *e = &t->merged[m * t->ncols + c];
			char *s;

			e->err = v->err ? v->err : f->err;
			if (e->err)
				continue;
			if (options_merge(v->val, v->len, f->val, f->len, &s,
					  &e->len))
				return -ENOMEM;
			e->val = s;
		}
	}
	return 0;
}

void mtable_merge_free(struct mtable *t)
{
	for (size_t i = 0; t->merged && i < t->nmounts * t->ncols; i++)
		free((char *)t->merged[i].val);
	free(t->merged);
}
