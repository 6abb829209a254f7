// SPDX-License-Identifier: MIT
/*
 * data_fstat.c - a data: file is reopened from its pin and checked with
 * fstat(2) to be the inode pinned (data_open.c, reopen.c). A check that
 * cannot be made gives the errno of that fstat(2) for the entry, never
 * ESTALE, which says that the file was another one; the rest of the call
 * goes on.
 *
 * The fstat(2) fails for real: a seccomp filter makes it (glibc's
 * newfstatat(2), and fstat(2)) fail with EIO, in a child. The native call
 * makes no such check in user space: skipped there.
 *
 * Asked for by issue 23 (item F).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define CHECKS	3

static char top[2048];

static void run(void *arg)
{
	const struct t_backend *b = arg;
	static const int nrs[] = { SYS_newfstatat, SYS_fstat };
	struct name_val v[T_FILES + 1];
	char names[T_FILES][16], buf[4096];
	int dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC), ret;

	if (dfd < 0)
		tap_bail("%s: %s", top, strerror(errno));
	gv_backend_force(b->id);
	/* the library's lazy set-up (probes, a ring) done before the filter */
	for (int i = 0; i < T_FILES; i++) {
		snprintf(names[i], sizeof(names[i]), "data:f%d", i);
		v[i] = (struct name_val){ .name = names[i] };
	}
	v[T_FILES] = (struct name_val){ .name = "stat:type:f0" };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	ret = getvalues(dfd, "", v, T_FILES + 1, AT_EMPTY_PATH);
	tap_ok(ret == T_FILES + 1 && t_is(1, &v[0], "0", 1), "%s: before the "
	       "filter, data: reads (%s)", b->name, t_got(ret, errno, &v[0]));
	if (t_seccomp_errno(nrs, 2, EIO)) {
		tap_skip(CHECKS - 1, "no seccomp filter here: %s",
			 strerror(errno));
		return;
	}
	for (int i = 0; i < T_FILES; i++)
		v[i] = (struct name_val){ .name = names[i] };
	v[T_FILES] = (struct name_val){ .name = "stat:type:f0" };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	ret = getvalues(dfd, "", v, T_FILES + 1, AT_EMPTY_PATH);
	tap_ok(ret == T_FILES + 1 && v[0].error == EIO &&
	       v[T_FILES - 1].error == EIO, "%s: fstat(2) of the reopened file "
	       "fails with EIO: data: gets EIO, not ESTALE (%s)", b->name,
	       t_got(ret, errno, &v[0]));
	tap_ok(ret == T_FILES + 1 && t_is(1, &v[T_FILES], "reg", 3), "%s: the "
	       "call goes on (stat:type %s)", b->name,
	       t_got(ret, errno, &v[T_FILES]));
}

int main(void)
{
	struct t_backend bs[4];
	int n, dfd;

	alarm(120);
	snprintf(top, sizeof(top), "%s", t_tmpdir("data-fstat"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; dfd >= 0 && i < T_FILES; i++) {
		char name[16], data[16];
		int len = snprintf(data, sizeof(data), "%d", i);

		snprintf(name, sizeof(name), "f%d", i);
		if (t_write_file(dfd, name, data, len, 0644))
			tap_bail("setup: %s", strerror(errno));
	}
	if (dfd < 0)
		tap_bail("%s: %s", top, strerror(errno));
	close(dfd);
	n = t_lib_backends(bs, CHECKS, "the native call checks nothing "
			   "with fstat(2) in user space");
	for (int i = 0; i < n; i++)
		t_sub(bs[i].name, 30, run, &bs[i]);
	return tap_done();
}
