// SPDX-License-Identifier: MIT
/*
 * gvlsof_endpoints.c - -E and +E: two processes of our own share a pipe, a
 * pseudo-terminal, a unix socket pair, a unix listener with a connection
 * it has not accepted, an eventfd, a POSIX message queue and local TCP
 * connections (IPv4, IPv6); a third has threads. lsof and gvlsof must give
 * the same output for -E and +E with other selections, -F and -K.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

static int shared[16];		/* the ends, by the test, before the fork */
static char mq_name[64];
static bool have_mqueue, have_ipv6;

enum { PIPE_R, PIPE_W, PTY_M, PTY_S, SP_A, SP_B, EFD, MQ, TCP_A, TCP_B,
       TCP6_A, TCP6_B, UX_LISTEN, UX_CLIENT, NSHARED };

static void tcp_pair(int family, int *a, int *b)
{
	struct sockaddr_storage ss = { .ss_family = family };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	int l = socket(family, SOCK_STREAM, 0);

	*a = *b = -1;
	if (l < 0)
		return;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (bind(l, (void *)&ss, len) || listen(l, 1) ||
	    getsockname(l, (void *)&ss, &len)) {
		close(l);
		return;
	}
	*b = socket(family, SOCK_STREAM, 0);
	if (*b < 0 || connect(*b, (void *)&ss, len))
		tap_bail("connect: %s", strerror(errno));
	*a = accept(l, NULL, NULL);
	close(l);
}

static void make_shared(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int p[2];

	if (pipe(p))
		tap_bail("pipe: %s", strerror(errno));
	shared[PIPE_R] = p[0];
	shared[PIPE_W] = p[1];
	if (openpty(&shared[PTY_M], &shared[PTY_S], NULL, NULL, NULL))
		tap_bail("openpty: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, p))
		tap_bail("socketpair: %s", strerror(errno));
	shared[SP_A] = p[0];
	shared[SP_B] = p[1];
	shared[EFD] = eventfd(0, 0);
	shared[MQ] = mq_open(mq_name, O_RDWR | O_CREAT, 0600, NULL);
	if (shared[MQ] >= 0)
		mq_unlink(mq_name);
	have_mqueue = shared[MQ] >= 0;
	tcp_pair(AF_INET, &shared[TCP_A], &shared[TCP_B]);
	tcp_pair(AF_INET6, &shared[TCP6_A], &shared[TCP6_B]);
	have_ipv6 = shared[TCP6_A] >= 0;
	/* a listener and a connection it never accepts */
	shared[UX_LISTEN] = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", ls_path("ux"));
	if (bind(shared[UX_LISTEN], (void *)&sun, sizeof(sun)) ||
	    listen(shared[UX_LISTEN], 1))
		tap_bail("unix listen: %s", strerror(errno));
	shared[UX_CLIENT] = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(shared[UX_CLIENT], (void *)&sun, sizeof(sun)))
		tap_bail("unix connect: %s", strerror(errno));
}

/* each end to its holder: @which 0 keeps the first of each pair */
static void keep_ends(int which, int *keep)
{
	static const int pairs[][2] = {
		{ PIPE_W, PIPE_R }, { PTY_M, PTY_S }, { SP_A, SP_B },
		{ EFD, EFD }, { MQ, MQ }, { TCP_A, TCP_B }, { TCP6_A, TCP6_B },
		{ UX_LISTEN, UX_CLIENT },
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (shared[pairs[i][which]] >= 0)
			keep[n++] = shared[pairs[i][which]];
	keep[n] = -1;
}

static void hold_end(void *arg)
{
	prctl(PR_SET_NAME, (const char *)arg);
}

/* A process with threads, one of which names itself. */
static void hold_threads(void *arg)
{
	pthread_t t;

	(void)arg;
	prctl(PR_SET_NAME, "gvthreads");
	ls_must(open("/dev/null", O_RDONLY), "/dev/null");
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t, NULL, ls_idle, i ? "gvworker" : "gv w"))
			ls_must(-1, "pthread_create");
}

int main(void)
{
	char p0[16], p1[16], p2[16], pids01[40];
	int keep0[NSHARED + 1], keep1[NSHARED + 1];

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	ls_init("gvlsof-ept");
	snprintf(mq_name, sizeof(mq_name), "/gv-ept-%d", getpid());
	have_mqueue = true;
	make_shared();
	keep_ends(0, keep0);
	keep_ends(1, keep1);
	ls_holder(hold_end, "gv end0", keep0);
	ls_holder(hold_end, "gvend1", keep1);
	ls_holder(hold_threads, NULL, NULL);
	atexit(ls_kill_holders);
	/* the test keeps no end: the holders are each other's only ends */
	for (int i = 0; i < NSHARED; i++)
		if (shared[i] >= 0)
			close(shared[i]);
	snprintf(p0, sizeof(p0), "%d", (int)ls_holders[0]);
	snprintf(p1, sizeof(p1), "%d", (int)ls_holders[1]);
	snprintf(p2, sizeof(p2), "%d", (int)ls_holders[2]);
	snprintf(pids01, sizeof(pids01), "%s,%s", p0, p1);

	ls_same_v("C", "-E", "-a", "-p", p0, NULL);
	ls_same_v("C", "+E", "-a", "-p", p0, NULL);
	ls_same_v("C", "-E", "-a", "-p", pids01, NULL);
	ls_same_v("C", "+E", "-a", "-p", pids01, NULL);
	ls_same_v("C", "+E", "-a", "-p", p1, "-n", "-P", NULL);
	ls_same_v("C", "-E", "-a", "-p", p0, "-i", "-n", "-P", NULL);
	ls_same_v("C", "+E", "-a", "-p", p0, "-i", "-n", "-P", NULL);
	ls_same_v("C", "-E", "-a", "-p", p0, "-U", NULL);
	ls_same_v("C", "+E", "-a", "-p", p0, "-U", NULL);
	ls_same_v("C", "-E", "-a", "-p", p0, "-d", "0-200", NULL);
	ls_same_v("C", "+E", "-a", "-p", p0, "+c", "0", NULL);
	ls_same_v("C", "+E", "-a", "-p", p0, "+c", "4", NULL);
	ls_same_v("C", "-E", "-F", "-a", "-p", pids01, NULL);
	ls_same_v("C", "+E", "-F0", "-a", "-p", p0, NULL);
	ls_same_v("C", "+E", "-t", "-a", "-p", p0, NULL);
	ls_same_v("C", "-E", "-K", "-a", "-p", pids01, NULL);
	ls_same_v("C", "-K", "-a", "-p", p2, NULL);
	ls_same_v("C", "-K", "-p", p2, "-a", "-d", "0", NULL);
	ls_same_v("C", "-K", "-F", "-a", "-p", p2, NULL);
	ls_same_v("C", "-K", "-t", "-a", "-p", p2, NULL);
	ls_same_v("C", "-Ki", "-a", "-p", p2, NULL);
	ls_same_v("C", "-K", "-a", "-c", "gvthr", NULL);
	/*
	 * A message queue is PSXMQ only where the mqueue file system is
	 * mounted: in a mount namespace of their own, for both tools.
	 */
	if (!have_mqueue) {
		tap_skip(3, "no POSIX message queues here");
	} else if (!system("grep -qw mqueue /proc/self/mounts")) {
		tap_ok(true, "mqueue is mounted here");
		ls_same_v("C", "+E", "-a", "-p", p0, NULL);
		ls_same_v("C", "-E", "-F", "-a", "-p", pids01, NULL);
	} else if (geteuid() || system("unshare -m true 2>/dev/null")) {
		tap_skip(3, "no mqueue file system mounted, and mounting one "
			 "in a mount namespace needs root");
	} else {
		static char cmd[PATH_MAX + 64];
		const char *wrap[] = { "unshare", "-m", "sh", "-c", cmd, NULL };
		const char *args[] = { "+E", "-a", "-p", p0, NULL };
		struct ls_run r = { 0 };

		snprintf(cmd, sizeof(cmd), "mkdir -p %s && mount -t mqueue "
			 "mqueue %s && exec \"$0\" \"$@\"", ls_path("mq"),
			 ls_path("mq"));
		ls_wrap = wrap;
		ls_run(&r, ls_as_lsof, "C", args);
		tap_ok(strstr(r.out, " PSXMQ ") != NULL,
		       "a message queue is PSXMQ with mqueue mounted");
		ls_run_free(&r);
		ls_same_v("C", "+E", "-a", "-p", p0, NULL);
		ls_same_v("C", "-E", "-F", "-a", "-p", pids01, NULL);
		ls_wrap = NULL;
	}
	if (!have_ipv6)
		tap_diag("no IPv6 on the loopback: no IPv6 endpoints");
	ls_kill_holders();
	return tap_done();
}
