// SPDX-License-Identifier: MIT
/*
 * native_parity_bounds.c - getvalues() at the edges, through the native
 * system calls and through the library's sync backend, compared as
 * native_parity.c does: values overflowing their buffers at every room
 * around their length, shared buffers, names, buffers and vectors in
 * unmapped and read-only pages, and the errors of the call itself. Runs
 * where the kernel has getvalues(2) (kernel/kcheck.sh); elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* Overflow: every room around a value's length, shared buffers. */
static void calls_overflow(void)
{
	static const char *const small[] = {
		"data:a", "dir:d", "stat:type", "", "mnt:fstype", "data:empty",
		"data:link", "mntns", "xattr", "mnt:unbindable", "fs:flags",
	};
	static const struct { const char *name; size_t len; } big[] = {
		{ "data:big", 300000 }, { "data:k64", 65536 },
		{ "dir:many", 64 * 4 },
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(small); i++) {
		for (size_t room = 0; room < 48; room++) {
			np_call_begin(".", 0, "%s in %zu bytes, then more",
				   *small[i] ? small[i] : "\"\"", room);
			np_add(small[i], OFF_BIG, room);
			np_add("stat:type", OFF_BIG + 300008, 16);
			np_check();
		}
	}
	for (size_t i = 0; i < GV_ARRAY_SIZE(big); i++) {
		for (size_t room = big[i].len - 2; room < big[i].len + 3;
		     room++) {
			np_call_begin(".", 0, "%s in %zu bytes, then more",
				   big[i].name, room);
			np_add(big[i].name, OFF_BIG, room);
			np_add("stat:type", OFF_BIG + 300008, 16);
			np_check();
		}
	}
	for (size_t room = 0; room < 40; room += 3) {
		np_call_begin(".", 0, "a shared buffer of %zu bytes", room);
		np_add("data:a", OFF_BIG, room);
		np_add("data:d/b", CONT, 0);
		np_add("data:missing", CONT, 0);
		np_add("stat:type", CONT, 0);
		np_add("data:d/e/c", CONT, 0);
		np_add("dir:d/e", CONT, 0);
		np_add("mnt:options", CONT, 0);
		np_check();
	}
	np_call_begin(".", 0, "no buffer yet");
	np_add("stat:type", CONT, 0);
	np_add("data:a", CONT, 0);
	np_add("stat:type", OFF_BIG, 16);
	np_check();
}

/* Names, buffers and the vector itself in bad memory. */
static void calls_bad_pointers(void)
{
	static const char *const names[] = {
		"stat:nlink", "data:a", "data:empty", "xattr:user.k", "dir:d",
		"data:big", "", "mnt:mountpoint", "data:link", "mntns",
	};

	np_call_begin(".", 0, "bad names");
	np_add(NAME_NULL, OFF_BIG, 4096);
	np_add(NAME_ONE, CONT, 0);
	np_add(NAME_NONE, CONT, 0);
	np_add(":id", CONT, 0);
	np_add(NAME_CROSS, CONT, 0);
	np_add(NAME_BEFORE, CONT, 0);
	np_add(":link", CONT, 0);
	np_check();

	for (int where = 0; where < 4; where++) {
		static const long bufs[] = {
			OFF_NONE, OFF_RO, OFF_NONE - 4, OFF_RO - 2,
		};
		static const char *const what[] = {
			"an unmapped page", "a read-only page",
			"a buffer running into an unmapped page",
			"a buffer running into a read-only page",
		};

		np_call_begin(".", 0, "values into %s", what[where]);
		for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++)
			np_add(names[i], i ? CONT : bufs[where], 400000);
		np_add("data:a", OFF_BIG, 64);
		np_add("stat:type", CONT, 0);
		np_check();
		for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++) {
			np_call_begin(".", 0, "%s into %s", names[i], what[where]);
			np_add(names[i], bufs[where], 400000);
			np_add("stat:type", OFF_BIG, 64);
			np_check();
		}
	}
	/* which comes first, a value too long or a buffer too bad */
	for (int f = 0; f < 3; f++) {
		static const char *const files[] = {
			"data:a", "data:k64", "data:big",
		};
		static const size_t rooms[] = { 4, 100, 65536, 65537, 400000 };
		static const long at[] = { OFF_RO - 2, OFF_NONE - 2 };

		for (size_t r = 0; r < GV_ARRAY_SIZE(rooms); r++)
			for (size_t w = 0; w < GV_ARRAY_SIZE(at); w++) {
				np_call_begin(".", 0, "%s in %zu bytes, 2 of them "
					   "writable (%s page next)", files[f],
					   rooms[r], w ? "unmapped" :
					   "read-only");
				np_add(files[f], at[w], rooms[r]);
				np_add("stat:type", OFF_BIG, 64);
				np_check();
			}
	}
	np_call_begin(".", 0, "a buffer (void *)1");
	np_add("data:a", BUF_ONE, 64);
	np_add("stat:type", CONT, 0);
	np_add("dir:d", CONT, 0);
	np_add("stat:type", OFF_BIG, 64);
	np_check();
}

/* Errors of the call itself, run by hand on both backends. */
static void calls_call_errors(void)
{
	static const struct {
		const char *title;
		int dfd;	/* -2: the scratch directory */
		const char *path;
		unsigned int flags;
		int vec;	/* 0 good, 1 NULL, 2 into unmapped, 3 reserved */
		size_t num;
	} v[] = {
		{ "unknown flag", -2, ".", 0x100000, 0, 1 },
		{ "AT_RECURSIVE is unknown here", -2, ".", AT_RECURSIVE, 0, 1 },
		{ "num > INT_MAX", -2, ".", 0, 0, (size_t)INT_MAX + 1 },
		{ "vec NULL", -2, ".", 0, 1, 1 },
		{ "vec NULL, num 0", -2, ".", 0, 1, 0 },
		{ "vec into an unmapped page", -2, ".", 0, 2, 2 },
		{ "huge num, short readable vec", -2, ".", 0, 2, INT_MAX },
		{ "reserved != 0", -2, "missing", 0, 3, 2 },
		{ "missing origin", -2, "missing", 0, 0, 1 },
		{ "missing origin, num 0", -2, "missing", 0, 0, 0 },
		{ "empty path", -2, "", 0, 0, 1 },
		{ "empty path, AT_EMPTY_PATH", -2, "", AT_EMPTY_PATH, 0, 1 },
		{ "path NULL", -2, NULL, 0, 0, 1 },
		{ "path NULL, AT_EMPTY_PATH", -2, NULL, AT_EMPTY_PATH, 0, 1 },
		{ "bad dfd", 9999, "a", 0, 0, 1 },
		{ "bad dfd, absolute path", 9999, "/", 0, 0, 1 },
		{ "dfd a file", -3, "x", 0, 0, 1 },
		{ "a symlink, followed", -2, "link", 0, 0, 1 },
		{ "a symlink, not followed", -2, "link", AT_SYMLINK_NOFOLLOW,
		  0, 1 },
		{ "a loop", -2, "loop1", 0, 0, 1 },
		{ "through a file", -2, "a/x", 0, 0, 1 },
		{ "AT_NO_AUTOMOUNT", -2, ".", AT_NO_AUTOMOUNT, 0, 1 },
	};
	char *page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct name_val *edge = (struct name_val *)(page + PAGE) - 1;
	int file = openat(np_scratch_fd, "a", O_RDONLY | O_CLOEXEC);
	char buf[2][256];

	munmap(page + PAGE, PAGE);
	for (size_t i = 0; i < GV_ARRAY_SIZE(v); i++) {
		int ret[2], err[2];
		struct name_val nv[2][2];
		int dfd = v[i].dfd == -2 ? np_scratch_fd :
			  v[i].dfd == -3 ? file : v[i].dfd;

		for (int b = 0; b < 2; b++) {
			struct name_val *vec = nv[b];

			memset(nv[b], 0, sizeof(nv[b]));
			nv[b][0] = (struct name_val){
				.name = "stat:type",
				.value_in = { buf[b], sizeof(buf[b]) } };
			nv[b][1].name = "data:a";
			if (v[i].vec == 1)
				vec = NULL;
			if (v[i].vec == 2) {
				*edge = nv[b][0];
				vec = edge;
			}
			if (v[i].vec == 3)
				nv[b][1].reserved = 1;
			gv_backend_force(b ? GV_BACKEND_SYNC :
					     GV_BACKEND_NATIVE);
			errno = 0;
			ret[b] = getvalues(dfd, v[i].path, vec, v[i].num,
					   v[i].flags);
			err[b] = ret[b] < 0 ? errno : 0;
			gv_backend_force(GV_BACKEND_AUTO);
		}
		if (!tap_ok(ret[0] == ret[1] && err[0] == err[1] &&
			    nv[0][0].error == nv[1][0].error &&
			    nv[0][0].value_out.iov_len ==
			    nv[1][0].value_out.iov_len,
			    "the call: %s", v[i].title))
			tap_diag("native %d (%s), sync %d (%s)", ret[0],
				 strerror(err[0]), ret[1], strerror(err[1]));
	}
	close(file);
	munmap(page, PAGE);
}


int main(void)
{
	np_start();
	calls_overflow();
	calls_bad_pointers();
	calls_call_errors();
	tap_diag("%u calls compared", np_calls_run);
	return tap_done();
}
