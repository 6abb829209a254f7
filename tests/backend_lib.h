/* SPDX-License-Identifier: MIT */
/*
 * backend_lib.h - what the backend tests share: a directory of small files
 * with known contents, getvalues() and readfile() calls that say whether
 * every value came back right, and a count of this process's io_uring rings.
 */
#ifndef GV_TEST_BACKEND_LIB_H
#define GV_TEST_BACKEND_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FILES		12	/* per call: more than auto's threshold */

struct files {
	int dir;
	char path[4096];
	char content[FILES][64];
	size_t len[FILES];
};

/*
 * FILES files f0, f1, ... in a fresh directory tagged @tag, each holding
 * "@tag file N of DIRECTORY" (backend.c's helper rebuilds them so).
 */
static inline void make_files(struct files *f, const char *tag)
{
	snprintf(f->path, sizeof(f->path), "%s", t_tmpdir(tag));
	f->dir = open(f->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		f->len[i] = snprintf(f->content[i], sizeof(f->content[i]),
				     "%s file %d of %s", tag, i, f->path);
		if (t_write_file(f->dir, name, f->content[i], f->len[i], 0644))
			tap_bail("write %s: %s", name, strerror(errno));
	}
}

/* Drop the files' pages, so that auto finds them cold (t_evict()). */
static inline bool evict(const struct files *f)
{
	static const char *const names[FILES] = {
		"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
		"f10", "f11",
	};

	return t_evict(f->dir, names, FILES);
}

/*
 * One getvalues() of every file plus a missing one; 0 when every value is
 * right, else -1 with errno from the call, or EBADMSG for a wrong value.
 */
static inline int read_all(const struct files *f)
{
	static const char *const names[FILES + 1] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11", ":missing",
	};
	struct name_val vec[FILES + 1];
	char buf[FILES * 64 + 16];
	int r;

	for (int i = 0; i <= FILES; i++)
		vec[i] = (struct name_val){ .name = names[i] };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(f->dir, "", vec, FILES + 1, AT_EMPTY_PATH);
	if (r < 0)
		return -1;
	for (int i = 0; i < FILES; i++)
		if (vec[i].error || vec[i].value_out.iov_len != f->len[i] ||
		    memcmp(vec[i].value_out.iov_base, f->content[i],
			   f->len[i])) {
			errno = EBADMSG;
			return -1;
		}
	if (r != FILES + 1 || vec[FILES].error != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/* readfile() of one file and of a missing one: 0, or -1 with errno. */
static inline int readfile_two(const struct files *f)
{
	char buf[64];
	ssize_t n = readfile(f->dir, "f3", buf, sizeof(buf), 0);

	if (n < 0)
		return -1;
	if ((size_t)n != f->len[3] || memcmp(buf, f->content[3], n) ||
	    readfile(f->dir, "missing", buf, sizeof(buf), 0) != -1 ||
	    errno != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/* Mappings of io_uring rings in this process. */
static inline int ring_maps(void)
{
	return t_count_maps("io_uring");
}

/*
 * Set up a test program: auto chooses between sync and uring only, even
 * where native is there; every check wants io_uring (else all are
 * skipped); *@f gets FILES files of its own.
 */
static inline void backend_start(struct files *f)
{
	gv_backend_auto_native(false);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled, filtered, or closing direct descriptors "
			     "late as Linux 6.1 does)");
	make_files(f, "main");
}

#endif /* GV_TEST_BACKEND_LIB_H */
