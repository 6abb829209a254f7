// SPDX-License-Identifier: MIT
/*
 * mem.c - mem rows: every mapped file of the system examined once.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* mem rows: the mapped files, each stat'ed once for the whole system. */

struct mapped {
	const char *path, *dir, *base;
	struct finfo fi;
	struct mapped *next;	/* of the same hash */
};

static struct mapped **mapped;
static size_t nmapped, mapped_cap;
static struct map mapped_by_hash;

static struct mapped *mapped_get(const char *path)
{
	uint64_t h = hash_str(path);
	struct mapped *m = map_get(&mapped_by_hash, h);

	for (; m; m = m->next)
		if (!strcmp(m->path, path))
			return m;
	m = salloc_aligned(sizeof(*m));
	*m = (struct mapped){ .path = path,
			      .next = map_get(&mapped_by_hash, h) };
	map_put(&mapped_by_hash, h, m);
	/* lsof stat()s the path as it is: relative ones from our cwd */
	m->base = strrchr(path, '/');
	if (!m->base) {
		m->dir = ".";
		m->base = path;
	} else {
		m->dir = m->base == path ? "/" : sdup_n(path, m->base - path);
		m->base++;
	}
	GROW(mapped, nmapped, mapped_cap);
	mapped[nmapped++] = m;
	return m;
}

static int cmp_mapped(const void *a, const void *b)
{
	const struct mapped *x = *(struct mapped *const *)a;
	const struct mapped *y = *(struct mapped *const *)b;

	return strcmp(x->dir, y->dir);
}

/* Stat @m as $ORIGIN: for a name too long to be a SUBPATH. */
static void stat_one(struct mapped *m)
{
	struct batch one = { 0 };
	size_t first;
	int err;

	stat_names(&one, "stat", "", &first);
	err = batch_run(&one, m->path);
	calls += one.calls;
	if (err)
		m->fi = (struct finfo){ .err = err };
	else
		stat_get(&one, first, &m->fi);
	batch_free(&one);
}

/*
 * One getvalues() call per directory holding mapped files, the files as
 * SUBPATHs of one component: a SUBPATH may not cross into another mount,
 * and mapped files live on many.
 */
static void stat_mapped(void)
{
	struct batch b = { 0 };
	size_t i = 0, *first = xrealloc(NULL, nmapped * sizeof(*first));

	if (nmapped > 1)
		qsort(mapped, nmapped, sizeof(*mapped), cmp_mapped);
	while (i < nmapped) {
		const char *dir = mapped[i]->dir;
		size_t j, k;
		int err;

		for (j = i; j < nmapped && !strcmp(mapped[j]->dir, dir); j++)
			stat_names(&b, "stat", mapped[j]->base, &first[j]);
		err = batch_run(&b, dir);
		calls += b.calls;
		b.calls = 0;
		for (k = i; k < j; k++) {
			if (err)
				mapped[k]->fi = (struct finfo){ .err = err };
			else
				stat_get(&b, first[k], &mapped[k]->fi);
			if (mapped[k]->fi.err == ENAMETOOLONG)
				stat_one(mapped[k]);
		}
		batch_reset(&b);
		i = j;
	}
	free(first);
	batch_free(&b);
}

/* A mem (or DEL) row of @p for @m, whose path has the stat @st. */
static void mem_row(struct proc *p, const struct mapping *m,
		    const struct finfo *st)
{
	bool match = !st->err && (p->other_ns ||
				  (st->maj == m->maj && st->min == m->min &&
				   st->ino == m->ino));
	struct row *r = row_add(&p->mem, match || !m->deleted ? "mem" : "DEL");

	r->name = m->path;
	if (match) {
		row_from_stat(r, st, false, NULL, p->pid);
		return;
	}
	/* what the maps line says, as lsof shows it */
	r->type = "REG";
	r->device = sfmt("%u,%u", m->maj, m->min);
	r->node = sfmt("%" PRIu64, m->ino);
	r->lock = lock_char(p->pid, m->maj, m->min, m->ino);
	if (m->deleted)
		return;
	if (st->err) {
		r->name = sfmt("%s (stat: %s)", m->path, strerror(st->err));
	} else if (st->maj != m->maj || st->min != m->min) {
		r->name = sfmt("%s (path dev=%u,%u%s", m->path, st->maj,
			       st->min, st->ino == m->ino ? ")" : ",");
		if (st->ino != m->ino)
			r->name = sfmt("%s inode=%" PRIu64 ")", r->name,
				       st->ino);
	} else {
		r->name = sfmt("%s (path inode=%" PRIu64 ")", m->path,
			       st->ino);
	}
}

void mem_rows(void)
{
	struct batch b = { 0 };
	int err;

	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		for (size_t k = 0; !p->gone && k < p->nmaps; k++) {
			struct mapping *m = &p->maps[k];
			char sub[96];

			if (!p->other_ns) {
				m->st = &mapped_get(m->path)->fi;
				continue;
			}
			/*
			 * Paths of another mount namespace mean nothing
			 * here: lsof reaches those files via map_files.
			 */
			snprintf(sub, sizeof(sub),
				 "%d/map_files/%" PRIx64 "-%" PRIx64, p->pid,
				 m->start, m->end);
			stat_names(&b, "stat", sub, &m->stat_i);
		}
	}
	stat_mapped();
	err = b.n ? batch_run(&b, PROC) : 0;
	calls += b.calls;
	if (err)
		die_call(PROC, err);

	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		for (size_t k = 0; !p->gone && k < p->nmaps; k++) {
			struct mapping *m = &p->maps[k];
			struct finfo fi;

			if (p->other_ns)
				stat_get(&b, m->stat_i, &fi);
			mem_row(p, m, p->other_ns ? &fi : m->st);
		}
	}
	batch_free(&b);
}

void mem_free(void)
{
	free(mapped);
	map_free(&mapped_by_hash);
}
