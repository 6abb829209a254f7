// SPDX-License-Identifier: GPL-2.0
/*
 * gvbound.c - a getvalues(2) value stops being made at its first fault.
 *
 * dir: of a directory of 30000 names into a buffer declared UINT64_MAX
 * bytes long, of which one page is mapped: the entry gets EFAULT, and the
 * listing ends there, as getdents(2) ends at its first unwritable byte.
 * A kernel that goes on counting the names it cannot write lists the whole
 * directory before it says EFAULT (and, on a file system that yields names
 * forever, never stops).  Told by time: the faulting call must take less
 * than a quarter of the time of a full listing into a buffer that takes it
 * (each the fastest of several runs, taken in turns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"

#define NAMES		30000
#define RUNS		7
#define FULL_SIZE	(8u << 20)

static char dir[] = "/tmp/gvbound.XXXXXX";

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* dir: of the directory into @base, declared @len long: seconds taken */
static double list(void *base, uint64_t len, struct gv_entry *e, long *ret)
{
	double t;

	*e = (struct gv_entry){
		.name = PTR("dir:"),
		.value_in = { PTR(base), len },
	};
	t = now();
	*ret = syscall(NR_GETVALUES, AT_FDCWD, dir, e, 1UL, sizeof(*e), 0);
	return now() - t;
}

static void cleanup(void)
{
	char path[64];

	for (int i = 0; i < NAMES; i++) {
		snprintf(path, sizeof(path), "%s/name-%08d-padding-padding", dir,
			 i);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE), ret;
	double fault = 1e9, full = 1e9, t;
	struct gv_entry e;
	char path[64], *one, *big;
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..2\n");
	e = (struct gv_entry){ .name = PTR("dir:") };
	if (syscall(NR_GETVALUES, AT_FDCWD, "/", &e, 1UL, sizeof(e), 0) < 0 &&
	    errno == ENOSYS) {
		printf("ok 1 # SKIP no getvalues(2)\nok 2 # SKIP\n");
		return 0;
	}
	if (!mkdtemp(dir))
		die("mkdtemp");
	atexit(cleanup);
	for (int i = 0; i < NAMES; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/name-%08d-padding-padding", dir,
			 i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			die(path);
		close(fd);
	}
	/* one mapped page with nothing mapped after it */
	one = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (one == MAP_FAILED || munmap(one + page, page))
		die("mmap");
	big = mmap(NULL, FULL_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (big == MAP_FAILED)
		die("mmap");
	for (int r = 0; r < RUNS; r++) {
		t = list(one, UINT64_MAX, &e, &ret);
		if (ret != 1 || e.error != EFAULT || e.value_out.len) {
			printf("# run %d: returned %ld, error %u, length %llu; want 1, EFAULT, 0\n",
			       r, ret, e.error,
			       (unsigned long long)e.value_out.len);
			bad |= 1;
		}
		fault = t < fault ? t : fault;
		t = list(big, FULL_SIZE, &e, &ret);
		if (ret != 1 || e.error) {
			printf("# run %d: full listing returned %ld, error %u\n",
			       r, ret, e.error);
			bad |= 2;
		}
		full = t < full ? t : full;
	}
	printf("%sok 1 - dir: into one mapped page declared UINT64_MAX long: EFAULT\n",
	       bad & 1 ? "not " : "");
	printf("# %d names: full listing %.2f ms (%llu bytes), faulting one %.2f ms\n",
	       NAMES, full * 1e3, (unsigned long long)e.value_out.len,
	       fault * 1e3);
	if (bad & 2)
		printf("not ok 2 - the full listing failed\n");
	else
		printf("%sok 2 - the faulting listing stops at its fault (%.1f%% of a full one)\n",
		       fault * 4 < full ? "" : "not ", 100 * fault / full);
	return bad || fault * 4 >= full;
}
