// SPDX-License-Identifier: MIT
/*
 * gvlsof.c - list open files the way "lsof -n -P" does, with a handful of
 * getvalues() calls for the whole system instead of several system calls
 * per descriptor.
 *
 *   gvlsof [-a] [-p PID[,PID]] [-u USER[,USER]] [-c PREFIX] [-J]
 *
 * The work is done in rounds. Each round is one getvalues() call with
 * $ORIGIN = /proc that asks the same few names for many processes or
 * descriptors at once:
 *   0. the PIDs (dir:), /proc/locks and our own mount namespace;
 *   1. per process: stat (command, state) and owner;
 *   2. per selected process: cwd, root and exe (link and stat), maps, its
 *      mount namespace and the list of its descriptors;
 *   3. per descriptor: lstat of the /proc link (the access mode is in its
 *      permission bits) and stat of the open file behind it;
 *   4. per descriptor that needs them: the link target (the NAME of all
 *      but sockets and pipes) and the fdinfo of devices (the offset);
 *   5. the fdinfo of the eventfd, pidfd and epoll descriptors, which lsof
 *      decorates with what it says;
 * plus, once, the /proc/net tables when the first socket shows up, and
 * after all processes the stat of every mapped file, one call per
 * directory holding such files. Processes go in groups, so that a call
 * carries a few thousand names. Consecutive names use the ":REST"
 * shorthand and are ordered so that the library reuses one statx per
 * object and one directory lookup per /proc/PID/fd.
 *
 * Where gvlsof does less than lsof, and why, is in gvlsof(1).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <getvalues.h>

#define PROC		"/proc"
#define GROUP_PROCS	256	/* processes per round */
#define CMD_LIMIT	9	/* COMMAND characters lsof shows by default */
#define EPOLL_MAX_TFDS	32	/* eventpoll targets lsof shows */
#define BATCH_MAX_BUF	(1UL << 30)	/* no value is larger */

static const char *prog = "gvlsof";

/* ------------------------------------------------------------------ */
/* Memory: everything lives until exit and is freed there.            */

static void *xrealloc(void *p, size_t n)
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

/* A bump allocator for the strings of the table. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

static struct chunk *strings;

static char *salloc(size_t n)
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

static char *sdup_n(const char *s, size_t n)
{
	char *p = salloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static char *sfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sfmt(const char *fmt, ...)
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

static void strings_free(void)
{
	while (strings) {
		struct chunk *next = strings->next;

		free(strings);
		strings = next;
	}
}

/* ------------------------------------------------------------------ */
/* Batches: many names, one getvalues() call (more if a value overflows). */

struct batch {
	struct name_val *vec;
	size_t *off;		/* of each full name in @names */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	void **bufs;
	size_t nbufs, bufs_cap;
	size_t calls;		/* getvalues() calls made, for -D */
};

static size_t batch_add(struct batch *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static size_t batch_add(struct batch *b, const char *fmt, ...)
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
static int batch_run(struct batch *b, const char *origin)
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

static void batch_reset(struct batch *b)
{
	for (size_t i = 0; i < b->nbufs; i++)
		free(b->bufs[i]);
	b->nbufs = 0;
	b->n = 0;
	b->names_len = 0;
}

static void batch_free(struct batch *b)
{
	batch_reset(b);
	free(b->bufs);
	free(b->vec);
	free(b->off);
	free(b->names);
}

/* The value of entry @i (NULL and its errno when it failed). */
static const char *val(const struct batch *b, size_t i, size_t *len, int *err)
{
	*err = b->vec[i].error;
	*len = b->vec[i].value_out.iov_len;
	return *err ? NULL : b->vec[i].value_out.iov_base;
}

static bool val_u64(const struct batch *b, size_t i, uint64_t *out)
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
static bool val_dev(const struct batch *b, size_t i, unsigned *maj,
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

struct map {
	uint64_t *keys;
	void **vals;
	size_t n, cap;		/* cap: 0 or a power of two */
};

static size_t map_slot(const struct map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void *map_get(const struct map *m, uint64_t key)
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
static void map_put(struct map *m, uint64_t key, void *v)
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

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct map){ 0 };
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* ------------------------------------------------------------------ */
/* Text helpers.                                                      */

/* The next line of [*p, end), without its newline; false at the end. */
static bool next_line(const char **p, const char *end, const char **line,
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
static int split_words(char *s, char **w, int max)
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

static bool parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && !*end;
}

/* A copy of a value as a C string, in the table's memory. */
static char *vdup(const char *v, size_t len)
{
	return sdup_n(v ? v : "", v ? len : 0);
}

/* ------------------------------------------------------------------ */
/* Users: /etc/passwd, as getpwuid(3) would answer for local users.   */

struct user {
	uid_t uid;
	char *name;
};

static struct user *users;
static size_t nusers;
static struct map user_by_uid;

static void users_load(void)
{
	size_t size = 65536, cap = 0;
	char *buf = NULL;
	ssize_t n;

	for (;;) {
		buf = xrealloc(buf, size);
		n = readfile(AT_FDCWD, "/etc/passwd", buf, size, 0);
		if (n < 0 || (size_t)n < size)
			break;
		size *= 2;
	}
	if (n > 0) {
		const char *p = buf, *end = buf + n, *line;
		size_t len;

		while (next_line(&p, end, &line, &len)) {
			const char *c1 = memchr(line, ':', len), *c2;
			char num[16];
			uint64_t uid;

			if (!c1 || c1 == line)
				continue;
			c2 = memchr(c1 + 1, ':', line + len - c1 - 1);
			if (!c2)
				continue;
			c1 = c2 + 1;
			c2 = memchr(c1, ':', line + len - c1);
			if (!c2 || c2 == c1 || (size_t)(c2 - c1) >= sizeof(num))
				continue;
			memcpy(num, c1, c2 - c1);
			num[c2 - c1] = 0;
			if (!parse_u64(num, 10, &uid) || uid > UINT32_MAX)
				continue;
			GROW(users, nusers, cap);
			users[nusers].uid = uid;
			users[nusers].name = sdup_n(line,
					(size_t)((char *)memchr(line, ':', len) -
						 line));
			nusers++;
		}
	}
	free(buf);
	/* the first line of a UID names it, as with getpwuid(3) */
	for (size_t i = 0; i < nusers; i++)
		if (!map_get(&user_by_uid, (uint64_t)users[i].uid + 1))
			map_put(&user_by_uid, (uint64_t)users[i].uid + 1,
				&users[i]);
}

static const char *user_name(uid_t uid)
{
	struct user *u = map_get(&user_by_uid, (uint64_t)uid + 1);

	return u ? u->name : sfmt("%u", (unsigned)uid);
}

static bool user_uid(const char *name, uid_t *uid)
{
	uint64_t v;

	if (parse_u64(name, 10, &v) && v <= UINT32_MAX) {
		*uid = v;
		return true;
	}
	for (size_t i = 0; i < nusers; i++)
		if (!strcmp(users[i].name, name)) {
			*uid = users[i].uid;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------------ */
/* Locks from /proc/locks: the FD column's lock character.            */

struct lock {
	struct lock *next;	/* of the same process and file */
	int pid;
	unsigned maj, min;
	uint64_t ino;
	char type;
};

static struct map locks;	/* the newest lock of each process and file */

static uint64_t lock_key(int pid, unsigned maj, unsigned min, uint64_t ino)
{
	uint64_t k = ino * 0x9e3779b97f4a7c15ULL;

	return k ^ ((uint64_t)pid << 32) ^ ((uint64_t)maj << 20) ^ min;
}

static void *salloc_aligned(size_t n)
{
	return (void *)(((uintptr_t)salloc(n + 7) + 7) & ~(uintptr_t)7);
}

/*
 * "1: POSIX  ADVISORY  WRITE 15800 fe:00:10952937 0 EOF". As in lsof, a
 * lock on the whole file is upper case, and of the locks one process holds
 * on one file the last one entered with a type not seen before is shown.
 */
static void locks_load(const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	size_t len;

	while (v && next_line(&p, end, &line, &len)) {
		char tmp[256], *w[8];
		unsigned maj, min;
		uint64_t ino, pid, from, to = 0x7fffffff, key;
		struct lock *l, *head;
		char type;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (split_words(tmp, w, 8) < 8 || !strcmp(w[1], "->"))
			continue;
		if (w[3][0] == 'R')
			type = 'r';
		else if (w[3][0] == 'W')
			type = 'w';
		else
			continue;
		if (!parse_u64(w[4], 10, &pid) || pid > INT_MAX ||
		    sscanf(w[5], "%x:%x:%" SCNu64, &maj, &min, &ino) != 3 ||
		    !parse_u64(w[6], 10, &from))
			continue;
		if (strcmp(w[7], "EOF") && !parse_u64(w[7], 10, &to))
			continue;
		if (from == 0 && to == 0x7fffffff)
			type = toupper(type);
		key = lock_key(pid, maj, min, ino);
		head = map_get(&locks, key);
		for (l = head; l; l = l->next)
			if (l->pid == (int)pid && l->maj == maj &&
			    l->min == min && l->ino == ino && l->type == type)
				break;
		if (l)
			continue;
		l = salloc_aligned(sizeof(*l));
		*l = (struct lock){ head, (int)pid, maj, min, ino, type };
		map_put(&locks, key, l);
	}
}

static char lock_char(int pid, unsigned maj, unsigned min, uint64_t ino)
{
	for (struct lock *l = map_get(&locks, lock_key(pid, maj, min, ino)); l;
	     l = l->next)
		if (l->pid == pid && l->maj == maj && l->min == min &&
		    l->ino == ino)
			return l->type;
	return ' ';
}

/* ------------------------------------------------------------------ */
/* Sockets: the /proc/net tables, by inode.                           */

struct sockrow {
	const char *type, *device, *node, *name;
};

static struct map sockets;
static bool sockets_loaded;

static const char *const net_files[] = {
	/* lsof's lookup order: the first table holding an inode wins */
	"raw", "netlink", "packet", "unix", "raw6", "tcp6", "udp6",
	"udplite6", "tcp", "udp", "udplite", "icmp",
};

static void sock_add(uint64_t ino, const char *type, const char *device,
		     const char *node, const char *name)
{
	struct sockrow *s;

	if (!ino || map_get(&sockets, ino))
		return;
	s = salloc_aligned(sizeof(*s));
	*s = (struct sockrow){ type, device, node, name };
	map_put(&sockets, ino, s);
}

static const char *sock_type_name(unsigned t, bool *known)
{
	static const char *const names[] = {
		[1] = "STREAM", [2] = "DGRAM", [3] = "RAW", [4] = "RDM",
		[5] = "SEQPACKET", [6] = "DCCP", [10] = "PACKET",
	};

	*known = t < sizeof(names) / sizeof(names[0]) && names[t];
	return *known ? names[t] : "unknown";
}

/* "00000000a01c223b: 00000002 00000000 00010000 0001 01 136767 @name" */
static void net_unix(char *line)
{
	static const char *const states[] = {
		[1] = "UNCONNECTED", [2] = "CONNECTING", [3] = "CONNECTED",
		[4] = "DISCONNECTING",
	};
	char *w[7], *p = line;
	uint64_t flags, type, st, ino;
	const char *state, *path;
	size_t numlen;
	bool known;
	int n = 0;

	/* seven words; the path, if any, is the rest after one space */
	while (n < 7) {
		while (*p == ' ')
			p++;
		if (!*p)
			return;
		w[n++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
	}
	path = *p ? p : NULL;
	numlen = strlen(w[0]);
	if (!numlen || w[0][numlen - 1] != ':' ||
	    !parse_u64(w[3], 16, &flags) || !parse_u64(w[4], 16, &type) ||
	    !parse_u64(w[5], 16, &st) || !parse_u64(w[6], 10, &ino))
		return;
	w[0][numlen - 1] = 0;
	if (flags == 0x10000)	/* __SO_ACCEPTCON: listening */
		state = "LISTEN";
	else if (st < 5 && states[st])
		state = states[st];
	else
		state = "UNKNOWN";
	sock_add(ino, "unix", sfmt("0x%s", w[0]), sfmt("%" PRIu64, ino),
		 sfmt("%s%stype=%s (%s)", path ? path : "", path ? " " : "",
		      sock_type_name(type, &known), state));
}

static bool hex_addr(const char *s, size_t hexlen, unsigned char *out)
{
	for (size_t i = 0; i < hexlen / 8; i++) {
		char word[9];
		uint64_t v;
		uint32_t u;

		memcpy(word, s + 8 * i, 8);
		word[8] = 0;
		if (!parse_u64(word, 16, &v))
			return false;
		/* the kernel prints each 32-bit word as it is in memory */
		u = (uint32_t)v;
		memcpy(out + 4 * i, &u, 4);
	}
	return true;
}

/* "0100007F:8451" into an address (4 or 16 bytes) and a port. */
static bool addr_port(const char *s, size_t alen, unsigned char *addr,
		      unsigned *port)
{
	uint64_t p;

	if (strlen(s) != 2 * alen + 5 || s[2 * alen] != ':' ||
	    !hex_addr(s, 2 * alen, addr) || !parse_u64(s + 2 * alen + 1, 16, &p))
		return false;
	*port = p & 0xffff;
	return true;
}

static bool all_zero(const unsigned char *a, size_t n)
{
	while (n--)
		if (*a++)
			return false;
	return true;
}

/* lsof's printinaddr(): "*" for the any address, "*" for port 0. */
static void put_endpoint(char *out, size_t size, const unsigned char *a,
			 unsigned port, bool v6)
{
	char host[INET6_ADDRSTRLEN + 2], portbuf[16];

	if (all_zero(a, v6 ? 16 : 4)) {
		strcpy(host, "*");
	} else if (v6) {
		host[0] = '[';
		inet_ntop(AF_INET6, a, host + 1, sizeof(host) - 2);
		strcat(host, "]");
	} else {
		snprintf(host, sizeof(host), "%u.%u.%u.%u", a[0], a[1], a[2],
			 a[3]);
	}
	if (port)
		snprintf(portbuf, sizeof(portbuf), "%u", port);
	else
		strcpy(portbuf, "*");
	snprintf(out + strlen(out), size - strlen(out), "%s:%s", host, portbuf);
}

static const char *tcp_state(uint64_t st)
{
	static const char *const names[] = {
		"CLOSED", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
		"FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK",
		"LISTEN", "CLOSING",
	};

	if (st < sizeof(names) / sizeof(names[0]))
		return names[st];
	return sfmt("UNKNOWN_TCP_STATE_%" PRIu64, st);
}

/*
 * A line of /proc/net/{tcp,udp,udplite}[6]:
 * "0: 0100007F:8451 00000000:0000 0A 00000000:00000000 00:00000000
 *  00000000 0 0 64345 ..."
 */
static void net_inet(char *line, const char *proto, bool v6)
{
	size_t alen = v6 ? 16 : 4;
	unsigned char la[16], fa[16];
	unsigned lport, fport;
	uint64_t st, ino;
	bool have_l, have_f, show_v6 = v6;
	char name[160] = "";
	char *w[10];

	if (split_words(line, w, 10) < 10 || !strcmp(w[1], "local_address") ||
	    !addr_port(w[1], alen, la, &lport) ||
	    !addr_port(w[2], alen, fa, &fport) || !parse_u64(w[3], 16, &st) ||
	    !parse_u64(w[9], 10, &ino))
		return;
	have_l = !all_zero(la, alen) || lport;
	have_f = !all_zero(fa, alen) || fport;
	if (v6) {
		static const unsigned char mapped[12] = {
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
		};

		/* an IPv4-mapped address is shown as IPv4, as lsof does */
		if ((have_f && !memcmp(fa, mapped, 12)) ||
		    (have_l && !memcmp(la, mapped, 12))) {
			memmove(la, la + 12, 4);
			memmove(fa, fa + 12, 4);
			show_v6 = false;
		}
	}
	if (have_l)
		put_endpoint(name, sizeof(name), la, lport, show_v6);
	if (have_f) {
		strcat(name, "->");
		put_endpoint(name, sizeof(name), fa, fport, show_v6);
	}
	/* lsof separates the TCP state by a space, and leaves the space */
	sock_add(ino, v6 ? "IPv6" : "IPv4", sfmt("%" PRIu64, ino), proto,
		 strcmp(proto, "TCP") ? sfmt("%s ", name) :
		 sfmt("%s (%s)", name, tcp_state(st)));
}

/* raw, raw6 and icmp: the kernel's own address strings, as lsof shows them */
static void net_raw(char *line, const char *type, bool state)
{
	char *w[10], *name;
	uint64_t ino;

	if (split_words(line, w, 10) < 10 || !strcmp(w[1], "local_address") ||
	    !parse_u64(w[9], 10, &ino))
		return;
	name = sfmt("%s->%s", w[1], w[2]);
	if (state)
		name = sfmt("%s st=%s", name, w[3]);
	sock_add(ino, type, "", sfmt("%" PRIu64, ino), name);
}

static const char *netlink_proto(uint64_t p)
{
	static const char *const names[] = {
		"ROUTE", "UNUSED", "USERSOCK", "FIREWALL", "INET_DIAG",
		"NFLOG", "XFRM", "SELINUX", "ISCSI", "AUDIT", "FIB_LOOKUP",
		"CONNECTOR", "NETFILTER", "IP6_FW", "DNRTMSG",
		"KOBJECT_UEVENT", "GENERIC", NULL, "SCSITRANSPORT",
		"ECRYPTFS", "RDMA", "CRYPTO", "SMC",
	};

	if (p < sizeof(names) / sizeof(names[0]) && names[p])
		return names[p];
	return sfmt("unknown protocol: %" PRIu64, p);
}

/* "sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode" */
static void net_netlink(char *line)
{
	char *w[10];
	uint64_t eth, ino;

	if (split_words(line, w, 10) < 10 || !parse_u64(w[1], 10, &eth) ||
	    !parse_u64(w[9], 10, &ino))
		return;
	sock_add(ino, "netlink", "", sfmt("%" PRIu64, ino),
		 netlink_proto(eth));
}

static const char *eth_proto(uint64_t p)
{
	static const struct { unsigned p; const char *name; } names[] = {
		{ 0x0060, "LOOP" }, { 0x0200, "PUP" }, { 0x0201, "PUPAT" },
		{ 0x0800, "IP" }, { 0x0805, "X25" }, { 0x0806, "ARP" },
		{ 0x08FF, "BPQ" }, { 0x0a00, "I3EPUP" }, { 0x0a01, "I3EPUPA" },
		{ 0x6000, "DEC" }, { 0x6001, "DNA_DL" }, { 0x6002, "DNA_RC" },
		{ 0x6003, "DNA_RT" }, { 0x6004, "LAT" }, { 0x6005, "DIAG" },
		{ 0x6006, "CUST" }, { 0x6007, "SCA" }, { 0x8035, "RARP" },
		{ 0x809B, "ATALK" }, { 0x80F3, "AARP" }, { 0x8100, "8021Q" },
		{ 0x8137, "IPX" }, { 0x86DD, "IPV6" }, { 0x8809, "SLOW" },
		{ 0x883E, "WCCP" }, { 0x8863, "PPP_DIS" }, { 0x8864, "PPP_SES" },
		{ 0x8847, "MPLS_UC" }, { 0x884c, "ATMMPOA" },
		{ 0x8848, "MPLS_MC" }, { 0x8884, "ATMFATE" }, { 0x88A2, "AOE" },
		{ 0x88CA, "TIPC" }, { 0x0001, "802.3" }, { 0x0002, "AX25" },
		{ 0x0003, "ALL" }, { 0x0004, "802.2" }, { 0x0005, "SNAP" },
		{ 0x0006, "DDCMP" }, { 0x0007, "WAN_PPP" }, { 0x0008, "PPP MP" },
		{ 0x0009, "LCLTALK" }, { 0x0010, "PPPTALK" },
		{ 0x0011, "802.2" }, { 0x0015, "MOBITEX" },
		{ 0x0016, "CONTROL" }, { 0x0017, "IRDA" }, { 0x0018, "ECONET" },
		{ 0x0019, "HDLC" }, { 0x001A, "ARCNET" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].p == p)
			return names[i].name;
	return sfmt("%" PRIu64, p);
}

/* "sk RefCnt Type Proto Iface R Rmem User Inode" */
static void net_packet(char *line)
{
	char *w[9];
	uint64_t type, proto, ino;
	const char *tn;
	bool known;

	if (split_words(line, w, 9) < 9 || !parse_u64(w[2], 10, &type) ||
	    !parse_u64(w[3], 16, &proto) || !parse_u64(w[8], 10, &ino))
		return;
	tn = sock_type_name(type, &known);
	sock_add(ino, "pack", sfmt("%" PRIu64, ino), eth_proto(proto),
		 sfmt("type=%s%s", known ? "SOCK_" : "", tn));
}

static void net_parse(const char *file, const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	bool first = true;
	size_t len;

	while (next_line(&p, end, &line, &len)) {
		char *copy = xrealloc(NULL, len + 1);

		memcpy(copy, line, len);
		copy[len] = 0;
		if (first) {
			/* the header line */
			first = false;
		} else if (!strcmp(file, "unix")) {
			net_unix(copy);
		} else if (!strcmp(file, "netlink")) {
			net_netlink(copy);
		} else if (!strcmp(file, "packet")) {
			net_packet(copy);
		} else if (!strcmp(file, "raw")) {
			net_raw(copy, "raw", true);
		} else if (!strcmp(file, "raw6")) {
			net_raw(copy, "raw6", true);
		} else if (!strcmp(file, "icmp")) {
			net_raw(copy, "icmp", false);
		} else {
			bool v6 = file[strlen(file) - 1] == '6';
			const char *proto = !strncmp(file, "tcp", 3) ? "TCP" :
					    !strncmp(file, "udplite", 7) ?
					    "UDPLITE" : "UDP";

			net_inet(copy, proto, v6);
		}
		free(copy);
	}
}

static void sockets_load(void)
{
	struct batch b = { 0 };
	size_t first = 0;

	sockets_loaded = true;
	for (size_t i = 0; i < sizeof(net_files) / sizeof(net_files[0]); i++) {
		size_t k = batch_add(&b, "data:net/%s", net_files[i]);

		if (!i)
			first = k;
	}
	if (!batch_run(&b, PROC))
		for (size_t i = 0; i < b.n; i++) {
			size_t len;
			int err;
			const char *v = val(&b, first + i, &len, &err);

			if (v)
				net_parse(net_files[i], v, len);
		}
	batch_free(&b);
}

/* ------------------------------------------------------------------ */
/* Processes, descriptors and rows.                                   */

struct finfo {
	int err;		/* errno of the stat; 0: the fields are set */
	unsigned fmt;		/* S_IFMT bits; 0 for anonymous inodes */
	unsigned maj, min, rmaj, rmin;
	uint64_t ino, size;
};

struct row {
	const char *fd;
	char access, lock;
	const char *type, *device, *sizeoff, *node, *name;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

struct mapping {
	uint64_t start, end, ino;
	unsigned maj, min;
	const char *path;
	bool deleted;
	size_t stat_i;		/* in the map_files batch, other namespaces */
	struct finfo *st;	/* the stat of the path, same namespace */
};

struct fdesc {
	int fd;
	size_t i_lstat, i_stat, i_link, i_info;
	int lstat_err, link_err;
	unsigned perm;		/* permission bits of the /proc link */
	struct finfo fi;
	const char *link;	/* NULL: failed, or not needed */
	const char *info;	/* fdinfo; NULL: failed, or not needed */
	size_t info_len;
};

struct proc {
	int pid;
	uid_t uid;
	const char *cmd;	/* as /proc/PID/stat has it */
	bool gone;		/* exited, a zombie, or not selected */
	size_t i_stat, i_uid, i_link[3], i_st[3], i_maps, i_ns, i_fds;
	struct finfo txt;	/* of the exe, for the mem rows */
	bool other_ns;		/* in another mount namespace than ours */
	struct mapping *maps;
	size_t nmaps, maps_cap;
	struct fdesc *fds;
	size_t nfds;
	struct rows head, mem, files;
};

static struct proc *procs;
static size_t nprocs, procs_cap;
static uint64_t our_mntns;
static bool our_mntns_ok;
static size_t denied;		/* processes we may not inspect */
static size_t calls;		/* getvalues() calls, for -D */

static struct row *row_add(struct rows *r, const char *fd)
{
	struct row *row;

	GROW(r->v, r->n, r->cap);
	row = &r->v[r->n++];
	*row = (struct row){ .fd = fd, .access = ' ', .lock = ' ',
			     .type = "", .device = "", .sizeoff = "",
			     .node = "", .name = "" };
	return row;
}

static void stat_names(struct batch *b, const char *group, const char *sub,
		       size_t *first)
{
	*first = batch_add(b, "%s:type:%s", group, sub);
	batch_add(b, "%s:dev:%s", group, sub);
	batch_add(b, "%s:rdev:%s", group, sub);
	batch_add(b, "%s:ino:%s", group, sub);
	batch_add(b, "%s:size:%s", group, sub);
}

static unsigned type_bits(const char *v, size_t len)
{
	static const struct { const char *name; unsigned fmt; } t[] = {
		{ "reg", S_IFREG }, { "dir", S_IFDIR }, { "lnk", S_IFLNK },
		{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "fifo", S_IFIFO },
		{ "sock", S_IFSOCK },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, v, len))
			return t[i].fmt;
	return 0;
}

/* The five stat values from @first on (see stat_names) into @fi. */
static void stat_get(const struct batch *b, size_t first, struct finfo *fi)
{
	size_t len;
	const char *v = val(b, first, &len, &fi->err);

	*fi = (struct finfo){ .err = fi->err };
	if (!v)
		return;
	fi->fmt = type_bits(v, len);
	if (!val_dev(b, first + 1, &fi->maj, &fi->min) ||
	    !val_dev(b, first + 2, &fi->rmaj, &fi->rmin) ||
	    !val_u64(b, first + 3, &fi->ino) ||
	    !val_u64(b, first + 4, &fi->size))
		fi->err = b->vec[first + 4].error ? (int)b->vec[first + 4].error
						  : EIO;
}

static const char *offset_str(uint64_t off)
{
	/* lsof shows 8 decimal digits at most, then switches to hex */
	const char *s = sfmt("0t%" PRIu64, off);

	return strlen(s) > 10 ? sfmt("0x%" PRIx64, off) : s;
}

/*
 * TYPE, DEVICE, SIZE/OFF and NODE of a file from its stat, as lsof's
 * process_proc_node() sets them. @off: the descriptor's offset, or NULL
 * when there is none (cwd, txt, mem rows; devices then show no offset).
 */
static void row_from_stat(struct row *r, const struct finfo *fi,
			  bool anon, const char *off, int pid)
{
	const char *type;

	if (fi->err) {
		r->type = "unknown";
		return;
	}
	switch (fi->fmt) {
	case S_IFBLK: type = "BLK"; break;
	case S_IFCHR: type = "CHR"; break;
	case S_IFDIR: type = "DIR"; break;
	case S_IFIFO: type = "FIFO"; break;
	case S_IFREG: type = "REG"; break;
	case S_IFLNK: type = "LINK"; break;
	default:
		type = anon ? "a_inode" : sfmt("%04o", (fi->fmt >> 12) & 0xf);
	}
	r->type = type;
	if (fi->fmt == S_IFCHR || fi->fmt == S_IFBLK)
		r->device = sfmt("%u,%u", fi->rmaj, fi->rmin);
	else
		r->device = sfmt("%u,%u", fi->maj, fi->min);
	if (fi->fmt == S_IFCHR || fi->fmt == S_IFBLK || fi->fmt == S_IFIFO)
		r->sizeoff = off ? off : "";
	else
		r->sizeoff = sfmt("%" PRIu64, fi->size);
	r->node = sfmt("%" PRIu64, fi->ino);
	r->lock = lock_char(pid, fi->maj, fi->min, fi->ino);
}

/* cwd, rtd, txt: the link and the stat of what it points to. */
static void special_row(struct proc *p, const struct batch *b, int which)
{
	static const char *const fds[] = { "cwd", "rtd", "txt" };
	static const char *const links[] = { "cwd", "root", "exe" };
	struct row *r = row_add(&p->head, fds[which]);
	size_t len;
	int err;
	const char *v = val(b, p->i_link[which], &len, &err);
	struct finfo fi;

	if (!v) {
		r->type = "unknown";
		r->name = sfmt(PROC "/%d/%s", p->pid, links[which]);
		/* lsof keeps quiet about root's kernel threads having no exe */
		if (which != 2 || err != ENOENT || p->uid)
			r->name = sfmt("%s (readlink: %s)", r->name,
				       strerror(err));
		if (which == 2)
			p->txt.err = err;
		return;
	}
	r->name = vdup(v, len);
	stat_get(b, p->i_st[which], &fi);
	if (which == 2)
		p->txt = fi;
	row_from_stat(r, &fi, false, NULL, p->pid);
	if (fi.err)
		r->name = sfmt("%s (stat: %s)", r->name, strerror(fi.err));
}

/* Append the lines of /proc/PID/maps that lsof shows as mem rows. */
static void maps_parse(struct proc *p, const char *v, size_t n)
{
	const char *q = v, *end = v + n, *line;
	size_t len;

	while (next_line(&q, end, &line, &len)) {
		char *copy = xrealloc(NULL, len + 1), *w[5], *path;
		unsigned maj, min;
		uint64_t start, end_addr, ino;
		struct mapping *m;
		size_t plen;
		bool dup = false;

		memcpy(copy, line, len);
		copy[len] = 0;
		if (split_words(copy, w, 5) < 5)
			goto next;
		path = w[4] + strlen(w[4]) + 1;
		if (path > copy + len)
			goto next;
		while (*path == ' ')
			path++;
		if (!*path ||
		    sscanf(w[0], "%" SCNx64 "-%" SCNx64, &start, &end_addr) != 2 ||
		    sscanf(w[3], "%x:%x", &maj, &min) != 2 ||
		    !parse_u64(w[4], 10, &ino) || (!maj && !min && !ino))
			goto next;
		/* the executable has its txt row */
		if (!p->txt.err && p->txt.maj == maj && p->txt.min == min &&
		    p->txt.ino == ino)
			goto next;
		for (size_t i = 0; i < p->nmaps && !dup; i++)
			dup = p->maps[i].maj == maj && p->maps[i].min == min &&
			      p->maps[i].ino == ino;
		if (dup)
			goto next;
		GROW(p->maps, p->nmaps, p->maps_cap);
		m = &p->maps[p->nmaps++];
		plen = strlen(path);
		*m = (struct mapping){ .start = start, .end = end_addr,
				       .ino = ino, .maj = maj, .min = min };
		if (plen > 10 && !strcmp(path + plen - 10, " (deleted)")) {
			m->deleted = true;
			plen -= 10;
		}
		m->path = sdup_n(path, plen);
next:
		free(copy);
	}
}

/* The parts of a /proc/PID/fd/N link: "/path", or "pipe:[123]". */
static void link_parts(const char *link, const char **name, const char **rest)
{
	const char *colon;

	*rest = NULL;
	*name = link;
	if (link[0] == '/' || !(colon = strchr(link, ':')))
		return;
	*name = sdup_n(link, colon - link);
	*rest = colon + 1;
}

/* lsof's decorations of anonymous inodes, from fdinfo. */
static const char *anon_name(const char *rest, const char *info, size_t n)
{
	const char *p = info, *end = info + n, *line;
	int tfds[EPOLL_MAX_TFDS], ntfd = 0;
	long long id = -1;
	size_t len;
	char *s;

	if (!info)
		return rest;
	while (next_line(&p, end, &line, &len)) {
		char tmp[128], *w[2];
		uint64_t v;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (split_words(tmp, w, 2) < 2 || !parse_u64(w[1], 0, &v) ||
		    v > INT_MAX)
			continue;
		if ((!strcmp(w[0], "eventfd-id:") &&
		     !strcmp(rest, "[eventfd]")) ||
		    (!strcmp(w[0], "Pid:") && !strcmp(rest, "[pidfd]")))
			id = v;
		else if (!strcmp(w[0], "tfd:") && ntfd < EPOLL_MAX_TFDS &&
			 !strcmp(rest, "[eventpoll]"))
			tfds[ntfd++] = v;
	}
	if (id >= 0)
		return sfmt("%.*s:%lld]", (int)strlen(rest) - 1, rest, id);
	if (!ntfd)
		return rest;
	for (int i = 1; i < ntfd; i++)		/* sorted, as lsof has them */
		for (int j = i; j > 0 && tfds[j - 1] > tfds[j]; j--) {
			int t = tfds[j];

			tfds[j] = tfds[j - 1];
			tfds[j - 1] = t;
		}
	s = sfmt("[eventpoll:%d", tfds[0]);
	for (int i = 1; i < ntfd; i++)
		s = sfmt("%s,%d", s, tfds[i]);
	return sfmt("%s%s", s, ntfd == EPOLL_MAX_TFDS ? "...]" : "]");
}

static uint64_t fdinfo_pos(const char *info, size_t n, bool *ok)
{
	uint64_t pos = 0;

	*ok = info && n > 5 && !memcmp(info, "pos:", 4);
	if (*ok) {
		const char *c = info + 4;

		while (c < info + n && (*c == ' ' || *c == '\t'))
			c++;
		for (*ok = false; c < info + n && *c >= '0' && *c <= '9'; c++)
			pos = pos * 10 + (*c - '0'), *ok = true;
	}
	return pos;
}

/* The protocol name the kernel gives an unidentified socket. */
static const char *sock_proto(int pid, int fd)
{
	char path[64], buf[256];
	struct name_val v = {
		.name = "xattr:system.sockprotoname",
		.value_in = { buf, sizeof(buf) },
	};

	snprintf(path, sizeof(path), PROC "/%d/fd/%d", pid, fd);
	calls++;
	if (getvalues(AT_FDCWD, path, &v, 1, 0) != 1 || v.error)
		return NULL;
	/* the kernel counts the terminating NUL in the value */
	return sdup_n(buf, strnlen(buf, v.value_out.iov_len));
}

static dev_t pipefs_dev;
static bool pipefs_known;

/*
 * The device of pipefs, the kernel's internal file system for pipes: a
 * FIFO on it is a pipe, whose NAME is "pipe", without reading its link.
 * It is a property of the running kernel, learnt from a pipe of our own.
 */
static void pipefs_probe(void)
{
	struct stat st;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return;
	if (!fstat(p[0], &st)) {
		pipefs_dev = st.st_dev;
		pipefs_known = true;
	}
	close(p[0]);
	close(p[1]);
}

static bool is_pipe(const struct finfo *fi)
{
	return pipefs_known && !fi->err && fi->fmt == S_IFIFO &&
	       major(pipefs_dev) == fi->maj && minor(pipefs_dev) == fi->min;
}

/*
 * /dev/null, /dev/zero and /dev/full: their lseek() pins the position at
 * 0 and their reads and writes never move it, so fdinfo would say 0.
 */
static bool pos_always_zero(const struct finfo *fi)
{
	return fi->fmt == S_IFCHR && fi->rmaj == 1 &&
	       (fi->rmin == 3 || fi->rmin == 5 || fi->rmin == 7);
}

static bool needs_link(const struct fdesc *d)
{
	/* sockets are named from /proc/net; pipes are "pipe" */
	return d->fi.err || (d->fi.fmt != S_IFSOCK && !is_pipe(&d->fi));
}

static bool needs_info(const struct fdesc *d)
{
	return !d->fi.err && (d->fi.fmt == S_IFCHR || d->fi.fmt == S_IFBLK) &&
	       !pos_always_zero(&d->fi);
}

/* Anonymous inodes lsof decorates with fdinfo: "[eventfd:3]". */
static bool needs_anon_info(const struct fdesc *d)
{
	const char *rest;

	if (d->fi.err || d->fi.fmt || !d->link ||
	    strncmp(d->link, "anon_inode:", 11))
		return false;
	rest = d->link + 11;
	return !strcmp(rest, "[eventfd]") || !strcmp(rest, "[pidfd]") ||
	       !strcmp(rest, "[eventpoll]");
}

static void fd_row(struct proc *p, struct fdesc *d)
{
	const char *name = "pipe", *rest = NULL;
	struct row *r;

	if (d->lstat_err == ENOENT || d->link_err == ENOENT)
		return;			/* closed since we listed it */

	/* lsof keeps descriptor numbers right-aligned in 4 (or 7) columns */
	r = row_add(&p->files, sfmt("%*d", d->fd < 10000 ? 4 : 7, d->fd));
	if (!d->lstat_err) {
		unsigned m = d->perm & (S_IRUSR | S_IWUSR);

		r->access = m == S_IRUSR ? 'r' : m == S_IWUSR ? 'w' : 'u';
	}
	if (d->link_err) {
		r->type = "unknown";
		r->name = sfmt(PROC "/%d/fd/%d (readlink: %s)", p->pid, d->fd,
			       strerror(d->link_err));
		return;
	}
	if (!d->fi.err && d->fi.fmt == S_IFSOCK) {
		struct sockrow *s = map_get(&sockets, d->fi.ino);

		r->sizeoff = "0t0";
		if (s) {
			r->type = s->type;
			r->device = s->device;
			r->node = s->node;
			r->name = s->name;
		} else {
			const char *proto = sock_proto(p->pid, d->fd);

			r->type = "sock";
			r->device = sfmt("%u,%u", d->fi.maj, d->fi.min);
			r->node = sfmt("%" PRIu64, d->fi.ino);
			r->name = proto ? sfmt("protocol: %s", proto) :
					  "can't identify protocol";
		}
		return;
	}
	if (d->link)
		link_parts(d->link, &name, &rest);
	if (!d->fi.err && !d->fi.fmt && !strcmp(name, "anon_inode")) {
		row_from_stat(r, &d->fi, true, NULL, p->pid);
		r->name = rest && *rest ? anon_name(rest, d->info, d->info_len) :
					  name;
		return;
	}
	if ((d->fi.fmt == S_IFCHR || d->fi.fmt == S_IFBLK) &&
	    !pos_always_zero(&d->fi)) {
		bool ok;
		uint64_t pos = fdinfo_pos(d->info, d->info_len, &ok);

		row_from_stat(r, &d->fi, false, ok ? offset_str(pos) : NULL,
			      p->pid);
	} else {
		/*
		 * The kernel never moves the file position of a pipe, FIFO
		 * or socket (their reads and writes ignore it and lseek
		 * fails with ESPIPE), so its fdinfo is not read: it says 0.
		 */
		row_from_stat(r, &d->fi, false, "0t0", p->pid);
	}
	r->name = name;
	if (d->fi.err)
		r->name = sfmt("%s (stat: %s)", name, strerror(d->fi.err));
}

/* ------------------------------------------------------------------ */
/* Selection.                                                         */

struct sel {
	char **items;
	bool *excl;
	bool *found;
	size_t n, cap;
};

static struct sel sel_pid, sel_uid, sel_cmd;
static bool and_mode;

static void sel_add_list(struct sel *s, char *arg)
{
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		bool ex = *tok == '^';

		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 8;
			s->items = xrealloc(s->items, s->cap * sizeof(char *));
			s->excl = xrealloc(s->excl, s->cap * sizeof(bool));
			s->found = xrealloc(s->found, s->cap * sizeof(bool));
		}
		s->items[s->n] = tok + ex;
		s->excl[s->n] = ex;
		s->found[s->n] = false;
		s->n++;
	}
}

static bool sel_has_incl(const struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->excl[i])
			return true;
	return false;
}

/*
 * 1: selected by an inclusion; 0: not mentioned; -1: excluded. @match
 * compares one item.
 */
static int sel_match(struct sel *s, bool (*match)(const char *, const void *),
		     const void *what)
{
	int r = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (!match(s->items[i], what))
			continue;
		if (s->excl[i])
			return -1;
		s->found[i] = true;
		r = 1;
	}
	return r;
}

static bool match_pid(const char *item, const void *what)
{
	return atoi(item) == *(const int *)what;
}

static bool match_uid(const char *item, const void *what)
{
	uid_t uid;

	return user_uid(item, &uid) && uid == *(const uid_t *)what;
}

static bool match_cmd(const char *item, const void *what)
{
	return !strncmp(item, what, strlen(item));
}

/* lsof: the -p, -u and -c inclusions are ORed, or ANDed with -a. */
static bool selected(struct proc *p)
{
	int r[3] = {
		sel_match(&sel_pid, match_pid, &p->pid),
		sel_match(&sel_uid, match_uid, &p->uid),
		sel_match(&sel_cmd, match_cmd, p->cmd),
	};
	const struct sel *s[3] = { &sel_pid, &sel_uid, &sel_cmd };
	bool any = false, all = true, asked = false;

	for (int i = 0; i < 3; i++) {
		if (r[i] < 0)
			return false;
		if (!sel_has_incl(s[i]))
			continue;
		asked = true;
		any |= r[i] > 0;
		all &= r[i] > 0;
	}
	return !asked || (and_mode ? all : any);
}

/* ------------------------------------------------------------------ */
/* Gathering.                                                         */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void die_call(const char *what, int err)
{
	fprintf(stderr, "%s: getvalues(%s): %s\n", prog, what, strerror(err));
	exit(1);
}

/* Run @b on /proc; a failure of the call itself ends the program. */
static void run_proc(struct batch *b)
{
	int err = b->n ? batch_run(b, PROC) : 0;

	calls += b->calls;
	b->calls = 0;
	if (err)
		die_call(PROC, err);
}

/* Round 0: the PIDs, /proc/locks, our mount namespace. */
static void list_processes(void)
{
	struct batch b = { 0 };
	size_t i_dir = SIZE_MAX, i_locks, i_ns, len;
	const char *v;
	int err, *pids = NULL;
	size_t npids = 0, pids_cap = 0;

	/* only -p (or -a with -p): no need to list /proc */
	if (!sel_has_incl(&sel_pid) ||
	    (!and_mode && (sel_has_incl(&sel_uid) || sel_has_incl(&sel_cmd))))
		i_dir = batch_add(&b, "dir:");
	i_locks = batch_add(&b, "data:locks");
	i_ns = batch_add(&b, "stat:ino:self/ns/mnt");
	err = batch_run(&b, PROC);
	calls += b.calls;
	if (err)
		die_call(PROC, err);
	v = val(&b, i_locks, &len, &err);
	locks_load(v, len);
	our_mntns_ok = val_u64(&b, i_ns, &our_mntns);

	if (i_dir != SIZE_MAX) {
		v = val(&b, i_dir, &len, &err);
		if (!v)
			die_call(PROC, err);
		for (const char *s = v; s < v + len; s += strlen(s) + 1) {
			uint64_t pid;

			if (parse_u64(s, 10, &pid) && pid <= INT_MAX) {
				GROW(pids, npids, pids_cap);
				pids[npids++] = pid;
			}
		}
	} else {
		for (size_t i = 0; i < sel_pid.n; i++) {
			uint64_t pid;

			if (sel_pid.excl[i])
				continue;
			if (!parse_u64(sel_pid.items[i], 10, &pid) ||
			    pid > INT_MAX)
				continue;
			GROW(pids, npids, pids_cap);
			pids[npids++] = pid;
		}
	}
	if (npids > 1)
		qsort(pids, npids, sizeof(*pids), cmp_int);
	for (size_t i = 0; i < npids; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		GROW(procs, nprocs, procs_cap);
		procs[nprocs++] = (struct proc){ .pid = pids[i] };
	}
	free(pids);
	batch_free(&b);
}

/* Round 1: command, state and owner; then the selection. */
static void round_identity(struct proc *ps, size_t n)
{
	struct batch b = { 0 };
	int err;

	for (size_t i = 0; i < n; i++) {
		ps[i].i_stat = batch_add(&b, "data:%d/stat", ps[i].pid);
		ps[i].i_uid = batch_add(&b, "stat:uid:%d", ps[i].pid);
	}
	run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		size_t len;
		const char *v = val(&b, p->i_stat, &len, &err);
		const char *open, *close;
		uint64_t uid;

		if (!v || !val_u64(&b, p->i_uid, &uid)) {
			p->gone = true;
			continue;
		}
		/* "pid (comm) S ...": comm may hold anything, even ")" */
		open = memchr(v, '(', len);
		close = v + len;
		while (close > v && close[-1] != ')')
			close--;
		if (!open || close <= open + 1 || close + 2 > v + len) {
			p->gone = true;
			continue;
		}
		p->cmd = sdup_n(open + 1, close - 1 - (open + 1));
		p->uid = uid;
		if (close[1] == 'Z' || !selected(p))
			p->gone = true;		/* lsof lists no zombies */
	}
	batch_free(&b);
}

/* Round 2: cwd, root, exe, maps, mount namespace, descriptors. */
static void round_process(struct proc *ps, size_t n, struct batch *b)
{
	static const char *const links[] = { "cwd", "root", "exe" };

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		char sub[64];

		if (p->gone)
			continue;
		/* the three links share one lookup of PID/ */
		for (int k = 0; k < 3; k++) {
			snprintf(sub, sizeof(sub), "%d/%s", p->pid, links[k]);
			p->i_link[k] = batch_add(b, "data:%s", sub);
			stat_names(b, "stat", sub, &p->i_st[k]);
		}
		p->i_maps = batch_add(b, "data:%d/maps", p->pid);
		p->i_ns = batch_add(b, "stat:ino:%d/ns/mnt", p->pid);
		p->i_fds = batch_add(b, "dir:%d/fd", p->pid);
	}
	run_proc(b);
}

static bool is_denied(int err)
{
	return err == EACCES || err == EPERM;
}

static void collect_fds(struct proc *p, const struct batch *b)
{
	size_t len, cap = 0;
	int err;
	const char *v = val(b, p->i_fds, &len, &err);
	int cwd_err = b->vec[p->i_link[0]].error;

	/*
	 * Another user's process (its fd directory is closed to us), or
	 * one the kernel's ptrace check keeps us out of (its links are):
	 * counted, and left out rather than shown as rows of errors.
	 */
	if (!v || is_denied(cwd_err)) {
		if (is_denied(err) || is_denied(cwd_err))
			denied++;
		p->gone = true;
		return;
	}
	for (const char *s = v; s < v + len; s += strlen(s) + 1) {
		uint64_t fd;

		if (!parse_u64(s, 10, &fd) || fd > INT_MAX)
			continue;
		GROW(p->fds, p->nfds, cap);
		p->fds[p->nfds++] = (struct fdesc){ .fd = fd };
	}
	if (p->nfds > 1)
		qsort(p->fds, p->nfds, sizeof(*p->fds), cmp_int);
}

static void get_info(struct fdesc *d, const struct batch *b)
{
	size_t len;
	int err;
	const char *v = val(b, d->i_info, &len, &err);

	d->info = v ? vdup(v, len) : NULL;
	d->info_len = v ? len : 0;
}

/*
 * The descriptors of @ps: round 3 (lstat, stat), round 4 (links, fdinfo
 * of devices), round 5 (fdinfo of the anonymous inodes lsof decorates).
 */
static void round_fds(struct proc *ps, size_t n)
{
	struct batch b = { 0 }, l = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			char sub[64];

			/* lstat and stat of one link share its directory */
			snprintf(sub, sizeof(sub), "%d/fd/%d", p->pid, d->fd);
			d->i_lstat = batch_add(&b, "lstat:mode:%s", sub);
			stat_names(&b, "stat", sub, &d->i_stat);
		}
	}
	run_proc(&b);

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			size_t len;
			const char *v = val(&b, d->i_lstat, &len, &d->lstat_err);
			char tmp[16];

			if (v && len < sizeof(tmp)) {
				memcpy(tmp, v, len);
				tmp[len] = 0;
				d->perm = strtoul(tmp, NULL, 8);
			}
			stat_get(&b, d->i_stat, &d->fi);
			d->i_link = d->i_info = SIZE_MAX;
			if (d->lstat_err == ENOENT)
				continue;
			if (needs_link(d))
				d->i_link = batch_add(&l, "data:%d/fd/%d",
						      p->pid, d->fd);
			if (needs_info(d))
				d->i_info = batch_add(&l, "data:%d/fdinfo/%d",
						      p->pid, d->fd);
			if (!d->fi.err && d->fi.fmt == S_IFSOCK &&
			    !sockets_loaded)
				sockets_load();
		}
	}
	batch_reset(&b);
	run_proc(&l);

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			size_t len;

			if (d->i_link != SIZE_MAX) {
				const char *v = val(&l, d->i_link, &len,
						    &d->link_err);

				d->link = v ? vdup(v, len) : NULL;
			}
			if (d->i_info != SIZE_MAX)
				get_info(d, &l);
			if (needs_anon_info(d))
				d->i_info = batch_add(&b, "data:%d/fdinfo/%d",
						      p->pid, d->fd);
		}
	}
	run_proc(&b);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; !ps[i].gone && k < ps[i].nfds; k++) {
			struct fdesc *d = &ps[i].fds[k];

			if (needs_anon_info(d))
				get_info(d, &b);
			fd_row(&ps[i], d);
		}
	batch_free(&b);
	batch_free(&l);
}

static void gather_group(struct proc *ps, size_t n)
{
	struct batch b = { 0 };

	round_identity(ps, n);
	round_process(ps, n, &b);
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		uint64_t ns;
		size_t len;
		int err;
		const char *v;

		if (p->gone)
			continue;
		collect_fds(p, &b);
		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			special_row(p, &b, k);
		p->other_ns = our_mntns_ok && val_u64(&b, p->i_ns, &ns) &&
			      ns != our_mntns;
		v = val(&b, p->i_maps, &len, &err);
		if (v)
			maps_parse(p, v, len);
	}
	batch_free(&b);
	round_fds(ps, n);
}

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

static void mem_rows(void)
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

/* ------------------------------------------------------------------ */
/* Output.                                                            */

static bool utf8_locale;

/* Length of a valid, printable UTF-8 sequence at @s, or 0. */
static int utf8_printable(const unsigned char *s)
{
	unsigned cp;
	int n;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
						  cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
		return 0;
	return n;
}

/*
 * lsof's safestrprt(): unprintable bytes as \b \f \n \r \t, ^X, ^? or
 * \xNN; a space too when @space is false (the COMMAND column).
 */
static size_t escape(const char *s, bool space, char *out, size_t limit)
{
	size_t o = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		char tmp[8];
		int n = utf8_locale ? utf8_printable(c) : 0;
		size_t tl;

		if (n) {
			memcpy(tmp, c, n);
			tl = n;
			c += n;
		} else {
			unsigned ch = *c++;

			if ((isprint(ch) && ch < 0x80) && (space || ch != ' '))
				tmp[0] = ch, tl = 1;
			else if (ch == '\b')
				tl = 2, memcpy(tmp, "\\b", 2);
			else if (ch == '\f')
				tl = 2, memcpy(tmp, "\\f", 2);
			else if (ch == '\n')
				tl = 2, memcpy(tmp, "\\n", 2);
			else if (ch == '\r')
				tl = 2, memcpy(tmp, "\\r", 2);
			else if (ch == '\t')
				tl = 2, memcpy(tmp, "\\t", 2);
			else if (ch < 0x20)
				tl = snprintf(tmp, sizeof(tmp), "^%c", ch + 0x40);
			else if (ch == 0xff)
				tl = 2, memcpy(tmp, "^?", 2);
			else
				tl = snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
		}
		if (o + tl > limit)
			break;
		if (out)
			memcpy(out + o, tmp, tl);
		o += tl;
	}
	if (out)
		out[o] = 0;
	return o;
}

static const char *cmd_col(const char *cmd)
{
	char *out = salloc(4 * CMD_LIMIT + 1);

	escape(cmd, false, out, CMD_LIMIT);
	return out;
}

static size_t maxz(size_t a, size_t b)
{
	return a > b ? a : b;
}

static void print_text(void)
{
	size_t wc = 7, wp = 3, wu = 4, wf = 2, wt = 4, wd = 6, ws = 8, wn = 4;

	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };
		char pid[16];

		if (p->gone || !(p->head.n + p->mem.n + p->files.n))
			continue;
		p->cmd = cmd_col(p->cmd);
		wc = maxz(wc, strlen(p->cmd));
		wp = maxz(wp, snprintf(pid, sizeof(pid), "%d", p->pid));
		wu = maxz(wu, strlen(user_name(p->uid)));
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];

				wf = maxz(wf, strlen(r->fd) + 2);
				wt = maxz(wt, strlen(r->type));
				wd = maxz(wd, strlen(r->device));
				ws = maxz(ws, strlen(r->sizeoff));
				wn = maxz(wn, strlen(r->node));
			}
	}
	printf("%-*s %*s %*s %*s   %*s %*s %*s %*s NAME\n", (int)wc, "COMMAND",
	       (int)wp, "PID", (int)wu, "USER", (int)wf - 2, "FD", (int)wt,
	       "TYPE", (int)wd, "DEVICE", (int)ws, "SIZE/OFF", (int)wn,
	       "NODE");
	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };
		const char *user = user_name(p->uid);

		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];
				char *name = xrealloc(NULL,
						      4 * strlen(r->name) + 1);
				char acc = r->access;

				if (r->lock != ' ' && acc == ' ')
					acc = '-';
				escape(r->name, true, name, SIZE_MAX);
				printf("%-*s %*d %*s %*s%c%c %*s %*s %*s %*s "
				       "%s\n", (int)wc, p->cmd, (int)wp,
				       p->pid, (int)wu, user, (int)wf - 2,
				       r->fd, acc, r->lock, (int)wt, r->type,
				       (int)wd, r->device, (int)ws,
				       r->sizeoff, (int)wn, r->node, name);
				free(name);
			}
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		int n = utf8_printable(c);

		if (n) {
			fwrite(c, 1, n, stdout);
			c += n - 1;
		} else if (*c == '"' || *c == '\\') {
			printf("\\%c", *c);
		} else if (*c < 0x20 || *c >= 0x7f) {
			/* bytes that are not UTF-8 keep their value */
			printf("\\u%04x", *c);
		} else {
			putchar(*c);
		}
	}
	putchar('"');
}

static void print_json(void)
{
	bool first = true;

	printf("{\"gvlsof\": [");
	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };

		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];
				char mode[2] = { r->access, 0 };
				char lock[2] = { r->lock, 0 };

				printf("%s\n  {\"command\": ", first ? "" : ",");
				first = false;
				json_str(p->cmd);
				printf(", \"pid\": %d, \"uid\": %u, \"user\": ",
				       p->pid, (unsigned)p->uid);
				json_str(user_name(p->uid));
				printf(", \"fd\": ");
				json_str(r->fd + strspn(r->fd, " "));
				printf(", \"mode\": ");
				json_str(r->access == ' ' ? "" : mode);
				printf(", \"lock\": ");
				json_str(r->lock == ' ' ? "" : lock);
				printf(", \"type\": ");
				json_str(r->type);
				printf(", \"device\": ");
				json_str(r->device);
				printf(", \"size/off\": ");
				json_str(r->sizeoff);
				printf(", \"node\": ");
				json_str(r->node);
				printf(", \"name\": ");
				json_str(r->name);
				putchar('}');
			}
	}
	printf("%s]}\n", first ? "" : "\n");
}

/* ------------------------------------------------------------------ */

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [-a] [-p [^]PID[,...]] [-u [^]USER[,...]] "
		"[-c [^]PREFIX] [-J] [-D]\n"
		"  List open files like \"lsof -n -P\", through getvalues().\n"
		"  -p PIDS    only these processes\n"
		"  -u USERS   only processes of these users (names or UIDs)\n"
		"  -c PREFIX  only commands starting with PREFIX\n"
		"  -a         AND the selections (default: OR)\n"
		"  -J         JSON output\n"
		"  -D         print the number of getvalues() calls on stderr\n"
		"  -h, -V     help, version\n", prog);
	exit(status);
}

static void locale_init(void)
{
	const char *l = getenv("LC_ALL");

	if (!l || !*l)
		l = getenv("LC_CTYPE");
	if (!l || !*l)
		l = getenv("LANG");
	utf8_locale = l && (strcasestr(l, "utf-8") || strcasestr(l, "utf8"));
}

static void cleanup(void)
{
	for (size_t i = 0; i < nprocs; i++) {
		free(procs[i].maps);
		free(procs[i].fds);
		free(procs[i].head.v);
		free(procs[i].mem.v);
		free(procs[i].files.v);
	}
	free(procs);
	free(mapped);
	free(users);
	map_free(&user_by_uid);
	map_free(&sockets);
	map_free(&locks);
	map_free(&mapped_by_hash);
	free(sel_pid.items);
	free(sel_pid.excl);
	free(sel_pid.found);
	free(sel_uid.items);
	free(sel_uid.excl);
	free(sel_uid.found);
	free(sel_cmd.items);
	free(sel_cmd.excl);
	free(sel_cmd.found);
	strings_free();
}

/* An inclusion that selected nothing (lsof says nothing, exits 1). */
static bool sel_missing(const struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->excl[i] && !s->found[i])
			return true;
	return false;
}

int main(int argc, char **argv)
{
	bool json = false, debug = false, missing, listed = false;
	int opt;

	while ((opt = getopt(argc, argv, "ap:u:c:JDhV")) != -1) {
		switch (opt) {
		case 'a': and_mode = true; break;
		case 'p': sel_add_list(&sel_pid, optarg); break;
		case 'u': sel_add_list(&sel_uid, optarg); break;
		case 'c': sel_add_list(&sel_cmd, optarg); break;
		case 'J': json = true; break;
		case 'D': debug = true; break;
		case 'h': usage(stdout, 0); break;
		case 'V':
			printf("gvlsof (libgetvalues %d.%d)\n",
			       GETVALUES_VERSION_MAJOR,
			       GETVALUES_VERSION_MINOR);
			return 0;
		default: usage(stderr, 2);
		}
	}
	if (optind < argc)
		usage(stderr, 2);
	for (size_t i = 0; i < sel_pid.n; i++) {
		uint64_t pid;

		if (!parse_u64(sel_pid.items[i], 10, &pid) || pid > INT_MAX) {
			fprintf(stderr, "%s: illegal process ID: %s\n", prog,
				sel_pid.items[i]);
			return 1;
		}
	}
	users_load();
	for (size_t i = 0; i < sel_uid.n; i++) {
		uid_t uid;

		if (!user_uid(sel_uid.items[i], &uid)) {
			fprintf(stderr, "%s: can't get UID for %s\n", prog,
				sel_uid.items[i]);
			return 1;
		}
	}
	locale_init();
	pipefs_probe();

	list_processes();
	for (size_t i = 0; i < nprocs; i += GROUP_PROCS)
		gather_group(procs + i, nprocs - i < GROUP_PROCS ?
					nprocs - i : GROUP_PROCS);
	mem_rows();

	for (size_t i = 0; i < nprocs; i++)
		listed |= !procs[i].gone;
	if (json)
		print_json();
	else if (listed)
		print_text();
	fflush(stdout);
	if (denied)
		fprintf(stderr, "%s: %zu process%s not inspected (permission "
			"denied)\n", prog, denied, denied == 1 ? "" : "es");
	if (debug)
		fprintf(stderr, "%s: %zu getvalues() calls\n", prog, calls);
	missing = sel_missing(&sel_pid) || sel_missing(&sel_uid) ||
		  sel_missing(&sel_cmd);
	cleanup();
	return missing || !listed;
}
