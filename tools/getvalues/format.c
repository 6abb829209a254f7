// SPDX-License-Identifier: MIT
/*
 * format.c - the output formats: text, raw and JSON, for values and for
 * the mount table, and the encoding JSON needs (the text's escaping is
 * escape.c's).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

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
	if (t->merged_col[col])
		return &t->merged[t->rows[row] * t->ncols + col];
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

const struct formatter fmt_text = {
	.name = "text",
	.entry = text_entry,
	.table = text_table,
};

const struct formatter fmt_raw = {
	.name = "raw",
	.entry = raw_entry,
	.table = raw_table,
};

const struct formatter fmt_json = {
	.name = "json",
	.begin = json_begin,
	.entry = json_entry,
	.end = json_end,
	.table = json_table,
};
