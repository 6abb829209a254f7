// SPDX-License-Identifier: MIT
/*
 * backend_cost.c - the auto policy's choice from measured costs (cost.c),
 * with costs injected, never timed: it converges to the cheaper mechanism,
 * changes its mind when the costs change, explores the other within its
 * bound, is not swayed by one slow call, keeps what it learned in a child
 * of fork() without sharing what the child learns, and loses no count
 * when threads decide at once. Then through getvalues(): the choice
 * follows the injected costs per class of files (a machine with cheap
 * system calls, where procfs is cheaper on plain system calls, can only be
 * had that way on a machine with dear ones), and the library's own calls
 * are measured only under auto.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "cost.h"
#include "internal.h"
#include "lib/tap.h"

#define N	64		/* files per call in the injected cells */

/* Decide and report @calls calls of class @cls, each mechanism at its cost
 * per file; returns how many went to @count. */
static int run_calls(enum gv_cost_class cls, int calls, uint32_t sync_ns,
		     uint32_t uring_ns, enum gv_mech count)
{
	int got = 0;

	for (int i = 0; i < calls; i++) {
		enum gv_mech m = gv_cost_decide(cls, N, GV_MECH_SYNC);

		got += m == count;
		gv_cost_record(cls, N, m, (uint64_t)N *
			       (m == GV_MECH_URING ? uring_ns : sync_ns));
	}
	return got;
}

static void test_converge(void)
{
	int other, first;

	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_LEARN);
	/* the prior (sync) first, then both until each has two samples */
	first = run_calls(GV_COST_PROC, 4, 3000, 1000, GV_MECH_URING);
	tap_is_long(first, 2, "the first 4 calls try each mechanism twice");
	other = run_calls(GV_COST_PROC, 1000, 3000, 1000, GV_MECH_SYNC);
	tap_ok(other >= 1 && other <= 1000 / 16,
	       "uring 3x cheaper: it goes there, and tries sync in %d of "
	       "1000 calls (at least one, at most 1/16)", other);
	/* sync became cheaper: seen at its next exploration (1 in 200) */
	other = run_calls(GV_COST_PROC, 300, 1000, 1050, GV_MECH_URING);
	tap_ok(other <= 200 + 16, "sync became the cheaper: it changed its "
	       "mind by its next exploration (%d of 300 calls on uring)",
	       other);
	other = run_calls(GV_COST_PROC, 200, 1000, 1050, GV_MECH_URING);
	tap_ok(other >= 200 / 16 - 1 && other <= 200 / 16 + 1,
	       "within 5%% of each other: every 16th call tries the other "
	       "(%d of 200)", other);
	/* uring became 30 times dearer: learned in a few explorations */
	run_calls(GV_COST_PROC, 1000, 1000, 30000, GV_MECH_URING);
	other = run_calls(GV_COST_PROC, 2048, 1000, 30000, GV_MECH_URING);
	tap_ok(other >= 1 && other <= 2048 / 1024 + 1,
	       "30x dearer: it is tried once in 1024 calls (%d of 2048)",
	       other);
}

/* Once learned, a slow call moves an average little; slow calls move it. */
static void test_outliers(void)
{
	struct gv_cost_view v;
	enum gv_mech m;

	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_INJECTED);
	for (int i = 0; i < 10; i++) {
		gv_cost_record(GV_COST_SYS, N, GV_MECH_SYNC, N * 1000);
		gv_cost_record(GV_COST_SYS, N, GV_MECH_URING, N * 1300);
	}
	gv_cost_record(GV_COST_SYS, N, GV_MECH_SYNC, N * 100000);
	gv_cost_test_view(GV_COST_SYS, N, &v);
	m = gv_cost_decide(GV_COST_SYS, N, GV_MECH_URING);
	tap_ok(v.est[GV_MECH_SYNC] <= 1125 && m == GV_MECH_SYNC,
	       "one call 100x slower: the average %u (of 1000), still sync",
	       v.est[GV_MECH_SYNC]);
	for (int i = 0; i < 10; i++)
		gv_cost_record(GV_COST_SYS, N, GV_MECH_SYNC, N * 3000);
	m = gv_cost_decide(GV_COST_SYS, N, GV_MECH_SYNC);
	tap_ok(m == GV_MECH_URING, "ten calls 3x slower: uring");
	gv_cost_test_view(GV_COST_SYS, 1, &v);
	tap_ok(!v.samples[0] && !v.samples[1],
	       "calls of one file are learned apart from calls of 64");
	tap_ok(gv_cost_slow_file("stack") && gv_cost_slow_file("task/1/stack")
	       && !gv_cost_slow_file("stat") && !gv_cost_slow_file("stacks"),
	       "stack, and only stack, is learned apart");
}

static void test_priors(void)
{
	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_INJECTED);
	for (int i = 0; i < 4; i++)
		gv_cost_record(GV_COST_DISK, N, GV_MECH_URING, N * 5000);
	tap_ok(gv_cost_decide(GV_COST_DISK, N, GV_MECH_SYNC) == GV_MECH_SYNC,
	       "one mechanism measured, the other not: it is tried");
	gv_cost_test_mode(GV_COST_PRIORS);
	for (int i = 0; i < 4; i++)
		gv_cost_record(GV_COST_DISK, N, GV_MECH_SYNC, N * 9000);
	tap_ok(gv_cost_decide(GV_COST_DISK, N, GV_MECH_URING) ==
	       GV_MECH_URING && gv_cost_decide(GV_COST_DISK, N,
					       GV_MECH_SYNC) == GV_MECH_SYNC,
	       "GV_COST_PRIORS: the prior, whatever was measured");
}

/* A child of fork() starts from what its parent learned, and keeps its own. */
static void test_fork(void)
{
	struct gv_cost_view before, after;
	int status = -1;
	pid_t pid;

	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_LEARN);
	run_calls(GV_COST_OTHER, 100, 1000, 2000, GV_MECH_SYNC);
	gv_cost_test_view(GV_COST_OTHER, N, &before);
	pid = fork();
	if (pid == 0) {
		int ok = gv_cost_decide(GV_COST_OTHER, N, GV_MECH_URING) ==
			 GV_MECH_SYNC;

		/* sync becomes dear in the child: it goes to uring */
		run_calls(GV_COST_OTHER, 100, 9000, 2000, GV_MECH_SYNC);
		ok = ok && run_calls(GV_COST_OTHER, 16, 9000, 2000,
				     GV_MECH_URING) >= 15;
		_exit(ok ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		tap_bail("fork: %s", strerror(errno));
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
	       "a child of fork() starts from its parent's costs, and "
	       "learns on");
	gv_cost_test_view(GV_COST_OTHER, N, &after);
	tap_ok(!memcmp(&before, &after, sizeof(before)) &&
	       gv_cost_decide(GV_COST_OTHER, N, GV_MECH_URING) ==
	       GV_MECH_SYNC, "what the child learned stays in the child");
}

#define THREADS	4
#define THREAD_CALLS 20000

static void *thread_calls(void *arg)
{
	long uring = run_calls(GV_COST_MEMORY, THREAD_CALLS, 2000, 1000,
			       GV_MECH_URING);

	(void)arg;
	return (void *)uring;
}

static void test_threads(void)
{
	pthread_t t[THREADS];
	struct gv_cost_view v;
	long uring = 0;

	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_LEARN);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_calls, NULL))
			tap_bail("pthread_create: %s", strerror(errno));
	for (int i = 0; i < THREADS; i++) {
		void *r;

		if (pthread_join(t[i], &r))
			tap_bail("pthread_join");
		uring += (long)r;
	}
	gv_cost_test_view(GV_COST_MEMORY, N, &v);
	tap_is_long(v.calls, THREADS * THREAD_CALLS,
		    "%d threads deciding at once: every decision counted",
		    THREADS);
	tap_ok(v.est[GV_MECH_SYNC] == 2000 && v.est[GV_MECH_URING] == 1000,
	       "... the averages are what was reported (%u, %u), none torn",
	       v.est[GV_MECH_SYNC], v.est[GV_MECH_URING]);
	tap_ok(uring >= THREADS * THREAD_CALLS * 15 / 16 - THREADS * 4,
	       "... and they went to the cheaper mechanism (%ld of %d)",
	       uring, THREADS * THREAD_CALLS);
}

/*
 * Whether auto may batch procfs files here (io_uring usable, two CPUs);
 * if not, the @n checks that need it are skipped.
 */
static bool procfs_batches(int n)
{
	cpu_set_t set;

	if (!gv_backend_usable(GV_BACKEND_URING) &&
	    !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2)
		return true;
	tap_skip(n, "io_uring not usable here, or one CPU (auto keeps "
		 "procfs on sync)");
	return false;
}

/* One call of 64 procfs files of /proc/self named @names[i % 2]. */
static int procfs_call(const char *const names[2])
{
	static struct name_val vec[N];
	static char buf[N * 8192];

	for (int i = 0; i < N; i++)
		vec[i] = (struct name_val){ .name = names[i % 2] };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	if (getvalues(AT_FDCWD, "/proc/self", vec, N, 0) != N)
		return -1;
	return gv_backend_last();
}

/* Costs that stay: enough samples to move the averages all the way. */
static void inject(enum gv_cost_class cls, uint32_t sync_ns,
		   uint32_t uring_ns)
{
	for (int i = 0; i < 20; i++) {
		gv_cost_record(cls, N, GV_MECH_SYNC, (uint64_t)N * sync_ns);
		gv_cost_record(cls, N, GV_MECH_URING, (uint64_t)N * uring_ns);
	}
}

static void test_calls(void)
{
	static const char *const plain[2] = { "data:stat", "data:statm" };
	static const char *const stack[2] = { "data:stat", "data:stack" };

	if (!procfs_batches(5))
		return;
	/*
	 * Under auto whatever GETVALUES_BACKEND says (kcheck's guest forces
	 * native, which would take the whole call); main() keeps auto off
	 * the native calls, so the data: policy decides.
	 */
	gv_backend_force(GV_BACKEND_AUTO);
	gv_cost_test_reset();
	gv_cost_test_mode(GV_COST_INJECTED);
	procfs_call(plain);	/* a thread's first such call: sync */
	/* cheap system calls: plain ones cheaper on procfs, uring on stack */
	inject(GV_COST_PROC, 900, 1100);
	inject(GV_COST_PROC_SLOW, 3000, 1000);
	tap_ok(procfs_call(plain) == GV_BACKEND_SYNC,
	       "procfs, sync measured cheaper: sync");
	tap_ok(procfs_call(stack) == GV_BACKEND_URING,
	       "procfs with stack among the files, learned apart: uring");
	/* dear system calls */
	inject(GV_COST_PROC, 5000, 2000);
	inject(GV_COST_PROC_SLOW, 3000, 9000);
	tap_ok(procfs_call(plain) == GV_BACKEND_URING &&
	       procfs_call(stack) == GV_BACKEND_SYNC,
	       "the costs turned round: so did the choices");
	{
		struct gv_cost_view v;

		gv_cost_test_view(GV_COST_PROC, N, &v);
		tap_ok(v.samples[0] == 40 && v.samples[1] == 40,
		       "GV_COST_INJECTED: the library's calls are not "
		       "measured (%u, %u samples of 40 injected)",
		       v.samples[0], v.samples[1]);
	}

	/* the library's calls are measured under auto only, and in LEARN */
	gv_cost_test_reset();
	gv_backend_force(GV_BACKEND_SYNC);
	procfs_call(plain);
	gv_cost_test_mode(GV_COST_LEARN);
	procfs_call(plain);
	gv_backend_force(GV_BACKEND_AUTO);
	{
		struct gv_cost_view v;
		int calls = 0;

		gv_cost_test_view(GV_COST_PROC, N, &v);
		calls += v.samples[0] + v.samples[1];
		for (int i = 0; i < 4; i++)
			procfs_call(plain);
		gv_cost_test_view(GV_COST_PROC, N, &v);
		tap_ok(!calls && v.samples[0] + v.samples[1] == 4 &&
		       v.samples[0] == 2 && v.est[0] && v.est[1],
		       "auto measures its own calls (%u and %u samples), "
		       "a forced backend does not (%d)",
		       v.samples[0], v.samples[1], calls);
	}
}

/*
 * A new thread's calls of 64 procfs files under auto, with a system call
 * taken to cost @ns and nothing learned: how many went through io_uring,
 * and whether the thread made a ring.
 */
struct prior_run {
	uint32_t ns;
	int uring;
	bool ring;
};

static void *prior_thread(void *arg)
{
	static const char *const plain[2] = { "data:stat", "data:statm" };
	struct prior_run *r = arg;

	gv_cost_test_reset();
	gv_cost_test_syscall(r->ns);
	for (int i = 0; i < 20; i++)
		r->uring += procfs_call(plain) == GV_BACKEND_URING;
	r->ring = gv_backend_uring.warm();
	return NULL;
}

static void run_prior(struct prior_run *r)
{
	pthread_t t;

	if (pthread_create(&t, NULL, prior_thread, r) ||
	    pthread_join(t, NULL))
		tap_bail("pthread: %s", strerror(errno));
}

/* The prior for procfs follows what a system call costs. */
static void test_syscall_prior(void)
{
	struct prior_run cheap = { .ns = 120 }, dear = { .ns = 1000 };
	uint32_t a, b;

	gv_cost_test_mode(GV_COST_LEARN);
	gv_cost_test_syscall(0);
	a = gv_cost_syscall();
	b = gv_cost_syscall();
	tap_ok(a > 0 && a < 1000000 && a == b,
	       "a system call's cost is measured once (%u ns)", a);
	if (!procfs_batches(2))
		return;
	gv_backend_force(GV_BACKEND_AUTO);
	run_prior(&cheap);
	tap_ok(!cheap.uring && !cheap.ring,
	       "system calls at 120 ns: a thread's 20 calls of 64 procfs "
	       "files stay on plain calls and make no ring (%d on uring)",
	       cheap.uring);
	run_prior(&dear);
	tap_ok(dear.uring >= 2 && dear.ring,
	       "at 1 us: the thread makes a ring and tries io_uring, then "
	       "goes by what it measures (%d of 20 on uring)", dear.uring);
	gv_cost_test_syscall(0);
}

int main(void)
{
	gv_backend_auto_native(false);
	test_converge();
	test_outliers();
	test_priors();
	test_fork();
	test_threads();
	test_calls();
	test_syscall_prior();
	gv_cost_test_mode(GV_COST_LEARN);
	return tap_done();
}
