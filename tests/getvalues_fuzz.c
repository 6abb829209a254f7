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
#include <sys/stat.h>
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

/*
 * The inputs: $GV_FUZZ_DIR, else <source>/tests/fuzz found from GV_BUILD
 * (<source>/build*) or from where this program lives, else ./tests/fuzz.
 */
static bool find_inputs(char *top, size_t size)
{
	const char *env = getenv("GV_FUZZ_DIR"), *build = getenv("GV_BUILD");
	char exe[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;

	if (env && *env) {
		snprintf(top, size, "%s", env);
		return stat(top, &st) == 0;
	}
	if (build && *build) {
		snprintf(top, size, "%s/../tests/fuzz", build);
		if (stat(top, &st) == 0)
			return true;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		for (int up = 0; up < 3 && (slash = strrchr(exe, '/')); up++)
			*slash = 0;	/* <source>/build/tests/prog -> <source> */
		snprintf(top, size, "%s/tests/fuzz", exe);
		if (stat(top, &st) == 0)
			return true;
	}
	snprintf(top, size, "tests/fuzz");
	return stat(top, &st) == 0;
}

int main(int argc, char **argv)
{
	char top[PATH_MAX + 16];

	if (!find_inputs(top, sizeof(top)))
		tap_skip_all("fuzz inputs not found (set GV_FUZZ_DIR to the "
			     "source's tests/fuzz)");
	LLVMFuzzerInitialize(&argc, &argv);
	replay_dir(top, "corpus");
	replay_dir(top, "regressions");
	return tap_done();
}
