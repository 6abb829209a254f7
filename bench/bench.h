/* SPDX-License-Identifier: MIT */
/*
 * bench.h - timing helpers shared by the benchmarks: a monotonic clock,
 * medians of repeats, and the file system a path lives on.
 */
#ifndef GV_BENCH_H
#define GV_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>

static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
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
