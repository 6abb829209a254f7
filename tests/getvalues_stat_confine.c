// SPDX-License-Identifier: MIT
/*
 * getvalues_stat_confine.c - stat:/lstat: SUBPATH confinement, the last
 * component included (SPEC v2, stat group). An ordinary symlink, wherever it
 * stands, resolves as if $ORIGIN were "/" (a container's etc/localtime ->
 * /usr/share/zoneinfo/UTC is the container's file, never the host's) and
 * never crosses into another mount (EXDEV); a final magic link on procfs
 * (fd/N, cwd, root, exe, ns/NAME, also under task/TID/ and thread-self/) is
 * followed as stat(2) follows it; a magic link before the last component is
 * EXDEV. Expected values come from fstatat(2) of the paths inside.
 *
 * Written for SPEC version 2 as spec2_stat.c; getvalues_stat.c has the
 * fields themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static char top[2048], root[2100];
static int root_fd = -1;

/* stat:FIELD:SUBPATH of @origin is @want (a decimal or a word). */
static void is(const struct t_backend *b, const char *origin,
	       const char *name, const char *want, const char *why)
{
	char buf[256];
	struct name_val e;
	int ret, err;

	ret = t_get1(AT_FDCWD, origin, 0, name, buf, sizeof(buf), &e, &err);
	if (!tap_ok(t_is(ret, &e, want, strlen(want)), "%s: %s is %s (%s)",
		    b->name, name, want, why))
		tap_diag("   got %s \"%.*s\"", t_got(ret, err, &e),
			 ret == 1 && !e.error ? (int)e.value_out.iov_len : 0,
			 buf);
}

static void is_err(const struct t_backend *b, const char *origin,
		   const char *name, int want, const char *why)
{
	char buf[256];
	struct name_val e;
	int ret, err;

	ret = t_get1(AT_FDCWD, origin, 0, name, buf, sizeof(buf), &e, &err);
	if (!tap_ok(ret == 1 && e.error == (uint32_t)want, "%s: %s gets %s "
		    "(%s)", b->name, name, strerrorname_np(want), why))
		tap_diag("   got %s \"%.*s\"", t_got(ret, err, &e),
			 ret == 1 && !e.error ? (int)e.value_out.iov_len : 0,
			 buf);
}

static const char *num(unsigned long long v)
{
	static char bufs[4][32];
	static int k;
	char *s = bufs[k++ % 4];

	snprintf(s, 32, "%llu", v);
	return s;
}

/* st_size of @path beneath the origin, as a decimal. */
static const char *size_in(const char *path)
{
	struct stat st;

	if (fstatat(root_fd, path, &st, 0))
		tap_bail("fstatat %s: %s", path, strerror(errno));
	return num(st.st_size);
}

static void test_symlinks(const struct t_backend *b)
{
	gv_backend_force(b->id);
	is(b, root, "stat:size:etc/localtime",
	   size_in("usr/share/zoneinfo/UTC"),
	   "-> /usr/share/zoneinfo/UTC, the one beneath $ORIGIN");
	is(b, root, "stat:size:abs", size_in("file"),
	   "-> /file, which is $ORIGIN/file");
	is(b, root, "stat:size:up", size_in("outside"),
	   "-> ../outside: \"..\" stops at $ORIGIN");
	is(b, root, "stat:size:chain", size_in("file"),
	   "-> abs -> /file: a chain, confined at every step");
	is(b, root, "stat:size:dir/link", size_in("file"),
	   "a final symlink below a directory, -> /file");
	is_err(b, root, "stat:size:hostabs", ENOENT,
	       "-> an absolute path of the host, not there beneath $ORIGIN");
	is_err(b, root, "stat:type:proclink", ENOENT,
	       "-> /proc/self: an ordinary symlink, looked up beneath $ORIGIN");
	is_err(b, root, "stat:type:fdlink", ENOENT,
	       "-> /proc/self/fd/0, looked up beneath $ORIGIN");
	is(b, root, "lstat:size:abs", "5", "the link itself: \"/file\"");
	is(b, root, "lstat:type:etc/localtime", "lnk", "not followed");
}

static void test_magic(const struct t_backend *b, int dfd)
{
	char name[64], origin[64];
	struct stat st;

	gv_backend_force(b->id);
	if (fstat(dfd, &st))
		tap_bail("fstat: %s", strerror(errno));
	snprintf(name, sizeof(name), "stat:ino:fd/%d", dfd);
	is(b, "/proc/self", name, num(st.st_ino),
	   "the final magic link fd/N: the open file");
	snprintf(origin, sizeof(origin), "/proc/self/task/%d", gettid());
	is(b, origin, name, num(st.st_ino), "under task/TID/");
	snprintf(name, sizeof(name), "stat:ino:thread-self/fd/%d", dfd);
	is(b, "/proc", name, num(st.st_ino), "under thread-self/");
	snprintf(name, sizeof(name), "lstat:type:fd/%d", dfd);
	is(b, "/proc/self", name, "lnk", "lstat: the link itself");
	if (!stat(".", &st))
		is(b, "/proc/self", "stat:ino:cwd", num(st.st_ino),
		   "cwd: the working directory");
	if (!stat("/proc/self/exe", &st))
		is(b, "/proc/self", "stat:ino:exe", num(st.st_ino),
		   "exe: the program");
	if (!stat("/proc/self/root", &st))
		is(b, "/proc/self", "stat:ino:root", num(st.st_ino),
		   "root: the root directory");
	if (!stat("/proc/self/ns/mnt", &st))
		is(b, "/proc/self", "stat:ino:ns/mnt", num(st.st_ino),
		   "ns/mnt: the namespace");

	/* a magic link before the last component */
	is_err(b, "/proc/self", "stat:type:cwd/file", EXDEV,
	       "cwd/ is a magic link before the last component");
	is_err(b, "/proc/self", "stat:type:root/etc", EXDEV,
	       "root/ is a magic link before the last component");
	snprintf(name, sizeof(name), "lstat:type:fd/%d/file", dfd);
	is_err(b, "/proc/self", name, EXDEV,
	       "fd/N/ is a magic link before the last component");
}

/* In a private mount namespace: a tmpfs on $ORIGIN/mnt. */
static void test_mounts(void *arg)
{
	const struct t_backend *bs = arg;
	char mnt[2200];
	struct stat st;
	const char *why;
	bool userns;
	int n = 0;

	while (bs[n].name)
		n++;
	if ((why = t_private_mounts(&userns))) {
		tap_skip(3 * n, "no private mount namespace: %s", why);
		return;
	}
	/* by name: root_fd still sees the mounts of the namespace it came from */
	snprintf(mnt, sizeof(mnt), "%s/mnt", root);
	if (mount("gvtest", mnt, "tmpfs", 0, "mode=0755") || stat(mnt, &st))
		tap_bail("tmpfs on %s: %s", mnt, strerror(errno));
	snprintf(mnt, sizeof(mnt), "%s/mnt/f", root);
	if (t_write_file(AT_FDCWD, mnt, "on the mount", 12, 0644))
		tap_bail("tmpfs on %s: %s", mnt, strerror(errno));
	for (int i = 0; bs[i].name; i++) {
		gv_backend_force(bs[i].id);
		is(&bs[i], root, "stat:ino:mnt", num(st.st_ino),
		   "a last component that is a mount point: as stat(2)");
		is_err(&bs[i], root, "stat:size:tomnt", EXDEV,
		       "-> mnt/f: a final symlink into another mount");
		is_err(&bs[i], root, "stat:size:tomntabs", EXDEV,
		       "-> /mnt/f: the same, absolute");
	}
}

int main(void)
{
	struct t_backend bs[5] = { { 0 } };
	int n, dfd;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("stat2"));
	snprintf(root, sizeof(root), "%s/root", top);
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "root", 0755))
		tap_bail("setup: %s", strerror(errno));
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	{
		char hostabs[2200];

		snprintf(hostabs, sizeof(hostabs), "%s/hostfile", top);
		if (root_fd < 0 ||
		    t_write_file(dfd, "hostfile", "a file of the host\n", 19,
				 0644) ||
		    t_write_file(dfd, "outside", "outside $ORIGIN, bigger\n",
				 24, 0644) ||
		    t_write_file(root_fd, "file", "inside file", 11, 0644) ||
		    t_write_file(root_fd, "outside", "in-root", 7, 0644) ||
		    mkdirat(root_fd, "etc", 0755) ||
		    mkdirat(root_fd, "usr", 0755) ||
		    mkdirat(root_fd, "usr/share", 0755) ||
		    mkdirat(root_fd, "usr/share/zoneinfo", 0755) ||
		    t_write_file(root_fd, "usr/share/zoneinfo/UTC",
				 "container UTC", 13, 0644) ||
		    symlinkat("/usr/share/zoneinfo/UTC", root_fd,
			      "etc/localtime") ||
		    symlinkat("/file", root_fd, "abs") ||
		    symlinkat("../outside", root_fd, "up") ||
		    symlinkat("abs", root_fd, "chain") ||
		    mkdirat(root_fd, "dir", 0755) ||
		    symlinkat("/file", root_fd, "dir/link") ||
		    symlinkat(hostabs, root_fd, "hostabs") ||
		    symlinkat("/proc/self", root_fd, "proclink") ||
		    symlinkat("/proc/self/fd/0", root_fd, "fdlink") ||
		    mkdirat(root_fd, "mnt", 0755) ||
		    symlinkat("mnt/f", root_fd, "tomnt") ||
		    symlinkat("/mnt/f", root_fd, "tomntabs"))
			tap_bail("setup in %s: %s", root, strerror(errno));
	}
	close(dfd);
	if (chdir(root))
		tap_bail("chdir: %s", strerror(errno));

	n = t_backends(bs, 10 + 12);
	for (int i = 0; i < n; i++) {
		test_symlinks(&bs[i]);
		test_magic(&bs[i], root_fd);
	}
	t_sub("stat: across mounts", 60, test_mounts, bs);
	close(root_fd);
	return tap_done();
}
