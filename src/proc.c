// SPDX-License-Identifier: MIT
/*
 * proc.c - what the library asks of /proc, never trusted unchecked: the
 * calling thread's descriptor table (through which reopen.c reopens a
 * pinned file and xattr.c names one), and files of procfs itself
 * (mountinfo, status).
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
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ctx.h"
#include "fds.h"
#include "proc.h"

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

/*
 * The descriptor directory for the *at() calls, or -errno: -EOPNOTSUPP
 * where /proc is no genuine procfs.
 */
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
