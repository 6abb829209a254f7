// SPDX-License-Identifier: MIT
/*
 * readfile.c - readfile(): open, read and close one file, on plain system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define GV_READFILE_FLAGS (O_NOFOLLOW | O_NOATIME)

/*
 * Read from the current offset until end of file or until @size bytes are in
 * @buf. At least one read is made, even for @size 0, so that a directory
 * reports EISDIR. The descriptor may be non-blocking (see readfile(3)): the
 * first EAGAIN switches it to blocking mode, so reads block as read(2) would.
 * A failure after some bytes were read returns those bytes, as read(2) does.
 */
ssize_t gv_read_fd(int fd, void *buf, size_t size)
{
	bool blocking = false;
	size_t got = 0;
	ssize_t n;

	if (size > SSIZE_MAX)
		size = SSIZE_MAX;
	for (;;) {
		n = read(fd, (void *)((uintptr_t)buf + got), size - got);
		if (n > 0) {
			got += n;
			if (got < size)
				continue;
			return got;
		}
		if (n == 0)
			return got;
		if (errno == EAGAIN && !blocking) {
			int flags = fcntl(fd, F_GETFL);

			blocking = true;
			if (flags >= 0 &&
			    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
				continue;
			errno = EAGAIN;
		}
		return got ? (ssize_t)got : -errno;
	}
}

ssize_t gv_sync_readfile(int dfd, const char *path, void *buf, size_t size,
			 int flags)
{
	ssize_t ret;
	int fd;

	gv_fork_guard_enter();
	/*
	 * O_NONBLOCK: opening a FIFO must not wait for a writer. The raw
	 * system call, because glibc declares @path non-null and a NULL one
	 * must reach the kernel and come back as EFAULT.
	 */
	fd = syscall(SYS_openat, dfd, path,
		     O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = gv_read_fd(fd, buf, size);
		close(fd);
	}
	gv_fork_guard_leave();
	return ret;
}

GV_EXPORT ssize_t getvalues_readfile(int dfd, const char *path, void *buf,
				     size_t bufsize, int flags)
{
	enum gv_backend_id id = gv_backend_forced();
	const struct gv_backend *be;
	ssize_t ret;
	int err;

	if (flags & ~GV_READFILE_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * One file has nothing to batch. Through io_uring it is faster on
	 * ext4 (6.6 us against 9.6 us, bench/readfile_speed) but slower on
	 * sysfs (15 us against 9 us) and tmpfs, where a worker thread does
	 * the work, and which file system it is on is not known before it
	 * is open: auto reads with the native system call where the kernel
	 * has it, else with plain system calls.
	 */
	id = gv_backend_readfile(id);
	err = gv_backend_usable(id);
	if (err) {
		errno = -err;
		return -1;
	}
	be = gv_backend_ops(id);
	ret = be->readfile(dfd, path, buf, bufsize, flags);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/*
 * The seed's name, weak: a program with a readfile() of its own (and
 * GETVALUES_NO_READFILE, see getvalues.h) links against libgetvalues.a
 * without a clash, and its own function wins. Nothing in the library calls
 * this name, so whichever readfile() a program has, the library is safe.
 */
GV_EXPORT extern __typeof__(getvalues_readfile) readfile
	__attribute__((weak, alias("getvalues_readfile")));
