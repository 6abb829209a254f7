// SPDX-License-Identifier: MIT
/*
 * tool_getvalues.c - the getvalues command as a user runs it: every output
 * format, escaping, shorthand names, exit status, JSON checked by a real
 * parser, buffer growth, and the origin options, against values this
 * program reads for itself (read(2), stat(2), readdir(3), listxattr(2)).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"
#include "tool_lib.h"

static const char *dir;		/* the scratch tree */
static const char *outdir;	/* files of the test itself */
static char pybuf[PATH_MAX];	/* where JSON goes for the parser */
static bool have_xattr;

#define BIG_SIZE	((1u << 20) + 17)	/* well past the first buffer */

static const char esc_data[] = "a\tb\\c\x01\x7f\xff\xc3\xa9\n\r\a\b\v\f";
static const char utf8_data[] =
	"gr\xc3\xbc\xc3\x9f" "e \"q\" \\ \x01 \xe2\x82\xac\n";
static const char xattr_bin[] = { 0x00, 0x01, (char)0xfe, (char)0xff };

/* ---- JSON, read by Python's json module ---- */

/*
 * Prints one line per entry: "V|L|BV|BL|E NAMEHEX VALUEHEX" (B: base64,
 * decoded here; L: the items rebuilt as a getvalues list) or, for errors,
 * "E NAMEHEX ERRNO MESSAGE". Fails on anything getvalues(1) does not
 * document, and on base64 for a value that is valid UTF-8.
 */
static const char json_reader[] =
	"import base64, json, sys\n"
	"raw = open(sys.argv[1], 'rb').read()\n"
	"doc = json.loads(raw.decode('utf-8'))\n"
	"assert type(doc) is dict and list(doc) == ['values'], doc.keys()\n"
	"def b64(s):\n"
	"    return base64.b64decode(s.encode('ascii'), validate=True)\n"
	"def text(s):\n"
	"    return s.encode('utf-8')\n"
	"for e in doc['values']:\n"
	"    ne = e.get('name_encoding')\n"
	"    assert ne in (None, 'base64'), ne\n"
	"    name = b64(e['name']) if ne else text(e['name'])\n"
	"    if ne:\n"
	"        try: name.decode('utf-8'); assert False, 'needless base64'\n"
	"        except UnicodeDecodeError: pass\n"
	"    if 'error' in e:\n"
	"        keys = {'name', 'name_encoding', 'error', 'message'}\n"
	"        assert set(e) <= keys, e\n"
	"        print('E', name.hex(), e['error'], e['message'])\n"
	"        continue\n"
	"    keys = {'name', 'name_encoding', 'encoding', 'value', 'fs_name'}\n"
	"    assert set(e) <= keys, e\n"
	"    if 'fs_name' in e: assert e['name'] == 'fs:type', e\n"
	"    enc = e.get('encoding')\n"
	"    assert enc in (None, 'base64'), enc\n"
	"    dec = b64 if enc else text\n"
	"    v = e['value']\n"
	"    if type(v) is list:\n"
	"        kind, val = 'L', b''.join(dec(i) + b'\\0' for i in v)\n"
	"    else:\n"
	"        assert type(v) is str, v\n"
	"        kind, val = 'V', dec(v)\n"
	"    if enc:\n"
	"        kind = 'B' + kind\n"
	"        try: val.decode('utf-8'); assert False, 'needless base64'\n"
	"        except UnicodeDecodeError: pass\n"
	"    print(kind, name.hex(), val.hex())\n";

/* Parse @json; @r gets what the reader printed. */
static void parse_json(struct run *r, const struct sb *json)
{
	const char *argv[] = { "python3", "-c", json_reader, pybuf, NULL };
	int fd = open(pybuf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, json->p, json->len) != (ssize_t)json->len ||
	    close(fd))
		tap_bail("write %s: %s", pybuf, strerror(errno));
	run_argv(r, NULL, "python3", (char *const *)argv);
}

static void jline(struct sb *b, const char *kind, const char *name,
		  const void *val, size_t len)
{
	sb_printf(b, "%s ", kind);
	sb_hex(b, name, strlen(name));
	sb_add(b, " ", 1);
	sb_hex(b, val, len);
	sb_add(b, "\n", 1);
}

static void jerror(struct sb *b, const char *name, int err)
{
	sb_add(b, "E ", 2);
	sb_hex(b, name, strlen(name));
	sb_printf(b, " %s %s\n", strerrorname_np(err), strerror(err));
}

/* ---- independent reference values ---- */

/*
 * " (NAME)": what getvalues(1) adds to fs:type in text, NAME as coreutils'
 * stat -f calls the file system of @path; "" where stat has no name for it.
 */
static void fs_name(const char *path, char *out, size_t size)
{
	const char *argv[] = { "stat", "-f", "-c", "%T", path, NULL };
	struct run r;

	run_argv(&r, NULL, "stat", (char *const *)argv);
	if (r.status || !r.out.len || r.out.p[r.out.len - 1] != '\n')
		tap_bail("stat -f %s failed", path);
	r.out.p[--r.out.len] = 0;
	if (!strncmp(r.out.p, "UNKNOWN", 7))
		snprintf(out, size, "%s", "");
	else
		snprintf(out, size, " (%s)", r.out.p);
	run_free(&r);
}

static void read_file(const char *name, struct sb *b)
{
	char path[PATH_MAX];
	static char buf[BIG_SIZE + 4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = t_orc_read(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		tap_bail("read %s: %s", path, strerror(errno));
	sb_add(b, buf, n);
}

static struct stat stat_of(const char *name, bool follow)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((follow ? stat : lstat)(path, &st))
		tap_bail("stat %s: %s", path, strerror(errno));
	return st;
}

/* The names in @path as readdir(3) gives them, each ended by NUL. */
static void list_dir(const char *path, struct sb *items)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		tap_bail("opendir %s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			sb_add(items, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
}

/* A list as the text format shows it: "NAME=" and "  ITEM" lines. */
static void text_list(struct sb *b, const char *name, const struct sb *items)
{
	sb_printf(b, "%s=\n", name);
	for (size_t i = 0; i < items->len;) {
		size_t n = strlen(items->p + i);

		sb_add(b, "  ", 2);
		sb_escaped(b, items->p + i, n);
		sb_add(b, "\n", 1);
		i += n + 1;
	}
}

static void sb_items(struct sb *b, const char *const *items)
{
	for (; *items; items++)
		sb_add(b, *items, strlen(*items) + 1);
}

static const char *const spec_groups[] = {
	"mnt", "mntns", "xattr", "data", "dir", "stat", "lstat", "fs", NULL
};
static const char *const spec_stat_fields[] = {
	"type", "mode", "nlink", "uid", "gid", "size", "blocks", "blksize",
	"ino", "dev", "rdev", "atime", "mtime", "ctime", "btime", "mntid", NULL
};

/* ---- the scratch tree ---- */

static void make_tree(void)
{
	static char big[BIG_SIZE];
	char path[PATH_MAX];
	int d;

	dir = t_tmpdir("tool");
	outdir = t_tmpdir("tool-out");
	snprintf(pybuf, sizeof(pybuf), "%s/values.json", outdir);
	d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_fill_pattern(big, sizeof(big), 7);
	if (d < 0 ||
	    t_write_file(d, "text", "hello world\n", 12, 0644) ||
	    t_write_file(d, "esc", esc_data, sizeof(esc_data) - 1, 0644) ||
	    t_write_file(d, "utf8", utf8_data, sizeof(utf8_data) - 1, 0644) ||
	    t_write_file(d, "big", big, sizeof(big), 0644) ||
	    (t_fill_pattern(big, sizeof(big), 8), 0) ||
	    t_write_file(d, "big2", big, sizeof(big), 0644) ||
	    t_write_file(d, "\xff", "x", 1, 0644) ||
	    t_write_file(d, "surrogate", "a\xed\xa0\x80", 4, 0644) ||
	    t_write_file(d, "overlong", "\xc0\xaf", 2, 0644) ||
	    t_write_file(d, "toohigh", "\xf4\x90\x80\x80", 4, 0644) ||
	    t_write_file(d, "highest", "\xf4\x8f\xbf\xbf", 4, 0644) ||
	    symlinkat("text", d, "link") ||
	    mkdirat(d, "sub", 0755) ||
	    t_write_file(d, "sub/one", "1", 1, 0644) ||
	    t_write_file(d, "sub/two", "2", 1, 0644) ||
	    t_write_file(d, "sub/new\nline", "3", 1, 0644) ||
	    mkdirat(d, "many", 0755))
		tap_bail("scratch tree: %s", strerror(errno));
	/* a listing far longer than the first buffer */
	for (int i = 0; i < 4000; i++) {
		char name[64];

		snprintf(name, sizeof(name),
			 "many/entry-with-a-longish-name-%05d", i);
		if (t_write_file(d, name, "", 0, 0644))
			tap_bail("write %s: %s", name, strerror(errno));
	}
	close(d);

	snprintf(path, sizeof(path), "%s/text", dir);
	have_xattr = !setxattr(path, "user.bin", xattr_bin, sizeof(xattr_bin),
			       0) &&
		     !setxattr(path, "user.txt", "v", 1, 0);
	if (!have_xattr && errno != ENOTSUP)
		tap_bail("setxattr %s: %s", path, strerror(errno));
}

/* ---- the checks ---- */

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
		fs_name("/proc/self", fsn, sizeof(fsn));
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
	parse_json(&j, &r.out);
	tap_is_long(j.status, 0, "acceptance --json: python3 json parses it");
	snprintf(want, sizeof(want), "%lld", (long long)st.st_size);
	jline(&jwant, "V", "stat:size", want, strlen(want));
	snprintf(want, sizeof(want), "0x%lx", (unsigned long)sfs.f_type);
	jline(&jwant, "V", "fs:type", want, strlen(want));
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
	struct stat st = stat_of("text", true);
	struct sb want = { 0 };
	struct statfs sfs;
	struct run r;
	char fsn[64];

	fs_name(dir, fsn, sizeof(fsn));
	if (statfs(dir, &sfs))
		tap_bail("statfs %s: %s", dir, strerror(errno));
	run_tool(&r, NULL, dir, "data:text", ":link", "stat:size:text",
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
		  stat_of("sub", true).st_mode & 07777);
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
	run_tool(&r, NULL, dir, "data:esc", "data:\xff", NULL);
	expect(&r, 0, &want, "", "C locale: every non-ASCII byte escaped");
	run_free(&r);

	/* the reference escaper must agree with the literal above */
	sb_free(&want);
	sb_adds(&want, "data:esc=");
	sb_escaped(&want, esc_data, sizeof(esc_data) - 1);
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
	run_tool(&r, &(struct spawn){ .locale = "C.UTF-8" }, dir, "data:esc",
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

	snprintf(path, sizeof(path), "%s/sub", dir);
	list_dir(path, &items);
	text_list(&want, "dir:sub", &items);
	sb_free(&items);
	list_dir(dir, &items);
	text_list(&want, "data", &items);
	sb_free(&items);
	sb_items(&items, spec_groups);
	text_list(&want, "", &items);
	sb_free(&items);
	sb_items(&items, spec_stat_fields);
	text_list(&want, "stat", &items);
	text_list(&want, "lstat", &items);
	sb_free(&items);
	run_tool(&r, NULL, dir, "dir:sub", "data", "", "stat", "lstat", NULL);
	tap_ok(strstr(want.p, "  new\\nline\n") != NULL,
	       "lists: the reference has the escaped item");
	expect(&r, 0, &want, "", "lists: one item per line under NAME=");
	run_free(&r);
	sb_free(&want);

	if (!have_xattr) {
		tap_skip(3, "the file system of %s has no user xattrs", dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/text", dir);
	{
		char names[4096];
		ssize_t n = listxattr(path, names, sizeof(names));

		if (n < 0)
			tap_bail("listxattr: %s", strerror(errno));
		sb_add(&items, names, n);
	}
	text_list(&want, "xattr", &items);
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

	if (statx(AT_FDCWD, dir, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID)) {
		tap_skip(4, "kernel without STATX_MNT_ID");
		return;
	}
	if (!mountinfo_of((unsigned int)stx.stx_mnt_id, mp, type, sizeof(mp)))
		tap_bail("mount %llu of %s not in mountinfo",
			 (unsigned long long)stx.stx_mnt_id, dir);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)stx.stx_mnt_id);
	snprintf(ns, sizeof(ns), "mntns:%s", id);

	sb_items(&items, mnt_fields);
	text_list(&want, "mnt", &items);
	sb_printf(&want, "mnt:id=%s\nmnt:fstype=", id);
	sb_escaped(&want, type, strlen(type));
	sb_add(&want, "\n", 1);
	text_list(&want, ns, &items);
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
		run_tool(&r, NULL, dir, "mnt", "mnt:id", ":fstype", ns,
			 ":mountpoint", nsfield, ":mountpoint", NULL);
	}
	expect(&r, 0, &want, "", "mnt and mntns:ID: lists, values, and the "
	       "shorthand keeping the ID, against mountinfo");
	run_free(&r);
	sb_free(&want);

	/* a lone mntns in text is the mount table: see tool_mounts.c */
	run_tool(&r, NULL, "-0", dir, "mntns", NULL);
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

static void test_exit_status(void)
{
	char longname[300];
	struct sb want = { 0 };
	struct run r;

	run_tool(&r, NULL, dir, "data:text", "data:missing", "stat:type:sub",
		 NULL);
	sb_adds(&want, "data:text=hello world\\n\nstat:type:sub=dir\n");
	expect(&r, 64, &want, "getvalues: data:missing: No such file or "
	       "directory\n", "one entry fails: the others print, exit 64");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, dir, "", ":x", "data:text", ":nope", NULL);
	expect(&r, 64, NULL, "getvalues: :x: a shorthand :REST needs a "
	       "previous name with a group (as in stat:mode :size)\n"
	       "getvalues: data:nope: No such file or directory\n",
	       "shorthand after \"\" is EINVAL; errors show expanded names");
	run_free(&r);

	/* mount IDs never exceed INT_MAX; 2^32 is not even an ID */
	run_tool(&r, NULL, dir, "mntns:4294967296:root", ":options",
		 "mntns:4294967295", ":dev", NULL);
	expect(&r, 32, &empty,
	       "getvalues: mntns:4294967296:root: no mount with ID "
	       "4294967296 here\n"
	       "getvalues: mntns:4294967296:options: no mount with ID "
	       "4294967296 here\n"
	       "getvalues: mntns:4294967295: no mount with ID 4294967295 "
	       "here\n"
	       "getvalues: mntns:4294967295:dev: no mount with ID "
	       "4294967295 here\n",
	       "mntns:ID: keeps the ID for the shorthand; none fetched: "
	       "exit 32");
	run_free(&r);

	memset(longname, 'x', sizeof(longname) - 1);
	memcpy(longname, "data:", 5);
	longname[sizeof(longname) - 1] = 0;
	run_tool(&r, NULL, dir, longname, ":text", NULL);
	sb_printf(&want, "getvalues: %s: name longer than 255 bytes\n"
		  "getvalues: :text: a shorthand :REST needs a previous name "
		  "with a group (as in stat:mode :size)\n", longname);
	expect(&r, 32, NULL, want.p,
	       "a name over 255 bytes: ENAMETOOLONG, and no prefix after it");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "/nonexistent", "stat:size", NULL);
	expect(&r, 1, &empty,
	       "getvalues: /nonexistent: No such file or directory\n",
	       "a PATH that does not resolve: exit 1, says why");
	run_free(&r);

	static const char *const usage[][5] = {
		{ NULL },
		{ "/", NULL },
		{ "--frobnicate", "/", "stat:size", NULL },
		{ "--json", "-0", "/", "stat:size", NULL },
		{ "--fd", "abc", "/", "stat:size", NULL },
		{ "--fd=-1", "/", "stat:size", NULL },
		{ "--max-size=0", "/", "stat:size", NULL },
		{ "--max-size=12Q", "/", "stat:size", NULL },
		{ "--backend=bogus", "/", "stat:size", NULL },
		{ "-E", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(usage); i++) {
		const char *const *a = usage[i];

		run_tool_v(&r, NULL, a);
		tap_ok(r.status == 1 && r.out.len == 0 &&
		       strstr(r.err.p, "getvalues: ") == r.err.p &&
		       strstr(r.err.p, "--help"),
		       "usage error %zu (%s %s): exit 1, a message, a hint",
		       i, a[0] ? a[0] : "", a[0] && a[1] ? a[1] : "");
		if (i == 8)
			tap_ok(strstr(r.err.p, "bogus") != NULL,
			       "--backend=bogus names the bad backend");
		run_free(&r);
	}
}

/* Each kind of failed name said in words that fit it, in text and JSON. */
static void test_messages(void)
{
	static const char groups[] = "mnt, mntns, xattr, data, dir, stat, "
				     "lstat, fs";
	static const char badsub[] = "bad SUBPATH: it may not start or end "
				     "with '/', hold '//', or have a '.' or "
				     "'..' component";
	const struct {
		const char *name;
		const char *msg;
		bool xattr;
	} cases[] = {
		{ .name = "stat:sise",
		  .msg = "no such field 'sise' in group stat (getvalues "
			 "PATH stat lists them)" },
		{ .name = "lstat:sise:text",
		  .msg = "no such field 'sise' in group lstat "
			 "(getvalues PATH lstat lists them)" },
		{ .name = "fs:magic",
		  .msg = "no such field 'magic' in group fs (getvalues "
			 "PATH fs lists them)" },
		{ .name = "mnt:target",
		  .msg = "no such field 'target' in group mnt "
			 "(getvalues PATH mnt lists them)" },
		{ .name = "proc:stat" },
		{ .name = "stat:size:nope",
		  .msg = "No such file or directory" },
		{ .name = "data:fifo",
		  .msg = "not a regular file or symbolic link (data: "
			 "reads only those, never a device, FIFO or "
			 "socket)" },
		{ .name = "data:../text",
		  .msg = badsub },
		{ .name = "data:sub/",
		  .msg = badsub },
		{ .name = "dir:sub//one",
		  .msg = badsub },
		{ .name = "xattr:",
		  .msg = "xattr: needs the name of an attribute" },
		{ .name = "xattr:user.none",
		  .msg = "no such extended attribute",
		  .xattr = true },
	};
	char fifo[PATH_MAX], msg[512];
	struct sb want = { 0 };
	struct run r;

	/* a FIFO beside the test's own files: data: must not open it */
	snprintf(fifo, sizeof(fifo), "%s/fifo", outdir);
	if (mkfifo(fifo, 0644) && errno != EEXIST)
		tap_bail("mkfifo %s: %s", fifo, strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *origin = strcmp(cases[i].name, "data:fifo") ?
				     dir : outdir;

		if (cases[i].xattr && !have_xattr) {
			tap_skip(1, "no user xattrs on %s", dir);
			continue;
		}
		if (cases[i].msg)
			snprintf(msg, sizeof(msg), "getvalues: %s: %s\n",
				 cases[i].name, cases[i].msg);
		else
			snprintf(msg, sizeof(msg), "getvalues: %s: no such "
				 "group 'proc' (the groups: %s)\n",
				 cases[i].name, groups);
		run_tool(&r, NULL, origin, cases[i].name, NULL);
		tap_ok(r.status == 32 && r.out.len == 0 &&
		       !strcmp(r.err.p, msg), "message for %s: \"%.*s\"",
		       cases[i].name, (int)strlen(msg) - 1, msg);
		if (r.status != 32 || strcmp(r.err.p, msg))
			tap_diag("exit %d, stderr: %s", r.status, r.err.p);
		run_free(&r);
	}

	/* the same words in JSON's message */
	run_tool(&r, NULL, "--json", dir, "stat:sise", NULL);
	sb_adds(&want, "{\n  \"values\": [\n    {\"name\": \"stat:sise\", "
		"\"error\": \"ENOENT\", \"message\": \"no such field 'sise' "
		"in group stat (getvalues PATH stat lists them)\"}\n  ]\n}\n");
	expect(&r, 32, &want, "getvalues: stat:sise: no such field 'sise' in "
	       "group stat (getvalues PATH stat lists them)\n",
	       "--json: the message in words, the errno by name");
	run_free(&r);
	sb_free(&want);
}

static void test_json(void)
{
	struct sb jwant = { 0 }, b = { 0 }, items = { 0 };
	char path[PATH_MAX];
	struct run r, j;

	run_tool(&r, NULL, "--json", dir, "data:text", "data:utf8",
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
	parse_json(&j, &r.out);
	tap_is_long(j.status, 0, "--json: python3 json parses it");
	if (j.status)
		tap_diag("%s", j.err.p);

	read_file("text", &b);
	jline(&jwant, "V", "data:text", b.p, b.len);
	sb_free(&b);
	read_file("utf8", &b);
	jline(&jwant, "V", "data:utf8", b.p, b.len);
	sb_free(&b);
	read_file("esc", &b);
	jline(&jwant, "BV", "data:esc", b.p, b.len);
	sb_free(&b);
	read_file("big", &b);
	jline(&jwant, "BV", "data:big", b.p, b.len);
	sb_free(&b);
	snprintf(path, sizeof(path), "%s/sub", dir);
	list_dir(path, &items);
	jline(&jwant, "L", "dir:sub", items.p, items.len);
	sb_free(&items);
	jerror(&jwant, "data:missing", ENOENT);
	sb_items(&items, spec_groups);
	jline(&jwant, "L", "", items.p, items.len);
	sb_free(&items);
	jline(&jwant, "V", "data:\xff", "x", 1);
	sb_printf(&b, "%llu",
		  (unsigned long long)stat_of("sub", true).st_nlink);
	jline(&jwant, "V", "stat:nlink:sub", b.p, b.len);
	sb_free(&b);
	/* what RFC 3629 forbids is not UTF-8 */
	jline(&jwant, "BV", "data:surrogate", "a\xed\xa0\x80", 4);
	jline(&jwant, "BV", "data:overlong", "\xc0\xaf", 2);
	jline(&jwant, "BV", "data:toohigh", "\xf4\x90\x80\x80", 4);
	jline(&jwant, "V", "data:highest", "\xf4\x8f\xbf\xbf", 4);
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

	if (!have_xattr) {
		tap_skip(2, "the file system of %s has no user xattrs", dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/text", dir);
	run_tool(&r, NULL, "-J", path, "xattr:user.bin", ":user.txt", NULL);
	tap_is_long(r.status, 0, "--json xattr: exit 0");
	if (!tool_have_json) {
		tap_skip(1, TOOL_NO_JSON);
		run_free(&r);
		return;
	}
	parse_json(&j, &r.out);
	jline(&jwant, "BV", "xattr:user.bin", xattr_bin, sizeof(xattr_bin));
	jline(&jwant, "V", "xattr:user.txt", "v", 1);
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

	read_file("text", &want);
	sb_add(&want, "", 1);
	snprintf(path, sizeof(path), "%s/sub", dir);
	list_dir(path, &want);
	sb_add(&want, "", 1);		/* the end of the list */
	sb_add(&want, "", 1);		/* data:missing, empty */
	sb_printf(&b, "%lld", (long long)stat_of("text", true).st_size);
	sb_add(&want, b.p, b.len + 1);
	read_file("esc", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "-0", dir, "data:text", "dir:sub", "data:missing",
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

	read_file("big", &want);
	sb_add(&want, "", 1);
	sb_printf(&want, "%u", BIG_SIZE);
	sb_add(&want, "", 1);
	read_file("text", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "--raw", dir, "data:big", "stat:size:big",
		 "data:text", NULL);
	expect(&r, 0, &want, "", "a 1 MiB value: the buffer grows");
	run_free(&r);
	sb_free(&want);

	snprintf(path, sizeof(path), "%s/many", dir);
	list_dir(path, &items);
	tap_ok(items.len > 65536, "the big listing is %zu bytes", items.len);
	text_list(&want, "dir:many", &items);
	run_tool(&r, NULL, dir, "dir:many", NULL);
	expect(&r, 0, &want, "", "a listing larger than the first buffer");
	run_free(&r);
	sb_free(&want);
	sb_free(&items);

	/* at the limit the value fails, the others still come */
	run_tool(&r, NULL, "--max-size=64K", dir, "data:text", "data:big",
		 ":text", NULL);
	sb_adds(&want, "data:text=hello world\\n\ndata:text=hello world\\n\n");
	expect(&r, 64, &want, "getvalues: data:big: value does not fit in "
	       "65536 bytes (see --max-size)\n",
	       "--max-size: a value over the limit fails alone; the "
	       "shorthand after it still works");
	run_free(&r);
	sb_free(&want);

	/* two values that fit the limit alone, not together */
	read_file("big", &want);
	sb_add(&want, "", 1);
	read_file("big2", &want);
	sb_add(&want, "", 1);
	run_tool(&r, NULL, "-0", "--max-size=1200K", dir, "data:big",
		 ":big2", NULL);
	expect(&r, 0, &want, "",
	       "--max-size: values that only fit one at a time all come");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "-J", "--max-size=1K", dir, "data:big", NULL);
	if (!tool_have_json) {
		tap_skip(1, TOOL_NO_JSON);
	} else {
		struct run j;
		struct sb jwant = { 0 };

		parse_json(&j, &r.out);
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

	snprintf(trace, sizeof(trace), "%s/strace.log", outdir);
	return tool_count_calls(dir, trace, args);
}

static void test_call_count(void)
{
	const char *const few[] = { dir, "data:text", ":esc", "stat:size",
		":ino:text", "fs:type", "dir:sub", "", "xattr", "data:missing",
		NULL };
	const char *const big[] = { dir, "data:big", "stat:size", NULL };
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

/* -L, -E and --fd: which object is $ORIGIN. */
static void test_origin(void)
{
	struct sb want = { 0 }, items = { 0 };
	char path[PATH_MAX], sub[PATH_MAX];
	struct stat st = stat_of("text", true);
	struct run r;
	int fd;

	snprintf(path, sizeof(path), "%s/link", dir);
	run_tool(&r, NULL, path, "data:", "stat:type", NULL);
	sb_adds(&want, "data:=hello world\\n\nstat:type=reg\n");
	expect(&r, 0, &want, "", "a symlink PATH is followed");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "-L", path, "data:", "stat:type", NULL);
	sb_adds(&want, "data:=text\nstat:type=lnk\n");
	expect(&r, 0, &want, "", "-L: the link itself");
	run_free(&r);
	sb_free(&want);

	snprintf(path, sizeof(path), "%s/text", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 }, "-E",
		 "--fd", "7", "data:", "stat:ino", NULL);
	sb_printf(&want, "data:=hello world\\n\nstat:ino=%llu\n",
		  (unsigned long long)st.st_ino);
	expect(&r, 0, &want, "", "-E --fd 7: the open file itself");
	run_free(&r);
	sb_free(&want);
	close(fd);

	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s: %s", dir, strerror(errno));
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 },
		 "--fd=7", "text", "data:", NULL);
	sb_adds(&want, "data:=hello world\\n\n");
	expect(&r, 0, &want, "", "--fd 7 PATH: PATH relative to fd 7");
	run_free(&r);
	sb_free(&want);

	/* with -E every operand is a NAME, "" too */
	sb_items(&items, spec_groups);
	text_list(&want, "", &items);
	sb_free(&items);
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 }, "-E",
		 "--fd", "7", "", "dir:sub", NULL);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	list_dir(sub, &items);
	text_list(&want, "dir:sub", &items);
	sb_free(&items);
	expect(&r, 0, &want, "", "-E: no PATH operand; \"\" is a name");
	run_free(&r);
	sb_free(&want);
	close(fd);

	list_dir(sub, &items);
	text_list(&want, "dir:", &items);
	sb_free(&items);
	run_tool(&r, &(struct spawn){ .cwd = sub }, "-E", "dir:", NULL);
	expect(&r, 0, &want, "", "-E without --fd: the working directory");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, &(struct spawn){ .close_fd = 7 }, "-E", "--fd", "7",
		 "stat:ino", NULL);
	expect(&r, 1, &empty, "getvalues: fd 7: Bad file descriptor\n",
	       "-E --fd on a closed descriptor: exit 1");
	run_free(&r);
}

static void test_backend(void)
{
	static const char *const bogus_env[] = { "GETVALUES_BACKEND=bogus",
						 NULL };
	struct run base, r;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/text", dir);
	run_tool(&base, NULL, path, "data:", "stat:ino", "fs:type", NULL);
	tap_is_long(base.status, 0, "backend: default run succeeds");

	run_tool(&r, NULL, "--backend=sync", path, "data:", "stat:ino",
		 "fs:type", NULL);
	expect(&r, 0, &base.out, "", "--backend=sync: the same output");
	run_free(&r);

	run_tool(&r, &(struct spawn){ .env = bogus_env }, "--backend", "sync",
		 path, "data:", "stat:ino", "fs:type", NULL);
	expect(&r, 0, &base.out, "",
	       "--backend overrides GETVALUES_BACKEND from the environment");
	run_free(&r);

	run_tool(&r, &(struct spawn){ .env = bogus_env }, path, "data:", NULL);
	expect(&r, 1, &empty,
	       "getvalues: GETVALUES_BACKEND=bogus: unknown backend (auto, "
	       "sync, uring, native)\n",
	       "GETVALUES_BACKEND=bogus: exit 1, names the backend and the "
	       "choices");
	run_free(&r);

	run_tool(&r, NULL, "--backend=native", path, "data:", "stat:ino",
		 "fs:type", NULL);
	if (r.status == 0)
		expect(&r, 0, &base.out, "",
		       "--backend=native (available): the same output");
	else
		expect(&r, 1, &empty,
		       "getvalues: backend native: this kernel has no "
		       "readfile(2) and getvalues(2) system calls (see "
		       "getvalues(7))\n",
		       "--backend=native (not available here): exit 1, says "
		       "so");
	run_free(&r);
	run_free(&base);
}

static void test_help_version(void)
{
	struct sb want = { 0 };
	struct run r;

	run_tool(&r, NULL, "--help", NULL);
	tap_ok(r.status == 0 && !strncmp(r.out.p, "Usage: getvalues ", 17) &&
	       r.err.len == 0, "--help: usage on stdout, exit 0");
	run_free(&r);

	sb_printf(&want, "getvalues (libgetvalues) %d.%d.%d\n",
		  GETVALUES_VERSION_MAJOR, GETVALUES_VERSION_MINOR,
		  GETVALUES_VERSION_PATCH);
	run_tool(&r, NULL, "-V", NULL);
	expect(&r, 0, &want, "", "-V: the version of getvalues.h");
	run_free(&r);
	sb_free(&want);
}

int main(void)
{
	tool_init("getvalues");
	make_tree();

	test_acceptance();
	test_text();
	test_escaping();
	test_lists();
	test_mounts();
	test_exit_status();
	test_messages();
	test_json();
	test_raw();
	test_growth();
	test_call_count();
	test_origin();
	test_backend();
	test_help_version();

	return tap_done();
}
