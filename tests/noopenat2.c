// SPDX-License-Identifier: MIT
/*
 * noopenat2.c - without openat2(2) (kernels before 5.6, container
 * seccomp profiles that predate it; here a seccomp filter that makes it
 * fail with ENOSYS): the call still succeeds, entries that need openat2
 * fail with ENOSYS (or, where the library manages without, give exactly
 * the confined value - never anything outside $ORIGIN), entries that do
 * not need it give their values, and the tools say which kernel is needed
 * (SPEC v2 section 3). Every backend; in children, since a filter stays.
 *
 * Asked for by the hardening review of issue 14, as harden_noopenat2.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static char top[2048], abs_target[2200];
static const char file[] = "file beneath\n";
static const char secret[] = "SECRET outside\n";

static int no_openat2(void)
{
	const int nr = __NR_openat2;

	return t_seccomp_errno(&nr, 1, ENOSYS);
}

/* The entry is ENOSYS, or one of the values allowed. */
static bool nosys_or(const struct name_val *e, const char *want, int err)
{
	if (e->error == ENOSYS)
		return true;
	if (want)
		return t_is(1, e, want, strlen(want));
	return e->error == (uint32_t)err;
}

static void library(void *arg)
{
	const struct t_backend *b = arg;
	static const char *const names[] = {
		"stat:type", "fs:type", "data:file", "data:sub/inner",
		"dir:sub", "stat:size:sub/inner", "lstat:type:sub/inner",
		"data:esc/secret", "stat:size:esc/secret", "data:abs",
	};
	enum { N = GV_ARRAY_SIZE(names) };
	struct name_val v[N];
	static char buf[65536];
	char size[32], origin[2100];
	int ret, err;

	if (no_openat2()) {
		tap_skip(9, "no seccomp filter here: %s", strerror(errno));
		return;
	}
	gv_backend_force(b->id);
	snprintf(origin, sizeof(origin), "%s/origin", top);
	for (int i = 0; i < N; i++)
		v[i] = (struct name_val){ .name = names[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	errno = 0;
	ret = getvalues(AT_FDCWD, origin, v, N, 0);
	err = errno;
	if (!tap_is_long(ret, N, "%s, no openat2: the call succeeds", b->name)) {
		tap_diag("   errno %s", strerrorname_np(err));
		return;
	}
	tap_ok(t_is(1, &v[0], "dir", 3) && !v[1].error,
	       "%s, no openat2: stat:type and fs:type of $ORIGIN are there",
	       b->name);
	tap_ok(nosys_or(&v[2], file, 0), "%s, no openat2: data:file: ENOSYS "
	       "or the file (%s)", b->name, t_got(1, 0, &v[2]));
	tap_ok(nosys_or(&v[3], "inner", 0), "%s, no openat2: data:sub/inner: "
	       "ENOSYS or the file (%s)", b->name, t_got(1, 0, &v[3]));
	tap_ok(nosys_or(&v[4], "inner", 0) ||
	       t_is(1, &v[4], "inner\0", 6), "%s, no openat2: dir:sub: "
	       "ENOSYS or the listing (%s)", b->name, t_got(1, 0, &v[4]));
	snprintf(size, sizeof(size), "%d", 5);
	tap_ok(nosys_or(&v[5], size, 0) && nosys_or(&v[6], "reg", 0),
	       "%s, no openat2: stat:/lstat: of sub/inner: ENOSYS or the "
	       "values (%s, %s)", b->name, t_got(1, 0, &v[5]),
	       t_got(1, 0, &v[6]));
	/* esc -> ../outside: confined, that is <origin>/outside: ENOENT */
	tap_ok(nosys_or(&v[7], NULL, ENOENT) && nosys_or(&v[8], NULL, ENOENT),
	       "%s, no openat2: through a symlink climbing out: ENOSYS or "
	       "ENOENT, never the file outside (%s, %s)", b->name,
	       t_got(1, 0, &v[7]), t_got(1, 0, &v[8]));
	tap_ok(nosys_or(&v[9], abs_target, 0), "%s, no openat2: data: of a "
	       "symlink: ENOSYS or its target (%s)", b->name,
	       t_got(1, 0, &v[9]));
	tap_ok(!memmem(buf, sizeof(buf), "SECRET", 6), "%s, no openat2: "
	       "nothing outside $ORIGIN was read", b->name);
}

/* Run @argv under the filter; its exit status, stdout and stderr. */
static int run_tool(char *const argv[], char *out, size_t osize, char *err,
		    size_t esize)
{
	int po[2], pe[2], status;
	size_t no = 0, ne = 0;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (no_openat2())
			_exit(126);
		/* the library's own path: the native call needs no openat2 */
		setenv("GETVALUES_BACKEND", "sync", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* small outputs: all of stdout, then all of stderr */
	for (ssize_t n; no < osize - 1 &&
	     (n = read(po[0], out + no, osize - 1 - no)) > 0;)
		no += n;
	for (ssize_t n; ne < esize - 1 &&
	     (n = read(pe[0], err + ne, esize - 1 - ne)) > 0;)
		ne += n;
	out[no] = 0;
	err[ne] = 0;
	for (char *c = err; (c = strchr(c, '\n'));)
		*c = ' ';	/* one diagnostic line */
	close(po[0]);
	close(pe[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void tools(void *arg)
{
	const char *build = arg;
	static char out[65536], err[65536];
	char tool[4200], origin[2100], pid[16];
	int st;

	snprintf(origin, sizeof(origin), "%s/origin", top);
	snprintf(tool, sizeof(tool), "%s/tools/getvalues", build);
	{
		char *argv[] = { tool, origin, "data:file", "stat:size:file",
				 NULL };

		st = run_tool(argv, out, sizeof(out), err, sizeof(err));
		if (st == 126) {
			tap_skip(2, "no seccomp filter here");
			return;
		}
		if (!tap_ok(strstr(err, "5.6") != NULL, "getvalues(1) without "
			    "openat2: stderr says which kernel is needed "
			    "(openat2, Linux 5.6)"))
			tap_diag("   exit %d, stderr: %.200s", st, err);
	}
	snprintf(tool, sizeof(tool), "%s/tools/gvlsof", build);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	{
		char *argv[] = { tool, "-p", pid, NULL };

		st = run_tool(argv, out, sizeof(out), err, sizeof(err));
		if (!tap_ok(strstr(err, "5.6") != NULL, "gvlsof without "
			    "openat2: stderr says which kernel is needed "
			    "(openat2, Linux 5.6)"))
			tap_diag("   exit %d, %zu bytes out, stderr: %.200s", st,
				 strlen(out), err);
	}
}

int main(void)
{
	const char *build = getenv("GV_BUILD");
	struct t_backend bs[4];
	int n, dfd;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("noopenat2"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "origin", 0755) ||
	    mkdirat(dfd, "origin/sub", 0755) || mkdirat(dfd, "outside", 0755) ||
	    t_write_file(dfd, "origin/file", file, strlen(file), 0644) ||
	    t_write_file(dfd, "origin/sub/inner", "inner", 5, 0644) ||
	    t_write_file(dfd, "outside/secret", secret, strlen(secret),
			 0644) ||
	    symlinkat("../outside", dfd, "origin/esc"))
		tap_bail("setup in %s: %s", top, strerror(errno));
	snprintf(abs_target, sizeof(abs_target), "%s/outside/secret", top);
	if (symlinkat(abs_target, dfd, "origin/abs"))
		tap_bail("setup: %s", strerror(errno));
	close(dfd);

	n = t_backends(bs, 9);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, no openat2", bs[i].name);
		t_sub(what, 20, library, &bs[i]);
	}
	if (!build || !*build)
		tap_skip(2, "GV_BUILD is not set: no tools to run");
	else
		t_sub("the tools without openat2", 60, tools, (void *)build);
	return tap_done();
}
