// SPDX-License-Identifier: MIT
/*
 * native_mnt_churn.c - mntns names under mount churn: a call that asks for
 * a mount ID that does not exist, while another process mounts and
 * unmounts in the same namespace of 2000 bind mounts, ends, and SIGKILL
 * ends a process that asks again and again at once.
 *
 * The kernel series' first getvalues(2) rebuilt its index of the namespace
 * for as long as an ID was missing and the namespace had changed, with no
 * bound and no signal check: such a caller stayed in the kernel seconds
 * after SIGKILL. The mounts are served by the library now, from
 * statmount(2) and listmount(2) or mountinfo, on every backend; this test
 * runs on each backend this machine has (in the kcheck guest: native).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/mounts.h"
#include "lib/tap.h"
#include "lib/util.h"

#define BIND_MOUNTS	2000
#define CALL_SECONDS	2	/* how long the caller keeps asking */
#define END_SECONDS	60	/* a generous bound for TCG */
#define KILL_SECONDS	5	/* SIGKILL to the caller's end */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Mount and unmount a tmpfs at TOP/churn until killed. */
static pid_t start_churn(void)
{
	char path[4096];
	pid_t pid;

	snprintf(path, sizeof(path), "%s", mt_at("churn"));
	mt_mkdir("churn");
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid)
		return pid;
	for (;;) {
		if (mount("gv-churn", path, "tmpfs", 0, NULL) == 0)
			umount2(path, MNT_DETACH);
	}
}

/*
 * One call for a missing ID and one for every ID's id, again and again
 * for @seconds (forever if 0). Exits 0 if every answer was right.
 */
static void ask(double seconds)
{
	static char buf[1 << 20];
	double end = now() + seconds;
	struct name_val v[2];
	int r;

	do {
		memset(v, 0, sizeof(v));
		v[0].name = "mntns:4000000000:id";
		v[0].value_in.iov_base = buf;
		v[0].value_in.iov_len = sizeof(buf);
		v[1].name = "mntns";
		r = getvalues(AT_FDCWD, "/", v, 2, 0);
		if (r != 2 || v[0].error != ENOENT || v[1].error) {
			fprintf(stderr, "getvalues: %d (%s), errors %u %u\n",
				r, r < 0 ? strerror(errno) : "", v[0].error,
				v[1].error);
			_exit(1);
		}
	} while (!seconds || now() < end);
	_exit(0);
}

/* Waits up to @seconds for @pid; its status, or -1 if it is still there. */
static int wait_for(pid_t pid, double seconds)
{
	double end = now() + seconds;
	int status;

	do {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	} while (now() < end);
	return -1;
}

int main(void)
{
	const char *why = t_private_mounts(NULL);
	pid_t churn, caller;
	double t;
	int status;

	if (why)
		tap_skip_all("no private mount namespace: %s", why);
	tap_plan(2);
	mt_new_top("churn");
	mt_mount_at("src", "gv-src", "tmpfs", 0, NULL);
	for (int i = 0; i < BIND_MOUNTS; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "b%d", i);
		mt_mount_at(rel, mt_at("src"), NULL, MS_BIND, NULL);
	}
	churn = start_churn();

	fflush(NULL);
	caller = fork();
	if (caller < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!caller)
		ask(CALL_SECONDS);
	status = wait_for(caller, END_SECONDS);
	if (status == -1) {
		kill(caller, SIGKILL);
		waitpid(caller, NULL, 0);
	}
	tap_ok(status == 0, "mntns with a missing ID under mount churn ends "
	       "within %d s, ENOENT every time", END_SECONDS);

	fflush(NULL);
	caller = fork();
	if (caller < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!caller)
		ask(0);
	usleep(500000);
	t = now();
	kill(caller, SIGKILL);
	status = wait_for(caller, KILL_SECONDS);
	tap_ok(status != -1 && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGKILL,
	       "SIGKILL ends a caller asking for it within %d s (%.3f s)",
	       KILL_SECONDS, now() - t);
	if (status == -1) {
		kill(caller, SIGKILL);
		waitpid(caller, NULL, 0);
	}
	kill(churn, SIGKILL);
	waitpid(churn, NULL, 0);
	return tap_done();
}
