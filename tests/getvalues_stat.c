// SPDX-License-Identifier: MIT
/*
 * getvalues_stat.c - the stat and lstat groups (SPEC 2.4 version 2,
 * DECISIONS V1-V4, V7): every field of every kind of object, with and
 * without SUBPATH, compared with stat(2)/statx(2); the last component
 * followed (stat) or not (lstat), confined like every other component
 * (an absolute symlink resolves inside $ORIGIN, never on the host), except
 * a final magic link on procfs, which stat follows: /proc/self/fd/N of
 * files opened read-only, write-only and read-write, pipes and sockets;
 * EXDEV at other mounts and at a magic link before the last component,
 * and the SUBPATH syntax rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char *scratch;
static int origin;		/* scratch/origin, O_PATH */
static int nfields;
static bool have_devices;	/* "null" and "blk" were made */
static bool have_owner;		/* "owned" belongs to 12345:54321 */

/*
 * The objects beneath $ORIGIN every field is checked on, and the path
 * stat(2) finds each at from $ORIGIN (where confinement makes it differ).
 */
static const struct { const char *sub, *ref; } objects[] = {
	{ "file", "file" }, { "setuid", "setuid" }, { "mode0", "mode0" },
	{ "sticky", "sticky" }, { "dir", "dir" }, { "link", "link" },
	{ "dangling", "dangling" }, { "loop", "loop" }, { "fifo", "fifo" },
	{ "sock", "sock" }, { "null", "null" }, { "blk", "blk" },
	{ "hard1", "hard1" }, { "sparse", "sparse" },
	{ "oldtime", "oldtime" }, { "owned", "owned" }, { "mnt", "mnt" },
	{ "dir/deeper/leaf", "dir/deeper/leaf" },
	{ "dirlink/deeper/leaf", "dir/deeper/leaf" },
	{ "root/file", "file" }, { "root/dir/deeper", "dir/deeper" },
	{ "up/dir", "dir" }, { "up/up/link", "link" },
};

/*
 * One call with every field of @sub in @group (shorthand after the first),
 * each compared with fstatat(2) of the same object.
 */
static void check_object(int dfd, const char *path, unsigned int flags,
			 const char *group, const char *sub, int sdfd,
			 const char *spath, int sflags, const char *what)
{
	static char buf[65536], names[32][PATH_MAX + 32];
	struct name_val v[32];
	int ret, bad = 0;

	for (int i = 0; i < nfields; i++) {
		if (!sub)
			snprintf(names[i], sizeof(names[i]), "%s%s:%s",
				 i ? "" : group, i ? "" : "",
				 gvt_stat_fields[i]);
		else
			snprintf(names[i], sizeof(names[i]), "%s:%s:%s",
				 i ? "" : group, gvt_stat_fields[i], sub);
		v[i] = (struct name_val){ .name = names[i] };
	}
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	ret = getvalues(dfd, path, v, nfields, flags);
	if (!tap_is_long(ret, nfields, "%s: %d fields handled", what, nfields))
		return;
	for (int i = 0; i < nfields; i++) {
		char want[128];
		ssize_t n = gvt_want_stat(sdfd, spath, sflags,
					  gvt_stat_fields[i], want,
					  sizeof(want));

		if (n < 0 && v[i].error == (uint32_t)errno &&
		    v[i].value_out.iov_len == 0)
			continue;
		if (n >= 0 && !v[i].error &&
		    v[i].value_out.iov_len == (size_t)n &&
		    !memcmp(v[i].value_out.iov_base, want, n))
			continue;
		if (!bad++)
			tap_diag("%s: \"%s\": got %.*s (error %u), want %.*s (%s)",
				 what, gvt_stat_fields[i],
				 (int)v[i].value_out.iov_len,
				 (char *)v[i].value_out.iov_base, v[i].error,
				 (int)(n > 0 ? n : 0), want,
				 n < 0 ? strerror(errno) : "ok");
	}
	tap_ok(bad == 0, "%s: every field as stat(2) gives it", what);
}

static void test_objects(void)
{
	char what[256];

	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		const char *o = objects[i].sub, *ref = objects[i].ref;

		if (!have_devices && (!strcmp(o, "null") || !strcmp(o, "blk"))) {
			tap_skip(4, GVT_NO_DEVICES);
			continue;
		}
		snprintf(what, sizeof(what), "stat:F:%s", o);
		check_object(origin, "", AT_EMPTY_PATH, "stat", o, origin, ref,
			     0, what);
		snprintf(what, sizeof(what), "lstat:F:%s", o);
		check_object(origin, "", AT_EMPTY_PATH, "lstat", o, origin, ref,
			     AT_SYMLINK_NOFOLLOW, what);
	}
	/*
	 * SPEC v2: a final symlink is followed as if $ORIGIN were "/": an
	 * absolute target names a file inside $ORIGIN, whatever the host has
	 * at that path; lstat describes the link.
	 */
	check_object(origin, "", AT_EMPTY_PATH, "stat", "abs", origin, "file",
		     0, "stat:F:abs (-> /file): origin's file, not the host's");
	check_object(origin, "", AT_EMPTY_PATH, "lstat", "abs", origin, "abs",
		     AT_SYMLINK_NOFOLLOW, "lstat:F:abs: the link itself");
	check_object(origin, "", AT_EMPTY_PATH, "stat", "absdir/leaf", origin,
		     "dir/deeper/leaf", 0,
		     "stat:F:absdir/leaf (absdir -> /dir/deeper)");
	check_object(origin, "", AT_EMPTY_PATH, "lstat", "outside", origin,
		     "outside", AT_SYMLINK_NOFOLLOW,
		     "lstat:F:outside: the link to the host's file");
	check_object(origin, "", AT_EMPTY_PATH, "lstat", "proclink", origin,
		     "proclink", AT_SYMLINK_NOFOLLOW,
		     "lstat:F:proclink: the link itself");
	/* without SUBPATH: $ORIGIN itself, however it was named */
	check_object(origin, "file", 0, "stat", NULL, origin, "file", 0,
		     "stat:F of $ORIGIN file");
	check_object(origin, "link", 0, "stat", NULL, origin, "link", 0,
		     "stat:F of $ORIGIN link (followed when resolving $ORIGIN)");
	check_object(origin, "link", 0, "lstat", NULL, origin, "link", 0,
		     "lstat:F of $ORIGIN link (followed when resolving $ORIGIN)");
	check_object(origin, "link", AT_SYMLINK_NOFOLLOW, "stat", NULL, origin,
		     "link", AT_SYMLINK_NOFOLLOW,
		     "stat:F of $ORIGIN link with AT_SYMLINK_NOFOLLOW: the link");
	check_object(origin, "fifo", 0, "stat", NULL, origin, "fifo", 0,
		     "stat:F of $ORIGIN fifo");
	if (have_devices)
		check_object(origin, "null", 0, "lstat", NULL, origin, "null",
			     0, "lstat:F of $ORIGIN device");
	else
		tap_skip(2, GVT_NO_DEVICES);
	check_object(origin, "mnt", 0, "stat", NULL, origin, "mnt", 0,
		     "stat:F of $ORIGIN mount point (the mounted root)");
	check_object(origin, "", AT_EMPTY_PATH, "stat", "", origin, "", 0,
		     "stat:F: (empty SUBPATH) is $ORIGIN");
	check_object(AT_FDCWD, "/proc/self", 0, "stat", NULL, AT_FDCWD,
		     "/proc/self", 0, "stat:F of /proc/self (no btime)");
}

/* /proc/self/fd/N: the open file, whatever its access mode. */
static void test_proc_fds(void)
{
	static const struct { const char *name; int flags; } modes[] = {
		{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY },
		{ "O_RDWR", O_RDWR }, { "O_PATH", O_PATH },
		{ "O_WRONLY|O_APPEND", O_WRONLY | O_APPEND },
	};
	char sub[64], what[128], spath[64];
	int p[2], sv[2];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int fd = openat(origin, "file", modes[i].flags | O_CLOEXEC);

		if (fd < 0)
			tap_bail("open %s: %s", modes[i].name, strerror(errno));
		snprintf(sub, sizeof(sub), "fd/%d", fd);
		snprintf(spath, sizeof(spath), "/proc/self/fd/%d", fd);
		snprintf(what, sizeof(what), "/proc/self stat:F:fd/N, %s",
			 modes[i].name);
		/* the reference: fstat(2) of the descriptor itself */
		check_object(AT_FDCWD, "/proc/self", 0, "stat", sub, fd, "", 0,
			     what);
		snprintf(what, sizeof(what), "/proc/self lstat:F:fd/N, %s",
			 modes[i].name);
		check_object(AT_FDCWD, "/proc/self", 0, "lstat", sub, AT_FDCWD,
			     spath, AT_SYMLINK_NOFOLLOW, what);
		close(fd);
	}
	if (pipe2(p, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		tap_bail("pipe: %s", strerror(errno));
	snprintf(sub, sizeof(sub), "fd/%d", p[1]);
	check_object(AT_FDCWD, "/proc/self", 0, "stat", sub, p[1], "", 0,
		     "/proc/self stat:F:fd/N of a pipe");
	snprintf(sub, sizeof(sub), "fd/%d", sv[0]);
	check_object(AT_FDCWD, "/proc/self", 0, "stat", sub, sv[0], "", 0,
		     "/proc/self stat:F:fd/N of a socket");
	/* a deleted file is still described through its descriptor */
	{
		int fd = openat(origin, "doomed", O_RDWR | O_CREAT | O_CLOEXEC,
				0640);

		if (fd < 0 || unlinkat(origin, "doomed", 0) ||
		    write(fd, "x", 1) != 1)
			tap_bail("doomed: %s", strerror(errno));
		snprintf(sub, sizeof(sub), "fd/%d", fd);
		check_object(AT_FDCWD, "/proc/self", 0, "stat", sub, fd, "", 0,
			     "/proc/self stat:F:fd/N of a deleted file");
		close(fd);
	}
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "stat:ino:fd/999999", ENOENT,
		     "stat:ino:fd/N of a closed descriptor: ENOENT");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "stat:ino:cwd/file", EXDEV,
		     "a magic link in the middle: EXDEV");
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

struct ecase {
	const char *name;
	int err;
};

static const struct ecase errors[] = {
	{ "stat:ino:missing", ENOENT },
	{ "lstat:ino:missing", ENOENT },
	{ "stat:ino:dangling", ENOENT },
	{ "stat:ino:loop", ELOOP },
	{ "stat:ino:file/x", ENOTDIR },
	{ "lstat:ino:file/x", ENOTDIR },
	{ "stat:ino:loop/x", ELOOP },
	{ "stat:ino:dangling/x", ENOENT },
	{ "stat:ino:mnt/file", EXDEV },
	{ "lstat:ino:mnt/file", EXDEV },
	{ "stat:ino:tomnt/file", EXDEV },
	{ "stat:ino:up/secret", ENOENT },
	{ "stat:ino:root/secret", ENOENT },
	/* v2: the host's file is not reached by a final symlink either */
	{ "stat:ino:outside", ENOENT },
	{ "stat:ino:proclink", ENOENT },
	{ "stat:ino:/file", EINVAL },
	{ "stat:ino:/", EINVAL },
	{ "stat:ino:file/", EINVAL },
	{ "stat:ino:dir//deeper", EINVAL },
	{ "stat:ino:.", EINVAL },
	{ "stat:ino:..", EINVAL },
	{ "stat:ino:./file", EINVAL },
	{ "stat:ino:dir/.", EINVAL },
	{ "stat:ino:dir/..", EINVAL },
	{ "stat:ino:dir/../file", EINVAL },
	{ "stat:ino:../secret", EINVAL },
	{ "lstat:ino:..", EINVAL },
	{ "lstat:ino:dir/", EINVAL },
	{ "stat:ino:missing/../file", EINVAL },
	{ "stat:bogus:file", ENOENT },
	{ "stat::file", ENOENT },
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		gvt_is_error(origin, "", AT_EMPTY_PATH, errors[i].name,
			     errors[i].err, "\"%s\": %s", errors[i].name,
			     strerrorname_np(errors[i].err));
}

/* Formats SPEC spells out, on values chosen to hit their corners. */
static void test_formats(void)
{
	char want[64];
	ssize_t n;

	gvt_is_value(origin, "setuid", 0, "stat:mode", "4755", 4,
		     "mode 4755 (read back by stat(2) as such)");
	gvt_is_value(origin, "mode0", 0, "stat:mode", "0000", 4,
		     "mode 0: four digits");
	gvt_is_value(origin, "sticky", 0, "stat:mode", "1777", 4,
		     "sticky directory: 1777");
	if (have_devices)
		gvt_is_value(origin, "null", 0, "stat:rdev", "1:3", 3,
			     "rdev of a 1:3 device: \"1:3\"");
	else
		tap_skip(1, GVT_NO_DEVICES);
	gvt_is_value(origin, "oldtime", 0, "stat:mtime", "1733212800.000000042",
		     20, "mtime with 42 ns: nine digits of nanoseconds");
	n = gvt_want_stat(origin, "oldtime", 0, "atime", want, sizeof(want));
	gvt_is_value(origin, "oldtime", 0, "stat:atime", want, n,
		     "atime before 1970 (%.*s)", (int)n, want);
	if (have_owner) {
		gvt_is_value(origin, "owned", 0, "stat:uid", "12345", 5,
			     "uid 12345");
		gvt_is_value(origin, "owned", 0, "stat:gid", "54321", 5,
			     "gid 54321");
	} else {
		tap_skip(2, "needs real root, to give a file to another user "
			 "(a user namespace maps one)");
	}
	gvt_is_value(origin, "hard1", 0, "stat:nlink", "2", 1,
		     "two hard links: nlink 2");
	gvt_is_value(origin, "", AT_EMPTY_PATH, "stat:type:fifo", "fifo", 4,
		     "type fifo");
	gvt_is_value(origin, "", AT_EMPTY_PATH, "lstat:type:link", "lnk", 3,
		     "type lnk");
	gvt_is_value(origin, "", AT_EMPTY_PATH, "stat:type:sock", "sock", 4,
		     "type sock");
	if (have_devices)
		gvt_is_value(origin, "", AT_EMPTY_PATH, "stat:type:blk", "blk",
			     3, "type blk");
	else
		tap_skip(1, GVT_NO_DEVICES);
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "stat:btime", "", 0,
		     "procfs records no btime: empty");
}

int main(void)
{
	struct timespec ts[2] = {
		{ -2, 500000000 },		/* 1969-12-31 23:59:58.5 */
		{ 1733212800, 42 },
	};
	char path[PATH_MAX + 16];
	int fd;

	while (gvt_stat_fields[nfields])
		nfields++;
	scratch = gvt_scratch_tmpfs("stat", "mode=0755");
	fd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || t_write_file(fd, "secret", "outside", 7, 0644) ||
	    mkdirat(fd, "origin", 0755))
		tap_bail("setup: %s", strerror(errno));
	origin = openat(fd, "origin", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (origin < 0 ||
	    t_write_file(origin, "file", "some contents\n", 14, 0644) ||
	    t_write_file(origin, "setuid", "", 0, 0755) ||
	    fchmodat(origin, "setuid", 04755, 0) ||
	    t_write_file(origin, "mode0", "", 0, 0) ||
	    fchmodat(origin, "mode0", 0, 0) ||
	    mkdirat(origin, "sticky", 0755) ||
	    fchmodat(origin, "sticky", 01777, 0) ||
	    mkdirat(origin, "dir", 0755) ||
	    mkdirat(origin, "dir/deeper", 0700) ||
	    t_write_file(origin, "dir/deeper/leaf", "leaf", 4, 0600) ||
	    symlinkat("file", origin, "link") ||
	    symlinkat("nowhere", origin, "dangling") ||
	    symlinkat("loop", origin, "loop") ||
	    symlinkat("dir", origin, "dirlink") ||
	    symlinkat("/", origin, "root") ||
	    symlinkat("..", origin, "up") ||
	    symlinkat("mnt", origin, "tomnt") ||
	    symlinkat("/proc/self", origin, "proclink") ||
	    symlinkat("/file", origin, "abs") ||
	    symlinkat("/dir/deeper", origin, "absdir") ||
	    mkfifoat(origin, "fifo", 0600) ||
	    t_write_file(origin, "hard1", "h", 1, 0644) ||
	    linkat(origin, "hard1", origin, "hard2", 0) ||
	    t_write_file(origin, "oldtime", "", 0, 0644) ||
	    utimensat(origin, "oldtime", ts, 0) ||
	    t_write_file(origin, "owned", "", 0, 0644) ||
	    mkdirat(origin, "mnt", 0755))
		tap_bail("setup: %s", strerror(errno));
	have_devices = gvt_mknod(origin, "null", S_IFCHR | 0666,
				 makedev(1, 3)) &&
		       gvt_mknod(origin, "blk", S_IFBLK | 0600,
				 makedev(7, 250));
	have_owner = !fchownat(origin, "owned", 12345, 54321, 0);
	if (!have_owner && t_real_root())
		tap_bail("chown: %s", strerror(errno));
	/* a sparse file: size and blocks differ */
	fd = openat(origin, "sparse", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || pwrite(fd, "end", 3, 1 << 20) != 3)
		tap_bail("sparse: %s", strerror(errno));
	close(fd);
	/* a final symlink to the host's file: stat must not reach it (v2) */
	snprintf(path, sizeof(path), "%s/secret", scratch);
	if (symlinkat(path, origin, "outside"))
		tap_bail("outside: %s", strerror(errno));
	{
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		if (snprintf(sun.sun_path, sizeof(sun.sun_path),
			     "%s/origin/sock", scratch) >=
			    (int)sizeof(sun.sun_path) ||
		    s < 0 || bind(s, (struct sockaddr *)&sun, sizeof(sun)))
			tap_bail("socket: %s", strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/origin/mnt", scratch);
	if (gvt_mount_tmpfs(path, 0, "mode=0711"))
		tap_bail("mount: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/origin/mnt/file", scratch);
	if (t_write_file(AT_FDCWD, path, "", 0, 0644))
		tap_bail("mnt/file: %s", strerror(errno));

	test_objects();
	test_proc_fds();
	test_errors();
	test_formats();
	close(origin);
	return tap_done();
}
