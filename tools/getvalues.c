// SPDX-License-Identifier: MIT
/*
 * getvalues.c - the getvalues command: print named values about one file,
 * fetched with a single getvalues(3) call, as text, JSON or raw bytes.
 *
 * Layout, so that new modes (a mount table, say) slot in beside "values":
 * an option table that also writes the help text; a struct gv_cmd holding
 * what the options chose; one fetch function that owns the buffer policy;
 * and output formatters as small ops tables (text, JSON, raw) that only see
 * finished entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include <getvalues.h>

#define PROG			"getvalues"

/* Exit status: see getvalues(1). */
#define EXIT_ALL_OK		0
#define EXIT_SOME_FAILED	1
#define EXIT_TROUBLE		2

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

/* An output format: called once before, once per entry, once after. */
struct formatter {
	const char *name;
	void (*begin)(FILE *f);
	void (*entry)(FILE *f, const struct gv_cmd *cmd, const struct entry *e,
		      size_t index);
	void (*end)(FILE *f);
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
 * line of the text output is therefore exactly one value or item.
 */
static void put_escaped(FILE *f, const char *s, size_t n)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	mbstate_t st;
	size_t i = 0;

	memset(&st, 0, sizeof(st));
	while (i < n) {
		unsigned char c = s[i];
		const char *p;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			putc(c, f);
			i++;
			continue;
		}
		if (c == '\\') {
			fputs("\\\\", f);
			i++;
			continue;
		}
		if (c && (p = memchr(named, c, sizeof(named) - 1))) {
			putc('\\', f);
			putc(letter[p - named], f);
			i++;
			continue;
		}
		if (c >= 0x80 && MB_CUR_MAX > 1) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, s + i, n - i, &st);

			if (k != (size_t)-1 && k != (size_t)-2 && k > 0 &&
			    iswprint(wc)) {
				fwrite(s + i, 1, k, f);
				i += k;
				continue;
			}
			memset(&st, 0, sizeof(st));
		}
		fprintf(f, "\\x%02x", c);
		i++;
	}
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
 * Fetch every entry with one getvalues() call. On EOVERFLOW the whole call
 * is made again with a buffer twice as large, up to cmd->max_size. Only if
 * a value does not fit even then does that entry fail (too_big); the call
 * then goes on from the next entry, in a fresh buffer, so that one huge
 * value does not hide the others. Returns 0, or -errno of a failed call.
 */
static int fetch_values(const struct gv_cmd *cmd, struct entry *e, size_t n,
			struct buffers *bs)
{
	size_t size = cmd->max_size < BUF_INITIAL ? cmd->max_size : BUF_INITIAL;
	struct name_val *vec = calloc(n, sizeof(*vec));
	size_t start = 0;
	char *buf = NULL;
	int ret = 0;

	if (!vec)
		return -ENOMEM;
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
			size = size > cmd->max_size / 2 ? cmd->max_size :
							  size * 2;
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

static void report_error(const struct gv_cmd *cmd, const struct entry *e)
{
	fputs(PROG ": ", stderr);
	put_escaped(stderr, e->shown, strlen(e->shown));
	if (e->too_big)
		fprintf(stderr, ": value does not fit in %zu bytes "
			"(see --max-size)\n", cmd->max_size);
	else
		fprintf(stderr, ": %s\n", strerror(e->err));
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
		if (e->too_big) {
			char msg[96];
			int m = snprintf(msg, sizeof(msg),
					 "value does not fit in %zu bytes",
					 cmd->max_size);
			put_json_string(f, msg, m);
		} else {
			const char *msg = strerror(e->err);

			put_json_string(f, msg, strlen(msg));
		}
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
	fputs("}", f);
}

static void json_end(FILE *f)
{
	fputs("\n  ]\n}\n", f);
}

static const struct formatter fmt_text = {
	.name = "text",
	.entry = text_entry,
};

static const struct formatter fmt_raw = {
	.name = "raw",
	.entry = raw_entry,
};

static const struct formatter fmt_json = {
	.name = "json",
	.begin = json_begin,
	.entry = json_entry,
	.end = json_end,
};

/* ------------------------------------------------------------------ */
/* The values mode                                                     */

static void report_call_error(const struct gv_cmd *cmd, int err)
{
	const char *env = getenv("GETVALUES_BACKEND");

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
		ret = fetch_values(cmd, e, cmd->nnames, &bs);
	if (ret == -ENOMEM) {
		warnx("%s", strerror(ENOMEM));
		status = EXIT_TROUBLE;
	} else if (ret) {
		report_call_error(cmd, -ret);
		status = EXIT_TROUBLE;
	} else {
		if (cmd->fmt->begin)
			cmd->fmt->begin(stdout);
		for (size_t i = 0; i < cmd->nnames; i++) {
			cmd->fmt->entry(stdout, cmd, &e[i], i);
			if (e[i].err)
				status = EXIT_SOME_FAILED;
		}
		if (cmd->fmt->end)
			cmd->fmt->end(stdout);
	}
	for (size_t i = 0; i < cmd->nnames; i++)
		free(e[i].shown);
	free(e);
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

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTIONS] PATH NAME...\n"
	      "       " PROG " [OPTIONS] -E [--fd N] NAME...\n"
	      "Print named values about PATH, fetched with one getvalues(3) "
	      "call.\n"
	      "NAME is GROUP:FIELD (stat:size, data:SUBPATH, xattr:NAME, "
	      "mnt:source...),\nGROUP or \"\" for a list, :REST for the "
	      "previous entry's prefix.\n\nOptions:\n", f);
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
	fputs("\nExit status: 0 all values fetched, 1 some failed, "
	      "2 trouble.\nSee getvalues(1) and getvalues(3).\n", f);
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
	int c;

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
			cmd->backend = NULL;
			for (size_t i = 0; i < sizeof(backends) /
						sizeof(backends[0]); i++)
				if (!strcmp(optarg, backends[i]))
					cmd->backend = backends[i];
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
			printf(PROG " (libgetvalues) %d.%d\n",
			       GETVALUES_VERSION_MAJOR,
			       GETVALUES_VERSION_MINOR);
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
	} else {
		if (optind >= argc)
			return usage_error("no PATH given");
		cmd->path = argv[optind++];
	}
	if (optind >= argc)
		return usage_error("no NAME given");
	cmd->names = argv + optind;
	cmd->nnames = argc - optind;
	return -1;
}

int main(int argc, char **argv)
{
	struct gv_cmd cmd;
	int status;

	setlocale(LC_ALL, "");
	status = parse_args(argc, argv, &cmd);
	if (status >= 0)
		goto out;
	/* the library reads GETVALUES_BACKEND once, at its first call */
	if (cmd.backend && setenv("GETVALUES_BACKEND", cmd.backend, 1)) {
		warnx("%s", strerror(errno));
		return EXIT_TROUBLE;
	}
	status = run_values(&cmd);
out:
	if (fflush(stdout) || ferror(stdout)) {
		warnx("write error: %s", strerror(errno));
		status = EXIT_TROUBLE;
	}
	return status;
}
