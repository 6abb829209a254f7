// SPDX-License-Identifier: MIT
/*
 * getvalues_stat_mntid.c - stat:mntid and mnt:id agree: the same mount ID,
 * or, where statx(2) gives no mount ID (STATX_MNT_ID is Linux 5.8; glibc's
 * emulation of statx on a kernel without it never gives one), ENOSYS for
 * both. stat:mntid never says 0, which reads as an ID.
 *
 * A kernel without the mount ID is had with a seccomp filter that makes
 * statx(2) fail with ENOSYS: glibc then emulates it with fstatat(2), as it
 * does on a kernel without statx. A vector that names a mount is the
 * library's on every backend, the native one included (the kernel series
 * has no mnt since v3): there too both give ENOSYS.
 *
 * Asked for by issue 23 (item F).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define CHECKS	3

static char top[2048];

/* What entries 0 and 1 got, for a diagnostic (t_got() has one buffer). */
static const char *got2(int ret, const struct name_val *v)
{
	static char s[400];
	int n = snprintf(s, sizeof(s), "%s, ", t_got(ret, errno, &v[0]));

	snprintf(s + n, sizeof(s) - n, "%s", t_got(ret, errno, &v[1]));
	return s;
}

/* stat:mntid, mnt:id and stat:size of $ORIGIN: the call's result. */
static int fetch(const char *path, struct name_val *v, char *buf,
		 size_t size)
{
	static const char *const names[] = {
		"stat:mntid", "mnt:id", "stat:size",
	};

	for (int i = 0; i < 3; i++)
		v[i] = (struct name_val){ .name = names[i] };
	v[0].value_in = (struct iovec){ buf, size };
	return getvalues(AT_FDCWD, path, v, 3, 0);
}

static void run(void *arg)
{
	const struct t_backend *b = arg;
	const int nr = SYS_statx;
	struct name_val v[3];
	struct statx stx;
	struct stat st;
	char buf[256], size[32];
	int ret;

	gv_backend_force(b->id);
	if (stat(top, &st))
		tap_bail("stat %s: %s", top, strerror(errno));
	snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	ret = fetch(top, v, buf, sizeof(buf));
	tap_ok(ret == 3 && !v[0].error && !v[1].error &&
	       v[0].value_out.iov_len && v[0].value_out.iov_len ==
	       v[1].value_out.iov_len && !memcmp(v[0].value_out.iov_base,
						 v[1].value_out.iov_base,
						 v[0].value_out.iov_len),
	       "%s: stat:mntid and mnt:id give the same ID (%s)", b->name,
	       got2(ret, v));

	if (t_seccomp_errno(&nr, 1, ENOSYS)) {
		tap_skip(CHECKS - 1, "no seccomp filter here: %s",
			 strerror(errno));
		return;
	}
	if (statx(AT_FDCWD, top, 0, STATX_BASIC_STATS | STATX_MNT_ID, &stx) ||
	    (stx.stx_mask & STATX_MNT_ID)) {
		tap_skip(CHECKS - 1, "glibc here does not emulate statx(2) "
			 "without a mount ID");
		return;
	}
	ret = fetch(top, v, buf, sizeof(buf));
	tap_ok(ret == 3 && v[0].error == ENOSYS && v[1].error == ENOSYS,
	       "%s: no mount ID from statx(2): stat:mntid gives ENOSYS, as "
	       "mnt:id does (%s)", b->name, got2(ret, v));
	tap_ok(ret == 3 && t_is(1, &v[2], size, strlen(size)), "%s: the other "
	       "stat: fields are there (stat:size %s)", b->name,
	       t_got(ret, errno, &v[2]));
}

int main(void)
{
	struct t_backend bs[4];
	int n;

	alarm(120);
	snprintf(top, sizeof(top), "%s", t_tmpdir("stat-mntid"));
	n = t_backends(bs, CHECKS);
	for (int i = 0; i < n; i++)
		t_sub(bs[i].name, 30, run, &bs[i]);
	return tap_done();
}
