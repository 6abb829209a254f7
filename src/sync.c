// SPDX-License-Identifier: MIT
/*
 * sync.c - the sync backend's readfile(): open, read and close one file,
 * on plain system calls, exactly as openat(2), read(2) and close(2) would.
 * The uring backend reads single files with it too.
 *
 * SPEC v2: the file is opened as openat(2) opens it, with no O_NONBLOCK of
 * the library's own: a FIFO waits for a writer, a conflicting lease is
 * waited for. So readfile() can block as long as open(2) and read(2) can.
 *
 * It is a cancellation point before the open and in its reads, where a
 * cleanup handler closes the descriptor. The open itself is not: glibc's
 * openat() acts on a cancellation that arrives while the kernel opens the
 * file once the descriptor is made, before the caller can know its number
 * (glibc bug 12683), and a readfile() cancelled there would leave it open.
 * So the open is a plain system call, and a cancellation that arrives
 * while it waits (a FIFO with no writer) is acted upon at the first read.
 * A fork() in another thread meanwhile neither waits nor keeps the
 * descriptor (fds.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define GV_READ_MAX	(1u << 30)	/* one read(2) */

/*
 * Read from the current offset until end of file or until @size bytes are
 * in @buf. At least one read is made, even for @size 0, so that a
 * directory reports EISDIR. A failure after some bytes were read returns
 * those bytes, as read(2) does.
 */
static ssize_t gv_read_fd(int fd, void *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	if (size > SSIZE_MAX)
		size = SSIZE_MAX;
	for (;;) {
		n = gv_read_into_user(fd, (uintptr_t)buf + got, size - got,
				      GV_READ_MAX);
		if (n > 0) {
			got += n;
			if (got < size)
				continue;
			return got;
		}
		if (n == 0)
			return got;
		return got ? (ssize_t)got : n;
	}
}

GV_HOT ssize_t gv_sync_readfile(int dfd, const char *path, void *buf,
				size_t size, int flags)
{
	ssize_t ret;
	int fd;

	/* glibc declares @path non-null; the kernel would say EFAULT */
	if (!path)
		return -EFAULT;
	pthread_testcancel();
	fd = syscall(SYS_openat, dfd, path,
		     O_RDONLY | O_CLOEXEC | O_NOCTTY | O_LARGEFILE | flags);
	if (fd < 0)
		return -errno;
	gv_fd_own(fd);
	pthread_cleanup_push(gv_fd_close_cleanup, &fd);
	ret = gv_read_fd(fd, buf, size);
	pthread_cleanup_pop(0);
	gv_fd_close(fd);
	return ret;
}
