// SPDX-License-Identifier: MIT
/*
 * backend.c - choosing a backend: GETVALUES_BACKEND, the auto policy by
 * file system, number of files and page cache, and the fallback to system
 * calls behind a seccomp filter that denies io_uring_setup() (before the
 * first call or after it) and with io_uring_disabled. backend_uring.c runs
 * the uring backend itself.
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/backends.h"
#include "lib/tap.h"
#include "lib/util.h"

static struct t_files main_files;

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
static int expect_no_uring(const struct t_files *f, int probed_fd)
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
	r = t_files_get(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring getvalues: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	r = t_files_readfile(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring readfile: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	gv_backend_force(GV_BACKEND_AUTO);
	t_files_evict(f);
	if (t_files_get(f) || t_files_readfile(f) ||
	    gv_backend_last() != GV_BACKEND_SYNC) {
		fprintf(stderr, "auto did not fall back: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

static void *late_thread(void *p)
{
	const struct t_files *f = p;
	long bad = t_files_get(f) || gv_backend_last() != GV_BACKEND_SYNC;

	return (void *)bad;
}

/*
 * The filter comes after the probe: this thread has its ring, a new one
 * cannot make one. The call that finds out still gives the right values,
 * read with system calls (no EIO, SPEC v2); from then on io_uring counts as
 * unusable in the process: forced uring gives ENOSYS in every thread, auto
 * reads with system calls.
 */
static int expect_late_fallback(const struct t_files *f)
{
	pthread_t t;
	void *bad = (void *)1;
	int r;

	gv_backend_force(GV_BACKEND_URING);
	if (t_files_get(f) || gv_backend_last() != GV_BACKEND_URING) {
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
	r = t_files_get(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring after the filter: %d (%s)\n", r,
			strerrorname_np(errno));
		return 1;
	}
	r = t_files_readfile(f);
	if (r != -1 || errno != ENOSYS) {
		fprintf(stderr, "forced uring readfile after the filter: %d "
			"(%s)\n", r, strerrorname_np(errno));
		return 1;
	}
	gv_backend_force(GV_BACKEND_AUTO);
	if (t_files_get(f) || gv_backend_last() != GV_BACKEND_SYNC) {
		fprintf(stderr, "auto after the filter: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

static int helper(int argc, char **argv)
{
	struct t_files f = { 0 };

	if (argc < 3)
		return 2;
	snprintf(f.path, sizeof(f.path), "%s", argv[2]);
	f.dir = open(f.path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < T_FILES; i++)
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
		int a = t_files_get(&f), b = t_files_readfile(&f);

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
static int auto_fetch(const struct t_files *f, int n, bool cold)
{
	static const char *const names[T_FILES] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11",
	};
	struct name_val vec[T_FILES];
	char buf[T_FILES * 64];

	if (cold && !t_files_evict(f))
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

static void expect_auto(const struct t_files *f, const char *fs, int n,
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
		tap_diag("   fetched by %s; io_uring usable: %s",
			 fetched_by(got), gv_backend_usable(GV_BACKEND_URING) ?
			 "no" : "yes");
}

/* One call of @num procfs files: the backend that fetched them, or -1. */
static int procfs_call(int num)
{
	static __thread struct name_val vec[64];
	static char buf[64 * 4096];

	for (int i = 0; i < num; i++)
		vec[i] = (struct name_val){ .name = i ? ":stat" : "data:stat" };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	if (getvalues(AT_FDCWD, "/proc/self", vec, num, 0) != num ||
	    vec[num - 1].error)
		return -1;
	return gv_backend_last();
}

static void *procfs_counts(void *arg)
{
	static const int counts[] = { T_FILES, 15, 16, 16, 64 };
	bool two = *(bool *)arg;

	for (size_t k = 0; k < GV_ARRAY_SIZE(counts); k++) {
		int num = counts[k];
		enum gv_backend_id want = num >= 16 && two && k > 2 ?
			GV_BACKEND_URING : GV_BACKEND_SYNC;

		tap_ok(procfs_call(num) == (int)want,
		       "auto, %d files on procfs%s: %s", num,
		       k == 2 ? ", the thread's first such call" : "",
		       want == GV_BACKEND_URING ? "uring" : "sync");
	}
	return NULL;
}

/*
 * The backend that fetched @vec's 64 procfs files in a child of fork(),
 * at its second call (the first has no ring).
 */
static int child_backend(struct name_val *vec)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(getvalues(AT_FDCWD, "/proc/self", vec, 64, 0) == 64 &&
		      getvalues(AT_FDCWD, "/proc/self", vec, 64, 0) == 64 ?
		      gv_backend_last() : 100);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_auto(void)
{
	struct t_files shm = { 0 }, *ext4 = &main_files;
	struct statfs sfs;

	/* a memory file system: one at a time, cold or not */
	snprintf(shm.path, sizeof(shm.path), "/dev/shm");
	setenv("TMPDIR", "/dev/shm", 1);
	t_files_make(&shm, "auto-shm");
	unsetenv("TMPDIR");
	if (statfs(shm.path, &sfs) || sfs.f_type != TMPFS_MAGIC) {
		tap_skip(2, "/dev/shm is not tmpfs here");
	} else {
		expect_auto(&shm, "tmpfs", T_FILES, false, GV_BACKEND_SYNC);
		expect_auto(&shm, "tmpfs", T_FILES, true, GV_BACKEND_SYNC);
	}

	/* ext4: a batch from one file on, cached or not */
	if (statfs(ext4->path, &sfs) || sfs.f_type != EXT4_SUPER_MAGIC) {
		tap_skip(4, "%s is not on ext4", ext4->path);
	} else {
		expect_auto(ext4, "ext4", 1, false, GV_BACKEND_URING);
		expect_auto(ext4, "ext4", 1, true, GV_BACKEND_URING);
		expect_auto(ext4, "ext4", 2, false, GV_BACKEND_URING);
		expect_auto(ext4, "ext4", T_FILES, true, GV_BACKEND_URING);
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
		expect_auto(ext4, "another fs", T_FILES, false,
			    GV_BACKEND_SYNC);
		expect_auto(ext4, "another fs", T_FILES, true,
			    GV_BACKEND_URING);
		expect_auto(ext4, "another fs", 7, true, GV_BACKEND_SYNC);
		expect_auto(ext4, "another fs", 8, true, GV_BACKEND_URING);
		gv_backend_force_fs_class(-1);
	}

	/*
	 * procfs: one at a time up to 15 files, io_uring's workers from 16
	 * on, where they have a CPU of their own; but a thread's first such
	 * call, which would pay for its ring, on plain system calls. In a
	 * thread of its own, which has no ring yet.
	 */
	{
		struct name_val vec[64];
		static char buf[64 * 4096];
		cpu_set_t set;
		bool two = !sched_getaffinity(0, sizeof(set), &set) &&
			   CPU_COUNT(&set) >= 2;
		pthread_t t;

		if (pthread_create(&t, NULL, procfs_counts, &two) ||
		    pthread_join(t, NULL))
			tap_bail("pthread_create: %s", strerror(errno));

		/*
		 * No CPU to spare: another thread's call running (one per
		 * CPU, as gvlsof makes them) keeps procfs on plain system
		 * calls; a child of fork() starts with none running.
		 */
		for (int i = 0; i < 64; i++)
			vec[i] = (struct name_val){
				.name = i ? ":stat" : "data:stat" };
		vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
		gv_batch_test_running(CPU_COUNT(&set) - 1);
		tap_ok(getvalues(AT_FDCWD, "/proc/self", vec, 64, 0) == 64 &&
		       gv_backend_last() == GV_BACKEND_SYNC,
		       "auto, 64 files on procfs, a call running on every "
		       "other CPU: sync");
		if (two)
			tap_ok(child_backend(vec) == GV_BACKEND_URING,
			       "... and in a child of fork(): uring");
		else
			tap_skip(1, "one CPU: procfs stays on sync");
		gv_batch_test_running(-(CPU_COUNT(&set) - 1));
		/* this thread's first call that could batch (see above) */
		procfs_call(64);

		/*
		 * A process's fd/N are links, which the ring leaves to
		 * plain system calls: 64 of them are no batch, and 16
		 * files among them are.
		 */
		for (int files = 0; files <= 16; files += 16) {
			static char fdname[32];
			enum gv_backend_id want = files && two ?
				GV_BACKEND_URING : GV_BACKEND_SYNC;
			int fd = open("/", O_PATH | O_CLOEXEC), n;

			snprintf(fdname, sizeof(fdname), "data:fd/%d", fd);
			for (int i = 0; i < 64; i++)
				vec[i] = (struct name_val){ .name = i % 4 ||
					i / 4 >= files ? fdname : "data:stat" };
			vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
			n = getvalues(AT_FDCWD, "/proc/self", vec, 64, 0);
			tap_ok(n == 64 && !vec[1].error &&
			       vec[1].value_out.iov_len == 1 &&
			       !memcmp(vec[1].value_out.iov_base, "/", 1) &&
			       gv_backend_last() == want,
			       "auto, 64 fd/N links and %d files on procfs: %s",
			       files, want == GV_BACKEND_URING ? "uring" :
			       "sync");
			close(fd);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		/* the choice between sync and uring, as t_backend_start() */
		gv_backend_auto_native(false);
		return helper(argc, argv);
	}
	t_backend_start(&main_files);
	test_env();
	test_auto();
	test_seccomp();
	test_disabled();
	return tap_done();
}
