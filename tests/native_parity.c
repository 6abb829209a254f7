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
#include "lib/tap.h"
#include "lib/util.h"
#include "native_parity_lib.h"

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
		one(".", lists[i]);
	one("a", "xattr");
	one("/proc/self", "mnt");
}

/* Every field of the mount of @origin, in one call, shorthand after it. */
static void calls_mount_of(const char *origin)
{
	call_begin(origin, 0, "every mnt field of %s", origin);
	add("mnt:id", OFF_BIG, 65536);
	for (size_t i = 1; i < GV_ARRAY_SIZE(mnt_fields); i++) {
		static char names[GV_ARRAY_SIZE(mnt_fields)][32];

		snprintf(names[i], sizeof(names[i]), ":%s", mnt_fields[i]);
		add(names[i], CONT, 0);
	}
	check();
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
		if (!have_mounts && i > 0 && i < 8)
			continue;
		calls_mount_of(origins[i]);
	}

	/* the whole table: every field of every mount, in one call */
	gv_backend_force(GV_BACKEND_SYNC);
	if (getvalues(scratch_fd, ".", &v, 1, 0) != 1 || v.error)
		tap_bail("mntns: %s", strerror(errno ? errno : (int)v.error));
	gv_backend_force(GV_BACKEND_AUTO);
	call_begin(".", 0, "mntns:ID:FIELD of every mount, with shorthand");
	add("mntns", OFF_BIG, 134 * PAGE);
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
			add(names[k], CONT, 0);
		}
		snprintf(names[k], sizeof(names[k]), "mntns:%lu", id);
		add(names[k++], CONT, 0);
	}
	add("mntns:0", CONT, 0);
	add("mntns:4294967295:id", CONT, 0);
	add("mntns:4294967296:id", CONT, 0);
	add("mntns:007:id", CONT, 0);
	add("mntns:x:id", CONT, 0);
	add("mntns:", CONT, 0);
	add("mntns:1:nope", CONT, 0);
	check();
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
			call_begin(".", 0, "every %s field of \"%s\"",
				   l ? "lstat" : "stat", subs[s]);
			for (size_t f = 0; f < GV_ARRAY_SIZE(stat_fields);
			     f++) {
				snprintf(names[l][s][f], 64, "%s:%s%s%s",
					 l ? "lstat" : "stat", stat_fields[f],
					 *subs[s] ? ":" : "", subs[s]);
				add(names[l][s][f], f ? CONT : OFF_BIG,
				    65536);
			}
			check();
		}
	}
	call_begin("link", AT_SYMLINK_NOFOLLOW, "stat of $ORIGIN a symlink");
	add("stat:type", OFF_BIG, 4096);
	add("lstat:type", CONT, 0);
	add(":ino", CONT, 0);
	add("stat:size:", CONT, 0);
	check();
	call_begin("/", 0, "stat of the root");
	add("stat:ino", OFF_BIG, 4096);
	add(":dev", CONT, 0);
	add(":mntid", CONT, 0);
	check();
}

static void calls_fs(void)
{
	static const char *const origins[] = {
		".", "tmp", "ro", "/proc", "/sys", "/dev", "/",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(origins); i++) {
		if (!have_mounts && i > 0 && i < 3)
			continue;
		call_begin(origins[i], 0, "every fs field of %s", origins[i]);
		for (size_t f = 0; f < GV_ARRAY_SIZE(fs_fields); f++) {
			static char names[GV_ARRAY_SIZE(fs_fields)][32];

			snprintf(names[f], sizeof(names[f]), "fs:%s",
				 fs_fields[f]);
			add(names[f], f ? CONT : OFF_BIG, 4096);
		}
		check();
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
		one("a", names[i]);
	one(".", "xattr:user.k");
	one("link", "xattr");
	call_begin("link", AT_SYMLINK_NOFOLLOW, "xattrs of a symlink itself");
	add("xattr", OFF_BIG, 4096);
	add("xattr:user.k", CONT, 0);
	check();
	/* the value and the list at every size around their length */
	for (size_t room = 0; room < 8; room++) {
		call_begin("a", 0, "xattr:user.k in %zu bytes", room);
		add("xattr:user.k", OFF_BIG, room);
		add("stat:type", OFF_BIG + 8192, 16);
		check();
	}
	for (size_t room = 40; room < 60; room += 3) {
		call_begin("a", 0, "xattr list in %zu bytes", room);
		add("xattr", OFF_BIG, room);
		check();
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
			one(".", names[g][s]);
		}
	one("a", "data:");
	one("a", "dir:");
	one("d", "data:b");
	one("d", "data:up/a");
	one("d", "dir:up");
	one("link", "data:");
	call_begin("link", AT_SYMLINK_NOFOLLOW, "data: of $ORIGIN a symlink");
	add("data:", OFF_BIG, 4096);
	add("dir:", CONT, 0);
	check();
	one("dl", "data:");
	one("fifo", "data:");
	one("/proc/self", "data:cmdline");
	one("/proc/self", "data:cwd/a");
	one("/proc/self", "dir:cwd");
	one("/proc/self", "data:nope/x");
	one("/sys/kernel", "data:uevent_seqnum");
	one("/sys", "dir:kernel");
}

/* A process's open files, as gvlsof asks for them. */
static void calls_proc(void)
{
	static char names[64][48], origin[32];
	size_t k = 0;

	snprintf(origin, sizeof(origin), "/proc/%d", (int)holder);
	one(origin, "dir:fd");
	one(origin, "data:cwd");
	one(origin, "data:exe");
	one(origin, "data:root");
	one(origin, "data:fdinfo/0");
	call_begin(origin, 0, "the open files of a process");
	for (int i = 0; i < 7; i++) {
		static const char *const field[] = {
			"data:", "stat:type:", ":ino:", ":size:", ":dev:",
			":rdev:", "lstat:mode:",
		};

		for (int f = 0; f < 7; f++, k++) {
			snprintf(names[k], sizeof(names[k]), "%sfd/%d",
				 field[f], holder_fds[i]);
			add(names[k], k ? CONT : OFF_BIG, 65536);
		}
	}
	check();
}

static void calls_names(void)
{
	static char long_name[300], long_short[300], at_limit[300];

	memset(long_name, 'x', 256);
	memcpy(long_name, "data:", 5);
	memcpy(at_limit, long_name, 255);
	memset(long_short, 'y', 255);
	long_short[0] = ':';

	call_begin(".", 0, "names and shorthand");
	add("", OFF_BIG, 65536);
	add(":id", CONT, 0);			/* after "": EINVAL */
	add("mnt", CONT, 0);
	add(":id", CONT, 0);
	add(":parentid", CONT, 0);
	add("nope", CONT, 0);
	add(":id", CONT, 0);
	add("mnt:nope", CONT, 0);
	add("mnt:id:x", CONT, 0);
	add("mnt:", CONT, 0);
	add("fs:type:x", CONT, 0);
	add("stat:", CONT, 0);
	add("stat:size:a", CONT, 0);
	add(":ino:d/b", CONT, 0);
	add(":nlink", CONT, 0);
	add("data:a", CONT, 0);
	add(":d/b", CONT, 0);
	add(":link", CONT, 0);
	add("dir:", CONT, 0);
	add(":d", CONT, 0);
	add("xattr:user.k", CONT, 0);
	add(":user.k:colon", CONT, 0);
	add("mntns:1", CONT, 0);
	add(":id", CONT, 0);
	add("mntns:1:id", CONT, 0);
	add(":root", CONT, 0);
	add("mntns:", CONT, 0);
	add(":1", CONT, 0);
	add(":2:id", CONT, 0);
	add(long_name, CONT, 0);		/* ENAMETOOLONG */
	add(":id", CONT, 0);			/* no prefix left */
	add(at_limit, CONT, 0);
	add("mntns:1:id", CONT, 0);
	add(long_short, CONT, 0);		/* expands beyond 255 */
	add(":id", CONT, 0);
	add("lstat:type:link", CONT, 0);
	add(":size", CONT, 0);
	add("stat:nope:a", CONT, 0);
	add(":type", CONT, 0);
	add("data", CONT, 0);
	add(":x", CONT, 0);
	add("x:y:z", CONT, 0);
	add(":mnt:id", CONT, 0);
	check();

	call_begin(".", 0, "a shorthand first");
	add(":id", OFF_BIG, 64);
	add("mnt:id", CONT, 0);
	check();
}


/* A batch of 64 files in one call. */
static void calls_batch(void)
{
	static char names[64][32];

	call_begin("many", 0, "64 files in one call");
	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "data:f%02d", i);
		add(names[i], i ? CONT : OFF_BIG, 8192);
	}
	check();
}

int main(void)
{
	np_start();
	start_holder();
	calls_listings();
	calls_mounts();
	calls_stat();
	calls_fs();
	if (have_xattr)
		calls_xattr();
	calls_data_dir();
	calls_proc();
	calls_names();
	calls_batch();
	tap_diag("%u calls compared", calls_run);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return tap_done();
}
