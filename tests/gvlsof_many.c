// SPDX-License-Identifier: MIT
/*
 * gvlsof_many.c - gvlsof shares a large round of getvalues() calls out
 * between threads, one per CPU (tools/gvlsof/fetch.c): with holders whose
 * descriptors make rounds of thousands of names, its rows are still
 * lsof's, byte for byte, and the same as when it runs on one CPU (where
 * it makes each round one call); a helper thread is there for each further
 * CPU it may run on, and none when it may run on one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

#define HOLDERS		LS_MAX_HOLDERS
#define KINDS		8	/* descriptors opened per kind and holder */

/* A holder with KINDS descriptors of each of eight kinds. */
static void hold_many(void *arg)
{
	char name[32];
	int p[2], sp[2];

	snprintf(name, sizeof(name), "f%d", (int)(long)arg);
	close(open(ls_path(name), O_RDWR | O_CREAT, 0644));
	for (int i = 0; i < KINDS; i++) {
		ls_must(open(ls_path(name), O_RDONLY), "open ro");
		ls_must(open(ls_path(name), O_WRONLY), "open wo");
		ls_must(open(ls_path(name), O_RDWR), "open rw");
		ls_must(open(ls_dir, O_RDONLY | O_DIRECTORY), "open dir");
		ls_must(open("/dev/null", O_RDWR), "open /dev/null");
		ls_must(pipe(p), "pipe");
		ls_must(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), "socketpair");
		ls_must(eventfd(0, 0), "eventfd");
	}
}

/* The CPUs this process may run on. */
static int cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
}

/* The threads of process @pid, io_uring's workers (iou-wrk-N) left out. */
static int threads(pid_t pid)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char comm[32] = "";
		int fd;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid,
			 d->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0 && read(fd, comm, sizeof(comm) - 1) < 0)
			comm[0] = 0;
		if (fd >= 0)
			close(fd);
		n += strncmp(comm, "iou-wrk-", 8) != 0;
	}
	closedir(dir);
	return n;
}

/*
 * gvlsof -r 1 on the holders: its threads once its first cycle has ended
 * (the helpers are started then, if ever, and kept), or -1 if that cycle
 * does not end within 60 s.
 */
static int repeat_threads(void)
{
	const char *argv[] = { ls_tool, "-n", "-P", "-r", "1", "-a", "-p",
			       ls_pids(), NULL };
	int n = -1, st;
	pid_t pid;

	/* no marker of an earlier run is taken for this one's */
	unlink(ls_path("repeat"));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		int out = open(ls_path("repeat"), O_WRONLY | O_CREAT | O_TRUNC,
			       0644);

		if (out < 0 || dup2(out, 1) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 6000; i++) {
		size_t len;
		char *out = ls_slurp(ls_path("repeat"), &len);
		bool ended = strstr(out, "\n=======\n");

		free(out);
		if (ended) {
			n = threads(pid);
			break;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return n;
}

int main(void)
{
	const char *args[] = { "-n", "-P", "-a", "-p", NULL, NULL };
	struct ls_run one = { 0 }, all = { 0 };
	cpu_set_t set, first;
	int n;

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	ls_init("gvlsof_many");
	for (long i = 0; i < HOLDERS; i++)
		ls_holder(hold_many, (void *)i, NULL);
	atexit(ls_kill_holders);
	args[4] = ls_pids();

	/* some 8 x 8 x 10 descriptors: rounds of thousands of names */
	ls_same("C", args);

	if (sched_getaffinity(0, sizeof(set), &set))
		tap_bail("sched_getaffinity: %s", strerror(errno));
	CPU_ZERO(&first);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			CPU_SET(c, &first);
			break;
		}
	ls_run(&all, ls_as_lsof, "C", args);
	if (sched_setaffinity(0, sizeof(first), &first))
		tap_bail("sched_setaffinity: %s", strerror(errno));
	ls_run(&one, ls_as_lsof, "C", args);
	tap_is_long(repeat_threads(), 1, "on one CPU, gvlsof has no helper "
		    "thread");
	if (sched_setaffinity(0, sizeof(set), &set))
		tap_bail("sched_setaffinity: %s", strerror(errno));
	tap_ok(one.status == 0 && all.status == 0 &&
	       one.out_len == all.out_len &&
	       !memcmp(one.out, all.out, one.out_len) &&
	       one.err_len == all.err_len &&
	       !memcmp(one.err, all.err, one.err_len),
	       "on one CPU and on %d, the same rows", cpus());
	tap_ok(one.out_len > 600 * 60, "the rows of %d holders (%zu bytes)",
	       HOLDERS, one.out_len);
	ls_run_free(&one);
	ls_run_free(&all);

	/* a helper per further CPU, up to four threads (fetch.c) */
	n = cpus();
	if (n >= 2)
		tap_is_long(repeat_threads(), n < 4 ? n : 4, "on %d CPUs, "
			    "gvlsof has a helper thread per further CPU", n);
	else
		tap_skip(1, "this process may run on one CPU only: no batch "
			 "is shared out");
	ls_kill_holders();
	return tap_done();
}
