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

/* 0: process_vm_readv/writev work as far as we know; 1: use the pipe */
static int gv_use_pipe;
/* 1: vmsplice(2) is refused here (a seccomp profile): write(2) instead */
static int gv_no_vmsplice;
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

pid_t gv_uaccess_pid(void)
{
	return gv_pid();
}

bool gv_uaccess_piped(void)
{
	return __atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED);
}

/* Errors that say a system call is missing or filtered, not memory bad. */
static bool gv_refused(int err)
{
	return err == ENOSYS || err == EPERM || err == EACCES;
}

/* Whether @err says process_vm_readv/writev are refused: the pipe then. */
bool gv_pvm_unavailable(int err)
{
	if (!gv_refused(err))
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

/*
 * @len bytes of ours, one after the other, into the pipe for a readv(2)
 * to take out at once. vmsplice(2) hands the pipe our pages, not a copy:
 * the readv(2) then copies once, where after a write(2) it copies a
 * second time, and the pipe allocates no page of its own (1.7% of a
 * mount table of 1000 or 10000 mounts, bench/mounts). The pages stay
 * ours to keep unchanged until the pipe is empty again, which it is
 * before gv_pipe_scatter() returns. Where vmsplice(2) is refused,
 * write(2) does the same job.
 */
static ssize_t gv_pipe_put(const void *buf, size_t len)
{
	struct iovec one = { (void *)buf, len };
	ssize_t n;

	if (!__atomic_load_n(&gv_no_vmsplice, __ATOMIC_RELAXED)) {
		n = syscall(SYS_vmsplice, gv_pipe[1], &one, 1, 0);
		if (n >= 0 && (size_t)n < len) {
			/* a slot per page: a small pipe takes more written */
			ssize_t more = gv_sys_write(gv_pipe[1],
						    (const char *)buf + n,
						    len - n);

			return more > 0 ? n + more : n;
		}
		if (n >= 0 || !gv_refused(errno))
			return n;
		__atomic_store_n(&gv_no_vmsplice, 1, __ATOMIC_RELAXED);
	}
	return gv_sys_write(gv_pipe[1], buf, len);
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
 * Many small writes through the pipe: writev(2) of our pieces into it
 * (gv_pipe_put() where they lie one after the other, as the walk's
 * results do), readv(2) of them out into their places in the caller's
 * memory, up to 1024 and a pipe's worth at a time. process_vm_writev(2)
 * pins the caller's page anew for every iovec (95 ns each on a VM with
 * page-table isolation, 330 ns on an AMD EPYC), where a readv(2) from a
 * pipe copies a piece in a few; the pipe's pipe2(2), writev(2), readv(2)
 * and closing cost 5.3 us there, against 21.6 us for the 65 pieces of 64
 * files. readv(2) stops at the first piece that faults, as
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
		size_t k = 0, total = 0, cap = gv_pipe_cap();
		const char *next = l[done].iov_base;
		bool packed = true;	/* our pieces one after the other */
		ssize_t in, got;

		while (done + k < n && k < 1024 &&
		       total + l[done + k].iov_len <= cap) {
			uintptr_t dst = (uintptr_t)r[done + k].iov_base;

			if (!dst || dst + r[done + k].iov_len < dst)
				break;
			packed &= l[done + k].iov_base == next;
			next = (char *)l[done + k].iov_base +
			       l[done + k].iov_len;
			total += l[done + k].iov_len;
			k++;
		}
		if (!k)	/* a piece larger than the pipe, or a bad address */
			return done;
		/* the results the walk packs: one piece, no writev(2) */
		in = packed ? gv_pipe_put(l[done].iov_base, total) :
			      syscall(SYS_writev, gv_pipe[1], l + done, k);
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

/* A piece the pipe takes rather than process_vm_writev(2): under a page. */
static bool gv_small(const struct iovec *l)
{
	return l->iov_len < GV_PAGE;
}

/*
 * The small pieces from @l on (at most @n) that go through the pipe: a run
 * of at least GV_SCATTER_PIPE of them, or any once process_vm_writev(2) is
 * out of use. 0: none.
 */
static size_t gv_pipe_run(const struct iovec *l, size_t n)
{
	size_t k = 0;

	while (k < n && gv_small(&l[k]))
		k++;
	if (k >= GV_SCATTER_PIPE ||
	    (k && __atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED)))
		return k;
	return 0;
}

/*
 * The pieces from @l, @r on (at most @n) for one process_vm_writev(2): up
 * to 1024 (IOV_MAX), to a bad address, or (@pipe) to a run of small
 * pieces that the pipe takes.
 */
static size_t gv_pvm_run(const struct iovec *l, const struct iovec *r,
			 size_t n, bool pipe)
{
	size_t k = 0, small = 0;

	while (k < n && k < 1024) {
		uintptr_t dst = (uintptr_t)r[k].iov_base;

		if (!dst || dst + r[k].iov_len < dst)
			break;
		small = gv_small(&l[k]) ? small + 1 : 0;
		if (pipe && small == GV_SCATTER_PIPE)
			return k + 1 - small;
		k++;
	}
	return k;
}

/*
 * @k pieces through process_vm_writev(2), or one at a time through the
 * pipe where it is out of use: how many landed, from the first.
 */
static size_t gv_pvm_scatter(const struct iovec *l, const struct iovec *r,
			     size_t k)
{
	size_t total = 0, i;
	ssize_t got = -1;

	if (!__atomic_load_n(&gv_use_pipe, __ATOMIC_RELAXED)) {
		for (i = 0; i < k; i++)
			total += r[i].iov_len;
		got = process_vm_writev(gv_pid(), l, k, r, k, 0);
		if (got == (ssize_t)total)
			return k;
		if (got >= 0 || !gv_pvm_unavailable(errno))
			return gv_landed(l, k, got);
	}
	for (i = 0; i < k; i++)
		if (gv_copy_to_user((uintptr_t)r[i].iov_base, l[i].iov_base,
				    l[i].iov_len))
			break;
	return i;
}

/*
 * Write @n pairs of iovecs (@l[i] into @r[i], the same length). Returns
 * how many of them, from the first, landed completely: @n when all did.
 * The kernel copies in order and stops at the first fault, so nothing
 * after the one that did not land was written. Runs of small pieces go
 * through the pipe (process_vm_writev(2) pins a page for each), the
 * others, a page or more each, through process_vm_writev(2), which copies
 * them once where the pipe copies twice.
 */
size_t gv_copy_to_user_iov(const struct iovec *l, const struct iovec *r,
			   size_t n)
{
	size_t done = 0, k;
	ssize_t got;

	while (done < n) {
		k = gv_pipe_run(l + done, n - done);
		got = k ? gv_pipe_scatter(l + done, r + done, k) : -1;
		if (got >= 0) {
			done += got;
			if ((size_t)got == k)
				continue;
			/* a fault, unless a piece larger than the pipe */
			if (l[done].iov_len <= gv_pipe_cap())
				return done;
		}
		/* no pipe to be had: process_vm_writev(2) takes them all */
		k = gv_pvm_run(l + done, r + done, n - done, got >= 0 || !k);
		if (!k)
			return done;
		got = gv_pvm_scatter(l + done, r + done, k);
		done += got;
		if ((size_t)got < k)
			return done;
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
