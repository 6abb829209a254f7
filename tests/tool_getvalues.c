// SPDX-License-Identifier: MIT
/*
 * tool_getvalues.c - the getvalues command as a user runs it, in its text
 * output: the acceptance line of issue 3, values and shorthand names,
 * escaping in the C and a UTF-8 locale, lists, and the mount groups,
 * against values this program reads for itself (read(2), stat(2),
 * readdir(3), listxattr(2), mountinfo). The other formats are in
 * tool_getvalues_formats.c, exit status and messages in
 * tool_getvalues_errors.c, the options in tool_getvalues_options.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/getvalues_cmd.h"
#include "lib/run.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char *const spec_stat_fields[] = {
	"type", "mode", "nlink", "uid", "gid", "size", "blocks", "blksize",
	"ino", "dev", "rdev", "atime", "mtime", "ctime", "btime", "mntid", NULL
};

/* Split @b (lines ending in '\n') into at most @max lines, in place. */
static size_t split_lines(struct sb *b, char **lines, size_t max)
{
	size_t n = 0;
	char *p = b->p, *nl;

	while ((nl = strchr(p, '\n')) && n < max) {
		*nl = 0;
		lines[n++] = p;
		p = nl + 1;
	}
	return *p ? max + 1 : n;
}

/* The acceptance line of issue 3, read about the tool's own process. */
static void test_acceptance(void)
{
	struct sb jwant = { 0 }, pid = { 0 };
	char want[128], *line[5], fsn[64];
	struct statfs sfs;
	struct stat st;
	struct run r, j;
	size_t n;

	if (stat("/proc/self", &st) || statfs("/proc/self", &sfs))
		tap_bail("stat /proc/self: %s", strerror(errno));
	run_tool(&r, NULL, "/proc/self", "data:stat", ":status", "stat:size",
		 "fs:type", NULL);
	tap_is_long(r.status, 0, "acceptance: exit status 0");
	tap_is_mem(r.err.p, r.err.len, "", 0, "acceptance: nothing on stderr");
	n = split_lines(&r.out, line, 4);
	if (!tap_is_long(n, 4, "acceptance: four lines, one per name")) {
		tap_skip(4, "the output has no four lines");
	} else {
		snprintf(want, sizeof(want), "data:stat=%d (getvalues) R ",
			 r.pid);
		tap_ok(!strncmp(line[0], want, strlen(want)) &&
		       strlen(line[0]) > 2 &&
		       !strcmp(line[0] + strlen(line[0]) - 2, "\\n"),
		       "acceptance: data:stat is /proc/%d/stat, its newline "
		       "escaped", r.pid);
		snprintf(want, sizeof(want), "\\nPid:\\t%d\\n", r.pid);
		tap_ok(!strncmp(line[1], "data:status=Name:\\tgetvalues\\n",
				30) && strstr(line[1], want),
		       "acceptance: :status expanded to data:status, on one "
		       "line, with Pid %d", r.pid);
		snprintf(want, sizeof(want), "stat:size=%lld",
			 (long long)st.st_size);
		tap_is_mem(line[2], strlen(line[2]), want, strlen(want),
			   "acceptance: stat:size as stat(2) has it");
		tg_fs_name("/proc/self", fsn, sizeof(fsn));
		snprintf(want, sizeof(want), "fs:type=0x%lx%s",
			 (unsigned long)sfs.f_type, fsn);
		tap_is_mem(line[3], strlen(line[3]), want, strlen(want),
			   "acceptance: fs:type as statfs(2) has it, named "
			   "as stat -f names it");
	}
	run_free(&r);

	run_tool(&r, NULL, "--json", "/proc/self", "data:stat", ":status",
		 "stat:size", "fs:type", NULL);
	tap_is_long(r.status, 0, "acceptance --json: exit status 0");
	if (!tool_have_json) {
		tap_skip(4, TOOL_NO_JSON);
		run_free(&r);
		return;
	}
	tg_parse_json(&j, &r.out);
	tap_is_long(j.status, 0, "acceptance --json: python3 json parses it");
	snprintf(want, sizeof(want), "%lld", (long long)st.st_size);
	tg_jline(&jwant, "V", "stat:size", want, strlen(want));
	snprintf(want, sizeof(want), "0x%lx", (unsigned long)sfs.f_type);
	tg_jline(&jwant, "V", "fs:type", want, strlen(want));
	n = split_lines(&j.out, line, 4);
	tap_ok(n == 4 && !strncmp(line[0], "V 646174613a73746174 ", 21) &&
	       !strncmp(line[1], "V 646174613a737461747573 ", 25),
	       "acceptance --json: data:stat and data:status (expanded) "
	       "are strings");
	/* jwant is "LINE\nLINE\n": compare with lines 3 and 4 */
	tap_ok(n == 4 && strlen(line[2]) + strlen(line[3]) + 2 == jwant.len &&
	       !strncmp(jwant.p, line[2], strlen(line[2])) &&
	       !strncmp(jwant.p + strlen(line[2]) + 1, line[3],
			strlen(line[3])),
	       "acceptance --json: stat:size and fs:type as stat(2) and "
	       "statfs(2) have them");
	sb_printf(&pid, "Pid:\t%d\n", r.pid);
	sb_free(&jwant);
	sb_hex(&jwant, pid.p, pid.len);
	tap_ok(n == 4 && strstr(line[1], jwant.p),
	       "acceptance --json: data:status holds the tool's pid");
	sb_free(&pid);
	sb_free(&jwant);
	run_free(&j);
	run_free(&r);
}

/* Plain values, the shorthand, stat against stat(2), fs against statfs. */
static void test_text(void)
{
	struct stat st = tg_stat_of("text", true);
	struct sb want = { 0 };
	struct statfs sfs;
	struct run r;
	char fsn[64];

	tg_fs_name(tg_dir, fsn, sizeof(fsn));
	if (statfs(tg_dir, &sfs))
		tap_bail("statfs %s: %s", tg_dir, strerror(errno));
	run_tool(&r, NULL, tg_dir, "data:text", ":link", "stat:size:text",
		 ":ino:text", "lstat:type:link", "stat:type:link", "fs:type",
		 ":namelen", "stat:mode:sub", NULL);
	sb_printf(&want, "data:text=hello world\\n\n"
		  "data:link=text\n"
		  "stat:size:text=%lld\n"
		  "stat:ino:text=%llu\n"
		  "lstat:type:link=lnk\n"
		  "stat:type:link=reg\n"
		  "fs:type=0x%lx%s\n"
		  "fs:namelen=%ld\n"
		  "stat:mode:sub=%04o\n",
		  (long long)st.st_size, (unsigned long long)st.st_ino,
		  (unsigned long)sfs.f_type, fsn, (long)sfs.f_namelen,
		  tg_stat_of("sub", true).st_mode & 07777);
	expect(&r, 0, &want, "", "values and shorthand");
	run_free(&r);
	sb_free(&want);
}

static void test_escaping(void)
{
	struct run r;
	struct sb want = { 0 };

	sb_adds(&want, "data:esc=a\\tb\\\\c\\x01\\x7f\\xff\\xc3\\xa9\\n\\r\\a"
		      "\\b\\v\\f\n");
	sb_adds(&want, "data:\\xff=x\n");
	run_tool(&r, NULL, tg_dir, "data:esc", "data:\xff", NULL);
	expect(&r, 0, &want, "", "C locale: every non-ASCII byte escaped");
	run_free(&r);

	/* the reference escaper must agree with the literal above */
	sb_free(&want);
	sb_adds(&want, "data:esc=");
	sb_escaped(&want, tg_esc_data, sizeof(tg_esc_data) - 1);
	tap_ok(!strncmp(want.p, "data:esc=a\\tb\\\\c\\x01\\x7f\\xff\\xc3\\xa9\\n"
			"\\r\\a\\b\\v\\f", want.len),
	       "the test's escaper matches the documented format");
	sb_free(&want);

	if (!setlocale(LC_ALL, "C.UTF-8")) {
		tap_skip(2, "no C.UTF-8 locale in this libc");
		return;
	}
	setlocale(LC_ALL, "C");
	sb_adds(&want, "data:esc=a\\tb\\\\c\\x01\\x7f\\xff\xc3\xa9\\n\\r\\a"
		      "\\b\\v\\f\n");
	sb_adds(&want, "data:\\xff=x\n");
	run_tool(&r, &(struct spawn){ .locale = "C.UTF-8" }, tg_dir, "data:esc",
		 "data:\xff", NULL);
	expect(&r, 0, &want, NULL,
	       "UTF-8 locale: printable UTF-8 as is, bad bytes escaped");
	run_free(&r);
	sb_free(&want);
}

static void test_lists(void)
{
	struct sb want = { 0 }, items = { 0 };
	char path[PATH_MAX];
	struct run r;

	snprintf(path, sizeof(path), "%s/sub", tg_dir);
	tg_list_dir(path, &items);
	tg_text_list(&want, "dir:sub", &items);
	sb_free(&items);
	tg_list_dir(tg_dir, &items);
	tg_text_list(&want, "data", &items);
	sb_free(&items);
	sb_items(&items, tg_spec_groups);
	tg_text_list(&want, "", &items);
	sb_free(&items);
	sb_items(&items, spec_stat_fields);
	tg_text_list(&want, "stat", &items);
	tg_text_list(&want, "lstat", &items);
	sb_free(&items);
	run_tool(&r, NULL, tg_dir, "dir:sub", "data", "", "stat", "lstat", NULL);
	tap_ok(strstr(want.p, "  new\\nline\n") != NULL,
	       "lists: the reference has the escaped item");
	expect(&r, 0, &want, "", "lists: one item per line under NAME=");
	run_free(&r);
	sb_free(&want);

	if (!tg_have_xattr) {
		tap_skip(3, "the file system of %s has no user xattrs", tg_dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/text", tg_dir);
	{
		char names[4096];
		ssize_t n = listxattr(path, names, sizeof(names));

		if (n < 0)
			tap_bail("listxattr: %s", strerror(errno));
		sb_add(&items, names, n);
	}
	tg_text_list(&want, "xattr", &items);
	sb_adds(&want, "xattr:user.bin=\\x00\\x01\\xfe\\xff\n");
	sb_adds(&want, "xattr:user.txt=v\n");
	run_tool(&r, NULL, path, "xattr", ":user.bin", ":user.txt", NULL);
	expect(&r, 0, &want, "", "xattr list and values");
	run_free(&r);
	sb_free(&want);
	sb_free(&items);
}

/* Octal escapes of mountinfo (\040) undone in place. */
static void unescape_mountinfo(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* Mount point and type of mount @id, from /proc/self/mountinfo. */
static bool mountinfo_of(unsigned int id, char *mp, char *type, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *sep;
	size_t cap = 0;
	bool found = false;

	if (!f)
		tap_bail("/proc/self/mountinfo: %s", strerror(errno));
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned int mid;
		char m[4096], t[256];

		if (sscanf(line, "%u %*u %*s %*s %4095s", &mid, m) != 2 ||
		    mid != id || !(sep = strstr(line, " - ")) ||
		    sscanf(sep + 3, "%255s", t) != 1)
			continue;
		unescape_mountinfo(m);
		unescape_mountinfo(t);
		snprintf(mp, size, "%s", m);
		snprintf(type, size, "%s", t);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* The mount groups: names expanded with their ID, lists by name shape. */
static void test_mounts(void)
{
	static const char *const mnt_fields[] = {
		"id", "parentid", "root", "mountpoint", "options", "shared",
		"master", "propagate_from", "unbindable", "dev", "fstype",
		"source", "superopts", NULL
	};
	struct sb want = { 0 }, items = { 0 };
	char id[16], ns[32], mp[4096], type[4096], item[32];
	struct statx stx;
	struct run r;

	if (statx(AT_FDCWD, tg_dir, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID)) {
		tap_skip(4, "kernel without STATX_MNT_ID");
		return;
	}
	if (!mountinfo_of((unsigned int)stx.stx_mnt_id, mp, type,
			  sizeof(mp))) {
		/* a chroot's mountinfo shows only the mounts within it */
		tap_skip(4, "the mount of %s is out of this root's reach (a "
			 "chroot?): mountinfo does not show it", tg_dir);
		return;
	}
	snprintf(id, sizeof(id), "%llu", (unsigned long long)stx.stx_mnt_id);
	snprintf(ns, sizeof(ns), "mntns:%s", id);

	sb_items(&items, mnt_fields);
	tg_text_list(&want, "mnt", &items);
	sb_printf(&want, "mnt:id=%s\nmnt:fstype=", id);
	sb_escaped(&want, type, strlen(type));
	sb_add(&want, "\n", 1);
	tg_text_list(&want, ns, &items);
	sb_printf(&want, "%s:mountpoint=", ns);
	sb_escaped(&want, mp, strlen(mp));
	sb_printf(&want, "\n%s:fstype=", ns);
	sb_escaped(&want, type, strlen(type));
	sb_printf(&want, "\n%s:mountpoint=", ns);
	sb_escaped(&want, mp, strlen(mp));
	sb_add(&want, "\n", 1);
	sb_free(&items);
	{
		char nsfield[48];

		snprintf(nsfield, sizeof(nsfield), "%s:fstype", ns);
		run_tool(&r, NULL, tg_dir, "mnt", "mnt:id", ":fstype", ns,
			 ":mountpoint", nsfield, ":mountpoint", NULL);
	}
	expect(&r, 0, &want, "", "mnt and mntns:ID: lists, values, and the "
	       "shorthand keeping the ID, against mountinfo");
	run_free(&r);
	sb_free(&want);

	/* a lone mntns in text is the mount table: see tool_mounts.c */
	run_tool(&r, NULL, "-0", tg_dir, "mntns", NULL);
	item[0] = 0;
	snprintf(item + 1, sizeof(item) - 1, "%s", id);
	tap_ok(r.status == 0 && r.out.len > 2 && r.out.p[0] >= '1' &&
	       r.out.p[0] <= '9' && !r.out.p[r.out.len - 1] &&
	       !r.out.p[r.out.len - 2] &&
	       (!strncmp(r.out.p, item + 1, strlen(id) + 1) ||
		memmem(r.out.p, r.out.len, item, strlen(id) + 2)),
	       "-0 mntns: the list of IDs, %s among them", id);
	run_free(&r);
}

int main(void)
{
	tg_start();

	test_acceptance();
	test_text();
	test_escaping();
	test_lists();
	test_mounts();

	return tap_done();
}
