// SPDX-License-Identifier: MIT
/*
 * util.c - the helpers every part of gvlsof uses: memory that lives
 * until exit, batches of getvalues() names, a hash map and line parsing.
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
/* Memory: everything lives until exit and is freed there.            */

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return p;
}

#define GROW(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 16;			\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));\
		}							\
	} while (0)


struct chunk *strings;

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

char *sdup_n(const char *s, size_t n)
{
	char *p = salloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *sfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = salloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
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
/* Batches: many names, one getvalues() call (more if a value overflows). */


size_t batch_add(struct batch *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t batch_add(struct batch *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int len;

	/* most names fit the small buffer: one formatting, one copy */
	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	while (b->names_cap - b->names_len < (size_t)len + 1) {
		b->names_cap = b->names_cap ? 2 * b->names_cap : 65536;
		b->names = xrealloc(b->names, b->names_cap);
	}
	if ((size_t)len < sizeof(small)) {
		memcpy(b->names + b->names_len, small, len + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(b->names + b->names_len, len + 1, fmt, ap);
		va_end(ap);
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->vec = xrealloc(b->vec, b->cap * sizeof(*b->vec));
		b->off = xrealloc(b->off, b->cap * sizeof(*b->off));
	}
	b->vec[b->n] = (struct name_val){ 0 };
	b->off[b->n] = b->names_len;
	b->names_len += len + 1;
	return b->n++;
}

static const char *batch_name(const struct batch *b, size_t i)
{
	return b->names + b->off[i];
}

static size_t group_len(const char *name)
{
	const char *c = strchr(name, ':');

	return c ? (size_t)(c - name) : 0;
}

/*
 * Run every name added since the last reset. A name that repeats the group
 * of the one before it is sent in its ":REST" form; the first name of each
 * call is sent in full. A value that does not fit gets EOVERFLOW and stops
 * the call: the rest goes again with a buffer twice as large. Returns 0 or
 * the errno of the call itself ($ORIGIN could not be resolved...).
 */
int batch_run(struct batch *b, const char *origin)
{
	size_t start = 0, size = 65536 + 256 * b->n;

	for (size_t i = 0; i < b->n; i++) {
		const char *cur = batch_name(b, i), *prev;
		size_t g = group_len(cur);

		b->vec[i].name = cur;
		if (!i || !g)
			continue;
		prev = batch_name(b, i - 1);
		if (group_len(prev) == g && !memcmp(prev, cur, g) &&
		    strlen(prev) <= 255)
			b->vec[i].name = cur + g;
	}
	while (start < b->n) {
		void *buf = xrealloc(NULL, size);
		int r;

		GROW(b->bufs, b->nbufs, b->bufs_cap);
		b->bufs[b->nbufs++] = buf;
		b->vec[start].name = batch_name(b, start);
		b->vec[start].value_in = (struct iovec){ buf, size };
		r = getvalues(AT_FDCWD, origin, b->vec + start, b->n - start,
			      0);
		b->calls++;
		if (r < 0)
			return errno;
		start += r;
		if (start == b->n)
			break;
		if (size >= BATCH_MAX_BUF)
			start++;	/* give up on that one: EOVERFLOW */
		else
			size *= 2;
	}
	return 0;
}

void batch_reset(struct batch *b)
{
	for (size_t i = 0; i < b->nbufs; i++)
		free(b->bufs[i]);
	b->nbufs = 0;
	b->n = 0;
	b->names_len = 0;
}

void batch_free(struct batch *b)
{
	batch_reset(b);
	free(b->bufs);
	free(b->vec);
	free(b->off);
	free(b->names);
}

/* The value of entry @i (NULL and its errno when it failed). */
const char *val(const struct batch *b, size_t i, size_t *len, int *err)
{
	*err = b->vec[i].error;
	*len = b->vec[i].value_out.iov_len;
	return *err ? NULL : b->vec[i].value_out.iov_base;
}

bool val_u64(const struct batch *b, size_t i, uint64_t *out)
{
	size_t len;
	int err;
	const char *v = val(b, i, &len, &err);
	uint64_t x = 0;

	if (!v || !len)
		return false;
	for (size_t k = 0; k < len; k++) {
		if (v[k] < '0' || v[k] > '9')
			return false;
		x = x * 10 + (v[k] - '0');
	}
	*out = x;
	return true;
}

/* "major:minor" */
bool val_dev(const struct batch *b, size_t i, unsigned *maj,
		    unsigned *min)
{
	size_t len;
	int err;
	const char *v = val(b, i, &len, &err);
	char tmp[32];

	if (!v || !len || len >= sizeof(tmp))
		return false;
	memcpy(tmp, v, len);
	tmp[len] = 0;
	return sscanf(tmp, "%u:%u", maj, min) == 2;
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
	m->vals = xrealloc(NULL, m->cap * sizeof(*m->vals));
	memset(m->vals, 0, m->cap * sizeof(*m->vals));
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
/* Text helpers.                                                      */

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

/* Split a line into at most @max whitespace-separated words, in place. */
int split_words(char *s, char **w, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
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

/* A copy of a value as a C string, in the table's memory. */
char *vdup(const char *v, size_t len)
{
	return sdup_n(v ? v : "", v ? len : 0);
}
