// SPDX-License-Identifier: MIT
/*
 * getvalues_alloc.c - getvalues_alloc() grows its buffer until every value
 * fits: values against read(2) and stat(2), a value larger than the limit,
 * a listing larger than the first buffer, the caller's vector written only
 * where it must be, and the failures of the call itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"

#define BIG	((3u << 20) + 5)	/* far past the first buffer */

static int dfd;
static char *big;

static void test_values(void)
{
	struct name_val vec[4] = {
		{ .name = "data:small" },
		{ .name = ":big" },
		{ .name = "stat:size:big" },
		{ .name = "data:missing" },
	};
	char size[32];
	void *buf = (void *)1;
	int n;

	n = getvalues_alloc(dfd, "", vec, 4, AT_EMPTY_PATH, 0, &buf);
	tap_is_long(n, 4, "a 3 MiB value among small ones: all four handled");
	tap_ok(buf != NULL && vec[0].value_out.iov_base == buf,
	       "the values are in the buffer it returns");
	tap_is_mem(vec[0].value_out.iov_base, vec[0].value_out.iov_len,
		   "tiny\n", 5, "data:small as read(2) has it");
	tap_is_mem(vec[1].value_out.iov_base, vec[1].value_out.iov_len,
		   big, BIG, ":big (shorthand) whole, %u bytes", BIG);
	snprintf(size, sizeof(size), "%u", BIG);
	tap_is_mem(vec[2].value_out.iov_base, vec[2].value_out.iov_len, size,
		   strlen(size), "stat:size:big as stat(2) has it");
	tap_is_long(vec[3].error, ENOENT, "data:missing: ENOENT, the others "
		    "still there");
	tap_ok(!vec[1].value_in.iov_base && !vec[0].value_in.iov_base &&
	       !vec[0].value_in.iov_len, "value_in is never written");
	free(buf);
}

static void test_limit(void)
{
	struct name_val vec[3] = {
		{ .name = "data:small" },
		{ .name = "data:big" },
		{ .name = "stat:size" },
	};
	void *buf = NULL;
	int n;

	n = getvalues_alloc(dfd, "", vec, 3, AT_EMPTY_PATH, 1u << 20, &buf);
	tap_is_long(n, 1, "a value over max_size: the index of that entry");
	tap_is_long(vec[1].error, EOVERFLOW, "it gets EOVERFLOW");
	tap_is_mem(vec[0].value_out.iov_base, vec[0].value_out.iov_len,
		   "tiny\n", 5, "the entry before it is filled in");
	tap_ok(buf != NULL, "the buffer is returned to be freed");
	tap_ok(vec[2].error == 0 && vec[2].value_out.iov_base == NULL,
	       "the entry after it is untouched");
	free(buf);
}

/* A list far longer than the first buffer: one call at the end. */
static void test_listing(void)
{
	struct name_val vec[1] = { { .name = "dir:many" } };
	void *buf = NULL;
	size_t items = 0;
	int n;

	n = getvalues_alloc(dfd, "", vec, 1, AT_EMPTY_PATH, 0, &buf);
	tap_is_long(n, 1, "dir:many: handled");
	for (size_t i = 0; i < vec[0].value_out.iov_len; i++)
		items += ((char *)vec[0].value_out.iov_base)[i] == 0;
	tap_is_long(items, 5000, "dir:many: all 5000 names");
	free(buf);
}

static void test_errors(void)
{
	struct name_val vec[1] = { { .name = "stat:size" } };
	struct name_val *ro;
	void *buf = (void *)1;
	int n;

	errno = 0;
	n = getvalues_alloc(AT_FDCWD, "/nonexistent", vec, 1, 0, 0, &buf);
	tap_ok(n == -1 && errno == ENOENT && buf == NULL,
	       "$ORIGIN not found: -1, ENOENT, *bufp NULL");
	errno = 0;
	n = getvalues_alloc(AT_FDCWD, "/", vec, 1, 0, 0, NULL);
	tap_is_errno(n, errno, -1, EINVAL, "NULL bufp: EINVAL");
	errno = 0;
	n = getvalues_alloc(AT_FDCWD, "/", vec, 1, 0xdead0000, 0, &buf);
	tap_is_errno(n, errno, -1, EINVAL, "bad flags: EINVAL, as getvalues()");
	errno = 0;
	n = getvalues_alloc(AT_FDCWD, "/", (struct name_val *)8, 1, 0, 0,
			    &buf);
	tap_is_errno(n, errno, -1, EFAULT, "unreadable vec: EFAULT, no crash");
	errno = 0;
	n = getvalues_alloc(AT_FDCWD, "/", vec, 1, 0, 0, (void **)8);
	tap_is_errno(n, errno, -1, EFAULT, "unwritable bufp: EFAULT, no crash");
	n = getvalues_alloc(AT_FDCWD, "/", vec, 0, 0, 0, &buf);
	tap_ok(n == 0 && buf == NULL, "num 0: 0, no buffer");

	/* a read-only vector: readable, but the results cannot go back */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	ro->name = "stat:size";
	mprotect(ro, 4096, PROT_READ);
	errno = 0;
	buf = (void *)1;
	n = getvalues_alloc(AT_FDCWD, "/", ro, 1, 0, 0, &buf);
	tap_ok(n == -1 && errno == EFAULT && buf == NULL,
	       "read-only vec: EFAULT, no buffer to free");
	munmap(ro, 4096);
}

int main(void)
{
	dfd = t_tmpdir_fd("alloc");
	big = malloc(BIG);
	if (!big)
		tap_bail("out of memory");
	t_fill_pattern(big, BIG, 3);
	if (t_write_file(dfd, "small", "tiny\n", 5, 0644) ||
	    t_write_file(dfd, "big", big, BIG, 0644) ||
	    mkdirat(dfd, "many", 0755))
		tap_bail("scratch files: %s", strerror(errno));
	for (int i = 0; i < 5000; i++) {
		char name[64];

		snprintf(name, sizeof(name), "many/a-rather-long-name-%05d", i);
		if (t_write_file(dfd, name, "", 0, 0644))
			tap_bail("%s: %s", name, strerror(errno));
	}

	test_values();
	test_limit();
	test_listing();
	test_errors();
	free(big);
	return tap_done();
}
