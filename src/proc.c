// SPDX-License-Identifier: MIT
/*
 * proc.c - what the library asks of /proc, never trusted unchecked: the
 * reopen of a pinned file through the calling thread's descriptor table,
 * and files of procfs itself (mountinfo, status).
 *
 * A path under /proc is only a name: in a chroot or a container rootfs that
 * someone else prepared, /proc may be a tmpfs whose "self/fd/3" is a
 * symlink to any file or device, or a procfs with something mounted over
 * part of it. So every use starts from the directory /proc names, checks
 * with fstatfs(2) that it is procfs, and resolves the rest beneath it with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_XDEV): no mount is crossed, so every
 * component is procfs's own. "thread-self" exists only at a procfs root
 * and names the calling thread there, so "thread-self/fd" reached that way
 * is the descriptor table of the thread that makes the call, not that of
 * the thread-group leader (/proc/self), which a thread that unshared its
 * table (unshare(CLONE_FILES)) does not share, and which is gone after the
 * main thread's pthread_exit().
 *
 * Without a genuine procfs a pinned file is reopened with
 * open_by_handle_at(2), which needs CAP_DAC_READ_SEARCH; else the entry
 * gets EOPNOTSUPP (SPEC v2, section 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"

#define GV_PROC_NONE	-2	/* ctx->proc_fd: no genuine procfs */

/*
 * @rel opened beneath a /proc that is checked to be procfs, with @oflags;
 * -EOPNOTSUPP when /proc is not procfs (or not there). The descriptor of
 * /proc goes to @closing when there is one (closed with the call's).
 */
static int gv_proc_open_at(const char *rel, int oflags,
			   struct gv_closer *closing)
{
	struct open_how how = {
		.flags = oflags | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV,
	};
	struct statfs sfs;
	int proc, fd, err = 0;

	proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return errno == ENOENT || errno == ENOTDIR ? -EOPNOTSUPP :
							     -errno;
	gv_fd_own(proc);
	if (fstatfs(proc, &sfs))
		err = -errno;
	else if (sfs.f_type != PROC_SUPER_MAGIC)
		err = -EOPNOTSUPP;
	if (err) {
		gv_fd_close(proc);
		return err;
	}
	fd = syscall(SYS_openat2, proc, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		/*
		 * Before Linux 5.6: a plain lookup from the checked procfs
		 * root, and a check of where it ended.
		 */
		fd = openat(proc, rel, oflags | O_CLOEXEC);
		if (fd >= 0 && (fstatfs(fd, &sfs) ||
				sfs.f_type != PROC_SUPER_MAGIC)) {
			close(fd);
			fd = -1;
			errno = EOPNOTSUPP;
		}
	}
	err = fd < 0 ? -errno : 0;
	if (closing)
		gv_fd_defer(closing, proc);
	else
		gv_fd_close(proc);
	return err ? err : gv_fd_own(fd);
}

int gv_proc_open(const char *rel, int oflags)
{
	return gv_proc_open_at(rel, oflags, NULL);
}

/* The calling thread's descriptor directory, once per call. */
static int gv_proc_fd_dir(struct gv_ctx *ctx)
{
	if (ctx->proc_fd == -1) {
		int fd = gv_proc_open_at("thread-self/fd",
					 O_PATH | O_DIRECTORY, &ctx->closing);

		if (fd == -EMFILE && ctx->closing.n) {
			gv_fd_flush(&ctx->closing);
			fd = gv_proc_open_at("thread-self/fd",
					     O_PATH | O_DIRECTORY,
					     &ctx->closing);
		}

		ctx->proc_fd = fd == -EOPNOTSUPP || fd == -ENOENT ?
			       GV_PROC_NONE : fd;
	}
	return ctx->proc_fd;
}

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
	int dir = gv_proc_fd_dir(ctx), fd, err;
	char name[16];

	if (dir == GV_PROC_NONE) {
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

/*
 * For the xattr calls that take a path: "/proc/thread-self/fd/N" once the
 * /proc of this call is checked, else -EOPNOTSUPP. The path is resolved
 * again by the kernel; only a mount made over /proc between the check and
 * that lookup could redirect it (getvalues(7)).
 */
int gv_proc_fd_path(struct gv_ctx *ctx, int fd, char *buf, size_t size)
{
	int dir = gv_proc_fd_dir(ctx);

	if (dir == GV_PROC_NONE)
		return -EOPNOTSUPP;
	if (dir < 0)
		return dir;
	snprintf(buf, size, "/proc/thread-self/fd/%d", fd);
	return 0;
}

/* The descriptor directory for the *at() calls, or -errno. */
int gv_proc_fd_dirfd(struct gv_ctx *ctx)
{
	int dir = gv_proc_fd_dir(ctx);

	return dir == GV_PROC_NONE ? -EOPNOTSUPP : dir;
}

void gv_proc_release(struct gv_ctx *ctx)
{
	if (ctx->proc_fd >= 0)
		gv_fd_defer(&ctx->closing, ctx->proc_fd);
	ctx->proc_fd = -1;
}
