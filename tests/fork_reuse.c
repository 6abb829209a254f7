// SPDX-License-Identifier: MIT
/*
 * fork_reuse.c - the child of a fork() closes none of the caller's
 * descriptors, only the library's. A thread makes getvalues() calls that
 * open and close a few descriptors each, in a loop; the main thread makes
 * a pipe, forks, and closes its write end, which the child writes a byte
 * to. The library's next call takes the number the parent just closed,
 * and closes it again, all before the child's fork handler reads the
 * library's table: the handler used to take that close for one of a
 * descriptor the child inherited, and closed the child's write end of
 * the pipe (the parent read end of file, the child's write EBADF).
 *
 * A child is slow to run its handler only now and then (4 to 10 forks in
 * 200 under Python); here a child handler registered before the
 * library's waits until the parent has closed its write end and the
 * thread has made two calls more, so that every fork is such a child.
 * The library's descriptors that still reach the child (O_CLOEXEC, the
 * window getvalues(3) documents) are counted and said, not checked.
 *
 * Found by the adversarial review of the Python module (forkclose.py).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FORKS		1000	/* at most, */
#define RUN_MS		3000	/* and for at most this long */
#define WAIT_MS		200		/* a child waits at most this */
#define NAMES		8	/* the loop's call: this many files */
#define MAX_FDS		256

/* Shared with the children, which watch the parent go on. */
struct shared {
	atomic_ulong calls;	/* the loop's calls made */
	atomic_uint closed;	/* the last fork whose write end is closed */
	atomic_bool armed;	/* a child waits */
	atomic_bool stop;
};

static struct shared *sh;
static unsigned int this_fork;	/* the child's copy: its fork */

/*
 * Before the library's child handler: wait until the parent has closed its
 * write end and the loop has made two calls since, as a child that the
 * scheduler runs late would find it.
 */
static void slow_child(void)
{
	long long until = t_now_ms() + WAIT_MS;
	unsigned long c;

	if (!sh || !atomic_load(&sh->armed))
		return;
	while (atomic_load(&sh->closed) != this_fork && t_now_ms() < until)
		sched_yield();
	c = atomic_load(&sh->calls);
	while (atomic_load(&sh->calls) < c + 2 && t_now_ms() < until)
		sched_yield();
}

/*
 * Registered before main(), so before the library's handlers (constructor
 * priority 101 runs before the library's default one): child handlers run
 * in the order they were registered.
 */
__attribute__((constructor(101))) static void register_slow_child(void)
{
	pthread_atfork(NULL, NULL, slow_child);
}

static void *loop_main(void *arg)
{
	static const char *const names[NAMES] = {
		"data:stat", "data:statm", "data:status", "data:comm",
		"data:cmdline", "data:limits", "data:wchan", "data:oom_score",
	};
	static char buf[NAMES][4096];
	struct name_val v[NAMES];

	(void)arg;
	while (!atomic_load(&sh->stop)) {
		for (int i = 0; i < NAMES; i++)
			v[i] = (struct name_val){ .name = names[i],
				.value_in = { buf[i], sizeof(buf[i]) } };
		getvalues(AT_FDCWD, "/proc/self", v, NAMES, 0);
		atomic_fetch_add(&sh->calls, 1);
	}
	return NULL;
}

static bool in(const int *fds, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/*
 * The child: writes how many descriptors it holds that the parent did not
 * (@base) and are not the pipe's, as one byte.
 */
static __attribute__((noreturn)) void child(const int *base, int nbase,
					    const int p[2])
{
	int fds[MAX_FDS], n = t_list_fds(fds, MAX_FDS);
	unsigned char extra = 0;

	for (int i = 0; i < n; i++)
		if (!in(base, nbase, fds[i]) && fds[i] != p[0] &&
		    fds[i] != p[1] && extra < 255)
			extra++;
	_exit(write(p[1], &extra, 1) == 1 ? 0 : 1);
}

/* One fork: whether the child's byte came; *@extra, what it said. */
static bool one_fork(const int *base, int nbase, int *extra)
{
	unsigned char b = 0;
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		tap_bail("pipe2: %s", strerror(errno));
	this_fork++;
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0)
		child(base, nbase, p);
	close(p[1]);
	atomic_store(&sh->closed, this_fork);
	do
		n = read(p[0], &b, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	waitpid(pid, &st, 0);
	*extra = b;
	return n == 1;
}

static void reuse_case(void *arg)
{
	int base[MAX_FDS], nbase, extra, lost = 0, leaky = 0, leaked = 0;
	long long until = t_now_ms() + RUN_MS;
	unsigned int forks = 0;
	pthread_t t;

	(void)arg;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	gv_backend_force(GV_BACKEND_SYNC);
	nbase = t_list_fds(base, MAX_FDS);
	if (pthread_create(&t, NULL, loop_main, NULL))
		tap_bail("pthread_create: %s", strerror(errno));
	while (atomic_load(&sh->calls) < 10)
		sched_yield();
	atomic_store(&sh->armed, true);
	for (; forks < FORKS && t_now_ms() < until; forks++) {
		if (!one_fork(base, nbase, &extra))
			lost++;
		leaky += extra > 0;
		leaked += extra;
	}
	atomic_store(&sh->armed, false);
	atomic_store(&sh->stop, true);
	pthread_join(t, NULL);
	tap_ok(forks >= 100, "%u forks while a thread calls getvalues()",
	       forks);
	tap_is_long(lost, 0, "no child lost its write end of the pipe to the "
		    "library's fork handler (%u forks)", forks);
	tap_diag("the library's descriptors in the children (O_CLOEXEC): "
		 "%d in %d of %u", leaked, leaky, forks);
}

int main(void)
{
	t_sub("fork, a number the library took again", 60, reuse_case, NULL);
	return tap_done();
}
