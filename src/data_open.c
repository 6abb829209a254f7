// SPDX-License-Identifier: MIT
/*
 * data_open.c - opening the file of a data: entry without side effects, for
 * data.c (one at a time) and for the io_uring batch (uring_batch.c) alike.
 *
 * Reading must have no side effects, so nothing but a regular file is ever
 * opened: a device, FIFO or socket beneath $ORIGIN gets ENODATA without
 * being touched (an open(2) of a FIFO wakes a writer up, of a device runs
 * its driver). The strict way pins the last component with an O_PATH
 * descriptor from its confined directory (an O_PATH open opens nothing),
 * takes the type from that inode, and reopens it for reading only if it is
 * a regular file (reopen.c), checking that what it opened is what it pinned.
 * Deciding on the pinned inode rather than on a name is what keeps a FIFO
 * or a device that a rename swaps in under a file's name from ever being
 * opened. It costs eight system calls a file (pin, statx, reopen, check,
 * two reads, two closes) against the four of a plain open/read/close.
 *
 * The shortcut, four system calls: on a file system that cannot hold a
 * device, FIFO or socket, the file is opened by name, directly.
 * Why the shortcut is sound there:
 *   - procfs, sysfs and cgroup v1/v2 make every inode themselves: regular
 *     files, directories and symlinks; none of them implements mknod(2) or
 *     creates a special file, so no name there can lead to one (Linux 6.12:
 *     fs/proc, fs/kernfs, kernel/cgroup);
 *   - the type comes from fstatfs(2) of $ORIGIN, which the kernel answers
 *     for the mount $ORIGIN is on, whatever its path says (a tmpfs over
 *     /proc is tmpfs here);
 *   - RESOLVE_NO_XDEV keeps the whole lookup on that mount, so nothing
 *     mounted beneath $ORIGIN (a bind mount of a FIFO over a procfs file)
 *     is reached: EXDEV;
 *   - O_NOFOLLOW refuses a final symlink (ELOOP: read as a link instead),
 *     O_NONBLOCK keeps the open from waiting, and a directory fails the
 *     read with EISDIR (ENODATA for the entry).
 * tests/data_shortcut.c proves that the shortcut is taken only there and
 * that devices and FIFOs stay unopened elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fds.h"
#include "lookup.h"

/*
 * gv_data_shortcut(), gv_data_short_is_eof() and the open flags
 * (GV_DATA_OPEN) are inline, in lookup.h: every data: value asks them.
 */

/*
 * Whether @sub, beneath a procfs $ORIGIN, has the shape of one of procfs's
 * symlinks (Linux 6.12, fs/proc/base.c, fd.c, namespaces.c, root.c,
 * self.c, thread_self.c): PID/fd/N, PID/map_files/RANGE, PID/ns/NAME,
 * PID/{cwd,exe,root} (and under task/TID/), and self, thread-self, mounts,
 * net at the top. A name of that shape is read as a link first, one
 * readlinkat(2), not an open that O_NOFOLLOW refuses and then the readlink;
 * the io_uring batch leaves it to data.c for the same reason. A wrong
 * guess costs a system call, never a wrong value: readlinkat(2) says
 * EINVAL for what is no link.
 */
/* @s is @lit, both NUL-terminated; inline, as the first bytes mostly part */
static inline bool gv_str_is(const char *s, const char *lit)
{
	for (; *lit; s++, lit++)
		if (*s != *lit)
			return false;
	return !*s;
}

bool gv_data_proc_link_at(struct gv_ctx *ctx, const char *sub,
			  const char *slash)
{
	const char *leaf = slash ? slash + 1 : sub, *parent;
	size_t plen;

	if (!gv_origin_on_procfs(ctx))
		return false;
	/*
	 * By the first byte, then the rest: most names are none of these
	 * and part from all of them there. $ORIGIN may be /proc or a PID
	 * directory: both lists at its top.
	 */
	switch (leaf[0]) {
	case 'c':
		if (gv_str_is(leaf, "cwd"))
			return true;
		break;
	case 'e':
		if (gv_str_is(leaf, "exe"))
			return true;
		break;
	case 'r':
		if (gv_str_is(leaf, "root"))
			return true;
		break;
	case 's':
		if (!slash && gv_str_is(leaf, "self"))
			return true;
		break;
	case 't':
		if (!slash && gv_str_is(leaf, "thread-self"))
			return true;
		break;
	case 'm':
		if (!slash && gv_str_is(leaf, "mounts"))
			return true;
		break;
	case 'n':
		if (!slash && gv_str_is(leaf, "net"))
			return true;
		break;
	}
	if (!slash)
		return false;
	/* PID/fd/N, PID/map_files/RANGE, PID/ns/NAME */
	for (parent = slash; parent > sub && parent[-1] != '/'; parent--)
		;
	plen = slash - parent;
	return (plen == 2 && ((parent[0] == 'f' && parent[1] == 'd') ||
			      (parent[0] == 'n' && parent[1] == 's'))) ||
	       (plen == 9 && !memcmp(parent, "map_files", 9));
}

bool gv_data_proc_link(struct gv_ctx *ctx, const char *sub)
{
	return gv_data_proc_link_at(ctx, sub, strrchr(sub, '/'));
}

bool gv_data_is_file(const struct gv_req *req)
{
	return req->group && req->group->reads_files && !req->err &&
	       req->arg && *req->arg && gv_subpath_valid(req->arg);
}

/*
 * The object the O_PATH descriptor @pin refers to ($ORIGIN/@sub, or
 * $ORIGIN itself with @sub NULL), made ready to read:
 * GV_DATA_FILE for a regular file, then open for reading in @f->fd;
 * GV_DATA_LINK for a symlink (read it through @pin); else -ENODATA.
 */
int gv_data_open_pinned(struct gv_ctx *ctx, int pin, const char *sub,
			struct gv_data_file *f)
{
	struct statx stx;

	f->fd = -1;
	f->size = -1;
	if (statx(pin, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_SIZE | STATX_INO, &stx))
		return -errno;
	if (S_ISLNK(stx.stx_mode))
		return GV_DATA_LINK;
	if (!S_ISREG(stx.stx_mode))
		return -ENODATA;
	if (stx.stx_mask & STATX_SIZE)
		f->size = (int64_t)stx.stx_size;
	f->fd = gv_reopen(ctx, pin, sub, GV_DATA_OPEN & ~O_NOFOLLOW, &stx);
	return f->fd < 0 ? f->fd : GV_DATA_FILE;
}

/*
 * EXDEV for the last component @base of @dfd on autofs: a key that is
 * there is an automount point, or a mount point once mounted; SPEC v3:
 * an automount point is a directory to data: (ENODATA), a mount on it is
 * not crossed (EXDEV). lookup.c tells them apart without triggering one.
 */
static int gv_data_autofs(struct gv_ctx *ctx, int dfd, const char *base)
{
	struct statx at, in;
	int err = gv_autofs_statx(ctx, dfd, base, AT_SYMLINK_NOFOLLOW,
				  STATX_TYPE | STATX_MNT_ID, &at);

	if (err)
		return err;
	if (statx(dfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &in))
		return -errno;
	if (S_ISDIR(at.stx_mode) && (at.stx_mask & in.stx_mask & STATX_MNT_ID) &&
	    at.stx_mnt_id == in.stx_mnt_id)
		return -ENODATA;
	return -EXDEV;
}

/*
 * data:SUBPATH, SUBPATH not empty. GV_DATA_TRY where the shortcut applies
 * (the caller opens by name); else the last component pinned and judged:
 * GV_DATA_FILE (@f->fd open for reading), GV_DATA_LINK (@f->fd the O_PATH
 * pin of a symlink), or -errno for the entry.
 */
int gv_data_open(struct gv_ctx *ctx, const char *sub, struct gv_data_file *f)
{
	const char *base;
	int dfd, pin, kind;

	f->fd = -1;
	f->size = -1;
	if (gv_data_shortcut(ctx))
		return GV_DATA_TRY;
	dfd = gv_lookup_parent(ctx, sub, &base);
	if (dfd < 0)
		return dfd;
	/* RESOLVE_NO_XDEV: a mount point as the last component is EXDEV */
	pin = gv_open_beneath(ctx, dfd, base, O_PATH | O_NOFOLLOW);
	if (pin == -EXDEV && gv_origin_magic(ctx) == AUTOFS_SUPER_MAGIC)
		return gv_data_autofs(ctx, dfd, base);
	if (pin < 0)
		return pin;
	kind = gv_data_open_pinned(ctx, pin, sub, f);
	if (kind == GV_DATA_LINK)
		f->fd = pin;
	else
		gv_fd_defer(&ctx->closing, pin);
	return kind;
}
