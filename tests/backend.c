// SPDX-License-Identifier: MIT
/*
 * backend.c - choosing and running backends: GETVALUES_BACKEND, the uring
 * backend across fork(), from 8 threads at once (10000 calls each), behind
 * a seccomp filter that denies io_uring_setup(), with io_uring_disabled,
 * and without leaking descriptors, direct descriptor slots or rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FILES		12	/* per call: more than auto's threshold */
#define THREADS		8
#define THREAD_CALLS	10000

struct files {
	int dir;
	char path[4096];
	char content[FILES][64];
	size_t len[FILES];
};

static struct files main_files;

static void make_files(struct files *f, const char *tag)
{
	snprintf(f->path, sizeof(f->path), "%s", t_tmpdir(tag));
	f->dir = open(f->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		f->len[i] = snprintf(f->content[i], sizeof(f->content[i]),
				     "%s file %d of %s", tag, i, f->path);
		if (t_write_file(f->dir, name, f->content[i], f->len[i], 0644))
			tap_bail("write %s: %s", name, strerror(errno));
	}
}

/* Drop the files' pages, so that auto finds them cold (t_evict()). */
static bool evict(const struct files *f)
{
	static const char *const names[FILES] = {
		"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
		"f10", "f11",
	};

	return t_evict(f->dir, names, FILES);
}

/*
 * One getvalues() of every file plus a missing one; 0 when every value is
 * right, else -1 with errno from the call, or EBADMSG for a wrong value.
 */
static int read_all(const struct files *f)
{
	static const char *const names[FILES + 1] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11", ":missing",
	};
	struct name_val vec[FILES + 1];
	char buf[FILES * 64 + 16];
	int r;

	for (int i = 0; i <= FILES; i++)
		vec[i] = (struct name_val){ .name = names[i] };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(f->dir, "", vec, FILES + 1, AT_EMPTY_PATH);
	if (r < 0)
		return -1;
	for (int i = 0; i < FILES; i++)
		if (vec[i].error || vec[i].value_out.iov_len != f->len[i] ||
		    memcmp(vec[i].value_out.iov_base, f->content[i],
			   f->len[i])) {
			errno = EBADMSG;
			return -1;
		}
	if (r != FILES + 1 || vec[FILES].error != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/* readfile() of one file and of a missing one: 0, or -1 with errno. */
static int readfile_two(const struct files *f)
{
	char buf[64];
	ssize_t n = readfile(f->dir, "f3", buf, sizeof(buf), 0);

	if (n < 0)
		return -1;
	if ((size_t)n != f->len[3] || memcmp(buf, f->content[3], n) ||
	    readfile(f->dir, "missing", buf, sizeof(buf), 0) != -1 ||
	    errno != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/* Mappings of io_uring rings in this process. */
static int ring_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "io_uring") != NULL;
	fclose(f);
	return n;
}

/* ---- exec'd helpers: a fresh process, nothing probed yet ---- */

static int install_filter(int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { GV_ARRAY_SIZE(code), code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * In a process where io_uring cannot be had: forced uring fails with
 * ENOSYS, auto silently reads everything with system calls. Exit status
 * 0 when so; the first mismatch on stderr.
 */
static int expect_no_uring(const struct files *f, int probed_fd)
{
	int r;

	if (gv_backend_usable(GV_BACKEND_URING) != -ENOSYS) {
		fprintf(stderr, "uring reported usable\n");
		return 1;
	}
	if (probed_fd >= 0) {	/* tell the parent the probe is done */
		if (write(probed_fd, "x", 1) != 1)
			return 1;
		close(probed_fd);
	}
	gv_backend_force(GV_BACKEND_URING);
	r = read_all(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring getvalues: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	r = readfile_two(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring readfile: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	gv_backend_force(GV_BACKEND_AUTO);
	evict(f);
	if (read_all(f) || readfile_two(f) ||
	    gv_backend_last() != GV_BACKEND_SYNC) {
		fprintf(stderr, "auto did not fall back: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

static void *late_thread(void *p)
{
	const struct files *f = p;
	long bad = read_all(f) || gv_backend_last() != GV_BACKEND_SYNC;

	return (void *)bad;
}

/*
 * The filter comes after the probe: this thread has its ring, a new one
 * cannot make one. The call that finds out still gives the right values,
 * read with system calls (no EIO, SPEC v2); from then on io_uring counts as
 * unusable in the process: forced uring gives ENOSYS in every thread, auto
 * reads with system calls.
 */
static int expect_late_fallback(const struct files *f)
{
	pthread_t t;
	void *bad = (void *)1;
	int r;

	gv_backend_force(GV_BACKEND_URING);
	if (read_all(f) || gv_backend_last() != GV_BACKEND_URING) {
		fprintf(stderr, "no uring before the filter\n");
		return 1;
	}
	if (install_filter(EPERM))
		return 3;
	if (pthread_create(&t, NULL, late_thread, (void *)f) ||
	    pthread_join(t, &bad) || bad) {
		fprintf(stderr, "a thread without a ring failed\n");
		return 1;
	}
	r = read_all(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring after the filter: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	r = readfile_two(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring readfile after the filter: %d "
			"(%s)\n", r, strerrorname_np(errno));
		return 1;
	}
	gv_backend_force(GV_BACKEND_AUTO);
	if (read_all(f) || gv_backend_last() != GV_BACKEND_SYNC) {
		fprintf(stderr, "auto after the filter: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

static int helper(int argc, char **argv)
{
	struct files f = { 0 };

	if (argc < 3)
		return 2;
	snprintf(f.path, sizeof(f.path), "%s", argv[2]);
	f.dir = open(f.path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < FILES; i++)
		f.len[i] = snprintf(f.content[i], sizeof(f.content[i]),
				    "main file %d of %s", i, f.path);
	if (!strcmp(argv[1], "--seccomp") && argc == 4) {
		if (install_filter(atoi(argv[3]))) {
			perror("seccomp");
			return 3;
		}
		return expect_no_uring(&f, -1);
	}
	if (!strcmp(argv[1], "--seccomp-late"))
		return expect_late_fallback(&f);
	if (!strcmp(argv[1], "--disabled") && argc == 4)
		return expect_no_uring(&f, atoi(argv[3]));
	if (!strcmp(argv[1], "--env")) {
		/* GETVALUES_BACKEND as the parent set it; say what it did */
		int a = read_all(&f), b = readfile_two(&f);

		printf("%d %d %d %d\n", a ? errno : 0, b ? errno : 0,
		       gv_backend_last(), gv_backend_forced());
		return 0;
	}
	return 2;
}

/* Run this program as a helper; its exit status, or -1. */
static int spawn(char *const args[], const char *env, char *out, size_t len,
		 int keep_fd)
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		if (keep_fd >= 0)
			fcntl(keep_fd, F_SETFD, 0);
		if (env)
			setenv("GETVALUES_BACKEND", env, 1);
		else
			unsetenv("GETVALUES_BACKEND");
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(pipefd[1]);
	if (out) {
		ssize_t n = read(pipefd[0], out, len - 1);

		out[n > 0 ? n : 0] = 0;
	}
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the tests ---- */

static void test_env(void)
{
	static const struct {
		const char *env;
		int err, backend;	/* errno from both calls; fetched by */
	} cases[] = {
		{ NULL, 0, GV_BACKEND_AUTO },	/* test_auto() says which */
		{ "auto", 0, GV_BACKEND_AUTO },
		{ "sync", 0, GV_BACKEND_SYNC },
		{ "uring", 0, GV_BACKEND_URING },
		/* SPEC v2: a value that names no backend is EINVAL */
		{ "bogus", EINVAL, GV_BACKEND_SYNC },
		{ "URING", EINVAL, GV_BACKEND_SYNC },
		{ "native", ENOSYS, GV_BACKEND_SYNC },
	};
	char *args[] = { "backend", "--env", main_files.path, NULL };
	char out[128];

	for (size_t i = 0; i < GV_ARRAY_SIZE(cases); i++) {
		int a = -1, b = -1, last = -1, forced = -1;

		if (cases[i].env && !strcmp(cases[i].env, "native") &&
		    !gv_backend_usable(GV_BACKEND_NATIVE)) {
			tap_skip(1, "the native system calls are here");
			continue;
		}
		if (spawn(args, cases[i].env, out, sizeof(out), -1) != 0 ||
		    sscanf(out, "%d %d %d %d", &a, &b, &last, &forced) != 4)
			a = -1;
		tap_ok(a == cases[i].err && b == cases[i].err &&
		       (cases[i].err || cases[i].backend == GV_BACKEND_AUTO ||
			last == cases[i].backend),
		       "GETVALUES_BACKEND=%s: %s, data fetched by %s",
		       cases[i].env ? cases[i].env : "(unset)",
		       cases[i].err ? strerrorname_np(cases[i].err) : "both work",
		       cases[i].err ? "nothing" :
		       cases[i].backend == GV_BACKEND_AUTO ? "the policy" :
		       cases[i].backend == GV_BACKEND_URING ? "uring" : "sync");
		if (a != cases[i].err || b != cases[i].err)
			tap_diag("   getvalues %s, readfile %s, last %d",
				 strerrorname_np(a), strerrorname_np(b), last);
	}
}

static void test_fork(void)
{
	int status, before, pipefd[2];
	char report[256] = "";
	pid_t pid;

	gv_backend_force(GV_BACKEND_URING);
	before = t_count_fds();
	tap_ok(read_all(&main_files) == 0 && readfile_two(&main_files) == 0,
	       "uring: values right in the parent");
	tap_is_long(t_count_fds(), before,
		    "the ring's own descriptor does not outlive the call");
	tap_ok(ring_maps() > 0, "the parent has a ring");
	if (pipe2(pipefd, O_CLOEXEC))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		int maps = ring_maps(), fds = t_count_fds(), bad = 0;

		for (int i = 0; i < 200; i++)
			bad += read_all(&main_files) || readfile_two(&main_files);
		snprintf(report, sizeof(report), "%d %d %d %d %d %d", maps,
			 ring_maps(), bad, t_count_fds() - fds,
			 gv_uring_busy_slots(), gv_backend_last());
		if (write(pipefd[1], report, strlen(report)) < 0)
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	{
		ssize_t n = read(pipefd[0], report, sizeof(report) - 1);
		int maps0 = -1, maps1 = -1, bad = -1, fds = -1, busy = -1;
		int last = -1;

		report[n > 0 ? n : 0] = 0;
		sscanf(report, "%d %d %d %d %d %d", &maps0, &maps1, &bad,
		       &fds, &busy, &last);
		waitpid(pid, &status, 0);
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "the child ran to its end");
		tap_is_long(maps0, 0, "the child does not inherit the "
			    "parent's ring (MADV_DONTFORK)");
		tap_ok(maps1 > 0 && last == GV_BACKEND_URING,
		       "the child makes its own ring and uses it");
		tap_is_long(bad, 0, "200 calls in the child: values right");
		tap_is_long(fds, 0, "no descriptor left in the child");
		tap_is_long(busy, 0, "no direct slot left in the child");
	}
	close(pipefd[0]);
	tap_ok(read_all(&main_files) == 0 && readfile_two(&main_files) == 0 &&
	       gv_backend_last() == GV_BACKEND_URING,
	       "the parent's ring still works after the child's calls");
}

struct thread_arg {
	struct files f;
	long bad, busy;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;

	for (int i = 0; i < THREAD_CALLS; i++)
		a->bad += (i % 8 ? read_all(&a->f) : readfile_two(&a->f)) != 0;
	a->busy = gv_uring_busy_slots();
	return NULL;
}

static void test_threads(void)
{
	static struct thread_arg args[THREADS];
	pthread_t t[THREADS];
	int before, maps_before;
	long bad = 0, busy = 0;

	gv_backend_force(GV_BACKEND_URING);
	for (int i = 0; i < THREADS; i++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "thread%d", i);
		make_files(&args[i].f, tag);
	}
	before = t_count_fds();
	maps_before = ring_maps();
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_main, &args[i]))
			tap_bail("pthread_create");
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		bad += args[i].bad;
		busy += args[i].busy;
	}
	tap_is_long(bad, 0, "%d threads x %d calls on their own rings: every "
		    "value right", THREADS, THREAD_CALLS);
	tap_is_long(busy, 0, "no direct slot left in any thread");
	tap_is_long(t_count_fds(), before, "no descriptor left");
	tap_is_long(ring_maps(), maps_before,
		    "the threads' rings are gone with the threads");
}

static void test_leaks(void)
{
	char buf[64], *small = buf;
	int before, bad = 0;

	gv_backend_force(GV_BACKEND_URING);
	before = t_count_fds();
	for (int i = 0; i < 500; i++) {
		struct name_val v[3] = {
			{ .name = "data:f1", .value_in = { small, 3 } },
			{ .name = "data:nope" },
			{ .name = "data:f2" },
		};

		bad += read_all(&main_files) != 0;
		bad += readfile_two(&main_files) != 0;
		/* an overflow stops the call with files in flight */
		bad += getvalues(main_files.dir, "", v, 3, AT_EMPTY_PATH) != 0;
		bad += readfile(main_files.dir, ".", buf, sizeof(buf), 0) != -1;
	}
	tap_is_long(bad, 0, "500 rounds of calls that succeed, fail and "
		    "overflow");
	tap_is_long(t_count_fds(), before, "no descriptor left behind");
	tap_is_long(gv_uring_busy_slots(), 0, "no direct slot left behind");
}

struct resizer {
	int dir;
	volatile bool stop;
};

/* Rewrite "a" in place, 10 bytes, then 5000, then 10 ... */
static void *resize_main(void *p)
{
	struct resizer *z = p;
	static char big[5000];
	int fd = openat(z->dir, "a", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	memset(big, 'A', sizeof(big));
	for (int i = 0; fd >= 0 && !z->stop; i++) {
		size_t n = i % 2 ? sizeof(big) : 10;

		if (pwrite(fd, big, n, 0) < 0 || ftruncate(fd, n))
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * A file that changes size while the ring reads it, straight into a
 * shared buffer, must not run over the values placed after it (their
 * places came from the sizes statx gave before).
 */
static void test_resize(void)
{
	static const char *const names[] = {
		"data:a", ":b", ":c", ":a", ":d",
	};
	static const char *const want[] = { NULL, "bbbb", "cccccccc", NULL,
					    "d" };
	struct resizer z = { .stop = false };
	struct name_val v[5];
	char buf[32768];
	pthread_t t;
	int bad = 0;

	z.dir = t_tmpdir_fd("resize");
	t_write_file(z.dir, "a", "0123456789", 10, 0644);
	t_write_file(z.dir, "b", want[1], 4, 0644);
	t_write_file(z.dir, "c", want[2], 8, 0644);
	t_write_file(z.dir, "d", want[4], 1, 0644);
	gv_backend_force(GV_BACKEND_URING);
	if (pthread_create(&t, NULL, resize_main, &z))
		tap_bail("pthread_create");
	for (int i = 0; i < 3000; i++) {
		for (int k = 0; k < 5; k++)
			v[k] = (struct name_val){ .name = names[k] };
		v[0].value_in = (struct iovec){ buf, sizeof(buf) };
		int ret = getvalues(z.dir, "", v, 5, AT_EMPTY_PATH);

		if (ret != 5) {
			if (!bad++)
				tap_diag("call %d: returned %d (%s)", i, ret,
					 ret < 0 ? strerror(errno) : "");
			continue;
		}
		/*
		 * "a" is 'A's, or its first digits, at any length; a read
		 * racing the rewrite may also see zeros where a truncation
		 * cleared the page (read(2) is not atomic against writes).
		 * A neighbour's bytes ('b', 'c', 'd') are never in it.
		 */
		for (int k = 0; k < 5; k += 3) {
			const char *p = v[k].value_out.iov_base;
			size_t len = v[k].value_out.iov_len;

			for (size_t x = 0; x < len; x++)
				if (p[x] != 'A' && p[x] && (p[x] < '0' ||
							    p[x] > '9')) {
					if (!bad++)
						tap_diag("call %d: entry %d byte "
							 "%zu of %zu is 0x%02x",
							 i, k, x, len,
							 (unsigned char)p[x]);
					break;
				}
			if (v[k].error && !bad++)
				tap_diag("call %d: entry %d: %s", i, k,
					 strerror(v[k].error));
		}
		for (int k = 1; k < 5; k++)
			if (want[k] && (v[k].error ||
					v[k].value_out.iov_len != strlen(want[k]) ||
					memcmp(v[k].value_out.iov_base, want[k],
					       strlen(want[k])))) {
				if (!bad++)
					tap_diag("call %d: entry %d: error %u, "
						 "%zu bytes", i, k, v[k].error,
						 v[k].value_out.iov_len);
				break;
			}
	}
	z.stop = true;
	pthread_join(t, NULL);
	tap_is_long(bad, 0, "a file changing size under 3000 calls: its "
		    "value and the values after it undamaged");
}

static void test_seccomp(void)
{
	static const int errs[] = { EPERM, ENOSYS };

	for (size_t i = 0; i < GV_ARRAY_SIZE(errs); i++) {
		char err[16];
		char *args[] = { "backend", "--seccomp", main_files.path, err,
				 NULL };
		int st;

		snprintf(err, sizeof(err), "%d", errs[i]);
		st = spawn(args, NULL, NULL, 0, -1);
		if (st == 3) {
			tap_skip(1, "no seccomp filters here");
			continue;
		}
		tap_is_long(st, 0, "seccomp denies io_uring_setup() with %s: "
			    "forced uring gives ENOSYS, auto falls back",
			    strerrorname_np(errs[i]));
	}
	{
		char *args[] = { "backend", "--seccomp-late", main_files.path,
				 NULL };
		int st = spawn(args, NULL, NULL, 0, -1);

		if (st == 3)
			tap_skip(1, "no seccomp filters here");
		else
			tap_is_long(st, 0, "a filter after the probe: the "
				    "call that finds out reads with system "
				    "calls, then forced uring gives ENOSYS");
	}
}

/*
 * io_uring_disabled is system-wide: set it only for as long as the helper
 * needs to make its first ring, and put the old value back at once.
 */
static void test_disabled(void)
{
	static const char knob[] = "/proc/sys/kernel/io_uring_disabled";
	char old[16] = "", fdarg[16];
	char *args[] = { "backend", "--disabled", main_files.path, fdarg,
			 NULL };
	int fd, probed[2], st = -1;
	pid_t pid;
	ssize_t n;

	fd = open(knob, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		tap_skip(1, "no %s (Linux 6.6)", knob);
		return;
	}
	n = read(fd, old, sizeof(old) - 1);
	if (n <= 0 || pipe2(probed, O_CLOEXEC)) {
		close(fd);
		tap_skip(1, "%s not readable", knob);
		return;
	}
	old[n] = 0;
	snprintf(fdarg, sizeof(fdarg), "%d", probed[1]);
	if (pwrite(fd, "2", 1, 0) != 1) {
		close(fd);
		tap_skip(1, "%s not writable (%s)", knob, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		fcntl(probed[1], F_SETFD, 0);
		unsetenv("GETVALUES_BACKEND");
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(probed[1]);
	n = read(probed[0], fdarg, 1);	/* the helper has tried */
	if (pwrite(fd, old, strlen(old), 0) != (ssize_t)strlen(old))
		tap_diag("could not restore %s to %s", knob, old);
	close(fd);
	close(probed[0]);
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	tap_is_long(st, 0, "io_uring_disabled=2: forced uring gives ENOSYS, "
		    "auto falls back");
}

/*
 * The auto policy: which backend fetched @n data: files of @f (evicted
 * from the page cache first when @cold).
 */
static int auto_fetch(const struct files *f, int n, bool cold)
{
	static const char *const names[FILES] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11",
	};
	struct name_val vec[FILES];
	char buf[FILES * 64];

	if (cold && !evict(f))
		return -2;
	for (int i = 0; i < n; i++)
		vec[i] = (struct name_val){ .name = names[i] };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	gv_backend_force(GV_BACKEND_AUTO);
	if (getvalues(f->dir, "", vec, n, AT_EMPTY_PATH) != n)
		return -1;
	for (int i = 0; i < n; i++)
		if (vec[i].error || vec[i].value_out.iov_len != f->len[i] ||
		    memcmp(vec[i].value_out.iov_base, f->content[i],
			   f->len[i]))
			return -1;
	return gv_backend_last();
}

static const char *fetched_by(int b)
{
	return b == GV_BACKEND_URING ? "uring" : b == GV_BACKEND_SYNC ?
	       "sync" : "(wrong values)";
}

static void expect_auto(const struct files *f, const char *fs, int n,
			bool cold, int want)
{
	int got = auto_fetch(f, n, cold);

	/*
	 * Cold: the page cache may take a file back between the eviction
	 * and auto's probe (another reader, readahead on a busy machine):
	 * the choice is asked again, up to three times in all.
	 */
	for (int again = 0; cold && got >= 0 && got != want && again < 2;
	     again++)
		got = auto_fetch(f, n, cold);
	if (got == -2) {
		tap_skip(1, "auto, %d cold files on %s: the page cache keeps "
			 "them here (POSIX_FADV_DONTNEED)", n, fs);
		return;
	}
	tap_ok(got == want, "auto, %d %s files on %s: %s", n,
	       cold ? "cold" : "cached", fs, fetched_by(want));
	if (got != want)
		tap_diag("   fetched by %s", fetched_by(got));
}

static void test_auto(void)
{
	struct files shm = { 0 }, *ext4 = &main_files;
	struct statfs sfs;

	/* a memory file system: one at a time, cold or not */
	snprintf(shm.path, sizeof(shm.path), "/dev/shm");
	setenv("TMPDIR", "/dev/shm", 1);
	make_files(&shm, "auto-shm");
	unsetenv("TMPDIR");
	if (statfs(shm.path, &sfs) || sfs.f_type != TMPFS_MAGIC) {
		tap_skip(2, "/dev/shm is not tmpfs here");
	} else {
		expect_auto(&shm, "tmpfs", FILES, false, GV_BACKEND_SYNC);
		expect_auto(&shm, "tmpfs", FILES, true, GV_BACKEND_SYNC);
	}

	/* ext4: a batch from two files on, cached or not */
	if (statfs(ext4->path, &sfs) || sfs.f_type != EXT4_SUPER_MAGIC) {
		tap_skip(4, "%s is not on ext4", ext4->path);
	} else {
		expect_auto(ext4, "ext4", 1, false, GV_BACKEND_SYNC);
		expect_auto(ext4, "ext4", 1, true, GV_BACKEND_SYNC);
		expect_auto(ext4, "ext4", 2, false, GV_BACKEND_URING);
		expect_auto(ext4, "ext4", FILES, true, GV_BACKEND_URING);
	}

	/*
	 * Any other file system: only cold batches of 8 files or more. The
	 * probe needs preadv2(RWF_NOWAIT), which overlayfs for one refuses
	 * (EOPNOTSUPP: then sync); the ext4 files stand in for one that has
	 * it.
	 */
	if (statfs(ext4->path, &sfs) || sfs.f_type != EXT4_SUPER_MAGIC) {
		tap_skip(4, "%s is not on ext4", ext4->path);
	} else {
		gv_backend_force_fs_class(GV_FS_OTHER);
		expect_auto(ext4, "another fs", FILES, false,
			    GV_BACKEND_SYNC);
		expect_auto(ext4, "another fs", FILES, true,
			    GV_BACKEND_URING);
		expect_auto(ext4, "another fs", 7, true, GV_BACKEND_SYNC);
		expect_auto(ext4, "another fs", 8, true, GV_BACKEND_URING);
		gv_backend_force_fs_class(-1);
	}

	/*
	 * procfs: one at a time up to 15 files, io_uring's workers from 16
	 * on, where they have a CPU of their own.
	 */
	{
		static const int counts[] = { FILES, 15, 16, 64 };
		struct name_val vec[64];
		static char buf[64 * 4096];
		cpu_set_t set;
		bool two = !sched_getaffinity(0, sizeof(set), &set) &&
			   CPU_COUNT(&set) >= 2;

		for (size_t k = 0; k < GV_ARRAY_SIZE(counts); k++) {
			enum gv_backend_id want = counts[k] >= 16 && two ?
				GV_BACKEND_URING : GV_BACKEND_SYNC;
			int n, num = counts[k];

			for (int i = 0; i < num; i++)
				vec[i] = (struct name_val){
					.name = i ? ":stat" : "data:stat" };
			vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
			n = getvalues(AT_FDCWD, "/proc/self", vec, num, 0);
			tap_ok(n == num && !vec[num - 1].error &&
			       gv_backend_last() == want,
			       "auto, %d files on procfs: %s", num,
			       want == GV_BACKEND_URING ? "uring" : "sync");
		}
	}
}

int main(int argc, char **argv)
{
	/* the choice between sync and uring, even where native is there */
	gv_backend_auto_native(false);
	if (argc > 1)
		return helper(argc, argv);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled, filtered, or closing direct descriptors "
			     "late as Linux 6.1 does)");
	make_files(&main_files, "main");
	test_env();
	test_auto();
	test_seccomp();
	test_disabled();
	test_fork();
	test_leaks();
	test_resize();
	test_threads();
	return tap_done();
}
