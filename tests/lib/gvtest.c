// SPDX-License-Identifier: MIT
/*
 * gvtest.c - the helpers behind gvtest.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/gvtest.h"
#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

#define GVT_MAX_MOUNTS 16

static char gvt_mounts[GVT_MAX_MOUNTS][256];
static int gvt_nmounts;
static pid_t gvt_mount_owner;

static void gvt_unmount_all(void)
{
	if (getpid() != gvt_mount_owner)
		return;
	/* before the scratch directories are removed (atexit runs LIFO) */
	while (gvt_nmounts > 0)
		umount2(gvt_mounts[--gvt_nmounts], MNT_DETACH);
}

int gvt_mount_tmpfs(const char *path, unsigned long flags, const char *opts)
{
	if (gvt_nmounts == GVT_MAX_MOUNTS)
		tap_bail("too many test mounts");
	if (mount("gvtest", path, "tmpfs", flags, opts))
		return -1;
	snprintf(gvt_mounts[gvt_nmounts++], sizeof(gvt_mounts[0]), "%s", path);
	return 0;
}

bool gvt_mknod(int dfd, const char *name, mode_t mode, dev_t dev)
{
	if (!mknodat(dfd, name, mode, dev))
		return true;
	if (errno == EPERM && !t_real_root())
		return false;
	tap_bail("mknod %s: %s", name, strerror(errno));
}

static bool gvt_trusted;	/* "trusted." stands in for "user." */

int gvt_setxattr(const char *path, const char *name, const void *value,
		 size_t len)
{
	char other[XATTR_NAME_MAX + 1];

	if (strncmp(name, "user.", 5))
		tap_bail("gvt_setxattr(%s): not a user. name", name);
	if (!gvt_trusted) {
		if (!lsetxattr(path, name, value, len, 0))
			return 0;
		if (errno != EOPNOTSUPP)
			return -1;
		if (!t_real_root())
			tap_skip_all("no xattr namespace for this user: %s "
				     "takes no user.* (tmpfs before Linux "
				     "6.6), and trusted.* needs real root",
				     path);
		gvt_trusted = true;
	}
	snprintf(other, sizeof(other), "trusted.%s", name + 5);
	return lsetxattr(path, other, value, len, 0);
}

const char *gvt_xname(const char *s)
{
	static char bufs[8][512];
	static int k;
	const char *user = strstr(s, "user.");
	char *b;

	if (!gvt_trusted || !user)
		return s;
	b = bufs[k++ % 8];
	snprintf(b, sizeof(bufs[0]), "%.*strusted.%s", (int)(user - s), s,
		 user + 5);
	return b;
}

const char *gvt_scratch_tmpfs(const char *tag, const char *opts)
{
	static bool private;
	const char *dir;

	if (!private) {
		const char *why = t_private_mounts(NULL);

		if (why)
			tap_skip_all("no private mount namespace: %s", why);
		private = true;
	}
	dir = t_tmpdir(tag);
	if (!gvt_mount_owner) {
		gvt_mount_owner = getpid();
		atexit(gvt_unmount_all);
	}
	if (gvt_mount_tmpfs(dir, 0, opts))
		tap_bail("tmpfs on %s: %s", dir, strerror(errno));
	return dir;
}

int gvt_call1(int dfd, const char *path, unsigned int flags, const char *name,
	      void *buf, size_t size, struct name_val *e)
{
	*e = (struct name_val){
		.name = name,
		.value_in = { .iov_base = buf, .iov_len = size },
	};
	return getvalues(dfd, path, e, 1, flags);
}

static char *gvt_buf(void)
{
	static char *buf;

	if (!buf && !(buf = malloc(GVT_BIG)))
		tap_bail("malloc");
	return buf;
}

static void gvt_diag_entry(int ret, int err, const struct name_val *e)
{
	tap_diag("    getvalues() = %d%s%s, error %s, value_out {%p, %zu}",
		 ret, ret < 0 ? " errno " : "",
		 ret < 0 ? strerrorname_np(err) : "",
		 e->error ? strerrorname_np(e->error) : "0",
		 e->value_out.iov_base, e->value_out.iov_len);
}

bool gvt_is_value(int dfd, const char *path, unsigned int flags,
		  const char *name, const void *want, size_t want_len,
		  const char *fmt, ...)
{
	char *buf = gvt_buf(), desc[512];
	struct name_val e;
	va_list ap;
	int ret, err;
	bool good;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	ret = gvt_call1(dfd, path, flags, name, buf, GVT_BIG, &e);
	err = errno;
	good = ret == 1 && e.error == 0 && e.value_out.iov_base == buf;
	if (!good) {
		tap_ok(false, "%s", desc);
		gvt_diag_entry(ret, err, &e);
		return false;
	}
	return tap_is_mem(buf, e.value_out.iov_len, want, want_len, "%s", desc);
}

bool gvt_is_error(int dfd, const char *path, unsigned int flags,
		  const char *name, int want_err, const char *fmt, ...)
{
	char *buf = gvt_buf(), desc[512];
	struct name_val e;
	va_list ap;
	int ret, err;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	ret = gvt_call1(dfd, path, flags, name, buf, GVT_BIG, &e);
	err = errno;
	if (!tap_ok(ret == 1 && e.error == (uint32_t)want_err &&
		    e.value_out.iov_base == buf && e.value_out.iov_len == 0,
		    "%s", desc)) {
		gvt_diag_entry(ret, err, &e);
		tap_diag("   want: error %s", strerrorname_np(want_err));
		return false;
	}
	return true;
}

bool gvt_entry_value(const struct name_val *e, const void *want,
		     size_t want_len, const char *fmt, ...)
{
	char desc[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (e->error) {
		tap_ok(false, "%s", desc);
		gvt_diag_entry(0, 0, e);
		return false;
	}
	return tap_is_mem(e->value_out.iov_base, e->value_out.iov_len, want,
			  want_len, "%s", desc);
}

bool gvt_entry_error(const struct name_val *e, const void *pos, int err,
		     const char *fmt, ...)
{
	char desc[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (!tap_ok(e->error == (uint32_t)err && e->value_out.iov_base == pos &&
		    e->value_out.iov_len == 0, "%s", desc)) {
		gvt_diag_entry(0, 0, e);
		tap_diag("   want: error %s, value_out {%p, 0}",
			 strerrorname_np(err), pos);
		return false;
	}
	return true;
}

ssize_t gvt_want_file(int dfd, const char *path, char *buf, size_t size)
{
	return t_orc_read(dfd, path, buf, size);
}

ssize_t gvt_want_link(int dfd, const char *path, char *buf, size_t size)
{
	return readlinkat(dfd, path, buf, size);
}

ssize_t gvt_want_dir(int dfd, const char *path, char *buf, size_t size)
{
	struct dirent *d;
	size_t len = 0;
	DIR *dir;
	int fd;

	fd = openat(dfd, *path ? path : ".",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name) + 1;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (len + n > size)
			tap_bail("gvt_want_dir: buffer too small");
		memcpy(buf + len, d->d_name, n);
		len += n;
	}
	closedir(dir);
	return len;
}

ssize_t gvt_want_xattr_list(const char *path, char *buf, size_t size)
{
	return llistxattr(path, buf, size);
}

ssize_t gvt_want_xattr(const char *path, const char *name, char *buf,
		       size_t size)
{
	return lgetxattr(path, name, buf, size);
}

const char *const gvt_stat_fields[] = {
	"type", "mode", "nlink", "uid", "gid", "size", "blocks", "blksize",
	"ino", "dev", "rdev", "atime", "mtime", "ctime", "btime", "mntid",
	NULL,
};

const char *const gvt_fs_fields[] = {
	"type", "bsize", "frsize", "blocks", "bfree", "bavail", "files",
	"ffree", "namelen", "flags", NULL,
};

const char *const gvt_mnt_fields[] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source",
	"superopts", NULL,
};

size_t gvt_list(const char *const *names, char *buf, size_t size)
{
	size_t len = 0;

	for (; *names; names++) {
		size_t n = strlen(*names) + 1;

		if (len + n > size)
			tap_bail("gvt_list: buffer too small");
		memcpy(buf + len, *names, n);
		len += n;
	}
	return len;
}

static const char *gvt_type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "reg";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "lnk";
	case S_IFCHR: return "chr";
	case S_IFBLK: return "blk";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "sock";
	}
	return "?";
}

static int gvt_time(char *buf, size_t size, long long sec, long nsec)
{
	return snprintf(buf, size, "%lld.%09ld", sec, nsec);
}

ssize_t gvt_want_stat(int dfd, const char *path, int atflags,
		      const char *field, char *buf, size_t size)
{
	struct statx stx;
	struct stat st;
	int n;

	if (!*path)
		atflags |= AT_EMPTY_PATH;
	if (fstatat(dfd, path, &st, atflags))
		return -1;
	if (!strcmp(field, "type"))
		n = snprintf(buf, size, "%s", gvt_type_name(st.st_mode));
	else if (!strcmp(field, "mode"))
		n = snprintf(buf, size, "%04o", st.st_mode & 07777);
	else if (!strcmp(field, "nlink"))
		n = snprintf(buf, size, "%lu", (unsigned long)st.st_nlink);
	else if (!strcmp(field, "uid"))
		n = snprintf(buf, size, "%u", st.st_uid);
	else if (!strcmp(field, "gid"))
		n = snprintf(buf, size, "%u", st.st_gid);
	else if (!strcmp(field, "size"))
		n = snprintf(buf, size, "%lld", (long long)st.st_size);
	else if (!strcmp(field, "blocks"))
		n = snprintf(buf, size, "%lld", (long long)st.st_blocks);
	else if (!strcmp(field, "blksize"))
		n = snprintf(buf, size, "%ld", (long)st.st_blksize);
	else if (!strcmp(field, "ino"))
		n = snprintf(buf, size, "%llu", (unsigned long long)st.st_ino);
	else if (!strcmp(field, "dev"))
		n = snprintf(buf, size, "%u:%u", major(st.st_dev),
			     minor(st.st_dev));
	else if (!strcmp(field, "rdev"))
		n = snprintf(buf, size, "%u:%u", major(st.st_rdev),
			     minor(st.st_rdev));
	else if (!strcmp(field, "atime"))
		n = gvt_time(buf, size, st.st_atim.tv_sec, st.st_atim.tv_nsec);
	else if (!strcmp(field, "mtime"))
		n = gvt_time(buf, size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else if (!strcmp(field, "ctime"))
		n = gvt_time(buf, size, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	else if (!strcmp(field, "btime") || !strcmp(field, "mntid")) {
		if (statx(dfd, path, atflags | AT_NO_AUTOMOUNT,
			  STATX_BTIME | STATX_MNT_ID, &stx))
			return -1;
		if (field[0] == 'm')
			n = snprintf(buf, size, "%llu",
				     (unsigned long long)stx.stx_mnt_id);
		else if (!(stx.stx_mask & STATX_BTIME))
			n = 0;
		else
			n = gvt_time(buf, size, stx.stx_btime.tv_sec,
				     stx.stx_btime.tv_nsec);
	} else {
		return -2;
	}
	return n;
}

ssize_t gvt_format_statfs(const struct statfs *sfs, const char *field,
			  char *buf, size_t size)
{
	/* statvfs(3)'s ST_* bits, in bit order, as SPEC names them */
	static const struct { unsigned long bit; const char *name; } words[] = {
		{ ST_RDONLY, "rdonly" }, { ST_NOSUID, "nosuid" },
		{ ST_NODEV, "nodev" }, { ST_NOEXEC, "noexec" },
		{ ST_SYNCHRONOUS, "synchronous" }, { ST_MANDLOCK, "mandlock" },
		{ ST_WRITE, "write" }, { ST_APPEND, "append" },
		{ ST_IMMUTABLE, "immutable" }, { ST_NOATIME, "noatime" },
		{ ST_NODIRATIME, "nodiratime" }, { ST_RELATIME, "relatime" },
		{ 0x2000, "nosymfollow" },
	};
	size_t len = 0;

	if (!strcmp(field, "type"))
		return snprintf(buf, size, "0x%lx",
				(unsigned long)(unsigned int)sfs->f_type);
	if (!strcmp(field, "bsize"))
		return snprintf(buf, size, "%ld", (long)sfs->f_bsize);
	if (!strcmp(field, "frsize"))
		return snprintf(buf, size, "%ld", (long)sfs->f_frsize);
	if (!strcmp(field, "blocks"))
		return snprintf(buf, size, "%llu",
				(unsigned long long)sfs->f_blocks);
	if (!strcmp(field, "bfree"))
		return snprintf(buf, size, "%llu",
				(unsigned long long)sfs->f_bfree);
	if (!strcmp(field, "bavail"))
		return snprintf(buf, size, "%llu",
				(unsigned long long)sfs->f_bavail);
	if (!strcmp(field, "files"))
		return snprintf(buf, size, "%llu",
				(unsigned long long)sfs->f_files);
	if (!strcmp(field, "ffree"))
		return snprintf(buf, size, "%llu",
				(unsigned long long)sfs->f_ffree);
	if (!strcmp(field, "namelen"))
		return snprintf(buf, size, "%ld", (long)sfs->f_namelen);
	if (strcmp(field, "flags"))
		return -2;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (sfs->f_flags & words[i].bit)
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", words[i].name);
	return len;
}

void *gvt_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * GVT_PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	return p;
}

char *gvt_edge_string(const char *s, size_t len)
{
	char *p = gvt_pages(2, PROT_READ | PROT_WRITE);
	char *str;

	if (len >= GVT_PAGE)
		tap_bail("gvt_edge_string: too long");
	str = p + GVT_PAGE - len - 1;
	memcpy(str, s, len);
	str[len] = 0;
	if (mprotect(p + GVT_PAGE, GVT_PAGE, PROT_NONE))
		tap_bail("mprotect: %s", strerror(errno));
	return str;
}

char *gvt_edge_buffer(size_t good, int bad_prot)
{
	char *p = gvt_pages(2, PROT_READ | PROT_WRITE);

	if (good > GVT_PAGE)
		tap_bail("gvt_edge_buffer: too long");
	if (mprotect(p + GVT_PAGE, GVT_PAGE, bad_prot))
		tap_bail("mprotect: %s", strerror(errno));
	return p + GVT_PAGE - good;
}

bool gvt_mnt_ready(void)
{
	static int ready = -1;
	struct name_val e;
	char buf[4096];

	if (ready < 0)
		ready = gvt_call1(AT_FDCWD, "/", 0, "mntns", buf, sizeof(buf),
				  &e) == 1 && e.error == 0;
	return ready;
}

void gvt_poison(void *p, size_t len)
{
	memset(p, 0xa5, len);
}

bool gvt_poisoned(const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		if (s[i] != 0xa5)
			return false;
	return true;
}

const char *gvt_esc(const char *s)
{
	static char bufs[4][600];
	static int next;
	char *b = bufs[next++ % 4];
	size_t o = 0;

	for (; *s && o < sizeof(bufs[0]) - 8; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '#' || c == '\\')
			o += snprintf(b + o, sizeof(bufs[0]) - o, "\\x%02x", c);
		else
			b[o++] = c;
	}
	b[o] = 0;
	return b;
}
