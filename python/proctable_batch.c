// SPDX-License-Identifier: MIT
/*
 * proctable_batch.c - the names of many processes' files ("data:PID/stat",
 * "dir:PID/fd", ...) put together without printf, and run relative to
 * /proc in getvalues_alloc_each() calls of PT_CALL_NAMES names each: a
 * call's buffer grows until its values fit, and every value stays where
 * it is until the table is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "getvalues.h"
#include "proctable.h"

#define PT_CALL_NAMES	1024		/* names of one getvalues() call */
#define PT_VALUE_MAX	(64UL << 20)	/* the largest value: an environ */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* The decimal digits of @v at the end of @buf; returns where they start. */
static char *digits(char *end, long long v)
{
	unsigned long long u = (unsigned long long)v;

	do {
		*--end = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return end;
}

/*
 * The name @what@pid/@sub, and @id after it unless @id is negative:
 * "data:" 1234 "/task/" 1235 "/stat" is two calls' worth, so @sub may hold
 * a '%' that stands for @id ("task/%/stat"). A batch that cannot grow
 * keeps n at SIZE_MAX: pt_batch_run() then fails with ENOMEM.
 */
void pt_batch_add(struct pt_batch *b, const char *what, int pid,
		  const char *sub, long long id)
{
	char num[2][24], *pn, *in = NULL, *d;
	const char *pct = strchr(sub, '%');
	size_t lw = strlen(what), ls = strlen(sub), lp, li = 0, len;

	if (b->n == SIZE_MAX)
		return;
	pn = digits(num[0] + 24, pid);
	lp = (size_t)(num[0] + 24 - pn);
	if (id >= 0) {
		in = digits(num[1] + 24, id);
		li = (size_t)(num[1] + 24 - in);
	}
	len = lw + lp + 1 + ls + li;
	if (grow((void **)&b->names, &b->names_cap, b->names_len + len + 1, 1) ||
	    grow((void **)&b->vec, &b->cap, b->n + 1, sizeof(*b->vec)) ||
	    grow((void **)&b->off, &b->off_cap, b->n + 1, sizeof(*b->off))) {
		b->n = SIZE_MAX;
		return;
	}
	d = b->names + b->names_len;
	memcpy(d, what, lw);
	d += lw;
	memcpy(d, pn, lp);
	d += lp;
	*d++ = '/';
	if (pct) {
		size_t head = (size_t)(pct - sub);

		memcpy(d, sub, head);
		d += head;
		memcpy(d, in, li);
		d += li;
		memcpy(d, pct + 1, ls - head - 1);
		d += ls - head - 1;
	} else {
		memcpy(d, sub, ls);
		d += ls;
		if (li) {
			memcpy(d, in, li);
			d += li;
		}
	}
	*d = 0;
	b->vec[b->n] = (struct name_val){ 0 };
	b->off[b->n++] = b->names_len;
	b->names_len = (size_t)(d + 1 - b->names);
}

/* the threads of a shared round (proctable_share.c) push at once */
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;

int pt_push_buf(struct pt_table *t, void *buf)
{
	int err = 0;

	if (!buf)
		return 0;
	pthread_mutex_lock(&buf_lock);
	if (grow((void **)&t->bufs, &t->bufs_cap, t->nbufs + 1,
		 sizeof(*t->bufs))) {
		free(buf);
		err = -1;
	} else {
		t->bufs[t->nbufs++] = buf;
	}
	pthread_mutex_unlock(&buf_lock);
	return err;
}

/*
 * The module's getvalues() calls take this shared, and a retry of entries
 * that found no descriptor takes it alone: then no other thread of a
 * listing (proctable_share.c, or another Python thread's listing) holds
 * descriptors of a call, which may be many at once (getvalues(3), NOTES:
 * closes are batched), and what still fails fails for want of them.
 */
static pthread_rwlock_t call_lock = PTHREAD_RWLOCK_INITIALIZER;

/* In a child forked while another thread held it: that thread is gone. */
void pt_batch_fork_child(void)
{
	pthread_mutex_init(&buf_lock, NULL);
	pthread_rwlock_init(&call_lock, NULL);
}

static bool pt_no_fd(uint32_t err)
{
	return err == EMFILE || err == ENFILE;
}

void pt_calls_exclude(bool exclude)
{
	if (exclude)
		pthread_rwlock_wrlock(&call_lock);
	else
		pthread_rwlock_unlock(&call_lock);
}

/*
 * One getvalues() call of the module, alongside the others or (@alone)
 * with them kept out. 0, or the call's errno.
 */
static int pt_call(struct name_val *vec, size_t n, void **buf, bool alone)
{
	int err = 0;

	if (alone)
		pthread_rwlock_wrlock(&call_lock);
	else
		pthread_rwlock_rdlock(&call_lock);
	if (getvalues_alloc_each(AT_FDCWD, "/proc", vec, n, 0, PT_VALUE_MAX,
				 buf) < 0)
		err = errno ? errno : EIO;
	pthread_rwlock_unlock(&call_lock);
	return err;
}

/*
 * The entries of @vec (@n) that got EMFILE or ENFILE, if any, read again
 * with the module's other calls kept out: a descriptor that another
 * thread's call held may be free now. 0, or the errno of the call.
 */
static int pt_batch_retry(struct pt_table *t, struct name_val *vec, size_t n)
{
	struct name_val *again;
	size_t *at, k = 0;
	void *buf = NULL;
	int err;

	for (size_t i = 0; i < n; i++)
		k += pt_no_fd(vec[i].error);
	if (!k)
		return 0;
	again = malloc(k * sizeof(*again));
	at = malloc(k * sizeof(*at));
	if (!again || !at) {
		free(again);
		free(at);
		return ENOMEM;
	}
	for (size_t i = 0, j = 0; i < n; i++)
		if (pt_no_fd(vec[i].error)) {
			again[j] = (struct name_val){ .name = vec[i].name };
			at[j++] = i;
		}
	err = pt_call(again, k, &buf, true);
	if (!err && pt_push_buf(t, buf))
		err = ENOMEM;
	for (size_t j = 0; !err && j < k; j++)
		vec[at[j]] = again[j];
	free(again);
	free(at);
	return err;
}

/*
 * An entry's error that psutil would raise from open(2) as OSError, not
 * take for a process gone or a file refused: no descriptor or no memory.
 * A table then fails as a whole rather than leave processes out. So does
 * ENOSYS: the library cannot open files here (openat2(2) missing, before
 * Linux 5.6, or refused by a seccomp filter), where psutil's open(2)
 * could; every process would be left out.
 */
static int pt_batch_fatal(const struct name_val *vec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pt_no_fd(vec[i].error) || vec[i].error == ENOMEM ||
		    vec[i].error == ENOSYS)
			return (int)vec[i].error;
	return 0;
}

/*
 * The @n entries of @vec in one getvalues() call; the call, or the entries
 * that found no descriptor, once more alone.
 */
static int pt_batch_call(struct pt_table *t, struct name_val *vec, size_t n)
{
	void *buf = NULL;
	int err = pt_call(vec, n, &buf, false);

	if (pt_no_fd((uint32_t)err))
		err = pt_call(vec, n, &buf, true);
	if (err)
		return err;
	if (pt_push_buf(t, buf))
		return ENOMEM;
	err = pt_batch_retry(t, vec, n);
	return err ? err : pt_batch_fatal(vec, n);
}

/*
 * Every name of @b, relative to /proc; its values stay in @t's buffers.
 * 0, or the errno that fails the table: of a call, or pt_batch_fatal().
 */
int pt_batch_run(struct pt_table *t, struct pt_batch *b)
{
	int err = 0;

	if (b->n == SIZE_MAX)
		return ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		b->vec[i].name = b->names + b->off[i];
	for (size_t from = 0; !err && from < b->n; from += PT_CALL_NAMES)
		err = pt_batch_call(t, b->vec + from,
				    b->n - from < PT_CALL_NAMES ?
				    b->n - from : PT_CALL_NAMES);
	return err;
}

void pt_batch_free(struct pt_batch *b)
{
	free(b->vec);
	free(b->off);
	free(b->names);
	*b = (struct pt_batch){ 0 };
}

void pt_val_set(struct pt_val *v, const struct name_val *nv)
{
	v->err = nv->error;
	v->p = nv->error ? "" : nv->value_out.iov_base;
	v->len = nv->error ? 0 : (uint32_t)nv->value_out.iov_len;
	if (!v->p)
		v->p = "";
}
