/* SPDX-License-Identifier: MIT */
/*
 * mounts.h - a mount namespace of the test's own, for root and for any
 * other user (through a user namespace), and mount trees built in it:
 * paths below a top directory, mounts that bail out with what failed, and
 * the propagation kinds (shared, peer, slave, unbindable).
 */
#ifndef GV_TEST_MOUNTS_H
#define GV_TEST_MOUNTS_H

#include <stdbool.h>

/*
 * Move this process into a mount namespace of its own whose mounts reach
 * no other namespace. Root gets a plain one; any other user (or root
 * where that is refused) also gets a user namespace in which it is root
 * (its uid and gid mapped to 0): enough for tmpfs, bind mounts and
 * propagation changes, not for what needs real root (mknod of devices,
 * trusted.* xattrs, a second user, most file system types). *@userns (if
 * not NULL) says whether a user namespace was made. Returns NULL, or why
 * not, as a skip says it (user namespaces disabled by a sysctl, a chroot,
 * / not a mount point...); the process must then mount nothing.
 */
const char *t_private_mounts(bool *userns);

/*
 * Whether this process is root in the initial user namespace (euid 0,
 * the whole uid range mapped): what a user namespace's root is not.
 */
bool t_real_root(void);

/*
 * A fresh scratch directory tagged @tag with a tmpfs of its own on it
 * (source "gv-top", mode 0755): the top of the tree from now on. Returns
 * its path.
 */
const char *mt_new_top(const char *tag);
/* Build below @top, an existing directory, from now on. */
void mt_set_top(const char *top);

/* TOP/@rel (one of a few rotating buffers). */
const char *mt_at(const char *rel);
/* mkdir TOP/@rel (it may exist); bails out on failure. */
void mt_mkdir(const char *rel);
/* mount(2) with these arguments; bails out, saying them, on failure. */
void mt_mount(const char *src, const char *target, const char *type,
	      unsigned long flags, const char *data);
/* mkdir TOP/@rel, then mount(@src, TOP/@rel, @type, @flags, @data). */
void mt_mount_at(const char *rel, const char *src, const char *type,
		 unsigned long flags, const char *data);
/* A propagation change or a remount of TOP/@rel: mount(NULL, ..., @how). */
void mt_change(const char *rel, unsigned long how);

/*
 * Below TOP: "shared", a tmpfs in a peer group of its own; "peer", a bind
 * mount of it (the same group); "slave", a bind mount of it made a slave;
 * "unbind", an unbindable tmpfs.
 */
void mt_propagation_tree(void);

#endif /* GV_TEST_MOUNTS_H */
