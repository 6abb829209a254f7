// SPDX-License-Identifier: GPL-2.0
/*
 * gvsigprog.c - getvalues(2) makes progress however often signals come.
 *
 * A call's setup (the read-only pass over its vector, $ORIGIN's lookup)
 * can take longer than the time between two signals (an interval timer,
 * io_uring's task work, another thread): 1024 entries of a page each make
 * the pass read 4 MiB.  A kernel that takes a pending signal before the
 * first entry, or during that pass, restarts the call (or fails it with
 * EINTR) having done nothing, and the next try meets the next signal:
 * with SA_RESTART the call never returns, without it the caller never
 * gets an entry done.  Each call must handle at least one entry.  Here
 * another thread sends the caller signals back to back (the guest's
 * timers are too coarse to come that often); the calls run in a child
 * that the parent kills after WATCHDOG seconds, and a child that did not
 * finish is the failure.
 *
 * The same with dir: of an empty directory as every entry: its listing
 * brings "." and ".." and no name, as a FUSE server that lists "." for
 * ever does at first, but it ends; a signal must not interrupt it. Only
 * a signal pending when a call starts may end it with no entry done (the
 * call is restarted or fails with EINTR before any work), so at most a
 * quarter of the calls may end so; a kernel that interrupted the empty
 * listing ended 32 of 38 and 5 of 11 calls without an entry here (10 of
 * 10 in a reviewer's run).
 *
 * So that no signal of the thread's is pending when a call starts, the
 * thread sends only while the caller's generation count is odd, and from
 * DELAY after it saw it become so: the caller makes it even after each
 * call, waits until the thread has seen that (its last signal is sent
 * then), takes what is pending with one more system call, and makes it
 * odd just before the next.  The vector's check takes far longer than
 * DELAY here, so the signals still come before the first entry.  Sent
 * all the time, they were also pending at the start of a call: how many
 * depended on how the host scheduled the guest's CPUs, up to 363 of 1311
 * calls in one CI run on a sound kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"

#define NUM		1024
#define ESIZE		4096		/* the largest entry the call takes */
#define WATCHDOG	120
#define MAX_CALLS	(4 * NUM)
#define DELAY		50000		/* ns from a call's start to a signal */

static const char *origin = "/", *entry = "stat:ino";
static volatile sig_atomic_t ticks;
static atomic_bool stop;
static atomic_uint gen, seen;	/* odd: signals wanted; seen by spam() */
static pid_t caller;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* signals back to back while gen is odd, from DELAY after it became so */
static void *spam(void *arg)
{
	unsigned int last = 0, g;
	long long since = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		g = atomic_load(&gen);
		atomic_store(&seen, g);
		if (g != last) {
			last = g;
			since = now_ns();
		}
		if ((g & 1) && now_ns() - since >= DELAY)
			syscall(SYS_tgkill, getpid(), caller, SIGALRM);
	}
	return NULL;
}

/* the thread's signals stopped, and none of them pending */
static void quiet(void)
{
	unsigned int g = atomic_fetch_add(&gen, 1) + 1;

	while (atomic_load(&seen) != g)
		sched_yield();
	getppid();	/* a system call's return takes what is pending */
}

static void tick(int sig)
{
	(void)sig;
	ticks++;
}

/*
 * The whole vector, continued where each call stopped: 0 when all done.
 * With @primer, each call starts with an entry without a buffer (a
 * library's primer, which carries a shorthand prefix): it must not count
 * as the call's progress.
 */
static int run(int restart, int primer)
{
	struct sigaction sa = { .sa_handler = tick,
				.sa_flags = restart ? SA_RESTART : 0 };
	static char bufs[NUM][32];
	pthread_t t;
	char *vec = calloc(NUM + 1, ESIZE);
	size_t done = 0;
	int calls = 0, empty = 0;
	long r;

	caller = gettid();
	if (!vec || sigaction(SIGALRM, &sa, NULL) ||
	    pthread_create(&t, NULL, spam, NULL))
		return 3;
	atomic_store(&gen, 1);
	while (!ticks)		/* the signals come before the first call */
		sched_yield();
	for (size_t i = 0; i < NUM; i++)
		*(struct gv_entry *)(vec + (i + 1) * ESIZE) = (struct gv_entry){
			.name = PTR(entry),
			.value_in = { PTR(bufs[i]), sizeof(bufs[i]) },
		};
	while (done < NUM && calls++ < MAX_CALLS) {
		char *first = vec + (done + !primer) * ESIZE;

		if (primer)	/* entry @done - 1 is done: the primer's slot */
			*(struct gv_entry *)first = (struct gv_entry){
				.name = PTR("stat:"),
			};
		if (calls > 1) {
			quiet();
			atomic_fetch_add(&gen, 1);
		}
		/* at most NUM entries a call, the primer included */
		r = syscall(NR_GETVALUES, AT_FDCWD, origin, first,
			    (unsigned long)(NUM - done < NUM - !!primer ?
					    NUM - done + !!primer : NUM),
			    (unsigned long)ESIZE, 0);
		if (r < 0 && errno != EINTR)
			return 4;
		r -= r > 0 && primer;
		if (r <= 0)
			empty++;
		else
			done += (size_t)r;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	printf("# %s, %s%s: %d calls, %d without an entry, %d signals\n",
	       entry, restart ? "SA_RESTART" : "no SA_RESTART",
	       primer ? ", a primer first" : "", calls, empty,
	       (int)ticks);
	fflush(stdout);
	if (done < NUM)
		return 2;
	/* a call that got past its start makes progress: few do not */
	return empty * 4 > calls ? 6 : 0;
}

/* run() in a child under the watchdog: the child's status */
static int watched(int restart, int primer)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(run(restart, primer));
	for (int s = 0; s < WATCHDOG * 10; s++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 1;
}

int main(void)
{
	static const char *const why[] = {
		"done", "never returned (watchdog)", "no progress",
		"setup failed", "an error", "killed",
		"a quarter of the calls or more without an entry",
	};
	char empty[] = "/tmp/gvsigprog.XXXXXX";
	int st;

	if (syscall(NR_GETVALUES, AT_FDCWD, "/", NULL, 0UL,
		    sizeof(struct gv_entry), 0) < 0 && errno == ENOSYS) {
		printf("1..0 # SKIP the kernel has no getvalues(2)\n");
		return 0;
	}
	printf("1..5\n");
	st = watched(1, 0);
	printf("%sok 1 - %d entries of %d bytes, signals back to back, SA_RESTART: %s\n",
	       st ? "not " : "", NUM, ESIZE, why[st]);
	fflush(stdout);
	st = watched(0, 0);
	printf("%sok 2 - the same, the handler without SA_RESTART: %s\n",
	       st ? "not " : "", why[st]);
	fflush(stdout);
	st = watched(1, 1);
	printf("%sok 3 - the same, SA_RESTART, each call after a bufferless primer: %s\n",
	       st ? "not " : "", why[st]);
	fflush(stdout);
	origin = mkdtemp(empty);
	entry = "dir:";
	st = origin ? watched(0, 0) : 3;
	printf("%sok 4 - dir: of an empty directory, no SA_RESTART: %s\n",
	       st ? "not " : "", why[st]);
	fflush(stdout);
	st = origin ? watched(1, 0) : 3;
	printf("%sok 5 - dir: of an empty directory, SA_RESTART: %s\n",
	       st ? "not " : "", why[st]);
	if (origin)
		rmdir(origin);
	return 0;
}
