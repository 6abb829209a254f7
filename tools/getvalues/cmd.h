/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - what the parts of the getvalues command share: the command line
 * as parsed (struct gv_cmd), the fetched entries, the mount table and the
 * output formats.
 *
 * The flow: options.c parses the command line into a struct gv_cmd;
 * main.c (the values) or mounts.c (the mount table) fetch with fetch.c
 * (getvalues_alloc_each(3), which owns the buffer policy), and names.c
 * has the library write out each name's shorthand for the messages; format.c prints what came back as text, JSON or raw bytes,
 * and explain.c says in words what went wrong with an entry. mntopts.c
 * merges a mount's two option lists as findmnt(8) shows them.
 */
#ifndef GETVALUES_CMD_H
#define GETVALUES_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
 * The most room one value gets (--max-size), so that a mistaken
 * data:huge-file cannot make the command eat all memory: the library's.
 */
#define BUF_LIMIT_DEFAULT	GETVALUES_ALLOC_MAX

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
	const char *field2;	/* merged with field as findmnt merges them */
	bool number;		/* right-aligned; a JSON number */
};

/* columns.c: the columns, in --help's order */
#define NMNT_COLUMNS		19
#define MNT_COLUMNS_DEFAULT	"target,source,fstype,options"
extern const struct mnt_column mnt_columns[NMNT_COLUMNS];

struct gv_cmd {
	const struct formatter *fmt;
	int dfd;			/* AT_FDCWD, or --fd N */
	bool have_fd;
	const char *path;		/* NULL with --empty-path */
	unsigned int flags;		/* AT_* for getvalues() */
	const char *backend;		/* --backend, or NULL */
	size_t max_size;		/* the room one value may take */
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
 * which mounts are shown. Column c shows field fidx[c], or where it merges
 * two fields (merged_col[c]) the cell of merged[] made from fidx[c] and
 * fidx2[c], ncols cells per mount.
 */
struct mtable {
	const char *fields[NMNT_COLUMNS];
	size_t nfields;
	size_t fidx[NMNT_COLUMNS], fidx2[NMNT_COLUMNS];
	struct entry *cells;
	size_t nmounts;
	size_t *rows;
	size_t nrows;
	bool merged_col[NMNT_COLUMNS];
	struct entry *merged;
	size_t ncols;
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

/* options.c: -1 to go on, or the exit status */
int parse_args(int argc, char **argv, struct gv_cmd *cmd);
bool backend_known(const char *name);

/* names.c */
int expand_names(struct entry *e, char **names, size_t n);
bool next_item(const struct entry *e, size_t *pos, const char **item,
	       size_t *ilen);

/* fetch.c */
int fetch_values(const struct gv_cmd *cmd, struct entry *e, size_t n,
		 void **bufp);

/* explain.c */
void cmd_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *explain(const struct gv_cmd *cmd, const struct entry *e,
		    char *msg, size_t size);
void report_error(const struct gv_cmd *cmd, const struct entry *e);
void report_call_error(const struct gv_cmd *cmd, int err);
const char *entry_fs_name(const struct entry *e);

/* escape.c */
size_t put_escaped(FILE *f, const char *s, size_t n);

/* format.c */
extern const struct formatter fmt_text, fmt_raw, fmt_json;

/* columns.c */
const struct mnt_column *mnt_column_find(const char *name, size_t len);

/* mounts.c */
int run_mounts(const struct gv_cmd *cmd);

/* mntopts.c */
int mtable_merge(const struct gv_cmd *cmd, struct mtable *t);
void mtable_merge_free(struct mtable *t);

#endif /* GETVALUES_CMD_H */
