/* SPDX-License-Identifier: MIT */
/*
 * bench.h - timing helpers shared by the benchmarks: a monotonic clock and
 * the process's CPU clock, medians of repeats, the file system a path
 * lives on, and the system calls a piece of code makes.
 */
#ifndef GV_BENCH_H
#define GV_BENCH_H

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* CPU time of the whole process, io_uring's worker threads included. */
static inline double bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The system calls that @fn(@arg) makes, counted under ptrace(2) in a
 * child: its entries between two getppid() markers, one stop each
 * (PTRACE_GET_SYSCALL_INFO, Linux 5.3). The child runs @fn once before,
 * so that what is made once per process (a probe, a ring) is not counted.
 * -1 when the child cannot be traced.
 */
static inline long bench_count_syscalls(void (*fn)(void *), void *arg)
{
	struct __ptrace_syscall_info info;
	long calls = -1, seen = 0;
	int status, markers = 0;
	pid_t pid;

	/* @fn may exit(3) in the child: it must not print our output again */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fn(arg);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(127);
		syscall(SYS_getppid);
		fn(arg);
		syscall(SYS_getppid);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD |
		   PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) &&
		    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
			   &info) > 0 &&
		    info.op == PTRACE_SYSCALL_INFO_ENTRY) {
			if (info.entry.nr == SYS_getppid) {
				if (++markers == 2)
					calls = seen;
			} else if (markers == 1) {
				seen++;
			}
		}
		ptrace(PTRACE_SYSCALL, pid, 0, 0);
	}
	return calls;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n samples; sorts them. */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline const char *bench_fs_name(const char *path)
{
	static const struct { long magic; const char *name; } known[] = {
		{ 0x9fa0, "procfs" },	  { 0x62656572, "sysfs" },
		{ 0x01021994, "tmpfs" },  { 0xef53, "ext4" },
		{ 0x58465342, "xfs" },	  { 0x9123683e, "btrfs" },
		{ 0x794c7630, "overlayfs" }, { 0x63677270, "cgroup2" },
	};
	struct statfs sf;

	if (statfs(path, &sf))
		return "?";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].magic == (long)sf.f_type)
			return known[i].name;
	return "other";
}

#endif /* GV_BENCH_H */
