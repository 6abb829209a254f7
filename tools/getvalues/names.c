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
 * The shorthand ":REST" is expanded by the library; the command expands it
 * again only to print the name the user meant. The prefix an entry leaves
 * for the next one is its group and ':' ("stat:size:fd/3" -> "stat:"), or
 * for mntns with an ID the group and the ID ("mntns:21:root" -> "mntns:21:").
 * None after "", after a name too long to be read, or after a shorthand
 * that had no prefix itself. Returns the length of the prefix, 0 for none.
 */
static size_t name_prefix_len(const char *expanded)
{
	const char *colon = strchr(expanded, ':'), *c2;
	size_t glen;

	if (!*expanded)
		return 0;
	if (!colon)
		return strlen(expanded) + 1;	/* "GROUP" + ':' */
	glen = colon - expanded;
	if (glen == 5 && !memcmp(expanded, "mntns", 5) && colon[1]) {
		c2 = strchr(colon + 1, ':');
		return c2 ? (size_t)(c2 - expanded) + 1 : strlen(expanded) + 1;
	}
	return glen + 1;
}

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

/* Fill in written, shown and list of every entry. */
int expand_names(struct entry *e, char **names, size_t n)
{
	char *prefix = NULL;
	size_t plen = 0;

	for (size_t i = 0; i < n; i++) {
		const char *w = names[i];
		size_t wlen = strlen(w);
		bool valid = wlen <= NAME_MAX_BYTES;

		e[i].written = w;
		if (w[0] == ':' && prefix && valid) {
			e[i].shown = malloc(plen + wlen);
			if (!e[i].shown) {
				free(prefix);
				return -ENOMEM;
			}
			memcpy(e[i].shown, prefix, plen);
			memcpy(e[i].shown + plen, w + 1, wlen);	/* with NUL */
		} else {
			e[i].shown = strdup(w);
			if (!e[i].shown) {
				free(prefix);
				return -ENOMEM;
			}
			/* a shorthand without a prefix is EINVAL: none after */
			if (w[0] == ':')
				valid = false;
		}
		e[i].list = name_is_list(e[i].shown);

		free(prefix);
		prefix = NULL;
		plen = valid ? name_prefix_len(e[i].shown) : 0;
		if (plen) {
			prefix = malloc(plen);
			if (!prefix)
				return -ENOMEM;
			memcpy(prefix, e[i].shown, plen - 1);
			prefix[plen - 1] = ':';
		}
	}
	free(prefix);
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
