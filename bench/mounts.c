// SPDX-License-Identifier: MIT
/*
 * mounts.c - the mount of one path, and the whole mount table, through
 * getvalues() against the bare system calls of each source, parsing
 * /proc/self/mountinfo, and running findmnt(8).
 *
 *   mounts [-n COUNTS] [-r REPEATS] [-t MS] [-P LOOPS]
 *
 * Runs as root in a private mount namespace of its own, which it fills with
 * bind mounts up to each of COUNTS (default 20,1000,10000; the system's own
 * mounts count). For each size:
 *   one path:  id, mountpoint, options and fstype of the mount a path is on
 *              (the middle one of the added mounts);
 *   table:     every field of every mount ("mntns", then mntns:ID:FIELD).
 * getvalues() is measured as it comes (auto) and with
 * GETVALUES_MOUNT_SOURCE=statmount and =mountinfo, each in a child process
 * of its own (the variable is read once). The floors are what a careful
 * program writes with each source: "parse mountinfo" reads the whole file
 * and splits the lines, as libmount does, stopping the one-path query at
 * the line of the path's mount ID (from statx); "statx+statmount" is
 * statx(STATX_MNT_ID_UNIQUE) of the path and one statmount() asking the
 * same four things, and "listmount+statmount" the IDs of listmount() and
 * one statmount() per mount asking for all thirteen fields (Linux 6.8).
 * findmnt includes starting the process, which is what a script pays.
 *
 * -P LOOPS: no measuring; with the mounts of the last count, the table by
 * getvalues() (auto) LOOPS times in this process, for a profiler: with
 * callgrind's --toggle-collect='gv_table_fields*' (gv_table_list: the
 * first call; the compiler may clone both), the second call's count.
 *
 * The methods take turns, in an order rotated from repeat to repeat, so
 * that a load on the machine falls on all of them alike. Each sample is
 * the mean wall and CPU time (user + system, the process and its children)
 * per query over at least MS / REPEATS milliseconds; the figures are
 * medians over REPEATS, and each ratio is the median of the ratios of one
 * repeat. A getvalues row is divided by the floor of the source it uses
 * (above 1: slower than the bare system calls); the other rows by
 * getvalues (auto). "calls" counts the system calls of one query.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "bench.h"

#define MAX_REPEATS 51
#define NFIELDS 13

extern char **environ;


/* the fields of SPEC 2.4 after the first, as shorthand after mntns:ID:id */
static const char *const shorthand[NFIELDS] = {
	NULL, ":parentid", ":root", ":mountpoint", ":options", ":shared",
	":master", ":propagate_from", ":unbindable", ":dev", ":fstype",
	":source", ":superopts",
};

static int repeats = 7;
static double target_ns = 200e6;
static char dir[] = "/tmp/gv-bench-mounts.XXXXXX";
static char target[4096];

static void die(const char *what)
{
	fprintf(stderr, "mounts: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the competitor: what a program parsing mountinfo does ---- */

static char *mi_buf;
static size_t mi_cap;

static size_t read_mountinfo(void)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		die("/proc/self/mountinfo");
	for (;;) {
		if (mi_cap - n < 65536) {
			mi_cap = mi_cap ? mi_cap * 2 : 1 << 20;
			mi_buf = realloc(mi_buf, mi_cap);
			if (!mi_buf)
				die("realloc");
		}
		r = read(fd, mi_buf + n, mi_cap - n - 1);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	mi_buf[n] = 0;
	return n;
}

static size_t unescape(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++, w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
				    (r[3] - '0'));
			r += 3;
		} else {
			*w = *r;
		}
	}
	*w = 0;
	return w - s;
}

/* Split a line at spaces; fields 4, 5, 6 and the three after "-". */
static int split_line(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

static volatile size_t sink;

/* The mount of @path from mountinfo: one line found and split. */
static void mi_one(const char *path)
{
	struct statx stx;
	char id[16], *line, *f[64];
	size_t idlen;
	int n;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx))
		die("statx");
	idlen = snprintf(id, sizeof(id), "%llu ",
			 (unsigned long long)stx.stx_mnt_id);
	read_mountinfo();
	for (line = mi_buf; *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (!strncmp(line, id, idlen)) {
			n = split_line(line, f, 64);
			for (int i = 6; i < n; i++)
				if (!strcmp(f[i], "-") && i + 1 < n) {
					sink += unescape(f[4]) +
						unescape(f[5]) +
						unescape(f[i + 1]);
					return;
				}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	fprintf(stderr, "mounts: mount %s not in mountinfo\n", id);
	exit(1);
}

/* Every line split and every field unescaped. */
static void mi_table(void)
{
	char *line, *f[64];

	read_mountinfo();
	for (line = mi_buf; *line;) {
		char *nl = strchr(line, '\n');
		int n;

		if (nl)
			*nl = 0;
		n = split_line(line, f, 64);
		for (int i = 0; i < n; i++)
			sink += unescape(f[i]);
		if (!nl)
			break;
		line = nl + 1;
	}
}

/* ---- the floor: the two system calls, bare ---- */

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#define SM_SB_BASIC	0x01U
#define SM_MNT_BASIC	0x02U
#define SM_PROPAGATE_FROM 0x04U
#define SM_MNT_ROOT	0x08U
#define SM_MNT_POINT	0x10U
#define SM_FS_TYPE	0x20U
#define SM_MNT_OPTS	0x80U
#define SM_FS_SUBTYPE	0x100U
#define SM_SB_SOURCE	0x200U
#define SM_SUPPORTED	0x1000U
#define LSMT_ROOT	0xffffffffffffffffULL

struct mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

static uint64_t sm_buf[512];

static bool sm_one(const char *path)
{
	struct mnt_id_req req = { .size = sizeof(req) };
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return false;
	req.mnt_id = stx.stx_mnt_id;
	req.param = SM_SB_BASIC | SM_MNT_BASIC | SM_MNT_POINT | SM_FS_TYPE |
		    SM_MNT_OPTS;
	return syscall(457 /* statmount */, &req, sm_buf, sizeof(sm_buf),
		       0) == 0;
}

/*
 * The whole table: the IDs from listmount(), then one statmount() of each
 * asking for what the thirteen fields take. A mount unmounted in between
 * (ENOENT) is skipped.
 */
static bool sm_table(void)
{
	static uint64_t ids[4096];
	struct mnt_id_req req = { .size = sizeof(req), .mnt_id = LSMT_ROOT };
	long n;

	do {
		n = syscall(458 /* listmount */, &req, ids, 4096, 0);
		if (n < 0)
			return false;
		for (long i = 0; i < n; i++) {
			struct mnt_id_req sr = {
				.size = sizeof(sr), .mnt_id = ids[i],
				.param = SM_SB_BASIC | SM_MNT_BASIC |
					 SM_PROPAGATE_FROM | SM_MNT_ROOT |
					 SM_MNT_POINT | SM_FS_TYPE |
					 SM_MNT_OPTS | SM_FS_SUBTYPE |
					 SM_SB_SOURCE | SM_SUPPORTED,
			};

			if (syscall(457, &sr, sm_buf, sizeof(sm_buf), 0) &&
			    errno != ENOENT)
				return false;
		}
		if (n)
			req.param = ids[n - 1];
	} while (n == 4096);
	return true;
}

/* ---- getvalues ---- */

static char gv_buf[64 << 20];

static void gv_one(const char *path)
{
	struct name_val v[4] = {
		{ .name = "mnt:id", .value_in = { gv_buf, 4096 } },
		{ .name = ":mountpoint" },
		{ .name = ":options" },
		{ .name = ":fstype" },
	};

	if (getvalues(AT_FDCWD, path, v, 4, 0) != 4 || v[0].error ||
	    v[1].error || v[2].error || v[3].error) {
		fprintf(stderr, "mounts: getvalues %s: %s / %u\n", path,
			strerror(errno), v[0].error);
		exit(1);
	}
	sink += v[1].value_out.iov_len;
}

static struct name_val *tv;
static char (*tnames)[24];
static size_t tcap;

/* The two calls of the table, apart for a profiler (-P). */
static __attribute__((noinline)) int gv_table_list(struct name_val *list)
{
	return getvalues(AT_FDCWD, "/", list, 1, 0);
}

static __attribute__((noinline)) int gv_table_fields(struct name_val *v,
						  size_t n)
{
	return getvalues(AT_FDCWD, "/", v, n, 0);
}

static void gv_table(void)
{
	struct name_val list = { .name = "mntns",
				 .value_in = { gv_buf, sizeof(gv_buf) } };
	size_t n = 0, off, k = 0;

	if (gv_table_list(&list) != 1 || list.error) {
		fprintf(stderr, "mounts: mntns: %u\n", list.error);
		exit(1);
	}
	for (off = 0; off < list.value_out.iov_len;
	     off += strlen(gv_buf + off) + 1)
		n++;
	if (n * (1 + NFIELDS) > tcap) {
		tcap = n * (1 + NFIELDS);
		tv = realloc(tv, tcap * sizeof(*tv));
		tnames = realloc(tnames, n * sizeof(*tnames));
		if (!tv || !tnames)
			die("realloc");
	}
	/* the list is overwritten by the values: copy the IDs out first */
	for (off = 0, n = 0; off < list.value_out.iov_len;
	     off += strlen(gv_buf + off) + 1, n++) {
		snprintf(tnames[n], sizeof(tnames[n]), "mntns:%s:id",
			 gv_buf + off);
		tv[k++] = (struct name_val){ .name = tnames[n] };
		for (int f = 1; f < NFIELDS; f++)
			tv[k++] = (struct name_val){ .name = shorthand[f] };
	}
	tv[0].value_in.iov_base = gv_buf;
	tv[0].value_in.iov_len = sizeof(gv_buf);
	if (gv_table_fields(tv, k) != (int)k) {
		fprintf(stderr, "mounts: table: %s\n", strerror(errno));
		exit(1);
	}
}

/* ---- findmnt ---- */

static void run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ))
		die("spawn findmnt");
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "mounts: findmnt failed\n");
		exit(1);
	}
}

static void fm_one(const char *path)
{
	char *argv[] = { "findmnt", "-n", "-o", "ID,TARGET,OPTIONS,FSTYPE",
			 "-T", (char *)path, NULL };

	run(argv);
}

static void fm_table(void)
{
	char *argv[] = { "findmnt", "-l", "-n", "-o",
			 "ID,PARENT,FSROOT,TARGET,VFS-OPTIONS,PROPAGATION,"
			 "MAJ:MIN,FSTYPE,SOURCE,FS-OPTIONS", NULL };

	run(argv);
}

/* ---- timing ---- */

enum { Q_ONE, Q_TABLE };
enum { M_AUTO, M_SM, M_MI, M_PARSE, M_BARE, M_FINDMNT, M_NUM };
#define M_GV 3		/* the first three are getvalues, in children */

static const char *const gv_source[M_GV] = { "auto", "statmount",
					     "mountinfo" };

static bool query(int m, int q)
{
	switch (m) {
	case M_AUTO: case M_SM: case M_MI:
		if (q == Q_ONE)
			gv_one(target);
		else
			gv_table();
		return true;
	case M_PARSE:
		if (q == Q_ONE)
			mi_one(target);
		else
			mi_table();
		return true;
	case M_BARE:
		return q == Q_ONE ? sm_one(target) : sm_table();
	default:
		if (q == Q_ONE)
			fm_one(target);
		else
			fm_table();
		return true;
	}
}

struct sample {
	double wall, cpu;	/* ns per query; NAN: not on this kernel */
};

/* CPU time of this process and of its children that were waited for. */
static double cpu_ns(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (self.ru_utime.tv_sec + self.ru_stime.tv_sec +
		kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) * 1e9 +
	       (self.ru_utime.tv_usec + self.ru_stime.tv_usec +
		kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) * 1e3;
}

/* One sample: queries for at least the time of a repeat. */
static struct sample sample_here(int m, int q)
{
	double t0 = bench_now_ns(), c0 = cpu_ns(), t;
	long loops = 0;

	do {
		if (!query(m, q))
			return (struct sample){ NAN, NAN };
		loops++;
		t = bench_now_ns() - t0;
	} while (t < target_ns / repeats);
	return (struct sample){ t / loops, (cpu_ns() - c0) / loops };
}

struct count_arg {
	int m, q;
};

static void count_fn(void *p)
{
	const struct count_arg *a = p;

	query(a->m, a->q);
}

static long count_calls(int m, int q)
{
	struct count_arg a = { m, q };

	return m == M_FINDMNT ? -1 : bench_count_syscalls(count_fn, &a);
}

/*
 * getvalues with one source, in a child that has never called it: it
 * answers commands on a pipe (a query to sample, or to count the system
 * calls of), so that its samples interleave with the others'.
 */
struct child {
	pid_t pid;
	int cmd, res;
};

enum { CMD_SAMPLE, CMD_COUNT };

static void child_loop(int m, int cmd, int res)
{
	int c[2];

	bool warm[2] = { false, false };

	setenv("GETVALUES_MOUNT_SOURCE", gv_source[m], 1);
	while (read(cmd, c, sizeof(c)) == sizeof(c)) {
		struct sample r = { NAN, NAN };
		long calls;

		if (c[1] < 0 || c[1] > 1)
			_exit(1);
		if (!warm[c[1]])
			query(m, c[1]);
		warm[c[1]] = true;

		if (c[0] == CMD_COUNT) {
			calls = count_calls(m, c[1]);
			if (write(res, &calls, sizeof(calls)) != sizeof(calls))
				_exit(1);
			continue;
		}
		r = sample_here(m, c[1]);
		if (write(res, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
	_exit(0);
}

static struct child start_child(struct child *kids, int m)
{
	int cmd[2], res[2];
	struct child ch;

	if (pipe(cmd) || pipe(res))
		die("pipe");
	fflush(stdout);
	ch.pid = fork();
	if (ch.pid < 0)
		die("fork");
	if (ch.pid == 0) {
		close(cmd[1]);
		close(res[0]);
		/* the pipes of the children before: theirs to see EOF on */
		for (int i = 0; i < m; i++) {
			close(kids[i].cmd);
			close(kids[i].res);
		}
		/* a source the kernel lacks makes the child exit: n/a */
		child_loop(m, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	ch.cmd = cmd[1];
	ch.res = res[0];
	return ch;
}

static bool ask(struct child *ch, int what, int q, void *out, size_t len)
{
	int c[2] = { what, q };

	return ch->pid > 0 && write(ch->cmd, c, sizeof(c)) == sizeof(c) &&
	       read(ch->res, out, len) == (ssize_t)len;
}

static void stop_child(struct child *ch)
{
	close(ch->cmd);
	close(ch->res);
	waitpid(ch->pid, NULL, 0);
}

static struct sample sample(struct child *kids, int m, int q)
{
	struct sample r = { NAN, NAN };

	if (m < M_GV) {
		if (!ask(&kids[m], CMD_SAMPLE, q, &r, sizeof(r)))
			r = (struct sample){ NAN, NAN };
		return r;
	}
	return sample_here(m, q);
}

static size_t count_mounts(void)
{
	size_t n = 0, len = read_mountinfo();

	for (size_t i = 0; i < len; i++)
		n += mi_buf[i] == '\n';
	return n;
}

static void add_mounts(size_t want)
{
	static size_t added;
	char path[4200];

	for (size_t have = count_mounts(); have < want; have++, added++) {
		snprintf(path, sizeof(path), "%s/m/%zu", dir, added);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		if (mount(dir, path, NULL, MS_BIND, NULL))
			die("bind mount");
	}
	/* the middle one of the mounts added so far */
	if (added)
		snprintf(target, sizeof(target), "%s/m/%zu", dir, added / 2);
	else
		snprintf(target, sizeof(target), "/");
}

static void cell(double ns)
{
	if (isnan(ns))
		printf(" n/a |");
	else if (ns >= 1e6)
		printf(" %.2f ms |", ns / 1e6);
	else
		printf(" %.1f µs |", ns / 1e3);
}

/* Two decimals below 10: getvalues being slower must not show as "0". */
static void ratio(double r)
{
	if (isnan(r))
		printf(" n/a |");
	else if (r < 10)
		printf(" %.2f |", r);
	else
		printf(" %.0f |", r);
}

/* The median over the repeats of @a's sample over @b's of the same repeat. */
static double median_ratio(const double *a, const double *b, int stride)
{
	double v[MAX_REPEATS];

	for (int r = 0; r < repeats; r++)
		v[r] = a[r * stride] / b[r * stride];
	return bench_median(v, repeats);
}

static double median_of(const double *a, int stride)
{
	double v[MAX_REPEATS];

	for (int r = 0; r < repeats; r++)
		v[r] = a[r * stride];
	return bench_median(v, repeats);
}

/*
 * What a row is divided by: a getvalues row by the floor of the source it
 * takes (auto: statmount() for one path where the kernel has it, mountinfo
 * for the table), the others by getvalues (auto).
 */
static int base_of(int m, int q, bool have_sm)
{
	switch (m) {
	case M_AUTO:
		return q == Q_ONE && have_sm ? M_BARE : M_PARSE;
	case M_SM:
		return M_BARE;
	case M_MI:
		return M_PARSE;
	default:
		return M_AUTO;
	}
}

static const char *method_name(int m, int q)
{
	static const char *const names[M_NUM] = {
		"getvalues", "getvalues, statmount", "getvalues, mountinfo",
		"parse mountinfo", NULL, "findmnt",
	};

	if (m == M_BARE)
		return q == Q_ONE ? "statx+statmount" : "listmount+statmount";
	return names[m];
}

static void run_size(size_t n)
{
	/* [repeat][method] */
	static double wall[2][MAX_REPEATS][M_NUM], cpu[2][MAX_REPEATS][M_NUM];
	struct child kids[M_GV];
	long calls[2][M_NUM];
	bool have_sm = sm_one(target);

	for (int m = 0; m < M_GV; m++)
		kids[m] = start_child(kids, m);
	for (int q = 0; q < 2; q++)
		for (int m = 0; m < M_NUM; m++) {
			if (m < M_GV) {
				if (!ask(&kids[m], CMD_COUNT, q, &calls[q][m],
					 sizeof(calls[q][m])))
					calls[q][m] = -1;
			} else {
				query(m, q);	/* warm up */
				calls[q][m] = count_calls(m, q);
			}
		}
	for (int r = 0; r < repeats; r++)
		for (int q = 0; q < 2; q++)
			for (int i = 0; i < M_NUM; i++) {
				int m = (i + r) % M_NUM;
				struct sample x = sample(kids, m, q);

				wall[q][r][m] = x.wall;
				cpu[q][r][m] = x.cpu;
			}
	for (int m = 0; m < M_GV; m++)
		stop_child(&kids[m]);

	for (int q = 0; q < 2; q++)
		for (int m = 0; m < M_NUM; m++) {
			int b = base_of(m, q, have_sm);

			printf("| %zu | %s | %s |", n, q ? "table" : "one path",
			       method_name(m, q));
			cell(median_of(&wall[q][0][m], M_NUM));
			cell(median_of(&cpu[q][0][m], M_NUM));
			if (calls[q][m] < 0)
				printf(" |");
			else
				printf(" %ld |", calls[q][m]);
			ratio(median_ratio(&wall[q][0][m], &wall[q][0][b],
					   M_NUM));
			ratio(median_ratio(&cpu[q][0][m], &cpu[q][0][b],
					   M_NUM));
			printf(" %s |\n", method_name(b, q));
			fflush(stdout);
		}
}

int main(int argc, char **argv)
{
	char counts[256] = "20,1000,10000", *tok, *save;
	long profile = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:t:P:h")) != -1) {
		switch (opt) {
		case 'n':
			snprintf(counts, sizeof(counts), "%s", optarg);
			break;
		case 'r':
			repeats = atoi(optarg);
			if (repeats < 1 || repeats > MAX_REPEATS)
				repeats = 7;
			break;
		case 't':
			target_ns = atof(optarg) * 1e6;
			break;
		case 'P':
			profile = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: mounts [-n COUNTS] "
				"[-r REPEATS] [-t MS] [-P LOOPS]\n");
			return 2;
		}
	}
	/* a child whose source the kernel lacks exits: n/a, not SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("private mount namespace (run as root)");
	if (!mkdtemp(dir))
		die("mkdtemp");
	if (mount("gv-bench", dir, "tmpfs", 0, NULL))
		die("tmpfs");
	{
		char m[4200];

		snprintf(m, sizeof(m), "%s/m", dir);
		if (mkdir(m, 0755))
			die(m);
	}

	if (!profile)
		printf("%d repeats, at least %.0f ms each, the methods taking "
		       "turns; medians per query, wall and CPU (user + "
		       "system). one path: mnt:id, :mountpoint, :options, "
		       ":fstype; table: mntns, then all %d fields of every "
		       "mount. A getvalues row is divided by the floor of its "
		       "source (above 1: slower than the bare system calls), "
		       "the other rows by getvalues; calls: system calls of "
		       "one query.\n\n| mounts | query | method | wall | CPU "
		       "| calls | wall ratio | CPU ratio | divided by |\n"
		       "|---:|---|---|---:|---:|---:|---:|---:|---|\n",
		       repeats, target_ns / 1e6 / repeats, NFIELDS);
	for (tok = strtok_r(counts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		add_mounts(strtoul(tok, NULL, 10));
		if (!profile)
			run_size(count_mounts());
	}
	for (long i = 0; i < profile; i++)
		gv_table();
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	return 0;
}
