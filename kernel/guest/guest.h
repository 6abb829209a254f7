/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest.h - what the feature programs of the kcheck guest share (audit,
 * landlock, ima, fuse, ovl_autofs): TAP output and small file helpers;
 * entry.h has the system call numbers. Each program is one .c file built
 * statically by kernel/kcheck.sh; those marked "kcheck-guest:
 * libgetvalues" link the library's static build too.
 */
#ifndef GV_GUEST_H
#define GV_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "entry.h"	/* NR_READFILE, NR_GETVALUES */

static int tap_n;
static int tap_failed;

static inline void tap_vok(bool cond, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
}

static inline __attribute__((format(printf, 2, 3)))
bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/*
 * A check of a known failure that the series has yet to fix: "# TODO" and
 * why, which kcheck counts as passing; it says so if the check passes.
 */
static inline __attribute__((format(printf, 3, 4)))
void ok_todo(bool cond, const char *todo, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # TODO %s%s\n", todo, cond ? " (passes now: drop the TODO)" : "");
	fflush(stdout);
}

static inline __attribute__((format(printf, 1, 2)))
void skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - # SKIP ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline __attribute__((noreturn, format(printf, 1, 2)))
void bail(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	fflush(stdout);
	exit(1);
}

/* the plan last: 1..N, and the exit status */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

static inline void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		bail("writing %s", path);
	close(fd);
}

/* the whole of a file by open(2) and read(2): its length, or -errno */
static inline ssize_t get_file(int dfd, const char *path, char *buf,
			       size_t size)
{
	ssize_t n = 0, len = 0;
	int fd = openat(dfd, path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)len < size &&
	       (n = read(fd, buf + len, size - len)) > 0)
		len += n;
	if (n < 0)
		len = -errno;
	close(fd);
	return len;
}

#endif /* GV_GUEST_H */
