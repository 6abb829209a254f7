// SPDX-License-Identifier: MIT
/*
 * util.c - the helpers every part of gvlsof uses: memory that lives for a
 * cycle, a hash map and lsof's line parsing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* Memory.                                                            */

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", opt.pn);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

/* A bump allocator for what a cycle's rows point to. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

/* each thread's own: a helper's job (net.c) allocates beside the rounds */
static __thread struct chunk *strings;

char *salloc(size_t n)
{
	struct chunk *c = strings;

	if (!c || c->size - c->used < n) {
		size_t size = n > 65536 ? n : 65536;

		c = xrealloc(NULL, sizeof(*c) + size);
		c->next = strings;
		c->used = 0;
		c->size = size;
		strings = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

void *salloc_aligned(size_t n)
{
	char *p = salloc(n + 15);

	return (void *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
}

char *sdup_n(const char *s, size_t n)
{
	char *p = salloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *sdup(const char *s)
{
	return sdup_n(s, strlen(s));
}

char *sfmt(const char *fmt, ...)
{
	char small[256];
	va_list ap;
	char *p;
	int n;

	/* most strings fit the small buffer: one formatting, one copy */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	p = salloc(n + 1);
	if ((size_t)n < sizeof(small)) {
		memcpy(p, small, n + 1);
		return p;
	}
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* This thread's strings, handed over (to strings_adopt() in another). */
void *strings_take(void)
{
	struct chunk *c = strings;

	strings = NULL;
	return c;
}

/* The strings of strings_take() made this thread's, freed with them. */
void strings_adopt(void *list)
{
	struct chunk *c = list;

	if (!c)
		return;
	if (!strings) {
		strings = c;
		return;
	}
	/* behind the chunk being filled, which stays first */
	while (c->next)
		c = c->next;
	c->next = strings->next;
	strings->next = list;
}

void strings_free(void)
{
	while (strings) {
		struct chunk *next = strings->next;

		free(strings);
		strings = next;
	}
}

/* ------------------------------------------------------------------ */
/* A hash map from 64-bit keys (inodes, uids) to pointers.            */

static size_t map_slot(const struct map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *map_get(const struct map *m, uint64_t key)
{
	return m->cap ? m->vals[map_slot(m, key)] : NULL;
}

static void map_grow(struct map *m)
{
	struct map old = *m;

	m->cap = m->cap ? 2 * m->cap : 64;
	m->keys = xrealloc(NULL, m->cap * sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	for (size_t k = 0; k < old.cap; k++)
		if (old.vals[k]) {
			size_t i = map_slot(m, old.keys[k]);

			m->keys[i] = old.keys[k];
			m->vals[i] = old.vals[k];
		}
	free(old.keys);
	free(old.vals);
}

/* Sets @key to @v (not NULL), replacing what was there. */
void map_put(struct map *m, uint64_t key, void *v)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		map_grow(m);
	i = map_slot(m, key);
	if (!m->vals[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = v;
}

void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct map){ 0 };
}

uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* ------------------------------------------------------------------ */
/* Text.                                                              */

/* The next line of [*p, end), without its newline; false at the end. */
bool next_line(const char **p, const char *end, const char **line,
	       size_t *len)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', end - *p);
	*line = *p;
	*len = (nl ? nl : end) - *p;
	*p = nl ? nl + 1 : end;
	return true;
}

/*
 * Split @ln in place as lsof's get_fields() does: fields end at a blank,
 * a tab or one of the characters of @sep (each such character ending one
 * field, so that two in a row make an empty one); blanks before a field
 * are skipped. At most @max fields; returns how many.
 */
static inline bool is_sep(const char *sep, char c)
{
	for (; *sep; sep++)
		if (*sep == c)
			return true;
	return false;
}

int get_fields(char *ln, const char *sep, char **fp, int max)
{
	char *cp = ln;
	int n = 0;

	while (cp && *cp && n < max) {
		char *bp = cp;

		while (*bp == ' ' || *bp == '\t')
			bp++;
		if (!*bp || *bp == '\n')
			break;
		for (cp = bp; *cp; cp++) {
			if (*cp == '\n') {
				*cp = 0;
				break;
			}
			if (*cp == ' ' || *cp == '\t' ||
			    (sep && is_sep(sep, *cp)))
				break;
		}
		if (*cp)
			*cp++ = 0;
		fp[n++] = bp;
	}
	return n;
}

bool parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && !*end;
}

/* A copy of a value as a C string, in the cycle's memory. */
char *vdup(const char *v, size_t len)
{
	return sdup_n(v ? v : "", v ? len : 0);
}

int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * @v in decimal at @p (room for UTOA_MAX bytes), without printf, which
 * the rounds and the rows would otherwise spend their time in; its length
 */
int utoa(char *p, unsigned long long v)
{
	char t[UTOA_MAX];
	int n = 0, len;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (len = n; n; n--)
		*p++ = t[n - 1];
	*p = 0;
	return len;
}

/*
 * "/proc/@dir@mid@num" in the cycle's memory, put together without
 * printf: the path of every descriptor's row ("/proc/PID/fd/N").
 */
char *proc_fd_path(const char *dir, const char *mid, int num)
{
	size_t ld = strlen(dir), lm = strlen(mid), ln;
	char digits[UTOA_MAX], *p, *s;

	ln = (size_t)utoa(digits, num < 0 ? 0 : (unsigned int)num);
	s = salloc(sizeof(PROC) + ld + lm + ln + 1);
	p = s;
	memcpy(p, PROC "/", sizeof(PROC));
	p += sizeof(PROC);
	memcpy(p, dir, ld);
	memcpy(p + ld, mid, lm);
	memcpy(p + ld + lm, digits, ln + 1);
	return s;
}
