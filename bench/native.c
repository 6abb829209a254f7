// SPDX-License-Identifier: MIT
/*
 * native.c - the native system calls against what they replace, in a
 * kernel that has them (the kcheck guest: kernel/kcheck.sh --bench):
 * readfile(2) against open/read/close, getvalues(2) against the library on
 * plain system calls (sync) for a batch of 64 files and for mount queries.
 *
 *   native [-r REPEATS] [-d DIR] [-m MOUNTS,MOUNTS,...]
 *
 * readfile: procfs, sysfs, tmpfs and DIR (default $TMPDIR, the guest's
 * ext4 disk) files of 4 KiB or less, each method called in turn. Batch:
 * one getvalues() call with 64 data: entries in one shared buffer, against
 * 64 open/read/close. Mounts: in a mount namespace of its own with MOUNTS
 * extra tmpfs mounts, the 13 mnt fields of one path in one call, and the
 * whole table (mntns, then every field of every mount, two calls). Tables
 * show medians over REPEATS of the time per call or per operation, and
 * ratios: above 1 means native is faster. Under QEMU's TCG the absolute
 * times are far from real hardware's; read the ratios.
 *
 * The backends are switched in-process with the library's internal
 * gv_backend_force() (the static library is linked).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <getvalues.h>

#include "../src/internal.h"
#include "bench.h"

#define MAX_REPEATS	101
#define BATCH		64
#define SLOT		8192
#define MAX_MOUNT_SETS	8

static int repeats = 7;
static char dir[PATH_MAX];
static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "native: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *path, size_t size)
{
	char data[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(data, 'x', sizeof(data));
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd))
		die(path);
}

/* open/read/close, as a program without the library does it */
static ssize_t orc(const char *path)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, SLOT - len)) > 0)
		len += n;
	close(fd);
	return len;
}

static ssize_t lib_readfile(enum gv_backend_id b, const char *path)
{
	gv_backend_force(b);
	return readfile(AT_FDCWD, path, buf, SLOT, 0);
}

/* ---- readfile ---- */

static void bench_readfile(void)
{
	char tmpfs_file[] = "/tmp/gv-bench-native-4k";
	char disk_file[PATH_MAX + 16];
	const struct { const char *label, *path; } files[] = {
		{ "procfs /proc/self/stat", "/proc/self/stat" },
		{ "sysfs /sys/kernel/uevent_seqnum",
		  "/sys/kernel/uevent_seqnum" },
		{ "tmpfs, 4 KiB", tmpfs_file },
		{ bench_fs_name(dir), disk_file },
	};
	const int loops = 200;

	snprintf(disk_file, sizeof(disk_file), "%s/4k", dir);
	write_file(tmpfs_file, 4096);
	write_file(disk_file, 4096);
	printf("### readfile(2) against open/read/close\n\n");
	printf("One file read whole, %d times per repeat; microseconds per "
	       "read, medians of %d repeats.\n\n", loops, repeats);
	printf("| file | open/read/close | readfile, sync | readfile(2) | "
	       "o/r/c / readfile(2) | sync / readfile(2) |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		double t[3][MAX_REPEATS], m[3];

		for (int r = 0; r < repeats; r++) {
			for (int k = 0; k < 3; k++) {
				int method = (k + r) % 3;
				double t0 = bench_now_ns();

				for (int i = 0; i < loops; i++) {
					ssize_t n = method == 0 ?
						orc(files[f].path) :
						lib_readfile(method == 1 ?
							GV_BACKEND_SYNC :
							GV_BACKEND_NATIVE,
							files[f].path);

					if (n < 0)
						die(files[f].path);
				}
				t[method][r] = (bench_now_ns() - t0) / 1e3 /
					       loops;
			}
		}
		for (int k = 0; k < 3; k++)
			m[k] = bench_median(t[k], repeats);
		printf("| %s | %.1f | %.1f | %.1f | %.2f | %.2f |\n",
		       files[f].label, m[0], m[1], m[2], m[0] / m[2],
		       m[1] / m[2]);
	}
	printf("\n");
	gv_backend_force(GV_BACKEND_AUTO);
	unlink(tmpfs_file);
	unlink(disk_file);
}

/* ---- 64 files in one call ---- */

struct batch {
	const char *label;
	char origin[PATH_MAX];
	char names[BATCH][64];
	struct name_val v[BATCH];
};

static void batch_files(struct batch *b, const char *label,
			const char *origin, bool create)
{
	b->label = label;
	snprintf(b->origin, sizeof(b->origin), "%s", origin);
	for (int i = 0; i < BATCH; i++) {
		char path[PATH_MAX + 80];

		snprintf(b->names[i], sizeof(b->names[i]), "data:f%02d", i);
		if (create) {
			snprintf(path, sizeof(path), "%s/f%02d", origin, i);
			write_file(path, 1024);
		}
	}
}

static void batch_proc(struct batch *b)
{
	static const char *const files[] = {
		"stat", "statm", "status", "cmdline", "comm", "wchan", "io",
		"limits", "cgroup", "oom_score", "loginuid", "sessionid",
		"personality", "stack", "syscall", "timerslack_ns",
	};

	b->label = "procfs, /proc/self, 16 files 4 times";
	snprintf(b->origin, sizeof(b->origin), "/proc/self");
	for (int i = 0; i < BATCH; i++)
		snprintf(b->names[i], sizeof(b->names[i]), "data:%s",
			 files[i % 16]);
}

static int batch_call(struct batch *b, enum gv_backend_id backend)
{
	for (int i = 0; i < BATCH; i++)
		b->v[i] = (struct name_val){ .name = b->names[i] };
	b->v[0].value_in = (struct iovec){ buf, BATCH * SLOT };
	gv_backend_force(backend);
	return getvalues(AT_FDCWD, b->origin, b->v, BATCH, 0);
}

static int batch_orc(const struct batch *b)
{
	char path[PATH_MAX + 80];

	for (int i = 0; i < BATCH; i++) {
		snprintf(path, sizeof(path), "%s/%s", b->origin,
			 b->names[i] + 5);
		if (orc(path) < 0 && errno != EACCES && errno != ENOENT)
			return -1;
	}
	return BATCH;
}

static void bench_batch(void)
{
	static struct batch sets[3];
	char tmp[] = "/tmp/gv-bench-native-batch", disk[PATH_MAX + 16];
	const int loops = 20;

	snprintf(disk, sizeof(disk), "%s/batch", dir);
	mkdir(tmp, 0755);
	mkdir(disk, 0755);
	batch_files(&sets[0], "tmpfs, 64 files of 1 KiB", tmp, true);
	batch_files(&sets[1], bench_fs_name(dir), disk, true);
	batch_proc(&sets[2]);
	printf("### getvalues(2): 64 files in one call\n\n");
	printf("One getvalues() call with 64 data: entries in one buffer, "
	       "%d calls per repeat; microseconds per call, medians of %d "
	       "repeats.\n\n", loops, repeats);
	printf("| files | 64 × open/read/close | getvalues, sync | "
	       "getvalues(2) | o/r/c / getvalues(2) | sync / getvalues(2) |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	for (int s = 0; s < 3; s++) {
		struct batch *b = &sets[s];
		double t[3][MAX_REPEATS], m[3];

		for (int r = 0; r < repeats; r++) {
			for (int k = 0; k < 3; k++) {
				int method = (k + r) % 3;
				double t0 = bench_now_ns();

				for (int i = 0; i < loops; i++) {
					int n = method == 0 ? batch_orc(b) :
						batch_call(b, method == 1 ?
							GV_BACKEND_SYNC :
							GV_BACKEND_NATIVE);

					if (n != BATCH)
						die(b->label);
				}
				t[method][r] = (bench_now_ns() - t0) / 1e3 /
					       loops;
			}
		}
		for (int k = 0; k < 3; k++)
			m[k] = bench_median(t[k], repeats);
		printf("| %s | %.0f | %.0f | %.0f | %.2f | %.2f |\n",
		       b->label, m[0], m[1], m[2], m[0] / m[2], m[1] / m[2]);
	}
	printf("\n");
	gv_backend_force(GV_BACKEND_AUTO);
	for (int i = 0; i < BATCH; i++) {
		char path[PATH_MAX + 80];

		snprintf(path, sizeof(path), "%s/f%02d", tmp, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/f%02d", disk, i);
		unlink(path);
	}
	rmdir(tmp);
	rmdir(disk);
}

/* ---- mounts ---- */

static const char *const mnt_fields[] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source", "superopts",
};
#define NFIELDS (sizeof(mnt_fields) / sizeof(mnt_fields[0]))

static struct name_val *table;
static char (*table_names)[48];

/* The 13 fields of the mount of @path, in one call. */
static int mount_of(const char *path, enum gv_backend_id backend)
{
	static char names[NFIELDS][24];
	struct name_val v[NFIELDS];

	for (size_t i = 0; i < NFIELDS; i++) {
		snprintf(names[i], sizeof(names[i]), "%s%s", i ? ":" : "mnt:",
			 mnt_fields[i]);
		v[i] = (struct name_val){ .name = names[i] };
	}
	v[0].value_in = (struct iovec){ buf, SLOT };
	gv_backend_force(backend);
	return getvalues(AT_FDCWD, path, v, NFIELDS, 0) == NFIELDS &&
	       !v[NFIELDS - 1].error ? 0 : -1;
}

/* The whole table: mntns, then every field of every mount. */
static int whole_table(enum gv_backend_id backend, size_t *mounts)
{
	struct name_val v = { .name = "mntns", .value_in = { buf, 1 << 20 } };
	size_t n = 0;
	char *p, *end;

	gv_backend_force(backend);
	if (getvalues(AT_FDCWD, "/", &v, 1, 0) != 1 || v.error)
		return -1;
	end = (char *)v.value_out.iov_base + v.value_out.iov_len;
	for (p = v.value_out.iov_base; p < end; p += strlen(p) + 1) {
		for (size_t f = 0; f < NFIELDS; f++, n++) {
			if (f)
				snprintf(table_names[n], 48, ":%s",
					 mnt_fields[f]);
			else
				snprintf(table_names[n], 48, "mntns:%s:%s", p,
					 mnt_fields[f]);
			table[n] = (struct name_val){ .name = table_names[n] };
		}
	}
	table[0].value_in = (struct iovec){ buf + (1 << 20), 16 << 20 };
	*mounts = n / NFIELDS;
	return getvalues(AT_FDCWD, "/", table, n, 0) == (int)n ? 0 : -1;
}

static void add_mounts(int have, int want)
{
	for (int i = have; i < want; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/tmp/gv-bench-native-m/%d", i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		if (mount("bench", path, "tmpfs", MS_NOSUID, "size=64k"))
			die("mount");
	}
}

static void bench_mounts(const int *counts, int ncounts, const char *release)
{
	int have = 0;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("### getvalues(2): mounts\n\nNot measured: no mount "
		       "namespace of our own (%s).\n\n", strerror(errno));
		return;
	}
	table = calloc(20000 * NFIELDS, sizeof(*table));
	table_names = calloc(20000 * NFIELDS, sizeof(*table_names));
	if (!table || !table_names)
		die("calloc");
	mkdir("/tmp/gv-bench-native-m", 0755);
	printf("### getvalues(2): mount queries\n\n");
	printf("In a mount namespace with the given number of mounts: the 13 "
	       "mnt fields of one path (one call), and every field of every "
	       "mount (two calls: mntns, then mntns:ID:FIELD with shorthand). "
	       "Microseconds per query, medians of %d repeats. The library "
	       "on this kernel (%s) takes what it can from statmount(2) "
	       "and listmount(2) where the kernel has them, and reads "
	       "/proc/self/mountinfo for the rest.\n\n", repeats,
	       release);
	printf("| mounts | query | getvalues, sync | getvalues(2) | "
	       "sync / getvalues(2) |\n");
	printf("|---:|---|---:|---:|---:|\n");
	for (int c = 0; c < ncounts; c++) {
		size_t mounts = 0;

		add_mounts(have, counts[c]);
		have = counts[c];
		if (whole_table(GV_BACKEND_NATIVE, &mounts))
			die("getvalues");
		for (int q = 0; q < 2; q++) {
			int loops = q ? (have > 200 ? 2 : 10) : 50;
			double t[2][MAX_REPEATS], m[2];
			size_t n;

			for (int r = 0; r < repeats; r++) {
				for (int k = 0; k < 2; k++) {
					int method = (k + r) % 2;
					enum gv_backend_id b = method ?
						GV_BACKEND_NATIVE :
						GV_BACKEND_SYNC;
					double t0 = bench_now_ns();

					for (int i = 0; i < loops; i++)
						if (q ? whole_table(b, &n) :
							mount_of("/tmp", b))
							die("getvalues");
					t[method][r] = (bench_now_ns() - t0) /
						       1e3 / loops;
				}
			}
			for (int k = 0; k < 2; k++)
				m[k] = bench_median(t[k], repeats);
			printf("| %zu | %s | %.0f | %.0f | %.2f |\n", mounts,
			       q ? "whole table" : "13 fields of one mount",
			       m[0], m[1], m[0] / m[1]);
		}
	}
	printf("\n");
	gv_backend_force(GV_BACKEND_AUTO);
}

int main(int argc, char **argv)
{
	int counts[MAX_MOUNT_SETS] = { 20, 500 }, ncounts = 2, opt;
	const char *tmpdir = getenv("TMPDIR");
	struct utsname u;

	snprintf(dir, sizeof(dir), "%s", tmpdir && *tmpdir ? tmpdir : "/tmp");
	while ((opt = getopt(argc, argv, "r:d:m:h")) != -1) {
		switch (opt) {
		case 'r':
			repeats = atoi(optarg);
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s", optarg);
			break;
		case 'm':
			ncounts = 0;
			for (char *s = strtok(optarg, ","); s &&
			     ncounts < MAX_MOUNT_SETS; s = strtok(NULL, ","))
				counts[ncounts++] = atoi(s);
			break;
		default:
			fprintf(stderr, "usage: native [-r REPEATS] [-d DIR] "
				"[-m MOUNTS,...]\n");
			return 2;
		}
	}
	if (repeats < 1 || repeats > MAX_REPEATS)
		repeats = 7;
	if (gv_backend_usable(GV_BACKEND_NATIVE)) {
		printf("The kernel lacks readfile(2) and getvalues(2): nothing "
		       "to measure (run it in the kcheck guest: "
		       "kernel/kcheck.sh --bench).\n");
		return 0;
	}
	buf = malloc(32 << 20);
	if (!buf)
		die("malloc");
	uname(&u);
	printf("Kernel %s, %ld CPUs. **Measured under emulation** (QEMU "
	       "TCG): times are not those of real hardware, the ratios are "
	       "what to read.\n\n", u.release, sysconf(_SC_NPROCESSORS_ONLN));
	bench_readfile();
	bench_batch();
	if (!geteuid())
		bench_mounts(counts, ncounts, u.release);
	return 0;
}
