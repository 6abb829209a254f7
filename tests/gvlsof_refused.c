// SPDX-License-Identifier: MIT
/*
 * gvlsof_refused.c - processes whose descriptors can be listed but whose
 * links are refused, as root without CAP_SYS_PTRACE finds a process that
 * holds a capability it lacks (the ptrace check of a /proc/PID/fd/N link
 * fails; the directory's own permission does not). lsof makes a row of
 * "(readlink: Permission denied)" for each descriptor; gvlsof makes that
 * note once and shares it between the rows, and must print the same
 * rows, in the table, with -F, -w and +c 0.
 *
 * The tools run under setpriv(1), their bounding set without
 * CAP_SYS_PTRACE and CAP_SYS_RESOURCE, which root's exec turns into its
 * permitted set; the holders keep every capability.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

#define NFILES	40	/* a row each, and the note each time */

static void hold(void *arg)
{
	int p[2], s[2];

	(void)arg;
	for (int i = 0; i < NFILES; i++)
		ls_must(open(ls_path(i % 2 ? "rw" : "ro"),
			     (i % 2 ? O_RDWR : O_RDONLY) | O_CREAT, 0644),
			"open");
	ls_must(pipe(p), "pipe");
	ls_must(socketpair(AF_UNIX, SOCK_STREAM, 0, s), "socketpair");
	ls_must(eventfd(0, 0), "eventfd");
	ls_must(open("/dev/null", O_RDWR), "/dev/null");
}

/* Whether the links of the holders are refused to the wrapped tools. */
static bool refused(const char *pids)
{
	const char *args[] = { "-n", "-P", "-a", "-p", pids, "-d", "0-9",
			       NULL };
	struct ls_run r = { 0 };
	bool yes;

	ls_run(&r, ls_as_lsof, "C", args);
	yes = r.out && strstr(r.out, "/fd/3 (readlink: Permission denied)");
	ls_run_free(&r);
	return yes;
}

int main(void)
{
	static const char *const wrap[] = {
		"setpriv", "--bounding-set", "-sys_ptrace,-sys_resource",
		NULL,
	};
	const char *pids;

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed");
	if (geteuid())
		tap_skip_all("needs root (a capability to drop)");
	if (system("setpriv --bounding-set -sys_ptrace true 2>/dev/null"))
		tap_skip_all("setpriv cannot drop a capability here");
	ls_init("refused");
	ls_holder(hold, NULL, NULL);
	ls_holder(hold, NULL, NULL);
	pids = ls_pids();
	ls_wrap = wrap;
	if (!refused(pids)) {
		ls_wrap = NULL;
		ls_kill_holders();
		tap_skip_all("the holders' links are not refused here");
	}
	tap_plan(5);
	ls_same_v("C", "-n", "-P", "-a", "-p", pids, NULL);
	ls_same_v("C", "-a", "-p", pids, NULL);
	ls_same_v("C", "-F", "-a", "-p", pids, NULL);
	ls_same_v("C", "-w", "-n", "-a", "-p", pids, NULL);
	ls_same_v("C", "+c", "0", "-a", "-p", pids, NULL);
	ls_wrap = NULL;
	ls_kill_holders();
	return tap_done();
}
