// SPDX-License-Identifier: MIT
/*
 * readfile_fds.c - readfile() leaves no descriptor behind: over thousands of
 * calls that succeed and fail, from four threads at once, in a forked child,
 * and in children that another thread forks while calls are in flight.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"

#define THREADS 4
#define CALLS 2500

static int dir;
static unsigned char content[3000];

/* One round of calls that succeed and calls that fail in every way. */
static int churn(void)
{
	unsigned char buf[4096];
	int bad = 0;

	if (readfile(dir, "file", buf, sizeof(buf), 0) != sizeof(content) ||
	    memcmp(buf, content, sizeof(content)))
		bad++;
	if (readfile(dir, "file", buf, 100, 0) != 100)
		bad++;
	if (readfile(dir, "missing", buf, sizeof(buf), 0) != -1 || errno != ENOENT)
		bad++;
	if (readfile(dir, "sub", buf, sizeof(buf), 0) != -1 || errno != EISDIR)
		bad++;
	if (readfile(dir, "link", buf, sizeof(buf), O_NOFOLLOW) != -1 ||
	    errno != ELOOP)
		bad++;
	if (readfile(dir, "file", NULL, sizeof(buf), 0) != -1 || errno != EFAULT)
		bad++;
	if (readfile(dir, "file", buf, sizeof(buf), O_CREAT) != -1 ||
	    errno != EINVAL)
		bad++;
	return bad;
}

static void *thread_main(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < CALLS / 5; i++)
		bad += churn();
	return (void *)bad;
}

static void test_leaks(void)
{
	int before = t_count_fds(), bad = 0;

	for (int i = 0; i < CALLS; i++)
		bad += churn();
	tap_is_long(bad, 0, "%d rounds of succeeding and failing calls", CALLS);
	tap_is_long(t_count_fds(), before, "no descriptor left behind");
}

static void test_threads(void)
{
	pthread_t t[THREADS];
	int before = t_count_fds();
	long bad = 0;

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			tap_bail("pthread_create");
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad += (long)r;
	}
	tap_is_long(bad, 0, "%d threads at once get the right answers", THREADS);
	tap_is_long(t_count_fds(), before, "no descriptor left behind by threads");
}

static void test_child(void)
{
	int status = -1, before = t_count_fds();
	pid_t pid = fork();

	if (pid == 0)
		_exit(churn() == 0 && t_count_fds() == before ? 0 : 1);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "works in a forked child, which leaks nothing either");
}

static atomic_bool stop;

static double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader_main(void *arg)
{
	unsigned char buf[4096];

	(void)arg;
	while (!atomic_load(&stop))
		readfile(dir, "file", buf, sizeof(buf), 0);
	return NULL;
}

/*
 * While a thread calls readfile() in a loop, fork, back to back. fork()
 * never waits for a call (SPEC v2), and a child keeps none of the calls'
 * descriptors but in the documented window: one that open() returned as
 * the fork began (which the fork's own page faults can stretch, forking
 * back to back). Such a descriptor is always O_CLOEXEC. A child exits 0
 * with the parent's descriptors only, 1 with an extra O_CLOEXEC one, 2
 * with any other difference.
 */
static void test_fork_race(void)
{
	int fds[256], nfds, window = 0, bad = 0, forks = 300;
	double slowest = 0;
	pthread_t t;

	nfds = t_list_fds(fds, 256);
	if (pthread_create(&t, NULL, reader_main, NULL))
		tap_bail("pthread_create");
	usleep(1000);
	for (int i = 0; i < forks; i++) {
		int status = -1;
		double t0 = t_now();
		pid_t pid = fork();

		if (pid == 0) {
			int now[256], n = t_list_fds(now, 256), extra = 0;

			for (int k = 0, j = 0; k < n; k++) {
				while (j < nfds && fds[j] < now[k])
					j++;
				if (j < nfds && fds[j] == now[k])
					continue;
				if (!(fcntl(now[k], F_GETFD) & FD_CLOEXEC))
					_exit(2);
				extra++;
			}
			_exit(extra > 1 ? 2 : extra);
		}
		if (t_now() - t0 > slowest)
			slowest = t_now() - t0;
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
			bad++;
		else if (WEXITSTATUS(status))
			window++;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	tap_is_long(bad, 0,
		    "%d children forked during calls in another thread: at most one descriptor of a call, O_CLOEXEC",
		    forks);
	tap_diag("   %d children kept the descriptor of an open that had just returned",
		 window);
	tap_diag("   slowest fork: %.3f s", slowest);
}

static atomic_int fifo_tid;
static volatile sig_atomic_t fifo_released;
static volatile sig_atomic_t fifo_watchdog_fd = -1;

static void *fifo_reader(void *arg)
{
	unsigned char buf[64];

	atomic_store(&fifo_tid, gettid());
	*(ssize_t *)arg = readfile(dir, "fifo", buf, sizeof(buf), 0);
	return NULL;
}

/* The watchdog: a fork() that waited would wait for this writer. */
static void fifo_release(int sig)
{
	(void)sig;
	fifo_released = 1;
	fifo_watchdog_fd = openat(dir, "fifo", O_WRONLY | O_NONBLOCK);
}

/* Whether thread @tid sleeps (state S), within about five seconds. */
static bool thread_sleeps(int tid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (int i = 0; i < 500; i++, usleep(10000)) {
		ssize_t n = t_orc_read(AT_FDCWD, path, buf, sizeof(buf) - 1);

		if (n <= 0)
			continue;
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return true;
	}
	return false;
}

/*
 * fork() never waits for a call (SPEC v2), shown without a clock: another
 * thread's readfile() waits in open(2) for a FIFO's writer, which only a
 * watchdog 30 s later would supply; fork() must return before it.
 */
static void test_fork_blocked(void)
{
	ssize_t got = -2;
	int status = -1, wfd;
	pthread_t t;
	pid_t pid;

	if (mkfifoat(dir, "fifo", 0600) ||
	    pthread_create(&t, NULL, fifo_reader, &got))
		tap_bail("fifo reader: %s", strerror(errno));
	while (!atomic_load(&fifo_tid))
		usleep(1000);
	if (!thread_sleeps(atomic_load(&fifo_tid)))
		tap_diag("   the reader did not show as sleeping");
	signal(SIGALRM, fifo_release);
	alarm(30);
	pid = fork();
	if (pid == 0)
		_exit(0);
	alarm(0);
	tap_ok(pid > 0 && !fifo_released && got == -2,
	       "fork() returns while another thread's readfile() waits in open(2) for a FIFO's writer");
	if (pid > 0)
		waitpid(pid, &status, 0);
	wfd = openat(dir, "fifo", O_WRONLY);
	if (wfd < 0 || write(wfd, "hi", 2) != 2)
		tap_bail("fifo writer: %s", strerror(errno));
	close(wfd);
	if (fifo_watchdog_fd >= 0)
		close(fifo_watchdog_fd);
	pthread_join(t, NULL);
	tap_is_long(got, 2, "that readfile() then reads what the writer wrote");
}

int main(void)
{
	dir = t_tmpdir_fd("readfile-fds");
	t_fill_pattern(content, sizeof(content), 3);
	if (t_write_file(dir, "file", content, sizeof(content), 0644) ||
	    mkdirat(dir, "sub", 0755) || symlinkat("file", dir, "link"))
		tap_bail("setup: %s", strerror(errno));
	test_leaks();
	test_threads();
	test_child();
	test_fork_race();
	test_fork_blocked();
	close(dir);
	return tap_done();
}
