// SPDX-License-Identifier: MIT
/*
 * gvlsof_names.c - getvalues() names at the volume gvlsof sends them:
 * thousands of entries packed in one buffer, ":REST" chains running across
 * the library's blocks of names, names that end at an unreadable page, too
 * long names and bad pointers between good ones. Every value is checked
 * against fstat(2) and readlink(2) of the same descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <getvalues.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/tap.h"
#include "lib/util.h"

#define NFDS	700		/* five names each: 3500 entries */

static char *pack;		/* all names, back to back */
static size_t pack_len, pack_cap;

static const char *add(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static const char *add(const char *fmt, ...)
{
	char *at = pack + pack_len;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(at, pack_cap - pack_len, fmt, ap);
	va_end(ap);

	if (len < 0 || (size_t)len + 1 > pack_cap - pack_len)
		tap_bail("name buffer too small");
	pack_len += len + 1;
	return at;
}

static bool value_is(const struct name_val *v, const char *want)
{
	return !v->error && v->value_out.iov_len == strlen(want) &&
	       !memcmp(v->value_out.iov_base, want, strlen(want));
}

static void volume(void)
{
	static struct name_val vec[NFDS * 5];
	static int fds[NFDS];
	static char buf[1 << 20];
	const char *dir = t_tmpdir("names");
	int bad = 0, n = 0, r;

	pack_cap = 1 << 20;
	pack = malloc(pack_cap);
	for (int i = 0; i < NFDS; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/f%d", dir, i % 50);
		fds[i] = open(path, (i % 3 ? O_RDWR : O_RDONLY) | O_CREAT,
			      0644);
		if (fds[i] < 0)
			tap_bail("open: %s", strerror(errno));
		/* the same ":REST" chain, whatever block it falls in */
		vec[n++].name = add("stat:ino:fd/%d", fds[i]);
		vec[n++].name = add(":dev:fd/%d", fds[i]);
		vec[n++].name = add(":size:fd/%d", fds[i]);
		vec[n++].name = add("data:fd/%d", fds[i]);
		vec[n++].name = add("lstat:mode:fd/%d", fds[i]);
	}
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(AT_FDCWD, "/proc/self", vec, n, 0);
	tap_is_long(r, n, "%d names in one call, all handled", n);
	for (int i = 0; i < NFDS && r == n; i++) {
		struct name_val *v = &vec[i * 5];
		char want[4200], link[4096], proc[64];
		struct stat st;
		ssize_t len;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fds[i]);
		len = readlink(proc, link, sizeof(link) - 1);
		if (fstat(fds[i], &st) || len < 0)
			tap_bail("fstat/readlink: %s", strerror(errno));
		link[len] = 0;
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)st.st_ino);
		bad += !value_is(&v[0], want);
		snprintf(want, sizeof(want), "%u:%u", major(st.st_dev),
			 minor(st.st_dev));
		bad += !value_is(&v[1], want);
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)st.st_size);
		bad += !value_is(&v[2], want);
		bad += !value_is(&v[3], link);
		bad += !value_is(&v[4], i % 3 ? "0700" : "0500");
	}
	tap_is_long(bad, 0, "every value equals fstat and readlink");
	for (int i = 0; i < NFDS; i++)
		close(fds[i]);
	free(pack);
}

/* Names at the end of the readable memory, and names that are not. */
static void edges(void)
{
	long page = sysconf(_SC_PAGESIZE);
	/* two readable pages, each followed by one that is not */
	char *map = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end, *end2, long_name[300], buf[4096];
	struct name_val v[160] = { 0 };
	int n = 0, r;

	if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) ||
	    mprotect(map + 3 * page, page, PROT_NONE))
		tap_bail("mmap: %s", strerror(errno));
	end = map + page;
	end2 = map + 3 * page;
	/* "stat:ino" ending with its NUL on the last readable byte */
	memcpy(end - 9, "stat:ino", 9);
	/* and ":nlink" with no room for its NUL */
	memcpy(end2 - 6, ":nlink", 6);

	for (int i = 0; i < 62; i++)		/* fill most of a block */
		v[n++].name = i ? ":mode" : "stat:mode";
	v[n++].name = end - 9;			/* 62: across the block */
	v[n++].name = ":uid";			/* 63 */
	v[n++].name = end2 - 6;			/* 64: EFAULT */
	v[n++].name = ":uid";			/* 65: EINVAL, no prefix */
	v[n++].name = NULL;			/* 66: EFAULT */
	memset(long_name, 'x', sizeof(long_name));
	memcpy(long_name, "stat:", 5);
	long_name[256] = 0;
	v[n++].name = long_name;		/* 67: ENAMETOOLONG */
	v[n++].name = ":ino";			/* 68: EINVAL */
	v[n++].name = long_name + 1;		/* 69: 255 bytes: ENOENT */
	v[n++].name = "stat:gid";		/* 70 */
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(AT_FDCWD, "/proc/self", v, n, 0);
	tap_is_long(r, n, "a call with bad names is still handled");
	tap_ok(!v[61].error && !v[62].error && !v[63].error,
	       "a name ending on the last readable byte is read");
	tap_is_long(v[64].error, EFAULT, "a name running into no memory");
	tap_is_long(v[65].error, EINVAL, "\":REST\" after it has no prefix");
	tap_is_long(v[66].error, EFAULT, "a NULL name");
	tap_is_long(v[67].error, ENAMETOOLONG, "a name of 256 bytes");
	tap_is_long(v[68].error, EINVAL, "\":REST\" after a too long name");
	tap_is_long(v[69].error, ENOENT, "a name of 255 bytes is read");
	tap_is_long(v[70].error, 0, "and the names after them work");
	munmap(map, 4 * page);
}

int main(void)
{
	volume();
	edges();
	return tap_done();
}
