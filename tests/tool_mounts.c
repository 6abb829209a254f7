// SPDX-License-Identifier: MIT
/*
 * tool_mounts.c - the mount table of getvalues(1) (--mounts, and a lone mnt
 * or mntns), over a mount tree built for the purpose in a private mount
 * namespace: every row and field against /proc/self/mountinfo, read and
 * unescaped here, in text, raw and JSON (read by python3); the JSON against
 * findmnt -J -l; the same output through both mount sources; and the
 * number of getvalues() calls a table costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#include "lib/mountinfo.h"
#include "lib/mounts.h"
#include "lib/run.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LONG_MOUNTS	100	/* mount points of ~2 KiB each */

/* Of mnt_lib.h's fields (the columns of -o ALL_FIELDS), the numbers. */
static const bool numeric[MF_NUM] = {
	[MF_ID] = true, [MF_PARENTID] = true, [MF_SHARED] = true,
	[MF_MASTER] = true, [MF_PROPFROM] = true,
};
#define ALL_FIELDS "id,parentid,root,mountpoint,vfs-options,shared," \
		   "master,propagate_from,unbindable,dev,fstype,source," \
		   "superopts"

/*
 * The default columns: target, source, fstype, options; options (as in
 * findmnt) the mount's options and the super-block's, merged.
 */
static const int default_cols[] = { MF_MOUNTPOINT, MF_SOURCE, MF_FSTYPE,
				    MF_OPTIONS };
static const char *const default_heads[] = { "TARGET", "SOURCE", "FSTYPE",
					     "OPTIONS" };

static const char *top;
static const char *outdir;
static bool have_statmount;

/* ---- /proc/self/mountinfo, read by mnt_lib.h ---- */

/* The row of the mount @path is on, by its statx(2) mount ID. */
static const struct mi_mount *mi_of_path(const struct mi_table *t,
					  const char *path)
{
	struct statx stx;
	const struct mi_mount *row;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		tap_bail("statx %s: %s", path, strerror(errno));
	row = mi_find(t, (unsigned long)stx.stx_mnt_id);
	if (!row)
		tap_bail("mount %llu of %s not in mountinfo",
			 (unsigned long long)stx.stx_mnt_id, path);
	return row;
}

/* ---- the tables getvalues(1) documents, built from mountinfo ---- */

/* Take the first option named @name (with or without "=value") out. */
static int take_option(char **opts, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (opts[i] && !strncmp(opts[i], name, strlen(name)) &&
		    (!opts[i][strlen(name)] || opts[i][strlen(name)] == '=')) {
			opts[i] = NULL;
			return 1;
		}
	return 0;
}

/*
 * findmnt's OPTIONS for @m, as libmount merges mountinfo's two lists
 * (check_findmnt() compares the tool with findmnt itself): both lists,
 * their two "rw"s and then as many "ro"s as make two taken out, and "ro"
 * first if one was, else "rw". One list if the other is empty or the same.
 */
static char *merged_options(const struct mi_mount *m)
{
	const char *v = m->val[MF_OPTIONS], *f = m->val[MF_SUPEROPTS];
	char *all, *opts[64], *out;
	int n = 0, rw, ro = 0;

	if (!*v || !*f || !strcmp(v, f))
		return strdup(*v ? v : f);
	if (asprintf(&all, "%s,%s", v, f) < 0 ||
	    !(out = calloc(1, strlen(all) + 4)))
		tap_bail("out of memory");
	for (char *o = strtok(all, ","); o && n < 64; o = strtok(NULL, ","))
		opts[n++] = o;
	rw = take_option(opts, n, "rw") + take_option(opts, n, "rw");
	if (rw != 2) {
		ro = take_option(opts, n, "ro");
		if (ro + rw < 2)
			ro += take_option(opts, n, "ro");
	}
	strcpy(out, ro ? "ro" : "rw");
	for (int i = 0; i < n; i++)
		if (opts[i])
			sprintf(out + strlen(out), ",%s", opts[i]);
	free(all);
	return out;
}

/* Copies of @rows whose options are findmnt's OPTIONS. */
static const struct mi_mount **merged_rows(const struct mi_mount *const *rows,
					   size_t n, struct mi_mount **copies)
{
	const struct mi_mount **out = calloc(n + 1, sizeof(*out));

	*copies = calloc(n + 1, sizeof(**copies));
	if (!out || !*copies)
		tap_bail("out of memory");
	for (size_t i = 0; i < n; i++) {
		(*copies)[i] = *rows[i];
		(*copies)[i].val[MF_OPTIONS] = merged_options(rows[i]);
		(*copies)[i].len[MF_OPTIONS] =
			strlen((*copies)[i].val[MF_OPTIONS]);
		out[i] = &(*copies)[i];
	}
	return out;
}

static void merged_rows_free(const struct mi_mount **rows,
			     struct mi_mount *copies, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(copies[i].val[MF_OPTIONS]);
	free(copies);
	free(rows);
}

/*
 * The text table of @rows for columns @cols headed @heads, in the C
 * locale: cells escaped as text output escapes, padded to the widest,
 * numbers to the right, the last column unpadded.
 */
static void want_text(struct sb *b, const struct mi_mount *const *rows,
		      size_t nrows, const int *cols, const char *const *heads,
		      size_t ncols, bool header)
{
	struct sb *cell = calloc((nrows + 1) * ncols, sizeof(*cell));
	size_t width[MF_NUM] = { 0 };

	if (!cell)
		tap_bail("out of memory");
	for (size_t c = 0; c < ncols; c++) {
		if (header)
			sb_adds(&cell[c], heads[c]);
		else
			sb_add(&cell[c], "", 0);
		for (size_t r = 0; r < nrows; r++) {
			const struct mi_mount *m = rows[r];

			sb_add(&cell[(r + 1) * ncols + c], "", 0);
			sb_escaped(&cell[(r + 1) * ncols + c], m->val[cols[c]],
				   m->len[cols[c]]);
		}
		for (size_t r = !header; r <= nrows; r++)
			if (cell[r * ncols + c].len > width[c])
				width[c] = cell[r * ncols + c].len;
	}
	for (size_t r = !header; r <= nrows; r++)
		for (size_t c = 0; c < ncols; c++) {
			const struct sb *v = &cell[r * ncols + c];
			int pad = (int)(width[c] - v->len);
			bool last = c + 1 == ncols;

			if (numeric[cols[c]])
				sb_printf(b, "%*s", pad, "");
			sb_add(b, v->p, v->len);
			if (!numeric[cols[c]] && !last)
				sb_printf(b, "%*s", pad, "");
			sb_add(b, last ? "\n" : " ", 1);
		}
	for (size_t i = 0; i < (nrows + 1) * ncols; i++)
		sb_free(&cell[i]);
	free(cell);
}

/* Every field of @rows, each followed by a NUL: --raw -o ALL_FIELDS. */
static void want_raw(struct sb *b, const struct mi_mount *const *rows,
		     size_t nrows)
{
	sb_add(b, "", 0);
	for (size_t r = 0; r < nrows; r++)
		for (int f = 0; f < MF_NUM; f++)
			sb_add(b, rows[r]->val[f], rows[r]->len[f] + 1);
}

/* Pointers to every row of @t, in mountinfo's order. */
static const struct mi_mount **all_rows(const struct mi_table *t)
{
	const struct mi_mount **rows = calloc(t->n + 1, sizeof(*rows));

	if (!rows)
		tap_bail("out of memory");
	for (size_t i = 0; i < t->n; i++)
		rows[i] = &t->m[i];
	return rows;
}

/* Where raw output first differs from mountinfo, as a diagnostic. */
static void diag_raw(const struct sb *got, const struct mi_table *t)
{
	size_t pos = 0, cell = 0;

	while (pos < got->len && cell / MF_NUM < t->n) {
		const struct mi_mount *m = &t->m[cell / MF_NUM];
		size_t len = strnlen(got->p + pos, got->len - pos);

		if (len != m->len[cell % MF_NUM] ||
		    memcmp(got->p + pos, m->val[cell % MF_NUM], len)) {
			tap_diag("mount %zu (id %lu), %s: got '%.*s', want "
				 "'%s'", cell / MF_NUM, m->id,
				 mf_names[cell % MF_NUM], (int)len, got->p + pos,
				 m->val[cell % MF_NUM]);
			return;
		}
		pos += len + 1;
		cell++;
	}
	tap_diag("got %zu values, want %zu", cell, t->n * MF_NUM);
}

/* ---- JSON, read by python3 ---- */

/*
 * argv: MODE TOOL.json [FINDMNT.json | COLUMNS]. Checks the tool's
 * {"filesystems": [...]} for what getvalues(1) documents (keys in -o
 * order, ints for numbers, null for empty, base64 exactly for non-UTF-8),
 * then compares it with /proc/self/mountinfo, read and unescaped anew
 * (mode "mountinfo"), or with findmnt's document (mode "findmnt"), which
 * holds bytes that are not UTF-8 as they are (so it is not quite JSON; we
 * give them in base64). Prints the differences; exits 1 if any.
 */
static const char json_check[] =
	"import base64, json, re, sys\n"
	"NUM = {'id', 'parentid', 'shared', 'master', 'propagate_from',\n"
	"       'parent'}\n"
	"def unesc(b):\n"
	"    return re.sub(rb'\\\\([0-3][0-7][0-7])',\n"
	"                  lambda m: bytes([int(m.group(1), 8)]), b)\n"
	"def mountinfo():\n"
	"    rows = []\n"
	"    for line in open('/proc/self/mountinfo', 'rb').read().split(b'\\n'):\n"
	"        if not line:\n"
	"            continue\n"
	"        f = line.split(b' ')\n"
	"        d = f.index(b'-', 6)\n"
	"        r = dict(id=f[0], parentid=f[1], dev=f[2], root=f[3],\n"
	"                 mountpoint=f[4], options=f[5], shared=b'', master=b'',\n"
	"                 propagate_from=b'', unbindable=b'', fstype=f[d + 1],\n"
	"                 source=f[d + 2], superopts=f[d + 3])\n"
	"        r['vfs-options'] = f[5]\n"
	"        for o in f[6:d]:\n"
	"            if o == b'unbindable':\n"
	"                r['unbindable'] = b'yes'\n"
	"            else:\n"
	"                k, v = o.split(b':', 1)\n"
	"                r[k.decode()] = v\n"
	"        rows.append({k: unesc(v) for k, v in r.items()})\n"
	"    return rows\n"
	"def tool(path, cols):\n"
	"    doc = json.loads(open(path, 'rb').read().decode('utf-8'))\n"
	"    assert list(doc) == ['filesystems'], list(doc)\n"
	"    rows = []\n"
	"    for fs in doc['filesystems']:\n"
	"        keys = [k for k in fs if not k.endswith('_encoding')]\n"
	"        assert cols is None or keys == cols, (keys, cols)\n"
	"        r = {}\n"
	"        for k in keys:\n"
	"            v, enc = fs[k], fs.get(k + '_encoding')\n"
	"            if enc is not None:\n"
	"                assert enc == 'base64' and type(v) is str, (k, enc)\n"
	"                v = base64.b64decode(v.encode(), validate=True)\n"
	"                try:\n"
	"                    v.decode('utf-8')\n"
	"                    assert False, 'needless base64: %s' % k\n"
	"                except UnicodeDecodeError:\n"
	"                    pass\n"
	"            elif type(v) is str:\n"
	"                assert v, 'an empty string, not null: %s' % k\n"
	"                v = v.encode('utf-8')\n"
	"            elif v is not None:\n"
	"                assert type(v) is int and k in NUM, (k, v)\n"
	"            r[k] = v\n"
	"        rows.append(r)\n"
	"    return rows\n"
	"bad = 0\n"
	"def differ(what, got, want):\n"
	"    global bad\n"
	"    bad += 1\n"
	"    if bad <= 5:\n"
	"        print('%s:\\n  got  %r\\n  want %r' % (what, got, want))\n"
	"mode = sys.argv[1]\n"
	"if mode == 'mountinfo':\n"
	"    cols = sys.argv[3].split(',')\n"
	"    got = tool(sys.argv[2], cols)\n"
	"    want = [{k: None if not r[k] else int(r[k]) if k in NUM else r[k]\n"
	"             for k in cols} for r in mountinfo()]\n"
	"else:\n"
	"    got = tool(sys.argv[2], None)\n"
	"    got = [{k: v.decode('utf-8', 'surrogateescape')\n"
	"            if type(v) is bytes else v for k, v in r.items()}\n"
	"           for r in got]\n"
	"    fm = open(sys.argv[3], 'rb').read()\n"
	"    fm = json.loads(fm.decode('utf-8', 'surrogateescape'))\n"
	"    want = fm['filesystems']\n"
	"if len(got) != len(want):\n"
	"    differ('rows', len(got), len(want))\n"
	"for i, (g, w) in enumerate(zip(got, want)):\n"
	"    if g != w:\n"
	"        differ('row %d' % i, g, w)\n"
	"print('ok' if not bad else '%d differences' % bad)\n"
	"sys.exit(1 if bad else 0)\n";

/* Write @json to a file of the test and run the checker over it. */
static void check_json(const char *what, const struct sb *json,
		       const char *mode, const char *arg)
{
	char path[PATH_MAX];
	const char *argv[] = { "python3", "-c", json_check, mode, path, arg,
			       NULL };
	struct run r;
	int fd;

	if (!tool_have_json) {
		tap_skip(1, TOOL_NO_JSON);
		return;
	}
	snprintf(path, sizeof(path), "%s/tool.json", outdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, json->p, json->len) != (ssize_t)json->len ||
	    close(fd))
		tap_bail("write %s: %s", path, strerror(errno));
	run_argv(&r, NULL, "python3", (char *const *)argv);
	if (!tap_ok(r.status == 0 && !strcmp(r.out.p, "ok\n"), "%s", what))
		tap_diag("%s%s", r.out.p, r.err.p);
	run_free(&r);
}

/* ---- the tree ---- */

/* The mount points that are not plain words, for --mounts PATH. */
static const char *const odd[] = {
	"plain", "plain/dir", "bind", "sp ace", "new\nline\ttab",
	"gr\xc3\xbc\xc3\x9f" "e", "\xff", "shared", "peer", "slave",
	"unbind", "ro", "",
};

static void build_tree(void)
{
	char rel[PATH_MAX];
	size_t len;

	top = mt_new_top("mounts");
	mt_mount_at("plain", "gv plain\\src", "tmpfs", 0, "size=1m,mode=0750");
	mt_mkdir("plain/dir");
	mt_mount_at("bind", mt_at("plain/dir"), NULL, MS_BIND, NULL);
	mt_mount_at("sp ace", "", "tmpfs", 0, NULL);
	mt_mount_at("new\nline\ttab", "gv-newline", "tmpfs", 0, NULL);
	mt_mount_at("gr\xc3\xbc\xc3\x9f" "e", "gv-utf8", "tmpfs", 0, NULL);
	mt_mount_at("\xff", "gv-\xfe", "tmpfs", 0, NULL);
	mt_propagation_tree();
	mt_mount_at("ro", "gv-ro", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV |
		    MS_NOEXEC | MS_NOATIME, NULL);
	/* read-only here, read-write in the super-block: OPTIONS says ro */
	mt_mount_at("robind", mt_at("plain"), NULL, MS_BIND, NULL);
	mt_change("robind", MS_REMOUNT | MS_BIND | MS_RDONLY);

	/* mount points of 2 KiB: a table well past the first buffer */
	len = (size_t)snprintf(rel, sizeof(rel), "long");
	mt_mkdir(rel);
	for (int d = 0; d < 8; d++) {
		rel[len++] = '/';
		memset(rel + len, 'a' + d, 240);
		len += 240;
		rel[len] = 0;
		mt_mkdir(rel);
	}
	for (int i = 0; i < LONG_MOUNTS; i++) {
		snprintf(rel + len, sizeof(rel) - len, "/m%03d", i);
		mt_mount_at(rel, "gv-long", "tmpfs", 0, NULL);
	}
}

/* ---- the checks ---- */

static const char *const *source_env(const char *source)
{
	static char var[64];
	static const char *env[2];

	if (!source)
		return NULL;
	snprintf(var, sizeof(var), "GETVALUES_MOUNT_SOURCE=%s", source);
	env[0] = var;
	return env;
}

/*
 * Every mount: text (default and all columns, with and without the
 * header), raw and JSON, against mountinfo; through @source (NULL: auto).
 * The outputs are kept in @outs, for comparing the sources.
 */
static void check_all(const char *source, struct sb outs[5])
{
	const char *name = source ? source : "auto";
	const struct spawn sp = { .env = source_env(source) };
	static const int all_cols[MF_NUM] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					  11, 12 };
	static const char *const all_heads[MF_NUM] = {
		"ID", "PARENTID", "ROOT", "MOUNTPOINT", "VFS-OPTIONS", "SHARED",
		"MASTER", "PROPAGATE_FROM", "UNBINDABLE", "DEV", "FSTYPE",
		"SOURCE", "SUPEROPTS",
	};
	struct sb want[4] = { 0 };
	const struct mi_mount **rows, **mrows;
	struct mi_mount *copies;
	struct run r[5];
	struct mi_table t = { 0 };
	char what[128];

	run_tool(&r[0], &sp, "--mounts", NULL);
	run_tool(&r[1], &sp, "-o", ALL_FIELDS, "--mounts", NULL);
	run_tool(&r[2], &sp, "-n", "-o", ALL_FIELDS, "--mounts", NULL);
	run_tool(&r[3], &sp, "-0", "--mounts", "-o", ALL_FIELDS, NULL);
	run_tool(&r[4], &sp, "-J", "--mounts", "-o", ALL_FIELDS, NULL);
	mi_load(&t);
	rows = all_rows(&t);
	mrows = merged_rows(rows, t.n, &copies);
	want_text(&want[0], mrows, t.n, default_cols, default_heads, 4, true);
	merged_rows_free(mrows, copies, t.n);
	want_text(&want[1], rows, t.n, all_cols, all_heads, MF_NUM, true);
	want_text(&want[2], rows, t.n, all_cols, all_heads, MF_NUM, false);
	want_raw(&want[3], rows, t.n);

	snprintf(what, sizeof(what), "%s: --mounts, the default columns",
		 name);
	expect(&r[0], 0, &want[0], "", what);
	snprintf(what, sizeof(what), "%s: --mounts -o every field", name);
	expect(&r[1], 0, &want[1], "", what);
	snprintf(what, sizeof(what), "%s: --mounts -n -o every field", name);
	expect(&r[2], 0, &want[2], "", what);
	snprintf(what, sizeof(what), "%s: --mounts -0, every field of every "
		 "mount (%zu)", name, t.n);
	expect(&r[3], 0, &want[3], "", what);
	if (r[3].out.len != want[3].len ||
	    memcmp(r[3].out.p, want[3].p, want[3].len))
		diag_raw(&r[3].out, &t);
	snprintf(what, sizeof(what), "%s: --mounts -J: exit 0", name);
	tap_is_long(r[4].status, 0, "%s", what);
	snprintf(what, sizeof(what), "%s: --mounts -J, every field of every "
		 "mount against mountinfo", name);
	check_json(what, &r[4].out, "mountinfo", ALL_FIELDS);

	for (int i = 0; i < 5; i++) {
		sb_add(&outs[i], r[i].out.p, r[i].out.len);
		run_free(&r[i]);
	}
	for (int i = 0; i < 4; i++)
		sb_free(&want[i]);
	free(rows);
	mi_free(&t);
}

/* The tree itself is in the table: a check that cannot pass vacuously. */
static void check_tree_present(void)
{
	struct mi_table t = { 0 };
	size_t found = 0;

	mi_load(&t);
	for (size_t i = 0; i < ARRAY_SIZE(odd); i++) {
		const struct mi_mount *row = mi_of_path(&t, mt_at(odd[i]));

		found += !strncmp(row->val[MF_MOUNTPOINT], top, strlen(top));
	}
	tap_is_long(found, ARRAY_SIZE(odd),
		    "the odd mount points are mounts of the tree, in "
		    "mountinfo (%zu mounts in all)", t.n);
	mi_free(&t);
}

/* The same output, whichever source the library takes the mounts from. */
static void check_sources(void)
{
	static const char *const what[5] = {
		"text", "text, every field", "text without header", "raw",
		"JSON",
	};
	struct sb outs[3][5] = { 0 };

	check_all(NULL, outs[0]);
	check_all("mountinfo", outs[1]);
	if (have_statmount)
		check_all("statmount", outs[2]);
	else
		tap_skip(1, "kernel's statmount() cannot tell fstype and source (Linux 6.13)");
	for (int i = 0; i < 5; i++) {
		tap_is_mem(outs[1][i].p, outs[1][i].len, outs[0][i].p,
			   outs[0][i].len, "mountinfo and auto: the same %s",
			   what[i]);
		if (have_statmount)
			tap_is_mem(outs[2][i].p, outs[2][i].len,
				   outs[1][i].p, outs[1][i].len,
				   "statmount and mountinfo: the same %s",
				   what[i]);
		else
			tap_skip(1, "kernel's statmount() cannot tell fstype and source (Linux 6.13)");
	}
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 5; i++)
			sb_free(&outs[s][i]);
}

/* --mounts PATH, PATH mnt: the mount PATH is on, through both sources. */
static void check_paths(void)
{
	static const char *const sources[] = { "mountinfo", "statmount" };
	struct mi_table t = { 0 };

	mi_load(&t);
	for (size_t i = 0; i < ARRAY_SIZE(odd); i++) {
		const char *path = mt_at(odd[i]);
		const struct mi_mount *row = mi_of_path(&t, path), **mrows;
		struct mi_mount *copies;
		struct sb want = { 0 }, tw = { 0 };
		struct run r, v;

		want_raw(&want, &row, 1);
		run_tool(&r, NULL, "-0", "-o", ALL_FIELDS, "--mounts", path,
			 NULL);
		expect(&r, 0, &want, "", "--mounts PATH -0: every field of "
		       "the mount of PATH");
		for (size_t s = 0; s < ARRAY_SIZE(sources); s++) {
			struct spawn sp = { .env = source_env(sources[s]) };
			struct run o;

			run_tool(&o, &sp, "-0", "-o", ALL_FIELDS, "--mounts",
				 path, NULL);
			if (s == 1 && !have_statmount)
				tap_skip(1, "kernel's statmount() cannot "
					 "tell fstype and source (Linux 6.13)");
			else
				tap_ok(o.status == 0 && o.out.len == r.out.len &&
				       !memcmp(o.out.p, r.out.p, r.out.len),
				       "--mounts PATH: the same through %s",
				       sources[s]);
			run_free(&o);
		}
		run_free(&r);

		mrows = merged_rows(&row, 1, &copies);
		want_text(&tw, mrows, 1, default_cols, default_heads, 4, true);
		merged_rows_free(mrows, copies, 1);
		run_tool(&r, NULL, "--mounts", path, NULL);
		run_tool(&v, NULL, path, "mnt", NULL);
		expect(&r, 0, &tw, "", "--mounts PATH: a table of one row");
		expect(&v, 0, &tw, "", "PATH mnt: the same table");
		run_free(&r);
		run_free(&v);
		sb_free(&want);
		sb_free(&tw);
	}
	mi_free(&t);
}

/* -E, -L and --fd choose the mount as they choose $ORIGIN. */
static void check_origin(void)
{
	struct sb want = { 0 };
	struct mi_table t = { 0 };
	const struct mi_mount *row;
	const char *link;
	struct run r;
	int fd;

	mi_load(&t);
	row = mi_of_path(&t, mt_at("ro"));
	want_raw(&want, &row, 1);
	fd = open(mt_at("ro"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s: %s", mt_at("ro"), strerror(errno));
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 }, "-0", "-o",
		 ALL_FIELDS, "-E", "--fd=7", "--mounts", NULL);
	expect(&r, 0, &want, "", "-E --fd 7 --mounts: the mount of fd 7");
	run_free(&r);
	close(fd);

	/* a symlink on the top mount to the ro mount */
	link = mt_at("link");
	if (symlink(mt_at("ro"), link))
		tap_bail("symlink: %s", strerror(errno));
	run_tool(&r, NULL, "-0", "-o", ALL_FIELDS, "--mounts", link, NULL);
	expect(&r, 0, &want, "", "--mounts LINK: the mount of its target");
	run_free(&r);
	sb_free(&want);
	row = mi_of_path(&t, top);
	want_raw(&want, &row, 1);
	run_tool(&r, NULL, "-L", "-0", "-o", ALL_FIELDS, "--mounts", link,
		 NULL);
	expect(&r, 0, &want, "", "-L --mounts LINK: the mount of the link");
	run_free(&r);
	sb_free(&want);
	mi_free(&t);
}

/* The JSON is findmnt -J -l's, for the columns findmnt has. */
static void check_findmnt(void)
{
	static const char cols[] =
		"TARGET,SOURCE,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,ID,"
		"PARENT,MAJ:MIN,FSROOT";
	const char *argv[] = { "findmnt", "-J", "-l", "-v", "-o", cols, NULL };
	char path[PATH_MAX];
	struct run f, r;
	int fd;

	run_argv(&f, NULL, "findmnt", (char *const *)argv);
	if (f.status == 127) {
		tap_skip(2, "findmnt(8) is not installed");
		run_free(&f);
		return;
	}
	snprintf(path, sizeof(path), "%s/findmnt.json", outdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, f.out.p, f.out.len) != (ssize_t)f.out.len ||
	    close(fd))
		tap_bail("write %s: %s", path, strerror(errno));
	run_tool(&r, NULL, "--json", "--mounts", "--output", cols, NULL);
	tap_ok(f.status == 0 && r.status == 0, "findmnt and getvalues -J "
	       "--mounts -o %s: both exit 0", cols);
	check_json("getvalues --mounts -J and findmnt -J -l -v: the same "
		   "document", &r.out, "findmnt", path);
	run_free(&r);
	run_free(&f);
}

/* A lone mntns or mnt in text is the table; -J, -0, other names are not. */
static void check_views(void)
{
	struct sb want = { 0 };
	struct run r, v;

	run_tool(&r, NULL, "--mounts", NULL);
	run_tool(&v, NULL, top, "mntns", NULL);
	expect(&v, 0, &r.out, "", "PATH mntns: the table of --mounts");
	run_free(&v);
	run_free(&r);

	run_tool(&r, NULL, "-n", "-o", "+id,PARENT,fsroot", "--mounts",
		 NULL);
	run_tool(&v, NULL, "-n", "-o", "+id,PARENT,fsroot", top, "mntns",
		 NULL);
	expect(&v, 0, &r.out, "", "PATH mntns takes -n and -o");
	run_free(&v);
	run_free(&r);

	/* the values themselves, for scripts */
	{
		struct mi_table t = { 0 };

		mi_load(&t);
		for (size_t i = 0; i < t.n; i++)
			sb_add(&want, t.m[i].val[MF_ID], t.m[i].len[MF_ID] + 1);
		sb_add(&want, "", 1);
		mi_free(&t);
	}
	run_tool(&r, NULL, "-0", top, "mntns", NULL);
	expect(&r, 0, &want, "", "-0 PATH mntns: the IDs, as a raw list");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "-J", top, "mnt", NULL);
	tap_ok(r.status == 0 && !strncmp(r.out.p, "{\n  \"values\": [\n    "
					 "{\"name\": \"mnt\", \"value\": "
					 "[\"id\", \"parentid\", ", 64),
	       "-J PATH mnt: the field names, as values");
	run_free(&r);

	run_tool(&r, NULL, top, "mnt", "mnt:fstype", NULL);
	sb_adds(&want, "mnt=\n");
	for (int f = 0; f < MF_NUM; f++)
		sb_printf(&want, "  %s\n", mf_names[f]);
	sb_adds(&want, "mnt:fstype=tmpfs\n");
	expect(&r, 0, &want, "", "PATH mnt mnt:fstype: NAME=VALUE lines");
	run_free(&r);
	sb_free(&want);
}

/* Columns in a UTF-8 locale line up by the terminal's columns. */
static void check_utf8(void)
{
	const char *path = mt_at("gr\xc3\xbc\xc3\x9f" "e");
	struct sb want = { 0 };
	wchar_t wide[PATH_MAX];
	struct run r;
	int cols;

	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		tap_skip(3, "no C.UTF-8 locale in this libc");
		return;
	}
	if (mbstowcs(wide, path, PATH_MAX) == (size_t)-1 ||
	    (cols = wcswidth(wide, PATH_MAX)) < 0)
		tap_bail("%s is not printable UTF-8", path);
	setlocale(LC_CTYPE, "C");
	tap_ok((size_t)cols + 2 == strlen(path),
	       "the path is 2 bytes longer than it is wide");
	sb_printf(&want, "TARGET%*s FSTYPE\n%s tmpfs\n", cols - 6, "", path);
	run_tool(&r, &(struct spawn){ .locale = "C.UTF-8" }, "-o",
		 "target,fstype", "--mounts", path, NULL);
	expect(&r, 0, &want, "", "C.UTF-8: padded by columns, not bytes");
	run_free(&r);
	sb_free(&want);
}

/* Two calls for every mount, one for the mount of PATH. */
static void check_calls(void)
{
	char trace[PATH_MAX];
	const char *const all[] = { "-o", "id,fstype,options", top, "mntns",
				    NULL };
	const char *const one[] = { "-o", ALL_FIELDS, "--mounts", top, NULL };
	const char *const big[] = { "-o", "target", top, "mntns", NULL };
	int n;

	snprintf(trace, sizeof(trace), "%s/strace.log", outdir);
	n = tool_count_calls(top, trace, all);
	if (n < 0) {
		tap_skip(3, "strace cannot trace processes here");
		return;
	}
	tap_is_long(n, 2, "every mount: 2 getvalues() calls");
	tap_is_long(tool_count_calls(top, trace, one), 1,
		    "the mount of PATH, every field: 1 call");
	n = tool_count_calls(top, trace, big);
	tap_ok(n > 2 && n <= 5, "%d KiB of mount points: %d calls, the "
	       "buffer growing from 64 KiB", LONG_MOUNTS * 2, n);
}

/* Errors of the table: usage, a source that cannot work, a bad PATH. */
static void check_errors(void)
{
	/* the library's own mount sources: not the native call's */
	static const char *const bogus[] = {
		"GETVALUES_MOUNT_SOURCE=bogus", "GETVALUES_BACKEND=sync", NULL
	};
	static const char *const usage[][6] = {
		{ "-o", "bogus", "--mounts", NULL },
		{ "-o", "", "--mounts", NULL },
		{ "-o", "id,", "--mounts", NULL },
		{ "-o", "id,ID", "--mounts", NULL },
		{ "-o", "+target", "--mounts", NULL },
		{ "--mounts", "/", "/", NULL },
		{ "-o", "id", "/", "stat:size", NULL },
		{ "-n", "/", "mnt", "mntns", NULL },
		{ "-J", "-o", "id", "/", "mntns", NULL },
	};
	const struct spawn sp = { .env = bogus };
	struct sb want = { 0 };
	struct run r;

	for (size_t i = 0; i < ARRAY_SIZE(usage); i++) {
		run_tool_v(&r, NULL, usage[i]);
		tap_ok(r.status == 1 && r.out.len == 0 &&
		       !strncmp(r.err.p, "getvalues: ", 11) &&
		       strstr(r.err.p, "--help"),
		       "usage error %zu (%s %s %s): exit 1, a message", i,
		       usage[i][0], usage[i][1], usage[i][2]);
		run_free(&r);
	}

	run_tool(&r, &sp, "--mounts", NULL);
	expect(&r, 32, &empty, "getvalues: mntns: Function not implemented\n",
	       "no source for the list: exit 32, nothing printed");
	run_free(&r);

	run_tool(&r, &sp, "-J", "-o", "id,target", "--mounts", top, NULL);
	sb_adds(&want, "getvalues: mnt:id: Function not implemented\n"
		"getvalues: mnt:mountpoint: Function not implemented\n");
	expect(&r, 32, &empty, want.p,
	       "no source for the fields: each failed field said once, "
	       "exit 32");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "--mounts", mt_at("nonexistent"), NULL);
	sb_printf(&want, "getvalues: %s: No such file or directory\n",
		  mt_at("nonexistent"));
	expect(&r, 1, &empty, want.p, "--mounts of a missing PATH: exit 1");
	run_free(&r);
	sb_free(&want);
}

int main(void)
{
	const char *why;

	tool_init("getvalues");
	why = t_private_mounts(NULL);
	if (why)
		tap_skip_all("no private mount namespace: %s", why);
	/*
	 * statmount(2) that tells every field: Linux 6.13 (fs subtype and
	 * mount source); before, the statmount source gives ENOSYS there
	 */
	have_statmount = mnt_statmount_complete();
	outdir = t_tmpdir("mounts-out");
	build_tree();

	check_tree_present();
	check_sources();
	check_paths();
	check_origin();
	check_findmnt();
	check_views();
	check_utf8();
	check_calls();
	check_errors();

	umount2(top, MNT_DETACH);
	return tap_done();
}
