// SPDX-License-Identifier: MIT
/*
 * native_parity.c - the same getvalues() calls through the native system
 * calls and through the library's plain system calls (sync): return
 * values, errnos, every entry's error, the place and the bytes of every
 * value must be the same (native_parity_lib.h runs and compares them).
 *
 * The calls cover every group and field, names and shorthand, SUBPATH
 * rules and confinement, mounts made here (in a private mount namespace:
 * odd names, read-only, shared, slave, unbindable), a process's open files
 * through /proc/PID and a batch of 64 files. native_parity_bounds.c has
 * overflow, bad pointers and the errors of the call itself,
 * native_parity_readfile.c readfile(). Runs where the kernel has
 * getvalues(2) (kernel/kcheck.sh); elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/parity.h"
#include "lib/tap.h"
#include "lib/util.h"

/* ---- the calls ---- */

static const char *const mnt_fields[] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source", "superopts",
};

static const char *const stat_fields[] = {
	"type", "mode", "nlink", "uid", "gid", "size", "blocks", "blksize",
	"ino", "dev", "rdev", "atime", "mtime", "ctime", "btime", "mntid",
};

static const char *const fs_fields[] = {
	"type", "bsize", "frsize", "blocks", "bfree", "bavail", "files",
	"ffree", "namelen", "flags",
};

static void calls_listings(void)
{
	static const char *const lists[] = {
		"", "mnt", "mntns", "xattr", "data", "dir", "stat", "lstat",
		"fs",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(lists); i++)
		np_one(".", lists[i]);
	np_one("a", "xattr");
	np_one("/proc/self", "mnt");
}

/* Every field of the mount of @origin, in one call, shorthand after it. */
static void calls_mount_of(const char *origin)
{
	np_call_begin(origin, 0, "every mnt field of %s", origin);
	np_add("mnt:id", OFF_BIG, 65536);
	for (size_t i = 1; i < GV_ARRAY_SIZE(mnt_fields); i++) {
		static char names[GV_ARRAY_SIZE(mnt_fields)][32];

		snprintf(names[i], sizeof(names[i]), ":%s", mnt_fields[i]);
		np_add(names[i], CONT, 0);
	}
	np_check();
}

static void calls_mounts(void)
{
	static const char *const origins[] = {
		".", "tmp", "sp ace\tand\\back", "ro", "ro/d", "peer", "slave",
		"slave2", "/proc", "/proc/self", "/sys", "/dev", "/", "/tmp",
	};
	static char names[MAX_ENTRIES][48];
	char ids[65536], *p;
	struct name_val v = { .name = "mntns",
			      .value_in = { ids, sizeof(ids) } };
	size_t k = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(origins); i++) {
		if (!np_have_mounts && i > 0 && i < 8)
			continue;
		calls_mount_of(origins[i]);
	}

	/* the whole table: every field of every mount, in one call */
	gv_backend_force(GV_BACKEND_SYNC);
	if (getvalues(np_scratch_fd, ".", &v, 1, 0) != 1 || v.error)
		tap_bail("mntns: %s", strerror(errno ? errno : (int)v.error));
	gv_backend_force(GV_BACKEND_AUTO);
	np_call_begin(".", 0, "mntns:ID:FIELD of every mount, with shorthand");
	np_add("mntns", OFF_BIG, 134 * PAGE);
	for (p = ids; p < ids + v.value_out.iov_len; p += strlen(p) + 1) {
		unsigned long id = strtoul(p, NULL, 10);

		for (size_t f = 0; f < GV_ARRAY_SIZE(mnt_fields) &&
		     k < MAX_ENTRIES - 8; f++, k++) {
			if (f)
				snprintf(names[k], sizeof(names[k]), ":%s",
					 mnt_fields[f]);
			else
				snprintf(names[k], sizeof(names[k]),
					 "mntns:%lu:%s", id, mnt_fields[f]);
			np_add(names[k], CONT, 0);
		}
		snprintf(names[k], sizeof(names[k]), "mntns:%lu", id);
		np_add(names[k++], CONT, 0);
	}
	np_add("mntns:0", CONT, 0);
	np_add("mntns:4294967295:id", CONT, 0);
	np_add("mntns:4294967296:id", CONT, 0);
	np_add("mntns:007:id", CONT, 0);
	np_add("mntns:x:id", CONT, 0);
	np_add("mntns:", CONT, 0);
	np_add("mntns:1:nope", CONT, 0);
	np_check();
}

static void calls_stat(void)
{
	static const char *const subs[] = {
		"", "a", "empty", "big", "d", "d/e/c", "link", "absd/b", "dl",
		"dangling", "loop1", "fifo", "null", "root", "magic", "tmp",
		"missing", "d/up/a", "a/x", "d/", "/a", "d//b", "./a", "d/../a",
		"dangling/x", "loop1/x",
	};
	static char names[2][GV_ARRAY_SIZE(subs)][GV_ARRAY_SIZE(stat_fields)]
			[64];

	for (int l = 0; l < 2; l++) {
		for (size_t s = 0; s < GV_ARRAY_SIZE(subs); s++) {
			np_call_begin(".", 0, "every %s field of \"%s\"",
				   l ? "lstat" : "stat", subs[s]);
			for (size_t f = 0; f < GV_ARRAY_SIZE(stat_fields);
			     f++) {
				snprintf(names[l][s][f], 64, "%s:%s%s%s",
					 l ? "lstat" : "stat", stat_fields[f],
					 *subs[s] ? ":" : "", subs[s]);
				np_add(names[l][s][f], f ? CONT : OFF_BIG,
				    65536);
			}
			np_check();
		}
	}
	np_call_begin("link", AT_SYMLINK_NOFOLLOW, "stat of $ORIGIN a symlink");
	np_add("stat:type", OFF_BIG, 4096);
	np_add("lstat:type", CONT, 0);
	np_add(":ino", CONT, 0);
	np_add("stat:size:", CONT, 0);
	np_check();
	np_call_begin("/", 0, "stat of the root");
	np_add("stat:ino", OFF_BIG, 4096);
	np_add(":dev", CONT, 0);
	np_add(":mntid", CONT, 0);
	np_check();
}

static void calls_fs(void)
{
	static const char *const origins[] = {
		".", "tmp", "ro", "/proc", "/sys", "/dev", "/",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(origins); i++) {
		if (!np_have_mounts && i > 0 && i < 3)
			continue;
		np_call_begin(origins[i], 0, "every fs field of %s", origins[i]);
		for (size_t f = 0; f < GV_ARRAY_SIZE(fs_fields); f++) {
			static char names[GV_ARRAY_SIZE(fs_fields)][32];

			snprintf(names[f], sizeof(names[f]), "fs:%s",
				 fs_fields[f]);
			np_add(names[f], f ? CONT : OFF_BIG, 4096);
		}
		np_check();
	}
}

static void calls_xattr(void)
{
	static const char *const names[] = {
		"xattr", "xattr:user.k", "xattr:user.k:colon",
		"xattr:user.empty", "xattr:user.big", "xattr:user.nope",
		"xattr:", "xattr:nope.k", "xattr:system.posix_acl_access",
		"xattr:system.posix_acl_default", "xattr:trusted.x",
		"xattr:security.x",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++)
		np_one("a", names[i]);
	np_one(".", "xattr:user.k");
	np_one("link", "xattr");
	np_call_begin("link", AT_SYMLINK_NOFOLLOW, "xattrs of a symlink itself");
	np_add("xattr", OFF_BIG, 4096);
	np_add("xattr:user.k", CONT, 0);
	np_check();
	/* the value and the list at every size around their length */
	for (size_t room = 0; room < 8; room++) {
		np_call_begin("a", 0, "xattr:user.k in %zu bytes", room);
		np_add("xattr:user.k", OFF_BIG, room);
		np_add("stat:type", OFF_BIG + 8192, 16);
		np_check();
	}
	for (size_t room = 40; room < 60; room += 3) {
		np_call_begin("a", 0, "xattr list in %zu bytes", room);
		np_add("xattr", OFF_BIG, room);
		np_check();
	}
}

static void calls_data_dir(void)
{
	static const char *const subs[] = {
		"", "a", "empty", "big", "k64", "d/b", "d/e/c", "link", "absd/b",
		"d/up/a", "d/up/d/up/d/b", "dl", "dl/b", "dangling",
		"dangling/x", "loop1", "loop1/x", "root", "magic", "magic/x",
		"fifo", "null", "d", "emptydir", "missing", "a/x", "tmp",
		"tmp/f", "ro/a", "/a", "d/", "d//b", "./a", "d/../a", "..",
		"d/e/",
	};
	static char names[2][GV_ARRAY_SIZE(subs)][64];

	for (int g = 0; g < 2; g++)
		for (size_t s = 0; s < GV_ARRAY_SIZE(subs); s++) {
			snprintf(names[g][s], sizeof(names[g][s]), "%s:%s",
				 g ? "dir" : "data", subs[s]);
			np_one(".", names[g][s]);
		}
	np_one("a", "data:");
	np_one("a", "dir:");
	np_one("d", "data:b");
	np_one("d", "data:up/a");
	np_one("d", "dir:up");
	np_one("link", "data:");
	np_call_begin("link", AT_SYMLINK_NOFOLLOW, "data: of $ORIGIN a symlink");
	np_add("data:", OFF_BIG, 4096);
	np_add("dir:", CONT, 0);
	np_check();
	np_one("dl", "data:");
	np_one("fifo", "data:");
	np_one("/proc/self", "data:cmdline");
	np_one("/proc/self", "data:cwd/a");
	np_one("/proc/self", "dir:cwd");
	np_one("/proc/self", "data:nope/x");
	np_one("/sys/kernel", "data:uevent_seqnum");
	np_one("/sys", "dir:kernel");
}

/* A process's open files, as gvlsof asks for them. */
static void calls_proc(void)
{
	static char names[64][48], origin[32];
	size_t k = 0;

	snprintf(origin, sizeof(origin), "/proc/%d", (int)np_holder);
	np_one(origin, "dir:fd");
	np_one(origin, "data:cwd");
	np_one(origin, "data:exe");
	np_one(origin, "data:root");
	np_one(origin, "data:fdinfo/0");
	np_call_begin(origin, 0, "the open files of a process");
	for (int i = 0; i < 7; i++) {
		static const char *const field[] = {
			"data:", "stat:type:", ":ino:", ":size:", ":dev:",
			":rdev:", "lstat:mode:",
		};

		for (int f = 0; f < 7; f++, k++) {
			snprintf(names[k], sizeof(names[k]), "%sfd/%d",
				 field[f], np_holder_fds[i]);
			np_add(names[k], k ? CONT : OFF_BIG, 65536);
		}
	}
	np_check();
}

static void calls_names(void)
{
	static char long_name[300], long_short[300], at_limit[300];

	memset(long_name, 'x', 256);
	memcpy(long_name, "data:", 5);
	memcpy(at_limit, long_name, 255);
	memset(long_short, 'y', 255);
	long_short[0] = ':';

	np_call_begin(".", 0, "names and shorthand");
	np_add("", OFF_BIG, 65536);
	np_add(":id", CONT, 0);			/* after "": EINVAL */
	np_add("mnt", CONT, 0);
	np_add(":id", CONT, 0);
	np_add(":parentid", CONT, 0);
	np_add("nope", CONT, 0);
	np_add(":id", CONT, 0);
	np_add("mnt:nope", CONT, 0);
	np_add("mnt:id:x", CONT, 0);
	np_add("mnt:", CONT, 0);
	np_add("fs:type:x", CONT, 0);
	np_add("stat:", CONT, 0);
	np_add("stat:size:a", CONT, 0);
	np_add(":ino:d/b", CONT, 0);
	np_add(":nlink", CONT, 0);
	np_add("data:a", CONT, 0);
	np_add(":d/b", CONT, 0);
	np_add(":link", CONT, 0);
	np_add("dir:", CONT, 0);
	np_add(":d", CONT, 0);
	np_add("xattr:user.k", CONT, 0);
	np_add(":user.k:colon", CONT, 0);
	np_add("mntns:1", CONT, 0);
	np_add(":id", CONT, 0);
	np_add("mntns:1:id", CONT, 0);
	np_add(":root", CONT, 0);
	np_add("mntns:", CONT, 0);
	np_add(":1", CONT, 0);
	np_add(":2:id", CONT, 0);
	np_add(long_name, CONT, 0);		/* ENAMETOOLONG */
	np_add(":id", CONT, 0);			/* no prefix left */
	np_add(at_limit, CONT, 0);
	np_add("mntns:1:id", CONT, 0);
	np_add(long_short, CONT, 0);		/* expands beyond 255 */
	np_add(":id", CONT, 0);
	np_add("lstat:type:link", CONT, 0);
	np_add(":size", CONT, 0);
	np_add("stat:nope:a", CONT, 0);
	np_add(":type", CONT, 0);
	np_add("data", CONT, 0);
	np_add(":x", CONT, 0);
	np_add("x:y:z", CONT, 0);
	np_add(":mnt:id", CONT, 0);
	np_check();

	np_call_begin(".", 0, "a shorthand first");
	np_add(":id", OFF_BIG, 64);
	np_add("mnt:id", CONT, 0);
	np_check();
}


/* A batch of 64 files in one call. */
static void calls_batch(void)
{
	static char names[64][32];

	np_call_begin("many", 0, "64 files in one call");
	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "data:f%02d", i);
		np_add(names[i], i ? CONT : OFF_BIG, 8192);
	}
	np_check();
}

int main(void)
{
	np_start();
	np_start_holder();
	calls_listings();
	calls_mounts();
	calls_stat();
	calls_fs();
	if (np_have_xattr)
		calls_xattr();
	calls_data_dir();
	calls_proc();
	calls_names();
	calls_batch();
	tap_diag("%u calls compared", np_calls_run);
	kill(np_holder, SIGKILL);
	waitpid(np_holder, NULL, 0);
	return tap_done();
}
