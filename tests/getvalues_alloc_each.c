// SPDX-License-Identifier: MIT
/*
 * getvalues_alloc_each.c - getvalues_alloc_each() handles every entry: a
 * value too large for max_size fails alone (EOVERFLOW) and the next entry,
 * shorthand or not, goes on with its prefix; values that outgrow the first
 * buffer go on in a larger one without losing those before them. Each
 * case runs on every backend (native skips where the kernel lacks
 * getvalues(2)) and through the copy of the vector that a backend taking
 * whole calls gets; each value is compared with read(2) and stat(2).
 *
 * Written for issue 24: the Python module restarted after an overflow at
 * a ":REST" that had lost its prefix.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/gvtest.h"
#include "lib/tap.h"
#include "lib/util.h"

#define BIG_SIZE	(300u << 20)	/* sparse: no disk, no memory */
#define MID_SIZE	(200u << 10)	/* past the first buffer */
#define MID2_SIZE	(700u << 10)
#define MB		(1u << 20)

static int dfd;
static const char *mode;	/* what the checks run through, for messages */

enum kind { W_END, W_FILE, W_STAT, W_ERR };

struct want {
	const char *name;
	enum kind kind;
	const char *a, *b;	/* W_FILE: file a; W_STAT: field a of b */
	int err;
};

struct step {
	const char *desc;
	size_t max_size;
	struct want e[8];
};

#define FILE_(n, f)		{ .name = n, .kind = W_FILE, .a = f }
#define STAT_(n, f, p)		{ .name = n, .kind = W_STAT, .a = f, .b = p }
#define ERR_(n, e)		{ .name = n, .kind = W_ERR, .err = e }

static const struct step steps[] = {
	{ "issue 24: an overflow, then shorthand", MB, {
		ERR_("data:big", EOVERFLOW),
		FILE_(":small", "small"),
		STAT_("stat:size", "size", ""),
		STAT_(":mode", "mode", ""),
	} },
	{ "overflows in the middle of shorthand", MB, {
		FILE_("data:small", "small"),
		ERR_(":big", EOVERFLOW),
		FILE_(":small", "small"),
		ERR_(":big", EOVERFLOW),
		FILE_(":mid", "mid"),
		STAT_("stat:size:big", "size", "big"),
		ERR_("data:big", EOVERFLOW),
		STAT_("stat:ino:mid", "ino", "mid"),
	} },
	{ "the last entry overflows", MB, {
		FILE_("data:small", "small"),
		STAT_("stat:size", "size", ""),
		ERR_("data:big", EOVERFLOW),
	} },
	{ "every entry overflows", 512u << 10, {
		ERR_("data:big", EOVERFLOW),
		ERR_(":big", EOVERFLOW),
		ERR_("data:mid2", EOVERFLOW),
	} },
	{ "values that outgrow the first buffer, in order", 0, {
		FILE_("data:small", "small"),
		FILE_(":mid", "mid"),
		STAT_("stat:size:mid", "size", "mid"),
		FILE_("data:mid2", "mid2"),
		STAT_("stat:mode:mid2", "mode", "mid2"),
		FILE_("data:mid", "mid"),
		FILE_(":small", "small"),
	} },
	{ "max_size 4: a 3-byte value fits, a 4-byte one does not", 4, {
		FILE_("data:small", "small"),
		ERR_("stat:mode", EOVERFLOW),
		FILE_("data:small", "small"),
		ERR_("stat:mode:small", EOVERFLOW),
		FILE_("data:empty", "empty"),
	} },
	{ "max_size 1: only empty values", 1, {
		ERR_("data:small", EOVERFLOW),
		FILE_(":empty", "empty"),
		ERR_("stat:size", EOVERFLOW),
		ERR_("data:missing", ENOENT),
	} },
	{ "per-entry errors around an overflow", MB, {
		ERR_("data:missing", ENOENT),
		ERR_(":big", EOVERFLOW),
		ERR_(":size", ENOENT),
		ERR_("stat:bogus", ENOENT),
		ERR_(":size:missing", ENOENT),
		ERR_("data:big", EOVERFLOW),
		STAT_("stat:size", "size", ""),
	} },
};

/* What a name of @w gives, by read(2) or stat(2): its length, or -1. */
static ssize_t want_value(const struct want *w, char *buf, size_t size)
{
	if (w->kind == W_FILE)
		return t_orc_read(dfd, w->a, buf, size);
	return gvt_want_stat(dfd, w->b, 0, w->a, buf, size);
}

/* Entry @e against @w; its place must lie in [@lo, @hi]. */
static bool check_entry(const struct name_val *e, const struct want *w,
			const char *lo, const char *hi, const char *desc)
{
	static char want[MID2_SIZE + 1];
	const char *at = e->value_out.iov_base;
	ssize_t n;

	if (!at || at < lo || at > hi)
		return tap_ok(false, "%s: %s: %s: value_out %p outside the "
			      "buffer", mode, desc, w->name, (void *)at);
	if (w->kind == W_ERR)
		return tap_ok(e->error == (uint32_t)w->err &&
			      !e->value_out.iov_len, "%s: %s: %s: %s (got %s)",
			      mode, desc, w->name, strerror(w->err),
			      strerror(e->error));
	n = want_value(w, want, sizeof(want));
	if (n < 0)
		tap_bail("%s: %s", w->name, strerror(errno));
	if (e->error)
		return tap_ok(false, "%s: %s: %s: error %s", mode, desc,
			      w->name, strerror(e->error));
	return tap_is_mem(at, e->value_out.iov_len, want, n, "%s: %s: %s",
			  mode, desc, w->name);
}

static void run_step(const struct step *s)
{
	struct name_val vec[8];
	const char *prev_end = NULL;
	size_t n = 0;
	char *buf = (char *)1;
	int ret;

	for (; n < 8 && s->e[n].name; n++)
		/* value_in is ignored: garbage there must not matter */
		vec[n] = (struct name_val){
			.name = s->e[n].name,
			.value_in = { (void *)(uintptr_t)(n + 1), 5 },
			.error = 12345,
		};
	ret = getvalues_alloc_each(dfd, "", vec, n, AT_EMPTY_PATH,
				   s->max_size, (void **)&buf);
	if (!tap_is_long(ret, n, "%s: %s: all %zu entries handled", mode,
			 s->desc, n))
		return;
	for (size_t i = 0; i < n; i++) {
		const char *at = vec[i].value_out.iov_base;

		check_entry(&vec[i], &s->e[i], buf,
			    buf + malloc_usable_size(buf), s->desc);
		/* in order, one after the other, in the one buffer */
		if (prev_end && at != prev_end)
			tap_ok(false, "%s: %s: entry %zu at %+td from where "
			       "the one before ended", mode, s->desc, i,
			       at - prev_end);
		prev_end = at ? at + vec[i].value_out.iov_len : NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (vec[i].value_in.iov_base != (void *)(uintptr_t)(i + 1) ||
		    vec[i].value_in.iov_len != 5 ||
		    vec[i].name != s->e[i].name || vec[i].reserved)
			tap_ok(false, "%s: %s: entry %zu: name, value_in or "
			       "reserved written", mode, s->desc, i);
	free(buf);
}

/*
 * The call itself: a vector or *bufp that cannot be read or written gives
 * EFAULT without a crash or a leak, and *bufp is NULL whenever it can be
 * written; an unreadable name fails its entry alone.
 */
static void test_errors(void)
{
	struct name_val vec[4] = {
		{ .name = "data:big" },
		{ .name = NULL },	/* unreadable, set below */
		{ .name = ":small" },
		{ .name = "data:small" },
	};
	struct name_val *ro;
	void *buf = (void *)1;
	char *none = gvt_pages(1, PROT_NONE);
	int n;

	vec[1].name = none;
	n = getvalues_alloc_each(dfd, "", vec, 4, AT_EMPTY_PATH, MB, &buf);
	tap_ok(n == 4 && vec[0].error == EOVERFLOW && vec[1].error == EFAULT &&
	       vec[2].error == EINVAL && vec[3].error == 0 &&
	       vec[3].value_out.iov_len == 3, "%s: an unreadable name after "
	       "an overflow: EFAULT, then a shorthand without prefix EINVAL",
	       mode);
	free(buf);

	errno = 0;
	buf = (void *)1;
	n = getvalues_alloc_each(AT_FDCWD, "/nonexistent", vec + 3, 1, 0, 0,
				 &buf);
	tap_ok(n == -1 && errno == ENOENT && !buf,
	       "%s: $ORIGIN not found: -1, ENOENT, *bufp NULL", mode);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", vec + 3, 1, AT_EMPTY_PATH, 0, NULL);
	tap_is_errno(n, errno, -1, EINVAL, "%s: NULL bufp: EINVAL", mode);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", vec + 3, 1, 0x40000000, 0, &buf);
	tap_is_errno(n, errno, -1, EINVAL, "%s: unknown flags: EINVAL", mode);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", vec + 3, (size_t)INT_MAX + 1,
				 AT_EMPTY_PATH, 0, &buf);
	tap_is_errno(n, errno, -1, EINVAL, "%s: num over INT_MAX: EINVAL",
		     mode);
	errno = 0;
	buf = (void *)1;
	n = getvalues_alloc_each(dfd, "", (struct name_val *)8, 1,
				 AT_EMPTY_PATH, 0, &buf);
	tap_ok(n == -1 && errno == EFAULT && !buf,
	       "%s: unreadable vec: EFAULT, *bufp NULL", mode);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", vec + 3, 1, AT_EMPTY_PATH, 0,
				 (void **)none);
	tap_is_errno(n, errno, -1, EFAULT, "%s: unwritable bufp: EFAULT, no "
		     "crash (and no leak under ASan)", mode);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", vec, 2, AT_EMPTY_PATH, MB,
				 (void **)none);
	tap_is_errno(n, errno, -1, EFAULT, "%s: unwritable bufp after an "
		     "overflow: EFAULT", mode);

	/* readable, but the results cannot go back; a guard page after it */
	ro = gvt_pages(2, PROT_READ | PROT_WRITE);
	mprotect((char *)ro + GVT_PAGE, GVT_PAGE, PROT_NONE);
	ro[0] = (struct name_val){ .name = "data:big" };
	ro[1] = (struct name_val){ .name = ":small" };
	mprotect(ro, GVT_PAGE, PROT_READ);
	errno = 0;
	buf = (void *)1;
	n = getvalues_alloc_each(dfd, "", ro, 2, AT_EMPTY_PATH, MB, &buf);
	tap_ok(n == -1 && errno == EFAULT && !buf,
	       "%s: read-only vec: EFAULT, no buffer to free", mode);
	/* a vector one entry longer than its page */
	mprotect(ro, GVT_PAGE, PROT_READ | PROT_WRITE);
	errno = 0;
	n = getvalues_alloc_each(dfd, "", ro, GVT_PAGE / sizeof(*ro) + 1,
				 AT_EMPTY_PATH, MB, &buf);
	tap_ok(n == -1 && errno == EFAULT && !buf,
	       "%s: a vector that runs into an unmapped page: EFAULT", mode);
	ro[1].reserved = 1;
	errno = 0;
	n = getvalues_alloc_each(dfd, "", ro, 2, AT_EMPTY_PATH, MB, &buf);
	tap_ok(n == -1 && errno == EINVAL && !buf,
	       "%s: a reserved field not 0: EINVAL", mode);

	buf = (void *)1;
	n = getvalues_alloc_each(dfd, "", vec, 0, AT_EMPTY_PATH, 0, &buf);
	tap_ok(n == 0 && !buf, "%s: num 0: 0, *bufp NULL", mode);
	errno = 0;
	n = getvalues_alloc_each(AT_FDCWD, "/nonexistent", NULL, 0, 0, 0, &buf);
	tap_is_errno(n, errno, -1, ENOENT, "%s: num 0 still resolves $ORIGIN",
		     mode);
}

static void run_all(const char *what)
{
	mode = what;
	for (size_t i = 0; i < GV_ARRAY_SIZE(steps); i++)
		run_step(&steps[i]);
	test_errors();
}

/* Each backend, directly and through the copy of the vector. */
static void run_backend(enum gv_backend_id id, const char *name, int checks)
{
	char what[64];
	int err = gv_backend_usable(id);

	if (err) {
		tap_skip(2 * checks, "%s: %s", name, id == GV_BACKEND_NATIVE ?
			 "the kernel lacks getvalues(2)" :
			 "io_uring is not usable in this process");
		return;
	}
	gv_backend_force(id);
	snprintf(what, sizeof(what), "%s", name);
	run_all(what);
	gv_getvalues_test_copy(true);
	snprintf(what, sizeof(what), "%s, vector copied", name);
	run_all(what);
	gv_getvalues_test_copy(false);
}

/* The checks of one run_all(), counted once. */
static int count_checks(void)
{
	int n = 13;	/* test_errors() */

	for (size_t i = 0; i < GV_ARRAY_SIZE(steps); i++) {
		n++;
		for (size_t k = 0; k < 8 && steps[i].e[k].name; k++)
			n++;
	}
	return n;
}

int main(void)
{
	char *pattern = malloc(MID2_SIZE);
	int checks = count_checks();

	dfd = t_tmpdir_fd("alloc_each");
	if (!pattern)
		tap_bail("out of memory");
	t_fill_pattern(pattern, MID2_SIZE, 7);
	if (t_write_file(dfd, "small", "hi\n", 3, 0644) ||
	    t_write_file(dfd, "empty", "", 0, 0644) ||
	    t_write_file(dfd, "mid", pattern, MID_SIZE, 0644) ||
	    t_write_file(dfd, "mid2", pattern, MID2_SIZE, 0600) ||
	    t_write_file(dfd, "big", "", 0, 0644))
		tap_bail("scratch files: %s", strerror(errno));
	free(pattern);
	{
		int fd = openat(dfd, "big", O_WRONLY);

		if (fd < 0 || ftruncate(fd, BIG_SIZE))
			tap_bail("big: %s", strerror(errno));
		close(fd);
	}
	tap_plan(3 * 2 * checks);
	run_backend(GV_BACKEND_SYNC, "sync", checks);
	run_backend(GV_BACKEND_URING, "uring", checks);
	run_backend(GV_BACKEND_NATIVE, "native", checks);
	return tap_done();
}
