// SPDX-License-Identifier: MIT
/*
 * ustrings.c - the names of a call read from the caller's memory
 * (uaccess.c): many short strings in few process_vm_readv(2) calls, by
 * the regions they lie in, and the regions of the last call read again
 * with the next call's vector, as a guess.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "uaccess.h"

/* regions a name may join: see gv_strings_from_user() */
#define GV_RECENT_REGIONS 4

/*
 * Names are read in a second system call, once the vector says where they
 * are. But a program that calls getvalues() again and again mostly asks
 * for the same names from the same places: this thread remembers the
 * regions its last call's names lay in, and the next call reads them with
 * its vector, in one process_vm_readv(2), as a guess. What was read there
 * is the caller's memory as it is now; a name that the guess does not
 * hold whole is read as before. Reading memory that this call did not
 * name costs nothing but the copy: it is our own, and a bad page only
 * ends the read short.
 */
static __thread struct {
	unsigned int n;
	uintptr_t base[GV_PREREAD_MAX];
	size_t len[GV_PREREAD_MAX];
} gv_last_regions;

#define GV_PREREAD_BYTES 16384	/* the most a guess reads */

void gv_preread_remember(const struct iovec *r, size_t nreg)
{
	size_t total = 0;
	unsigned int k;

	for (k = 0; k < nreg && k < GV_PREREAD_MAX; k++) {
		total += r[k].iov_len;
		if (total > GV_PREREAD_BYTES)
			break;
		gv_last_regions.base[k] = (uintptr_t)r[k].iov_base;
		gv_last_regions.len[k] = r[k].iov_len;
	}
	/* a guess that cannot hold all the names is not worth its copy */
	gv_last_regions.n = k == nreg ? k : 0;
}

int gv_copy_from_user_pre(void *dst, uintptr_t src, size_t len,
			  struct gv_preread *pre)
{
	struct iovec l[1 + GV_PREREAD_MAX], r[1 + GV_PREREAD_MAX];
	size_t total = 0;
	ssize_t got;
	unsigned int k;

	pre->n = 0;
	if (!gv_uaccess_piped() && src &&
	    src + len >= src) {
		for (k = 0; k < gv_last_regions.n; k++)
			total += gv_last_regions.len[k];
		if (total > sizeof(pre->data))
			total = 0;
		pre->n = total ? gv_last_regions.n : 0;
	}
	if (!pre->n)
		return gv_copy_from_user(dst, src, len);
	l[0] = (struct iovec){ dst, len };
	r[0] = (struct iovec){ (void *)src, len };
	for (k = 0, total = 0; k < pre->n; k++) {
		pre->base[k] = gv_last_regions.base[k];
		pre->len[k] = gv_last_regions.len[k];
		l[k + 1] = (struct iovec){ pre->data + total, pre->len[k] };
		r[k + 1] = (struct iovec){ (void *)pre->base[k], pre->len[k] };
		total += pre->len[k];
	}
	got = process_vm_readv(gv_uaccess_pid(), l, pre->n + 1, r, pre->n + 1,
			       0);
	if (got < 0 && gv_pvm_unavailable(errno)) {
		pre->n = 0;
		return gv_copy_from_user(dst, src, len);
	}
	if (got < (ssize_t)len) {
		pre->n = 0;
		return got >= 0 || errno == EFAULT ? -EFAULT : -errno;
	}
	got -= len;
	for (k = 0; k < pre->n; k++) {
		pre->got[k] = (size_t)got < pre->len[k] ? (size_t)got :
							  pre->len[k];
		got -= pre->got[k];
	}
	return 0;
}

/*
 * Copy region @r from @pre into @dst if @pre asked for all of it: what it
 * read is what a read of @r would have read, up to the same bad page
 * (then @r is cut short there, as such a read leaves it).
 */
bool gv_preread_take(const struct gv_preread *pre, struct iovec *r,
		     void *dst)
{
	uintptr_t a = (uintptr_t)r->iov_base;
	size_t off = 0, at, n;

	for (unsigned int k = 0; pre && k < pre->n; off += pre->len[k++]) {
		if (a < pre->base[k] || a - pre->base[k] > pre->len[k] ||
		    r->iov_len > pre->len[k] - (a - pre->base[k]))
			continue;
		at = a - pre->base[k];
		n = pre->got[k] > at ? pre->got[k] - at : 0;
		if (n > r->iov_len)
			n = r->iov_len;
		memcpy(dst, pre->data + off + at, n);
		r->iov_len = n;
		return true;
	}
	return false;
}

/* Regions per process_vm_readv(2): a few KiB of stack, not tens. */
#define GV_STR_BATCH	64
/* The region of a string at a bad address: none. */
#define GV_STR_NONE	SIZE_MAX
/*
 * ... of a string at the address of an earlier one: none either, it is
 * that one (a table of mounts names the same ":root" thousands of times):
 * GV_STR_SAME + the index of that one.
 */
#define GV_STR_SAME	((SIZE_MAX >> 1) + 1)
/*
 * Strings recently seen, by address: a few hundred, direct-mapped (by a
 * multiplicative hash, so that strings a few bytes apart part), for calls
 * of GV_STR_MEMO names or more.
 */
#define GV_STR_SEEN_BITS 8
#define GV_STR_SEEN	(1u << GV_STR_SEEN_BITS)
#define GV_STR_MEMO	64

/*
 * The regions of the caller's memory the strings of one call lie in: @r[k]
 * is region k there, @l[k] its copy in @buf. A read that stops short at a
 * bad page cuts @r[k].iov_len; @l[k].iov_len stays what was asked.
 */
struct gv_regions {
	struct iovec *l, *r;
	size_t n, cap;
	/* the regions a string may join, most recently joined first */
	size_t recent[GV_RECENT_REGIONS], nrecent;
	char *buf;
	size_t total;		/* the bytes of @buf the regions take */
};

static int gv_regions_grow(struct gv_regions *g)
{
	size_t cap = g->cap ? g->cap * 2 : 64;
	struct iovec *l = realloc(g->l, cap * sizeof(*l)), *r;

	if (l)
		g->l = l;
	r = realloc(g->r, cap * sizeof(*r));
	if (r)
		g->r = r;
	if (!l || !r)
		return -ENOMEM;
	g->cap = cap;
	return 0;
}

/*
 * The region the string at @a, of at most @slot bytes, is read in: a
 * recent one it lies in or close after (grown to hold it), else a new
 * one. Its index, or -ENOMEM.
 */
static ssize_t gv_region_add(struct gv_regions *g, uintptr_t a, size_t slot)
{
	const size_t gap = 512, cap = 65536;
	size_t j, k;

	for (j = 0; j < g->nrecent; j++) {
		struct iovec *r = &g->r[g->recent[j]];
		uintptr_t rs = (uintptr_t)r->iov_base, re = rs + r->iov_len;

		if (a >= rs && a <= re + gap && a + slot - rs <= cap) {
			if (a + slot > re)
				r->iov_len = a + slot - rs;
			break;
		}
	}
	if (j == g->nrecent) {
		if (g->n == g->cap && gv_regions_grow(g))
			return -ENOMEM;
		g->r[g->n] = (struct iovec){ (void *)a, slot };
		/* the oldest recent region gives way */
		if (g->nrecent < GV_RECENT_REGIONS)
			g->nrecent++;
		j = g->nrecent - 1;
		g->recent[j] = g->n++;
	}
	k = g->recent[j];
	if (j) {	/* mostly the string joins the region of the one before */
		memmove(g->recent + 1, g->recent, j * sizeof(*g->recent));
		g->recent[0] = k;
	}
	return (ssize_t)k;
}

/* @buf, and each region's place in it. */
static int gv_regions_place(struct gv_regions *g)
{
	size_t k, off = 0;

	g->total = 0;
	for (k = 0; k < g->n; k++)
		g->total += g->r[k].iov_len;
	g->buf = malloc(g->total);
	if (!g->buf)
		return -ENOMEM;
	for (k = 0; k < g->n; k++) {
		g->l[k] = (struct iovec){ g->buf + off, g->r[k].iov_len };
		off += g->r[k].iov_len;
	}
	return 0;
}

/*
 * Regions read already, with the vector (gv_preread), are copied; the
 * others are read, GV_STR_BATCH regions per call. A read stops short at
 * the first bad page: keep what arrived of that region and go on with the
 * next.
 */
static void gv_regions_read(struct gv_regions *g, const struct gv_preread *pre)
{
	for (size_t k = 0; k < g->n;) {
		size_t m = 0, j, take[GV_STR_BATCH];
		struct iovec tl[GV_STR_BATCH], tr[GV_STR_BATCH];
		ssize_t got;

		for (; k < g->n && m < GV_STR_BATCH; k++) {
			if (gv_preread_take(pre, &g->r[k], g->l[k].iov_base))
				continue;
			take[m] = k;
			tl[m] = g->l[k];
			tr[m++] = g->r[k];
		}
		if (!m)
			break;
		got = process_vm_readv(gv_uaccess_pid(), tl, m, tr, m, 0);
		if (got < 0)
			got = 0;
		for (j = 0; j < m; j++) {
			if ((size_t)got < tl[j].iov_len) {
				g->r[take[j]].iov_len = got;
				got = 0;
				continue;
			}
			got -= tl[j].iov_len;
		}
	}
}

/*
 * Room in @buf after the regions, @slot bytes for each of the strings
 * @region says are in regions that came short: those are read alone.
 */
static int gv_regions_room(struct gv_regions *g, const size_t *region,
			   size_t n, size_t slot)
{
	size_t lost = 0, off = 0, k;
	char *buf;

	for (size_t i = 0; i < n; i++)
		if (region[i] < GV_STR_SAME &&
		    g->r[region[i]].iov_len < g->l[region[i]].iov_len)
			lost++;
	if (!lost)
		return 0;
	buf = realloc(g->buf, g->total + lost * slot);
	if (!buf)
		return -ENOMEM;
	g->buf = buf;
	for (k = 0; k < g->n; k++) {
		g->l[k].iov_base = buf + off;
		off += g->l[k].iov_len;
	}
	return 0;
}

/*
 * Each string found in its region's copy, if it is all there; else read
 * alone into the room after the regions.
 */
static void gv_strings_take(struct gv_regions *g, const uintptr_t *src,
			    size_t n, size_t max, const size_t *region,
			    const char **out, int *lens)
{
	const size_t slot = max + 1;
	size_t lost = 0;

	for (size_t i = 0; i < n; i++) {
		const struct iovec *r, *l;
		size_t off, avail;
		char *s, *nul, *own;

		if (region[i] == GV_STR_NONE)
			continue;
		if (region[i] >= GV_STR_SAME) {	/* an earlier string's copy */
			out[i] = out[region[i] - GV_STR_SAME];
			lens[i] = lens[region[i] - GV_STR_SAME];
			continue;
		}
		r = &g->r[region[i]];
		l = &g->l[region[i]];
		off = src[i] - (uintptr_t)r->iov_base;
		avail = r->iov_len > off ? r->iov_len - off : 0;
		if (avail > slot)
			avail = slot;
		s = (char *)l->iov_base + off;
		nul = avail ? memchr(s, 0, avail) : NULL;
		if (nul) {
			out[i] = s;
			lens[i] = nul - s;
		} else if (avail == slot) {
			lens[i] = -ENAMETOOLONG;
		} else {
			/* not all there: read it alone, page by page */
			own = g->buf + g->total + lost++ * slot;
			lens[i] = gv_strncpy_from_user(own, src[i], max);
			if (lens[i] >= 0) {
				own[lens[i]] = 0;
				out[i] = own;
			}
		}
	}
}

/*
 * The region of each of the @n strings at @src (of at most @slot bytes)
 * into @region, a string at the address of one of the last few others
 * taken as that one (GV_STR_SAME), a bad address as none (its @lens
 * -EFAULT). 0 or -ENOMEM.
 */
static int gv_strings_regions(struct gv_regions *g, const uintptr_t *src,
			      size_t n, size_t slot, size_t *region,
			      int *lens)
{
	struct { uintptr_t a; size_t i; } seen[GV_STR_SEEN];
	/* not for a few names: clearing @seen would cost more than it saves */
	bool memo = n >= GV_STR_MEMO;
	ssize_t k;

	if (memo)
		memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < n; i++) {
		uintptr_t a = src[i];
		size_t h = memo ? (uint64_t)a * 0x9e3779b97f4a7c15ull >>
				  (64 - GV_STR_SEEN_BITS) : 0;

		region[i] = GV_STR_NONE;
		if (!a || a + slot < a) {
			lens[i] = -EFAULT;
			continue;
		}
		if (memo && seen[h].a == a) {
			region[i] = GV_STR_SAME + seen[h].i;
			continue;
		}
		k = gv_region_add(g, a, slot);
		if (k < 0)
			return -ENOMEM;
		region[i] = (size_t)k;
		if (memo) {
			seen[h].a = a;
			seen[h].i = i;
		}
	}
	return 0;
}

/*
 * Read @n strings of at most @max bytes each (NUL excluded). Names that lie
 * close together in the caller's memory (one arena, one literal pool) are
 * read as one region: one iovec, one page pin, for many names. A name may
 * join any of the last few regions, not only the last one: vectors often
 * alternate between two places, names formatted into one buffer and
 * shorthand literals such as ":root" in another, and reading each place
 * again for every entry would copy hundreds of bytes per name. @out[i]
 * gets a NUL-terminated copy and @lens[i] its length, or @lens[i] a
 * negative errno (-EFAULT, -ENAMETOOLONG). Copies live in @*store, to be
 * freed by the caller. Strings the regions did not hold entirely (a bad
 * page, a page boundary at the end of a mapping) are read one by one.
 * Regions that @pre (may be NULL) read with the vector are not read again.
 */
int gv_strings_from_user(const uintptr_t *src, size_t n, size_t max,
			 const char **out, int *lens, char **store,
			 const struct gv_preread *pre)
{
	const size_t slot = max + 1;
	struct gv_regions g = { 0 };
	size_t *region;		/* of each string, or GV_STR_NONE, _SAME */
	int err = -ENOMEM;

	*store = NULL;
	if (!n)
		return 0;
	if (n > INT_MAX)
		return -EINVAL;
	region = malloc(n * sizeof(*region));
	if (!region)
		return -ENOMEM;
	if (gv_strings_regions(&g, src, n, slot, region, lens))
		goto out;
	if (gv_regions_place(&g))
		goto out;
	gv_preread_remember(g.r, g.n);
	gv_regions_read(&g, pre);
	if (gv_regions_room(&g, region, n, slot))
		goto out;
	gv_strings_take(&g, src, n, max, region, out, lens);
	*store = g.buf;
	g.buf = NULL;
	err = 0;
out:
	free(g.buf);
	free(g.l);
	free(g.r);
	free(region);
	return err;
}
