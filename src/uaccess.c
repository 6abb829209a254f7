// SPDX-License-Identifier: MIT
/*
 * uaccess.c - reading and writing the caller's memory without trusting it.
 *
 * A system call given a bad pointer returns EFAULT; a library that simply
 * dereferenced it would crash. process_vm_readv(2)/process_vm_writev(2) on
 * our own pid let the kernel do the copy and report EFAULT instead. They cost
 * a system call each, so writes are batched: many values, one call.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#define GV_PAGE 4096u

/*
 * Our pid, fetched once per call (getpid() is a system call since glibc
 * 2.25): set by gv_self_begin(), cleared by gv_self_end() and in a child
 * after fork(), so that a stale pid never points at another process.
 */
static __thread pid_t gv_self;

void gv_self_begin(void)
{
	gv_self = getpid();
}

void gv_self_end(void)
{
	gv_self = 0;
}

static pid_t gv_pid(void)
{
	return gv_self ? gv_self : getpid();
}

/*
 * One transfer of @len bytes. A partial transfer means some page in the
 * range is not accessible: that is EFAULT for the whole range.
 */
static int gv_vm_rw(bool write, uintptr_t remote, void *local, size_t len)
{
	struct iovec l = { .iov_base = local, .iov_len = len };
	struct iovec r = { .iov_base = (void *)remote, .iov_len = len };
	ssize_t n;

	if (!len)
		return 0;
	if (!remote || remote + len < remote)
		return -EFAULT;
	n = write ? process_vm_writev(gv_pid(), &l, 1, &r, 1, 0) :
		    process_vm_readv(gv_pid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EFAULT)
		return -EFAULT;
	return -errno;
}

int gv_copy_from_user(void *dst, uintptr_t src, size_t len)
{
	return gv_vm_rw(false, src, dst, len);
}

int gv_copy_to_user(uintptr_t dst, const void *src, size_t len)
{
	return gv_vm_rw(true, dst, (void *)src, len);
}

/*
 * Up to IOV_MAX writes per system call. Returns how many of the @n writes
 * landed completely, in order; the first one that did not is at the index
 * returned (a later one may have been skipped, never half done silently:
 * the caller redoes everything from that index).
 */
size_t gv_copy_to_user_batch(const char *arena, const struct gv_uwrite *w,
			     size_t n)
{
	struct iovec l[64], r[64];
	size_t done = 0;

	while (done < n) {
		size_t k = 0, total = 0, landed;
		ssize_t got;

		while (done + k < n && k < GV_ARRAY_SIZE(l)) {
			const struct gv_uwrite *x = &w[done + k];

			if (!x->dst || x->dst + x->len < x->dst)
				break;
			l[k].iov_base = (void *)(arena + x->off);
			l[k].iov_len = x->len;
			r[k].iov_base = (void *)x->dst;
			r[k].iov_len = x->len;
			total += x->len;
			k++;
		}
		if (!k)
			return done;
		got = process_vm_writev(gv_pid(), l, k, r, k, 0);
		if (got == (ssize_t)total) {
			done += k;
			continue;
		}
		/* count the writes that fit entirely in what was copied */
		landed = 0;
		while (got > 0 && landed < k && (size_t)got >= l[landed].iov_len) {
			got -= l[landed].iov_len;
			landed++;
		}
		return done + landed;
	}
	return done;
}

/*
 * Read at most @max bytes plus the NUL. Reads page by page, so that a string
 * that ends just before an inaccessible page is still read. Returns the
 * length, -EFAULT, or -ENAMETOOLONG when no NUL comes within @max + 1 bytes.
 */
int gv_strncpy_from_user(char *dst, uintptr_t src, size_t max)
{
	size_t got = 0;

	if (!src)
		return -EFAULT;
	while (got <= max) {
		size_t chunk = GV_PAGE - ((src + got) & (GV_PAGE - 1));
		char *nul;
		int err;

		if (chunk > max + 1 - got)
			chunk = max + 1 - got;
		err = gv_copy_from_user(dst + got, src + got, chunk);
		if (err)
			return err;
		nul = memchr(dst + got, 0, chunk);
		if (nul)
			return nul - dst;
		got += chunk;
	}
	return -ENAMETOOLONG;
}

/*
 * Read @n strings at once: string i goes to @dst + i * (@max + 1), @lens[i]
 * gets its length or a negative errno as gv_strncpy_from_user() gives. The
 * first page of every string is read in batches of one system call; only
 * strings that cross a page boundary or sit on a bad page are read alone.
 */
void gv_strncpy_from_user_batch(char *dst, const uintptr_t *src, int *lens,
				size_t n, size_t max)
{
	struct iovec l[64], r[64];
	size_t idx[64];
	size_t i = 0;

	while (i < n) {
		size_t k = 0, j;
		ssize_t got;

		for (; i < n && k < GV_ARRAY_SIZE(l); i++) {
			size_t chunk;

			if (!src[i]) {
				lens[i] = -EFAULT;
				continue;
			}
			chunk = GV_PAGE - (src[i] & (GV_PAGE - 1));
			if (chunk > max + 1)
				chunk = max + 1;
			l[k].iov_base = dst + i * (max + 1);
			r[k].iov_base = (void *)src[i];
			l[k].iov_len = r[k].iov_len = chunk;
			idx[k++] = i;
		}
		if (!k)
			break;
		got = process_vm_readv(gv_pid(), l, k, r, k, 0);
		if (got < 0)
			got = 0;
		for (j = 0; j < k; j++) {
			char *s = l[j].iov_base, *nul;
			size_t len = l[j].iov_len;

			if ((size_t)got < len) {
				/* this one (or an earlier page) failed */
				lens[idx[j]] = gv_strncpy_from_user(s,
						(uintptr_t)r[j].iov_base, max);
				got = 0;
				continue;
			}
			got -= len;
			nul = memchr(s, 0, len);
			if (nul)
				lens[idx[j]] = nul - s;
			else if (len == max + 1)
				lens[idx[j]] = -ENAMETOOLONG;
			else
				lens[idx[j]] = gv_strncpy_from_user(s,
						(uintptr_t)r[j].iov_base, max);
		}
	}
}
