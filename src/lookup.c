// SPDX-License-Identifier: MIT
/*
 * lookup.c - SUBPATH rules and lookups confined beneath $ORIGIN.
 *
 * Every component of a SUBPATH but the last is resolved with openat2(2) and
 * RESOLVE_IN_ROOT | RESOLVE_NO_XDEV: symlinks resolve as if $ORIGIN were "/",
 * ".." cannot climb out, magic links are refused and no lookup crosses into
 * another mount. The last component is then looked at from that directory,
 * by the group, with the *at() call that does what the group needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define GV_RESOLVE (RESOLVE_IN_ROOT | RESOLVE_NO_XDEV)

/*
 * Not empty is checked by the caller where it matters; here: no leading or
 * trailing '/', no "//", no "." or ".." component.
 */
bool gv_subpath_valid(const char *sub)
{
	const char *c = sub;

	if (!*sub)
		return true;
	if (*sub == '/')
		return false;
	for (;;) {
		const char *end = strchrnul(c, '/');
		size_t n = end - c;

		if (n == 0)		/* "//" or a trailing '/' */
			return false;
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!*end)
			return true;
		c = end + 1;
	}
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
 * EXDEV from a confined lookup: a mount on the way, or an automount point
 * that RESOLVE_NO_XDEV kept from being triggered (Linux 6.12:
 * follow_automount() says EXDEV rather than mount). SPEC v2 wants the
 * latter seen as the directory it is, untriggered. Which it was shows
 * component by component: an O_PATH lookup without O_DIRECTORY neither
 * triggers nor crosses its last component, and statx(2) marks an
 * automount point. Beneath one, the rest is looked up in the untriggered
 * directory itself (usually empty: ENOENT); the point itself, opened
 * other than O_PATH, is reopened from its pin (proc.c). Only EXDEV takes
 * this way.
 */
static int gv_beneath_exdev(struct gv_ctx *ctx, int dfd, const char *path,
			    int oflags)
{
	const char *end = path;
	char prefix[PATH_MAX];
	struct statx stx;
	int pin, fd;

	while (*end) {
		end = strchrnul(end + 1, '/');
		if ((size_t)(end - path) >= sizeof(prefix))
			break;
		memcpy(prefix, path, end - path);
		prefix[end - path] = '\0';
		pin = gv_openat2(dfd, prefix, O_PATH | O_NOFOLLOW, GV_RESOLVE);
		if (pin < 0)
			return pin;
		if (statx(pin, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
			  STATX_TYPE | STATX_INO, &stx) ||
		    !(stx.stx_attributes & STATX_ATTR_AUTOMOUNT)) {
			gv_fd_close(pin);
			continue;
		}
		if (*end)
			fd = gv_openat2(pin, end + 1, oflags,
					RESOLVE_BENEATH | RESOLVE_NO_XDEV);
		else if (oflags & O_PATH)
			return pin;
		else
			fd = gv_reopen(ctx, pin, path, oflags & ~O_NOFOLLOW,
				       &stx);
		gv_fd_close(pin);
		return fd;
	}
	return -EXDEV;
}

/*
 * openat2() confined beneath $ORIGIN's directory @dfd (SPEC 2.4). EMFILE
 * while descriptors of this call wait to be closed: close them, try again.
 */
int gv_open_beneath(struct gv_ctx *ctx, int dfd, const char *path, int oflags)
{
	int fd = gv_openat2(dfd, path, oflags, GV_RESOLVE);

	if (fd == -EMFILE && ctx->closing.n) {
		gv_fd_flush(&ctx->closing);
		fd = gv_openat2(dfd, path, oflags, GV_RESOLVE);
	}
	return fd == -EXDEV ? gv_beneath_exdev(ctx, dfd, path, oflags) : fd;
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
	gv_dir_release(ctx);
	if (ctx->link_dir == ctx->dir_fd)
		ctx->link_dir = -1;
	ctx->dir_fd = fd;
	ctx->dir_path = dir;
	return fd;
}

void gv_lookup_release(struct gv_ctx *ctx)
{
	gv_dir_release(ctx);
	gv_proc_release(ctx);
}

int gv_origin_statfs(struct gv_ctx *ctx, const struct statfs **sfs)
{
	if (!ctx->have_statfs) {
		ctx->sfs = malloc(sizeof(*ctx->sfs));
		if (!ctx->sfs)
			return -ENOMEM;
		ctx->statfs_err = fstatfs(ctx->origin, ctx->sfs) ? -errno : 0;
		ctx->have_statfs = true;
	}
	*sfs = ctx->sfs;
	return ctx->statfs_err;
}
