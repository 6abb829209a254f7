// SPDX-License-Identifier: MIT
/*
 * reopen.c - a file pinned with an O_PATH descriptor opened for reading
 * (or as @oflags say), without a lookup by name that a rename could
 * redirect: through the calling thread's /proc fd magic link, which proc.c
 * checks to be procfs's own, and, without a genuine procfs, with
 * open_by_handle_at(2), which needs CAP_DAC_READ_SEARCH; else the entry
 * gets EOPNOTSUPP (SPEC v2, section 3). What it opens is checked to be
 * the inode pinned.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fds.h"
#include "lookup.h"
#include "proc.h"
#include "uaccess.h"

/*
 * A directory open for reading that names the mount of $ORIGIN/@sub for
 * open_by_handle_at(2), which refuses an O_PATH descriptor (EBADF): the
 * one that holds it (opening a directory has no side effects). For
 * $ORIGIN itself, the directory of the caller's path, if it has one; it
 * may be on another mount (then the handle opens nothing, or something
 * else, which the caller's check finds).
 */
static int gv_mount_dir(struct gv_ctx *ctx, const char *sub)
{
	char path[PATH_MAX], *slash;
	const char *base;
	int dfd = ctx->dfd, fd;

	if (sub) {
		dfd = gv_lookup_parent(ctx, sub, &base);
		if (dfd < 0)
			return dfd;
		strcpy(path, ".");
	} else {
		fd = gv_strncpy_from_user(path, ctx->path, sizeof(path) - 1);
		if (fd < 0)
			return fd == -ENAMETOOLONG ? -EOPNOTSUPP : fd;
		slash = strrchr(path, '/');
		if (!*path)
			return -EOPNOTSUPP;	/* dfd is $ORIGIN itself */
		if (!slash)
			strcpy(path, ".");
		else
			slash[slash == path] = '\0';
	}
	fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : gv_fd_own(fd);
}

/*
 * Whether the file open in @fd is the inode @pinned describes: 0, ESTALE
 * if not, or the errno of the fstat(2) that would tell.
 */
static int gv_same_inode(int fd, const struct statx *pinned)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return st.st_ino == pinned->stx_ino &&
	       st.st_dev == makedev(pinned->stx_dev_major,
				    pinned->stx_dev_minor) &&
	       (st.st_mode & S_IFMT) == (pinned->stx_mode & S_IFMT) ?
	       0 : -ESTALE;
}

/*
 * The pinned inode itself, by file handle: needs CAP_DAC_READ_SEARCH, and
 * a file system that has handles; EOPNOTSUPP otherwise. A handle names the
 * inode, not a path, so no rename can swap something else in. It is
 * decoded by the file system of the directory given with it, which may be
 * another one than the pin's (a bind-mounted file): it is first opened
 * O_PATH, which opens nothing, and only the pinned inode is opened.
 */
static int gv_reopen_by_handle(struct gv_ctx *ctx, int pin, const char *sub,
			       int oflags, const struct statx *pinned)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int mnt, dir, fd, err;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(pin, "", &h.fh, &mnt, AT_EMPTY_PATH))
		return errno == EOVERFLOW || errno == ENOTSUP ? -EOPNOTSUPP :
								 -errno;
	dir = gv_mount_dir(ctx, sub);
	if (dir < 0)
		return dir;
	fd = open_by_handle_at(dir, &h.fh, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		gv_fd_own(fd);
		err = gv_same_inode(fd, pinned);
		if (err) {
			gv_fd_close(fd);
			gv_fd_close(dir);
			return err;
		}
		gv_fd_close(fd);
		fd = open_by_handle_at(dir, &h.fh, oflags | O_CLOEXEC);
	}
	if (fd < 0)
		fd = errno == EPERM ? -EOPNOTSUPP : -errno;
	else
		gv_fd_own(fd);
	gv_fd_close(dir);
	return fd;
}

/*
 * Open what the O_PATH descriptor @pin refers to, with @oflags. There is no
 * system call for that; the thread's /proc fd magic link reaches exactly
 * the inode without resolving any name again. The descriptor directory is
 * opened once per call, so that each reopen looks up one name. What was
 * opened is checked against @pinned, the pin's statx: a descriptor number
 * that another thread sharing the table closed and reused meanwhile would
 * name another file (ESTALE then; a check that fails, its errno).
 */
int gv_reopen(struct gv_ctx *ctx, int pin, const char *sub, int oflags,
	      const struct statx *pinned)
{
	int dir = gv_proc_fd_dirfd(ctx), fd, err;
	char name[16];

	if (dir == -EOPNOTSUPP) {	/* no genuine procfs */
		fd = gv_reopen_by_handle(ctx, pin, sub, oflags, pinned);
	} else if (dir < 0) {
		return dir;
	} else {
		snprintf(name, sizeof(name), "%d", pin);
		fd = openat(dir, name, oflags | O_CLOEXEC);
		if (fd < 0 && errno == EMFILE && ctx->closing.n) {
			gv_fd_flush(&ctx->closing);
			fd = openat(dir, name, oflags | O_CLOEXEC);
		}
		fd = fd < 0 ? -errno : gv_fd_own(fd);
	}
	if (fd < 0)
		return fd;
	err = gv_same_inode(fd, pinned);
	if (err) {
		gv_fd_close(fd);
		return err;
	}
	return fd;
}
