// SPDX-License-Identifier: MIT
/*
 * mounts.c - a mount namespace of the test's own, through a user namespace
 * where the user is not root, and mount trees built in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

static char mt_top[PATH_MAX];

/* The number in the sysctl file @path, or -1. */
static long sysctl_num(const char *path)
{
	char buf[32];
	ssize_t n = t_orc_read(AT_FDCWD, path, buf, sizeof(buf) - 1);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/*
 * Whether / is a mount point, as mountinfo shows it: not in a chroot
 * (of a directory that is not one), where the kernel refuses user
 * namespaces and a recursive change of /'s propagation.
 */
static bool root_is_mount_point(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return true;	/* no telling: say nothing of a chroot */
	while (!found && getline(&line, &cap, f) > 0) {
		char point[8];

		found = sscanf(line, "%*s %*s %*s %*s %7s", point) == 1 &&
			!strcmp(point, "/");
	}
	free(line);
	fclose(f);
	return found;
}

/* Why unshare(CLONE_NEWUSER) failed with @err, in words. */
static const char *userns_refused(int err)
{
	static char why[160];

	if (sysctl_num("/proc/sys/user/max_user_namespaces") == 0)
		return "user namespaces are disabled (sysctl "
		       "user.max_user_namespaces=0)";
	if (sysctl_num("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return "unprivileged user namespaces are disabled (sysctl "
		       "kernel.unprivileged_userns_clone=0)";
	if (sysctl_num("/proc/sys/kernel/"
		       "apparmor_restrict_unprivileged_userns") == 1)
		return "AppArmor restricts unprivileged user namespaces "
		       "(sysctl kernel.apparmor_restrict_unprivileged_userns)";
	if (err == EINVAL && t_count_threads() > 1)
		return "a user namespace wants a process of one thread, and "
		       "this one has more (make it in a child)";
	if (err == EINVAL)
		return "the kernel has no user namespaces (CONFIG_USER_NS)";
	if (err == EPERM && !root_is_mount_point())
		return "a chroot (/ is not a mount point), where the kernel "
		       "refuses user namespaces";
	snprintf(why, sizeof(why), "needs root, or a user namespace: "
		 "unshare(CLONE_NEWUSER): %s%s", strerror(err),
		 err == EPERM ? " (a seccomp filter or a security module?)" :
		 "");
	return why;
}

/* A user and a mount namespace, this user root in it; NULL or why not. */
static const char *enter_userns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return userns_refused(errno);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	if (t_write_str("/proc/self/uid_map", map))
		return "a user namespace without a uid map";
	if (t_write_str("/proc/self/setgroups", "deny") && errno != ENOENT)
		return "a user namespace that keeps setgroups(2)";
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	if (t_write_str("/proc/self/gid_map", map))
		return "a user namespace without a gid map";
	return NULL;
}

const char *t_private_mounts(bool *userns)
{
	static char why[160];
	bool in_userns = false;
	const char *no;
	int err;

	if (geteuid() != 0 || unshare(CLONE_NEWNS)) {
		no = enter_userns();
		if (no)
			return no;
		in_userns = true;
	}
	if (userns)
		*userns = in_userns;
	if (!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return NULL;
	err = errno;
	if (err == EINVAL && !root_is_mount_point())
		return "a chroot (/ is not a mount point): mounts made here "
		       "could not be kept from the host";
	snprintf(why, sizeof(why), "mount --make-rprivate /: %s",
		 strerror(err));
	return why;
}

bool t_real_root(void)
{
	unsigned long inside, outside, count;
	char map[128];
	ssize_t n;

	if (geteuid() != 0)
		return false;
	n = t_orc_read(AT_FDCWD, "/proc/self/uid_map", map, sizeof(map) - 1);
	if (n <= 0)
		return true;	/* no /proc to ask: the usual case */
	map[n] = 0;
	return sscanf(map, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
	       !inside && !outside && count == 4294967295ul;
}

void mt_set_top(const char *top)
{
	snprintf(mt_top, sizeof(mt_top), "%s", top);
}

const char *mt_new_top(const char *tag)
{
	mt_set_top(t_tmpdir(tag));
	mt_mount("gv-top", mt_top, "tmpfs", 0, "mode=0755");
	return mt_top;
}

const char *mt_at(const char *rel)
{
	static char paths[8][2 * PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", mt_top, rel);
	return p;
}

void mt_mkdir(const char *rel)
{
	if (mkdir(mt_at(rel), 0755) && errno != EEXIST)
		tap_bail("mkdir %s: %s", mt_at(rel), strerror(errno));
}

void mt_mount(const char *src, const char *target, const char *type,
	      unsigned long flags, const char *data)
{
	if (mount(src, target, type, flags, data))
		tap_bail("mount %s on %s (%s, %#lx, %s): %s", src ? src : "-",
			 target, type ? type : "-", flags, data ? data : "-",
			 strerror(errno));
}

void mt_mount_at(const char *rel, const char *src, const char *type,
		 unsigned long flags, const char *data)
{
	mt_mkdir(rel);
	mt_mount(src, mt_at(rel), type, flags, data);
}

void mt_change(const char *rel, unsigned long how)
{
	mt_mount(NULL, mt_at(rel), NULL, how, NULL);
}

void mt_propagation_tree(void)
{
	mt_mount_at("shared", "gv-shared", "tmpfs", 0, NULL);
	mt_change("shared", MS_SHARED);
	mt_mount_at("peer", mt_at("shared"), NULL, MS_BIND, NULL);
	mt_mount_at("slave", mt_at("shared"), NULL, MS_BIND, NULL);
	mt_change("slave", MS_SLAVE);
	mt_mount_at("unbind", "gv-unbind", "tmpfs", 0, NULL);
	mt_change("unbind", MS_UNBINDABLE);
}
