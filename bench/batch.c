// SPDX-License-Identifier: MIT
/*
 * batch.c - N small files read through one getvalues() call, on each
 * backend, against N open/read/close, on /proc, /sys, tmpfs and ext4,
 * cached and (as root) cold.
 *
 *   batch [-r REPEATS] [-R COLD_REPEATS] [-b shared|own] [-d DIR] [-C|-c]
 *         [-n N,N,...]
 *
 * Cached: for N = 1, 16, 256 files (or those of -n), each repeat times enough calls to read
 * about 2048 files with each method, the methods interleaved (in an order
 * that rotates from repeat to repeat) so that drift hits all alike. Cold: ext4 files of 4 KiB, N = 64 and 1000, the page
 * cache dropped (echo 3 > /proc/sys/vm/drop_caches) before every single
 * measurement. Tables show medians in microseconds per call and ratios:
 * orc/sync above 1 means getvalues() beats open/read/close; sync/uring and
 * sync/auto above 1 mean that backend beats sync. The auto column shows
 * what the policy chose for that call. One getvalues() buffer is shared
 * by all entries (-b own: each entry its own).
 *
 * The backends are switched in-process through the library's internal
 * gv_backend_force() (the static library is linked), which does what
 * GETVALUES_BACKEND does at start-up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <getvalues.h>

#include "../src/internal.h"
#include "bench.h"

#define MAX_REPEATS	101
#define MAX_FILES	1000
#define SLOT		8192		/* buffer room per value */
#define FILE_SIZE	4096		/* of the tmpfs and ext4 files */
#define FILES_PER_REPEAT 2048

enum method { M_ORC, M_SYNC, M_URING, M_AUTO, M_COUNT };

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

/* One measurement: ns per call over @loops calls; *@choice for auto. */
static double measure(enum method m, const struct fileset *s, int n,
		      int loops, enum gv_backend_id *choice)
{
	double t;

	if (m != M_ORC)
		gv_backend_force(backend_of[m]);
	t = bench_now_ns();
	for (int l = 0; l < loops; l++) {
		if (m == M_ORC)
			orc_once(n);
		else
			gv_once(s, n);
	}
	t = (bench_now_ns() - t) / loops;
	if (choice)
		*choice = gv_backend_last();
	return t;
}

static void row(const char *label, const char *fs, int n, double med[M_COUNT],
		const char *choice)
{
	printf("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f (%s) | %.2f | %.2f "
	       "| %.2f |\n", label, fs, n, med[M_ORC] / 1e3, med[M_SYNC] / 1e3,
	       med[M_URING] / 1e3, med[M_AUTO] / 1e3, choice,
	       med[M_ORC] / med[M_SYNC], med[M_SYNC] / med[M_URING],
	       med[M_SYNC] / med[M_AUTO]);
	fflush(stdout);
}

static void header(void)
{
	printf("| files | fs | N | open/read/close | sync | uring | auto "
	       "(choice) | orc/sync | sync/uring | sync/auto |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static int cached_ns[16] = { 1, 16, 256 }, ncached_ns = 3;

static void cached(struct fileset *sets, int nsets, int repeats)
{
	double t[M_COUNT][MAX_REPEATS], med[M_COUNT];

	printf("### Cached files\n\n");
	printf("%d repeats of about %d files per method; medians in "
	       "microseconds per call.\n\n", repeats, FILES_PER_REPEAT);
	header();
	for (int k = 0; k < nsets; k++) {
		struct fileset *s = &sets[k];

		for (int j = 0; j < ncached_ns; j++) {
			int n = cached_ns[j], loops = (FILES_PER_REPEAT + n - 1) /
						      n;
			enum gv_backend_id choice = GV_BACKEND_SYNC;
			int uring_choices = 0;

			prepare(s, n);
			for (int m = 0; m < M_COUNT; m++)	/* warm up */
				measure(m, s, n, loops / 8 + 1, NULL);
			/* the order rotates: no method always follows another */
			for (int r = 0; r < repeats; r++)
				for (int q = 0; q < M_COUNT; q++) {
					int m = (q + r) % M_COUNT;

					t[m][r] = measure(m, s, n, loops,
							  m == M_AUTO ?
							  &choice : NULL);
					if (m == M_AUTO)
						uring_choices +=
						choice == GV_BACKEND_URING;
				}
			for (int m = 0; m < M_COUNT; m++)
				med[m] = bench_median(t[m], repeats);
			row(s->label, bench_fs_name(s->origin), n, med,
			    uring_choices == 0 ? "sync" :
			    uring_choices == repeats ? "uring" : "mixed");
		}
	}
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
	double t[M_COUNT][MAX_REPEATS], med[M_COUNT];

	printf("\n### Cold files (page cache dropped before each "
	       "measurement)\n\n");
	if (!drop_caches()) {
		printf("Skipped: writing /proc/sys/vm/drop_caches needs "
		       "root.\n");
		return;
	}
	printf("%d repeats of one call (or N open/read/close) on files of "
	       "%d bytes; medians in microseconds per call.\n\n", repeats,
	       FILE_SIZE);
	header();
	for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++) {
		int n = ns[j], uring_choices = 0;
		enum gv_backend_id choice;

		prepare(s, n);
		for (int r = 0; r < repeats; r++)
			for (int q = 0; q < M_COUNT; q++) {
				int m = (q + r) % M_COUNT;

				drop_caches();
				t[m][r] = measure(m, s, n, 1, &choice);
				if (m == M_AUTO)
					uring_choices +=
						choice == GV_BACKEND_URING;
			}
		for (int m = 0; m < M_COUNT; m++)
			med[m] = bench_median(t[m], repeats);
		row(s->label, bench_fs_name(s->origin), n, med,
		    uring_choices == 0 ? "sync" :
		    uring_choices == repeats ? "uring" : "mixed");
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
		"[-b shared|own] [-d DIR] [-C|-c] [-n N,N,...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int repeats = 11, cold_repeats = 5, opt, nsets = 0;
	bool do_cached = true, do_cold = true;
	const char *base = "/var/tmp";
	char shm[] = "/dev/shm/gv-batch-XXXXXX", disk[PATH_MAX - 16];
	static struct fileset sets[4], cold_set;
	char warm_dir[PATH_MAX], cold_dir[PATH_MAX];

	while ((opt = getopt(argc, argv, "r:R:b:d:Ccn:h")) != -1) {
		switch (opt) {
		case 'n':
			ncached_ns = 0;
			for (char *p = strtok(optarg, ","); p && ncached_ns < 16;
			     p = strtok(NULL, ","))
				cached_ns[ncached_ns++] = atoi(p);
			for (int j = 0; j < ncached_ns; j++)
				if (cached_ns[j] < 1 ||
				    cached_ns[j] > MAX_FILES)
					usage();
			break;
		case 'r': repeats = atoi(optarg); break;
		case 'R': cold_repeats = atoi(optarg); break;
		case 'b':
			if (!strcmp(optarg, "own"))
				own_buffers = true;
			else if (strcmp(optarg, "shared"))
				usage();
			break;
		case 'd': base = optarg; break;
		case 'C': do_cold = false; break;
		case 'c': do_cached = false; break;
		default: usage();
		}
	}
	if (repeats < 1 || repeats > MAX_REPEATS || cold_repeats < 1 ||
	    cold_repeats > MAX_REPEATS || optind < argc)
		usage();
	buf = malloc((size_t)MAX_FILES * SLOT);
	if (!buf)
		die("malloc");
	snprintf(disk, sizeof(disk), "%s/gv-batch-XXXXXX", base);
	if (!mkdtemp(shm) || !mkdtemp(disk))
		die("mkdtemp");
	snprintf(warm_dir, sizeof(warm_dir), "%s/warm", disk);
	snprintf(cold_dir, sizeof(cold_dir), "%s/cold", disk);

	printf("One getvalues() call reading N files (data:NAME entries, %s "
	       "buffer) against N open/read/close.\n\n",
	       own_buffers ? "one buffer per entry" : "one shared");
	if (do_cached) {
		proc_set(&sets[nsets++]);
		sys_set(&sets[nsets++]);
		file_set(&sets[nsets++], "/dev/shm/gv-batch-*", shm, 256);
		file_set(&sets[nsets++], "$DIR/gv-batch-*/warm", warm_dir, 256);
		cached(sets, nsets, repeats);
		probe_cost(&sets[3], repeats);
	}
	if (do_cold) {
		file_set(&cold_set, "$DIR/gv-batch-*/cold", cold_dir, 1000);
		cold(&cold_set, cold_repeats);
	}
	printf("\n$DIR is %s (%s).\n", base, bench_fs_name(base));
	{
		double load[3];

		if (getloadavg(load, 3) == 3)
			printf("Load average when done: %.2f %.2f %.2f (the "
			       "figures are only as quiet as the machine).\n",
			       load[0], load[1], load[2]);
	}

	for (int k = 0; k < nsets; k++)
		if (k >= 2)
			for (int i = 0; i < sets[k].count; i++) {
				char path[PATH_MAX * 2];

				snprintf(path, sizeof(path), "%s/%s",
					 sets[k].origin, sets[k].names[i]);
				unlink(path);
			}
	for (int i = 0; i < cold_set.count; i++) {
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s/%s", cold_dir,
			 cold_set.names[i]);
		unlink(path);
	}
	rmdir(warm_dir);
	rmdir(cold_dir);
	rmdir(disk);
	rmdir(shm);
	return 0;
}
