// SPDX-License-Identifier: MIT
/*
 * tool_noproc.c - the tools where /proc is not procfs (a tmpfs mounted
 * over it, in a mount namespace of the test's own, for any user): the
 * getvalues command says that /proc is the cause of xattr:'s EOPNOTSUPP,
 * not "Operation not supported", and gvlsof ends as lsof 4.95 ends there,
 * with an error on its mount table and exit status 1, where it once
 * listed nothing and exited 0. tests/bare_chroot.sh checks the same in a
 * chroot without any /proc, as root ("/proc is not mounted").
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "lib/mounts.h"
#include "lib/run.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static char gvlsof[PATH_MAX];
static const char *dir;
/*
 * Tools built with SANITIZE=1: LeakSanitizer's check at exit needs /proc
 * (and reads its options there), so their exit status fails there and
 * their stderr has its words: the messages are looked for, not compared.
 */
static bool san;
#define SAN_STATUS	"a SANITIZE=1 tool exits 1 without procfs " \
			"(LeakSanitizer's check at exit)"

/* @r's stderr is @want, or holds it under SANITIZE=1. */
static bool err_is(const struct run *r, const char *want)
{
	return san ? strstr(r->err.p, want) != NULL : !strcmp(r->err.p, want);
}

static void check_xattr(const char *name)
{
	char want[256];
	struct run r;

	snprintf(want, sizeof(want), "getvalues: %s: /proc is not procfs "
		 "(xattr: reads the attributes through /proc/thread-self/fd)"
		 "\n", name);
	run_tool(&r, NULL, dir, name, NULL);
	if (r.status == 0 || strstr(r.err.p, "no such"))
		tap_skip(1, "%s was read without /proc (this kernel's "
			 "getxattrat(2) takes an O_PATH descriptor)", name);
	else if (!tap_ok((san || r.status == 32) && !r.out.len &&
			 err_is(&r, want),
			 "getvalues DIR %s: says /proc is not procfs", name))
		tap_diag("exit %d, stderr: %s", r.status, r.err.p);
	run_free(&r);
}

static void run_lsof(struct run *r, const char *prog, const char *opt)
{
	char *argv[] = { (char *)prog, (char *)opt, NULL };

	run_argv(r, NULL, prog, argv);
}

/* gvlsof's status and output against lsof's, with the option @opt. */
static void against_lsof(const char *opt)
{
	struct run r, l;

	if (access("/usr/bin/lsof", X_OK)) {
		tap_skip(1, "lsof is not installed (Debian: lsof)");
		return;
	}
	if (san) {
		tap_skip(1, SAN_STATUS);
		return;
	}
	run_lsof(&r, gvlsof, opt);
	run_lsof(&l, "/usr/bin/lsof", opt);
	tap_ok(r.status == l.status && r.out.len == l.out.len,
	       "gvlsof %s: lsof %s's status (%d) and output (%zu bytes)",
	       opt, opt, l.status, l.out.len);
	run_free(&r);
	run_free(&l);
}

static void noproc(void *arg)
{
	const char *why = t_private_mounts(NULL);
	struct run r;

	(void)arg;
	if (why) {
		tap_skip(1, "%s", why);
		return;
	}
	if (mount("noproc", "/proc", "tmpfs", 0, "mode=0755"))
		tap_bail("mount tmpfs on /proc: %s", strerror(errno));

	check_xattr("xattr");
	check_xattr("xattr:user.gv");

	run_lsof(&r, gvlsof, "-n");
	if (!tap_ok(!r.out.len && err_is(&r, "gvlsof: can't read "
					 "/proc/self/mountinfo: No such file "
					 "or directory (/proc is not procfs)\n"),
		    "gvlsof -n: no mount table, nothing listed, an error "
		    "that says why"))
		tap_diag("stderr: %s", r.err.p);
	if (san)
		tap_skip(1, SAN_STATUS);
	else
		tap_is_long(r.status, 1, "gvlsof -n: exit status 1");
	run_free(&r);
	against_lsof("-n");
	/* -i alone reads no mount table: nothing found, status 1 */
	against_lsof("-i");
}

int main(void)
{
	tool_init("getvalues");
	snprintf(gvlsof, sizeof(gvlsof), "%s/tools/gvlsof",
		 getenv("GV_BUILD"));
	dir = t_tmpdir("noproc");
	san = getenv("SANITIZE") && !strcmp(getenv("SANITIZE"), "1");
	t_sub("the tools with a tmpfs on /proc", 60, noproc, NULL);
	return tap_done();
}
