/* SPDX-License-Identifier: MIT */
/*
 * getvalues.h - the public interface of libgetvalues: readfile() and getvalues().
 *
 * Both calls are the user-space form of two proposed Linux system calls. The
 * library runs them on any kernel, choosing the fastest mechanism that works
 * (plain system calls, io_uring, statmount/listmount, or the native system
 * calls where the kernel has them); every mechanism gives the same values and
 * the same errors. See readfile(3), getvalues(3) and getvalues(7).
 */
#ifndef GETVALUES_H
#define GETVALUES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header: 0.2.0. */
#define GETVALUES_VERSION_MAJOR 0
#define GETVALUES_VERSION_MINOR 2
#define GETVALUES_VERSION_PATCH 0

/* A version as one number that compares as versions do. */
#define GETVALUES_VERSION(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define GETVALUES_VERSION_CODE						\
	GETVALUES_VERSION(GETVALUES_VERSION_MAJOR, GETVALUES_VERSION_MINOR, \
			  GETVALUES_VERSION_PATCH)

/**
 * getvalues_version() - the version of the library running
 *
 * The macros above give the version a program was compiled against; a
 * shared library may be newer. Since 0.2.0.
 *
 * Return: GETVALUES_VERSION(major, minor, patch) of the library, to be
 * compared with GETVALUES_VERSION(): getvalues_version() >=
 * GETVALUES_VERSION(0, 2, 0).
 */
unsigned int getvalues_version(void);

/*
 * readfile is a common name for a helper of one's own. A program that has
 * one defines GETVALUES_NO_READFILE before including this header, which
 * then leaves the name out, and calls getvalues_readfile(): the same
 * function under a prefixed name. The library's readfile is a weak symbol,
 * so a program's own readfile() wins over it at static link time, too.
 * See readfile(3).
 */
#ifndef GETVALUES_NO_READFILE
/**
 * readfile() - open, read and close a file in one call
 * @dfd:     directory descriptor for a relative @path, or AT_FDCWD
 * @path:    the file, resolved relative to @dfd exactly as openat(2) does
 * @buf:     where the contents go
 * @bufsize: size of @buf
 * @flags:   0, or O_NOFOLLOW and/or O_NOATIME; any other bit is EINVAL
 *
 * The file is opened read-only, read from offset 0 until end of file or until
 * @bufsize bytes are in @buf, and closed. It is opened as openat(2) opens with
 * O_RDONLY | O_CLOEXEC | O_NOCTTY, never O_NONBLOCK: a FIFO without a writer
 * blocks as open(2) would, and reading blocks as read(2) would.
 *
 * Return: the number of bytes read: 0 for an empty file or @bufsize 0, and
 * @bufsize when the file is at least that long (the caller sees truncation).
 * On error -1 with errno set as openat(2) or read(2) set it: ENOENT, EACCES,
 * ELOOP (O_NOFOLLOW on a symlink), EISDIR, ENOTDIR, EBADF, EFAULT, EPERM
 * (O_NOATIME on a file not owned), EINTR, EIO, EINVAL (bad @flags).
 * No file descriptor survives the call, in any thread, across fork().
 */
ssize_t readfile(int dfd, const char *path, void *buf, size_t bufsize, int flags);
#endif

/* readfile() under a name no program has of its own; always declared. */
ssize_t getvalues_readfile(int dfd, const char *path, void *buf, size_t bufsize,
			   int flags);

/**
 * struct name_val - one named value requested from getvalues()
 * @name:      what to fetch, for example "mnt:mountpoint" or "data:status";
 *             ":REST" repeats the previous entry's prefix (see getvalues(3))
 * @value_in:  a buffer for the value; a NULL iov_base keeps filling the
 *             buffer of the previous entry right after its last value
 * @value_out: set by getvalues(): where the value is and how long it is
 * @error:     set by getvalues(): 0, or a positive errno for this entry
 * @reserved:  must be 0
 */
struct name_val {
	const char *name;	/* in */
	struct iovec value_in;	/* in */
	struct iovec value_out;	/* out */
	uint32_t error;		/* out */
	uint32_t reserved;	/* must be 0 */
};

/**
 * getvalues() - fetch many named values about one object in one call
 * @dfd:   directory descriptor for a relative @path, or AT_FDCWD
 * @path:  the object, $ORIGIN, resolved as statx(2) resolves it
 * @vec:   @num entries, handled in order
 * @num:   number of entries
 * @flags: AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_NO_AUTOMOUNT; others EINVAL
 *
 * Names are "GROUP:FIELD" (mnt, mntns, xattr, data, dir, stat, lstat, fs),
 * "GROUP" for the list of names in a group, or "" for the list of groups.
 * Lists are items each followed by a NUL byte; numbers are ASCII decimal;
 * strings and file contents are raw bytes; nothing is NUL-terminated.
 *
 * A value fits only if its length is strictly less than the space left in
 * the current buffer; the first that does not fit gets EOVERFLOW and the call
 * stops there. Per-entry failures set @error and leave the value empty.
 *
 * Return: the number of entries handled (@num unless one overflowed; then the
 * index of that entry). On failure of the call itself -1 with errno: the
 * errno of resolving $ORIGIN, EINVAL (unknown flags, non-zero @reserved),
 * EFAULT (unreadable @vec), ENOMEM. Nothing in @vec is written then.
 */
int getvalues(int dfd, const char *path, struct name_val *vec, size_t num,
	      unsigned int flags);

/* The limit of getvalues_alloc()'s buffer when the caller gives none. */
#define GETVALUES_ALLOC_MAX	(256u << 20)

/**
 * getvalues_alloc() - getvalues() into a buffer that grows until all fits
 * @dfd, @path, @vec, @num, @flags: as for getvalues(); the value_in of
 *            every entry is ignored (and never written)
 * @max_size: the largest buffer to try, in bytes; 0 for GETVALUES_ALLOC_MAX
 * @bufp:     set to the buffer that every value_out points into (free() it
 *            when done with the values), or to NULL when the call fails
 *
 * EOVERFLOW does not tell how large the value is. This makes the whole call
 * again in a buffer twice as large (or larger, at the rate of the values
 * that fitted), so that every value comes from one getvalues() call, until
 * all fit or the buffer is @max_size bytes. Only value_out and error of
 * the entries handled are written into @vec.
 *
 * Return: as getvalues(): @num when every value fits; else the index of the
 * entry that does not fit even in @max_size bytes (its error EOVERFLOW; the
 * entries before it are filled in, and *@bufp must be freed). On failure -1
 * with errno as getvalues() sets it, ENOMEM, or EINVAL for a NULL @bufp.
 */
int getvalues_alloc(int dfd, const char *path, struct name_val *vec,
		    size_t num, unsigned int flags, size_t max_size,
		    void **bufp);

/**
 * getvalues_alloc_each() - every entry, each value in a buffer grown for it
 * @dfd, @path, @vec, @num, @flags, @bufp: as for getvalues_alloc()
 * @max_size: the most room one value is given, in bytes; 0 for
 *            GETVALUES_ALLOC_MAX
 *
 * Every entry is handled. When a value does not fit, the call goes on from
 * that entry with more room (the values before it stay where they are: a
 * file is read once), and an entry whose value alone needs @max_size bytes
 * or more gets EOVERFLOW; the call carries on with the next entry, whose
 * ":REST" keeps the prefix it has in @vec. The values of entries after an
 * overflow come from a later getvalues() call than those before it. All
 * values are in the one buffer *@bufp (free() it). Since 0.2.0.
 *
 * Return: @num, or -1 with errno as getvalues_alloc() sets it.
 */
int getvalues_alloc_each(int dfd, const char *path, struct name_val *vec,
			 size_t num, unsigned int flags, size_t max_size,
			 void **bufp);

/**
 * getvalues_expand_name() - the name an entry stands for, shorthand written out
 * @prev: the name of the entry before, as this function gave it (or as
 *        written when that was no shorthand); NULL for the first entry and
 *        after an entry for which this function failed
 * @name: the entry's name
 * @buf:  where the name goes, NUL-terminated, cut to @size - 1 bytes
 * @size: size of @buf; 0 to learn the length only
 *
 * "data:big" then ":small" stands for "data:small"; "mntns:21:root" then
 * ":options" for "mntns:21:options" (SPEC 2.3, getvalues(3)). A name that
 * is no shorthand stands for itself. Since 0.2.0.
 *
 * Return: the length of the name (as snprintf(3): @size or more means @buf
 * holds only its start). -1 with errno: EINVAL for a NULL @name or for a
 * shorthand with no prefix before it (getvalues() gives that entry EINVAL),
 * ENAMETOOLONG for a @name over 255 bytes (ENAMETOOLONG in getvalues()).
 */
ssize_t getvalues_expand_name(const char *prev, const char *name, char *buf,
			      size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GETVALUES_H */
