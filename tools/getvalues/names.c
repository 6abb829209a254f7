// SPDX-License-Identifier: MIT
/*
 * names.c - the names a user gave: their shorthand written out, whether
 * each value is a list, and the items of a list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/*
 * Whether the value of @name is a list. getvalues(3) defines the lists by
 * the shape of the name: "" (the groups), "GROUP" without a colon (its
 * names; "data" and "dir" list $ORIGIN), "mntns:ID" (the mnt field names)
 * and "dir:SUBPATH" (a directory). Every other value is one string.
 */
static bool name_is_list(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t glen;

	if (!colon)
		return true;
	glen = colon - name;
	if (glen == 3 && !memcmp(name, "dir", 3))
		return true;
	if (glen == 5 && !memcmp(name, "mntns", 5))
		return !strchr(colon + 1, ':');
	return false;
}

/*
 * Fill in written, shown and list of every entry: shown is the name the
 * user meant, its ":REST" shorthand written out by the library as
 * getvalues(3) reads it (a name it refuses is shown as written, and
 * leaves no prefix for the next).
 */
int expand_names(struct entry *e, char **names, size_t n)
{
	const char *prev = NULL;

	for (size_t i = 0; i < n; i++) {
		char buf[2 * NAME_MAX_BYTES + 2];
		ssize_t len = getvalues_expand_name(prev, names[i], buf,
						    sizeof(buf));

		e[i].written = names[i];
		if (len < 0)
			e[i].shown = strdup(names[i]);
		else if ((size_t)len < sizeof(buf))
			e[i].shown = strdup(buf);
		else if ((e[i].shown = malloc(len + 1)))
			getvalues_expand_name(prev, names[i], e[i].shown,
					      len + 1);
		if (!e[i].shown)
			return -ENOMEM;
		e[i].list = name_is_list(e[i].shown);
		prev = len < 0 ? NULL : e[i].shown;
	}
	return 0;
}

/*
 * The next item of the list @e at *@pos: items end with a NUL (a last one
 * without, which getvalues(3) never gives, still counts). False at the end.
 */
bool next_item(const struct entry *e, size_t *pos, const char **item,
		      size_t *ilen)
{
	const char *nul;

	if (*pos >= e->len)
		return false;
	*item = e->val + *pos;
	nul = memchr(*item, 0, e->len - *pos);
	*ilen = nul ? (size_t)(nul - *item) : e->len - *pos;
	*pos += *ilen + 1;
	return true;
}
