// SPDX-License-Identifier: MIT
/*
 * native_parity_readfile.c - the same readfile() calls through the native
 * readfile(2) and through the library's plain system calls (sync): return
 * values, errnos and bytes must be the same, for files, directories,
 * links, a device, /proc and /sys, into buffers from 0 bytes to more than
 * the largest file, and for a FIFO, where both wait for the writer. Runs
 * where the kernel has readfile(2) (kernel/kcheck.sh); elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/parity.h"
#include "lib/tap.h"
#include "lib/util.h"

/* readfile() of every kind of file, into buffers of every size. */
static void calls_readfile(void)
{
	/* "fifo" has no writer: SPEC v2's readfile waits for one (below) */
	static const char *const paths[] = {
		"a", "empty", "big", "d", "missing", "link", "dangling",
		"null", "/proc/self/cmdline", "/sys/kernel/uevent_seqnum",
	};
	char *b[2];

	b[0] = malloc(400000);
	b[1] = malloc(400000);
	for (size_t i = 0; i < GV_ARRAY_SIZE(paths); i++) {
		static const size_t sizes[] = { 0, 1, 6, 65536, 400000 };

		for (size_t s = 0; s < GV_ARRAY_SIZE(sizes); s++) {
			ssize_t r[2];
			int e[2];

			for (int k = 0; k < 2; k++) {
				gv_backend_force(k ? GV_BACKEND_SYNC :
						     GV_BACKEND_NATIVE);
				errno = 0;
				r[k] = readfile(np_scratch_fd, paths[i], b[k],
						sizes[s], 0);
				e[k] = r[k] < 0 ? errno : 0;
			}
			gv_backend_force(GV_BACKEND_AUTO);
			if (!tap_ok(r[0] == r[1] && e[0] == e[1] &&
				    (r[0] <= 0 || !memcmp(b[0], b[1], r[0])),
				    "readfile %s into %zu bytes", paths[i],
				    sizes[s]))
				tap_diag("native %zd (%s), sync %zd (%s)",
					 r[0], strerror(e[0]), r[1],
					 strerror(e[1]));
		}
	}
	free(b[0]);
	free(b[1]);
}

/* A FIFO: readfile waits for a writer, then reads what it wrote, to EOF. */
static void calls_readfile_fifo(void)
{
	static const char text[] = "through the FIFO";
	char b[2][64];
	ssize_t r[2];
	int e[2];

	for (int k = 0; k < 2; k++) {
		pid_t pid = fork();

		if (pid < 0)
			tap_bail("fork: %s", strerror(errno));
		if (pid == 0) {
			int fd;

			alarm(10);	/* a readfile that did not wait */
			fd = openat(np_scratch_fd, "fifo", O_WRONLY);

			_exit(fd < 0 || write(fd, text, sizeof(text) - 1) !=
			      sizeof(text) - 1);
		}
		gv_backend_force(k ? GV_BACKEND_SYNC : GV_BACKEND_NATIVE);
		errno = 0;
		r[k] = readfile(np_scratch_fd, "fifo", b[k], sizeof(b[k]), 0);
		e[k] = r[k] < 0 ? errno : 0;
		gv_backend_force(GV_BACKEND_AUTO);
		waitpid(pid, NULL, 0);
	}
	if (!tap_ok(r[0] == r[1] && e[0] == e[1] &&
		    r[0] == sizeof(text) - 1 && !memcmp(b[0], b[1], r[0]),
		    "readfile of a FIFO: waits for the writer"))
		tap_diag("native %zd (%s), sync %zd (%s)", r[0],
			 strerror(e[0]), r[1], strerror(e[1]));
}

int main(void)
{
	np_start();
	calls_readfile();
	calls_readfile_fifo();
	return tap_done();
}
