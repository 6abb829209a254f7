/* SPDX-License-Identifier: MIT */
/*
 * backends.h - checks run on each backend: the backends usable here,
 * one-entry getvalues() calls and words for what came back, and a set of
 * small files with known contents read in one call.
 */
#ifndef GV_TEST_BACKENDS_H
#define GV_TEST_BACKENDS_H

#include <stdbool.h>
#include <stddef.h>

#include <getvalues.h>

#include "cost.h"
#include "internal.h"

struct t_backend {
	enum gv_backend_id id;
	const char *name;
};

/*
 * The backends to run on: sync, uring and auto, and native where the
 * kernel has it. Those not usable here are skipped with @nchecks skips
 * each, and left out of @out. Returns how many are in @out.
 */
int t_backends(struct t_backend out[4], int nchecks);

/*
 * The same, but only those on which the library itself makes the call
 * (sync, uring, and auto where the kernel has no native calls): the others
 * are skipped with @nchecks skips each, saying @why the check needs the
 * library's own code.
 */
int t_lib_backends(struct t_backend out[4], int nchecks, const char *why);

/* What one entry got, for a diagnostic: "error ENOENT", "12 bytes". */
const char *t_got(int ret, int err, const struct name_val *e);

/* getvalues() of one @name into @buf; fills *@e and *@err, returns ret. */
int t_get1(int dfd, const char *path, unsigned int flags, const char *name,
	   void *buf, size_t size, struct name_val *e, int *err);

/* The entry holds exactly @want. */
bool t_is(int ret, const struct name_val *e, const void *want, size_t len);

#define T_FILES		12	/* per call: more than auto's prior threshold */

struct t_files {
	int dir;
	char path[4096];
	char content[T_FILES][64];
	size_t len[T_FILES];
};

/*
 * T_FILES files f0, f1, ... in a fresh directory tagged @tag, each holding
 * "@tag file N of DIRECTORY".
 */
void t_files_make(struct t_files *f, const char *tag);
/* Drop the files' pages, so that auto finds them cold (t_evict()). */
bool t_files_evict(const struct t_files *f);
/*
 * One getvalues() of every file plus a missing one; 0 when every value is
 * right, else -1 with errno from the call, or EBADMSG for a wrong value.
 */
int t_files_get(const struct t_files *f);
/* readfile() of one file and of a missing one: 0, or -1 with errno. */
int t_files_readfile(const struct t_files *f);

/* Mappings of io_uring rings in this process. */
int t_ring_maps(void);

/*
 * Set up a program that tests io_uring: auto chooses between sync and
 * uring only, even where native is there, and by its priors alone (no
 * measurement, no exploration: cost.h); every check wants io_uring
 * (else all are skipped); *@f gets T_FILES files of its own.
 */
void t_backend_start(struct t_files *f);

#endif /* GV_TEST_BACKENDS_H */
