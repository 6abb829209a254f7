// SPDX-License-Identifier: MIT
/*
 * readfile_speed.c - readfile() against open/read/close, in ns per call.
 *
 *   readfile_speed [-l LOOPS] [-r REPEATS] [-f FILE]...
 *
 * Without -f it measures a sysfs file, a /proc file, a tmpfs file and a
 * cached ext4 file. Each repeat times LOOPS calls of each method, the
 * methods interleaved in an order that rotates from repeat to repeat, so
 * that drift hits all alike. The baseline is what a careful program writes
 * (open(2), read(2) until it returns 0, close(2)); "naive" is one read(2)
 * into the whole buffer (what a program that trusts a small file to come
 * in one read writes: it cannot tell a full buffer from a longer file).
 * The table shows medians and the ratios baseline / method (above 1: the
 * method is faster), then the system calls of one call of each method,
 * counted under ptrace(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <getvalues.h>

#include "bench.h"

#define MAX_FILES 16
#define MAX_REPEATS 101

enum method { M_READFILE, M_CAREFUL, M_NAIVE, M_COUNT };

static const char *const method_name[M_COUNT] = {
	"readfile", "open/read/close", "naive",
};

static char buf[1 << 16];

static void die(const char *path)
{
	perror(path);
	exit(1);
}

static void call_once(enum method m, const char *path)
{
	ssize_t n;
	int fd;

	if (m == M_READFILE) {
		if (readfile(AT_FDCWD, path, buf, sizeof(buf), 0) < 0)
			die(path);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 && m == M_CAREFUL);
	close(fd);
}

static double time_method(enum method m, const char *path, int loops)
{
	double t = bench_now_ns();

	for (int i = 0; i < loops; i++)
		call_once(m, path);
	return (bench_now_ns() - t) / loops;
}

struct one { enum method m; const char *path; };

static void one_call(void *arg)
{
	const struct one *o = arg;

	call_once(o->m, o->path);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: readfile_speed [-l LOOPS] [-r REPEATS] [-f FILE]...\n");
	exit(2);
}

/* The files measured, and the names the tables show them by. */
static const char *files[MAX_FILES], *shown[MAX_FILES];
static int nfiles;

static void add_file(const char *path, const char *label)
{
	shown[nfiles] = label;
	files[nfiles++] = path;
}

/* A file of @len bytes of @data made from @tmpl, measured if written. */
static void own_file(char *tmpl, const char *label, const char *data,
		     size_t len)
{
	int fd = mkstemp(tmpl);

	if (fd >= 0 && write(fd, data, len) == (ssize_t)len)
		add_file(tmpl, label);
	if (fd >= 0)
		close(fd);
}

/* Without -f: a sysfs file, a /proc file, and a tmpfs and an ext4 file. */
static void default_files(char *tmpfs_file, char *ext4_file)
{
	char data[64];

	memset(data, 'x', sizeof(data) - 1);
	data[sizeof(data) - 1] = '\n';
	add_file("/sys/devices/system/cpu/vulnerabilities/meltdown",
		 "/sys/devices/system/cpu/vulnerabilities/meltdown");
	add_file("/proc/self/stat", "/proc/self/stat");
	own_file(tmpfs_file, "/dev/shm/gv-bench-*", data, sizeof(data));
	own_file(ext4_file, "/var/tmp/gv-bench-*", data, sizeof(data));
}

/*
 * The medians of @repeats times @loops calls of each method on @path, the
 * methods interleaved in an order that rotates from repeat to repeat.
 */
static void time_file(const char *path, int loops, int repeats,
		      double med[M_COUNT])
{
	double t[M_COUNT][MAX_REPEATS];

	/* warm the caches and the dentry before measuring */
	for (int m = 0; m < M_COUNT; m++)
		time_method(m, path, loops / 10 + 1);
	for (int r = 0; r < repeats; r++)
		for (int q = 0; q < M_COUNT; q++) {
			int m = (q + r) % M_COUNT;

			t[m][r] = time_method(m, path, loops);
		}
	for (int m = 0; m < M_COUNT; m++)
		med[m] = bench_median(t[m], repeats);
}

static void time_table(int loops, int repeats)
{
	printf("%d repeats of %d calls; medians in ns per call, and the "
	       "ratio open/read/close / method (above 1: faster)\n\n",
	       repeats, loops);
	printf("| file | fs | bytes | open/read/close | readfile | ratio | "
	       "naive (one read) | ratio |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (int f = 0; f < nfiles; f++) {
		double med[M_COUNT];
		ssize_t size = readfile(AT_FDCWD, files[f], buf, sizeof(buf),
					0);

		if (size < 0) {
			fprintf(stderr, "%s: %s\n", files[f], strerror(errno));
			continue;
		}
		time_file(files[f], loops, repeats, med);
		printf("| %s | %s | %zd | %.0f | %.0f | %.3f | %.0f | %.3f |\n",
		       shown[f], bench_fs_name(files[f]), size,
		       med[M_CAREFUL], med[M_READFILE],
		       med[M_CAREFUL] / med[M_READFILE], med[M_NAIVE],
		       med[M_CAREFUL] / med[M_NAIVE]);
		fflush(stdout);
	}
}

static void syscall_table(void)
{
	printf("\nSystem calls of one call (ptrace(2)):\n\n| file |");
	for (int m = 0; m < M_COUNT; m++)
		printf(" %s |", method_name[m]);
	printf("\n|---|---:|---:|---:|\n");
	for (int f = 0; f < nfiles; f++) {
		/* a file the timing table left out (it said why) */
		if (readfile(AT_FDCWD, files[f], buf, sizeof(buf), 0) < 0)
			continue;
		printf("| %s |", shown[f]);
		for (int m = 0; m < M_COUNT; m++) {
			struct one o = { m, files[f] };

			printf(" %ld |", bench_count_syscalls(one_call, &o));
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	char tmpfs_file[] = "/dev/shm/gv-bench-XXXXXX";
	char ext4_file[] = "/var/tmp/gv-bench-XXXXXX";
	int loops = 20000, repeats = 11, opt;
	bool own_files = false;

	while ((opt = getopt(argc, argv, "l:r:f:h")) != -1) {
		switch (opt) {
		case 'l': loops = atoi(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'f':
			if (nfiles == MAX_FILES)
				usage();
			add_file(optarg, optarg);
			break;
		default:
			usage();
		}
	}
	if (loops < 1 || repeats < 1 || repeats > MAX_REPEATS || optind < argc)
		usage();
	if (!nfiles) {
		own_files = true;
		default_files(tmpfs_file, ext4_file);
	}
	time_table(loops, repeats);
	syscall_table();
	if (own_files) {
		unlink(tmpfs_file);
		unlink(ext4_file);
	}
	return 0;
}
