// SPDX-License-Identifier: MIT
/*
 * fetch.c - the values of a round fetched: its names gathered in a batch,
 * many names, one getvalues_alloc_each() call (which makes more if a value
 * overflows), and a large batch shared out between threads, one per CPU,
 * so that the system calls of one round run on every CPU; and the stat
 * fields of one object, asked and read back (stat_names(), stat_get()).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gvlsof.h"

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

size_t batch_add(struct batch *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	size_t i;
	char *dst;
	int len;

	/* most names fit the small buffer: one formatting, one copy */
	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	i = batch_slot(b, len);
	dst = b->names + b->off[i];
	if ((size_t)len < sizeof(small)) {
		memcpy(dst, small, len + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(dst, len + 1, fmt, ap);
		va_end(ap);
	}
	return i;
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
	char digits[UTOA_MAX];
	char *p;

	if (num >= 0)
		ln = (size_t)utoa(digits, (unsigned long)num);
	i = batch_slot(b, la + lb + lc + ln);
	p = b->names + b->off[i];
	memcpy(p, a, la);
	memcpy(p + la, bb, lb);
	memcpy(p + la + lb, c, lc);
	memcpy(p + la + lb + lc, digits, ln);
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

/* ------------------------------------------------------------------ */
/* Running a batch.                                                   */

/*
 * A round of gvlsof is thousands of small system calls (a readlink or two
 * statx per descriptor), nearly all of its time; each entry stands on its
 * own, and getvalues() is thread-safe. So from PAR_MIN names on, a batch
 * is cut into parts at process boundaries (the library looks up a
 * process's directory once for the names of it that follow each other),
 * and the threads, this one and a helper per further CPU, each take the
 * next part until none is left. A part is one getvalues_alloc_each() call
 * with a buffer of its own; the values are the same as one call would
 * give, only sooner. Sharing out costs a wake-up of the helpers and
 * a call's fixed system calls per part, some tens of microseconds, against
 * one to three per name; a batch of a few large values (the /proc/net
 * tables, b->big) is shared out a name or more a part.
 */
#define PAR_MIN		128	/* names from which a batch is shared out */
#define PAR_PART_MIN	64	/* names of a part, at least */
#define PAR_THREADS	4	/* threads at most, this one included */
#define PAR_PARTS	64	/* parts of a batch at most */

struct part {
	size_t from, to;
	void *buf;		/* its values, handed to the batch at the end */
	int err;		/* of the call itself, or ENOMEM */
};

/*
 * A job a helper runs beside the rounds (bg_start()): what the main thread
 * would otherwise do alone in between them, net.c's tables.
 */
struct bgjob {
	void (*fn)(void);
	bool taken, done;
	void *strings;		/* what it allocated (salloc) */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, done, job_done;
	int threads;		/* 0: not decided yet */
	unsigned long gen;	/* one more for each batch shared out */
	struct batch *b;
	const char *origin;
	struct part parts[PAR_PARTS];
	size_t nparts, next, pending;
	struct bgjob job;
	bool job_set;
} par = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.job_done = PTHREAD_COND_INITIALIZER,
};

/* Set while this thread runs a job: its batches are not shared out. */
static __thread bool in_job;

/*
 * The buffer of part @p cut to the values in it. getvalues_alloc_each()
 * gives a buffer of 64 KiB and 256 bytes a name, and a name here mostly
 * has a link or a number of some tens of bytes: nine tenths of it are
 * never written. A part's buffer is kept until its batch is reset, the
 * parts' buffers lie one after another in the heap, and the heap is in
 * huge pages (main.c), each zeroed whole when any byte of it is first
 * touched: a listing of 6,000 descriptors zeroed 5 MiB of heap for such
 * buffers. Cut, the rest goes to the next part. (glibc shrinks a block in
 * place; if it ever moved, the values are pointed at the new place.)
 */
static void part_shrink(struct batch *b, struct part *p)
{
	uintptr_t start = (uintptr_t)p->buf, end = start, top;
	char *nbuf;

	if (!p->buf)
		return;
	top = start + malloc_usable_size(p->buf);
	for (size_t i = p->from; i < p->to; i++) {
		const struct iovec *v = &b->vec[i].value_out;
		uintptr_t s = (uintptr_t)v->iov_base;

		if (!b->vec[i].error && s >= start && s + v->iov_len <= top &&
		    s + v->iov_len > end)
			end = s + v->iov_len;
	}
	if (top - end < 4096)
		return;
	nbuf = realloc(p->buf, end - start + 1);
	if (!nbuf || nbuf == p->buf)
		return;
	for (size_t i = p->from; i < p->to; i++) {
		struct iovec *v = &b->vec[i].value_out;
		uintptr_t s = (uintptr_t)v->iov_base;

		if (!b->vec[i].error && s >= start && s < end + 1)
			v->iov_base = nbuf + (s - start);
	}
	p->buf = nbuf;
}

/*
 * The names of part @p, every one of them, through getvalues_alloc_each():
 * it grows the buffer and goes on after a value that does not fit; one
 * that does not fit the largest buffer keeps its EOVERFLOW. A part is a
 * call of its own: its first name is given in full.
 */
static void run_part(struct batch *b, const char *origin, struct part *p)
{
	if (p->from == p->to)
		return;		/* no names: no call */
	b->vec[p->from].name = b->names + b->off[p->from];
	if (getvalues_alloc_each(AT_FDCWD, origin, b->vec + p->from,
				 p->to - p->from, 0, BATCH_MAX_BUF,
				 &p->buf) < 0)
		p->err = errno;
	else
		part_shrink(b, p);
}

/* Take parts until none is left; called and returns with par.lock held. */
static void take_parts(void)
{
	while (par.next < par.nparts) {
		struct part *p = &par.parts[par.next++];

		pthread_mutex_unlock(&par.lock);
		run_part(par.b, par.origin, p);
		pthread_mutex_lock(&par.lock);
		if (!--par.pending)
			pthread_cond_signal(&par.done);
	}
}

/*
 * A helper has a descriptor table of its own (a copy of the process's as
 * it is now): the descriptors the library opens and closes in each thread
 * then follow each other, and go in one close_range(2) a run, as with one
 * thread, rather than one close(2) each when two threads take numbers in
 * turn; and neither thread's system calls share the table's lock and
 * counts with the other's. It needs nothing from the table but what the
 * library opens in its calls (procfs through "thread-self", which names
 * the calling thread's table). The library keys its fork bookkeeping by
 * descriptor number for the whole process; gvlsof never forks. Where
 * unshare(2) is refused, the table stays shared, which only costs more.
 */
static bool job_waiting(void)
{
	return par.job_set && !par.job.taken;
}

/* Run the job; called and returns with par.lock held. */
static void run_job(void)
{
	struct bgjob *j = &par.job;

	j->taken = true;
	pthread_mutex_unlock(&par.lock);
	in_job = true;
	j->fn();
	in_job = false;
	j->strings = strings_take();
	pthread_mutex_lock(&par.lock);
	j->done = true;
	pthread_cond_broadcast(&par.job_done);
}

static void *helper(void *arg)
{
	unsigned long seen = 0;

	(void)arg;
	unshare(CLONE_FILES);
	pthread_mutex_lock(&par.lock);
	for (;;) {
		while (par.gen == seen && !job_waiting())
			pthread_cond_wait(&par.work, &par.lock);
		if (job_waiting()) {
			run_job();
			continue;
		}
		seen = par.gen;
		take_parts();
	}
	return NULL;
}

/*
 * How many threads run a large batch: one per CPU this process may run on,
 * up to PAR_THREADS, decided and started once. A helper that cannot be
 * started leaves the work to the threads that could.
 */
static int par_threads(void)
{
	sigset_t all, old;
	cpu_set_t set;
	int want = 1;

	if (par.threads)
		return par.threads;
	if (!sched_getaffinity(0, sizeof(set), &set))
		want = CPU_COUNT(&set);
	if (want > PAR_THREADS)
		want = PAR_THREADS;
	par.threads = 1;
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; par.threads < want; par.threads++) {
		pthread_t t;

		if (pthread_create(&t, NULL, helper, NULL))
			break;
		pthread_detach(t);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return par.threads;
}

/*
 * @fn run by a helper, beside the main thread's rounds, and false where
 * there is no helper (one CPU): then the caller runs it when it needs it.
 * bg_wait() waits for it (or runs it, if no helper has taken it yet).
 * One job at a time; what it allocates with salloc() is the main thread's
 * after bg_wait(), and its batches are not shared out.
 */
bool bg_start(void (*fn)(void))
{
	if (par.job_set || par_threads() <= 1)
		return false;
	pthread_mutex_lock(&par.lock);
	par.job = (struct bgjob){ .fn = fn };
	par.job_set = true;
	pthread_cond_broadcast(&par.work);
	pthread_mutex_unlock(&par.lock);
	return true;
}

void bg_wait(void)
{
	if (!par.job_set)
		return;
	pthread_mutex_lock(&par.lock);
	if (job_waiting())
		run_job();
	while (!par.job.done)
		pthread_cond_wait(&par.job_done, &par.lock);
	par.job_set = false;
	pthread_mutex_unlock(&par.lock);
	strings_adopt(par.job.strings);
}

/* The first path component of a name's SUBPATH: its process, in /proc. */
static const char *name_proc(const char *name, size_t *len)
{
	const char *s = strchr(name, ':'), *e;

	if (!s)
		return *len = 0, "";
	s++;
	if ((!strncmp(name, "stat:", 5) || !strncmp(name, "lstat:", 6)) &&
	    !(s = strchr(s, ':')))
		return *len = 0, "";
	if (*s == ':')
		s++;
	e = strchrnul(s, '/');
	*len = e - s;
	return s;
}

static bool proc_boundary(const struct batch *b, size_t i)
{
	size_t l1, l2;
	const char *p1 = name_proc(b->names + b->off[i - 1], &l1);
	const char *p2 = name_proc(b->names + b->off[i], &l2);

	return l1 != l2 || memcmp(p1, p2, l1);
}

/*
 * Cut entries [0, n) of @b into parts for @threads threads, at process
 * boundaries: each part takes a 1/(2 * @threads) share of the names left,
 * and at least @min, so that the parts grow smaller towards the end and a
 * thread that takes the last one keeps the others waiting for little (a
 * batch of equal parts ended with one thread idle for half a part, on
 * average, some milliseconds a listing).
 */
static size_t cut_parts(const struct batch *b, struct part *parts,
			size_t threads, size_t min)
{
	size_t from = 0, k = 0;

	while (from < b->n) {
		size_t left = b->n - from, want = left / (2 * threads), to;

		if (want < min)
			want = min;
		to = k == PAR_PARTS - 1 || want >= left ? b->n : from + want;
		/* to the next process, unless that is half a part away */
		for (size_t t = to, end = to + want / 2; t < end && t < b->n;
		     t++)
			if (proc_boundary(b, t)) {
				to = t;
				break;
			}
		parts[k++] = (struct part){ .from = from, .to = to };
		from = to;
	}
	return k;
}

/*
 * Run every name added since the last reset. A name that repeats the group
 * of the one before it is sent in its ":REST" form; the first name of each
 * part is sent in full. A value too large for BATCH_MAX_BUF gets EOVERFLOW,
 * the others are all fetched. Returns 0 or the errno of the call itself
 * ($ORIGIN could not be resolved...).
 */
int batch_run(struct batch *b, const char *origin)
{
	struct part one = { .from = 0, .to = b->n }, *parts = &one;
	size_t nparts = 1;
	int err = 0;

	for (size_t i = 0, pg = 0; i < b->n; i++) {
		const char *cur = batch_name(b, i), *prev;
		size_t g = group_len(cur);

		b->vec[i].name = cur;
		/* @pg: the previous name's group; its length from the offsets */
		if (i && g && pg == g) {
			prev = batch_name(b, i - 1);
			if (!memcmp(prev, cur, g) &&
			    b->off[i] - b->off[i - 1] - 1 <= 255)
				b->vec[i].name = cur + g;
		}
		pg = g;
	}
	if ((b->n >= PAR_MIN || (b->big && b->n > 1)) && !in_job &&
	    par_threads() > 1) {
		pthread_mutex_lock(&par.lock);
		par.nparts = cut_parts(b, par.parts, (size_t)par.threads,
				       b->big ? 1 : PAR_PART_MIN);
		par.b = b;
		par.origin = origin;
		par.next = 0;
		par.pending = par.nparts;
		par.gen++;
		pthread_cond_broadcast(&par.work);
		take_parts();
		while (par.pending)
			pthread_cond_wait(&par.done, &par.lock);
		pthread_mutex_unlock(&par.lock);
		parts = par.parts;
		nparts = par.nparts;
	} else {
		run_part(b, origin, &one);
	}
	for (size_t k = 0; k < nparts; k++) {
		struct part *p = &parts[k];

		if (p->buf) {
			GROW(b->bufs, b->nbufs, b->bufs_cap);
			b->bufs[b->nbufs++] = p->buf;
		}
		if (p->err == ENOMEM)
			die("out of memory");
		if (!err)
			err = p->err;
	}
	if (err)
		return err;
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

void batch_release(struct batch *b)
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

/* The decimal at @v (up to @end), to a non-digit; false if none or huge. */
static bool dec_u32(const char **v, const char *end, unsigned int *out)
{
	const char *p = *v;
	uint64_t x = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (unsigned int)(*p - '0');
		if (x > UINT32_MAX)
			return false;
	}
	if (p == *v)
		return false;
	*out = (unsigned int)x;
	*v = p;
	return true;
}

/* "major:minor" (two stat fields a descriptor: without sscanf) */
bool val_dev(const struct batch *b, size_t i, dev_t *dev)
{
	size_t len;
	int err;
	const char *v = val(b, i, &len, &err), *end;
	unsigned int maj, min;

	if (!v)
		return false;
	end = v + len;
	if (!dec_u32(&v, end, &maj) || v == end || *v++ != ':' ||
	    !dec_u32(&v, end, &min) || v != end)
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
