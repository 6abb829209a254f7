// SPDX-License-Identifier: MIT
/*
 * getvalues_fuzz.c - replays the fuzz target's seed corpus and every kept
 * crasher (tests/fuzz/corpus, tests/fuzz/regressions) through the same
 * checks, built like any test (so also under SANITIZE=1), one TAP line per
 * input. The libFuzzer run itself is `make fuzz`.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/fuzz_getvalues.c"

#include "lib/tap.h"
#include "lib/util.h"

static int replay_file(const char *dir, const char *name)
{
	static uint8_t data[1 << 16];
	char path[PATH_MAX + 256];
	ssize_t n;
	pid_t pid;
	int status;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		tap_bail("path too long: %s", name);
	n = t_orc_read(AT_FDCWD, path, data, sizeof(data));
	if (n < 0)
		tap_bail("read %s: %s", path, strerror(errno));
	pid = fork();
	if (pid == 0) {
		alarm(20);	/* a hang is a failure too */
		LLVMFuzzerTestOneInput(data, n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		tap_bail("waitpid: %s", strerror(errno));
	return status;
}

static int replay_dir(const char *top, const char *sub)
{
	char dir[PATH_MAX + 32];
	struct dirent **list;
	int n, count = 0;

	if (snprintf(dir, sizeof(dir), "%s/%s", top, sub) >= (int)sizeof(dir))
		tap_bail("path too long: %s", top);
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		tap_bail("%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		int status;

		if (name[0] == '.')
			goto next;
		status = replay_file(dir, name);
		if (!tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
			    "%s/%s", sub, name))
			tap_diag("    %s %d", WIFSIGNALED(status) ?
				 "killed by signal" : "exit status",
				 WIFSIGNALED(status) ? WTERMSIG(status) :
				 WEXITSTATUS(status));
		count++;
next:
		free(list[i]);
	}
	free(list);
	return count;
}

int main(int argc, char **argv)
{
	const char *build = getenv("GV_BUILD");
	char top[PATH_MAX + 16] = "tests/fuzz";

	/* GV_BUILD is <source>/build*: the inputs are in <source>/tests/fuzz */
	if (build && *build) {
		snprintf(top, sizeof(top), "%s", build);
		if (strrchr(top, '/'))
			strcpy(strrchr(top, '/'), "/tests/fuzz");
	}
	LLVMFuzzerInitialize(&argc, &argv);
	replay_dir(top, "corpus");
	replay_dir(top, "regressions");
	return tap_done();
}
