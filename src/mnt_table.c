// SPDX-License-Identifier: MIT
/*
 * mnt_table.c - memory and lookup for the mounts of one call: an arena the
 * mount sources (statmount.c, mountinfo.c) allocate their struct gv_mount
 * in, and a table of mounts by 32-bit ID; the mount groups (mnt.c) keep
 * both from call to call for their memory only. And a map of 64-bit
 * unique mount IDs to 32-bit ones, which mnt.c keeps for its content.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mnt.h"

struct gv_mnt_block {
	struct gv_mnt_block *next;
	size_t used, size;
	max_align_t data[];
};

#define GV_MNT_BLOCK 65536

/*
 * Blocks are kept in order and reused after gv_mnt_arena_reset(), so that
 * a process asking again and again does not map, fault in and trim the
 * same memory on every call (each trim costs a TLB flush on every CPU).
 */
void *gv_mnt_alloc(struct gv_mnt_arena *a, size_t n)
{
	struct gv_mnt_block *b = a->cur, *nb;
	size_t size;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	while (b && b->size - b->used < n && b->next) {
		b = b->next;
		b->used = 0;
	}
	if (!b || b->size - b->used < n) {
		size = n > GV_MNT_BLOCK ? n : GV_MNT_BLOCK;
		nb = malloc(sizeof(*nb) + size);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->size = size;
		if (b) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = a->head;
			a->head = nb;
		}
		a->total += size;
		b = nb;
	}
	a->cur = b;
	p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

void gv_mnt_arena_reset(struct gv_mnt_arena *a)
{
	a->cur = a->head;
	if (a->cur)
		a->cur->used = 0;
}

void gv_mnt_arena_free(struct gv_mnt_arena *a)
{
	while (a->head) {
		struct gv_mnt_block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
	a->cur = NULL;
	a->total = 0;
}

static size_t gv_mnt_hash(uint32_t id, size_t nslot)
{
	return (id * 2654435761u) & (nslot - 1);
}

static int gv_mnt_rehash(struct gv_mnt_table *t, size_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = gv_mnt_hash(t->v[i]->id, nslot);

		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = i + 1;
	}
	return 0;
}

/* Adds @m; a second mount with the same ID (cannot happen) is ignored. */
int gv_mnt_table_add(struct gv_mnt_table *t, struct gv_mount *m)
{
	size_t h;

	if (gv_mnt_table_find(t, m->id))
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct gv_mount **v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = m;
	if (2 * t->n > t->nslot)
		return gv_mnt_rehash(t, t->nslot ? t->nslot * 2 : 128);
	h = gv_mnt_hash(m->id, t->nslot);
	while (t->slot[h])
		h = (h + 1) & (t->nslot - 1);
	t->slot[h] = t->n;
	return 0;
}

struct gv_mount *gv_mnt_table_find(const struct gv_mnt_table *t, uint32_t id)
{
	size_t h;

	if (!t->nslot)
		return NULL;
	for (h = gv_mnt_hash(id, t->nslot); t->slot[h];
	     h = (h + 1) & (t->nslot - 1))
		if (t->v[t->slot[h] - 1]->id == id)
			return t->v[t->slot[h] - 1];
	return NULL;
}

void gv_mnt_table_reset(struct gv_mnt_table *t)
{
	t->n = 0;
	if (t->nslot)
		memset(t->slot, 0, t->nslot * sizeof(*t->slot));
}

void gv_mnt_table_free(struct gv_mnt_table *t)
{
	free(t->v);
	free(t->slot);
	*t = (struct gv_mnt_table){ 0 };
}

static int gv_mnt_idpair_cmp(const void *a, const void *b)
{
	const struct gv_mnt_idpair *x = a, *y = b;

	return x->unique < y->unique ? -1 : x->unique > y->unique;
}

/*
 * listmount() lists in the order of unique IDs, and so the pairs of a
 * listing come: mostly the one sought is the one after the last found,
 * else it is looked for by bisection.
 */
bool gv_mnt_idmap_find(struct gv_mnt_idmap *m, uint64_t unique, uint32_t *id)
{
	size_t lo = 0, hi = m->n, mid;

	if (m->at < m->n && m->v[m->at].unique == unique) {
		*id = m->v[m->at++].id;
		return true;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->v[mid].unique < unique)
			lo = mid + 1;
		else
			hi = mid;
	}
	m->at = lo;
	if (lo == m->n || m->v[lo].unique != unique)
		return false;
	*id = m->v[m->at++].id;
	return true;
}

int gv_mnt_idmap_add(struct gv_mnt_idmap *m, uint64_t unique, uint32_t id)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct gv_mnt_idpair *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	if (m->n && m->v[m->n - 1].unique >= unique)
		m->unsorted = true;
	m->v[m->n++] = (struct gv_mnt_idpair){ unique, id };
	return 0;
}

void gv_mnt_idmap_seal(struct gv_mnt_idmap *m)
{
	if (m->unsorted)
		qsort(m->v, m->n, sizeof(*m->v), gv_mnt_idpair_cmp);
	m->unsorted = false;
	m->at = 0;
}

void gv_mnt_idmap_clear(struct gv_mnt_idmap *m)
{
	m->n = 0;
	m->at = 0;
	m->unsorted = false;
}

void gv_mnt_idmap_free(struct gv_mnt_idmap *m)
{
	free(m->v);
	*m = (struct gv_mnt_idmap){ 0 };
}

/* Pairs kept at most: 2 MiB of them, twice (a listing of 131072 mounts). */
#define GV_MNT_IDS_MAX (1u << 17)

static struct gv_mnt_ids *gv_mnt_ids_parked;

struct gv_mnt_ids *gv_mnt_ids_take(void)
{
	struct gv_mnt_ids *ids = __atomic_exchange_n(&gv_mnt_ids_parked, NULL,
						     __ATOMIC_ACQUIRE);

	return ids ? ids : calloc(1, sizeof(*ids));
}

void gv_mnt_ids_put(struct gv_mnt_ids *ids)
{
	struct gv_mnt_ids *expected = NULL;

	if (!ids)
		return;
	gv_mnt_idmap_clear(&ids->next);
	if (ids->known.n <= GV_MNT_IDS_MAX &&
	    __atomic_compare_exchange_n(&gv_mnt_ids_parked, &expected, ids,
					false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return;
	gv_mnt_idmap_free(&ids->known);
	gv_mnt_idmap_free(&ids->next);
	free(ids);
}

void gv_mnt_ids_test_poison(void)
{
	struct gv_mnt_ids *ids = gv_mnt_ids_take();

	for (size_t i = 0; ids && i < ids->known.n; i++)
		ids->known.v[i].id ^= 0x40000000u;
	gv_mnt_ids_put(ids);
}

int gv_mnt_idlist_add(struct gv_mnt_idlist *l, uint32_t id)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		uint32_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = id;
	return 0;
}
