// SPDX-License-Identifier: MIT
/*
 * getvalues_fs.c - the fs group (SPEC 2.4, DECISIONS V1): every field
 * compared with statfs(2) of the same object, on tmpfs mounts with and
 * without flags (fs:flags as ST_* words in bit order, empty when none,
 * ST_VALID never shown), procfs and sysfs, and for origins that are files,
 * FIFOs, devices and symlinks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/gvtest.h"
#include "lib/tap.h"
#include "lib/util.h"

#ifndef ST_VALID
#define ST_VALID 0x0020	/* f_flags is valid; linux/statfs.h */
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

static const char *tree;

/*
 * All fields of @path in one call, each compared with fstatfs(2) of the
 * same object. @stable_only skips the counters a busy file system changes.
 */
static void check_fs(const char *path, unsigned int flags, bool stable_only,
		     const char *what)
{
	static char buf[4096];
	struct name_val v[16];
	struct statfs sfs;
	int n = 0, ret, fd, bad = 0;

	fd = open(path, O_PATH | O_CLOEXEC |
		  (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0 || fstatfs(fd, &sfs))
		tap_bail("%s: statfs: %s", path, strerror(errno));
	close(fd);
	for (; gvt_fs_fields[n]; n++)
		v[n] = (struct name_val){ .name = gvt_fs_fields[n] };
	/* "fs:type" then ":bsize", ":frsize", ... */
	for (int i = 0; i < n; i++) {
		static char names[16][32];

		snprintf(names[i], sizeof(names[i]), "%s:%s", i ? "" : "fs",
			 gvt_fs_fields[i]);
		v[i].name = names[i];
	}
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	ret = getvalues(AT_FDCWD, path, v, n, flags);
	if (!tap_is_long(ret, n, "%s: %d fields handled", what, n))
		return;
	for (int i = 0; i < n; i++) {
		const char *f = gvt_fs_fields[i];
		char want[256];
		ssize_t w = gvt_format_statfs(&sfs, f, want, sizeof(want));

		if (stable_only && (!strcmp(f, "bfree") ||
				    !strcmp(f, "bavail") ||
				    !strcmp(f, "ffree")))
			continue;
		if (v[i].error || v[i].value_out.iov_len != (size_t)w ||
		    memcmp(v[i].value_out.iov_base, want, w)) {
			if (!bad++)
				tap_diag("%s: fs:%s: got \"%.*s\" (error %u), want \"%.*s\"",
					 what, f, (int)v[i].value_out.iov_len,
					 (char *)v[i].value_out.iov_base,
					 v[i].error, (int)w, want);
		}
	}
	tap_ok(bad == 0, "%s: every field as statfs(2) gives it", what);
}

static void mount_at(const char *name, unsigned long flags, const char *opts,
		     char *path, size_t size)
{
	snprintf(path, size, "%s/%s", tree, name);
	if (mkdir(path, 0755) || gvt_mount_tmpfs(path, flags, opts))
		tap_bail("mount %s: %s", name, strerror(errno));
}

int main(void)
{
	char plain[PATH_MAX], flagged[PATH_MAX], strict[PATH_MAX];
	char path[PATH_MAX + 32], want[256];
	struct statfs sfs;
	bool have_dev;
	ssize_t n;

	tree = gvt_scratch_tmpfs("fs", "mode=0755");
	mount_at("plain", 0, "size=4m,nr_inodes=100", plain, sizeof(plain));
	mount_at("strict", MS_STRICTATIME, "size=1m", strict, sizeof(strict));
	mount_at("flagged", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME |
		 MS_NOSYMFOLLOW | MS_SYNCHRONOUS, "size=2m", flagged,
		 sizeof(flagged));
	snprintf(path, sizeof(path), "%s/file", flagged);
	if (t_write_file(AT_FDCWD, path, "data", 4, 0644))
		tap_bail("file: %s", strerror(errno));
	if (mount(NULL, flagged, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID |
		  MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NOSYMFOLLOW |
		  MS_SYNCHRONOUS, "size=2m"))
		tap_bail("remount ro: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/fifo", plain);
	if (mkfifo(path, 0644))
		tap_bail("fifo: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/dev", plain);
	have_dev = gvt_mknod(AT_FDCWD, path, S_IFCHR | 0600, makedev(1, 3));
	snprintf(path, sizeof(path), "%s/link", plain);
	if (symlink("/proc/self", path))
		tap_bail("link: %s", strerror(errno));

	check_fs(plain, 0, false, "tmpfs");
	check_fs(strict, 0, false, "tmpfs, strictatime");
	check_fs(flagged, 0, false, "tmpfs ro,nosuid,nodev,noexec,noatime,...");
	snprintf(path, sizeof(path), "%s/file", flagged);
	check_fs(path, 0, false, "a file on that tmpfs");
	snprintf(path, sizeof(path), "%s/fifo", plain);
	check_fs(path, 0, false, "a FIFO");
	snprintf(path, sizeof(path), "%s/dev", plain);
	if (have_dev)
		check_fs(path, 0, false, "a device node");
	else
		tap_skip(2, GVT_NO_DEVICES);
	snprintf(path, sizeof(path), "%s/link", plain);
	check_fs(path, AT_SYMLINK_NOFOLLOW, false,
		 "a symlink to procfs, not followed: tmpfs");
	check_fs(path, 0, false, "a symlink to procfs, followed: procfs");
	check_fs("/proc", 0, false, "procfs");
	check_fs("/sys", 0, false, "sysfs");
	check_fs("/", 0, true, "the root file system (stable fields)");

	/* words SPEC names, on flags chosen for them */
	if (statfs(flagged, &sfs))
		tap_bail("statfs: %s", strerror(errno));
	n = gvt_format_statfs(&sfs, "flags", want, sizeof(want));
	tap_diag("flagged tmpfs: statfs f_flags %#lx: \"%.*s\"",
		 (unsigned long)sfs.f_flags, (int)n, want);
	gvt_is_value(AT_FDCWD, flagged, 0, "fs:flags",
		     "rdonly,nosuid,nodev,noexec,synchronous,noatime,nosymfollow",
		     58, "fs:flags in bit order, as SPEC spells them");
	if (statfs(strict, &sfs))
		tap_bail("statfs: %s", strerror(errno));
	tap_ok(sfs.f_flags & ST_VALID, "(statfs(2) sets ST_VALID)");
	gvt_is_value(AT_FDCWD, strict, 0, "fs:flags", "", 0,
		     "no flags: empty, and ST_VALID is never shown");
	n = snprintf(want, sizeof(want), "0x%x", TMPFS_MAGIC);
	gvt_is_value(AT_FDCWD, plain, 0, "fs:type", want, n,
		     "tmpfs type: TMPFS_MAGIC in lower-case hex (%s)", want);
	n = snprintf(want, sizeof(want), "0x%x", PROC_SUPER_MAGIC);
	gvt_is_value(AT_FDCWD, "/proc", 0, "fs:type", want, n,
		     "procfs type: PROC_SUPER_MAGIC (%s)", want);
	return tap_done();
}
