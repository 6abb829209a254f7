// SPDX-License-Identifier: MIT
/*
 * batch.c - N small files read through one getvalues() call, on each
 * backend, against N open/read/close, on /proc, /sys, tmpfs and ext4,
 * cached and (as root) cold.
 *
 *   batch [-r REPEATS] [-R COLD_REPEATS] [-b shared|own] [-d DIR] [-C|-c]
 *         [-n N,N,...] [-P]
 *
 * Cached: for N = 1, 16, 64, 256 files (or those of -n), each repeat
 * times enough calls to read about 2048 files with each method, the
 * methods interleaved (in an order that rotates from repeat to repeat) so
 * that drift hits all alike. Cold: ext4 files of 4 KiB, N = 64 and 1000,
 * the page cache dropped (echo 3 > /proc/sys/vm/drop_caches) before every
 * single measurement.
 *
 * The baseline (orc) is what a careful program writes: open(2) of the
 * path, read(2) until it returns 0, close(2). Tables give medians per call
 * in microseconds, of wall time and of the process's CPU time (io_uring's
 * worker threads included), and ratios against the baseline: above 1, the
 * method is faster. "auto chose" gives the share of auto's calls that went
 * through io_uring (it measures and explores: cost.c), "auto / best" the
 * better of sync and uring divided by auto. A second table holds a mixed
 * set of 64 procfs files of one process (what a ps-like listing reads),
 * 64 kernel stacks, and procfs with one CPU kept busy by another process.
 * Last, what auto's bookkeeping costs per call. "floor"
 * is the strict path of tmpfs and ext4 written out by hand with plain
 * system calls (each file pinned with openat2(O_PATH), checked with
 * statx(2), reopened through /proc/thread-self/fd, the reopened file
 * checked with fstat(2), read, both closed): the most the library can
 * reach there without the native call. The last table counts the system
 * calls of one call of each method (ptrace(2), once the method is warm).
 * One getvalues() buffer is shared by all entries (-b own: each its own).
 * -P: auto decides by its priors alone, the constants it used before it
 * measured (gv_cost_test_mode(GV_COST_PRIORS)), for a before and after.
 *
 * The backends are switched in-process through the library's internal
 * gv_backend_force() (the static library is linked), which does what
 * GETVALUES_BACKEND does at start-up.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <getvalues.h>

#include "../src/cost.h"
#include "../src/internal.h"
#include "bench.h"

#define MAX_REPEATS	101
#define MAX_FILES	1000
#define SLOT		8192		/* buffer room per value */
#define FILE_SIZE	4096		/* of the tmpfs and ext4 files */
#define FILES_PER_REPEAT 2048

enum method { M_ORC, M_FLOOR, M_SYNC, M_URING, M_AUTO, M_COUNT };

static const char *const method_name[M_COUNT] = {
	"open/read/close", "floor", "sync", "uring", "auto",
};

static const enum gv_backend_id backend_of[M_COUNT] = {
	[M_SYNC] = GV_BACKEND_SYNC,
	[M_URING] = GV_BACKEND_URING,
	[M_AUTO] = GV_BACKEND_AUTO,
};

struct fileset {
	const char *label;
	char origin[PATH_MAX];
	char *names[MAX_FILES];	/* relative to origin; cycled up to N */
	int count;
	bool strict;		/* the library takes the strict path here */
};

static bool own_buffers;
static char *buf;
static struct name_val vec[MAX_FILES];
static char *gv_names[MAX_FILES];
static char *paths[MAX_FILES];

static void die(const char *what)
{
	fprintf(stderr, "batch: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void add_name(struct fileset *s, const char *name)
{
	if (s->count < MAX_FILES)
		s->names[s->count++] = strdup(name);
}

/* A file that reads without error, and fits a slot. */
static bool readable(const char *path)
{
	char tmp[SLOT];
	ssize_t n = readfile(AT_FDCWD, path, tmp, sizeof(tmp), 0);

	return n >= 0 && n < SLOT;
}

static void proc_set(struct fileset *s)
{
	static const char *const files[] = {
		"stat", "statm", "status", "comm", "cmdline", "limits", "io",
		"oom_score", "oom_adj", "oom_score_adj", "loginuid",
		"sessionid", "timerslack_ns", "wchan", "cgroup", "schedstat",
		"sched", "cpuset", "environ", "personality", "syscall",
	};
	char path[PATH_MAX];

	s->label = "/proc/self";
	strcpy(s->origin, "/proc/self");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->origin, files[i]);
		if (readable(path))
			add_name(s, files[i]);
	}
}

/*
 * The files a ps-like listing reads of one process, four times each (64
 * files), and 64 times its kernel stack (root only), whose read io_uring's
 * workers make dear.
 */
static void mixed_set(struct fileset *s, bool stack_only)
{
	static const char *const files[] = {
		"stat", "status", "statm", "comm", "cmdline", "environ",
		"limits", "io", "cgroup", "oom_score", "oom_adj", "wchan",
		"sessionid", "loginuid", "personality", "stack",
	};
	char path[PATH_MAX];

	s->label = stack_only ? "/proc/self, stack" : "/proc/self, mixed";
	strcpy(s->origin, "/proc/self");
	for (size_t i = stack_only ? 15 : 0; i < GV_ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->origin, files[i]);
		if (readable(path))
			add_name(s, files[i]);
	}
}

static void sys_walk(struct fileset *s, const char *rel, int depth)
{
	char path[3 * PATH_MAX], sub[2 * PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dir;

	snprintf(path, sizeof(path), "%s%s%s", s->origin, *rel ? "/" : "", rel);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && s->count < 256) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			 d->d_name);
		snprintf(path, sizeof(path), "%s/%s", s->origin, sub);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			sys_walk(s, sub, depth - 1);
		else if (S_ISREG(st.st_mode) && (st.st_mode & 0444) &&
			 readable(path))
			add_name(s, sub);
	}
	closedir(dir);
}

static void sys_set(struct fileset *s)
{
	s->label = "/sys/devices/system/cpu";
	strcpy(s->origin, "/sys/devices/system/cpu");
	sys_walk(s, "", 2);
}

/* @count files of FILE_SIZE bytes in a new directory @dir. */
static void file_set(struct fileset *s, const char *label, const char *dir,
		     int count)
{
	char data[FILE_SIZE], name[32], path[2 * PATH_MAX];

	s->label = label;
	s->strict = true;
	snprintf(s->origin, sizeof(s->origin), "%s", dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	memset(data, 'x', sizeof(data));
	for (int i = 0; i < count; i++) {
		int fd;

		snprintf(name, sizeof(name), "f%04d", i);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data))
			die(path);
		close(fd);
		add_name(s, name);
	}
	sync();
}

/* The vector and the paths for N files of @s. */
static void prepare(const struct fileset *s, int n)
{
	for (int i = 0; i < n; i++) {
		const char *name = s->names[i % s->count];

		free(gv_names[i]);
		free(paths[i]);
		if (asprintf(&gv_names[i], "data:%s", name) < 0 ||
		    asprintf(&paths[i], "%s/%s", s->origin, name) < 0)
			die("asprintf");
		vec[i] = (struct name_val){ .name = gv_names[i] };
		if (own_buffers || i == 0)
			vec[i].value_in = (struct iovec){
				buf + (size_t)i * SLOT,
				own_buffers ? SLOT : (size_t)n * SLOT };
	}
}

static void orc_once(int n)
{
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		ssize_t r;

		if (fd < 0)
			die(paths[i]);
		do
			r = read(fd, buf, SLOT);
		while (r > 0);
		close(fd);
	}
}

/*
 * The strict path by hand: what getvalues() does for each file of a file
 * system that can hold devices and FIFOs, in plain system calls, with the
 * two directories opened once per call.
 */
static void floor_once(const struct fileset *s, int n)
{
	static const struct open_how pin_how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV,
	};
	int dir = open(s->origin, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fds = open("/proc/thread-self/fd", O_PATH | O_DIRECTORY |
		       O_CLOEXEC);

	if (dir < 0 || fds < 0)
		die("floor");
	for (int i = 0; i < n; i++) {
		struct statx stx;
		struct stat st;
		char num[16];
		int pin, fd;
		ssize_t r;

		pin = syscall(SYS_openat2, dir, s->names[i % s->count],
			      &pin_how, sizeof(pin_how));
		if (pin < 0 || statx(pin, "", AT_EMPTY_PATH |
				     AT_SYMLINK_NOFOLLOW, STATX_TYPE |
				     STATX_INO, &stx))
			die("floor: pin");
		snprintf(num, sizeof(num), "%d", pin);
		fd = openat(fds, num, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) || st.st_ino != stx.stx_ino)
			die("floor: reopen");
		do
			r = read(fd, buf, SLOT);
		while (r > 0);
		close(fd);
		close(pin);
	}
	close(fds);
	close(dir);
}

static void gv_once(const struct fileset *s, int n)
{
	int r = getvalues(AT_FDCWD, s->origin, vec, n, 0);

	if (r != n) {
		fprintf(stderr, "batch: getvalues(%s) gave %d of %d\n",
			s->origin, r, n);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		if (vec[i].error) {
			errno = vec[i].error;
			die(vec[i].name);
		}
}

/* One call of method @m, for bench_count_syscalls(). */
struct one_call {
	enum method m;
	const struct fileset *s;
	int n;
};

static void run_once(enum method m, const struct fileset *s, int n)
{
	if (m == M_ORC)
		orc_once(n);
	else if (m == M_FLOOR)
		floor_once(s, n);
	else
		gv_once(s, n);
}

static void one_call(void *arg)
{
	const struct one_call *c = arg;

	run_once(c->m, c->s, c->n);
}

/*
 * One measurement: wall and CPU ns per call over @loops calls; for auto,
 * *@urings gets the calls of them it made through io_uring.
 */
static void measure(enum method m, const struct fileset *s, int n,
		    int loops, double *wall, double *cpu, int *urings)
{
	double t, c;

	if (m >= M_SYNC)
		gv_backend_force(backend_of[m]);
	t = bench_now_ns();
	c = bench_cpu_ns();
	for (int l = 0; l < loops; l++) {
		run_once(m, s, n);
		if (urings)
			*urings += gv_backend_last() == GV_BACKEND_URING;
	}
	*cpu = (bench_cpu_ns() - c) / loops;
	*wall = (bench_now_ns() - t) / loops;
}

/* What auto chose in @urings of @calls calls. */
static void choice_name(char *out, size_t size, int urings, int calls)
{
	if (!urings)
		snprintf(out, size, "sync");
	else if (urings == calls)
		snprintf(out, size, "uring");
	else
		snprintf(out, size, "uring %.0f%%", 100.0 * urings / calls);
}

/* A method's figure and its ratio to the baseline; "-" if not measured. */
static void cell(const double med[M_COUNT], enum method m)
{
	if (med[m] > 0)
		printf(" %.1f | %.2f |", med[m] / 1e3, med[M_ORC] / med[m]);
	else
		printf(" - | - |");
}

/*
 * A row; "auto / best": the better of sync and uring divided by auto
 * (below 1: auto is slower than the better of the two).
 */
static void row(const char *label, const char *fs, int n,
		const double med[M_COUNT], const char *choice)
{
	double best = med[M_SYNC] < med[M_URING] ? med[M_SYNC] : med[M_URING];

	printf("| %s | %s | %d | %.1f |", label, fs, n, med[M_ORC] / 1e3);
	for (int m = M_FLOOR; m < M_COUNT; m++)
		cell(med, m);
	printf(" %s | %.2f |\n", choice, best / med[M_AUTO]);
	fflush(stdout);
}

static void header(const char *what)
{
	printf("| files | fs | N | orc %s |", what);
	for (int m = M_FLOOR; m < M_COUNT; m++)
		printf(" %s | ratio |", method_name[m]);
	printf(" auto chose | auto / best |\n|---|---|---:|---:|");
	for (int m = M_FLOOR; m < M_COUNT; m++)
		printf("---:|---:|");
	printf("---|---:|\n");
}

static int cached_ns[16] = { 1, 16, 64, 256 }, ncached_ns = 4;

/* Whether method @m is measured for @s. */
static bool applies(enum method m, const struct fileset *s)
{
	return m != M_FLOOR || s->strict;
}

/* The figures of one row: N files of one set, every method. */
struct result {
	const char *label, *fs;
	int n;
	double wall[M_COUNT], cpu[M_COUNT];
	char choice[16];
};

/*
 * Cached files: @repeats rounds of about FILES_PER_REPEAT files per
 * method, the methods taking turns; medians into @res.
 */
static void measure_cached(const struct fileset *s, int n, int repeats,
			   struct result *res)
{
	static double tw[M_COUNT][MAX_REPEATS], tc[M_COUNT][MAX_REPEATS];
	int loops = (FILES_PER_REPEAT + n - 1) / n, urings = 0;

	prepare(s, n);
	for (int m = 0; m < M_COUNT; m++)	/* warm up */
		if (applies(m, s))
			measure(m, s, n, loops / 8 + 1, &tw[m][0], &tc[m][0],
				NULL);
	/* the order rotates: no method always follows another */
	for (int r = 0; r < repeats; r++)
		for (int q = 0; q < M_COUNT; q++) {
			int m = (q + r) % M_COUNT;

			if (applies(m, s))
				measure(m, s, n, loops, &tw[m][r], &tc[m][r],
					m == M_AUTO ? &urings : NULL);
		}
	for (int m = 0; m < M_COUNT; m++) {
		res->wall[m] = applies(m, s) ? bench_median(tw[m], repeats) : 0;
		res->cpu[m] = applies(m, s) ? bench_median(tc[m], repeats) : 0;
	}
	res->label = s->label;
	res->fs = bench_fs_name(s->origin);
	res->n = n;
	choice_name(res->choice, sizeof(res->choice), urings,
		    repeats * loops);
}

/* The rows' wall times, then their CPU times. */
static void print_results(const struct result *res, int nrows)
{
	header("µs");
	for (int i = 0; i < nrows; i++)
		row(res[i].label, res[i].fs, res[i].n, res[i].wall,
		    res[i].choice);
	printf("\nThe same calls, CPU time of the process (io_uring's worker "
	       "threads included) per call in microseconds, and its ratio to "
	       "open/read/close.\n\n");
	header("CPU µs");
	for (int i = 0; i < nrows; i++)
		row(res[i].label, res[i].fs, res[i].n, res[i].cpu,
		    res[i].choice);
}

static void cached(struct fileset *sets, int nsets, int repeats)
{
	static struct result res[4 * 16];
	int nrows = 0;

	printf("### Cached files\n\n");
	printf("%d repeats of about %d files per method; medians of wall "
	       "time per call in microseconds, and its ratio to "
	       "open/read/close (above 1: faster). auto chose: the share of "
	       "its calls it made through io_uring; auto / best: the better "
	       "of sync and uring divided by auto (below 1: auto is "
	       "slower).\n\n", repeats, FILES_PER_REPEAT);
	for (int k = 0; k < nsets; k++)
		for (int j = 0; j < ncached_ns; j++)
			measure_cached(&sets[k], cached_ns[j], repeats,
				       &res[nrows++]);
	print_results(res, nrows);
}

/* A process that keeps one CPU busy, until killed. */
static pid_t busy_cpu(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	return pid;
}

/*
 * A ps-like set of 64 procfs files, 64 kernel stacks, and procfs with one
 * CPU kept busy by another process, which leaves io_uring's workers none.
 */
static void mixed(struct fileset *proc, int repeats)
{
	static struct fileset sets[2];
	struct result res[4];
	int nrows = 0, status;
	pid_t pid;

	mixed_set(&sets[0], false);
	mixed_set(&sets[1], true);
	printf("\n### A mixed procfs set, and a CPU kept busy\n\n");
	printf("As above, N = 64: the files a ps-like listing reads of one "
	       "process (%d names, each %d times), 64 kernel stacks, then "
	       "procfs files while another process keeps one CPU busy (a "
	       "loop).\n\n", sets[0].count, 64 / sets[0].count);
	measure_cached(&sets[0], 64, repeats, &res[nrows++]);
	if (sets[1].count)
		measure_cached(&sets[1], 64, repeats, &res[nrows++]);
	pid = busy_cpu();
	measure_cached(proc, 64, repeats, &res[nrows]);
	res[nrows++].label = "/proc/self, a CPU busy";
	measure_cached(&sets[0], 64, repeats, &res[nrows]);
	res[nrows++].label = "/proc/self, mixed, a CPU busy";
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	print_results(res, nrows);
	if (!sets[1].count)
		printf("\n/proc/self/stack is not readable here (root only): "
		       "no row of stacks.\n");
}

/*
 * What auto's bookkeeping costs a call: two readings of the clock, one
 * decision and one update of its table (cost.c), in a class no set here
 * uses; what it has learned of it is forgotten afterwards.
 */
static void bookkeeping(int repeats)
{
	double t[MAX_REPEATS];

	for (int r = 0; r < repeats; r++) {
		double t0 = bench_now_ns();

		for (int l = 0; l < 100000; l++) {
			uint64_t c0 = gv_cost_now();
			enum gv_mech m = gv_cost_decide(GV_COST_OTHER, 64,
							GV_MECH_SYNC);

			gv_cost_record(GV_COST_OTHER, 64, m,
				       gv_cost_now() - c0 + 64000);
		}
		t[r] = (bench_now_ns() - t0) / 100000;
	}
	gv_cost_test_reset();
	printf("\nauto's bookkeeping per call (two readings of the "
	       "monotonic clock, a decision, an update of its table): %.0f "
	       "ns, median of %d rounds of 100000; %.0f ns in the fastest "
	       "round.\n", bench_median(t, repeats), repeats, t[0]);
}

/* The system calls of one call of each method, N = 1 and 64. */
static void syscalls(struct fileset *sets, int nsets)
{
	static const int ns[] = { 1, 64 };

	printf("\n### System calls per call\n\n");
	printf("Counted under ptrace(2) in a child, once the method is warm "
	       "(a ring made, a probe run).\n\n| files | fs | N |");
	for (int m = 0; m < M_COUNT; m++)
		printf(" %s |", method_name[m]);
	printf("\n|---|---|---:|");
	for (int m = 0; m < M_COUNT; m++)
		printf("---:|");
	printf("\n");
	for (int k = 0; k < nsets; k++)
		for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++) {
			printf("| %s | %s | %d |", sets[k].label,
			       bench_fs_name(sets[k].origin), ns[j]);
			prepare(&sets[k], ns[j]);
			for (int m = 0; m < M_COUNT; m++) {
				struct one_call c = { m, &sets[k], ns[j] };

				if (!applies(m, &sets[k])) {
					printf(" - |");
					continue;
				}
				if (m >= M_SYNC)
					gv_backend_force(backend_of[m]);
				printf(" %ld |", bench_count_syscalls(one_call,
								      &c));
			}
			printf("\n");
		}
	gv_backend_force(GV_BACKEND_AUTO);
}

static bool drop_caches(void)
{
	int fd;
	bool ok;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, "3", 1) == 1;
	close(fd);
	return ok;
}

static void cold(struct fileset *s, int repeats)
{
	static const int ns[] = { 64, 1000 };
	double t[M_COUNT][MAX_REPEATS], c[M_COUNT][MAX_REPEATS], med[M_COUNT];

	printf("\n### Cold files (page cache dropped before each "
	       "measurement)\n\n");
	if (!drop_caches()) {
		printf("Skipped: writing /proc/sys/vm/drop_caches needs "
		       "root.\n");
		return;
	}
	printf("%d repeats of one call (or N open/read/close) on files of "
	       "%d bytes; medians of wall time in microseconds per call.\n\n",
	       repeats, FILE_SIZE);
	header("µs");
	for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++) {
		int n = ns[j], urings = 0;
		char choice[16];

		prepare(s, n);
		for (int r = 0; r < repeats; r++)
			for (int q = 0; q < M_COUNT; q++) {
				int m = (q + r) % M_COUNT;

				drop_caches();
				measure(m, s, n, 1, &t[m][r], &c[m][r],
					m == M_AUTO ? &urings : NULL);
			}
		for (int m = 0; m < M_COUNT; m++)
			med[m] = bench_median(t[m], repeats);
		choice_name(choice, sizeof(choice), urings, repeats);
		row(s->label, bench_fs_name(s->origin), n, med, choice);
	}
}

/* What the auto policy adds to a cached batch: one preadv2(RWF_NOWAIT). */
static void probe_cost(const struct fileset *s, int repeats)
{
	double t[MAX_REPEATS];
	char byte, path[2 * PATH_MAX];
	struct iovec iov = { &byte, 1 };
	int fd;

	snprintf(path, sizeof(path), "%s/%s", s->origin, s->names[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	for (int r = 0; r < repeats; r++) {
		double t0 = bench_now_ns();

		for (int l = 0; l < 10000; l++)
			if (preadv2(fd, &iov, 1, 0, RWF_NOWAIT) != 1)
				die("preadv2");
		t[r] = (bench_now_ns() - t0) / 10000;
	}
	close(fd);
	printf("\nThe auto policy's residency probe, one preadv2(RWF_NOWAIT) "
	       "of one byte of a cached ext4 file (made once per getvalues() "
	       "call with enough data: entries on a disk file system): "
	       "%.0f ns.\n", bench_median(t, repeats));
}

static void usage(void)
{
	fprintf(stderr, "usage: batch [-r REPEATS] [-R COLD_REPEATS] "
		"[-b shared|own] [-d DIR] [-C|-c] [-n N,N,...] [-P]\n");
	exit(2);
}

struct options {
	int repeats, cold_repeats;
	bool do_cached, do_cold;
	const char *base;		/* $DIR */
};

/* -n N,N,...: the N of the cached tables. */
static void parse_ns(char *list)
{
	ncached_ns = 0;
	for (char *p = strtok(list, ","); p && ncached_ns < 16;
	     p = strtok(NULL, ","))
		cached_ns[ncached_ns++] = atoi(p);
	for (int j = 0; j < ncached_ns; j++)
		if (cached_ns[j] < 1 || cached_ns[j] > MAX_FILES)
			usage();
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "r:R:b:d:Ccn:Ph")) != -1) {
		switch (opt) {
		case 'P': gv_cost_test_mode(GV_COST_PRIORS); break;
		case 'n': parse_ns(optarg); break;
		case 'r': o->repeats = atoi(optarg); break;
		case 'R': o->cold_repeats = atoi(optarg); break;
		case 'b':
			if (!strcmp(optarg, "own"))
				own_buffers = true;
			else if (strcmp(optarg, "shared"))
				usage();
			break;
		case 'd': o->base = optarg; break;
		case 'C': o->do_cold = false; break;
		case 'c': o->do_cached = false; break;
		default: usage();
		}
	}
	if (o->repeats < 1 || o->repeats > MAX_REPEATS ||
	    o->cold_repeats < 1 || o->cold_repeats > MAX_REPEATS ||
	    optind < argc)
		usage();
}

/* The cached tables, their files made in @shm and @warm_dir: sets filled. */
static int run_cached(struct fileset *sets, const char *shm,
		      const char *warm_dir, int repeats)
{
	int nsets = 0;

	proc_set(&sets[nsets++]);
	sys_set(&sets[nsets++]);
	file_set(&sets[nsets++], "/dev/shm/gv-batch-*", shm, 256);
	file_set(&sets[nsets++], "$DIR/gv-batch-*/warm", warm_dir, 256);
	cached(sets, nsets, repeats);
	mixed(&sets[0], repeats);
	syscalls(sets, nsets);
	probe_cost(&sets[3], repeats);
	if (gv_cost_learning())
		bookkeeping(repeats);
	return nsets;
}

static void print_load(void)
{
	double load[3];

	if (getloadavg(load, 3) == 3)
		printf("Load average when done: %.2f %.2f %.2f (the "
		       "figures are only as quiet as the machine).\n",
		       load[0], load[1], load[2]);
}

/* Remove the files of @s that the run made. */
static void unlink_set(const struct fileset *s)
{
	for (int i = 0; i < s->count; i++) {
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s/%s", s->origin, s->names[i]);
		unlink(path);
	}
}

int main(int argc, char **argv)
{
	struct options o = { .repeats = 11, .cold_repeats = 5,
			     .do_cached = true, .do_cold = true,
			     .base = "/var/tmp" };
	int nsets = 0;
	char shm[] = "/dev/shm/gv-batch-XXXXXX", disk[PATH_MAX - 16];
	static struct fileset sets[4], cold_set;
	char warm_dir[PATH_MAX], cold_dir[PATH_MAX];

	parse_options(argc, argv, &o);
	buf = malloc((size_t)MAX_FILES * SLOT);
	if (!buf)
		die("malloc");
	snprintf(disk, sizeof(disk), "%s/gv-batch-XXXXXX", o.base);
	if (!mkdtemp(shm) || !mkdtemp(disk))
		die("mkdtemp");
	snprintf(warm_dir, sizeof(warm_dir), "%s/warm", disk);
	snprintf(cold_dir, sizeof(cold_dir), "%s/cold", disk);

	printf("One getvalues() call reading N files (data:NAME entries, %s "
	       "buffer) against N open/read/close.%s\n\n",
	       own_buffers ? "one buffer per entry" : "one shared",
	       gv_cost_learning() ? "" : " auto by its priors alone (-P): "
	       "the policy before it measured.");
	if (o.do_cached)
		nsets = run_cached(sets, shm, warm_dir, o.repeats);
	if (o.do_cold) {
		file_set(&cold_set, "$DIR/gv-batch-*/cold", cold_dir, 1000);
		cold(&cold_set, o.cold_repeats);
	}
	printf("\n$DIR is %s (%s).\n", o.base, bench_fs_name(o.base));
	print_load();

	/* procfs and sysfs are not ours; the tmpfs and ext4 files are */
	for (int k = 2; k < nsets; k++)
		unlink_set(&sets[k]);
	unlink_set(&cold_set);
	rmdir(warm_dir);
	rmdir(cold_dir);
	rmdir(disk);
	rmdir(shm);
	return 0;
}
