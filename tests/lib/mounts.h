/* SPDX-License-Identifier: MIT */
/*
 * mounts.h - building mount trees for the mount tests, in a private mount
 * namespace: paths below a top directory, mounts that bail out with what
 * failed, and the propagation kinds (shared, peer, slave, unbindable).
 */
#ifndef GV_TEST_MOUNTS_H
#define GV_TEST_MOUNTS_H

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
