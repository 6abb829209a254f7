// SPDX-License-Identifier: MIT
/*
 * options.c - the command line: the option table (which getopt_long() and
 * --help are made from), its parsing into a struct gv_cmd, and the usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

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
bool backend_known(const char *name)
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


/* Append the comma-separated columns of @list; -1, or a usage error. */
static int add_columns(struct gv_cmd *cmd, const char *list)
{
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		const struct mnt_column *col = mnt_column_find(p, len);

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

/* getopt_long()'s tables, from the option table. */
static void getopt_tables(struct option *lo, char *shorts)
{
	char *sp = shorts;

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
}

/* What the options said that the operands decide on. */
struct parsed {
	const struct formatter *fmt;
	bool empty_path, bad_fmt;
	const char *output;
};

/* One option @c into @cmd and @p: -1 to go on, or the exit status. */
static int take_option(int c, struct gv_cmd *cmd, struct parsed *p)
{
	switch (c) {
	case 'J':
	case '0':
		p->fmt = pick_format(p->fmt, c == 'J' ? &fmt_json : &fmt_raw);
		p->bad_fmt |= !p->fmt;
		return -1;
	case 'm':
		cmd->mounts = true;
		return -1;
	case 'o':
		p->output = optarg;
		return -1;
	case 'n':
		cmd->noheadings = true;
		return -1;
	case 'L':
		cmd->flags |= AT_SYMLINK_NOFOLLOW;
		return -1;
	case 'E':
		p->empty_path = true;
		return -1;
	case OPT_FD:
		if (!parse_fd(optarg, &cmd->dfd))
			return usage_error("--fd: '%s' is not a file "
					   "descriptor number", optarg);
		cmd->have_fd = true;
		return -1;
	case OPT_BACKEND:
		cmd->backend = backend_known(optarg) ? optarg : NULL;
		if (!cmd->backend)
			return usage_error("--backend: unknown backend '%s' "
					   "(auto, sync, uring, native)",
					   optarg);
		return -1;
	case OPT_MAX_SIZE:
		if (!parse_size(optarg, &cmd->max_size))
			return usage_error("--max-size: '%s' is not a size",
					   optarg);
		return -1;
	case 'h':
		usage(stdout);
		return EXIT_ALL_OK;
	case 'V':
		printf(PROG " (libgetvalues) %d.%d.%d\n",
		       GETVALUES_VERSION_MAJOR, GETVALUES_VERSION_MINOR,
		       GETVALUES_VERSION_PATCH);
		return EXIT_ALL_OK;
	default:
		fputs("Try '" PROG " --help' for more information.\n", stderr);
		return EXIT_TROUBLE;
	}
}

/*
 * PATH and the NAMEs after the options, and what they mean together with
 * them: -1 to go on, or the exit status of a usage error.
 */
static int take_operands(int argc, char **argv, struct gv_cmd *cmd,
			 const struct parsed *p)
{
	if (p->empty_path) {
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
	if (!cmd->mounts && (p->output || cmd->noheadings))
		return usage_error("--output and --noheadings are for the "
				   "mount table (--mounts)");
	if (cmd->mounts) {
		int st = parse_columns(cmd, p->output ? p->output :
						      MNT_COLUMNS_DEFAULT);

		if (st >= 0)
			return st;
	}
	return -1;
}

/*
 * Parse the command line into @cmd. Returns -1 to go on, or the exit
 * status (--help, --version, usage errors).
 */
int parse_args(int argc, char **argv, struct gv_cmd *cmd)
{
	struct option lo[NOPTIONS + 1];
	char shorts[2 * NOPTIONS + 2];
	struct parsed p = { 0 };
	int c, st;

	getopt_tables(lo, shorts);
	*cmd = (struct gv_cmd){ .dfd = AT_FDCWD,
				.max_size = BUF_LIMIT_DEFAULT };
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1)
		if ((st = take_option(c, cmd, &p)) >= 0)
			return st;
	if (p.bad_fmt)
		return usage_error("--json and --raw exclude each other");
	cmd->fmt = p.fmt ? p.fmt : &fmt_text;
	return take_operands(argc, argv, cmd, &p);
}
