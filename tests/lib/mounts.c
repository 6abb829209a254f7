// SPDX-License-Identifier: MIT
/*
 * mounts.c - mount trees built for the mount tests: paths below a top
 * directory, and mounts that bail out saying what failed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

static char mt_top[PATH_MAX];

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
