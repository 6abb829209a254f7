// SPDX-License-Identifier: MIT
/*
 * uaccess.c - reading and writing the caller's memory without trusting it.
 *
 * A system call given a bad pointer returns EFAULT; a library that simply
 * dereferenced it would crash. process_vm_readv(2)/process_vm_writev(2) on
 * our own pid let the kernel do the copy and report EFAULT instead. They cost
 * a system call each, so writes are batched: many values, one call.
 *
 * Where they are missing (CONFIG_CROSS_MEMORY_ATTACH=n) or filtered (the
 * default seccomp profile of container runtimes), a pipe does the same job
 * at two system calls per copy: write(2) from the caller's memory into the
 * pipe, or read(2) from the pipe into it, each of which reports EFAULT.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fds.h"
#include "uaccess.h"

#define GV_PAGE 4096u
/* pieces from which a batch write goes through a pipe: gv_pipe_scatter() */
#define GV_SCATTER_PIPE 64
/* what a pipe holds until F_GETPIPE_SZ says otherwise: Linux's default */
#define GV_PIPE_GUESS (16 * GV_PAGE)
/* regions a name may join: see gv_strings_from_user() */
#define GV_RECENT_REGIONS 4

/* 0: process_vm_readv/writev work as far as we know; 1: use the pipe */
static int gv_use_pipe;
/*
 * The pipe of the current call, made on first use, closed at its end;
 * its size, 0 until asked (F_GETPIPE_SZ, once a write needs it).
 */
static __thread int gv_pipe[2] = { -1, -1 };
static __thread size_t gv_pipe_size;

void gv_uaccess_end(void)
{
	if (gv_pipe[0] >= 0) {
		gv_fd_close(gv_pipe[0]);
		gv_fd_close(gv_pipe[1]);
		gv_pipe[0] = gv_pipe[1] = -1;
	}
}

/*
 * The call's pipe into @c, closed in one close_range(2) with the call's
 * other descriptors; no more the thread's before that, so that a signal
 * handler's call meanwhile makes a pipe of its own.
 */
void gv_uaccess_defer(struct gv_closer *c)
{
	int p[2] = { gv_pipe[0], gv_pipe[1] };

	if (p[0] < 0)
		return;
	gv_pipe[0] = gv_pipe[1] = -1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	gv_fd_defer(c, p[0]);
	gv_fd_defer(c, p[1]);
}

/*
 * The calling thread, not the process: process_vm_readv(2) of a process
 * whose main thread has exited (pthread_exit()) fails with ESRCH, since
 * the zombie leader has no memory map any more; its threads still do.
 */
static pid_t gv_pid(void)
{
	return gv_tid();
}

/* Errors that say the mechanism is unavailable, not that memory is bad. */
static bool gv_pvm_unavailable(int err)
{
	if (err != ENOSYS && err != EPERM && err != EACCES)
		return false;
	__atomic_store_n(&gv_use_pipe, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * read(2) and write(2) as raw system calls: the caller's memory is read the
 * way a system call reads it, page by page up to a fault, and a sanitizer's
 * interceptor must not check (and reject) a name window that runs past the
 * end of a string into memory that is mapped but not the string's.
 */
static ssize_t gv_sys_read(int fd, void *buf, size_t len)
{
	return syscall(SYS_read, fd, buf, len);
}

static ssize_t gv_sys_write(int fd, const void *buf, size_t len)
{
	return syscall(SYS_write, fd, buf, len);
}

/* Read and drop @len bytes the pipe still holds after a failed copy. */
static void gv_pipe_drain(size_t len)
{
	char buf[512];

	while (len) {
		ssize_t n = gv_sys_read(gv_pipe[0], buf,
					len < sizeof(buf) ? len : sizeof(buf));

		if (n <= 0)
			break;
		len -= n;
	}
}

/* The pipe of this call, made on first use; 0 or -errno. */
static int gv_pipe_open(void)
{
	if (gv_pipe[0] >= 0)
		return 0;
	if (pipe2(gv_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	gv_fd_own(gv_pipe[0]);
	gv_fd_own(gv_pipe[1]);
	gv_pipe_size = 0;
	return 0;
}

/* The size of the open pipe, asked the first time. */
static size_t gv_pipe_size_ask(void)
{
	int size;

	if (!gv_pipe_size) {
		size = fcntl(gv_pipe[0], F_GETPIPE_SZ);
		gv_pipe_size = size > 0 ? (size_t)size : GV_PAGE;
	}
	return gv_pipe_size;
}

/*
 * What the pipe holds as far as a scatter write knows: Linux's default
 * until it was asked. A pipe made past the user's pipe-user-pages-soft
 * holds less, and a writev(2) into it comes short: then it is asked.
 */
static size_t gv_pipe_cap(void)
{
	return gv_pipe_size ? gv_pipe_size : GV_PIPE_GUESS;
}

/* One copy through the pipe; the pipe is empty before and after. */
static int gv_pipe_rw(bool write_user, uintptr_t remote, void *local,
		      size_t len)
{
	int err = gv_pipe_open();

	if (err)
		return err;
	gv_pipe_size_ask();
	while (len) {
		size_t chunk = len < gv_pipe_size ? len : gv_pipe_size;
		ssize_t in, out;

		if (write_user) {
			in = gv_sys_write(gv_pipe[1], local, chunk);
			if (in != (ssize_t)chunk) {
				gv_pipe_drain(in > 0 ? in : 0);
				return -EIO;
			}
			out = gv_sys_read(gv_pipe[0], (void *)remote, chunk);
		} else {
			in = gv_sys_write(gv_pipe[1], (void *)remote, chunk);
			if (in < 0)
				return errno == EFAULT ? -EFAULT : -errno;
			out = gv_sys_read(gv_pipe[0], local, in);
			if (in != (ssize_t)chunk) {
				/* a bad page part of the way */
				gv_pipe_drain(in - (out > 0 ? out : 0));
				return -EFAULT;
			}
		}
		if (out != (ssize_t)chunk) {
			gv_pipe_drain(chunk - (out > 0 ? out : 0));
			return -EFAULT;
		}
		remote += chunk;
		local = (char *)local + chunk;
		len -= chunk;
	}
	return 0;
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
	if (__atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED))
		return gv_pipe_rw(write, remote, local, len);
	n = write ? process_vm_writev(gv_pid(), &l, 1, &r, 1, 0) :
		    process_vm_readv(gv_pid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && gv_pvm_unavailable(errno))
		return gv_pipe_rw(write, remote, local, len);
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
 * One read(2) of @fd into the caller's memory at @dst. The kernel refuses a
 * whole read whose range leaves the address space (access_ok()), even when
 * the bytes read would land in mapped memory, and a buffer declared longer
 * than its mapping is fine as long as what is read fits what is mapped
 * (SPEC v2): a read asks for at most @chunk bytes, and a refused one is
 * tried again up to the end of the first page. glibc's read(), a
 * cancellation point where the caller lets it be one. Returns what read(2)
 * returns, -errno for an error.
 */
GV_HOT ssize_t gv_read_into_user(int fd, uintptr_t dst, size_t len,
				 size_t chunk)
{
	size_t page = GV_PAGE - (dst & (GV_PAGE - 1));
	ssize_t n;

	if (len > chunk)
		len = chunk;
	n = read(fd, (void *)dst, len);
	if (n < 0 && errno == EFAULT && len > page)
		n = read(fd, (void *)dst, page);
	return n < 0 ? -errno : n;
}

/* How many of the @k pieces of @l landed whole in the @got bytes copied. */
static size_t gv_landed(const struct iovec *l, size_t k, ssize_t got)
{
	size_t landed = 0;

	while (got > 0 && landed < k && (size_t)got >= l[landed].iov_len) {
		got -= l[landed].iov_len;
		landed++;
	}
	return landed;
}

/*
 * Many small writes through the pipe: writev(2) of our pieces into it,
 * readv(2) of them out into their places in the caller's memory, up to
 * 1024 and a pipe's worth at a time. process_vm_writev(2) pins the
 * caller's page anew for every iovec (95 ns each on a VM with page-table
 * isolation, 330 ns on an AMD EPYC), where a readv(2) from a pipe copies
 * a piece in a few; the pipe's pipe2(2), writev(2), readv(2) and closing
 * cost 5.3 us there, against 21.6 us for the 65 pieces of 64 files.
 * readv(2) stops at the first piece that faults, as
 * process_vm_writev(2) does. Returns how many landed, from the first;
 * -1 if the pipe cannot be had (then process_vm_writev does it).
 */
static ssize_t gv_pipe_scatter(const struct iovec *l, const struct iovec *r,
			       size_t n)
{
	size_t done = 0;

	if (gv_pipe_open())
		return -1;
	while (done < n) {
		size_t k = 0, total = 0;
		ssize_t in, got;

		while (done + k < n && k < 1024 &&
		       total + l[done + k].iov_len <= gv_pipe_cap()) {
			uintptr_t dst = (uintptr_t)r[done + k].iov_base;

			if (!dst || dst + r[done + k].iov_len < dst)
				break;
			total += l[done + k].iov_len;
			k++;
		}
		if (!k)	/* a piece larger than the pipe, or a bad address */
			return done;
		in = syscall(SYS_writev, gv_pipe[1], l + done, k);
		if (in != (ssize_t)total) {
			gv_pipe_drain(in > 0 ? in : 0);
			if (!gv_pipe_size) {
				gv_pipe_size_ask();	/* a smaller pipe */
				continue;
			}
			return done ? (ssize_t)done : -1;
		}
		got = syscall(SYS_readv, gv_pipe[0], r + done, k);
		if (got == (ssize_t)total) {
			done += k;
			continue;
		}
		gv_pipe_drain(total - (got > 0 ? got : 0));
		return done + gv_landed(l + done, k, got);
	}
	return done;
}

/*
 * Write @n pairs of iovecs (@l[i] into @r[i], the same length), up to
 * 1024 (IOV_MAX) per system call. Returns how many of them, from the
 * first, landed completely: @n when all did. The kernel copies in order
 * and stops at the first fault, so nothing after the one that did not
 * land was written. Past GV_SCATTER_PIPE pieces, through the pipe.
 */
size_t gv_copy_to_user_iov(const struct iovec *l, const struct iovec *r,
			   size_t n)
{
	size_t done = 0;
	ssize_t piped;

	if (n >= GV_SCATTER_PIPE &&
	    !__atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED)) {
		piped = gv_pipe_scatter(l, r, n);
		if (piped >= 0 && (size_t)piped < n &&
		    l[piped].iov_len <= gv_pipe_cap())
			return piped;	/* a fault */
		done = piped > 0 ? piped : 0;
	}
	while (done < n) {
		size_t k = 0, total = 0;
		ssize_t got;

		if (__atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED)) {
			if (gv_copy_to_user((uintptr_t)r[done].iov_base,
					    l[done].iov_base, l[done].iov_len))
				return done;
			done++;
			continue;
		}
		while (done + k < n && k < 1024) {
			uintptr_t dst = (uintptr_t)r[done + k].iov_base;

			if (!dst || dst + r[done + k].iov_len < dst)
				break;
			total += r[done + k].iov_len;
			k++;
		}
		if (!k)
			return done;
		got = process_vm_writev(gv_pid(), l + done, k, r + done, k, 0);
		if (got < 0 && gv_pvm_unavailable(errno))
			continue;	/* again, through the pipe */
		if (got == (ssize_t)total) {
			done += k;
			continue;
		}
		return done + gv_landed(l + done, k, got);
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
	if (!__atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED) && src &&
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
	got = process_vm_readv(gv_pid(), l, pre->n + 1, r, pre->n + 1, 0);
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
		got = process_vm_readv(gv_pid(), tl, m, tr, m, 0);
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
		if (region[i] != GV_STR_NONE &&
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
	size_t *region;		/* of each string, or GV_STR_NONE */
	int err = -ENOMEM;
	ssize_t k;

	*store = NULL;
	if (!n)
		return 0;
	if (n > INT_MAX)
		return -EINVAL;
	region = malloc(n * sizeof(*region));
	if (!region)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		region[i] = GV_STR_NONE;
		if (!src[i] || src[i] + slot < src[i]) {
			lens[i] = -EFAULT;
			continue;
		}
		k = gv_region_add(&g, src[i], slot);
		if (k < 0)
			goto out;
		region[i] = (size_t)k;
	}
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

int gv_results_to_user(struct name_val *uvec, const struct name_val *vec,
		       size_t n, const struct iovec *tail)
{
	size_t k = n + (tail && tail[0].iov_len);
	struct iovec *l = malloc(2 * k * sizeof(*l)), *r = l + k;
	int err = 0;

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		l[i] = (struct iovec){ (char *)&vec[i] + GV_RESULT_OFF,
				       GV_RESULT_LEN };
		r[i] = (struct iovec){ (char *)&uvec[i] + GV_RESULT_OFF,
				       GV_RESULT_LEN };
	}
	if (k > n) {
		l[n] = tail[0];
		r[n] = tail[1];
	}
	if (gv_copy_to_user_iov(l, r, k) != k)
		err = -EFAULT;
	free(l);
	return err;
}
