// SPDX-License-Identifier: MIT
/*
 * cost.c - the auto policy's table of measured costs, and its choice.
 *
 * Which of plain system calls and io_uring fetches a call's files faster
 * depends on the machine: what a system call costs there (some 100 ns
 * without page-table isolation, a microsecond or more with it, or behind a
 * long seccomp filter or audit rules), whether io_uring's workers find a
 * CPU free, and the files themselves. So auto measures: every call it
 * decides is timed with the monotonic clock (vDSO, no system call) from
 * its first data: file to the end of the call, and the time per file goes
 * into a decayed average per mechanism, per class of files (cost.h) and
 * per size of call (1, 2-7, 8-31, 32-127, 128 files and more).
 *
 * The choice, per class and size (a cell):
 *   - until each mechanism has GV_COST_MIN samples, the one with fewer
 *     (the prior first: the constants auto used before it measured);
 *   - then the cheaper, and every Pth call the other, to see whether it
 *     became cheaper: P is 100 times the relative difference, between 16
 *     and 1024, so that exploring costs about 1% of the time of the calls
 *     at most (1/16 of them while the two are within 6%); 25 times, 4%,
 *     while the other has fewer than GV_COST_YOUNG samples, so that a
 *     first sample that was unlucky (a preempted call) is soon put right.
 * The first GV_COST_MIN samples of a mechanism give the least of them; each
 * later one is weighed 1/4 into the average of the mechanism found
 * cheaper, 1/2 into the other's, or taken as it is where it is less (the
 * other's samples are rare, and the news they bring is what makes auto
 * change its mind). A sample above the average
 * counts as at most 1.5 times it: a call preempted for a time slice, or
 * slowed by another program, moves it by an eighth at most (a quarter for
 * the dearer), and only calls that stay dear make auto change its mind.
 *
 * The table is shared by the threads of a process: each value is one
 * aligned 32-bit word, read and written with relaxed atomics; two threads
 * updating the same cell at once may lose one sample, never make a torn
 * one. A child of fork() keeps the table: the machine is the same.
 *
 * Before it has measured a cell, auto goes by its prior, and the prior
 * for procfs depends on what a system call costs (data_policy.c), which
 * is measured here once per process with a few getppid() calls: the only
 * system calls this file makes.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"

#define GV_COST_BUCKETS	5
#define GV_COST_MIN	2	/* samples of each before the averages count */
#define GV_COST_SAT	255	/* samples are counted up to this */
#define GV_COST_YOUNG	8	/* fewer samples: explored 4 times as often */

struct gv_cost_cell {
	uint32_t est[GV_MECH_COUNT];
	uint32_t samples[GV_MECH_COUNT];
	uint32_t calls;
};

static struct gv_cost_cell gv_cost_table[GV_COST_CLASSES][GV_COST_BUCKETS];
static int gv_cost_mode;
static uint32_t gv_cost_syscall_ns;	/* measured once; 0: not yet */
static uint32_t gv_cost_syscall_injected;

uint64_t gv_cost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static struct gv_cost_cell *gv_cost_cell(enum gv_cost_class cls, size_t n)
{
	int b = n < 2 ? 0 : n < 8 ? 1 : n < 32 ? 2 : n < 128 ? 3 : 4;

	if ((unsigned int)cls >= GV_COST_CLASSES)
		return NULL;
	return &gv_cost_table[cls][b];
}

static uint32_t gv_load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void gv_store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * Calls between two explorations of the dearer mechanism, which has
 * @samples samples.
 */
static uint32_t gv_cost_period(uint32_t best, uint32_t worse,
			       uint32_t samples)
{
	uint64_t p;

	if (!best)
		return 16;
	p = (samples < GV_COST_YOUNG ? 25 : 100) * (uint64_t)(worse - best) /
	    best;
	return p < 16 ? 16 : p > 1024 ? 1024 : p;
}

/* The choice in a cell seen as @v, at its @call-th decision. */
static enum gv_mech gv_cost_choose(const struct gv_cost_view *v,
				   uint32_t call, enum gv_mech prior)
{
	enum gv_mech other = !prior, best;

	if (v->samples[prior] < GV_COST_MIN ||
	    v->samples[other] < GV_COST_MIN)
		return v->samples[other] < v->samples[prior] ? other : prior;
	best = v->est[GV_MECH_URING] < v->est[GV_MECH_SYNC] ?
		GV_MECH_URING : GV_MECH_SYNC;
	if (call % gv_cost_period(v->est[best], v->est[!best],
				  v->samples[!best]))
		return best;
	return !best;
}

static void gv_cost_read(const struct gv_cost_cell *c, struct gv_cost_view *v)
{
	for (int m = 0; m < GV_MECH_COUNT; m++) {
		v->est[m] = gv_load(&c->est[m]);
		v->samples[m] = gv_load(&c->samples[m]);
	}
	v->calls = gv_load(&c->calls);
}

enum gv_mech gv_cost_decide(enum gv_cost_class cls, size_t n,
			    enum gv_mech prior)
{
	int mode = __atomic_load_n(&gv_cost_mode, __ATOMIC_RELAXED);
	struct gv_cost_cell *c = gv_cost_cell(cls, n);
	struct gv_cost_view v;
	uint32_t call = 1;

	if (mode == GV_COST_PRIORS || !c)
		return prior;
	if (mode == GV_COST_LEARN)
		call = __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
	gv_cost_read(c, &v);
	return gv_cost_choose(&v, call, prior);
}

int gv_cost_learning(void)
{
	return __atomic_load_n(&gv_cost_mode, __ATOMIC_RELAXED) ==
	       GV_COST_LEARN;
}

/*
 * The average of @old (of @s samples) with @v: see above. A sample above
 * it moves it by at most half of it, times the weight.
 */
static uint32_t gv_cost_update(uint32_t old, uint32_t s, uint64_t v,
			       bool dearer)
{
	int64_t d;

	if (!s)
		return v;
	if (s < GV_COST_MIN)	/* the first few: the least */
		return v < old ? v : old;
	d = (int64_t)v - old;
	if (d > old / 2)
		d = old / 2;
	if (dearer && d < 0)	/* explored, and found cheaper */
		return v;
	return old + (dearer ? d / 2 : d / 4);
}

void gv_cost_record(enum gv_cost_class cls, size_t n, enum gv_mech m,
		    uint64_t ns)
{
	struct gv_cost_cell *c = gv_cost_cell(cls, n);
	uint32_t old, s, other;
	uint64_t v;
	bool dearer;

	if (!c || !n || (unsigned int)m >= GV_MECH_COUNT)
		return;
	v = ns / n;
	if (v > UINT32_MAX / 2)
		v = UINT32_MAX / 2;
	old = gv_load(&c->est[m]);
	s = gv_load(&c->samples[m]);
	other = gv_load(&c->est[!m]);
	dearer = old > other && gv_load(&c->samples[!m]);
	gv_store(&c->est[m], gv_cost_update(old, s, v, dearer));
	if (s < GV_COST_SAT)
		gv_store(&c->samples[m], s + 1);
}

/*
 * One system call's cost: the least of three timings of eight getppid()
 * calls, taken once per process at the first decision that asks (a few
 * microseconds in all where a call costs 100 ns, 25 where it costs 1 us).
 * A seccomp(2) filter in force counts, as it does for every call the
 * library makes. Threads may measure at once: each stores a whole value.
 * A child of fork() keeps it: the machine is the same.
 */
static uint32_t gv_cost_syscall_measure(void)
{
	uint64_t best = UINT32_MAX;

	for (int round = 0; round < 3; round++) {
		uint64_t t0 = gv_cost_now(), t;

		for (int i = 0; i < 8; i++)
			syscall(SYS_getppid);
		t = (gv_cost_now() - t0) / 8;
		if (t < best)
			best = t;
	}
	return best ? best : 1;
}

uint32_t gv_cost_syscall(void)
{
	uint32_t v = gv_load(&gv_cost_syscall_injected);

	if (v)
		return v;
	if (__atomic_load_n(&gv_cost_mode, __ATOMIC_RELAXED) != GV_COST_LEARN)
		return GV_COST_SYSCALL_PRIOR;
	v = gv_load(&gv_cost_syscall_ns);
	if (!v) {
		v = gv_cost_syscall_measure();
		gv_store(&gv_cost_syscall_ns, v);
	}
	return v;
}

/*
 * Procfs files that io_uring's workers read far slower, or faster, than
 * the rest (a process's kernel stack: 0.6x of plain calls where stat is
 * 1.6x): a call with one among its files is learned apart.
 */
int gv_cost_slow_file(const char *sub)
{
	const char *base = strrchr(sub, '/');

	base = base ? base + 1 : sub;
	return !strcmp(base, "stack");
}

void gv_cost_test_mode(enum gv_cost_mode mode)
{
	__atomic_store_n(&gv_cost_mode, mode, __ATOMIC_RELAXED);
}

void gv_cost_test_syscall(uint32_t ns)
{
	gv_store(&gv_cost_syscall_injected, ns);
}

void gv_cost_test_reset(void)
{
	struct gv_cost_cell *c = &gv_cost_table[0][0];

	for (size_t i = 0; i < GV_COST_CLASSES * GV_COST_BUCKETS; i++) {
		for (int m = 0; m < GV_MECH_COUNT; m++) {
			gv_store(&c[i].est[m], 0);
			gv_store(&c[i].samples[m], 0);
		}
		gv_store(&c[i].calls, 0);
	}
}

void gv_cost_test_view(enum gv_cost_class cls, size_t n,
		       struct gv_cost_view *v)
{
	const struct gv_cost_cell *c = gv_cost_cell(cls, n);

	memset(v, 0, sizeof(*v));
	if (c)
		gv_cost_read(c, v);
}
