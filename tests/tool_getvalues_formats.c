// SPDX-License-Identifier: MIT
/*
 * tool_getvalues_formats.c - the machine-readable output of the getvalues
 * command and its large values: --json checked by a real parser (strings,
 * base64 exactly where a value or name is not UTF-8, arrays, errors), -0,
 * values and listings larger than the first buffer, --max-size, and how
 * many getvalues() calls a run makes, against values this program reads
 * for itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/getvalues_cmd.h"
#include "lib/run.h"
#include "lib/tap.h"
#include "lib/util.h"

static void test_json(void)
{
	struct sb jwant = { 0 }, b = { 0 }, items = { 0 };
	char path[PATH_MAX];
	struct run r, j;

	run_tool(&r, NULL, "--json", tg_dir, "data:text", "data:utf8",
		 "data:esc", "data:big", "dir:sub", "data:missing", "",
		 "data:\xff", "stat:nlink:sub", "data:surrogate", ":overlong",
		 ":toohigh", ":highest", NULL);
	tap_is_long(r.status, 64, "--json: exit 64 for the missing file");
	tap_is_mem(r.err.p, r.err.len,
		   "getvalues: data:missing: No such file or directory\n",
		   51, "--json: the error on stderr too");
	if (!tool_have_json) {
		tap_skip(2, TOOL_NO_JSON);
		goto escapes;
	}
	tg_parse_json(&j, &r.out);
	tap_is_long(j.status, 0, "--json: python3 json parses it");
	if (j.status)
		tap_diag("%s", j.err.p);

	tg_read_file("text", &b);
	tg_jline(&jwant, "V", "data:text", b.p, b.len);
	sb_free(&b);
	tg_read_file("utf8", &b);
	tg_jline(&jwant, "V", "data:utf8", b.p, b.len);
	sb_free(&b);
	tg_read_file("esc", &b);
	tg_jline(&jwant, "BV", "data:esc", b.p, b.len);
	sb_free(&b);
	tg_read_file("big", &b);
	tg_jline(&jwant, "BV", "data:big", b.p, b.len);
	sb_free(&b);
	snprintf(path, sizeof(path), "%s/sub", tg_dir);
	tg_list_dir(path, &items);
	tg_jline(&jwant, "L", "dir:sub", items.p, items.len);
	sb_free(&items);
	tg_jerror(&jwant, "data:missing", ENOENT);
	sb_items(&items, tg_spec_groups);
	tg_jline(&jwant, "L", "", items.p, items.len);
	sb_free(&items);
	tg_jline(&jwant, "V", "data:\xff", "x", 1);
	sb_printf(&b, "%llu",
		  (unsigned long long)tg_stat_of("sub", true).st_nlink);
	tg_jline(&jwant, "V", "stat:nlink:sub", b.p, b.len);
	sb_free(&b);
	/* what RFC 3629 forbids is not UTF-8 */
	tg_jline(&jwant, "BV", "data:surrogate", "a\xed\xa0\x80", 4);
	tg_jline(&jwant, "BV", "data:overlong", "\xc0\xaf", 2);
	tg_jline(&jwant, "BV", "data:toohigh", "\xf4\x90\x80\x80", 4);
	tg_jline(&jwant, "V", "data:highest", "\xf4\x8f\xbf\xbf", 4);
	tap_is_mem(j.out.p, j.out.len, jwant.p, jwant.len,
		   "--json: strings, base64 exactly for non-UTF-8 values "
		   "and names, arrays, errors; decoded bytes match the files");
	run_free(&j);
	sb_free(&jwant);
escapes:
	tap_ok(strstr(r.out.p, "\"value\": \"gr\xc3\xbc\xc3\x9f" "e \\\"q\\\" "
		      "\\\\ \\u0001 \xe2\x82\xac\\n\"") != NULL,
	       "--json: UTF-8 kept as is, quotes, backslash and controls "
	       "escaped");
	run_free(&r);

	if (!tg_have_xattr) {
		tap_skip(2, "the file system of %s has no user xattrs", tg_dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/text", tg_dir);
	run_tool(&r, NULL, "-J", path, "xattr:user.bin", ":user.txt", NULL);
	tap_is_long(r.status, 0, "--json xattr: exit 0");
	if (!tool_have_json) {
		tap_skip(1, TOOL_NO_JSON);
		run_free(&r);
		return;
	}
	tg_parse_json(&j, &r.out);
	tg_jline(&jwant, "BV", "xattr:user.bin", tg_xattr_bin, sizeof(tg_xattr_bin));
	tg_jline(&jwant, "V", "xattr:user.txt", "v", 1);
	tap_is_mem(j.out.p, j.out.len, jwant.p, jwant.len,
		   "--json xattr: a binary value in base64, decoded exactly");
	run_free(&j);
	run_free(&r);
	sb_free(&jwant);
}

static void test_raw(void)
{
	struct sb want = { 0 }, b = { 0 };
	char path[PATH_MAX];
	struct run r;

	tg_read_file("text", &want);
	sb_add(&want, "", 1);
	snprintf(path, sizeof(path), "%s/sub", tg_dir);
	tg_list_dir(path, &want);
	sb_add(&want, "", 1);		/* the end of the list */
	sb_add(&want, "", 1);		/* data:missing, empty */
	sb_printf(&b, "%lld", (long long)tg_stat_of("text", true).st_size);
	sb_add(&want, b.p, b.len + 1);
	tg_read_file("esc", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "-0", tg_dir, "data:text", "dir:sub", "data:missing",
		 "stat:size:text", "data:esc", NULL);
	expect(&r, 64, &want,
	       "getvalues: data:missing: No such file or directory\n",
	       "-0: raw values, NUL after each, lists end in an empty item");
	run_free(&r);
	sb_free(&want);
	sb_free(&b);
}

/* Values larger than the first buffer, and the limit. */
static void test_growth(void)
{
	struct sb want = { 0 }, items = { 0 };
	char path[PATH_MAX];
	struct run r;

	tg_read_file("big", &want);
	sb_add(&want, "", 1);
	sb_printf(&want, "%u", TG_BIG_SIZE);
	sb_add(&want, "", 1);
	tg_read_file("text", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "--raw", tg_dir, "data:big", "stat:size:big",
		 "data:text", NULL);
	expect(&r, 0, &want, "", "a 1 MiB value: the buffer grows");
	run_free(&r);
	sb_free(&want);

	snprintf(path, sizeof(path), "%s/many", tg_dir);
	tg_list_dir(path, &items);
	tap_ok(items.len > 65536, "the big listing is %zu bytes", items.len);
	tg_text_list(&want, "dir:many", &items);
	run_tool(&r, NULL, tg_dir, "dir:many", NULL);
	expect(&r, 0, &want, "", "a listing larger than the first buffer");
	run_free(&r);
	sb_free(&want);
	sb_free(&items);

	/* at the limit the value fails, the others still come */
	run_tool(&r, NULL, "--max-size=64K", tg_dir, "data:text", "data:big",
		 ":text", NULL);
	sb_adds(&want, "data:text=hello world\\n\ndata:text=hello world\\n\n");
	expect(&r, 64, &want, "getvalues: data:big: value does not fit in "
	       "65536 bytes (see --max-size)\n",
	       "--max-size: a value over the limit fails alone; the "
	       "shorthand after it still works");
	run_free(&r);
	sb_free(&want);

	/* two values that fit the limit alone, not together */
	tg_read_file("big", &want);
	sb_add(&want, "", 1);
	tg_read_file("big2", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "-0", "--max-size=1200K", tg_dir, "data:big",
		 ":big2", NULL);
	expect(&r, 0, &want, "",
	       "--max-size: values that only fit one at a time all come");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "-J", "--max-size=1K", tg_dir, "data:big", NULL);
	if (!tool_have_json) {
		tap_skip(1, TOOL_NO_JSON);
	} else {
		struct run j;
		struct sb jwant = { 0 };

		tg_parse_json(&j, &r.out);
		sb_adds(&jwant, "E ");
		sb_hex(&jwant, "data:big", 8);
		sb_adds(&jwant,
			" EOVERFLOW value does not fit in 1024 bytes (see "
			"--max-size)\n");
		tap_is_mem(j.out.p, j.out.len, jwant.p, jwant.len,
			   "--max-size --json: EOVERFLOW with the reason");
		run_free(&j);
		sb_free(&jwant);
	}
	run_free(&r);
}

/* getvalues() calls of the tool on @dir; -1 when strace cannot trace. */
static int count_calls(const char *const *args)
{
	char trace[PATH_MAX];

	snprintf(trace, sizeof(trace), "%s/strace.log", tg_outdir);
	return tool_count_calls(tg_dir, trace, args);
}

static void test_call_count(void)
{
	const char *const few[] = { tg_dir, "data:text", ":esc", "stat:size",
		":ino:text", "fs:type", "dir:sub", "", "xattr", "data:missing",
		NULL };
	const char *const big[] = { tg_dir, "data:big", "stat:size", NULL };
	int n = count_calls(few);

	if (n < 0) {
		tap_skip(2, "strace cannot trace processes here");
		return;
	}
	tap_is_long(n, 1, "nine names: $ORIGIN resolved once, one call");
	n = count_calls(big);
	tap_ok(n >= 2 && n <= 6, "a 1 MiB value: %d calls, the buffer "
	       "doubling from 64 KiB (at most 6)", n);
}

int main(void)
{
	tg_start();

	test_json();
	test_raw();
	test_growth();
	test_call_count();

	return tap_done();
}
