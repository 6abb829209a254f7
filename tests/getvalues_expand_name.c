// SPDX-License-Identifier: MIT
/*
 * getvalues_expand_name.c - getvalues_expand_name() writes out the ":REST"
 * shorthand of SPEC 2.3 exactly as getvalues() reads it: a table of
 * expansions (every group, the mntns ID, names holding ':', shorthand
 * after failed entries, none after "" or a name too long), its
 * snprintf(3)-like buffer handling, and, for whole sequences, each entry
 * of one getvalues() call against a call of its own with the expanded
 * name: same error, same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LONG_REST	254	/* the longest REST of a 255-byte ":REST" */

struct expansion {
	const char *prev, *name, *want;
	int err;
};

static const struct expansion table[] = {
	{ .name = "stat:size", .want = "stat:size" },
	{ .prev = "stat:size", .name = ":mode", .want = "stat:mode" },
	{ .prev = "stat:size:fd/3", .name = ":ino:fd/3", .want = "stat:ino:fd/3" },
	{ .prev = "lstat:type:link", .name = ":size", .want = "lstat:size" },
	{ .prev = "mnt:id", .name = ":parentid", .want = "mnt:parentid" },
	{ .prev = "mnt", .name = ":fstype", .want = "mnt:fstype" },
	{ .prev = "data:stat", .name = ":status", .want = "data:status" },
	{ .prev = "data:a:b", .name = ":c:d", .want = "data:c:d" },
	{ .prev = "data", .name = ":", .want = "data:" },
	{ .prev = "dir:sub", .name = "::x", .want = "dir::x" },
	{ .prev = "xattr:user.a:b", .name = ":user.c", .want = "xattr:user.c" },
	{ .prev = "fs:type", .name = ":bsize", .want = "fs:bsize" },
	{ .prev = "mntns:21:root", .name = ":options", .want = "mntns:21:options" },
	{ .prev = "mntns:21", .name = ":root", .want = "mntns:21:root" },
	{ .prev = "mntns", .name = ":21:root", .want = "mntns:21:root" },
	{ .prev = "mntns:", .name = ":21", .want = "mntns:21" },
	{ .prev = "mntns:abc:root", .name = ":options", .want = "mntns:abc:options" },
	{ .prev = "foo:bar", .name = ":baz", .want = "foo:baz" },
	{ .prev = "foo", .name = ":baz", .want = "foo:baz" },
	{ .prev = "stat:size", .name = "data:x", .want = "data:x" },
	{ .prev = "stat:size", .name = "", .want = "" },
	{ .name = "", .want = "" },
	{ .name = ":size", .err = EINVAL },
	{ .prev = "", .name = ":size", .err = EINVAL },
	{ .err = EINVAL },
};

static void test_table(void)
{
	char buf[1024];

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct expansion *t = &table[i];
		ssize_t n;

		memset(buf, 'x', sizeof(buf));
		errno = 0;
		n = getvalues_expand_name(t->prev, t->name, buf, sizeof(buf));
		if (t->err)
			tap_is_errno(n, errno, -1, t->err, "%s then %s: %s",
				     t->prev ? gvt_esc(t->prev) : "nothing",
				     t->name ? gvt_esc(t->name) : "NULL",
				     strerror(t->err));
		else
			tap_ok(n == (ssize_t)strlen(t->want) &&
			       !strcmp(buf, t->want), "%s then %s: %s (got "
			       "%zd, %s)", t->prev ? gvt_esc(t->prev) :
			       "nothing", gvt_esc(t->name), gvt_esc(t->want),
			       n, n >= 0 ? gvt_esc(buf) : strerror(errno));
	}
}

/* The limit is on the name as written, not on what it expands to. */
static void test_lengths(void)
{
	char name[300], want[300], buf[600];
	ssize_t n;

	name[0] = ':';
	memset(name + 1, 'r', LONG_REST);
	name[1 + LONG_REST] = 0;
	snprintf(want, sizeof(want), "data:%s", name + 1);
	n = getvalues_expand_name("data:x", name, buf, sizeof(buf));
	tap_ok(n == 5 + LONG_REST && !strcmp(buf, want),
	       "a 255-byte shorthand expands past 255 bytes");
	strcat(name, "r");
	errno = 0;
	n = getvalues_expand_name("data:x", name, buf, sizeof(buf));
	tap_is_errno(n, errno, -1, ENAMETOOLONG, "a 256-byte name: "
		     "ENAMETOOLONG, as getvalues() gives that entry");

	/* the longest: "mntns:" then a 254-byte ID, then a 254-byte REST */
	name[0] = ':';
	memset(name + 1, '7', LONG_REST);
	name[1 + LONG_REST] = 0;
	n = getvalues_expand_name("mntns", name, want, sizeof(want));
	name[1] = 'f';
	n = n < 0 ? n : getvalues_expand_name(want, name, buf, sizeof(buf));
	tap_is_long(n, 6 + LONG_REST + 1 + LONG_REST, "the longest name "
		    "written out: 515 bytes, as getvalues_expand_name(3) says");

	memset(buf, 'x', sizeof(buf));
	n = getvalues_expand_name("stat:size", ":mode", buf, 0);
	tap_ok(n == 9 && buf[0] == 'x', "size 0: the length, nothing written");
	n = getvalues_expand_name("stat:size", ":mode", buf, 5);
	tap_ok(n == 9 && !strcmp(buf, "stat"), "size 5: the first 4 bytes "
	       "and a NUL, the full length returned");
	n = getvalues_expand_name(NULL, "stat:mode", NULL, 0);
	tap_is_long(n, 9, "NULL buf with size 0");
}

/*
 * Sequences of names: each entry of one getvalues() call gives what a call
 * of its own with the name expand_name() writes out gives. A name the
 * function refuses must get that errno in the call, and leave no prefix.
 */
static const char *const seqs[][9] = {
	{ "data:file", ":a:b", "::x", ":", "data", ":file", "stat:size",
	  ":ino:link" },
	{ "stat:size:link", ":mode:sub/inner", "stat", ":nlink", "lstat",
	  ":type:link", ":size" },
	{ "foo:bar", ":size", "", ":size", ":", "fs:type", ":bsize", "fs",
	  ":namelen" },
	{ "dir:sub", ":", "dir", ":sub", "xattr", ":user.a", ":user.x:y",
	  "data:missing", ":file" },
	{ ":size", "stat:bogus", ":size", "mnt:id", ":parentid", "mnt",
	  ":fstype" },
	{ "mntns", ":1", "mntns:", ":x", "mntns:abc", ":root", "data:a:b",
	  ":file" },
};

static bool same_entry(const struct name_val *a, const struct name_val *b)
{
	return a->error == b->error &&
	       a->value_out.iov_len == b->value_out.iov_len &&
	       !memcmp(a->value_out.iov_base, b->value_out.iov_base,
		       a->value_out.iov_len);
}

static void test_sequences(int dfd)
{
	static char big[1 << 16], one[1 << 16];

	for (size_t s = 0; s < sizeof(seqs) / sizeof(seqs[0]); s++) {
		struct name_val vec[9] = { { 0 } }, e;
		char shown[9][600];
		const char *prev = NULL;
		size_t n = 0;
		bool ok = true;

		while (n < 9 && seqs[s][n])
			vec[n].name = seqs[s][n], n++;
		vec[0].value_in = (struct iovec){ big, sizeof(big) };
		if (getvalues(dfd, "", vec, n, AT_EMPTY_PATH) != (int)n)
			tap_bail("sequence %zu: %s", s, strerror(errno));
		for (size_t i = 0; i < n && ok; i++) {
			ssize_t len = getvalues_expand_name(prev, vec[i].name,
							    shown[i], 600);

			if (len < 0) {
				ok = (int)vec[i].error == errno;
				if (!ok)
					tap_diag("%s: %s, the call gave %s",
						 vec[i].name, strerror(errno),
						 strerror(vec[i].error));
				prev = NULL;
				continue;
			}
			e = (struct name_val){ .name = shown[i],
				.value_in = { one, sizeof(one) } };
			if (getvalues(dfd, "", &e, 1, AT_EMPTY_PATH) != 1)
				tap_bail("%s: %s", shown[i], strerror(errno));
			ok = same_entry(&vec[i], &e);
			if (!ok)
				tap_diag("%s as %s: %s, alone %s", vec[i].name,
					 shown[i], strerror(vec[i].error),
					 strerror(e.error));
			prev = shown[i];
		}
		tap_ok(ok, "sequence %zu (%s ...): each entry as the call "
		       "reads its shorthand", s, seqs[s][0]);
	}
}

int main(void)
{
	int dfd = t_tmpdir_fd("expand");

	if (t_write_file(dfd, "file", "contents\n", 9, 0644) ||
	    t_write_file(dfd, "a:b", "colon\n", 6, 0644) ||
	    t_write_file(dfd, ":x", "lead\n", 5, 0644) ||
	    mkdirat(dfd, "sub", 0755) ||
	    t_write_file(dfd, "sub/inner", "in\n", 3, 0600) ||
	    symlinkat("file", dfd, "link"))
		tap_bail("scratch files: %s", strerror(errno));
	test_table();
	test_lengths();
	test_sequences(dfd);
	return tap_done();
}
