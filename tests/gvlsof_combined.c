// SPDX-License-Identifier: MIT
/*
 * gvlsof_combined.c - lsof's selections combined, and what lsof says of a
 * search that found nothing, in a PID namespace of the test's own: there
 * the only processes are this one, its holders and the tool, so a
 * selection ORed over the whole system (-d 0 -U, -u nobody) is the same
 * for lsof and gvlsof however busy the machine is.
 *
 *  - -d ORed with -i, -U or file names lists what either selects (gvlsof
 *    once listed only the sockets or named files, -d's rows dropped), and
 *    with -a what both select;
 *  - the exit status and -V messages of -u, -p, -g and -c searches that
 *    match no process, with and without -a (lsof 4.95 never reports a -u
 *    login name without processes: gvlsof(1), DIFFERENCES);
 *  - -F takes every field letter lsof takes (Z and z included).
 *
 * Each case runs lsof and gvlsof with the same arguments and wants the
 * same exit status, standard output and standard error. The tools list
 * themselves for some selections: those cases exclude them (-c ^lsof;
 * gvlsof runs as "lsof" too).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

#define SAME(...)	ls_same_v("C", __VA_ARGS__, NULL)
/* the tools themselves left out */
#define SAME_X(...)	ls_same_v("C", "-c", "^lsof", __VA_ARGS__, NULL)

static char port[16], held[PATH_MAX];

/* @path's contents @s, for the uid and gid maps of a user namespace. */
static bool write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Become PID 1 of a new PID namespace with a /proc of its own (through a
 * user namespace when not root): the parent only waits, and exits with
 * the child's status. Returns a reason to skip, or NULL.
 */
static const char *enter_pid_namespace(void)
{
	static char why[160];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int flags = CLONE_NEWPID | CLONE_NEWNS, st;
	char map[64];
	pid_t pid;

	if (uid)
		flags |= CLONE_NEWUSER;
	if (unshare(flags)) {
		snprintf(why, sizeof(why), "unshare(CLONE_NEWPID%s): %s (no "
			 "PID namespace for the test)",
			 uid ? " | CLONE_NEWUSER" : "", strerror(errno));
		return why;
	}
	if (uid) {
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_file("/proc/self/setgroups", "deny");
		if (!write_file("/proc/self/uid_map", map))
			return "a user namespace whose uid_map cannot be written";
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (!write_file("/proc/self/gid_map", map))
			return "a user namespace whose gid_map cannot be written";
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		return why;
	}
	if (pid) {
		if (waitpid(pid, &st, 0) < 0)
			_exit(1);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL)) {
		snprintf(why, sizeof(why), "a /proc for the PID namespace: %s",
			 strerror(errno));
		return why;
	}
	return NULL;
}

/* Holder 0: a file, a directory, a TCP listener, UDP, unix sockets. */
static void hold_server(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				   .sin_port = htons(atoi(port)) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, sv[2];

	(void)arg;
	prctl(PR_SET_NAME, "gv server");
	ls_must(open(held, O_RDWR | O_CREAT, 0644), "held");
	ls_must(open(ls_dir, O_RDONLY | O_DIRECTORY), "dir");
	fd = ls_must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	ls_must(bind(fd, (void *)&sin, sizeof(sin)), "bind");
	ls_must(listen(fd, 4), "listen");
	ls_must(socket(AF_INET, SOCK_DGRAM, 0), "udp");
	fd = ls_must(socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", ls_path("sock"));
	ls_must(bind(fd, (void *)&sun, sizeof(sun)), "unix bind");
	ls_must(listen(fd, 1), "unix listen");
	ls_must(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), "socketpair");
	ls_must(pipe(sv), "pipe");
}

/* Holder 1: a connection to holder 0, the held file, another name. */
static void hold_client(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				   .sin_port = htons(atoi(port)) };
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "gvclient");
	ls_must(open(held, O_RDONLY), "held");
	fd = ls_must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	ls_must(connect(fd, (void *)&sin, sizeof(sin)), "connect");
}

/* -d with the file criteria, ORed and ANDed. */
static void fd_sets(void)
{
	SAME_X("-d", "0", "-U");
	SAME_X("-i", "-d", "0-2");
	SAME_X("-n", "-P", "-d", "0-2", "-i", "TCP");
	SAME_X("-d", "0", held);
	SAME_X("-d", "3", "-U", "-i", "-n", "-P");
	SAME_X("-U", "-d", "cwd,txt");
	SAME_X("-d", "mem", "-U");
	SAME_X("-d", "^0-2", "-i", "-n", "-P");
	SAME_X("-d", "fd", "-U");
	SAME_X("-d", "0", "+L1");
	SAME_X("-d", "3", "-c", "gvc", "-i", "-n", "-P");
	SAME_X("-a", "-d", "0-20", "-i", "-n", "-P");
	SAME_X("-a", "-d", "0", "-U");
	SAME_X("-a", "-d", "3-9", held);
	SAME_X("-a", "-d", "^0-3", "-U", "-c", "gv");
}

/* Searches that match no process: exit status, -V's messages. */
static void searches(void)
{
	static const char *const cases[][7] = {
		{ "-u", "nobody" },
		{ "-V", "-u", "nobody" },
		{ "-V", "-u", "4000000" },
		{ "-V", "-u", "nobody", "-c", "nosuch" },
		{ "-V", "-c", "nosuch", "-u", "nobody" },
		{ "-V", "-p", "999999999", "-u", "nobody" },
		{ "-V", "-g", "999999999", "-u", "nobody" },
		{ "-a", "-u", "nobody", "-p", "1" },
		{ "-V", "-a", "-u", "nobody", "-p", "1" },
		{ "-p", "999999999" },
		{ "-V", "-p", "999999999" },
		{ "-V", "-a", "-p", "1", "-c", "nosuch" },
		{ "-c", "nosuch" },
		{ "-V", "-c", "nosuch" },
		{ "-V", "-c", "/^nosuch$/" },
		{ "-g", "999999999" },
		{ "-V", "-g", "999999999" },
		{ "-V", "-a", "-g", "999999999", "-c", "gv" },
		{ "-Q", "-V", "-p", "999999999", "-c", "nosuch" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ls_same("C", cases[i]);
}

/* -F: every letter lsof takes, whether or not it prints the field. */
static void field_letters(void)
{
	char pids[64];

	snprintf(pids, sizeof(pids), "%s", ls_pids());
	SAME("-a", "-p", pids, "-F", "pZn");
	SAME("-a", "-p", pids, "-F", "pzn");
	SAME("-a", "-p", pids, "-F", "pCFNn");
	SAME("-a", "-p", pids, "-F", "pQn");
	SAME("-F", "?");
}

int main(void)
{
	const char *why;

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	why = enter_pid_namespace();
	if (why)
		tap_skip_all("%s", why);
	ls_init("gvlsof-combined");
	snprintf(held, sizeof(held), "%s", ls_path("held"));
	snprintf(port, sizeof(port), "%d", ls_free_port());
	ls_holder(hold_server, NULL, NULL);
	ls_holder(hold_client, NULL, NULL);
	atexit(ls_kill_holders);

	fd_sets();
	searches();
	field_letters();
	ls_kill_holders();
	return tap_done();
}
