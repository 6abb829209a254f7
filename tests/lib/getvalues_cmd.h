/* SPDX-License-Identifier: MIT */
/*
 * getvalues_cmd.h - what the tests of the getvalues command share: a
 * scratch tree of files whose bytes test escaping, UTF-8 and buffer
 * growth, values this program reads for itself (read(2), stat(2),
 * readdir(3), statfs(2) through stat -f) in the tool's formats, and JSON
 * read back by Python's json module.
 */
#ifndef GV_TEST_GETVALUES_CMD_H
#define GV_TEST_GETVALUES_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "lib/run.h"

#define TG_BIG_SIZE	((1u << 20) + 17)	/* well past the first buffer */

extern const char *tg_dir;	/* the scratch tree */
extern const char *tg_outdir;	/* files of the test itself */
extern bool tg_have_xattr;	/* "text" has user.bin and user.txt */

/* The bytes of the file "esc" (and a NUL), of the xattr user.bin of "text". */
extern const char tg_esc_data[17];
extern const char tg_xattr_bin[4];
/* The groups SPEC names, as a listing of "" gives them; NULL-ended. */
extern const char *const tg_spec_groups[];

/*
 * Parse @json with Python's json module; @r gets one line per entry:
 * "V|L|BV|BL NAMEHEX VALUEHEX" (B: base64, decoded; L: the items rebuilt
 * as a getvalues list) or, for errors, "E NAMEHEX ERRNO MESSAGE". It
 * fails on anything getvalues(1) does not document, and on base64 for a
 * value that is valid UTF-8.
 */
void tg_parse_json(struct run *r, const struct sb *json);
/* What the JSON reader prints for a value: "KIND NAMEHEX VALUEHEX". */
void tg_jline(struct sb *b, const char *kind, const char *name,
	      const void *val, size_t len);
/* What the JSON reader prints for an error: "E NAMEHEX ERRNO MESSAGE". */
void tg_jerror(struct sb *b, const char *name, int err);

/*
 * " (NAME)": what getvalues(1) adds to fs:type in text, NAME as coreutils'
 * stat -f calls the file system of @path; "" where stat has no name for it.
 */
void tg_fs_name(const char *path, char *out, size_t size);
/* The bytes of @name in the scratch tree, by read(2), added to @b. */
void tg_read_file(const char *name, struct sb *b);
/* stat(2) (lstat(2) unless @follow) of @name in the scratch tree. */
struct stat tg_stat_of(const char *name, bool follow);
/* The names in @path as readdir(3) gives them, each ended by NUL. */
void tg_list_dir(const char *path, struct sb *items);
/* A list as the text format shows it: "NAME=" and "  ITEM" lines. */
void tg_text_list(struct sb *b, const char *name, const struct sb *items);

/* Set up a test program: the tool found, the scratch tree made. */
void tg_start(void);

#endif /* GV_TEST_GETVALUES_CMD_H */
