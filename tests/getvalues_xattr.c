// SPDX-License-Identifier: MIT
/*
 * getvalues_xattr.c - the xattr group (SPEC 2.4, DECISIONS V8): values and
 * the listing of $ORIGIN's extended attributes compared with getxattr(2)
 * and listxattr(2), errors as getxattr(2) gives them, EOVERFLOW for a value
 * that does not fit (never ERANGE), a symlink's own attributes under
 * AT_SYMLINK_NOFOLLOW, FIFOs and devices, and POSIX ACLs in the format
 * getxattr(2) gives, also from inside a user namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char *tree;
static char path_file[PATH_MAX], path_link[PATH_MAX], path_fifo[PATH_MAX],
	    path_dev[PATH_MAX], path_dir[PATH_MAX];
static char big[65536];
static bool have_dev;		/* path_dev is a device node */
static bool have_trusted;	/* the trusted.* attributes were set */
#define NO_TRUSTED "trusted.* xattrs need real root (CAP_SYS_ADMIN)"

/*
 * The namespace of the ordinary attributes: "user." where tmpfs has user
 * xattrs (Linux 6.6), else "trusted." (root only, on every tmpfs).
 */
static const char *ns = "user.";

/* @rest in that namespace, in one of a few rotating buffers */
static const char *X(const char *rest)
{
	static char bufs[8][300];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s%s", ns, rest);
	return b;
}

/* The same as a getvalues name: "xattr:" and the attribute */
static const char *XN(const char *rest)
{
	static char bufs[8][300];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "xattr:%s%s", ns, rest);
	return b;
}

/* The value of @name at @path through getvalues and through getxattr. */
static void expect_xattr(const char *path, unsigned int flags,
			 const char *name, const char *what)
{
	static char want[65536 + 1];
	char gvname[300];
	ssize_t n;

	n = flags & AT_SYMLINK_NOFOLLOW ?
	    lgetxattr(path, name, want, sizeof(want)) :
	    getxattr(path, name, want, sizeof(want));
	snprintf(gvname, sizeof(gvname), "xattr:%s", name);
	if (n < 0)
		gvt_is_error(AT_FDCWD, path, flags, gvname, errno,
			     "%s: %s as getxattr(2)", what,
			     strerrorname_np(errno));
	else
		gvt_is_value(AT_FDCWD, path, flags, gvname, want, n,
			     "%s: %zd bytes as getxattr(2)", what, n);
}

static void expect_list(const char *path, unsigned int flags,
			const char *what)
{
	static char want[65536];
	ssize_t n;

	n = flags & AT_SYMLINK_NOFOLLOW ? llistxattr(path, want, sizeof(want)) :
					  listxattr(path, want, sizeof(want));
	if (n < 0)
		gvt_is_error(AT_FDCWD, path, flags, "xattr", errno,
			     "%s: %s as listxattr(2)", what,
			     strerrorname_np(errno));
	else
		gvt_is_value(AT_FDCWD, path, flags, "xattr", want, n,
			     "%s: as listxattr(2)", what);
}

static void test_values(void)
{
	char longname[256];

	expect_xattr(path_file, 0, X("a"), X("a"));
	expect_xattr(path_file, 0, X("empty"), "an empty value");
	expect_xattr(path_file, 0, X("bin"), "binary value with NULs");
	expect_xattr(path_file, 0, X("big"), "a 65536-byte value");
	expect_xattr(path_file, 0, X("with:colon"), "a name with ':'");
	if (have_trusted)
		expect_xattr(path_file, 0, "trusted.t", "trusted.t");
	else
		tap_skip(1, NO_TRUSTED);
	expect_xattr(path_file, 0, X("missing"), "absent: ENODATA");
	expect_xattr(path_file, 0, "trusted.missing", "absent trusted");
	expect_xattr(path_file, 0, "nonamespace", "no namespace");
	expect_xattr(path_file, 0, "bogus.x", "unknown namespace");
	expect_xattr(path_file, 0, ns, "empty name after the namespace");
	snprintf(longname, sizeof(longname), "%s%0*d", ns,
		 (int)(249 - strlen(ns)), 0);
	expect_xattr(path_file, 0, longname,
		     "a 249-byte attribute name (a 255-byte getvalues name)");
	expect_list(path_file, 0, "listing of a file");
	expect_list(path_dir, 0, "listing of a directory without attributes");
	expect_list("/proc/self/", 0, "listing on procfs");
	expect_xattr("/proc/self/", 0, X("a"), "procfs: an attribute");
	expect_xattr("/", 0, X("a"), "/: an attribute");

	/* a symlink's own attributes, only with AT_SYMLINK_NOFOLLOW */
	if (have_trusted)
		expect_xattr(path_link, AT_SYMLINK_NOFOLLOW, "trusted.lnk",
			     "the symlink's own trusted.lnk");
	else
		tap_skip(1, NO_TRUSTED);
	expect_list(path_link, AT_SYMLINK_NOFOLLOW, "the symlink's listing");
	expect_xattr(path_link, 0, "trusted.lnk",
		     "followed symlink: the file's attributes");
	expect_list(path_link, 0, "followed symlink: the file's listing");
	gvt_is_error(AT_FDCWD, path_link, 0, "xattr:trusted.lnk", ENODATA,
		     "(the file has no trusted.lnk)");

	/* FIFOs and devices: attributes without opening them */
	if (have_trusted)
		expect_xattr(path_fifo, 0, "trusted.f", "a FIFO's trusted.f");
	else
		tap_skip(1, NO_TRUSTED);
	expect_list(path_fifo, 0, "a FIFO's listing");
	if (have_trusted && have_dev)
		expect_xattr(path_dev, 0, "trusted.d", "a device's trusted.d");
	else
		tap_skip(1, "%s", have_dev ? NO_TRUSTED : GVT_NO_DEVICES);

	gvt_is_error(AT_FDCWD, path_file, 0, "xattr:", EINVAL,
		     "\"xattr:\": EINVAL");
}

/* Values that do not fit: EOVERFLOW (kernel ERANGE), strictly. */
static void test_overflow(void)
{
	static char buf[65536 + 16];
	char sh[64];
	struct name_val v[2];
	ssize_t len = getxattr(path_file, X("a"), NULL, 0);
	ssize_t llen = listxattr(path_file, NULL, 0);
	int ret;

	v[0] = (struct name_val){ .name = XN("a"),
				  .value_in = { buf, len } };
	v[1] = (struct name_val){ .name = XN("a") };
	ret = getvalues(AT_FDCWD, path_file, v, 2, 0);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW &&
	       v[0].value_out.iov_base == buf && !v[0].value_out.iov_len,
	       "value exactly as long as the buffer: EOVERFLOW, stop");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("a"), buf, len - 1,
			v);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW,
	       "value longer than the buffer: EOVERFLOW, not ERANGE");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("a"), buf, 0, v);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW,
	       "value in a 0-byte buffer: EOVERFLOW");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("a"), buf, len + 1,
			v);
	tap_ok(ret == 1 && v[0].error == 0 && v[0].value_out.iov_len == (size_t)len,
	       "value one byte shorter than the buffer: fits");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("empty"), buf, 0, v);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW,
	       "empty value in a 0-byte buffer: EOVERFLOW");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("empty"), buf, 1, v);
	tap_ok(ret == 1 && v[0].error == 0 && v[0].value_out.iov_len == 0,
	       "empty value in a 1-byte buffer: fits");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("missing"), buf, 0,
			v);
	tap_ok(ret == 1 && v[0].error == ENODATA,
	       "absent attribute in a 0-byte buffer: ENODATA, not EOVERFLOW");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("big"), buf, 65536,
			v);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW,
	       "65536-byte value in 65536 bytes: EOVERFLOW");
	ret = gvt_call1(AT_FDCWD, path_file, 0, XN("big"), buf, 65537,
			v);
	tap_ok(ret == 1 && v[0].error == 0 && v[0].value_out.iov_len == 65536 &&
	       !memcmp(buf, big, 65536), "65536-byte value in 65537 bytes: fits");
	ret = gvt_call1(AT_FDCWD, path_file, 0, "xattr", buf, llen, v);
	tap_ok(ret == 0 && v[0].error == EOVERFLOW,
	       "listing exactly as long as the buffer: EOVERFLOW");
	ret = gvt_call1(AT_FDCWD, path_file, 0, "xattr", buf, llen + 1, v);
	tap_ok(ret == 1 && v[0].error == 0 && v[0].value_out.iov_len == (size_t)llen,
	       "listing one byte shorter than the buffer: fits");

	/* several values in one buffer, through shorthand */
	v[0] = (struct name_val){ .name = XN("a"),
				  .value_in = { buf, sizeof(buf) } };
	snprintf(sh, sizeof(sh), ":%sbin", ns);
	v[1] = (struct name_val){ .name = sh };
	ret = getvalues(AT_FDCWD, path_file, v, 2, 0);
	tap_ok(ret == 2 && v[1].value_out.iov_base == buf + len,
	       "two values share one buffer back to back");
}

/* struct posix_acl_xattr_header + entries, as getxattr(2) gives them */
struct acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};

static size_t make_acl(void *buf, uint32_t user, uint32_t group)
{
	const struct acl_entry e[] = {
		{ 0x01, 6, UINT32_MAX },	/* ACL_USER_OBJ rw- */
		{ 0x02, 4, user },		/* ACL_USER r-- */
		{ 0x04, 4, UINT32_MAX },	/* ACL_GROUP_OBJ r-- */
		{ 0x08, 5, group },		/* ACL_GROUP r-x */
		{ 0x10, 5, UINT32_MAX },	/* ACL_MASK r-x */
		{ 0x20, 0, UINT32_MAX },	/* ACL_OTHER --- */
	};
	uint32_t version = 2;

	memcpy(buf, &version, 4);
	memcpy((char *)buf + 4, e, sizeof(e));
	return 4 + sizeof(e);
}

static void test_acls(void)
{
	char acl[256];
	/* a user namespace maps one user: an ACL may name only that one */
	bool real = t_real_root();
	size_t n = real ? make_acl(acl, 1000, 2000) : make_acl(acl, 0, 0);
	int pfd[2], ok[4] = { 0 };
	pid_t pid;

	if (setxattr(path_file, "system.posix_acl_access", acl, n, 0) ||
	    setxattr(path_dir, "system.posix_acl_default", acl, n, 0)) {
		tap_skip(7, "kernel without POSIX ACLs on tmpfs: %s",
			 strerror(errno));
		return;
	}
	expect_xattr(path_file, 0, "system.posix_acl_access",
		     "POSIX access ACL");
	expect_xattr(path_dir, 0, "system.posix_acl_default",
		     "POSIX default ACL");
	expect_xattr(path_dir, 0, "system.posix_acl_access",
		     "a directory's access ACL (none set)");
	expect_list(path_file, 0, "listing with an ACL");
	if (!real) {
		tap_skip(3, "needs real root: an ACL naming users that a "
			 "user namespace does not map");
		return;
	}

	/*
	 * In a user namespace where uid 1000 and gid 2000 are unmapped,
	 * getxattr(2) shows them as the overflow IDs: so must getvalues.
	 */
	if (pipe(pfd))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		char a[256], b[256];
		struct name_val e;
		ssize_t la;
		int r[4] = { 0 };

		close(pfd[0]);
		if (unshare(CLONE_NEWUSER) ||
		    t_write_file(AT_FDCWD, "/proc/self/setgroups", "deny", 4, 0) ||
		    t_write_file(AT_FDCWD, "/proc/self/uid_map", "0 0 1", 5, 0) ||
		    t_write_file(AT_FDCWD, "/proc/self/gid_map", "0 0 1", 5, 0))
			_exit(2);
		la = getxattr(path_file, "system.posix_acl_access", a, sizeof(a));
		r[0] = 1;
		r[1] = la > 0 && (la != (ssize_t)n || memcmp(a, acl, n));
		r[2] = gvt_call1(AT_FDCWD, path_file, 0,
				 "xattr:system.posix_acl_access", b, sizeof(b),
				 &e) == 1 && !e.error &&
		       e.value_out.iov_len == (size_t)la && !memcmp(a, b, la);
		la = getxattr(path_dir, "system.posix_acl_default", a,
			      sizeof(a));
		r[3] = gvt_call1(AT_FDCWD, path_dir, 0,
				 "xattr:system.posix_acl_default", b,
				 sizeof(b), &e) == 1 && !e.error &&
		       e.value_out.iov_len == (size_t)la && !memcmp(a, b, la);
		_exit(write(pfd[1], r, sizeof(r)) == sizeof(r) ? 0 : 3);
	}
	close(pfd[1]);
	if (read(pfd[0], ok, sizeof(ok)) != sizeof(ok))
		ok[0] = 0;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	if (!ok[0]) {
		tap_skip(3, "no user namespace in a child (kernel without "
			 "them, or a sysctl that disables them)");
		return;
	}
	tap_ok(ok[1], "in a user namespace getxattr(2) maps the ACL's IDs");
	tap_ok(ok[2], "in a user namespace the access ACL is as getxattr(2)");
	tap_ok(ok[3], "in a user namespace the default ACL is as getxattr(2)");
}

int main(void)
{
	char bin[] = { 'a', 0, 'b', 0, (char)0xff, 0 };

	tree = gvt_scratch_tmpfs("xattr", "mode=0755");
	snprintf(path_file, sizeof(path_file), "%s/file", tree);
	snprintf(path_link, sizeof(path_link), "%s/link", tree);
	snprintf(path_fifo, sizeof(path_fifo), "%s/fifo", tree);
	snprintf(path_dev, sizeof(path_dev), "%s/dev", tree);
	snprintf(path_dir, sizeof(path_dir), "%s/dir", tree);
	t_fill_pattern(big, sizeof(big), 11);
	if (t_write_file(AT_FDCWD, path_file, "x", 1, 0644) ||
	    symlink("file", path_link) || mkfifo(path_fifo, 0644) ||
	    mkdir(path_dir, 0755))
		tap_bail("setup: %s", strerror(errno));
	have_dev = gvt_mknod(AT_FDCWD, path_dev, S_IFCHR | 0600, makedev(1, 3));
	if (setxattr(path_file, X("a"), "value a", 7, 0)) {
		if (errno != EOPNOTSUPP)
			tap_bail("setxattr: %s", strerror(errno));
		tap_diag("tmpfs without user xattrs (before Linux 6.6): "
			 "trusted.* instead");
		ns = "trusted.";
		if (setxattr(path_file, X("a"), "value a", 7, 0))
			tap_bail("setxattr: %s", strerror(errno));
	}
	if (setxattr(path_file, X("empty"), "", 0, 0) ||
	    setxattr(path_file, X("bin"), bin, sizeof(bin), 0) ||
	    setxattr(path_file, X("big"), big, sizeof(big), 0) ||
	    setxattr(path_file, X("with:colon"), "c", 1, 0))
		tap_bail("setxattr: %s", strerror(errno));
	have_trusted = !setxattr(path_file, "trusted.t", "trusted", 7, 0) &&
		       !lsetxattr(path_link, "trusted.lnk", "on the link", 11,
				  0) &&
		       !lsetxattr(path_fifo, "trusted.f", "on the fifo", 11,
				  0) &&
		       (!have_dev || !lsetxattr(path_dev, "trusted.d",
						"on the device", 13, 0));
	if (!have_trusted && (errno != EPERM || t_real_root()))
		tap_bail("setxattr trusted.*: %s", strerror(errno));
	{
		char longname[256];

		snprintf(longname, sizeof(longname), "%s%0*d", ns,
			 (int)(249 - strlen(ns)), 0);
		if (setxattr(path_file, longname, "long", 4, 0))
			tap_bail("setxattr long: %s", strerror(errno));
	}

	test_values();
	test_overflow();
	test_acls();
	return tap_done();
}
