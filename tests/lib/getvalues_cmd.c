// SPDX-License-Identifier: MIT
/*
 * getvalues_cmd.c - the scratch tree, reference values and JSON reader
 * that the tests of the getvalues command share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/getvalues_cmd.h"
#include "lib/tap.h"
#include "lib/util.h"

const char *tg_dir;
const char *tg_outdir;
bool tg_have_xattr;
static char pybuf[PATH_MAX];	/* where JSON goes for the parser */

const char tg_esc_data[17] = "a\tb\\c\x01\x7f\xff\xc3\xa9\n\r\a\b\v\f";
static const char utf8_data[] =
	"gr\xc3\xbc\xc3\x9f" "e \"q\" \\ \x01 \xe2\x82\xac\n";
const char tg_xattr_bin[4] = { 0x00, 0x01, (char)0xfe, (char)0xff };

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

void tg_parse_json(struct run *r, const struct sb *json)
{
	const char *argv[] = { "python3", "-c", json_reader, pybuf, NULL };
	int fd = open(pybuf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, json->p, json->len) != (ssize_t)json->len ||
	    close(fd))
		tap_bail("write %s: %s", pybuf, strerror(errno));
	run_argv(r, NULL, "python3", (char *const *)argv);
}

void tg_jline(struct sb *b, const char *kind, const char *name,
	      const void *val, size_t len)
{
	sb_printf(b, "%s ", kind);
	sb_hex(b, name, strlen(name));
	sb_add(b, " ", 1);
	sb_hex(b, val, len);
	sb_add(b, "\n", 1);
}

void tg_jerror(struct sb *b, const char *name, int err)
{
	sb_add(b, "E ", 2);
	sb_hex(b, name, strlen(name));
	sb_printf(b, " %s %s\n", strerrorname_np(err), strerror(err));
}

/* ---- independent reference values ---- */

void tg_fs_name(const char *path, char *out, size_t size)
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

void tg_read_file(const char *name, struct sb *b)
{
	char path[PATH_MAX];
	static char buf[TG_BIG_SIZE + 4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", tg_dir, name);
	n = t_orc_read(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		tap_bail("read %s: %s", path, strerror(errno));
	sb_add(b, buf, n);
}

struct stat tg_stat_of(const char *name, bool follow)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tg_dir, name);
	if ((follow ? stat : lstat)(path, &st))
		tap_bail("stat %s: %s", path, strerror(errno));
	return st;
}

void tg_list_dir(const char *path, struct sb *items)
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

void tg_text_list(struct sb *b, const char *name,
		  const struct sb *items)
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

const char *const tg_spec_groups[] = {
	"mnt", "mntns", "xattr", "data", "dir", "stat", "lstat", "fs", NULL
};

/* ---- the scratch tree ---- */

/* The scratch tree, the test's own directory, and xattrs if it has them. */
static void make_tree(void)
{
	static char big[TG_BIG_SIZE];
	char path[PATH_MAX];
	int d;

	tg_dir = t_tmpdir("tool");
	tg_outdir = t_tmpdir("tool-out");
	snprintf(pybuf, sizeof(pybuf), "%s/values.json", tg_outdir);
	d = open(tg_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_fill_pattern(big, sizeof(big), 7);
	if (d < 0 ||
	    t_write_file(d, "text", "hello world\n", 12, 0644) ||
	    t_write_file(d, "esc", tg_esc_data, sizeof(tg_esc_data) - 1,
			 0644) ||
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

	snprintf(path, sizeof(path), "%s/text", tg_dir);
	tg_have_xattr = !setxattr(path, "user.bin", tg_xattr_bin,
				  sizeof(tg_xattr_bin), 0) &&
			!setxattr(path, "user.txt", "v", 1, 0);
	if (!tg_have_xattr && errno != ENOTSUP)
		tap_bail("setxattr %s: %s", path, strerror(errno));
}

void tg_start(void)
{
	tool_init("getvalues");
	make_tree();
}
