// SPDX-License-Identifier: MIT
/*
 * util.c - the helpers every part of gvlsof uses: memory that lives for a
 * cycle, batches of getvalues() names, a hash map and lsof's line parsing.
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

static struct chunk *strings;

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

size_t gv_calls;

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

/* Room for one more name of @len bytes (and its NUL). */
static size_t batch_slot(struct batch *b, size_t len)
{
	while (b->names_cap - b->names_len < len + 1) {
		b->names_cap = b->names_cap ? 2 * b->names_cap : 65536;
		b->names = xrealloc(b->names, b->names_cap);
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

/*
 * The name @a@b@c followed by the decimal @num unless it is negative:
 * what most names are ("stat:ino:" "1234" "/fd/" 5), put together
 * without printf, which the rounds would otherwise spend their time in.
 */
size_t batch_add_parts(struct batch *b, const char *a, const char *bb,
		       const char *c, long num)
{
	size_t la = strlen(a), lb = strlen(bb), lc = strlen(c), ln = 0, i;
	char digits[24];
	char *p;

	if (num >= 0) {
		unsigned long v = (unsigned long)num;

		do {
			digits[sizeof(digits) - 1 - ln++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	i = batch_slot(b, la + lb + lc + ln);
	p = b->names + b->off[i];
	memcpy(p, a, la);
	memcpy(p + la, bb, lb);
	memcpy(p + la + lb, c, lc);
	memcpy(p + la + lb + lc, digits + sizeof(digits) - ln, ln);
	p[la + lb + lc + ln] = 0;
	return i;
}

static const char *batch_name(const struct batch *b, size_t i)
{
	return b->names + b->off[i];
}

/* The length of "GROUP" in "GROUP:...", and for "stat:ino:X" of "stat". */
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
		gv_calls++;
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
	/*
	 * Every name here looks beneath @origin, which needs openat2(2): a
	 * kernel without it (or a seccomp profile that refuses it) gives
	 * ENOSYS for each, and nothing could be listed.
	 */
	for (size_t i = 0; i < b->n; i++)
		if (b->vec[i].error == ENOSYS)
			die("getvalues(%s): %s: the lookups beneath it need "
			    "openat2(2), Linux 5.6 or later", origin,
			    strerror(ENOSYS));
	return 0;
}

/* Run @b on /proc; a failure of the call itself ends the program. */
void batch_run_proc(struct batch *b)
{
	int err = b->n ? batch_run(b, PROC) : 0;

	if (err)
		die("getvalues(%s): %s", PROC, strerror(err));
}

/* Empty @b for the next names; its memory is kept for them. */
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
	*b = (struct batch){ 0 };
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
bool val_dev(const struct batch *b, size_t i, dev_t *dev)
{
	size_t len;
	int err;
	const char *v = val(b, i, &len, &err);
	unsigned maj, min;
	char tmp[32];

	if (!v || !len || len >= sizeof(tmp))
		return false;
	memcpy(tmp, v, len);
	tmp[len] = 0;
	if (sscanf(tmp, "%u:%u", &maj, &min) != 2)
		return false;
	*dev = makedev(maj, min);
	return true;
}

/* ------------------------------------------------------------------ */
/* Stat fields.                                                        */

bool stat_nlink;		/* fetch nlink too (-L, +L, -F k) */

static unsigned type_bits(const char *v, size_t len)
{
	static const struct { const char *name; unsigned fmt; } t[] = {
		{ "reg", S_IFREG }, { "dir", S_IFDIR }, { "lnk", S_IFLNK },
		{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "fifo", S_IFIFO },
		{ "sock", S_IFSOCK },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, v, len))
			return t[i].fmt;
	return 0;
}

/*
 * The stat names of one object; the fields share one statx in the library
 * when they follow each other. Returns the index of the first.
 */
size_t stat_names(struct batch *b, const char *group, const char *sub)
{
	static const char *const fields[2][6] = {
		{ ":type", ":dev", ":rdev", ":ino", ":size", ":nlink" },
		{ ":type:", ":dev:", ":rdev:", ":ino:", ":size:", ":nlink:" },
	};
	int s = *sub ? 1 : 0;
	size_t first = batch_add_parts(b, group, fields[s][0], sub, -1);

	for (int k = 1; k < (stat_nlink ? 6 : 5); k++)
		batch_add_parts(b, group, fields[s][k], sub, -1);
	return first;
}

/* The values of stat_names() from @first on into @fi. */
void stat_get(const struct batch *b, size_t first, struct finfo *fi)
{
	size_t len;
	int err;
	const char *v = val(b, first, &len, &err);

	*fi = (struct finfo){ .err = err };
	if (!v)
		return;
	fi->mode = type_bits(v, len);
	if (!val_dev(b, first + 1, &fi->dev) ||
	    !val_dev(b, first + 2, &fi->rdev) ||
	    !val_u64(b, first + 3, &fi->ino) ||
	    !val_u64(b, first + 4, &fi->size) ||
	    (stat_nlink && !val_u64(b, first + 5, &fi->nlink))) {
		fi->err = b->vec[first + 4].error ? (int)b->vec[first + 4].error
						  : EIO;
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
			    (sep && strchr(sep, *cp)))
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
