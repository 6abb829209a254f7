// SPDX-License-Identifier: MIT
/*
 * readfile_speed.c - readfile() against open/read/close, in ns per call.
 *
 *   readfile_speed [-l LOOPS] [-r REPEATS] [-t readfile|openreadclose|both]
 *                  [-f FILE]...
 *
 * Without -f it measures a sysfs file, a /proc file, a tmpfs file and a
 * cached ext4 file. Each repeat times LOOPS calls of each method, the methods
 * interleaved so that drift hits both alike; the table shows medians over the
 * repeats and the ratio open/read/close / readfile (above 1: readfile wins).
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

enum { T_READFILE = 1, T_ORC = 2, T_BOTH = 3 };

static char buf[1 << 16];

static double time_readfile(const char *path, int loops)
{
	double t = bench_now_ns();

	for (int i = 0; i < loops; i++)
		if (readfile(AT_FDCWD, path, buf, sizeof(buf), 0) < 0) {
			perror(path);
			exit(1);
		}
	return (bench_now_ns() - t) / loops;
}

static double time_orc(const char *path, int loops)
{
	double t = bench_now_ns();

	for (int i = 0; i < loops; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0) {
			perror(path);
			exit(1);
		}
		do
			n = read(fd, buf, sizeof(buf));
		while (n > 0);
		close(fd);
	}
	return (bench_now_ns() - t) / loops;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: readfile_speed [-l LOOPS] [-r REPEATS] "
		"[-t readfile|openreadclose|both] [-f FILE]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *files[MAX_FILES], *shown[MAX_FILES];
	char tmpfs_file[] = "/dev/shm/gv-bench-XXXXXX";
	char ext4_file[] = "/var/tmp/gv-bench-XXXXXX";
	int nfiles = 0, loops = 20000, repeats = 7, which = T_BOTH, opt;
	bool own_files = false;

	while ((opt = getopt(argc, argv, "l:r:t:f:h")) != -1) {
		switch (opt) {
		case 'l': loops = atoi(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 't':
			if (!strcmp(optarg, "readfile"))
				which = T_READFILE;
			else if (!strcmp(optarg, "openreadclose"))
				which = T_ORC;
			else if (!strcmp(optarg, "both"))
				which = T_BOTH;
			else
				usage();
			break;
		case 'f':
			if (nfiles == MAX_FILES)
				usage();
			shown[nfiles] = optarg;
			files[nfiles++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (loops < 1 || repeats < 1 || repeats > MAX_REPEATS || optind < argc)
		usage();

	if (!nfiles) {
		char data[64];
		int fd;

		memset(data, 'x', sizeof(data) - 1);
		data[sizeof(data) - 1] = '\n';
		own_files = true;
		shown[nfiles] = "/sys/devices/system/cpu/vulnerabilities/meltdown";
		files[nfiles++] = "/sys/devices/system/cpu/vulnerabilities/meltdown";
		shown[nfiles] = "/proc/self/stat";
		files[nfiles++] = "/proc/self/stat";
		fd = mkstemp(tmpfs_file);
		if (fd >= 0 && write(fd, data, sizeof(data)) == sizeof(data)) {
			shown[nfiles] = "/dev/shm/gv-bench-*";
			files[nfiles++] = tmpfs_file;
		}
		if (fd >= 0)
			close(fd);
		fd = mkstemp(ext4_file);
		if (fd >= 0 && write(fd, data, sizeof(data)) == sizeof(data)) {
			shown[nfiles] = "/var/tmp/gv-bench-*";
			files[nfiles++] = ext4_file;
		}
		if (fd >= 0)
			close(fd);
	}

	printf("%d repeats of %d calls; medians in ns per call\n\n", repeats,
	       loops);
	printf("| file | fs | bytes | readfile | open/read/close | ratio |\n");
	printf("|---|---|---:|---:|---:|---:|\n");
	for (int f = 0; f < nfiles; f++) {
		double rf[MAX_REPEATS], orc[MAX_REPEATS], mrf = 0, morc = 0;
		ssize_t size = readfile(AT_FDCWD, files[f], buf, sizeof(buf), 0);

		if (size < 0) {
			fprintf(stderr, "%s: %s\n", files[f], strerror(errno));
			continue;
		}
		/* warm the caches and the dentry before measuring */
		time_readfile(files[f], loops / 10 + 1);
		time_orc(files[f], loops / 10 + 1);
		for (int r = 0; r < repeats; r++) {
			if (which & T_READFILE)
				rf[r] = time_readfile(files[f], loops);
			if (which & T_ORC)
				orc[r] = time_orc(files[f], loops);
		}
		if (which & T_READFILE)
			mrf = bench_median(rf, repeats);
		if (which & T_ORC)
			morc = bench_median(orc, repeats);
		printf("| %s | %s | %zd | ", shown[f], bench_fs_name(files[f]), size);
		if (which & T_READFILE)
			printf("%.0f | ", mrf);
		else
			printf("- | ");
		if (which & T_ORC)
			printf("%.0f | ", morc);
		else
			printf("- | ");
		if (which == T_BOTH)
			printf("%.2f |\n", morc / mrf);
		else
			printf("- |\n");
	}
	if (own_files) {
		unlink(tmpfs_file);
		unlink(ext4_file);
	}
	return 0;
}
