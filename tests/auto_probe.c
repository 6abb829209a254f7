// SPDX-License-Identifier: MIT
/*
 * auto_probe.c - auto's look at the first data: file of a call on a file
 * system that may hold files not in the page cache (data_policy.c): a
 * cold file sends the whole call to io_uring, a cached one keeps it on
 * plain system calls, and an empty first file tells nothing, so the next
 * one is asked. cachestat(2) answers without the race of a read with
 * RWF_NOWAIT, which starts readahead that a fast device (the disk of a
 * virtual machine whose host has the file cached) may complete within
 * the call; where a seccomp filter refuses cachestat(2) (ENOSYS, EPERM),
 * the read decides alone and the values are the same.
 *
 * Real files on the disk file system of $TMPDIR (/var/tmp), evicted with
 * POSIX_FADV_DONTNEED and checked with mincore(2) (t_evict()); the calls
 * are made as on a file system of the "other" class, where the priors
 * keep auto on plain system calls unless the probe finds the files cold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <getvalues.h>

#include "cost.h"
#include "internal.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

#define FILES	10
#define SIZE	8192

static int dir_fd;
static char content[FILES][SIZE];
static const char *const names[FILES] = {
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
};

/* Whether this kernel has cachestat(2), asked of the directory itself. */
static bool have_cachestat(void)
{
	uint64_t range[2] = { 0, 1 }, cs[5];

	return !syscall(__NR_cachestat, dir_fd, range, cs, 0) ||
	       errno != ENOSYS;
}

/*
 * One call through auto of data:FIRST then f1..f9; the backend that
 * fetched them, or -1 (and why) when a value is not the file's content.
 */
static int call(const char *first)
{
	static char buf[FILES * SIZE + 64];
	struct name_val vec[FILES];
	char name0[32];
	int r, bad = -1;

	snprintf(name0, sizeof(name0), "data:%s", first);
	vec[0] = (struct name_val){ .name = name0,
				    .value_in = { buf, sizeof(buf) } };
	for (int i = 1; i < FILES; i++) {
		static char full[FILES][16];

		snprintf(full[i], sizeof(full[i]), "data:%s", names[i]);
		vec[i] = (struct name_val){ .name = full[i] };
	}
	gv_backend_force(GV_BACKEND_AUTO);
	gv_backend_force_fs_class(GV_FS_OTHER);
	r = getvalues(dir_fd, "", vec, FILES, AT_EMPTY_PATH);
	gv_backend_force_fs_class(-1);
	if (r != FILES) {
		tap_diag("   getvalues() = %d: %s", r, strerror(errno));
		return -1;
	}
	for (int i = 0; i < FILES && bad < 0; i++) {
		size_t len = i || strcmp(first, "empty") ? SIZE : 0;

		if (vec[i].error || vec[i].value_out.iov_len != len ||
		    memcmp(vec[i].value_out.iov_base, content[i], len))
			bad = i;
	}
	if (bad >= 0) {
		tap_diag("   entry %d: error %u, %zu bytes", bad,
			 vec[bad].error, vec[bad].value_out.iov_len);
		return -1;
	}
	return gv_backend_last();
}

static bool evict(int from)
{
	return t_evict(dir_fd, names + from, FILES - from);
}

static void test_cachestat(void)
{
	if (!have_cachestat()) {
		tap_skip(3, "the kernel has no cachestat(2) (Linux 6.5): the "
			 "probe's read alone decides, racing readahead");
		return;
	}
	if (!evict(0)) {
		tap_skip(3, "the page cache keeps the files here "
			 "(POSIX_FADV_DONTNEED)");
		return;
	}
	tap_ok(call("f0") == GV_BACKEND_URING,
	       "the first file cold: the whole call goes to io_uring");
	tap_ok(call("f0") == GV_BACKEND_SYNC,
	       "the same files cached: plain system calls");
	if (!evict(1))
		tap_skip(1, "the page cache keeps the files here");
	else
		tap_ok(call("empty") == GV_BACKEND_URING,
		       "an empty first file tells nothing: the next, cold, "
		       "sends the call to io_uring");
}

/* In a child: cachestat(2) refused with errno *@arg. */
static void refused(void *arg)
{
	int nr = __NR_cachestat, err = *(int *)arg, b;

	if (t_seccomp_errno(&nr, 1, err))
		tap_bail("seccomp: %s", strerror(errno));
	tap_ok(call("f0") == GV_BACKEND_SYNC,
	       "cachestat(2) refused with %s: cached files, plain system "
	       "calls", strerrorname_np(err));
	if (!evict(0)) {
		tap_skip(1, "the page cache keeps the files here");
		return;
	}
	b = call("f0");
	tap_ok(b == GV_BACKEND_SYNC || b == GV_BACKEND_URING,
	       "... cold files: the read decides (%s), the values are the "
	       "files'", b == GV_BACKEND_URING ? "io_uring" : "plain calls");
}

int main(void)
{
	static const int errs[] = { ENOSYS, EPERM };
	const char *dir = t_tmpdir("probe");
	struct statfs sfs;

	/* auto's data: policy, by its priors, whatever GETVALUES_BACKEND is */
	gv_backend_auto_native(false);
	gv_cost_test_mode(GV_COST_PRIORS);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled or filtered)");
	dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || fstatfs(dir_fd, &sfs))
		tap_bail("%s: %s", dir, strerror(errno));
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
		tap_skip_all("%s is in memory: nothing is ever cold (set "
			     "TMPDIR to a disk file system)", dir);
	for (int i = 0; i < FILES; i++) {
		t_fill_pattern(content[i], SIZE, (unsigned int)i + 1);
		if (t_write_file(dir_fd, names[i], content[i], SIZE, 0644))
			tap_bail("write %s: %s", names[i], strerror(errno));
	}
	if (t_write_file(dir_fd, "empty", "", 0, 0644))
		tap_bail("write empty: %s", strerror(errno));
	test_cachestat();
	for (size_t i = 0; i < GV_ARRAY_SIZE(errs); i++)
		t_sub(strerrorname_np(errs[i]), 60, refused,
		      (void *)&errs[i]);
	return tap_done();
}
