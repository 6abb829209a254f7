// SPDX-License-Identifier: MIT
/*
 * tap.c - the Test Anything Protocol writer behind tap.h.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/tap.h"

/*
 * Every program reads /proc: its descriptor table, mountinfo, its own
 * path to run itself again, the library's reopens. Without a procfs there
 * (a bare chroot) the whole program skips before main(), saying so, rather
 * than failing check after check or bailing out the run. _exit(): nothing
 * registered with atexit() runs, such as LeakSanitizer's check under
 * SANITIZE=1, which needs /proc too.
 */
__attribute__((constructor)) static void tap_need_proc(void)
{
	struct stat root, proc;
	struct statfs sfs;
	const char *why;

	if (!statfs("/proc/self", &sfs) && sfs.f_type == PROC_SUPER_MAGIC)
		return;
	if (stat("/proc", &proc) || stat("/", &root) ||
	    proc.st_dev == root.st_dev)
		why = "/proc is not mounted";
	else
		why = "/proc is not procfs";
	printf("1..0 # SKIP %s (every test program reads it: descriptors, "
	       "mountinfo, its own path)\n", why);
	fflush(stdout);
	_exit(0);
}

static int tap_planned = -1;
static int tap_count;
static int tap_failed;

/*
 * Every line goes out in one write(2), retried until it is all written:
 * stdio drops a line whose write a signal interrupts (EINTR, or a short
 * write to a terminal), and some programs keep an interval timer running
 * without SA_RESTART while they report (the kcheck guest's stdout is a
 * serial port, where writes wait long enough to be interrupted).
 */
static void tap_write(const char *s, size_t n)
{
	ssize_t w;

	fflush(stdout);		/* whatever the program printf()ed comes first */
	while (n) {
		w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= w;
	}
}

static void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	char *body, *line;
	int n;

	if (vasprintf(&body, fmt, ap) < 0)
		return;
	n = asprintf(&line, "%s%s\n", prefix, body);
	free(body);
	if (n < 0)
		return;
	tap_write(line, n);
	free(line);
}

static void tap_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void tap_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("", fmt, ap);
	va_end(ap);
}

void tap_plan(int n)
{
	tap_planned = n;
	tap_line("1..%d", n);
}

int tap_done(void)
{
	if (tap_planned < 0)
		tap_line("1..%d", tap_count);
	else if (tap_planned != tap_count)
		tap_line("# planned %d checks, ran %d", tap_planned, tap_count);
	if (tap_failed)
		return 1;
	return tap_planned < 0 || tap_planned == tap_count ? 0 : 1;
}

bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	char prefix[64];

	tap_count++;
	if (!cond)
		tap_failed++;
	snprintf(prefix, sizeof(prefix), "%sok %d - ", cond ? "" : "not ",
		 tap_count);
	va_start(ap, fmt);
	tap_vline(prefix, fmt, ap);
	va_end(ap);
	return cond;
}

bool tap_todo(bool cond, const char *reason, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	tap_count++;
	tap_line("%sok %d - %s # TODO %s", cond ? "" : "not ", tap_count, name,
		 reason);
	return cond;
}

void tap_skip(int n, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	while (n-- > 0) {
		tap_count++;
		tap_line("ok %d # SKIP %s", tap_count, reason);
	}
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("Bail out! ", fmt, ap);
	va_end(ap);
	exit(255);
}

void tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(0);
}

bool tap_is_long(long long got, long long want, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!tap_ok(got == want, "%s", name)) {
		tap_diag("    got: %lld", got);
		tap_diag("   want: %lld", want);
		return false;
	}
	return true;
}

bool tap_is_errno(long long ret, int err, long long want_ret, int want_err,
		  const char *fmt, ...)
{
	bool good = ret == want_ret && (want_ret != -1 || err == want_err);
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!tap_ok(good, "%s", name)) {
		tap_diag("    got: %lld (errno %s)", ret,
			 ret == -1 ? strerrorname_np(err) : "-");
		tap_diag("   want: %lld (errno %s)", want_ret,
			 want_ret == -1 ? strerrorname_np(want_err) : "-");
		return false;
	}
	return true;
}

static void tap_diag_bytes(const char *label, const void *p, size_t len)
{
	const unsigned char *s = p;
	char line[160];
	size_t i, o = 0;

	for (i = 0; i < len && o < sizeof(line) - 8; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			line[o++] = s[i];
		else
			o += snprintf(line + o, sizeof(line) - o, "\\x%02x",
				      s[i]);
	}
	line[o] = 0;
	tap_diag("%s (%zu bytes): \"%s\"%s", label, len, line,
		 i < len ? "..." : "");
}

bool tap_is_mem(const void *got, size_t got_len, const void *want,
		size_t want_len, const char *fmt, ...)
{
	bool good = got_len == want_len && !memcmp(got, want, got_len);
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!tap_ok(good, "%s", name)) {
		tap_diag_bytes("    got", got, got_len);
		tap_diag_bytes("   want", want, want_len);
		return false;
	}
	return true;
}
