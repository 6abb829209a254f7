// SPDX-License-Identifier: MIT
/*
 * getvalues_walk.c - the vector walk (SPEC 2.2, DECISIONS E1, E2, E7, E8):
 * the current buffer and NULL continuing it, value_out on success and on a
 * per-entry error, the strict overflow rule (exact fit, an empty value in no
 * room) with EOVERFLOW, the early stop and the return value, entries after
 * the stop left alone, EINVAL without a current buffer, and bad pointers:
 * unreadable names, value buffers that cannot be written (read-only and
 * inaccessible pages, buffers running into one), shared buffers mixing good
 * values and bad ones, and long vectors.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/tap.h"
#include "lib/util.h"

static int tree;
static const char *treepath;

/* Expected values, from open/read/close and stat(2). */
static char want_a[64], want_b[64], want_nlink[32], want_big[200000];
static size_t len_a, len_b, len_nlink;
#define BIG_LEN sizeof(want_big)

static void poison_vec(struct name_val *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		gvt_poison(&v[i].value_out, sizeof(v[i].value_out));
		gvt_poison(&v[i].error, sizeof(v[i].error));
	}
}

static bool untouched(const struct name_val *e)
{
	return gvt_poisoned(&e->value_out, sizeof(e->value_out)) &&
	       gvt_poisoned(&e->error, sizeof(e->error));
}

static void check_at(const struct name_val *e, const void *at,
		     const void *want, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void check_at(const struct name_val *e, const void *at,
		     const void *want, size_t len, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!tap_ok(e->error == 0 && e->value_out.iov_base == at &&
		    e->value_out.iov_len == len &&
		    !memcmp(at, want, len), "%s", what))
		tap_diag("    error %u, value_out {%p, %zu}, want {%p, %zu}",
			 e->error, e->value_out.iov_base, e->value_out.iov_len,
			 at, len);
}

static int run(struct name_val *v, size_t n)
{
	poison_vec(v, n);
	return getvalues(tree, ".", v, n, 0);
}

static void test_shared_buffer(void)
{
	char a[256], c[64];
	struct name_val v[] = {
		{ .name = "data:a", .value_in = { a, sizeof(a) } },
		{ .name = "data:b" },
		{ .name = "data:empty" },
		{ .name = "data:missing" },
		{ .name = "stat:nlink:a" },
		{ .name = "data:b", .value_in = { c, sizeof(c) } },
		{ .name = "data:a" },
		{ .name = "data:a", .value_in = { NULL, 99999 } },
	};
	int ret = run(v, 8);

	tap_is_long(ret, 8, "shared buffers: every entry handled");
	check_at(&v[0], a, want_a, len_a, "entry 0 at the start of its buffer");
	check_at(&v[1], a + len_a, want_b, len_b,
		 "NULL iov_base: right after the previous value");
	check_at(&v[2], a + len_a + len_b, "", 0,
		 "an empty value: at the current position, length 0");
	gvt_entry_error(&v[3], a + len_a + len_b, ENOENT,
			"per-entry error: {current position, 0}, ENOENT");
	check_at(&v[4], a + len_a + len_b, want_nlink, len_nlink,
		 "after an error the position has not moved");
	check_at(&v[5], c, want_b, len_b,
		 "a new iov_base starts a new current buffer");
	check_at(&v[6], c + len_b, want_a, len_a, "NULL continues that one");
	check_at(&v[7], c + len_b + len_a, want_a, len_a,
		 "NULL iov_base with a length: still continues (length ignored)");
}

static void test_no_buffer(void)
{
	char a[64];
	struct name_val v[] = {
		{ .name = "data:a", .value_in = { NULL, sizeof(a) } },
		{ .name = ":b" },
		{ .name = "data:a", .value_in = { a, sizeof(a) } },
	};
	int ret = run(v, 3);

	tap_is_long(ret, 3, "no current buffer: the call goes on");
	gvt_entry_error(&v[0], NULL, EINVAL,
			"first entry with NULL iov_base: EINVAL, value_out {NULL, 0}");
	gvt_entry_error(&v[1], NULL, EINVAL,
			"still no current buffer: EINVAL again");
	check_at(&v[2], a, want_a, len_a, "then a buffer: the value lands");

	v[0] = (struct name_val){ .name = (const char *)1 };
	v[1] = (struct name_val){ .name = "data:a",
				  .value_in = { a, sizeof(a) } };
	ret = run(v, 2);
	tap_is_long(ret, 2, "no buffer and an unreadable name: handled");
	gvt_entry_error(&v[0], NULL, EINVAL,
			"the missing buffer is found before the bad name");
	v[0] = (struct name_val){ .name = "stat:size" };
	v[1] = (struct name_val){ .name = ":nlink:a",
				  .value_in = { a, sizeof(a) } };
	ret = run(v, 2);
	check_at(&v[1], a, want_nlink, len_nlink,
		 "an entry without a buffer still gives its prefix to ':'");
}

static void test_overflow(void)
{
	char a[256], d[64];
	struct name_val v[5];
	int ret;

	/* len_a + len_b + 1 bytes: both fit, strictly */
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, len_a + len_b + 1 } };
	v[1] = (struct name_val){ .name = "data:b" };
	ret = run(v, 2);
	tap_is_long(ret, 2, "two values in len_a + len_b + 1 bytes: both fit");
	check_at(&v[1], a + len_a, want_b, len_b, "the second one too");

	/* exactly len_a + len_b: the second would fill it: EOVERFLOW */
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, len_a + len_b } };
	v[1] = (struct name_val){ .name = "data:b" };
	v[2] = (struct name_val){ .name = "data:a" };
	v[3] = (struct name_val){ .name = "data:b",
				  .value_in = { d, sizeof(d) } };
	gvt_poison(d, sizeof(d));
	ret = run(v, 4);
	tap_is_long(ret, 1, "exact fit: returns the index of the entry that overflowed");
	check_at(&v[0], a, want_a, len_a, "the entry before it is filled");
	gvt_entry_error(&v[1], a + len_a, EOVERFLOW,
			"exact fit: EOVERFLOW, value_out {current position, 0}");
	tap_ok(untouched(&v[2]) && untouched(&v[3]),
	       "entries after the overflow: value_out and error untouched");
	tap_ok(gvt_poisoned(d, sizeof(d)),
	       "entries after the overflow: their own buffers untouched");

	v[0] = (struct name_val){ .name = "data:a", .value_in = { a, len_a } };
	v[1] = (struct name_val){ .name = "data:a" };
	ret = run(v, 2);
	tap_is_long(ret, 0, "first entry exactly as long as its buffer: returns 0");
	gvt_entry_error(&v[0], a, EOVERFLOW, "... and gets EOVERFLOW");
	tap_ok(untouched(&v[1]), "... and the next entry is untouched");

	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, len_a - 1 } };
	v[1] = (struct name_val){ .name = "data:a",
				  .value_in = { a, sizeof(a) } };
	ret = run(v, 2);
	tap_is_long(ret, 0, "a value longer than its buffer: returns 0");

	v[0] = (struct name_val){ .name = "data:empty", .value_in = { a, 0 } };
	ret = run(v, 1);
	tap_is_long(ret, 0, "an empty value into 0 bytes of room: overflows");
	gvt_entry_error(&v[0], a, EOVERFLOW, "... with EOVERFLOW");
	v[0] = (struct name_val){ .name = "data:empty", .value_in = { a, 1 } };
	ret = run(v, 1);
	tap_is_long(ret, 1, "an empty value into 1 byte of room: fits");
	check_at(&v[0], a, "", 0, "... value_out {buf, 0}, error 0");
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, len_a + 1 } };
	v[1] = (struct name_val){ .name = "data:empty" };
	ret = run(v, 2);
	tap_is_long(ret, 2, "an empty value into the 1 byte left: fits");

	/* a per-entry error needs no room */
	v[0] = (struct name_val){ .name = "data:missing",
				  .value_in = { a, 0 } };
	v[1] = (struct name_val){ .name = "bogus" };
	v[2] = (struct name_val){ .name = "data:a" };
	v[3] = (struct name_val){ .name = "data:b" };
	ret = run(v, 4);
	tap_is_long(ret, 2, "errors in a 0-byte buffer do not overflow; a value does");
	gvt_entry_error(&v[0], a, ENOENT, "ENOENT in no room");
	gvt_entry_error(&v[1], a, ENOENT, "unknown group in no room");
	gvt_entry_error(&v[2], a, EOVERFLOW, "then EOVERFLOW");
	tap_ok(untouched(&v[3]), "and the last entry untouched");

	/* the overflowing entry may be the last one */
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, sizeof(a) } };
	v[1] = (struct name_val){ .name = "data:b", .value_in = { d, 1 } };
	ret = run(v, 2);
	tap_is_long(ret, 1, "overflow in the last entry: returns num - 1");

	/* iov_len far larger than the memory: small values still land */
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { a, SIZE_MAX - (uintptr_t)a } };
	v[1] = (struct name_val){ .name = "data:b" };
	ret = run(v, 2);
	tap_is_long(ret, 2, "iov_len up to the end of the address space");
	check_at(&v[1], a + len_a, want_b, len_b, "... values land as usual");
}

/* Values that are not file contents overflow the same way. */
static void test_overflow_kinds(void)
{
	static const char *const names[] = {
		"", "stat", "fs", "stat:ino", "fs:type", "dir:sub", "data:link",
		"xattr:user.k", "xattr", "data:big",
	};
	static char buf[BIG_LEN + 16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct name_val v[2];
		size_t len;
		int ret;

		v[0] = (struct name_val){ .name = gvt_xname(names[i]),
					  .value_in = { buf, sizeof(buf) } };
		if (run(v, 1) != 1 || v[0].error) {
			tap_ok(false, "\"%s\": a value to measure", names[i]);
			continue;
		}
		len = v[0].value_out.iov_len;
		v[0].value_in.iov_len = len;
		v[1] = (struct name_val){ .name = "data:a" };
		ret = run(v, 2);
		tap_ok(ret == 0 && v[0].error == EOVERFLOW && untouched(&v[1]),
		       "\"%s\" (%zu bytes) in exactly %zu bytes: EOVERFLOW, stop",
		       names[i], len, len);
		v[0].value_in.iov_len = len + 1;
		ret = run(v, 1);
		tap_ok(ret == 1 && v[0].error == 0 &&
		       v[0].value_out.iov_len == len,
		       "\"%s\" in %zu bytes: fits", names[i], len + 1);
	}
}

/* Names that cannot be read cost their entry EFAULT; the walk goes on. */
static void test_bad_names(void)
{
	char a[256];
	char *none = gvt_pages(1, PROT_NONE);
	/* a good name whose NUL is the last readable byte */
	char *edge = gvt_edge_string("data:b", 6);
	/* a name with no NUL before an inaccessible page */
	char *unterminated = gvt_edge_string("data:a", 6);
	struct name_val v[] = {
		{ .name = "data:a", .value_in = { a, sizeof(a) } },
		{ .name = NULL },
		{ .name = (const char *)1 },
		{ .name = none },
		{ .name = unterminated },
		{ .name = ":a" },
		{ .name = edge },
		{ .name = "data:a" },
	};
	int ret;

	unterminated[6] = 'a';
	ret = run(v, 8);
	tap_is_long(ret, 8, "unreadable names: the walk goes on");
	gvt_entry_error(&v[1], a + len_a, EFAULT, "NULL name: EFAULT");
	gvt_entry_error(&v[2], a + len_a, EFAULT, "name (char *)1: EFAULT");
	gvt_entry_error(&v[3], a + len_a, EFAULT,
			"name in a PROT_NONE page: EFAULT");
	gvt_entry_error(&v[4], a + len_a, EFAULT,
			"name running into a PROT_NONE page: EFAULT");
	gvt_entry_error(&v[5], a + len_a, EINVAL,
			"shorthand after an unreadable name: EINVAL");
	check_at(&v[6], a + len_a, want_b, len_b,
		 "a name ending right before a PROT_NONE page is read");
	check_at(&v[7], a + len_a + len_b, want_a, len_a,
		 "and the walk goes on after it");
	munmap(none, GVT_PAGE);
}

/*
 * Value buffers that cannot be written: EFAULT for that entry, the
 * position does not move, later values still land.
 */
static void test_bad_buffers(int prot, const char *what)
{
	char a[256];
	char *page = gvt_pages(1, prot);
	char *edge = gvt_edge_buffer(len_a + 2, prot);
	struct name_val v[12];
	int ret;

	v[0] = (struct name_val){ .name = "stat:nlink:a",
				  .value_in = { page, 64 } };
	v[1] = (struct name_val){ .name = "data:a" };
	v[2] = (struct name_val){ .name = "data:empty" };
	v[3] = (struct name_val){ .name = "data:a", .value_in = { a, sizeof(a) } };
	v[4] = (struct name_val){ .name = gvt_xname("xattr:user.k"),
				  .value_in = { page, 64 } };
	v[5] = (struct name_val){ .name = "dir:sub" };
	v[6] = (struct name_val){ .name = "data:big",
				  .value_in = { page, BIG_LEN + 1 } };
	v[7] = (struct name_val){ .name = "data:b",
				  .value_in = { (void *)1, 64 } };
	v[8] = (struct name_val){ .name = "data:b" };
	ret = run(v, 9);
	tap_is_long(ret, 9, "%s buffers: every entry handled", what);
	gvt_entry_error(&v[0], page, EFAULT, "%s: a number: EFAULT", what);
	gvt_entry_error(&v[1], page, EFAULT,
			"%s: file contents at the same position: EFAULT", what);
	check_at(&v[2], page, "", 0, "%s: an empty value writes nothing: fine",
		 what);
	check_at(&v[3], a, want_a, len_a,
		 "a good buffer after a bad one works");
	gvt_entry_error(&v[4], page, EFAULT, "%s: an xattr: EFAULT", what);
	gvt_entry_error(&v[5], page, EFAULT, "%s: a listing: EFAULT", what);
	gvt_entry_error(&v[6], page, EFAULT,
			"%s: a file longer than the staging chunk: EFAULT", what);
	gvt_entry_error(&v[7], (void *)1, EFAULT,
			"buffer (void *)1: EFAULT at {1, 0}");
	gvt_entry_error(&v[8], (void *)1, EFAULT, "... also when continued");

	/* len_a + 2 good bytes, then the bad page */
	v[0] = (struct name_val){ .name = "data:a",
				  .value_in = { edge, 200 } };
	v[1] = (struct name_val){ .name = "data:b" };
	v[2] = (struct name_val){ .name = "stat:nlink:a" };
	v[3] = (struct name_val){ .name = "data:a" };
	v[4] = (struct name_val){ .name = "data:empty" };
	v[5] = (struct name_val){ .name = gvt_xname("xattr:user.k") };
	v[6] = (struct name_val){ .name = "dir:sub" };
	v[7] = (struct name_val){ .name = "stat:nlink:a" };
	ret = run(v, 8);
	tap_is_long(ret, 8, "buffer running into a %s page: all handled", what);
	check_at(&v[0], edge, want_a, len_a,
		 "%s: the first value fits before the page", what);
	gvt_entry_error(&v[1], edge + len_a, EFAULT,
			"%s: a value crossing into the page: EFAULT", what);
	check_at(&v[2], edge + len_a, want_nlink, len_nlink,
		 "%s: a shorter value after it lands where that one would have",
		 what);
	gvt_entry_error(&v[3], edge + len_a + len_nlink, EFAULT,
			"%s: crossing again: EFAULT", what);
	check_at(&v[4], edge + len_a + len_nlink, "", 0,
		 "%s: an empty value at the position: fine", what);
	gvt_entry_error(&v[5], edge + len_a + len_nlink, EFAULT,
			"%s: an xattr crossing the page: EFAULT", what);
	gvt_entry_error(&v[6], edge + len_a + len_nlink, EFAULT,
			"%s: a listing crossing the page: EFAULT", what);
	check_at(&v[7], edge + len_a + len_nlink, want_nlink, len_nlink,
		 "%s: and still a short value lands", what);

	/* a file bigger than any staging: written by parts, or not at all */
	edge = gvt_edge_buffer(100, prot);
	v[0] = (struct name_val){ .name = "data:big",
				  .value_in = { edge, BIG_LEN + 1 } };
	v[1] = (struct name_val){ .name = "stat:nlink:a" };
	ret = run(v, 2);
	tap_is_long(ret, 2, "%s: big file into a buffer ending in such a page",
		    what);
	gvt_entry_error(&v[0], edge, EFAULT, "%s: ... EFAULT", what);
	check_at(&v[1], edge, want_nlink, len_nlink,
		 "%s: ... and the next value lands at the buffer start", what);
	munmap(page, GVT_PAGE);
}

/* A bad buffer in the middle of good shared ones. */
static void test_mixed_buffers(void)
{
	char a[128], c[128];
	char *ro = gvt_pages(1, PROT_READ);
	struct name_val v[] = {
		{ .name = "data:a", .value_in = { a, sizeof(a) } },
		{ .name = "data:b" },
		{ .name = "data:a", .value_in = { ro, 128 } },
		{ .name = ":b" },
		{ .name = "data:b", .value_in = { c, sizeof(c) } },
		{ .name = "stat:nlink:a" },
		{ .name = "data:a", .value_in = { a + len_a + len_b, 64 } },
		{ .name = ":b" },
	};
	int ret = run(v, 8);

	tap_is_long(ret, 8, "good, bad, good buffers: all handled");
	check_at(&v[0], a, want_a, len_a, "good buffer A: first value");
	check_at(&v[1], a + len_a, want_b, len_b, "good buffer A: second value");
	gvt_entry_error(&v[2], ro, EFAULT, "read-only buffer: EFAULT");
	gvt_entry_error(&v[3], ro, EFAULT, "continued read-only buffer: EFAULT");
	check_at(&v[4], c, want_b, len_b, "good buffer C: first value");
	check_at(&v[5], c + len_b, want_nlink, len_nlink,
		 "good buffer C: second value");
	check_at(&v[6], a + len_a + len_b, want_a, len_a,
		 "a buffer inside A, after A's values");
	check_at(&v[7], a + 2 * len_a + len_b, want_b, len_b,
		 "and its continuation");
	tap_ok(!memcmp(a, want_a, len_a) && !memcmp(a + len_a, want_b, len_b),
	       "A's first values are intact at the end of the call");
	munmap(ro, GVT_PAGE);
}

/*
 * Thousands of entries in one buffer, with bad buffers scattered among
 * them: every good value lands where it should.
 */
static void test_long_vector(void)
{
	const size_t n = 5000;
	struct name_val *v = calloc(n, sizeof(*v));
	char *buf = malloc(n * 16), *ro = gvt_pages(1, PROT_READ);
	size_t pos = 0, bad = 0, checked = 0;
	char *cur = buf;
	int ret;

	if (!v || !buf)
		tap_bail("malloc");
	for (size_t i = 0; i < n; i++) {
		bool is_bad = i % 1000 == 999;

		v[i].name = i % 3 ? "data:a" : "stat:nlink:a";
		if (i == 0 || i % 1000 == 0) {
			/* the good buffer, after what is already there */
			v[i].value_in.iov_base = buf + pos;
			v[i].value_in.iov_len = n * 16 - pos;
		} else if (is_bad) {
			v[i].value_in.iov_base = ro;
			v[i].value_in.iov_len = 64;
		}
		if (!is_bad)
			pos += i % 3 ? len_a : len_nlink;
	}
	ret = run(v, n);
	tap_is_long(ret, n, "%zu entries: all handled", n);
	for (size_t i = 0; i < n; i++) {
		const char *want = i % 3 ? want_a : want_nlink;
		size_t len = i % 3 ? len_a : len_nlink;

		if (v[i].value_in.iov_base)
			cur = v[i].value_in.iov_base;
		if (cur == ro) {
			if (v[i].error != EFAULT ||
			    v[i].value_out.iov_base != ro)
				bad++;
			continue;
		}
		if (v[i].error || v[i].value_out.iov_base != cur ||
		    v[i].value_out.iov_len != len || memcmp(cur, want, len)) {
			if (!bad)
				tap_diag("entry %zu: error %u", i, v[i].error);
			bad++;
		}
		cur += len;
		checked++;
	}
	tap_ok(bad == 0 && checked == n - n / 1000,
	       "%zu good values where they belong, bad buffers EFAULT", checked);
	free(v);
	free(buf);
	munmap(ro, GVT_PAGE);
}

/* Files around the size of any staging chunk, in and just out of room. */
static void test_big_files(void)
{
	static const size_t sizes[] = {
		4095, 4096, 4097, 65535, 65536, 65537, 131072, BIG_LEN,
	};
	static char buf[BIG_LEN + 64];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t sz = sizes[i];
		char name[32];
		struct name_val v[3];
		int ret;

		snprintf(name, sizeof(name), "size%zu", sz);
		if (t_write_file(tree, name, want_big, sz, 0644))
			tap_bail("write %s", name);
		snprintf(name, sizeof(name), "data:size%zu", sz);
		v[0] = (struct name_val){ .name = "data:a",
					  .value_in = { buf, len_a + sz + 1 } };
		v[1] = (struct name_val){ .name = name };
		v[2] = (struct name_val){ .name = "data:empty" };
		ret = run(v, 3);
		tap_ok(ret == 3 && v[1].error == 0 &&
		       v[1].value_out.iov_base == buf + len_a &&
		       v[1].value_out.iov_len == sz &&
		       !memcmp(buf + len_a, want_big, sz) &&
		       v[2].error == 0 && v[2].value_out.iov_len == 0 &&
		       v[2].value_out.iov_base == buf + len_a + sz,
		       "%zu-byte file after another value, 1 byte to spare: "
		       "fits, and an empty value in the last byte", sz);
		v[0].value_in.iov_len = len_a + sz;
		ret = run(v, 3);
		tap_ok(ret == 1 && v[1].error == EOVERFLOW &&
		       v[1].value_out.iov_base == buf + len_a &&
		       !memcmp(buf, want_a, len_a) && untouched(&v[2]),
		       "%zu-byte file in exactly %zu bytes: EOVERFLOW", sz, sz);
	}
}

int main(void)
{
	static char big[BIG_LEN];

	treepath = gvt_scratch_tmpfs("walk", "mode=0755");
	tree = open(treepath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	t_fill_pattern(big, sizeof(big), 3);
	if (tree < 0 || t_write_file(tree, "a", "alpha", 5, 0644) ||
	    t_write_file(tree, "b", "bravo!", 6, 0644) ||
	    t_write_file(tree, "empty", "", 0, 0644) ||
	    t_write_file(tree, "big", big, sizeof(big), 0644) ||
	    mkdirat(tree, "sub", 0755) ||
	    t_write_file(tree, "sub/one", "", 0, 0644) ||
	    t_write_file(tree, "sub/two", "", 0, 0644) ||
	    symlinkat("a/target/of/a/link", tree, "link"))
		tap_bail("setup: %s", strerror(errno));
	if (gvt_setxattr(treepath, "user.k", "xattr value", 11))
		tap_bail("setxattr: %s", strerror(errno));
	len_a = gvt_want_file(tree, "a", want_a, sizeof(want_a));
	len_b = gvt_want_file(tree, "b", want_b, sizeof(want_b));
	len_nlink = gvt_want_stat(tree, "a", 0, "nlink", want_nlink,
				  sizeof(want_nlink));
	if (gvt_want_file(tree, "big", want_big, BIG_LEN) != BIG_LEN)
		tap_bail("read big");

	test_shared_buffer();
	test_no_buffer();
	test_overflow();
	test_overflow_kinds();
	test_bad_names();
	test_bad_buffers(PROT_READ, "PROT_READ");
	test_bad_buffers(PROT_NONE, "PROT_NONE");
	test_mixed_buffers();
	test_long_vector();
	test_big_files();
	close(tree);
	return tap_done();
}
