// SPDX-License-Identifier: MIT
/*
 * lsof.c - holders of open files for the gvlsof tests, and gvlsof run
 * beside the installed lsof, their outputs compared byte for byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

char ls_tool[PATH_MAX];
char ls_as_lsof[PATH_MAX + 80];
const char *ls_dir;
pid_t ls_holders[LS_MAX_HOLDERS];
int ls_nholders;
const char *const *ls_wrap;

bool ls_have_lsof(void)
{
	return !system("command -v lsof >/dev/null 2>&1");
}

void ls_init(const char *tag)
{
	const char *build = getenv("GV_BUILD");
	char dir[PATH_MAX + 64];

	snprintf(ls_tool, sizeof(ls_tool), "%s/tools/gvlsof",
		 build ? build : "build");
	if (access(ls_tool, X_OK))
		tap_bail("%s: %s", ls_tool, strerror(errno));
	if (ls_tool[0] != '/') {
		char *abs = realpath(ls_tool, NULL);

		if (!abs)
			tap_bail("%s: %s", ls_tool, strerror(errno));
		snprintf(ls_tool, sizeof(ls_tool), "%s", abs);
		free(abs);
	}
	ls_dir = t_tmpdir(tag);
	chmod(ls_dir, 0755);
	snprintf(dir, sizeof(dir), "%s/bin", ls_dir);
	if (mkdir(dir, 0755))
		tap_bail("mkdir %s: %s", dir, strerror(errno));
	/*
	 * A copy, not a link: the build tree may be where another user
	 * cannot reach (a clone in /root), and some checks run it as nobody.
	 */
	snprintf(ls_as_lsof, sizeof(ls_as_lsof), "%s/lsof", dir);
	if (t_copy_file(ls_tool, ls_as_lsof, 0755))
		tap_bail("copy %s to %s: %s", ls_tool, ls_as_lsof,
			 strerror(errno));
}

void ls_kill_holders(void)
{
	for (int i = 0; i < ls_nholders; i++)
		if (ls_holders[i] > 0)
			kill(ls_holders[i], SIGKILL);
	for (int i = 0; i < ls_nholders; i++)
		if (ls_holders[i] > 0)
			waitpid(ls_holders[i], NULL, 0);
	ls_nholders = 0;
}

/* In a holder: where it reports to the test, which bails out. */
static int ls_ready_fd = -1;

int ls_must(int ret, const char *what)
{
	if (ret < 0) {
		dprintf(ls_ready_fd, "%s: %s\n", what, strerror(errno));
		_exit(1);
	}
	return ret;
}

const char *ls_path(const char *name)
{
	static char paths[16][PATH_MAX];
	static int k;
	char *p = paths[k++ % 16];

	snprintf(p, PATH_MAX, "%s/%s", ls_dir, name);
	return p;
}

pid_t ls_holder(void (*hold)(void *), void *arg,
			      const int *keep)
{
	int ready[2];
	char msg[512] = "";
	ssize_t n;
	pid_t pid;

	if (ls_nholders == LS_MAX_HOLDERS)
		tap_bail("too many holders");
	if (pipe2(ready, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ls_ready_fd = ready[1];
		for (int fd = 3; fd < 1024; fd++) {
			bool kept = fd == ready[1];

			for (const int *k = keep; k && *k >= 0 && !kept; k++)
				kept = *k == fd;
			if (!kept)
				close(fd);
		}
		hold(arg);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		close(ready[1]);
		for (;;)
			pause();
	}
	close(ready[1]);
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	if (n != 1) {
		msg[n > 0 ? n : 0] = 0;
		ls_kill_holders();
		tap_bail("holder: %s", n > 0 ? msg : "died");
	}
	ls_holders[ls_nholders++] = pid;
	return pid;
}

void *ls_idle(void *name)
{
	prctl(PR_SET_NAME, name);
	for (;;)
		pause();
	return NULL;
}

/*
 * A process that lives until killed (at most @ms milliseconds): a
 * grandchild, so that its parent (which returns to the test as a zombie,
 * reaped by ls_brief_reap()) reaps it and it leaves no zombie behind.
 */
static pid_t ls_brief_parent;

static pid_t ls_brief(unsigned int ms)
{
	int p[2];
	pid_t pid = 0;
	char end;

	if (pipe2(p, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	ls_brief_parent = fork();
	if (ls_brief_parent < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!ls_brief_parent) {
		pid_t c = fork();

		if (!c) {
			struct timespec ts = { ms / 1000,
					       (ms % 1000) * 1000000L };

			/*
			 * Its descriptors as they stay, and only then told:
			 * a tool started at once must not see the pipe or
			 * the test's descriptors in its first look only.
			 */
			for (int fd = 3; fd < 1024; fd++)
				if (fd != p[1])
					close(fd);
			c = getpid();
			if (write(p[1], &c, sizeof(c)) != sizeof(c))
				_exit(1);
			close(p[1]);
			nanosleep(&ts, NULL);
			_exit(0);
		}
		close(p[1]);
		waitpid(c, NULL, 0);
		_exit(0);
	}
	close(p[1]);
	/* the pid, then end of file once it has closed the pipe */
	if (read(p[0], &pid, sizeof(pid)) != sizeof(pid) || pid <= 0 ||
	    read(p[0], &end, 1) != 0)
		tap_bail("a brief process: it did not start");
	close(p[0]);
	return pid;
}

static void ls_brief_reap(void)
{
	if (ls_brief_parent > 0)
		waitpid(ls_brief_parent, NULL, 0);
	ls_brief_parent = 0;
}

int ls_free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (void *)&sin, sizeof(sin)) ||
	    getsockname(fd, (void *)&sin, &len))
		tap_bail("a free port: %s", strerror(errno));
	close(fd);
	return ntohs(sin.sin_port);
}

/* ---- running the tools ---- */

void ls_run_free(struct ls_run *r)
{
	free(r->out);
	free(r->err);
	*r = (struct ls_run){ 0 };
}

char *ls_slurp(const char *path, size_t *len)
{
	size_t cap = 65536;
	char *b = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	*len = 0;
	if (!b)
		tap_bail("out of memory");
	while (fd >= 0 && (got = read(fd, b + *len, cap - *len - 1)) > 0) {
		*len += got;
		if (*len + 1 == cap) {
			cap *= 2;
			b = realloc(b, cap);
			if (!b)
				tap_bail("out of memory");
		}
	}
	if (fd >= 0)
		close(fd);
	b[*len] = 0;
	return b;
}

pid_t ls_start_as(const char *locale, uid_t as, const char *stdout_path,
		  char *const argv[])
{
	char out[PATH_MAX], err[PATH_MAX];
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out", ls_dir);
	snprintf(err, sizeof(err), "%s/err", ls_dir);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		int o = open(stdout_path ? stdout_path : out,
			     O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);

		if (o < 0 || e < 0 || in < 0 || dup2(in, 0) < 0 ||
		    dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		setenv("LC_ALL", locale ? locale : "C", 1);
		alarm(300);	/* a hang guard: a stuck tool fails */
		if (as && (setgroups(0, NULL) || setgid(as) || setuid(as)))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

void ls_finish(struct ls_run *r, pid_t pid, bool captured)
{
	char path[PATH_MAX];
	int st;

	if (waitpid(pid, &st, 0) < 0)
		tap_bail("waitpid: %s", strerror(errno));
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	snprintf(path, sizeof(path), "%s/out", ls_dir);
	r->out = captured ? ls_slurp(path, &r->out_len) : calloc(1, 1);
	snprintf(path, sizeof(path), "%s/err", ls_dir);
	r->err = ls_slurp(path, &r->err_len);
	if (!r->out)
		tap_bail("out of memory");
}

void ls_run_as(struct ls_run *r, const char *locale, uid_t as,
	       const char *stdout_path, char *const argv[])
{
	pid_t pid = ls_start_as(locale, as, stdout_path, argv);

	ls_finish(r, pid, !stdout_path);
}

void ls_run(struct ls_run *r, const char *tool,
	    const char *locale, const char *const *args)
{
	const char *argv[80];
	size_t n = 0;

	for (const char *const *w = ls_wrap; w && *w; w++)
		argv[n++] = *w;
	argv[n++] = tool;

	for (; *args; args++) {
		if (n + 1 == sizeof(argv) / sizeof(argv[0]))
			tap_bail("too many arguments");
		argv[n++] = *args;
	}
	argv[n] = NULL;
	ls_run_as(r, locale, 0, NULL, (char *const *)argv);
}

/* How many times @mark is in the file @path now. */
static int marks_in(const char *path, const char *mark, size_t mlen)
{
	size_t len;
	char *out = ls_slurp(path, &len);
	int n = 0;

	for (const char *p = out; (p = memmem(p, out + len - p, mark, mlen));
	     p += mlen)
		n++;
	free(out);
	return n;
}

void ls_run_repeat(struct ls_run *r, const char *tool,
		   const char *const *args, const char *mark, size_t mlen,
		   int n)
{
	const char *argv[16] = { tool };
	long long until = t_now_ms() + 120 * 1000;
	pid_t pid = ls_brief(240 * 1000), run;
	size_t k = 1;
	char spid[16];
	siginfo_t si;

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	for (; *args && k < 13; args++)
		argv[k++] = *args;
	argv[k++] = "-p";
	argv[k++] = spid;
	argv[k] = NULL;
	run = ls_start_as("C", 0, NULL, (char *const *)argv);
	/* until the marks are there, the tool has ended, or two minutes */
	while (marks_in(ls_path("out"), mark, mlen) < n &&
	       t_now_ms() < until &&
	       !waitid(P_PID, run, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       !si.si_pid)
		usleep(20 * 1000);
	kill(pid, SIGKILL);
	ls_brief_reap();
	ls_finish(r, run, true);
}

void ls_diag_first_diff(const char *what, const char *a,
			const char *b)
{
	int line = 1;

	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++;
		b++;
	}
	while (line > 1 && a[-1] != '\n') {
		a--;
		b--;
	}
	tap_diag("%s: first difference at line %d:", what, line);
	tap_diag("   lsof: %.*s", (int)strcspn(a, "\n"), a);
	tap_diag(" gvlsof: %.*s", (int)strcspn(b, "\n"), b);
}

/* Remove from @r's standard error the lines that start with @prefixes. */
static void drop_err_lines(struct ls_run *r, const char *const *prefixes)
{
	char *in = r->err, *out = r->err, *end = r->err + r->err_len;

	while (in < end) {
		char *nl = memchr(in, '\n', end - in);
		size_t len = nl ? (size_t)(nl - in) + 1 : (size_t)(end - in);
		bool drop = false;

		for (const char *const *p = prefixes; *p && !drop; p++)
			drop = !strncmp(in, *p, strlen(*p));
		if (!drop) {
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	*out = 0;
	r->err_len = out - r->err;
}

/*
 * lsof's help (after a usage error, -h) sends users to lsof-org's web
 * addresses, gvlsof's to the project and its manual (gvlsof(1)): those
 * lines are left out of the comparison.
 */
static void drop_addresses(struct ls_run *l, struct ls_run *g)
{
	static const char *const lsof_lines[] = {
		" latest revision: ", " latest FAQ: ",
		" latest (non-formatted) man page: ", NULL
	};
	static const char *const gvlsof_lines[] = {
		" part of getvalues ", " manual: gvlsof(1)", NULL
	};

	drop_err_lines(l, lsof_lines);
	drop_err_lines(g, gvlsof_lines);
}

/*
 * Whether @args keep the output to the processes they name (-a -p, and
 * no other ends of their files): then the two runs must agree at once.
 */
static bool only_named(const char *const *args)
{
	bool a = false, p = false, e = false;

	for (; *args; args++) {
		a |= !strcmp(*args, "-a");
		p |= !strcmp(*args, "-p");
		/* +E/-E show the other ends, in whatever process holds them */
		e |= !strcmp(*args, "+E") || !strcmp(*args, "-E");
	}
	return a && p && !e;
}

static bool same_runs(const struct ls_run *l, const struct ls_run *g)
{
	return l->status == g->status && l->out_len == g->out_len &&
	       !memcmp(l->out, g->out, l->out_len) &&
	       l->err_len == g->err_len && !memcmp(l->err, g->err, l->err_len);
}

bool ls_same(const char *locale, const char *const *args)
{
	struct ls_run l = { 0 }, g = { 0 };
	int tries = only_named(args) ? 1 : 3;
	char what[512];
	size_t o = 0;
	bool same;

	for (const char *const *a = args; *a && o < sizeof(what) - 1; a++)
		o += snprintf(what + o, sizeof(what) - o, "%s%s",
			      a == args ? "" : " ", *a);
	/*
	 * A selection that looks at every process sees those of other
	 * programs come and go between the two runs (another test's
	 * holders): the two must agree in one of three tries.
	 */
	for (int t = 0; t < tries; t++) {
		if (t) {
			tap_diag("%s: differed, tried again", what);
			ls_run_free(&l);
			ls_run_free(&g);
		}
		ls_run(&l, "lsof", locale, args);
		ls_run(&g, ls_as_lsof, locale, args);
		drop_addresses(&l, &g);
		same = same_runs(&l, &g);
		if (same)
			break;
	}
	if (!tap_ok(same, "%s%s%s: as lsof (status, stdout, stderr)",
		    locale ? "LC_ALL=" : "", locale ? locale : "", what)) {
		if (l.status != g.status)
			tap_diag("exit status: lsof %d, gvlsof %d", l.status,
				 g.status);
		if (l.out_len != g.out_len || memcmp(l.out, g.out, l.out_len))
			ls_diag_first_diff("stdout", l.out, g.out);
		if (l.err_len != g.err_len || memcmp(l.err, g.err, l.err_len))
			ls_diag_first_diff("stderr", l.err, g.err);
	}
	ls_run_free(&l);
	ls_run_free(&g);
	return same;
}

bool ls_same_v(const char *locale, ...)
{
	const char *args[64];
	size_t n = 0;
	va_list ap;

	va_start(ap, locale);
	while ((args[n] = va_arg(ap, const char *)))
		if (++n == sizeof(args) / sizeof(args[0]) - 1)
			tap_bail("too many arguments");
	va_end(ap);
	return ls_same(locale, args);
}

const char *ls_pids(void)
{
	static char buf[256];
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < ls_nholders && o < sizeof(buf) - 16; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%s%d", i ? "," : "",
			      (int)ls_holders[i]);
	return buf;
}
