// SPDX-License-Identifier: MIT
/*
 * mnt_ids.c - the list of a mount namespace ("mntns") with the IDs a list
 * before kept (statmount.c, gv_listmount_ids()): listmount() gives 64-bit
 * unique IDs, and only a statmount() per mount tells the 32-bit IDs the
 * list shows, so the pairs of one listing serve the next. Checked against
 * mountinfo over a private mount namespace of a few hundred bind mounts:
 * a list made from kept pairs, after mounts came and went (their 32-bit
 * IDs given again to new mounts), asks statmount() only of mounts new
 * since (the others are answered while statmount() fails), and pairs made
 * false (another boot's) are found out and the list made again.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/mountinfo.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "mnt.h"

#define NR_STATMOUNT 457
#define MOUNTS 300

/* statmount() fails with @err in this process from now on. */
static void deny_statmount(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_STATMOUNT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		printf("# seccomp: %s\n", strerror(errno));
		_exit(3);
	}
}

/*
 * Whether "mntns" lists the IDs of @mi in its order, leaving out those
 * whose index @skip_from or later (SIZE_MAX: none); -1 if the call failed.
 */
static int list_is(const struct mi_table *mi, size_t skip_from)
{
	static char buf[1 << 20];
	struct name_val v = { .name = "mntns",
			      .value_in = { buf, sizeof(buf) } };
	size_t i = 0, off = 0, n = mi->n < skip_from ? mi->n : skip_from;

	if (getvalues(AT_FDCWD, "/", &v, 1, 0) != 1 || v.error) {
		printf("# mntns: %s / %u\n", strerror(errno), v.error);
		return -1;
	}
	for (; off < v.value_out.iov_len; i++) {
		const char *item = buf + off;

		if (i >= n || strcmp(item, mi->m[i].val[MF_ID])) {
			printf("# item %zu: %s, mountinfo %s\n", i, item,
			       i < mi->n ? mi->m[i].val[MF_ID] : "(none)");
			return 0;
		}
		off += strlen(item) + 1;
	}
	if (i != n)
		printf("# %zu items, mountinfo %zu\n", i, n);
	return i == n;
}

static int list_matches(void)
{
	struct mi_table mi = { 0 };
	int r;

	mi_load(&mi);
	r = list_is(&mi, SIZE_MAX);
	mi_free(&mi);
	return r;
}

/* Kept pairs answer every mount while statmount() finds none. */
static int known_only(void)
{
	struct mi_table mi = { 0 };
	int r;

	if (list_matches() != 1)	/* the pairs of this very namespace */
		return 10;
	mi_load(&mi);
	deny_statmount(ENOENT);
	r = list_is(&mi, SIZE_MAX);
	mi_free(&mi);
	return r == 1 ? 0 : 1;
}

/* ... and a mount new since is asked: "unmounted meanwhile", left out. */
static int new_ones_asked(void)
{
	struct mi_table mi = { 0 };
	size_t had;
	int r;

	if (list_matches() != 1)
		return 10;
	mi_load(&mi);
	had = mi.n;
	mi_free(&mi);
	for (int i = 0; i < 5; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "new%d", i);
		mt_mount_at(rel, "gv-new", "tmpfs", 0, NULL);
	}
	mi_load(&mi);
	deny_statmount(ENOENT);
	/* the new mounts are the last five of mountinfo */
	r = mi.n == had + 5 ? list_is(&mi, had) : 0;
	mi_free(&mi);
	return r == 1 ? 0 : 1;
}

/* The sources a list takes: auto, and statmount() forced. */
static const char *const sources[] = { "auto", "statmount" };

int main(void)
{
	const char *why = t_private_mounts(NULL);
	char rel[32];

	if (why)
		tap_skip_all("no private mount namespace: %s", why);
	if (!mnt_have_statmount())
		tap_skip_all("kernel lacks statmount() (Linux 6.8)");
	/* the library's own sources: not the native system call's */
	gv_backend_force(GV_BACKEND_SYNC);
	tap_plan(2 * 5);
	mt_new_top("mntids");
	for (int i = 0; i < MOUNTS; i++) {
		snprintf(rel, sizeof(rel), "m%d", i);
		mt_mount_at(rel, "gv-ids", "tmpfs", 0, NULL);
	}
	for (size_t s = 0; s < 2; s++) {
		const char *src = sources[s];

		gv_mnt_force_source(src);
		tap_is_long(list_matches(), 1, "%s: a first list", src);
		tap_is_long(list_matches(), 1,
			    "%s: a second, from the IDs kept", src);
		/* 32-bit IDs are given again: to other unique IDs */
		for (int i = 0; i < MOUNTS / 2; i++) {
			snprintf(rel, sizeof(rel), "m%d", 2 * i);
			if (umount(mt_at(rel)))
				tap_bail("umount %s: %s", rel, strerror(errno));
		}
		for (int i = 0; i < MOUNTS / 2; i++) {
			snprintf(rel, sizeof(rel), "m%d", 2 * i);
			mt_mount_at(rel, "gv-ids2", "tmpfs", 0, NULL);
		}
		tap_is_long(list_matches(), 1,
			    "%s: half the mounts gone, as many new ones with "
			    "their IDs", src);
		tap_is_long(t_in_child(s ? known_only : new_ones_asked), 0,
			    s ? "%s: statmount() failing, the kept IDs answer" :
			    "%s: only mounts new since are asked of "
			    "statmount()", src);
		gv_mnt_ids_test_poison();
		tap_is_long(list_matches(), 1,
			    "%s: IDs kept made false are found out", src);
	}
	return tap_done();
}
