// SPDX-License-Identifier: MIT
/*
 * backend_suites.c - the readfile and getvalues test programs again, under
 * GETVALUES_BACKEND=sync and GETVALUES_BACKEND=uring (prove runs them with
 * the default, auto). Each program must pass under each backend, and with
 * the same plan, passes and skips as under sync.
 *
 * The programs are the readfile* and getvalues* ones next to this one
 * (the same build flavour), but those that run every backend themselves
 * (self_run[]). With GV_SUITES=NAME,NAME only those.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "lib/tap.h"

#define MAX_PROGRAMS 64

struct outcome {
	int status;		/* exit status, or -1 */
	int planned, passed, skipped, failed;
	char first_failure[256];
};

static const char *const backends[] = { "sync", "uring" };

/* Programs that force each backend in turn: GETVALUES_BACKEND adds nothing. */
static const char *const self_run[] = {
	"getvalues_automount", "getvalues_stat_confine", "getvalues_write",
	"readfile_open",
};

/* Run @path with GETVALUES_BACKEND=@backend; count its TAP lines. */
static void run_program(const char *path, const char *backend,
			struct outcome *o)
{
	char line[1024];
	int pipefd[2], st;
	FILE *f;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	o->planned = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		setenv("GETVALUES_BACKEND", backend, 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		int a, b;

		if (sscanf(line, "%d..%d", &a, &b) == 2)
			o->planned = b;
		else if (!strncmp(line, "ok ", 3) && strstr(line, "# SKIP"))
			o->skipped++;
		else if (!strncmp(line, "ok ", 3))
			o->passed++;
		else if (!strncmp(line, "not ok ", 7) && !o->failed++)
			snprintf(o->first_failure, sizeof(o->first_failure),
				 "%.200s", line);
		else if (!strncmp(line, "Bail out!", 9))
			snprintf(o->first_failure, sizeof(o->first_failure),
				 "%.200s", line);
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		o->status = WEXITSTATUS(st);
}

static bool wanted(const char *name)
{
	const char *only = getenv("GV_SUITES");
	size_t len = strlen(name);

	if (only) {
		for (const char *p = only; *p;) {
			const char *end = strchrnul(p, ',');

			if ((size_t)(end - p) == len && !strncmp(p, name, len))
				return true;
			p = *end ? end + 1 : end;
		}
		return false;
	}
	for (size_t i = 0; i < sizeof(self_run) / sizeof(self_run[0]); i++)
		if (!strcmp(name, self_run[i]))
			return false;
	return !strncmp(name, "readfile", 8) || !strncmp(name, "getvalues", 9);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	char self[PATH_MAX], *slash, *names[MAX_PROGRAMS];
	int n = 0;
	ssize_t len;
	DIR *dir;
	struct dirent *d;

	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled, filtered, or closing direct descriptors "
			     "late as Linux 6.1 does)");
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		tap_bail("readlink /proc/self/exe: %s", strerror(errno));
	self[len] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	dir = opendir(self);
	if (!dir)
		tap_bail("opendir %s: %s", self, strerror(errno));
	while ((d = readdir(dir)) && n < MAX_PROGRAMS) {
		char path[PATH_MAX + 256];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", self, d->d_name);
		if (strchr(d->d_name, '.') || !wanted(d->d_name) ||
		    stat(path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & S_IXUSR))
			continue;
		names[n++] = strdup(d->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), name_cmp);
	if (!n)
		tap_skip_all("no readfile* or getvalues* test programs in %s",
			     self);

	tap_plan(2 * n);
	for (int i = 0; i < n; i++) {
		struct outcome o[2];
		char path[PATH_MAX + 256];

		snprintf(path, sizeof(path), "%s/%s", self, names[i]);
		for (int b = 0; b < 2; b++)
			run_program(path, backends[b], &o[b]);
		for (int b = 0; b < 2; b++) {
			bool ok = o[b].status == 0 && !o[b].failed &&
				  o[b].planned == o[b].passed + o[b].skipped;

			/* the same checks ran, and the same were skipped */
			if (b > 0 && ok)
				ok = o[b].planned == o[0].planned &&
				     o[b].skipped == o[0].skipped;
			tap_ok(ok, "%s with GETVALUES_BACKEND=%s: %d passed, "
			       "%d skipped", names[i], backends[b],
			       o[b].passed, o[b].skipped);
			if (!ok)
				tap_diag("   exit %d, plan %d, %d failed%s%s",
					 o[b].status, o[b].planned, o[b].failed,
					 o[b].first_failure[0] ? ": " : "",
					 o[b].first_failure);
		}
		free(names[i]);
	}
	return tap_done();
}
