// SPDX-License-Identifier: MIT
/*
 * readfile.c - readfile(): one file opened, read and closed by the backend
 * chosen for it (backend.c), as openat(2), read(2) and close(2) would;
 * on plain system calls that is sync.c's.
 */
#include <errno.h>
#include <fcntl.h>

#include "internal.h"

#define GV_READFILE_FLAGS (O_NOFOLLOW | O_NOATIME)

GV_HOT GV_EXPORT ssize_t getvalues_readfile(int dfd, const char *path,
					    void *buf, size_t bufsize,
					    int flags)
{
	const struct gv_backend *be;
	ssize_t ret;
	int err;

	if (flags & ~GV_READFILE_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * One file has nothing to batch: auto reads with the native system
	 * call where the kernel has it, else with plain system calls, and so
	 * does a forced uring (backend.c says why).
	 */
	be = gv_backend_readfile(&err);
	if (!be) {
		errno = -err;
		return -1;
	}
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
	GV_HOT __attribute__((weak, alias("getvalues_readfile")));
