// SPDX-License-Identifier: MIT
/*
 * proctable_share.c - a round of the process table shared out between
 * threads, one per CPU the process may run on (up to PT_SHARE_THREADS),
 * the calling thread one of them.
 *
 * Nearly all of a listing's time is round 1: the kernel formatting stat,
 * statm, cmdline and the like of every process, one small file after the
 * other (proctable_fetch.c). The processes stand on their own and
 * getvalues() is thread-safe, so ranges of them go to whichever thread is
 * free: the wall time of a listing of 2,000 processes falls by a third
 * on two CPUs, for some 12% more CPU time (each vCPU runs slower while
 * the other works); process_table(threads=1) keeps it on one. The values
 * are the same: each process is read by one thread, its files in the same
 * order.
 *
 * The threads are made for the round and joined at its end (some 50 us
 * each, against milliseconds of work), with every signal blocked: the
 * module runs without the GIL here, and Python's signal handlers stay
 * with its main thread. Where a thread cannot be made, the others (at
 * least the caller) do its share; where the descriptor table has not 16
 * free for each, the caller does it all.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "proctable.h"

#define PT_SHARE_PARTS		4	/* ranges per thread, about */
#define PT_SHARE_MIN		32	/* processes of a range, at least */
/*
 * processes from which a round is shared out: below, making and joining
 * the threads costs more CPU time (some 0.5 ms a listing of 68 processes,
 * 1.3 ms on one thread) than the wall time they save
 */
#define PT_SHARE_FROM		256
#define PT_SHARE_FDS		16	/* descriptors free a thread, to share */

struct share {
	pthread_mutex_t lock;
	size_t n, step, next;
	int err;
	int (*fn)(void *arg, size_t lo, size_t hi);
	void *arg;
};

/* The next range [*lo, *hi) of @s, or false when none is left. */
static bool take(struct share *s, size_t *lo, size_t *hi)
{
	bool got;

	pthread_mutex_lock(&s->lock);
	got = !s->err && s->next < s->n;
	if (got) {
		*lo = s->next;
		*hi = s->n - *lo > s->step ? *lo + s->step : s->n;
		s->next = *hi;
	}
	pthread_mutex_unlock(&s->lock);
	return got;
}

static void *work(void *arg)
{
	struct share *s = arg;
	size_t lo, hi;

	while (take(s, &lo, &hi)) {
		int err = s->fn(s->arg, lo, hi);

		if (err) {
			pthread_mutex_lock(&s->lock);
			if (!s->err)
				s->err = err;
			pthread_mutex_unlock(&s->lock);
		}
	}
	return NULL;
}

/*
 * Whether @want descriptors are free now: each thread's getvalues() opens
 * a few at once, and where the table is nearly full one thread must do
 * the work alone, as it could (tests/test_proctable.py, with 4 free).
 */
static bool fds_free(int want)
{
	int fds[PT_SHARE_THREADS * PT_SHARE_FDS], n = 0;

	if (want > PT_SHARE_THREADS * PT_SHARE_FDS)
		want = PT_SHARE_THREADS * PT_SHARE_FDS;
	fds[0] = open("/", O_PATH | O_CLOEXEC);
	if (fds[0] >= 0)
		for (n = 1; n < want; n++)
			if ((fds[n] = fcntl(fds[0], F_DUPFD_CLOEXEC, 0)) < 0)
				break;
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n >= want;
}

int pt_share_threads(int max)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	if (!max || max > PT_SHARE_THREADS)
		max = PT_SHARE_THREADS;
	n = CPU_COUNT(&set);
	n = n < 1 ? 1 : n > max ? max : n;
	return n > 1 && fds_free(n * PT_SHARE_FDS) ? n : 1;
}

int pt_share(size_t n, size_t max_step, int threads,
	     int (*fn)(void *arg, size_t lo, size_t hi), void *arg)
{
	struct share s = { .n = n, .fn = fn, .arg = arg };
	pthread_t tid[PT_SHARE_THREADS];
	sigset_t all, old;
	int made = 0;

	if (threads > PT_SHARE_THREADS)
		threads = PT_SHARE_THREADS;
	if (threads < 1)
		threads = 1;
	s.step = (n + threads * PT_SHARE_PARTS - 1) /
		 ((size_t)threads * PT_SHARE_PARTS);
	if (s.step < PT_SHARE_MIN)
		s.step = PT_SHARE_MIN;
	if (max_step && s.step > max_step)
		s.step = max_step;
	if (n <= s.step || n < PT_SHARE_FROM)
		threads = 1;
	pthread_mutex_init(&s.lock, NULL);
	if (threads > 1) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (; made < threads - 1; made++)
			if (pthread_create(&tid[made], NULL, work, &s))
				break;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	work(&s);
	for (int i = 0; i < made; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&s.lock);
	return s.err;
}
