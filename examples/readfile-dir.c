// SPDX-License-Identifier: MIT
/*
 * readfile-dir.c - print every file of a directory with readfile(), relative
 * to one directory descriptor: the classic sysfs and procfs use case.
 *
 *   cc -o readfile-dir readfile-dir.c $(pkg-config --cflags --libs getvalues)
 *   ./readfile-dir /sys/devices/system/cpu/vulnerabilities
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <getvalues.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] :
			   "/sys/devices/system/cpu/vulnerabilities";
	struct dirent *de;
	char buf[4096];
	DIR *d;

	d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_type != DT_REG)
			continue;
		n = readfile(dirfd(d), de->d_name, buf, sizeof(buf), 0);
		if (n < 0) {
			printf("%-28s (%s)\n", de->d_name, strerror(errno));
			continue;
		}
		/* the first line; a count of the rest */
		char *nl = memchr(buf, '\n', n);
		int lines = 0;

		for (char *p = nl; p && p < buf + n - 1;
		     p = memchr(p + 1, '\n', buf + n - p - 1))
			lines++;
		printf("%-28s %.*s", de->d_name, (int)(nl ? nl - buf : n), buf);
		printf(lines ? "  (+%d lines)\n" : "\n", lines);
	}
	closedir(d);
	return 0;
}
