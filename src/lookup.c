// SPDX-License-Identifier: MIT
/*
 * lookup.c - SUBPATH rules and lookups confined beneath $ORIGIN.
 *
 * Every component of a SUBPATH but the last is resolved with openat2(2) and
 * RESOLVE_IN_ROOT | RESOLVE_NO_XDEV: symlinks resolve as if $ORIGIN were "/",
 * ".." cannot climb out, magic links are refused and no lookup crosses into
 * another mount or through an automount point (EXDEV, SPEC v3). The last
 * component is then looked at from that directory, by the group, with the
 * *at() call that does what the group needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fds.h"
#include "lookup.h"
#include "proc.h"

#define GV_RESOLVE (RESOLVE_IN_ROOT | RESOLVE_NO_XDEV)

/*
 * Not empty is checked by the caller where it matters; here: no leading or
 * trailing '/', no "//", no "." or ".." component. *@slash gets the last
 * '/' of a valid @sub, NULL if none: one pass for what the lookups ask.
 */
bool gv_subpath_check(const char *sub, const char **slash)
{
	const char *c = sub;

	*slash = NULL;
	if (!*sub)
		return true;
	if (*sub == '/')
		return false;
	for (;;) {
		const char *end = strchrnul(c, '/');
		size_t n = end - c;

		if (n == 0)		/* "//" or a trailing '/' */
			return false;
		if (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.')))
			return false;
		if (!*end)
			return true;
		*slash = end;
		c = end + 1;
	}
}

bool gv_subpath_valid(const char *sub)
{
	const char *slash;

	return gv_subpath_check(sub, &slash);
}

/*
 * openat2() with @resolve beneath @dfd. A RESOLVE_IN_ROOT lookup that meets
 * ".." (directly or through a symlink) fails with EAGAIN when any mount or
 * rename happened meanwhile, in any mount namespace (mount_lock and
 * rename_lock are global). Retry, yielding once the quick retries are
 * spent, so that a mount storm elsewhere slows the lookup down instead of
 * failing it.
 */
static int gv_openat2(int dfd, const char *path, int oflags,
		      uint64_t resolve)
{
	struct open_how how = {
		.flags = oflags | O_CLOEXEC,
		.resolve = resolve,
	};
	int fd, tries = 0;

	for (;;) {
		fd = syscall(SYS_openat2, dfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN || ++tries == 256)
			break;
		if (tries > 8)
			sched_yield();
	}
	return fd < 0 ? -errno : gv_fd_own(fd);
}

/*
 * openat2() confined beneath $ORIGIN's directory @dfd (SPEC 2.4). EMFILE
 * while descriptors of this call wait to be closed: close them, try again.
 *
 * SPEC v3: EXDEV, as openat2(2) gives it, for a mount and for an automount
 * point on the way, which RESOLVE_NO_XDEV keeps from being triggered
 * (follow_automount()); for a last component that is one too, but where
 * the lookup neither opens nor wants a directory (O_PATH without
 * O_DIRECTORY): the kernel stays on an automount point there, untriggered,
 * and the group looks at it (stat: describes it, data: finds a
 * directory). The native calls make exactly these lookups.
 */
int gv_open_beneath(struct gv_ctx *ctx, int dfd, const char *path, int oflags)
{
	int fd = gv_openat2(dfd, path, oflags, GV_RESOLVE);

	if (fd == -EMFILE && ctx->closing.n) {
		gv_fd_flush(&ctx->closing);
		fd = gv_openat2(dfd, path, oflags, GV_RESOLVE);
	}
	return fd;
}

static void gv_dir_release(struct gv_ctx *ctx)
{
	if (ctx->dir_path) {
		gv_fd_defer(&ctx->closing, ctx->dir_fd);
		free(ctx->dir_path);
		ctx->dir_path = NULL;
		ctx->dir_fd = -1;
	}
}

/*
 * As gv_lookup_parent(), without a system call: the directory if it is
 * $ORIGIN or the one the context holds, else -1.
 */
int gv_lookup_cached(struct gv_ctx *ctx, const char *sub, const char **base)
{
	const char *slash = strrchr(sub, '/');
	size_t dlen;

	if (!slash) {
		*base = sub;
		return ctx->origin;
	}
	*base = slash + 1;
	dlen = slash - sub;
	if (ctx->dir_path && strlen(ctx->dir_path) == dlen &&
	    !memcmp(ctx->dir_path, sub, dlen))
		return ctx->dir_fd;
	return -1;
}

/*
 * The directory holding the last component of @sub, as a descriptor the
 * context keeps: consecutive entries under one directory (fd/0, fd/1, ...)
 * resolve it once. @*base gets the last component.
 */
int gv_lookup_parent(struct gv_ctx *ctx, const char *sub, const char **base)
{
	const char *slash = strrchr(sub, '/');
	char *dir;
	int fd;

	fd = gv_lookup_cached(ctx, sub, base);
	if (fd >= 0)
		return fd;
	dir = strndup(sub, slash - sub);
	if (!dir)
		return -ENOMEM;
	fd = gv_open_beneath(ctx, ctx->origin, dir, O_PATH | O_DIRECTORY);
	if (fd < 0) {
		free(dir);
		return fd;
	}
	/* its number may come back for another directory: forget it */
	if (ctx->dir_path && ctx->link_dir == ctx->dir_fd)
		ctx->link_dir = -1;
	gv_dir_release(ctx);
	ctx->dir_fd = fd;
	ctx->dir_path = dir;
	return fd;
}

void gv_lookup_release(struct gv_ctx *ctx)
{
	gv_dir_release(ctx);
	gv_proc_release(ctx);
}

/* A record of getdents64(2) */
struct gv_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int gv_dir_each(int fd, int (*fn)(const char *name, void *arg), void *arg)
{
	char buf[8192] __attribute__((aligned(8)));	/* ~250 names a call */
	long n;
	int ret = 0;

	while (!ret && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n && !ret;) {
			struct gv_dirent64 *d = (void *)(buf + off);

			off += d->d_reclen;
			ret = fn(d->d_name, arg);
		}
	if (!ret && n < 0)
		ret = -errno;
	return ret;
}

static int gv_is_name(const char *name, void *base)
{
	return !strcmp(name, base);
}

/*
 * Whether the directory @dfd lists @base: 1, 0, or -errno. EMFILE while
 * descriptors of this call wait to be closed: close them, try again.
 */
static int gv_dir_lists(struct gv_ctx *ctx, int dfd, const char *base)
{
	const int oflags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	int fd = openat(dfd, ".", oflags), found;

	if (fd < 0 && errno == EMFILE && ctx->closing.n) {
		gv_fd_flush(&ctx->closing);
		fd = openat(dfd, ".", oflags);
	}
	if (fd < 0)
		return -errno;
	gv_fd_own(fd);
	found = gv_dir_each(fd, gv_is_name, (void *)base);
	gv_fd_close(fd);
	return found;
}

/*
 * The last component @base of a SUBPATH on autofs, in its directory @dfd,
 * after RESOLVE_NO_XDEV refused it with EXDEV, as it refuses every name of
 * an autofs directory whose transit autofs manages (fs/namei.c,
 * __traverse_mounts()): a key an indirect map has mounted, has not mounted
 * yet, or does not have. Only a lookup may tell them apart, and a lookup
 * of a name that is not there makes a negative dentry that asks the daemon
 * to mount it, AT_NO_AUTOMOUNT or not (follow_automount()). So the
 * directory's listing is read first, which the dcache alone answers
 * (dcache_readdir()): a name it lists is a dentry with an inode, which
 * statx(2) with AT_NO_AUTOMOUNT describes without triggering anything; a
 * name it does not list stays EXDEV (SPEC v3: the lookup would go through
 * an automount point), as the native call gives it. A key that the daemon
 * removes between the listing and the statx(2) is asked of it as stat(2)
 * would ask. Returns 0 with @stx filled, or -errno.
 */
int gv_autofs_statx(struct gv_ctx *ctx, int dfd, const char *base, int flags,
		    unsigned int mask, struct statx *stx)
{
	int listed = gv_dir_lists(ctx, dfd, base);

	if (listed <= 0)
		return listed < 0 ? listed : -EXDEV;
	return statx(dfd, base, flags | AT_NO_AUTOMOUNT, mask, stx) ? -errno :
								       0;
}

int gv_origin_statfs(struct gv_ctx *ctx, const struct statfs **sfs)
{
	if (!ctx->have_statfs) {
		ctx->sfs = malloc(sizeof(*ctx->sfs));
		if (!ctx->sfs)
			return -ENOMEM;
		ctx->statfs_err = fstatfs(ctx->origin, ctx->sfs) ? -errno : 0;
		ctx->fs_magic = ctx->statfs_err ? 0 : (uint32_t)ctx->sfs->f_type;
		ctx->have_statfs = true;
	}
	*sfs = ctx->sfs;
	return ctx->statfs_err;
}

uint32_t gv_origin_magic_slow(struct gv_ctx *ctx)
{
	const struct statfs *sfs;

	return gv_origin_statfs(ctx, &sfs) ? 0 : ctx->fs_magic;
}
