// SPDX-License-Identifier: MIT
/*
 * getvalues_call.c - the call itself (SPEC 2.1, 2.2 "Return value",
 * DECISIONS G1-G3): unknown flags, non-zero reserved, an unreadable vector
 * and every way $ORIGIN can fail to resolve make the call fail with -1 and
 * the right errno, in the documented order, with nothing written into the
 * vector or any value buffer; and the ways $ORIGIN can be named
 * (AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT, AT_FDCWD, absolute).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define GV_OK_FLAGS (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT)

static int tree;		/* the scratch tree, O_PATH */
static const char *treepath;
static int filefd;		/* "file", O_RDONLY */
static char longname[NAME_MAX + 2];

enum { DFD_TREE, DFD_BAD, DFD_CLOSED, DFD_FILE, DFD_CWD };
enum {
	VEC_GOOD,		/* three good entries */
	VEC_RESERVED_FIRST,	/* entry 0 has reserved != 0 */
	VEC_RESERVED_LAST,	/* entry 2 has reserved != 0 */
	VEC_NULL,		/* vec == NULL */
	VEC_ONE,		/* vec == (void *)1 */
	VEC_NOACCESS,		/* vec in a PROT_NONE page */
	VEC_SPLIT,		/* entry 0 readable, entry 1 in a PROT_NONE page */
	VEC_HUGE_NUM,		/* three readable entries, num 1 << 20 */
};

#define P_NULL ((const char *)0)
#define P_ONE ((const char *)1)
#define P_LONG ((const char *)2)

struct call_case {
	const char *name;
	int dfd;
	const char *path;
	unsigned int flags;
	int vec;
	size_t num;		/* 0 here means "the vector's own count" */
	bool zero_num;		/* num really is 0 */
	int ret;		/* -1, or the count */
	int err;		/* -1 here: what statx(2) says for the origin */
};

#define STATX_ERR (-1)

static const struct call_case cases[] = {
	{ "good call",			DFD_TREE, ".", 0, VEC_GOOD, 0, false, 3, 0 },
	{ "unknown flag 0x1: EINVAL",	DFD_TREE, ".", 0x1, VEC_GOOD, 0, false, -1, EINVAL },
	{ "AT_STATX_FORCE_SYNC: EINVAL", DFD_TREE, ".", AT_STATX_FORCE_SYNC, VEC_GOOD, 0, false, -1, EINVAL },
	{ "AT_RECURSIVE: EINVAL",	DFD_TREE, ".", AT_RECURSIVE, VEC_GOOD, 0, false, -1, EINVAL },
	{ "flag bit 31: EINVAL",	DFD_TREE, ".", 1u << 31, VEC_GOOD, 0, false, -1, EINVAL },
	{ "unknown flag beats unreadable vec", DFD_TREE, ".", 0x1, VEC_NOACCESS, 0, false, -1, EINVAL },
	{ "unknown flag beats missing origin", DFD_TREE, "missing", 0x1, VEC_GOOD, 0, false, -1, EINVAL },
	{ "unknown flag with num 0",	DFD_TREE, ".", 0x1, VEC_NULL, 0, true, -1, EINVAL },
	{ "reserved != 0 in entry 0: EINVAL", DFD_TREE, ".", 0, VEC_RESERVED_FIRST, 0, false, -1, EINVAL },
	{ "reserved != 0 in entry 2: EINVAL", DFD_TREE, ".", 0, VEC_RESERVED_LAST, 0, false, -1, EINVAL },
	{ "reserved beats missing origin", DFD_TREE, "missing", 0, VEC_RESERVED_LAST, 0, false, -1, EINVAL },
	{ "vec NULL: EFAULT",		DFD_TREE, ".", 0, VEC_NULL, 3, false, -1, EFAULT },
	{ "vec (void *)1: EFAULT",	DFD_TREE, ".", 0, VEC_ONE, 3, false, -1, EFAULT },
	{ "vec in a PROT_NONE page: EFAULT", DFD_TREE, ".", 0, VEC_NOACCESS, 0, false, -1, EFAULT },
	{ "vec running into a PROT_NONE page: EFAULT", DFD_TREE, ".", 0, VEC_SPLIT, 0, false, -1, EFAULT },
	{ "num far beyond the readable vec: EFAULT", DFD_TREE, ".", 0, VEC_HUGE_NUM, 0, false, -1, EFAULT },
	{ "unreadable vec beats missing origin", DFD_TREE, "missing", 0, VEC_SPLIT, 0, false, -1, EFAULT },
	{ "num > INT_MAX: EINVAL",	DFD_TREE, ".", 0, VEC_GOOD, (size_t)INT_MAX + 1, false, -1, EINVAL },
	{ "num 0, vec NULL: 0",		DFD_TREE, ".", 0, VEC_NULL, 0, true, 0, 0 },
	{ "num 0, vec in a PROT_NONE page: 0", DFD_TREE, ".", 0, VEC_NOACCESS, 0, true, 0, 0 },
	{ "num 0 still resolves $ORIGIN", DFD_TREE, "missing", 0, VEC_NULL, 0, true, -1, ENOENT },
	{ "origin missing: ENOENT",	DFD_TREE, "missing", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin dangling symlink: ENOENT", DFD_TREE, "dangling", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin through a file: ENOTDIR", DFD_TREE, "file/x", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin symlink loop: ELOOP",	DFD_TREE, "loop", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin \"\" without AT_EMPTY_PATH: ENOENT", DFD_TREE, "", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin NULL path: EFAULT",	DFD_TREE, P_NULL, 0, VEC_GOOD, 0, false, -1, EFAULT },
	{ "origin NULL path with AT_EMPTY_PATH: dfd itself (v2)", DFD_TREE, P_NULL, AT_EMPTY_PATH, VEC_GOOD, 0, false, 3, 0 },
	{ "origin path (char *)1: EFAULT", DFD_TREE, P_ONE, 0, VEC_GOOD, 0, false, -1, EFAULT },
	{ "origin component of 256 bytes: ENAMETOOLONG", DFD_TREE, P_LONG, 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin dfd -1, relative: EBADF", DFD_BAD, "file", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin closed dfd, relative: EBADF", DFD_CLOSED, "file", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin dfd a file, relative: ENOTDIR", DFD_FILE, "x", 0, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "origin dfd -1, AT_EMPTY_PATH: EBADF", DFD_BAD, "", AT_EMPTY_PATH, VEC_GOOD, 0, false, -1, STATX_ERR },
	{ "dangling symlink with AT_SYMLINK_NOFOLLOW", DFD_TREE, "dangling", AT_SYMLINK_NOFOLLOW, VEC_GOOD, 0, false, 3, 0 },
	{ "all three allowed flags",	DFD_FILE, "", GV_OK_FLAGS, VEC_GOOD, 0, false, 3, 0 },
	{ "absolute path ignores a bad dfd", DFD_BAD, "/", 0, VEC_GOOD, 0, false, 3, 0 },
	{ "AT_FDCWD, relative path",	DFD_CWD, "file", 0, VEC_GOOD, 0, false, 3, 0 },
};

static int case_dfd(int kind, int *closeme)
{
	int fd;

	*closeme = -1;
	switch (kind) {
	case DFD_BAD:
		return -1;
	case DFD_CLOSED:
		fd = dup(0);
		close(fd);
		return fd;
	case DFD_FILE:
		return filefd;
	case DFD_CWD:
		return AT_FDCWD;
	}
	return tree;
}

static const char *case_path(const char *p)
{
	if (p == P_LONG)
		return longname;
	return p;
}

/* The vector of a case, and the buffer its good entries point at. */
struct vecset {
	struct name_val *vec;
	size_t num;
	size_t bytes;		/* readable bytes of vec, to compare */
	char *buf;
	size_t bufsize;
};

static void make_vec(int kind, struct vecset *v)
{
	static char buf[256];
	struct name_val good[3] = {
		{ .name = "stat:size", .value_in = { buf, sizeof(buf) } },
		{ .name = ":ino" },
		{ .name = "data:file" },
	};
	char *page;

	v->buf = buf;
	v->bufsize = sizeof(buf);
	v->num = 3;
	gvt_poison(buf, sizeof(buf));
	switch (kind) {
	case VEC_NULL:
		v->vec = NULL;
		v->bytes = 0;
		return;
	case VEC_ONE:
		v->vec = (struct name_val *)1;
		v->bytes = 0;
		return;
	case VEC_NOACCESS:
		v->vec = gvt_pages(1, PROT_NONE);
		v->bytes = 0;
		return;
	}
	/* the entries end right before a PROT_NONE page */
	page = gvt_pages(2, PROT_READ | PROT_WRITE);
	if (mprotect(page + GVT_PAGE, GVT_PAGE, PROT_NONE))
		tap_bail("mprotect");
	v->vec = (struct name_val *)(page + GVT_PAGE) - 3;
	memcpy(v->vec, good, sizeof(good));
	v->bytes = sizeof(good);
	switch (kind) {
	case VEC_RESERVED_FIRST:
		v->vec[0].reserved = 1;
		break;
	case VEC_RESERVED_LAST:
		v->vec[2].reserved = 0x80000000u;
		break;
	case VEC_SPLIT:
		v->vec += 2;	/* one readable entry, then the guard page */
		v->bytes = sizeof(*v->vec);
		break;
	case VEC_HUGE_NUM:
		v->num = 1u << 20;
		break;
	}
	/* out fields hold a pattern, to see that nothing touched them */
	for (size_t i = 0; i < v->bytes / sizeof(*v->vec); i++) {
		gvt_poison(&v->vec[i].value_out, sizeof(v->vec[i].value_out));
		gvt_poison(&v->vec[i].error, sizeof(v->vec[i].error));
	}
}

static void run_case(const struct call_case *c)
{
	struct vecset v;
	char before[3 * sizeof(struct name_val)];
	const char *path = case_path(c->path);
	int closeme, dfd = case_dfd(c->dfd, &closeme), ret, err, want_err;
	size_t num;
	struct statx stx;

	make_vec(c->vec, &v);
	num = c->zero_num ? 0 : c->num ? c->num : v.num;
	if (v.bytes)
		memcpy(before, v.vec, v.bytes);
	want_err = c->err;
	if (want_err == STATX_ERR) {
		/* resolved as statx(2) resolves it: its errno is the answer */
		want_err = statx(dfd, path, c->flags, STATX_BASIC_STATS, &stx) ?
			   errno : 0;
		if (!want_err)
			tap_bail("%s: statx(2) resolves the origin", c->name);
	}
	errno = 0;
	ret = getvalues(dfd, path, v.vec, num, c->flags);
	err = errno;
	tap_is_errno(ret, err, c->ret, want_err, "%s", c->name);
	if (c->ret >= 0 && ret >= 0) {
		/* data:file depends on the origin; the stat fields do not */
		if (num)
			tap_ok(v.vec[0].error == 0 && v.vec[1].error == 0 &&
			       v.vec[2].error != 0xa5a5a5a5u,
			       "%s: every entry filled", c->name);
		if (closeme >= 0)
			close(closeme);
		return;
	}
	tap_ok(!v.bytes || !memcmp(before, v.vec, v.bytes),
	       "%s: vec untouched", c->name);
	tap_ok(gvt_poisoned(v.buf, v.bufsize),
	       "%s: value buffer untouched", c->name);
	if (closeme >= 0)
		close(closeme);
}

/* Every bit but the three allowed ones is EINVAL, whatever else is wrong. */
static void test_every_flag_bit(void)
{
	char buf[64];
	struct name_val e;
	int bad = 0, bits = 0;

	for (int bit = 0; bit < 32; bit++) {
		unsigned int flag = 1u << bit;

		if (flag & GV_OK_FLAGS)
			continue;
		bits++;
		errno = 0;
		if (gvt_call1(tree, ".", flag, "stat:size", buf, sizeof(buf),
			      &e) != -1 || errno != EINVAL) {
			bad++;
			tap_diag("flag %#x: not EINVAL", flag);
		}
		errno = 0;
		if (gvt_call1(tree, "missing", flag | AT_SYMLINK_NOFOLLOW,
			      "stat:size", buf, sizeof(buf), &e) != -1 ||
		    errno != EINVAL) {
			bad++;
			tap_diag("flag %#x on a missing origin: not EINVAL",
				 flag);
		}
	}
	tap_ok(bad == 0, "each of %d unknown flag bits: EINVAL, before $ORIGIN",
	       bits);
}

/* DECISIONS G3: results that cannot be stored fail the call. */
static void test_vec_not_writable(void)
{
	static char buf[64];
	struct name_val *vec = gvt_pages(1, PROT_READ | PROT_WRITE);
	int ret;

	vec[0] = (struct name_val){ .name = "stat:size",
				    .value_in = { buf, sizeof(buf) } };
	if (mprotect(vec, GVT_PAGE, PROT_READ))
		tap_bail("mprotect");
	errno = 0;
	ret = getvalues(tree, ".", vec, 1, 0);
	tap_is_errno(ret, errno, -1, EFAULT,
		     "vec readable but not writable: EFAULT");
	munmap(vec, GVT_PAGE);
}

/* Each way of naming $ORIGIN gives the object stat(2) gives. */
static void expect_origin(int dfd, const char *path, unsigned int flags,
			  int sdfd, const char *spath, int sflags,
			  const char *what)
{
	char want[128];
	ssize_t n;

	n = gvt_want_stat(sdfd, spath, sflags, "ino", want, sizeof(want));
	if (n < 0)
		tap_bail("%s: reference stat failed", what);
	gvt_is_value(dfd, path, flags, "stat:ino", want, n, "%s: stat:ino",
		     what);
	n = gvt_want_stat(sdfd, spath, sflags, "type", want, sizeof(want));
	gvt_is_value(dfd, path, flags, "stat:type", want, n, "%s: stat:type",
		     what);
}

static void test_origins(void)
{
	char want[256], cwd[PATH_MAX], abs[PATH_MAX];
	int lnk, ofd;
	ssize_t n;

	if (!getcwd(cwd, sizeof(cwd)) || chdir(treepath))
		tap_bail("chdir");
	expect_origin(filefd, "", AT_EMPTY_PATH, filefd, "", 0,
		      "AT_EMPTY_PATH on an O_RDONLY file");
	n = gvt_want_file(tree, "file", want, sizeof(want));
	gvt_is_value(filefd, "", AT_EMPTY_PATH, "data:", want, n,
		     "AT_EMPTY_PATH on an O_RDONLY file: data: is its contents");
	expect_origin(AT_FDCWD, "", AT_EMPTY_PATH, AT_FDCWD, ".", 0,
		      "AT_EMPTY_PATH with AT_FDCWD: the working directory");
	expect_origin(tree, "dir", AT_EMPTY_PATH, tree, "dir", 0,
		      "AT_EMPTY_PATH with a non-empty path: the path");
	gvt_is_value(AT_FDCWD, "dir", 0, "dir:", "inner", 6,
		     "AT_FDCWD with a relative path: dir: lists it");

	lnk = openat(tree, "link", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	expect_origin(lnk, "", AT_EMPTY_PATH, tree, "link",
		      AT_SYMLINK_NOFOLLOW,
		      "AT_EMPTY_PATH on an O_PATH symlink: the link");
	gvt_is_value(lnk, "", AT_EMPTY_PATH, "data:", "file", 4,
		     "AT_EMPTY_PATH on an O_PATH symlink: data: is the target");
	close(lnk);

	expect_origin(tree, "link", AT_SYMLINK_NOFOLLOW, tree, "link",
		      AT_SYMLINK_NOFOLLOW,
		      "AT_SYMLINK_NOFOLLOW on a symlink: the link");
	gvt_is_value(tree, "link", AT_SYMLINK_NOFOLLOW, "data:", "file", 4,
		     "AT_SYMLINK_NOFOLLOW: data: is the link's target");
	expect_origin(tree, "link", 0, tree, "link", 0,
		      "a symlink without AT_SYMLINK_NOFOLLOW: its target");
	n = gvt_want_file(tree, "file", want, sizeof(want));
	gvt_is_value(tree, "link", 0, "data:", want, n,
		     "a followed symlink origin: data: is the file's contents");
	expect_origin(tree, "dangling", AT_SYMLINK_NOFOLLOW, tree, "dangling",
		      AT_SYMLINK_NOFOLLOW,
		      "AT_SYMLINK_NOFOLLOW on a dangling symlink");
	expect_origin(tree, "dir", AT_NO_AUTOMOUNT, tree, "dir", 0,
		      "AT_NO_AUTOMOUNT on a plain directory");
	expect_origin(tree, "dir/", 0, tree, "dir/", 0,
		      "origin path with a trailing slash");

	snprintf(abs, sizeof(abs), "%s/dir", treepath);
	expect_origin(-1, abs, 0, AT_FDCWD, abs, 0,
		      "absolute origin path, dfd -1");
	ofd = open("/proc/self", O_PATH | O_CLOEXEC);
	expect_origin(ofd, "fd", 0, ofd, "fd", 0,
		      "origin beneath an O_PATH dfd on procfs");
	close(ofd);
	if (chdir(cwd))
		tap_bail("chdir back");
}

static void unprivileged_calls(void *arg, void *res)
{
	int *r = res;
	struct name_val e;
	char buf[64];

	(void)arg;
	r[0] = gvt_call1(tree, "private/x", 0, "stat:size", buf, sizeof(buf),
			 &e);
	r[1] = errno;
	r[2] = gvt_call1(tree, "private", 0, "stat:mode", buf, sizeof(buf),
			 &e);
	r[3] = errno;
}

/* EACCES on the origin needs a caller without CAP_DAC_OVERRIDE. */
static void test_unprivileged(void)
{
	int res[4];

	if (t_as_nobody(unprivileged_calls, NULL, res, sizeof(res))) {
		tap_skip(2, T_NO_SECOND_USER);
		return;
	}
	tap_is_errno(res[0], res[1], -1, EACCES,
		     "origin beneath a mode 0700 directory of another user: EACCES");
	tap_is_errno(res[2], res[3], 1, 0,
		     "that directory itself resolves");
}

int main(void)
{
	treepath = gvt_scratch_tmpfs("call", "mode=0755");
	tree = open(treepath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (tree < 0 || t_write_file(tree, "file", "contents\n", 9, 0644) ||
	    mkdirat(tree, "dir", 0755) ||
	    t_write_file(tree, "dir/inner", "", 0, 0644) ||
	    mkdirat(tree, "private", 0700) ||
	    t_write_file(tree, "private/x", "", 0, 0644) ||
	    symlinkat("file", tree, "link") ||
	    symlinkat("nowhere", tree, "dangling") ||
	    symlinkat("loop", tree, "loop"))
		tap_bail("setup: %s", strerror(errno));
	filefd = openat(tree, "file", O_RDONLY | O_CLOEXEC);
	if (chdir(treepath))
		tap_bail("chdir: %s", strerror(errno));
	memset(longname, 'n', NAME_MAX + 1);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_every_flag_bit();
	test_vec_not_writable();
	test_origins();
	test_unprivileged();
	close(filefd);
	close(tree);
	return tap_done();
}
