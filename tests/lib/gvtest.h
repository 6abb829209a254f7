/* SPDX-License-Identifier: MIT */
/*
 * gvtest.h - helpers the getvalues() conformance tests share: one-name calls
 * with checks, expected values from independent sources (stat(2), statx(2),
 * statfs(2), readlink(2), readdir(3), getxattr(2)), a private tmpfs scratch
 * tree, and guard pages for bad-pointer cases.
 *
 * Only the public interface (getvalues.h) is used, so that the suite runs
 * unchanged against every backend (GETVALUES_BACKEND).
 */
#ifndef GV_TEST_GVTEST_H
#define GV_TEST_GVTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>

#include <getvalues.h>

#define GVT_BIG		(1u << 20)	/* a buffer every ordinary value fits */
#define GVT_PAGE	4096u

/*
 * Move the process into a private mount namespace (mounts made here are
 * seen by no one else and vanish with the process; a user namespace too
 * where the user is not root, t_private_mounts()) and mount a fresh tmpfs
 * with @opts on a new scratch directory. Returns its path. Where there
 * can be no private mount namespace, every check skips saying why.
 */
const char *gvt_scratch_tmpfs(const char *tag, const char *opts);
/* Mount a tmpfs on @path (inside the private namespace). 0 or -1/errno. */
int gvt_mount_tmpfs(const char *path, unsigned long flags, const char *opts);

/* getvalues() with one entry and the buffer @buf of @size bytes. */
int gvt_call1(int dfd, const char *path, unsigned int flags, const char *name,
	      void *buf, size_t size, struct name_val *e);

/* The one name gives exactly @want (ret 1, error 0, at the buffer start). */
bool gvt_is_value(int dfd, const char *path, unsigned int flags,
		  const char *name, const void *want, size_t want_len,
		  const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* The one name gets the per-entry error @err (ret 1, value_out {buf, 0}). */
bool gvt_is_error(int dfd, const char *path, unsigned int flags,
		  const char *name, int err, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Checks on an entry after a call. */
bool gvt_entry_value(const struct name_val *e, const void *want,
		     size_t want_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool gvt_entry_error(const struct name_val *e, const void *pos, int err,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Set the xattr @name, written "user.NAME", on @path (not following a
 * symlink). Where the file system takes no user xattrs (tmpfs before
 * Linux 6.6) but this process is real root, "trusted.NAME" instead, and
 * gvt_xname() maps every name from then on; where neither can be, every
 * check skips, saying so. Call it before the first check. 0, or -1/errno.
 */
int gvt_setxattr(const char *path, const char *name, const void *value,
		 size_t len);
/* @s (a getvalues or an xattr name), "user." as gvt_setxattr() set it. */
const char *gvt_xname(const char *s);

/*
 * mknodat(2) of a device node: true if made; false where devices cannot be
 * made here (EPERM: a user namespace), and the checks that want one skip
 * with GVT_NO_DEVICES. Any other failure bails out.
 */
bool gvt_mknod(int dfd, const char *name, mode_t mode, dev_t dev);
#define GVT_NO_DEVICES "mknod of devices needs real root (not in a user " \
	"namespace)"

/* Independent sources of expected values; each returns a length or -1. */
ssize_t gvt_want_file(int dfd, const char *path, char *buf, size_t size);
ssize_t gvt_want_link(int dfd, const char *path, char *buf, size_t size);
/* readdir(3) of @path (O_NOFOLLOW), each name followed by a NUL. */
ssize_t gvt_want_dir(int dfd, const char *path, char *buf, size_t size);
/* listxattr(2)/getxattr(2) of @path, not following a final symlink. */
ssize_t gvt_want_xattr_list(const char *path, char *buf, size_t size);
ssize_t gvt_want_xattr(const char *path, const char *name, char *buf,
		       size_t size);

/*
 * A stat field of @dfd/@path (fstatat(2) @atflags, and statx(2) for btime
 * and mntid) formatted as SPEC 2.4 says. Returns the length; -1 with errno
 * if the lookup fails; -2 for an unknown field.
 */
ssize_t gvt_want_stat(int dfd, const char *path, int atflags,
		      const char *field, char *buf, size_t size);
/* An fs field from a struct statfs, formatted as SPEC 2.4 says. */
ssize_t gvt_format_statfs(const struct statfs *sfs, const char *field,
			  char *buf, size_t size);

/* The field names of the stat/lstat, fs and mnt groups, in SPEC order. */
extern const char *const gvt_stat_fields[];
extern const char *const gvt_fs_fields[];
extern const char *const gvt_mnt_fields[];
/* A list value (NUL after each item) of @names. */
size_t gvt_list(const char *const *names, char *buf, size_t size);

/* Pages: @n pages with @prot. */
void *gvt_pages(size_t n, int prot);
/* A copy of @s whose NUL is the last byte before a PROT_NONE page. */
char *gvt_edge_string(const char *s, size_t len);
/*
 * A buffer of which only the first @good bytes can be written; the page
 * after them is mapped @bad_prot. The result points at the first good byte.
 */
char *gvt_edge_buffer(size_t good, int bad_prot);

/*
 * Whether the mnt and mntns groups answer yet (they land with their own
 * issue): checks that depend on them are TODO until they do.
 */
bool gvt_mnt_ready(void);

/* @s with control bytes escaped, for test names (a few rotating buffers). */
const char *gvt_esc(const char *s);

/* Fill @p with a sentinel byte pattern / check that it is still there. */
void gvt_poison(void *p, size_t len);
bool gvt_poisoned(const void *p, size_t len);

#endif /* GV_TEST_GVTEST_H */
