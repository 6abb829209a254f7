// SPDX-License-Identifier: MIT
/*
 * getvalues.c - the getvalues command: print named values about one file,
 * fetched with a single getvalues(3) call, as text, JSON or raw bytes.
 *
 * Two modes: "values" prints the names given; "mounts" (--mounts, or a lone
 * mnt or mntns in text output) prints a findmnt(8)-like table of mounts,
 * fetched with two calls however many mounts there are.
 *
 * Layout: an option table that also writes the help text; a struct gv_cmd
 * holding what the options chose; one fetch function that owns the buffer
 * policy; and output formatters as small ops tables (text, JSON, raw) that
 * only see finished entries.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/magic.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>

#include <getvalues.h>

#define PROG			"getvalues"

/*
 * Exit status, as util-linux's lsblk(8) has it (see getvalues(1)): 1 for a
 * usage error or a failure of the whole command, 32 when not one name could
 * be fetched, 64 when some could and some not.
 */
#define EXIT_ALL_OK		0
#define EXIT_TROUBLE		1
#define EXIT_NONE_FETCHED	32
#define EXIT_SOME_FAILED	64

/*
 * All values share one buffer. It starts small enough to cost nothing for
 * the usual handful of numbers and short files, and doubles on EOVERFLOW up
 * to the limit (--max-size), so that a mistaken data:huge-file cannot make
 * the command eat all memory.
 */
#define BUF_INITIAL		(64u << 10)
#define BUF_LIMIT_DEFAULT	(256u << 20)

/* The longest name getvalues(3) reads; longer ones are ENAMETOOLONG. */
#define NAME_MAX_BYTES		255

/* ------------------------------------------------------------------ */
/* What the command line asked for                                     */

/*
 * A column of the mount table: one field of the mnt group, under its own
 * name or under the name findmnt(8) gives the very same value. The name,
 * in upper case, heads the column; in lower case it is the JSON key.
 */
struct mnt_column {
	const char *name;
	const char *field;
	bool number;		/* right-aligned; a JSON number */
};

static const struct mnt_column mnt_columns[] = {
	{ .name = "id",			.field = "id",		.number = true },
	{ .name = "parentid",		.field = "parentid",	.number = true },
	{ .name = "root",		.field = "root" },
	{ .name = "mountpoint",		.field = "mountpoint" },
	{ .name = "options",		.field = "options" },
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

#define NMNT_COLUMNS		(sizeof(mnt_columns) / sizeof(mnt_columns[0]))
#define MNT_COLUMNS_DEFAULT	"target,source,fstype,options"

struct gv_cmd {
	const struct formatter *fmt;
	int dfd;			/* AT_FDCWD, or --fd N */
	bool have_fd;
	const char *path;		/* NULL with --empty-path */
	unsigned int flags;		/* AT_* for getvalues() */
	const char *backend;		/* --backend, or NULL */
	size_t max_size;		/* buffer limit */
	char **names;
	size_t nnames;
	bool mounts;			/* the mount table */
	bool all_mounts;		/* every mount, not $ORIGIN's */
	bool noheadings;
	const struct mnt_column *cols[NMNT_COLUMNS];
	size_t ncols;
};

/* One requested name and what came back for it. */
struct entry {
	const char *written;		/* as on the command line */
	char *shown;			/* expanded from shorthand */
	bool list;			/* the value is a list of items */
	int err;			/* 0 or a positive errno */
	bool too_big;			/* EOVERFLOW at the buffer limit */
	const char *val;
	size_t len;
};

/*
 * The mount table: the fields of every mount, nfields cells per mount, and
 * which mounts are shown. Column c shows field fidx[c].
 */
struct mtable {
	const char *fields[NMNT_COLUMNS];
	size_t nfields;
	size_t fidx[NMNT_COLUMNS];
	struct entry *cells;
	size_t nmounts;
	size_t *rows;
	size_t nrows;
};

/*
 * An output format: for values, called once before, once per entry, once
 * after; for the mount table, once.
 */
struct formatter {
	const char *name;
	void (*begin)(FILE *f);
	void (*entry)(FILE *f, const struct gv_cmd *cmd, const struct entry *e,
		      size_t index);
	void (*end)(FILE *f);
	void (*table)(FILE *f, const struct gv_cmd *cmd,
		      const struct mtable *t);
};

static void __attribute__((format(printf, 1, 2))) warnx(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Escaping and encoding                                               */

/*
 * Write @s for a terminal or a line-based reader: printable characters of
 * the locale as they are, everything else C-style (\n, \t, \\, \x01). Every
 * line of the text output is therefore exactly one value or item. Returns
 * the width on a terminal, in columns; with a NULL @f only counts it, so
 * that the mount table can line its columns up.
 */
static size_t put_escaped(FILE *f, const char *s, size_t n)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	size_t i = 0, width = 0;
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (i < n) {
		unsigned char c = s[i];
		const char *p;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (f)
				putc(c, f);
			width++;
			i++;
			continue;
		}
		if (c == '\\') {
			if (f)
				fputs("\\\\", f);
			width += 2;
			i++;
			continue;
		}
		if (c && (p = memchr(named, c, sizeof(named) - 1))) {
			if (f) {
				putc('\\', f);
				putc(letter[p - named], f);
			}
			width += 2;
			i++;
			continue;
		}
		if (c >= 0x80 && MB_CUR_MAX > 1) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, s + i, n - i, &st);
			int w;

			if (k != (size_t)-1 && k != (size_t)-2 && k > 0 &&
			    iswprint(wc) && (w = wcwidth(wc)) >= 0) {
				if (f)
					fwrite(s + i, 1, k, f);
				width += w;
				i += k;
				continue;
			}
			memset(&st, 0, sizeof(st));
		}
		if (f)
			fprintf(f, "\\x%02x", c);
		width += 4;
		i++;
	}
	return width;
}

/* Well-formed UTF-8 as RFC 3629 defines it: no overlongs, no surrogates. */
static bool utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		unsigned char lo = 0x80, hi = 0xbf;
		size_t more;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			more = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			more = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			more = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			return false;
		}
		if (n - i <= more)
			return false;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (size_t k = 2; k <= more; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return false;
		i += more + 1;
	}
	return true;
}

/* A JSON string of valid UTF-8 @s. */
static void put_json_string(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				putc(c, f);
		}
	}
	putc('"', f);
}

/* @s as a JSON string holding its base64 (RFC 4648, padded). */
static void put_json_base64(FILE *f, const char *str, size_t n)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = (const unsigned char *)str;
	size_t i;

	putc('"', f);
	for (i = 0; i + 2 < n; i += 3) {
		putc(b64[s[i] >> 2], f);
		putc(b64[(s[i] & 3) << 4 | s[i + 1] >> 4], f);
		putc(b64[(s[i + 1] & 15) << 2 | s[i + 2] >> 6], f);
		putc(b64[s[i + 2] & 63], f);
	}
	if (n - i == 1) {
		putc(b64[s[i] >> 2], f);
		putc(b64[(s[i] & 3) << 4], f);
		fputs("==", f);
	} else if (n - i == 2) {
		putc(b64[s[i] >> 2], f);
		putc(b64[(s[i] & 3) << 4 | s[i + 1] >> 4], f);
		putc(b64[(s[i + 1] & 15) << 2], f);
		putc('=', f);
	}
	putc('"', f);
}

/* ------------------------------------------------------------------ */
/* Names: shorthand and lists, by the rules of getvalues(3)            */

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
static int expand_names(struct entry *e, char **names, size_t n)
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

/* ------------------------------------------------------------------ */
/* Fetching                                                            */

/* The buffers the values live in; a few only when the limit was hit. */
struct buffers {
	char **b;
	size_t n;
};

static char *buffers_new(struct buffers *bs, size_t size)
{
	char **nb = realloc(bs->b, (bs->n + 1) * sizeof(*nb));

	if (!nb)
		return NULL;
	bs->b = nb;
	nb[bs->n] = malloc(size);
	return nb[bs->n] ? nb[bs->n++] : NULL;
}

static void buffers_free(struct buffers *bs)
{
	for (size_t i = 0; i < bs->n; i++)
		free(bs->b[i]);
	free(bs->b);
}

static void take_results(struct entry *e, const struct name_val *vec,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		e[i].err = vec[i].error;
		e[i].val = vec[i].value_out.iov_base;
		e[i].len = e[i].err ? 0 : vec[i].value_out.iov_len;
	}
}

/*
 * The next buffer size after @got of @todo entries fitted in @size bytes:
 * twice as much, or all @todo at the rate of those that fitted and a
 * quarter more, whichever is larger (so a long table costs one more call,
 * not five); at most @limit.
 */
static size_t grown_size(size_t size, size_t got, size_t todo, size_t limit)
{
	size_t want = size > limit / 2 ? limit : size * 2;

	if (got && size / got < limit / todo) {
		size_t rate = size / got * todo;

		if (rate > limit - rate / 4)
			rate = limit;
		else
			rate += rate / 4;
		if (rate > want)
			want = rate;
	}
	return want;
}

/*
 * Fetch every entry with one getvalues() call, into a buffer of @size bytes
 * at first. On EOVERFLOW the whole call is made again with a buffer twice
 * as large, up to cmd->max_size. Only if
 * a value does not fit even then does that entry fail (too_big); the call
 * then goes on from the next entry, in a fresh buffer, so that one huge
 * value does not hide the others. Returns 0, or -errno of a failed call.
 */
static int fetch_values(const struct gv_cmd *cmd, struct entry *e, size_t n,
			struct buffers *bs, size_t size)
{
	struct name_val *vec = calloc(n, sizeof(*vec));
	size_t start = 0;
	char *buf = NULL;
	int ret = 0;

	if (!vec)
		return -ENOMEM;
	if (size > cmd->max_size)
		size = cmd->max_size;
	while (start < n) {
		size_t todo = n - start;
		int got;

		if (!buf && !(buf = buffers_new(bs, size))) {
			ret = -ENOMEM;
			break;
		}
		memset(vec + start, 0, todo * sizeof(*vec));
		for (size_t i = start; i < n; i++)
			vec[i].name = e[i].written;
		/*
		 * A call that goes on after a value too big for the limit
		 * starts with that value's successor, which has no previous
		 * entry any more: give its shorthand expanded.
		 */
		if (start && e[start].written[0] == ':')
			vec[start].name = e[start].shown;
		vec[start].value_in.iov_base = buf;
		vec[start].value_in.iov_len = size;

		got = getvalues(cmd->dfd, cmd->path ? cmd->path : "",
				vec + start, todo, cmd->flags);
		if (got < 0) {
			ret = -errno;
			break;
		}
		if ((size_t)got == todo) {
			take_results(e + start, vec + start, todo);
			break;
		}
		if (size < cmd->max_size) {
			/* grow and redo the whole call */
			size = grown_size(size, got, todo, cmd->max_size);
			free(bs->b[--bs->n]);
			buf = NULL;
			continue;
		}
		/* at the limit: keep what fitted, start again after it */
		take_results(e + start, vec + start, got);
		if (got == 0) {
			e[start].err = EOVERFLOW;
			e[start].too_big = true;
			e[start].len = 0;
			start++;
		} else {
			start += got;
			buf = NULL;	/* the values so far stay in it */
		}
	}
	free(vec);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Output formats                                                      */

/* ------------------------------------------------------------------ */
/* Messages a person reads                                             */

/*
 * The names of a group, as getvalues(3) lists them ("" for the groups),
 * asked of the library once, when a message needs them: the list is the
 * library's own, so it is never out of date. NULL if even that fails.
 */
static const struct entry *group_list(const char *group)
{
	static const char *const asked[] = { "", "mnt", "stat", "fs" };
	static struct entry lists[4];
	static char bufs[4][1024];
	static bool tried[4];
	size_t i;

	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++)
		if (!strcmp(group, asked[i]))
			break;
	if (i == sizeof(asked) / sizeof(asked[0]))
		return NULL;
	if (!tried[i]) {
		struct name_val nv = {
			.name = asked[i],
			.value_in = { .iov_base = bufs[i],
				      .iov_len = sizeof(bufs[i]) },
		};

		tried[i] = true;
		if (getvalues(AT_FDCWD, "/", &nv, 1, 0) == 1 && !nv.error) {
			lists[i].val = nv.value_out.iov_base;
			lists[i].len = nv.value_out.iov_len;
		}
	}
	return lists[i].val ? &lists[i] : NULL;
}

static bool next_item(const struct entry *e, size_t *pos, const char **item,
		      size_t *ilen);

/* Whether @list has the item @s (@n bytes); true when there is no list. */
static bool list_has(const struct entry *list, const char *s, size_t n)
{
	const char *item;
	size_t pos = 0, ilen;

	if (!list)
		return true;
	while (next_item(list, &pos, &item, &ilen))
		if (ilen == n && !memcmp(item, s, n))
			return true;
	return false;
}

/* "mnt, mntns, ..." from a list, for a message. */
static void list_join(const struct entry *list, char *out, size_t size)
{
	const char *item;
	size_t pos = 0, ilen, len = 0;

	out[0] = 0;
	while (list && next_item(list, &pos, &item, &ilen) && len < size) {
		int n = snprintf(out + len, size - len, "%s%.*s",
				 len ? ", " : "", (int)ilen, item);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/*
 * What went wrong with entry @e, in words that fit the name: an unknown
 * group or field is not "No such file or directory", and a data: entry
 * that is a device is not "No data available". Falls back on strerror().
 */
static const char *explain(const struct gv_cmd *cmd, const struct entry *e,
			   char *msg, size_t size)
{
	const char *name = e->shown, *colon = strchr(name, ':');
	size_t glen = colon ? (size_t)(colon - name) : strlen(name);
	const char *rest = colon ? colon + 1 : "";
	const char *rcolon = strchr(rest, ':');
	size_t flen = rcolon ? (size_t)(rcolon - rest) : strlen(rest);
	char group[16] = "", names[160];
	bool subpath_group;

	if (glen < sizeof(group))
		memcpy(group, name, glen), group[glen] = 0;
	subpath_group = !strcmp(group, "data") || !strcmp(group, "dir") ||
			!strcmp(group, "stat") || !strcmp(group, "lstat");

	if (e->too_big) {
		snprintf(msg, size, "value does not fit in %zu bytes "
			 "(see --max-size)", cmd->max_size);
		return msg;
	}
	switch (e->err) {
	case ENOENT:
		if (!list_has(group_list(""), name, glen)) {
			list_join(group_list(""), names, sizeof(names));
			snprintf(msg, size, "no such group '%.*s' (the groups: "
				 "%s)", (int)glen, name, names);
			return msg;
		}
		if (!strcmp(group, "mnt") || !strcmp(group, "fs") ||
		    !strcmp(group, "stat") || !strcmp(group, "lstat") ||
		    !strcmp(group, "mntns")) {
			const char *fgroup = group[0] == 'l' ? group + 1 :
					     !strcmp(group, "mntns") ? "mnt" :
					     group;
			const char *f = rest;
			size_t fl = flen;

			if (!strcmp(group, "mntns")) {
				if (!rcolon) {
					snprintf(msg, size, "no mount with ID "
						 "%.*s here", (int)flen, rest);
					return msg;
				}
				f = rcolon + 1;
				fl = strlen(f);
			}
			if (colon && !list_has(group_list(fgroup), f, fl)) {
				const char *g = fgroup[0] == 's' ? group :
						fgroup;

				snprintf(msg, size, "no such field '%.*s' in "
					 "group %s (getvalues PATH %s lists "
					 "them)", (int)fl, f, g, g);
				return msg;
			}
			if (!strcmp(group, "mntns")) {
				snprintf(msg, size, "no mount with ID %.*s here",
					 (int)flen, rest);
				return msg;
			}
		}
		break;
	case EINVAL:
		if (name[0] == ':')
			return "a shorthand :REST needs a previous name with "
			       "a group (as in stat:mode :size)";
		if (!strcmp(group, "xattr") && !*rest)
			return "xattr: needs the name of an attribute";
		if (subpath_group)
			return "bad SUBPATH: it may not start or end with '/', "
			       "hold '//', or have a '.' or '..' component";
		break;
	case ENODATA:
		if (!strcmp(group, "data"))
			return "not a regular file or symbolic link (data: "
			       "reads only those, never a device, FIFO or "
			       "socket)";
		if (!strcmp(group, "xattr"))
			return "no such extended attribute";
		break;
	case EXDEV:
		if (subpath_group)
			return "SUBPATH leaves the mount of PATH (or passes a "
			       "/proc magic link on the way)";
		break;
	case ENAMETOOLONG:
		if (strlen(e->written) > NAME_MAX_BYTES)
			return "name longer than 255 bytes";
		break;
	case EOPNOTSUPP:
		if (subpath_group)
			return "needs a genuine procfs at /proc (or the "
			       "capability CAP_DAC_READ_SEARCH)";
		break;
	case ENOSYS:
		if (subpath_group)
			return "SUBPATH lookups need openat2(2), Linux 5.6 or "
			       "later";
		break;
	}
	return strerror(e->err);
}

static void report_error(const struct gv_cmd *cmd, const struct entry *e)
{
	char msg[256];

	fputs(PROG ": ", stderr);
	put_escaped(stderr, e->shown, strlen(e->shown));
	fprintf(stderr, ": %s\n", explain(cmd, e, msg, sizeof(msg)));
}

/*
 * The name of a file-system magic number as fs:type gives it ("0x9fa0"),
 * for people: the name stat -f (coreutils) gives it, so that the two tools
 * agree (ext2, ext3 and ext4 share one magic). NULL if unknown.
 */
static const char *fs_type_name(const char *val, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ AUTOFS_SUPER_MAGIC, "autofs" },
		{ BINFMTFS_MAGIC, "binfmt_misc" },
		{ BPF_FS_MAGIC, "bpf_fs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" },
		{ CEPH_SUPER_MAGIC, "ceph" },
		{ CGROUP_SUPER_MAGIC, "cgroupfs" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2fs" },
		{ CIFS_SUPER_MAGIC, "cifs" },
		{ CODA_SUPER_MAGIC, "coda" },
		{ CRAMFS_MAGIC, "cramfs" },
		{ DEBUGFS_MAGIC, "debugfs" },
		{ DEVPTS_SUPER_MAGIC, "devpts" },
		{ ECRYPTFS_SUPER_MAGIC, "ecryptfs" },
		{ EFIVARFS_MAGIC, "efivarfs" },
		{ EROFS_SUPER_MAGIC_V1, "erofs" },
		{ EXFAT_SUPER_MAGIC, "exfat" },
		{ EXT4_SUPER_MAGIC, "ext2/ext3" },
		{ F2FS_SUPER_MAGIC, "f2fs" },
		{ FUSE_SUPER_MAGIC, "fuseblk" },
		{ HUGETLBFS_MAGIC, "hugetlbfs" },
		{ ISOFS_SUPER_MAGIC, "isofs" },
		{ MSDOS_SUPER_MAGIC, "msdos" },
		{ NFS_SUPER_MAGIC, "nfs" },
		{ NILFS_SUPER_MAGIC, "nilfs" },
		{ NSFS_MAGIC, "nsfs" },
		{ OCFS2_SUPER_MAGIC, "ocfs2" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ PROC_SUPER_MAGIC, "proc" },
		{ PSTOREFS_MAGIC, "pstorefs" },
		{ RAMFS_MAGIC, "ramfs" },
		{ SECURITYFS_MAGIC, "securityfs" },
		{ SELINUX_MAGIC, "selinux" },
		{ SMB2_SUPER_MAGIC, "smb2" },
		{ SQUASHFS_MAGIC, "squashfs" },
		{ SYSFS_MAGIC, "sysfs" },
		{ TMPFS_MAGIC, "tmpfs" },
		{ TRACEFS_MAGIC, "tracefs" },
		{ UDF_SUPER_MAGIC, "udf" },
		{ V9FS_MAGIC, "v9fs" },
		{ XFS_SUPER_MAGIC, "xfs" },
		{ ZONEFS_MAGIC, "zonefs" },
	};
	char hex[24], *end;
	unsigned long magic;

	if (len < 3 || len >= sizeof(hex) || memcmp(val, "0x", 2))
		return NULL;
	memcpy(hex, val, len);
	hex[len] = 0;
	errno = 0;
	magic = strtoul(hex + 2, &end, 16);
	if (errno || *end)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].magic == magic)
			return types[i].name;
	return NULL;
}

/* The name of the file system, for fs:type; NULL for any other entry. */
static const char *entry_fs_name(const struct entry *e)
{
	if (e->err || strcmp(e->shown, "fs:type"))
		return NULL;
	return fs_type_name(e->val, e->len);
}

/*
 * The next item of the list @e at *@pos: items end with a NUL (a last one
 * without, which getvalues(3) never gives, still counts). False at the end.
 */
static bool next_item(const struct entry *e, size_t *pos, const char **item,
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

/* Text: NAME=VALUE; a list as NAME= followed by "  ITEM" lines. */
static void text_entry(FILE *f, const struct gv_cmd *cmd,
		       const struct entry *e, size_t index)
{
	(void)index;
	if (e->err) {
		report_error(cmd, e);
		return;
	}
	put_escaped(f, e->shown, strlen(e->shown));
	putc('=', f);
	if (e->list) {
		const char *item;
		size_t pos = 0, ilen;

		putc('\n', f);
		while (next_item(e, &pos, &item, &ilen)) {
			fputs("  ", f);
			put_escaped(f, item, ilen);
			putc('\n', f);
		}
		return;
	}
	put_escaped(f, e->val, e->len);
	if (entry_fs_name(e))
		fprintf(f, " (%s)", entry_fs_name(e));
	putc('\n', f);
}

/*
 * Raw: each value as its bytes and a NUL. A list is already its items each
 * with a NUL; one more NUL (an empty item, which no list has) ends it. A
 * failed entry is an empty value, so that the values stay in step with the
 * names.
 */
static void raw_entry(FILE *f, const struct gv_cmd *cmd,
		      const struct entry *e, size_t index)
{
	(void)index;
	if (e->err) {
		report_error(cmd, e);
	} else {
		fwrite(e->val, 1, e->len, f);
		if (e->list && e->len && e->val[e->len - 1])
			putc(0, f);	/* never happens: items end in NUL */
	}
	putc(0, f);
}

static void json_begin(FILE *f)
{
	fputs("{\n  \"values\": [", f);
}

static void json_entry(FILE *f, const struct gv_cmd *cmd,
		       const struct entry *e, size_t index)
{
	size_t nlen = strlen(e->shown);
	bool text = !e->err && utf8_valid(e->val, e->len);
	const char *msg;
	char mbuf[256];

	fputs(index ? ",\n    {" : "\n    {", f);
	fputs("\"name\": ", f);
	if (utf8_valid(e->shown, nlen)) {
		put_json_string(f, e->shown, nlen);
	} else {
		put_json_base64(f, e->shown, nlen);
		fputs(", \"name_encoding\": \"base64\"", f);
	}
	if (e->err) {
		const char *ename = strerrorname_np(e->err);
		char num[16];

		report_error(cmd, e);
		if (!ename) {
			snprintf(num, sizeof(num), "%d", e->err);
			ename = num;
		}
		fputs(", \"error\": ", f);
		put_json_string(f, ename, strlen(ename));
		fputs(", \"message\": ", f);
		msg = explain(cmd, e, mbuf, sizeof(mbuf));
		put_json_string(f, msg, strlen(msg));
		fputs("}", f);
		return;
	}
	if (!text)
		fputs(", \"encoding\": \"base64\"", f);
	fputs(", \"value\": ", f);
	if (e->list) {
		const char *item;
		size_t pos = 0, ilen;

		putc('[', f);
		while (next_item(e, &pos, &item, &ilen)) {
			if (item != e->val)
				fputs(", ", f);
			if (text)
				put_json_string(f, item, ilen);
			else
				put_json_base64(f, item, ilen);
		}
		putc(']', f);
	} else if (text) {
		put_json_string(f, e->val, e->len);
	} else {
		put_json_base64(f, e->val, e->len);
	}
	msg = entry_fs_name(e);
	if (msg) {
		fputs(", \"fs_name\": ", f);
		put_json_string(f, msg, strlen(msg));
	}
	fputs("}", f);
}

static void json_end(FILE *f)
{
	fputs("\n  ]\n}\n", f);
}

/* The mount table's cell for shown row @row, column @col. */
static const struct entry *mtable_cell(const struct mtable *t, size_t row,
				       size_t col)
{
	return &t->cells[t->rows[row] * t->nfields + t->fidx[col]];
}

/*
 * One cell of the text table, padded to @colw columns: numbers to the
 * right, the rest to the left; the last cell of a line is not padded.
 */
static void put_cell(FILE *f, const char *s, size_t n, size_t colw,
		     bool right, bool last)
{
	size_t w = put_escaped(NULL, s, n);

	if (right)
		fprintf(f, "%*s", (int)(colw - w), "");
	put_escaped(f, s, n);
	if (last) {
		putc('\n', f);
		return;
	}
	if (!right)
		fprintf(f, "%*s", (int)(colw - w), "");
	putc(' ', f);
}

/* Text: a header, then one line per mount, columns lined up. */
static void text_table(FILE *f, const struct gv_cmd *cmd,
		       const struct mtable *t)
{
	size_t width[NMNT_COLUMNS];

	for (size_t c = 0; c < cmd->ncols; c++) {
		width[c] = cmd->noheadings ? 0 : strlen(cmd->cols[c]->name);
		for (size_t r = 0; r < t->nrows; r++) {
			const struct entry *e = mtable_cell(t, r, c);
			size_t w = put_escaped(NULL, e->val, e->len);

			if (w > width[c])
				width[c] = w;
		}
	}
	if (!cmd->noheadings) {
		for (size_t c = 0; c < cmd->ncols; c++) {
			char head[32];
			size_t n = strlen(cmd->cols[c]->name);

			for (size_t i = 0; i <= n; i++)
				head[i] = (char)toupper(
					(unsigned char)cmd->cols[c]->name[i]);
			put_cell(f, head, n, width[c], cmd->cols[c]->number,
				 c + 1 == cmd->ncols);
		}
	}
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < cmd->ncols; c++) {
			const struct entry *e = mtable_cell(t, r, c);

			put_cell(f, e->val, e->len, width[c],
				 cmd->cols[c]->number, c + 1 == cmd->ncols);
		}
}

/* Raw: every cell as its bytes and a NUL, row after row, no header. */
static void raw_table(FILE *f, const struct gv_cmd *cmd,
		      const struct mtable *t)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < cmd->ncols; c++) {
			const struct entry *e = mtable_cell(t, r, c);

			if (e->len)
				fwrite(e->val, 1, e->len, f);
			putc(0, f);
		}
}

/* Whether @s is a number as JSON writes it: no sign, no leading zero. */
static bool json_number(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n == 1 || (n > 1 && s[0] != '0');
}

/*
 * JSON as findmnt -J -l gives it: {"filesystems": [{"target": ...}, ...]},
 * numbers as numbers, an empty or failed value as null. A value that is
 * not UTF-8 is in base64, and "KEY_encoding": "base64" follows it.
 */
static void json_table(FILE *f, const struct gv_cmd *cmd,
		       const struct mtable *t)
{
	fputs("{\n  \"filesystems\": [", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n    {" : "\n    {", f);
		for (size_t c = 0; c < cmd->ncols; c++) {
			const struct mnt_column *col = cmd->cols[c];
			const struct entry *e = mtable_cell(t, r, c);

			if (c)
				fputs(", ", f);
			put_json_string(f, col->name, strlen(col->name));
			fputs(": ", f);
			if (!e->len) {
				fputs("null", f);
			} else if (col->number && json_number(e->val, e->len)) {
				fwrite(e->val, 1, e->len, f);
			} else if (utf8_valid(e->val, e->len)) {
				put_json_string(f, e->val, e->len);
			} else {
				put_json_base64(f, e->val, e->len);
				fprintf(f, ", \"%s_encoding\": \"base64\"",
					col->name);
			}
		}
		putc('}', f);
	}
	fputs(t->nrows ? "\n  ]\n}\n" : "]\n}\n", f);
}

static const struct formatter fmt_text = {
	.name = "text",
	.entry = text_entry,
	.table = text_table,
};

static const struct formatter fmt_raw = {
	.name = "raw",
	.entry = raw_entry,
	.table = raw_table,
};

static const struct formatter fmt_json = {
	.name = "json",
	.begin = json_begin,
	.entry = json_entry,
	.end = json_end,
	.table = json_table,
};

/* ------------------------------------------------------------------ */
/* The values mode                                                     */

static void report_call_error(const struct gv_cmd *cmd, int err)
{
	const char *env = getenv("GETVALUES_BACKEND");

	if (err == ENOSYS && env && !strcmp(env, "native")) {
		warnx("backend native: this kernel has no readfile(2) and "
		      "getvalues(2) system calls (see getvalues(7))");
		return;
	}
	if (err == ENOSYS && env && !strcmp(env, "uring")) {
		warnx("backend uring: io_uring cannot be used here (not in "
		      "this kernel, disabled by /proc/sys/kernel/"
		      "io_uring_disabled, or blocked by seccomp)");
		return;
	}
	if (err == ENOSYS && env && *env && strcmp(env, "auto")) {
		warnx("backend %s: %s", env, strerror(err));
		return;
	}
	fputs(PROG ": ", stderr);
	if (cmd->path && *cmd->path) {
		put_escaped(stderr, cmd->path, strlen(cmd->path));
		if (cmd->have_fd)
			fprintf(stderr, " (relative to fd %d)", cmd->dfd);
	} else if (cmd->have_fd) {
		fprintf(stderr, "fd %d", cmd->dfd);
	} else {
		fputs(cmd->path ? "\"\"" : ".", stderr);
	}
	fprintf(stderr, ": %s\n", strerror(err));
}

static int run_values(const struct gv_cmd *cmd)
{
	struct buffers bs = { 0 };
	struct entry *e;
	int ret, status = EXIT_ALL_OK;

	e = calloc(cmd->nnames, sizeof(*e));
	if (!e) {
		warnx("%s", strerror(ENOMEM));
		return EXIT_TROUBLE;
	}
	ret = expand_names(e, cmd->names, cmd->nnames);
	if (!ret)
		ret = fetch_values(cmd, e, cmd->nnames, &bs, BUF_INITIAL);
	if (ret == -ENOMEM) {
		warnx("%s", strerror(ENOMEM));
		status = EXIT_TROUBLE;
	} else if (ret) {
		report_call_error(cmd, -ret);
		status = EXIT_TROUBLE;
	} else {
		size_t failed = 0;

		if (cmd->fmt->begin)
			cmd->fmt->begin(stdout);
		for (size_t i = 0; i < cmd->nnames; i++) {
			cmd->fmt->entry(stdout, cmd, &e[i], i);
			failed += e[i].err != 0;
		}
		if (cmd->fmt->end)
			cmd->fmt->end(stdout);
		if (failed)
			status = failed == cmd->nnames ? EXIT_NONE_FETCHED :
							 EXIT_SOME_FAILED;
	}
	for (size_t i = 0; i < cmd->nnames; i++)
		free(e[i].shown);
	free(e);
	buffers_free(&bs);
	return status;
}

/* ------------------------------------------------------------------ */
/* The mounts mode                                                     */

/*
 * A first guess at the bytes the fields of @n entries take, so that the
 * usual table needs no second try: mount points, sources and options are
 * mostly well under 64 bytes.
 */
#define MNT_BYTES_PER_VALUE	64

/* The distinct fields the columns show, and which column shows which. */
static void mtable_fields(const struct gv_cmd *cmd, struct mtable *t)
{
	for (size_t c = 0; c < cmd->ncols; c++) {
		const char *field = cmd->cols[c]->field;
		size_t i;

		for (i = 0; i < t->nfields; i++)
			if (!strcmp(t->fields[i], field))
				break;
		if (i == t->nfields)
			t->fields[t->nfields++] = field;
		t->fidx[c] = i;
	}
}

/*
 * The names of every field of every mount: "mntns:ID:FIELD" first, then
 * ":FIELD" for the other fields of that mount, so one call fetches the
 * whole table; "mnt:FIELD" and the same shorthand for $ORIGIN's mount.
 * @ids holds @nids list items (decimal IDs), or is NULL for $ORIGIN's.
 */
static char **mount_names(const struct mtable *t, const struct entry *ids,
			  size_t nids, char ***shortp)
{
	char **names = calloc(nids * t->nfields, sizeof(*names));
	char **shorts = calloc(t->nfields, sizeof(*shorts));
	const char *item = NULL;
	size_t pos = 0, ilen = 0;

	*shortp = shorts;
	if (!names || !shorts) {
		free(names);
		return NULL;
	}
	for (size_t f = 0; f < t->nfields; f++)
		if (asprintf(&shorts[f], ":%s", t->fields[f]) < 0) {
			shorts[f] = NULL;
			goto fail;
		}
	for (size_t m = 0; m < nids; m++) {
		char **row = names + m * t->nfields;
		int n;

		if (ids && !next_item(ids, &pos, &item, &ilen))
			goto fail;
		if (ids)
			n = asprintf(&row[0], "mntns:%.*s:%s", (int)ilen, item,
				     t->fields[0]);
		else
			n = asprintf(&row[0], "mnt:%s", t->fields[0]);
		if (n < 0) {
			row[0] = NULL;
			goto fail;
		}
		for (size_t f = 1; f < t->nfields; f++)
			row[f] = shorts[f];
	}
	return names;
fail:
	for (size_t m = 0; m < nids; m++)
		free(names[m * t->nfields]);
	free(names);
	return NULL;
}

static void mount_names_free(const struct mtable *t, char **names,
			     char **shorts, size_t nids)
{
	for (size_t m = 0; names && m < nids; m++)
		free(names[m * t->nfields]);
	free(names);
	for (size_t f = 0; shorts && f < t->nfields; f++)
		free(shorts[f]);
	free(shorts);
}

/*
 * Which mounts to show, reporting failed cells. A mount whose fields are
 * ENOENT was unmounted between the listing and the second call: it is
 * left out without a word, as if the listing had come a moment later. A
 * mount none of whose fields could be read is left out too.
 */
static int mtable_rows(const struct gv_cmd *cmd, struct mtable *t)
{
	int status = EXIT_ALL_OK;

	t->rows = calloc(t->nmounts ? t->nmounts : 1, sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t m = 0; m < t->nmounts; m++) {
		const struct entry *c = &t->cells[m * t->nfields];
		bool gone = false, some = false;

		for (size_t f = 0; f < t->nfields; f++) {
			gone |= cmd->all_mounts && c[f].err == ENOENT;
			some |= !c[f].err;
		}
		if (gone)
			continue;
		for (size_t f = 0; f < t->nfields; f++)
			if (c[f].err) {
				report_error(cmd, &c[f]);
				status = EXIT_SOME_FAILED;
			}
		if (some)
			t->rows[t->nrows++] = m;
	}
	if (status != EXIT_ALL_OK && !t->nrows)
		status = EXIT_NONE_FETCHED;
	return status;
}

/*
 * The mount table: with all_mounts, one call for the list of mount IDs
 * ("mntns") and one for the fields of all of them; else one call for the
 * fields of $ORIGIN's mount.
 */
static int run_mounts(const struct gv_cmd *cmd)
{
	char lname[] = "mntns";
	struct entry list = { .written = lname, .shown = lname, .list = true };
	struct buffers lbs = { 0 }, bs = { 0 };
	char **names = NULL, **shorts = NULL;
	struct mtable t = { 0 };
	int ret = 0, status = EXIT_ALL_OK;
	size_t n = 0, pos = 0, ilen;
	const char *item;

	mtable_fields(cmd, &t);
	t.nmounts = 1;
	if (cmd->all_mounts) {
		ret = fetch_values(cmd, &list, 1, &lbs, BUF_INITIAL);
		if (ret)
			goto out;
		if (list.err) {
			report_error(cmd, &list);
			status = EXIT_NONE_FETCHED;
			goto out;
		}
		for (t.nmounts = 0; next_item(&list, &pos, &item, &ilen);)
			t.nmounts++;
	}
	n = t.nmounts * t.nfields;
	if (n) {
		names = mount_names(&t, cmd->all_mounts ? &list : NULL,
				    t.nmounts, &shorts);
		t.cells = calloc(n, sizeof(*t.cells));
		if (!names || !t.cells) {
			ret = -ENOMEM;
			goto out;
		}
		ret = expand_names(t.cells, names, n);
		if (!ret)
			ret = fetch_values(cmd, t.cells, n, &bs,
					   n * MNT_BYTES_PER_VALUE > BUF_INITIAL ?
					   n * MNT_BYTES_PER_VALUE :
					   BUF_INITIAL);
		if (ret)
			goto out;
	}
	ret = mtable_rows(cmd, &t);
	if (ret < 0)
		goto out;
	status = ret;
	ret = 0;
	/* as for values: what failed prints nothing, not an empty table */
	if (t.nrows || status == EXIT_ALL_OK)
		cmd->fmt->table(stdout, cmd, &t);
out:
	if (ret == -ENOMEM) {
		warnx("%s", strerror(ENOMEM));
		status = EXIT_TROUBLE;
	} else if (ret) {
		report_call_error(cmd, -ret);
		status = EXIT_TROUBLE;
	}
	for (size_t i = 0; t.cells && i < n; i++)
		free(t.cells[i].shown);
	free(t.cells);
	free(t.rows);
	mount_names_free(&t, names, shorts, t.nmounts);
	buffers_free(&lbs);
	buffers_free(&bs);
	return status;
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

enum {
	OPT_FD = 0x100,
	OPT_BACKEND,
	OPT_MAX_SIZE,
};

/* One line per option: getopt_long() and --help are made from this. */
static const struct cmd_option {
	struct option lo;
	int short_opt;
	const char *arg;
	const char *help;
} options[] = {
	{ { "json", no_argument, NULL, 'J' }, 'J', NULL,
	  "print JSON: {\"values\": [{\"name\": ..., \"value\": ...}]}" },
	{ { "raw", no_argument, NULL, '0' }, '0', NULL,
	  "print the values only, each ended by a NUL byte" },
	{ { "mounts", no_argument, NULL, 'm' }, 'm', NULL,
	  "a table of every mount, or of the mount PATH is on" },
	{ { "output", required_argument, NULL, 'o' }, 'o', "LIST",
	  "the table's columns (+LIST: the default ones and LIST)" },
	{ { "noheadings", no_argument, NULL, 'n' }, 'n', NULL,
	  "no header line in the table" },
	{ { "no-follow", no_argument, NULL, 'L' }, 'L', NULL,
	  "if PATH is a symbolic link, describe the link itself" },
	{ { "empty-path", no_argument, NULL, 'E' }, 'E', NULL,
	  "no PATH: describe the file open as --fd (or the cwd)" },
	{ { "fd", required_argument, NULL, OPT_FD }, 0, "N",
	  "resolve PATH relative to open file descriptor N" },
	{ { "backend", required_argument, NULL, OPT_BACKEND }, 0, "NAME",
	  "use mechanism NAME: auto, sync, uring or native" },
	{ { "max-size", required_argument, NULL, OPT_MAX_SIZE }, 0, "SIZE",
	  "let the value buffer grow up to SIZE bytes (K, M, G)" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL,
	  "print this help and exit" },
	{ { "version", no_argument, NULL, 'V' }, 'V', NULL,
	  "print the version and exit" },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static const char *const backends[] = { "auto", "sync", "uring", "native" };

/* Whether @name is a mechanism getvalues(3) knows. */
static bool backend_known(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(name, backends[i]))
			return true;
	return false;
}


static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTIONS] PATH NAME...\n"
	      "       " PROG " [OPTIONS] -E [--fd N] NAME...\n"
	      "       " PROG " [OPTIONS] --mounts [PATH]\n"
	      "Print named values about PATH, fetched with one getvalues(3) "
	      "call.\n"
	      "NAME is GROUP:FIELD (stat:size, data:SUBPATH, xattr:NAME, "
	      "mnt:source...),\nGROUP or \"\" for a list, :REST for the "
	      "previous entry's prefix.\nIn text, a lone NAME mntns is "
	      "--mounts, a lone mnt is --mounts PATH.\n\nOptions:\n", f);
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cmd_option *o = &options[i];
		char left[40];

		if (o->short_opt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s",
				 o->short_opt, o->lo.name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s",
				 o->lo.name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-22s %s\n", left, o->help);
	}
	fputs("\nColumns of --mounts (default " MNT_COLUMNS_DEFAULT "):\n ",
	      f);
	for (size_t i = 0, col = 1; i < NMNT_COLUMNS; i++) {
		size_t len = strlen(mnt_columns[i].name) + 1;

		if (col + len > 78) {
			fputs("\n ", f);
			col = 1;
		}
		fprintf(f, " %s", mnt_columns[i].name);
		col += len;
	}
	fputs("\n", f);
	fputs("\nExit status: 0 every value fetched, 1 usage error or "
	      "failure,\n32 no value fetched, 64 some values fetched, "
	      "others not.\nSee getvalues(1) and getvalues(3).\n", f);
}

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help' for more information.\n", stderr);
	return EXIT_TROUBLE;
}

/* A non-negative decimal int. */
static bool parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return false;
	*fd = (int)v;
	return true;
}

/* Bytes, with an optional K, M or G (powers of 1024); at least 1. */
static bool parse_size(const char *s, size_t *size)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end) {
		const char *units = "KMG", *u = strchr(units, *end);

		if (!u || (end[1] && strcmp(end + 1, "iB")))
			return false;
		shift = 10 * (unsigned int)(u - units + 1);
	}
	if (!v || v > (SIZE_MAX >> shift))
		return false;
	*size = (size_t)v << shift;
	return true;
}

static const struct mnt_column *find_column(const char *name, size_t len)
{
	for (size_t i = 0; i < NMNT_COLUMNS; i++)
		if (strlen(mnt_columns[i].name) == len &&
		    !strncasecmp(mnt_columns[i].name, name, len))
			return &mnt_columns[i];
	return NULL;
}

/* Append the comma-separated columns of @list; -1, or a usage error. */
static int add_columns(struct gv_cmd *cmd, const char *list)
{
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		const struct mnt_column *col = find_column(p, len);

		if (!col)
			return usage_error("--output: unknown column '%.*s'",
					   (int)len, p);
		for (size_t i = 0; i < cmd->ncols; i++)
			if (cmd->cols[i] == col)
				return usage_error("--output: column '%s' "
						   "given twice", col->name);
		cmd->cols[cmd->ncols++] = col;
		p += len;
		if (!*p)
			return -1;
	}
}

/* --output=LIST, or +LIST for the default columns followed by LIST. */
static int parse_columns(struct gv_cmd *cmd, const char *list)
{
	cmd->ncols = 0;
	if (*list == '+') {
		add_columns(cmd, MNT_COLUMNS_DEFAULT);
		list++;
	}
	return add_columns(cmd, list);
}

/* A lone "mnt" or "mntns" in text is asking for the mount table. */
static bool names_ask_for_table(const struct gv_cmd *cmd)
{
	return cmd->nnames == 1 && cmd->fmt == &fmt_text &&
	       (!strcmp(cmd->names[0], "mnt") ||
		!strcmp(cmd->names[0], "mntns"));
}

static const struct formatter *pick_format(const struct formatter *cur,
					   const struct formatter *want)
{
	return cur && cur != want ? NULL : want;
}

/*
 * Parse the command line into @cmd. Returns -1 to go on, or the exit
 * status (--help, --version, usage errors).
 */
static int parse_args(int argc, char **argv, struct gv_cmd *cmd)
{
	struct option lo[NOPTIONS + 1];
	char shorts[2 * NOPTIONS + 2], *sp = shorts;
	const struct formatter *fmt = NULL;
	bool empty_path = false, bad_fmt = false;
	const char *output = NULL;
	int c, st;

	*sp++ = '+';	/* names such as ":status" are never options */
	for (size_t i = 0; i < NOPTIONS; i++) {
		lo[i] = options[i].lo;
		if (options[i].short_opt) {
			*sp++ = (char)options[i].short_opt;
			if (options[i].lo.has_arg == required_argument)
				*sp++ = ':';
		}
	}
	*sp = 0;
	memset(&lo[NOPTIONS], 0, sizeof(lo[NOPTIONS]));

	*cmd = (struct gv_cmd){ .dfd = AT_FDCWD,
				.max_size = BUF_LIMIT_DEFAULT };
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		switch (c) {
		case 'J':
			fmt = pick_format(fmt, &fmt_json);
			bad_fmt |= !fmt;
			break;
		case '0':
			fmt = pick_format(fmt, &fmt_raw);
			bad_fmt |= !fmt;
			break;
		case 'm':
			cmd->mounts = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'n':
			cmd->noheadings = true;
			break;
		case 'L':
			cmd->flags |= AT_SYMLINK_NOFOLLOW;
			break;
		case 'E':
			empty_path = true;
			break;
		case OPT_FD:
			if (!parse_fd(optarg, &cmd->dfd))
				return usage_error("--fd: '%s' is not a file "
						   "descriptor number", optarg);
			cmd->have_fd = true;
			break;
		case OPT_BACKEND:
			cmd->backend = backend_known(optarg) ? optarg : NULL;
			if (!cmd->backend)
				return usage_error("--backend: unknown backend "
						   "'%s' (auto, sync, uring, "
						   "native)", optarg);
			break;
		case OPT_MAX_SIZE:
			if (!parse_size(optarg, &cmd->max_size))
				return usage_error("--max-size: '%s' is not a "
						   "size", optarg);
			break;
		case 'h':
			usage(stdout);
			return EXIT_ALL_OK;
		case 'V':
			printf(PROG " (libgetvalues) %d.%d.%d\n",
			       GETVALUES_VERSION_MAJOR,
			       GETVALUES_VERSION_MINOR,
			       GETVALUES_VERSION_PATCH);
			return EXIT_ALL_OK;
		default:
			fputs("Try '" PROG " --help' for more information.\n",
			      stderr);
			return EXIT_TROUBLE;
		}
	}
	if (bad_fmt)
		return usage_error("--json and --raw exclude each other");
	cmd->fmt = fmt ? fmt : &fmt_text;

	if (empty_path) {
		cmd->flags |= AT_EMPTY_PATH;
		cmd->path = NULL;
	} else if (cmd->mounts && optind == argc) {
		/* any path will do for the list of every mount */
		cmd->path = "/";
		cmd->all_mounts = true;
	} else {
		if (optind >= argc)
			return usage_error("no PATH given");
		cmd->path = argv[optind++];
	}
	if (cmd->mounts) {
		if (optind < argc)
			return usage_error("--mounts takes at most one PATH");
	} else {
		if (optind >= argc)
			return usage_error("no NAME given");
		cmd->names = argv + optind;
		cmd->nnames = argc - optind;
		if (names_ask_for_table(cmd)) {
			cmd->mounts = true;
			cmd->all_mounts = !strcmp(cmd->names[0], "mntns");
		}
	}
	if (!cmd->mounts && (output || cmd->noheadings))
		return usage_error("--output and --noheadings are for the "
				   "mount table (--mounts)");
	if (cmd->mounts) {
		st = parse_columns(cmd, output ? output : MNT_COLUMNS_DEFAULT);
		if (st >= 0)
			return st;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *env = getenv("GETVALUES_BACKEND");
	struct gv_cmd cmd;
	int status;

	setlocale(LC_ALL, "");
	status = parse_args(argc, argv, &cmd);
	if (status >= 0)
		goto out;
	/* every call would fail (EINVAL): say why instead */
	if (!cmd.backend && env && *env && !backend_known(env)) {
		warnx("GETVALUES_BACKEND=%s: unknown backend (auto, sync, "
		      "uring, native)", env);
		return EXIT_TROUBLE;
	}
	/* the library reads GETVALUES_BACKEND once, at its first call */
	if (cmd.backend && setenv("GETVALUES_BACKEND", cmd.backend, 1)) {
		warnx("%s", strerror(errno));
		return EXIT_TROUBLE;
	}
	status = cmd.mounts ? run_mounts(&cmd) : run_values(&cmd);
out:
	if (fflush(stdout) || ferror(stdout)) {
		warnx("write error: %s", strerror(errno));
		status = EXIT_TROUBLE;
	}
	return status;
}
