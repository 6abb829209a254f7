// SPDX-License-Identifier: MIT
/*
 * readfile.c - readfile() returns exactly what open/read/close returns: files
 * of every size from 0 to 16 MiB, truncation into smaller buffers, sysfs
 * files relative to a directory descriptor, and /proc/self/maps.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"

#define VULN_DIR "/sys/devices/system/cpu/vulnerabilities"

static const size_t sizes[] = {
	0, 0x10, 0x100, 0x1000, 0x10000, 0x100000, 0x1000000,
};

static void test_size(int dir, size_t size)
{
	unsigned char *want = malloc(size + 1), *got = malloc(size + 64);
	char name[32];
	ssize_t r;

	if (!want || !got)
		tap_bail("out of memory");
	snprintf(name, sizeof(name), "size-%#zx", size);
	t_fill_pattern(want, size, (unsigned int)size);
	if (t_write_file(dir, name, want, size, 0644))
		tap_bail("write %s", name);

	/* A buffer larger than the file: the whole file. */
	memset(got, 0xa5, size + 64);
	r = readfile(dir, name, got, size + 64, 0);
	tap_is_mem(got, r < 0 ? 0 : r, want, size, "%s: whole file", name);
	tap_ok(got[size] == 0xa5, "%s: nothing written past the file", name);

	/* A buffer exactly the size of the file. */
	r = readfile(dir, name, got, size, 0);
	tap_is_mem(got, r < 0 ? 0 : r, want, size, "%s: exact buffer", name);

	/* Smaller buffers: the result is the buffer size, the prefix. */
	if (size) {
		size_t half = size / 2, less = size - 1;

		memset(got, 0xa5, size);
		r = readfile(dir, name, got, half, 0);
		tap_is_mem(got, r < 0 ? 0 : r, want, half,
			   "%s: half-size buffer gets the first half", name);
		tap_ok(half == size || got[half] == 0xa5,
		       "%s: half-size read stops at the buffer end", name);
		r = readfile(dir, name, got, less, 0);
		tap_is_mem(got, r < 0 ? 0 : r, want, less,
			   "%s: buffer one byte short", name);
	} else {
		tap_skip(3, "empty file has no smaller buffer");
	}

	/* bufsize 0 reads nothing, whatever the file. */
	tap_is_long(readfile(dir, name, got, 0, 0), 0, "%s: bufsize 0", name);
	unlinkat(dir, name, 0);
	free(want);
	free(got);
}

static void test_vulnerabilities(void)
{
	char got[4096], want[4096];
	struct dirent *de;
	int dfd, n = 0, bad = 0;
	DIR *d;

	dfd = open(VULN_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	d = opendir(VULN_DIR);
	if (dfd < 0 || !d) {
		tap_skip(1, "kernel without %s", VULN_DIR);
		if (d)
			closedir(d);
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		ssize_t g, w;

		if (de->d_name[0] == '.')
			continue;
		g = readfile(dfd, de->d_name, got, sizeof(got), 0);
		w = t_orc_read(dfd, de->d_name, want, sizeof(want));
		n++;
		if (g <= 0 || g != w || memcmp(got, want, g)) {
			bad++;
			tap_diag("%s: readfile %zd, open/read/close %zd",
				 de->d_name, g, w);
		}
	}
	closedir(d);
	close(dfd);
	tap_ok(n > 0 && bad == 0,
	       "%d files in %s read relative to a dirfd match open/read/close",
	       n, VULN_DIR);
}

static void test_proc_maps(void)
{
	size_t size = 1 << 20;
	char *got = malloc(size), *want = malloc(size);
	ssize_t g = -1, w = -1;
	int tries;

	if (!got || !want)
		tap_bail("out of memory");
	/*
	 * The maps of this process change only when it maps memory; both
	 * buffers exist before either read, so the two reads normally agree.
	 * Retry a few times in case a sanitizer runtime mapped something.
	 */
	for (tries = 0; tries < 5; tries++) {
		g = readfile(AT_FDCWD, "/proc/self/maps", got, size, 0);
		w = t_orc_read(AT_FDCWD, "/proc/self/maps", want, size);
		if (g == w && g > 0 && !memcmp(got, want, g))
			break;
	}
	tap_is_mem(got, g < 0 ? 0 : g, want, w < 0 ? 0 : w,
		   "/proc/self/maps matches open/read/close");

	g = readfile(AT_FDCWD, "/proc/self/maps", got, 10, 0);
	tap_is_mem(got, g < 0 ? 0 : g, want, 10,
		   "/proc/self/maps into 10 bytes: the first 10 bytes");
	free(got);
	free(want);
}

static void test_paths(int dir)
{
	char path[4096], buf[64];
	int fd;

	if (t_write_file(dir, "abs", "absolute\n", 9, 0644))
		tap_bail("write abs");
	snprintf(path, sizeof(path), "/proc/self/fd/%d/abs", dir);
	tap_is_long(readfile(-1, path, buf, sizeof(buf), 0), 9,
		    "absolute path ignores an invalid dfd");
	tap_is_long(readfile(12345, path, buf, sizeof(buf), 0), 9,
		    "absolute path ignores a closed dfd");

	fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fchdir(dir) < 0) {
		tap_skip(1, "cannot enter the scratch directory");
	} else {
		tap_is_long(readfile(AT_FDCWD, "abs", buf, sizeof(buf), 0), 9,
			    "AT_FDCWD resolves from the working directory");
		if (fchdir(fd) < 0)
			tap_bail("fchdir back");
	}
	if (fd >= 0)
		close(fd);

	if (symlinkat("abs", dir, "link"))
		tap_bail("symlink");
	tap_is_long(readfile(dir, "link", buf, sizeof(buf), 0), 9,
		    "a symlink is followed without O_NOFOLLOW");
	tap_is_long(readfile(dir, "abs", buf, sizeof(buf), O_NOFOLLOW), 9,
		    "O_NOFOLLOW on a regular file reads it");
	tap_is_long(readfile(dir, "abs", buf, sizeof(buf), O_RDONLY), 9,
		    "O_RDONLY (0) is accepted");
}

int main(void)
{
	int dir = open(t_tmpdir("readfile"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		tap_bail("scratch directory");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		test_size(dir, sizes[i]);
	test_vulnerabilities();
	test_proc_maps();
	test_paths(dir);
	close(dir);
	return tap_done();
}
