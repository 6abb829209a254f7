// SPDX-License-Identifier: MIT
/*
 * mounts.c - the mount of one path, and the whole mount table, through
 * getvalues() against parsing /proc/self/mountinfo and running findmnt(8).
 *
 *   mounts [-n COUNTS] [-r REPEATS] [-t MS]
 *
 * Runs as root in a private mount namespace of its own, which it fills with
 * bind mounts up to each of COUNTS (default 20,1000,10000; the system's own
 * mounts count). For each size:
 *   one path:  id, mountpoint, options and fstype of the mount a path is on
 *              (the middle one of the added mounts);
 *   table:     every field of every mount ("mntns", then mntns:ID:FIELD).
 * getvalues() is measured with GETVALUES_MOUNT_SOURCE=statmount and
 * =mountinfo, each in a child process (the variable is read once). "parse
 * mountinfo" reads the whole file and splits the lines, as libmount does,
 * stopping the one-path query at the line of the path's mount ID (from
 * statx). "statx+statmount" is the floor of the one-path query on a
 * kernel that has statmount(2) (6.8): statx(STATX_MNT_ID_UNIQUE) of the
 * path and one statmount() of that mount asking the same four things, the
 * two system calls the library's statmount source makes, with none of its
 * own work around them. findmnt includes starting the process, which is
 * what a script pays. Every figure is the median over REPEATS of the mean
 * time per query over at least MS milliseconds; ratios are the
 * competitor's time over getvalues' (below 1: getvalues is slower).
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
#define SM_MNT_POINT	0x10U
#define SM_FS_TYPE	0x20U
#define SM_MNT_OPTS	0x80U

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

static void gv_table(void)
{
	struct name_val list = { .name = "mntns",
				 .value_in = { gv_buf, sizeof(gv_buf) } };
	size_t n = 0, off, k = 0;

	if (getvalues(AT_FDCWD, "/", &list, 1, 0) != 1 || list.error) {
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
	if (getvalues(AT_FDCWD, "/", tv, k, 0) != (int)k) {
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

static void query(int what, int q)
{
	switch (what * 2 + q) {
	case 0: gv_one(target); break;
	case 1: gv_table(); break;
	case 2: mi_one(target); break;
	case 3: mi_table(); break;
	case 4: fm_one(target); break;
	case 5: fm_table(); break;
	case 6: sink += sm_one(target); break;
	}
}

/* Median over the repeats of the mean ns per query. */
static double measure(int what, int q)
{
	double samples[MAX_REPEATS];

	query(what, q);		/* warm up */
	for (int r = 0; r < repeats; r++) {
		double t0 = bench_now_ns(), t;
		long loops = 0;

		do {
			query(what, q);
			loops++;
			t = bench_now_ns() - t0;
		} while (t < target_ns / repeats);
		samples[r] = t / loops;
	}
	return bench_median(samples, repeats);
}

/* getvalues with @source, in a child that has never called it. */
static void measure_gv(const char *source, double out[2])
{
	int fd[2];
	pid_t pid;
	int status;

	if (pipe(fd))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		double r[2];

		close(fd[0]);
		setenv("GETVALUES_MOUNT_SOURCE", source, 1);
		r[0] = measure(0, Q_ONE);
		r[1] = measure(0, Q_TABLE);
		if (write(fd[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], out, 2 * sizeof(double)) != 2 * sizeof(double))
		out[0] = out[1] = NAN;	/* e.g. statmount() missing */
	close(fd[0]);
	waitpid(pid, &status, 0);
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
		printf(" %.1f ms |", ns / 1e6);
	else
		printf(" %.1f µs |", ns / 1e3);
}

/* Two decimals below 10: getvalues being slower must not show as "0". */
static void ratio(double other, double gv)
{
	double r = other / gv;

	if (isnan(r))
		printf(" n/a |");
	else if (r < 10)
		printf(" %.2f |", r);
	else
		printf(" %.0f |", r);
}

int main(int argc, char **argv)
{
	char counts[256] = "20,1000,10000", *tok, *save;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:t:h")) != -1) {
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
		default:
			fprintf(stderr, "usage: mounts [-n COUNTS] "
				"[-r REPEATS] [-t MS]\n");
			return 2;
		}
	}
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

	printf("%d repeats, at least %.0f ms each; medians per query. "
	       "one path: mnt:id, :mountpoint, :options, :fstype; table: "
	       "mntns, then all %d fields of every mount.\n\n", repeats,
	       target_ns / 1e6 / repeats, NFIELDS);
	printf("| mounts | query | getvalues (statmount) | "
	       "getvalues (mountinfo) | statx+statmount | parse mountinfo | "
	       "findmnt | floor / getvalues | mountinfo / getvalues | "
	       "findmnt / getvalues |\n");
	printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (tok = strtok_r(counts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		double sm[2], mi[2], parse[2], fm[2], bare = NAN;
		size_t n;

		add_mounts(strtoul(tok, NULL, 10));
		n = count_mounts();
		measure_gv("statmount", sm);
		measure_gv("mountinfo", mi);
		for (int q = 0; q < 2; q++) {
			parse[q] = measure(1, q);
			fm[q] = measure(2, q);
		}
		if (sm_one(target))
			bare = measure(3, Q_ONE);
		for (int q = 0; q < 2; q++) {
			double best = isnan(sm[q]) ? mi[q] : sm[q];

			printf("| %zu | %s |", n, q ? "table" : "one path");
			cell(sm[q]);
			cell(mi[q]);
			cell(q ? NAN : bare);
			cell(parse[q]);
			cell(fm[q]);
			ratio(q ? NAN : bare, sm[q]);
			ratio(parse[q], best);
			ratio(fm[q], best);
			printf("\n");
			fflush(stdout);
		}
	}
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	return 0;
}
