// SPDX-License-Identifier: MIT
/*
 * run.c - running the command-line tools for their tests: byte strings,
 * programs run with their output captured, checks on what they gave.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/run.h"
#include "lib/tap.h"
#include "lib/util.h"

/* The tool under test, found in $GV_BUILD by tool_init(). */
static char tool[PATH_MAX];

/* ---- a growing byte string ---- */

void sb_add(struct sb *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			tap_bail("out of memory");
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sb_adds(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(struct sb *b, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		tap_bail("out of memory");
	sb_add(b, s, n);
	free(s);
}

void sb_hex(struct sb *b, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		sb_printf(b, "%02x", s[i]);
}

void sb_escaped(struct sb *b, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '\a': sb_add(b, "\\a", 2); break;
		case '\b': sb_add(b, "\\b", 2); break;
		case '\t': sb_add(b, "\\t", 2); break;
		case '\n': sb_add(b, "\\n", 2); break;
		case '\v': sb_add(b, "\\v", 2); break;
		case '\f': sb_add(b, "\\f", 2); break;
		case '\r': sb_add(b, "\\r", 2); break;
		case '\\': sb_add(b, "\\\\", 2); break;
		default:
			if (s[i] < 0x20 || s[i] >= 0x7f)
				sb_printf(b, "\\x%02x", s[i]);
			else
				sb_add(b, &s[i], 1);
		}
	}
}

void sb_items(struct sb *b, const char *const *items)
{
	for (; *items; items++)
		sb_add(b, *items, strlen(*items) + 1);
}

void sb_free(struct sb *b)
{
	free(b->p);
	*b = (struct sb){ 0 };
}

/* ---- running a program ---- */

static void drain(int *fd, struct sb *b)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0) {
		sb_add(b, buf, n);
	} else if (n == 0 || errno != EINTR) {
		close(*fd);
		*fd = -1;
	}
}

static void child(const struct spawn *sp, int out, int err,
		  const char *prog, char *const *argv)
{
	int null = open("/dev/null", O_RDONLY);

	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(err, 2) < 0)
		_exit(126);
	if (sp->fd_dst > 0) {
		if (sp->fd_src == sp->fd_dst)
			fcntl(sp->fd_dst, F_SETFD, 0);
		else if (dup2(sp->fd_src, sp->fd_dst) < 0)
			_exit(126);
	}
	if (sp->close_fd > 0)
		close(sp->close_fd);
	if (sp->cwd && chdir(sp->cwd))
		_exit(126);
	/* a hang guard, not a timing check: a stuck tool fails the test */
	alarm(600);
	setenv("LC_ALL", sp->locale ? sp->locale : "C", 1);
	for (const char *const *e = sp->env; e && *e; e++) {
		char *kv = strdup(*e);

		if (!kv || putenv(kv))
			_exit(126);
	}
	execvp(prog, argv);
	_exit(127);
}

void run_argv(struct run *r, const struct spawn *sp,
	      const char *prog, char *const *argv)
{
	static const struct spawn none = { 0 };
	int po[2], pe[2], st;
	struct pollfd pfd[2];

	*r = (struct run){ .status = -1 };
	sb_add(&r->out, "", 0);
	sb_add(&r->err, "", 0);
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	r->pid = fork();
	if (r->pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (r->pid == 0)
		child(sp ? sp : &none, po[1], pe[1], prog, argv);
	close(po[1]);
	close(pe[1]);
	pfd[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			tap_bail("poll: %s", strerror(errno));
		}
		if (pfd[0].revents)
			drain(&pfd[0].fd, &r->out);
		if (pfd[1].revents)
			drain(&pfd[1].fd, &r->err);
	}
	if (waitpid(r->pid, &st, 0) < 0)
		tap_bail("waitpid: %s", strerror(errno));
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void run_tool_v(struct run *r, const struct spawn *sp,
		const char *const *args)
{
	const char *argv[64] = { "getvalues" };
	size_t n = 1;

	for (; *args; args++) {
		if (n + 1 == ARRAY_SIZE(argv))
			tap_bail("too many arguments");
		argv[n++] = *args;
	}
	argv[n] = NULL;
	run_argv(r, sp, tool, (char *const *)argv);
}

void run_tool(struct run *r, const struct spawn *sp, ...)
{
	const char *args[64];
	size_t n = 0;
	va_list ap;

	va_start(ap, sp);
	while ((args[n] = va_arg(ap, const char *)))
		if (++n == ARRAY_SIZE(args))
			tap_bail("too many arguments");
	va_end(ap);
	run_tool_v(r, sp, args);
}

void run_free(struct run *r)
{
	sb_free(&r->out);
	sb_free(&r->err);
}

void expect(const struct run *r, int status,
	    const struct sb *out, const char *err,
	    const char *what)
{
	tap_is_long(r->status, status, "%s: exit status %d", what, status);
	if (out)
		tap_is_mem(r->out.p, r->out.len, out->p, out->len,
			   "%s: standard output", what);
	if (err)
		tap_is_mem(r->err.p, r->err.len, err, strlen(err),
			   "%s: standard error", what);
}

int tool_count_calls(const char *origin, const char *trace,
		     const char *const *args)
{
	const char *argv[64] = { "strace", "-f", "-qq", "-e", "trace=%file",
				 "-e", "signal=none", "-o", NULL, "--", tool,
				 "--backend=sync" };
	char quoted[PATH_MAX + 2];
	struct sb log = { 0 };
	size_t n = 12;
	struct run r;
	int calls = 0;

	argv[8] = trace;
	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	run_argv(&r, NULL, "strace", (char *const *)argv);
	{
		static char buf[1 << 20];
		ssize_t got = t_orc_read(AT_FDCWD, trace, buf, sizeof(buf) - 1);

		if (got > 0)
			sb_add(&log, buf, got);
	}
	/*
	 * strace exits as the tool did (0, 1, 32 or 64: getvalues(1));
	 * no execve line: no tracing
	 */
	if ((r.status > 1 && r.status != 32 && r.status != 64) || !log.p ||
	    !strstr(log.p, "execve(")) {
		tap_diag("strace: status %d: %s", r.status, r.err.p);
		calls = -1;
	}
	run_free(&r);
	unlink(trace);
	snprintf(quoted, sizeof(quoted), "\"%s\"", origin);
	/* every line naming the path but the execve of the tool */
	for (char *l = log.p, *nl; calls >= 0 && l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if (strstr(l, quoted) && !strstr(l, "execve("))
			calls++;
	}
	sb_free(&log);
	return calls;
}

bool tool_have_json;

void tool_init(const char *name)
{
	const char *build = getenv("GV_BUILD");
	const char *argv[] = { "python3", "-c", "import json", NULL };
	struct run r;

	if (!build || !*build)
		tap_bail("GV_BUILD is not set (run through make check)");
	snprintf(tool, sizeof(tool), "%s/tools/%s", build, name);
	if (access(tool, X_OK))
		tap_bail("%s: %s", tool, strerror(errno));
	run_argv(&r, NULL, "python3", (char *const *)argv);
	tool_have_json = r.status == 0;
	run_free(&r);
}
