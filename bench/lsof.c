// SPDX-License-Identifier: MIT
/*
 * lsof.c - gvlsof against lsof and lsfd on a system with many open files:
 * wall time, CPU time (medians of repeats) and system calls (strace -f -c).
 *
 *   lsof [-n PROCS] [-f FDS] [-r REPEATS] [-g GVLSOF] [-O OTHER] [-H]
 *
 * Starts PROCS extra processes holding FDS descriptors each (regular files
 * opened for reading, writing or both, a directory, a deleted file,
 * /dev/null, pipes, a FIFO, unix socket pairs, TCP and UDP sockets on
 * 127.0.0.1, an eventfd), then runs every tool that is installed in turn,
 * REPEATS times, interleaved so that drift hits all alike, with its output
 * going to /dev/null. Four sets of options, each gvlsof against lsof with
 * the same: the whole system (-n -P; gvlsof with each backend the library
 * can use, gvlsof held to one CPU, where it starts no helper thread, and
 * lsfd), Internet sockets (-i), who has a file open (a file
 * every extra process holds), one process (-p). -O adds another build of
 * gvlsof (main's, say) to the first set, with -n -P, for a before and
 * after in one run. Every tool runs with a soft RLIMIT_NOFILE of
 * 1024 (lsof closes every descriptor below it when it starts). The extra
 * processes are killed by PID when the benchmark ends, however it ends,
 * and die on their own if it is killed outright (PR_SET_PDEATHSIG, and the
 * pipe they wait on).
 * With -H it only starts the processes and holds them until interrupted,
 * for looking at one tool by hand (strace -c, perf).
 * Needs no interpreter: it runs as a static binary in the QEMU guest, where
 * there is no strace: there it counts system calls itself, by running each
 * tool under ptrace(2) and counting its system-call entries, its children's
 * included, as strace -f -c does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_REPEATS	101
#define MAX_PROCS	4096

struct tool {
	const char *label;
	const char *argv[10];
	int set;		/* which option set (see set_title) */
	const char *backend;	/* GETVALUES_BACKEND, or NULL */
	bool one_cpu;		/* run on the first CPU it may run on only */
	bool gvlsof;
	bool usable;
	double ms[MAX_REPEATS], cpu[MAX_REPEATS];
	double median, cpu_median;
	long syscalls;		/* -1: strace missing or failed */
	long rows;
};

static pid_t holders[MAX_PROCS];
static int nholders;
static char scratch[PATH_MAX];

/* Kill the extra processes by PID and remove the scratch files. */
static void cleanup(void)
{
	char path[PATH_MAX + 32];

	for (int i = 0; i < nholders; i++)
		kill(holders[i], SIGKILL);
	for (int i = 0; i < nholders; i++)
		waitpid(holders[i], NULL, 0);
	nholders = 0;
	if (!scratch[0])
		return;
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/f%d", scratch, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/fifo", scratch);
	unlink(path);
	rmdir(scratch);
	scratch[0] = 0;
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The kinds of descriptor a holder opens, in turn, until it has @fds. */
static int open_kind(int k, int *out)
{
	char path[PATH_MAX + 32];
	int p[2], fd, n = 1;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	switch (k % 12) {
	case 0:
	case 1:
	case 2:
		snprintf(path, sizeof(path), "%s/f%d", scratch, k % 8);
		fd = open(path, k % 3 == 0 ? O_RDONLY :
				k % 3 == 1 ? O_WRONLY : O_RDWR);
		break;
	case 3:
		fd = open(scratch, O_RDONLY | O_DIRECTORY);
		break;
	case 4:
		fd = open("/dev/null", O_RDWR);
		break;
	case 5:
		if (pipe(p))
			return -1;
		out[0] = p[0];
		fd = p[1];
		n = 2;
		out++;
		break;
	case 6:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p))
			return -1;
		out[0] = p[0];
		fd = p[1];
		n = 2;
		out++;
		break;
	case 7:
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 && errno == EAFNOSUPPORT)
			fd = eventfd(0, 0);	/* no IPv4 (the guest) */
		else if (fd < 0 || bind(fd, (void *)&sin, sizeof(sin)) ||
			 listen(fd, 1))
			return -1;
		break;
	case 8:
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 && errno == EAFNOSUPPORT)
			fd = eventfd(0, 0);
		else if (fd < 0 || bind(fd, (void *)&sin, sizeof(sin)))
			return -1;
		break;
	case 9:
		fd = eventfd(0, 0);
		break;
	case 10:
		snprintf(path, sizeof(path), "%s/fifo", scratch);
		fd = open(path, O_RDWR);
		break;
	default:
		/* a file that was never linked shows as deleted */
		fd = open(scratch, O_RDWR | O_TMPFILE, 0600);
		break;
	}
	if (fd < 0)
		return -1;
	out[0] = fd;
	return n;
}

/*
 * A holder: stdio on /dev/null, the read end of @death (which reports EOF
 * when the benchmark is gone), then descriptors up to @fds in total.
 */
static void holder(int fds, int death, int ready)
{
	int have = 4, got[2], null = open("/dev/null", O_RDWR);
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0)
		_exit(1);
	close(null);
	if (dup2(death, 3) < 0)
		_exit(1);
	for (int k = 0; have < fds; k++) {
		int n = open_kind(k, got);

		if (n < 0)
			_exit(1);
		if (have + n > fds) {	/* a pair that does not fit */
			close(got[1]);
			n = 1;
		}
		have += n;
	}
	if (write(ready, "", 1) != 1)
		_exit(1);
	close(ready);
	while (read(3, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void start_holders(int procs, int fds)
{
	int death[2], ready[2];
	char c;

	if (pipe2(death, O_CLOEXEC))
		die("pipe");
	for (int i = 0; i < procs; i++) {
		pid_t pid;

		/* a pipe per holder: one that fails ends it, with no byte */
		if (pipe2(ready, O_CLOEXEC))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(death[1]);
			close(ready[0]);
			holder(fds, death[0], ready[1]);
		}
		holders[nholders++] = pid;
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "lsof: a holder process could not "
				"open its descriptors (is lo up?)\n");
			exit(1);
		}
		close(ready[0]);
	}
	close(death[0]);
	/* death[1] stays open, close-on-exec, until we exit */
}

/* In the child, before exec: output, RLIMIT_NOFILE, GETVALUES_BACKEND. */
static void exec_setup(const struct tool *t, const char *out)
{
	struct rlimit rl;
	int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
		     0600);
	int e = open("/dev/null", O_WRONLY);

	if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
		_exit(127);
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (t->backend)
		setenv("GETVALUES_BACKEND", t->backend, 1);
	else
		unsetenv("GETVALUES_BACKEND");
	if (t->one_cpu) {
		cpu_set_t set, one;

		CPU_ZERO(&one);
		if (sched_getaffinity(0, sizeof(set), &set))
			_exit(127);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				CPU_SET(c, &one);
				break;
			}
		if (sched_setaffinity(0, sizeof(one), &one))
			_exit(127);
	}
}

/*
 * Run @t with stdout to @out (a path, or NULL for /dev/null); @ms gets the
 * wall time, @cpu the user and system time the kernel counted for it.
 */
static int run(const struct tool *t, const char *const *prefix,
	       const char *out, double *ms, double *cpu)
{
	struct rusage ru;
	const char *argv[32];
	int n = 0, status;
	double t0 = bench_now_ns();
	pid_t pid;

	for (; prefix && prefix[n]; n++)
		argv[n] = prefix[n];
	for (int i = 0; t->argv[i]; i++)
		argv[n++] = t->argv[i];
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		exec_setup(t, out);
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	if (ms)
		*ms = (bench_now_ns() - t0) / 1e6;
	if (cpu)
		*cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ptrace_count(), in the tracer process. */
static long ptrace_count_here(const struct tool *t)
{
	struct __ptrace_syscall_info info;
	long calls = 0;
	int status;
	pid_t pid = fork(), w;

	if (pid < 0)
		die("fork");
	if (!pid) {
		exec_setup(t, NULL);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(127);
		execvp(t->argv[0], (char **)t->argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD |
		   PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		   PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	/* until the tool and every child it made are gone */
	while ((w = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, w, sizeof(info),
				   &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY)
				calls++;
		} else if (!(status >> 16) && WSTOPSIG(status) != SIGSTOP &&
			   WSTOPSIG(status) != SIGTRAP) {
			sig = WSTOPSIG(status);	/* a real signal: deliver it */
		}
		ptrace(PTRACE_SYSCALL, w, 0, sig);
	}
	return calls;
}

/*
 * The system calls @t makes, its children's included, counted under
 * ptrace(2): one per system-call entry stop (PTRACE_GET_SYSCALL_INFO,
 * Linux 5.3), as strace -f -c counts them. -1 if it cannot be traced.
 * The tracer is a process of its own: waitpid(-1) there sees the tool and
 * its children only, never the holders, which are ours and never exit.
 */
static long ptrace_count(const struct tool *t)
{
	long calls = -1;
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(p[0]);
		calls = ptrace_count_here(t);
		_exit(write(p[1], &calls, sizeof(calls)) == sizeof(calls) ?
		      0 : 1);
	}
	close(p[1]);
	if (read(p[0], &calls, sizeof(calls)) != sizeof(calls))
		calls = -1;
	close(p[0]);
	waitpid(pid, &status, 0);
	return calls;
}

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* The "calls" column of the "total" line of strace -c. */
static long strace_total(const char *path)
{
	char line[512];
	long calls = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		double pct, secs;
		long usecs, n;

		if (strstr(line, " total") &&
		    sscanf(line, "%lf %lf %ld %ld", &pct, &secs, &usecs, &n) == 4)
			calls = n;
	}
	fclose(f);
	return calls;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Processes and descriptors on the system, for the table's caption. */
static void system_size(int *procs, long *fds)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	*procs = 0;
	*fds = 0;
	while (proc && (d = readdir(proc))) {
		char path[300];
		DIR *fd;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		(*procs)++;
		snprintf(path, sizeof(path), "/proc/%s/fd", d->d_name);
		fd = opendir(path);
		while (fd && (d = readdir(fd)))
			*fds += d->d_name[0] != '.';
		if (fd)
			closedir(fd);
	}
	if (proc)
		closedir(proc);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lsof [-n PROCS] [-f FDS] [-r REPEATS] [-g GVLSOF] "
		"[-O OTHER] [-H]\n");
	exit(2);
}

/* The option sets measured, each gvlsof against lsof with the same. */
enum { SET_ALL, SET_INET, SET_FILE, SET_PID, NSETS };

static const char *const set_title[NSETS] = {
	"The whole system (`-n -P`)",
	"Internet sockets (`-n -P -i`)",
	"Who has a file open (`-n -P FILE`, a file every holder has open)",
	"One process (`-n -P -p PID`, a holder)",
};

static void print_set(const struct tool *tools, int ntools, int set)
{
	const struct tool *base = NULL;

	for (int i = 0; i < ntools; i++)
		if (tools[i].set == set && tools[i].gvlsof &&
		    !tools[i].backend && tools[i].usable) {
			base = &tools[i];
			break;
		}
	printf("### %s\n\n", set_title[set]);
	printf("| tool | wall ms | CPU ms | system calls | output lines | "
	       "wall / gvlsof's | CPU / gvlsof's | calls / gvlsof's |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < ntools; i++) {
		const struct tool *t = &tools[i];
		char calls[32] = "n/a", tr[32] = "", ur[32] = "", cr[32] = "";

		if (t->set != set)
			continue;
		if (!t->usable) {
			if (!t->backend)
				printf("| %s | not installed | | | | | | |\n",
				       t->label);
			continue;
		}
		if (t->syscalls >= 0)
			snprintf(calls, sizeof(calls), "%ld", t->syscalls);
		if (base && t != base) {
			snprintf(tr, sizeof(tr), "%.2f",
				 t->median / base->median);
			snprintf(ur, sizeof(ur), "%.2f",
				 t->cpu_median / base->cpu_median);
			if (t->syscalls >= 0 && base->syscalls > 0)
				snprintf(cr, sizeof(cr), "%.2f",
					 (double)t->syscalls / base->syscalls);
		}
		printf("| %s | %.1f | %.1f | %s | %ld | %s | %s | %s |\n",
		       t->label, t->median, t->cpu_median, calls, t->rows, tr,
		       ur, cr);
	}
	printf("\n");
}

/* @order: 0 .. @n - 1 in an order of its own for each @seed. */
static void shuffle(int *order, int n, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j, t;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		j = x % (uint32_t)(i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

static char file_arg[PATH_MAX + 16], pid_arg[32];

/* Every tool run, by option set; argv[0] NULL: the gvlsof measured. */
static struct tool tools[] = {
	{ .label = "gvlsof -n -P (default backend)", .gvlsof = true,
	  .argv = { NULL, "-n", "-P" } },
	{ .label = "gvlsof -n -P, GETVALUES_BACKEND=sync",
	  .backend = "sync", .gvlsof = true,
	  .argv = { NULL, "-n", "-P" } },
	{ .label = "gvlsof -n -P, GETVALUES_BACKEND=uring",
	  .backend = "uring", .gvlsof = true,
	  .argv = { NULL, "-n", "-P" } },
	{ .label = "gvlsof -n -P, GETVALUES_BACKEND=native",
	  .backend = "native", .gvlsof = true,
	  .argv = { NULL, "-n", "-P" } },
	{ .label = "gvlsof -n -P, on one CPU (no helper threads)",
	  .one_cpu = true, .gvlsof = true,
	  .argv = { NULL, "-n", "-P" } },
	{ .label = "lsof -n -P", .argv = { "lsof", "-n", "-P" } },
	{ .label = "lsfd", .argv = { "lsfd" } },
	{ .label = "gvlsof -n -P -i", .gvlsof = true, .set = SET_INET,
	  .argv = { NULL, "-n", "-P", "-i" } },
	{ .label = "lsof -n -P -i", .set = SET_INET,
	  .argv = { "lsof", "-n", "-P", "-i" } },
	{ .label = "gvlsof -n -P FILE", .gvlsof = true,
	  .set = SET_FILE, .argv = { NULL, "-n", "-P", file_arg } },
	{ .label = "lsof -n -P FILE", .set = SET_FILE,
	  .argv = { "lsof", "-n", "-P", file_arg } },
	{ .label = "gvlsof -n -P -p PID", .gvlsof = true,
	  .set = SET_PID, .argv = { NULL, "-n", "-P", "-p", pid_arg } },
	{ .label = "lsof -n -P -p PID", .set = SET_PID,
	  .argv = { "lsof", "-n", "-P", "-p", pid_arg } },
	/* -O: another build of gvlsof, run with no options */
	{ .label = "gvlsof of -O, -n -P", .set = -1,
	  .argv = { NULL, "-n", "-P" } },
};

#define NTOOLS	((int)(sizeof(tools) / sizeof(tools[0])))

/* What the command line asked for. */
struct config {
	int procs, fds, repeats;
	char gvlsof[PATH_MAX], other[PATH_MAX];
	bool hold;
};

static void parse_args(int argc, char **argv, struct config *c)
{
	char *slash;
	int opt;

	/* build/bench/lsof -> build/tools/gvlsof */
	snprintf(c->gvlsof, sizeof(c->gvlsof), "%s", argv[0]);
	slash = strrchr(c->gvlsof, '/');
	if (slash)
		slash[0] = 0;
	else
		strcpy(c->gvlsof, ".");
	strncat(c->gvlsof, "/../tools/gvlsof",
		sizeof(c->gvlsof) - strlen(c->gvlsof) - 1);
	while ((opt = getopt(argc, argv, "n:f:r:g:O:Hh")) != -1) {
		switch (opt) {
		case 'n': c->procs = atoi(optarg); break;
		case 'f': c->fds = atoi(optarg); break;
		case 'r': c->repeats = atoi(optarg); break;
		case 'g':
			snprintf(c->gvlsof, sizeof(c->gvlsof), "%s", optarg);
			break;
		case 'O':
			snprintf(c->other, sizeof(c->other), "%s", optarg);
			break;
		case 'H': c->hold = true; break;
		default: usage();
		}
	}
	if (c->procs < 1 || c->procs > MAX_PROCS || c->fds < 5 ||
	    c->fds > 900 || c->repeats < 1 || c->repeats > MAX_REPEATS)
		usage();
	for (int i = 0; i < NTOOLS; i++)
		if (tools[i].gvlsof)
			tools[i].argv[0] = c->gvlsof;
	if (*c->other) {
		tools[NTOOLS - 1].argv[0] = c->other;
		tools[NTOOLS - 1].set = SET_ALL;
	}
}

/* The scratch directory: eight small files and a FIFO; removed at exit. */
static void make_scratch(void)
{
	char path[PATH_MAX + 16];

	snprintf(scratch, sizeof(scratch), "/tmp/gv-bench-lsof-XXXXXX");
	if (!mkdtemp(scratch))
		die("mkdtemp");
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	for (int i = 0; i < 8; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%d", scratch, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "getvalues\n", 10) != 10)
			die(path);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/fifo", scratch);
	if (mkfifo(path, 0600))
		die("mkfifo");
}

/*
 * Which tools run here, the lines each prints, and the system calls of
 * one run of each (strace -f -c, or ptrace(2) without strace).
 */
static void probe_tools(bool have_strace)
{
	static const char *const strace[] = {
		"strace", "-f", "-c", "-o", NULL, NULL,
	};
	const char *strace_argv[6];
	char out[PATH_MAX + 16], trace[PATH_MAX + 16];

	snprintf(out, sizeof(out), "%s/out", scratch);
	snprintf(trace, sizeof(trace), "%s/trace", scratch);
	for (int i = 0; i < NTOOLS; i++) {
		struct tool *t = &tools[i];

		t->usable = t->set >= 0 && in_path(t->argv[0]) &&
			    run(t, NULL, out, NULL, NULL) == 0;
		t->rows = t->usable ? count_lines(out) : -1;
		t->syscalls = -1;
		if (!t->usable)
			continue;
		if (!have_strace) {
			t->syscalls = ptrace_count(t);
			continue;
		}
		memcpy(strace_argv, strace, sizeof(strace));
		strace_argv[4] = trace;
		run(t, strace_argv, NULL, NULL, NULL);
		t->syscalls = strace_total(trace);
	}
	unlink(out);
	unlink(trace);
}

/*
 * @repeats timed runs of every usable tool, and their medians. The tools
 * take turns in a new order each repeat (a fixed shuffle), so that none
 * always runs after the same one: in a fixed order, the default gvlsof
 * right after lsfd's walk of every process was some 10-18% slower than
 * the same listing forced to either backend.
 */
static void time_tools(int repeats)
{
	for (int r = 0; r < repeats; r++) {
		int order[NTOOLS];

		shuffle(order, NTOOLS, r);
		for (int k = 0; k < NTOOLS; k++) {
			int i = order[k];

			if (tools[i].usable)
				run(&tools[i], NULL, NULL, &tools[i].ms[r],
				    &tools[i].cpu[r]);
		}
	}
	for (int i = 0; i < NTOOLS; i++)
		if (tools[i].usable) {
			tools[i].median = bench_median(tools[i].ms, repeats);
			tools[i].cpu_median = bench_median(tools[i].cpu,
							   repeats);
		}
}

int main(int argc, char **argv)
{
	static struct config c = { .procs = 200, .fds = 25, .repeats = 11 };
	bool have_strace = in_path("strace");
	int sysprocs;
	long sysfds;

	parse_args(argc, argv, &c);
	make_scratch();
	start_holders(c.procs, c.fds);
	system_size(&sysprocs, &sysfds);
	snprintf(file_arg, sizeof(file_arg), "%s/f0", scratch);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)holders[0]);
	if (c.hold) {
		fprintf(stderr, "lsof: %d processes holding %d descriptors; "
			"%d processes, %ld descriptors in all. Interrupt to "
			"end.\n", c.procs, c.fds, sysprocs, sysfds);
		for (;;)
			pause();
	}
	probe_tools(have_strace);
	time_tools(c.repeats);
	cleanup();

	printf("%d extra processes holding %d descriptors each; %d "
	       "processes and %ld descriptors on the system in all. Wall "
	       "time and CPU time (user + system): medians of %d runs, "
	       "output to /dev/null. System calls: %s, one run.\n\n",
	       c.procs, c.fds, sysprocs, sysfds, c.repeats,
	       have_strace ? "`strace -f -c`" :
	       "counted under ptrace(2), strace not being installed");
	for (int set = 0; set < NSETS; set++)
		print_set(tools, NTOOLS, set);
	for (int i = 0; i < NTOOLS; i++)
		if (tools[i].gvlsof && tools[i].backend && !tools[i].usable)
			printf("%s: that backend is not available here.\n",
			       tools[i].label);
	return 0;
}
