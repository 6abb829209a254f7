// SPDX-License-Identifier: MIT
/*
 * backend_uring_limits.c - io_uring under a low RLIMIT_NOFILE and behind a
 * seccomp filter installed after the probe (SPEC v2 section 3). Below 64
 * descriptors io_uring stays usable (its file table sized to what the
 * limit leaves) and the process's limit is never changed behind its back;
 * a filter that blocks io_uring_enter() after the ring was made gives no
 * error under auto, and under a forced uring the values or ENOSYS, never
 * EIO; nor does any call wait for ever, when the filter says EINTR, EAGAIN
 * or EBUSY (what a retry follows) to every io_uring_enter(), or only to
 * those that wait. Each case is a fresh process (this program run again),
 * under a deadline, so that nothing is probed before it sets the stage and
 * a call that never returns fails its case.
 *
 * Asked for by the hardening review of issue 14, as harden_uring_limits.c;
 * the filters that say EINTR, EAGAIN or EBUSY by issue 23.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FILES 12

static const char *const names[FILES] = {
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10",
	"f11",
};
static char top[2048];
static int dir_fd = -1;

static void content(int i, char *buf, size_t size)
{
	snprintf(buf, size, "file %d of the batch\n", i);
}

/*
 * One getvalues() of every file and a readfile(): 0 when all is right,
 * else the errno that came back (EBADMSG for a wrong value).
 */
static int read_all(void)
{
	static const char *const entries[FILES] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11",
	};
	struct name_val v[FILES];
	char buf[FILES * 64], want[64];

	for (int i = 0; i < FILES; i++)
		v[i] = (struct name_val){ .name = entries[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	errno = 0;
	if (getvalues(dir_fd, "", v, FILES, AT_EMPTY_PATH) != FILES)
		return errno ? errno : EBADMSG;
	for (int i = 0; i < FILES; i++) {
		content(i, want, sizeof(want));
		if (!t_is(1, &v[i], want, strlen(want)))
			return v[i].error ? (int)v[i].error : EBADMSG;
	}
	return 0;
}

static int read_one(void)
{
	char buf[64], want[64];
	ssize_t n;

	content(3, want, sizeof(want));
	errno = 0;
	n = readfile(dir_fd, "f3", buf, sizeof(buf), 0);
	if (n < 0)
		return errno;
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n) ? 0 :
	       EBADMSG;
}

static const char *err_name(int err)
{
	return err ? strerrorname_np(err) : "right values";
}

/* ---- the helpers, each a fresh process ---- */

static void helper_rlimit(rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard }, now;
	int a, b;

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		tap_skip(5, "setrlimit: %s", strerror(errno));
		return;
	}
	gv_backend_force(GV_BACKEND_URING);
	a = read_all();
	tap_ok(!a, "RLIMIT_NOFILE %llu/%llu: forced uring, getvalues(): %s",
	       (unsigned long long)soft, (unsigned long long)hard,
	       err_name(a));
	tap_ok(!a && gv_backend_last() == GV_BACKEND_URING,
	       "RLIMIT_NOFILE %llu/%llu: ... and io_uring read them",
	       (unsigned long long)soft, (unsigned long long)hard);
	b = read_one();
	tap_ok(!b, "RLIMIT_NOFILE %llu/%llu: forced uring, readfile(): %s",
	       (unsigned long long)soft, (unsigned long long)hard,
	       err_name(b));
	getrlimit(RLIMIT_NOFILE, &now);
	tap_ok(now.rlim_cur == soft && now.rlim_max == hard,
	       "RLIMIT_NOFILE %llu/%llu: the library left the limit alone "
	       "(now %llu/%llu)", (unsigned long long)soft,
	       (unsigned long long)hard, (unsigned long long)now.rlim_cur,
	       (unsigned long long)now.rlim_max);
	gv_backend_force(GV_BACKEND_AUTO);
	gv_backend_force_fs_class(GV_FS_DISK);	/* auto would batch */
	a = read_all();
	b = read_one();
	tap_ok(!a && !b, "RLIMIT_NOFILE %llu/%llu: auto: %s, %s",
	       (unsigned long long)soft, (unsigned long long)hard,
	       err_name(a), err_name(b));
}

/*
 * A seccomp filter making io_uring_enter() fail with @err when it would
 * wait (min_complete, its third argument, not 0); every other call goes
 * through, those that only submit or only reap included.
 */
static int seccomp_waits(int err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
	};
	struct sock_fprog prog = { GV_ARRAY_SIZE(code), code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static void helper_seccomp(enum gv_backend_id id, int err, bool waits)
{
	const int nr = __NR_io_uring_enter;
	const char *be = id == GV_BACKEND_URING ? "forced uring" : "auto";
	char what[128];
	int a, b, c;

	gv_backend_force(id);
	gv_backend_force_fs_class(GV_FS_DISK);	/* auto batches: a ring */
	a = read_all();
	b = id == GV_BACKEND_URING ? read_one() : 0;
	if (a || b || gv_backend_last() != GV_BACKEND_URING) {
		tap_skip(3, "no io_uring batch before the filter (%s, %s)",
			 err_name(a), err_name(b));
		return;
	}
	if (waits ? seccomp_waits(err) : t_seccomp_errno(&nr, 1, err)) {
		tap_skip(3, "no seccomp filter here: %s", strerror(errno));
		return;
	}
	/* the first call after the filter, then more */
	b = read_one();
	a = read_all();
	c = read_one();
	snprintf(what, sizeof(what), "%s, io_uring_enter() filtered (%s%s) "
		 "after the probe", be, strerrorname_np(err),
		 waits ? ", its waits" : "");
	if (id == GV_BACKEND_AUTO) {
		tap_ok(!b, "%s: readfile(): %s", what, err_name(b));
		tap_ok(!a, "%s: getvalues(): %s", what, err_name(a));
		tap_ok(!c, "%s: readfile() again: %s", what, err_name(c));
		return;
	}
	tap_ok(!b || b == ENOSYS, "%s: readfile(): the value or ENOSYS, never "
	       "EIO (%s)", what, err_name(b));
	tap_ok(!a || a == ENOSYS, "%s: getvalues(): the values or ENOSYS (%s)",
	       what, err_name(a));
	tap_ok(!c || c == ENOSYS, "%s: readfile() again: the value or ENOSYS "
	       "(%s)", what, err_name(c));
}

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/*
 * A storm of signals (a handler without SA_RESTART, every 50 us) while a
 * forced uring reads files just dropped from the page cache, so that its
 * waits are interrupted: those EINTRs are retried, never taken for a
 * filter's, so every value is right and io_uring is still there afterwards.
 */
static void helper_signals(void)
{
	struct sigaction sa = { .sa_handler = on_tick };
	struct itimerval it = { { 0, 50 }, { 0, 50 } }, off = { 0 };
	int bad = 0, first = 0, a;

	gv_backend_force(GV_BACKEND_URING);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 300; i++) {
		t_evict(dir_fd, names, FILES);	/* reads that wait */
		a = read_all();
		if (a && !bad++)
			first = a;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	tap_ok(!bad, "forced uring, under %d signals: 300 calls, every value "
	       "right (%d wrong, the first %s)", (int)ticks, bad,
	       err_name(first));
	a = read_one();
	tap_ok(!a, "forced uring, after the signals: readfile(): %s (io_uring "
	       "was not refused)", err_name(a));
}

static int helper(int argc, char **argv)
{
	dir_fd = open(argv[2], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		tap_bail("%s: %s", argv[2], strerror(errno));
	if (!strcmp(argv[1], "--rlimit") && argc == 5)
		helper_rlimit(strtoull(argv[3], NULL, 0),
			      strtoull(argv[4], NULL, 0));
	else if (!strcmp(argv[1], "--seccomp") && argc == 5)
		helper_seccomp(atoi(argv[3]), atoi(argv[4]), false);
	else if (!strcmp(argv[1], "--seccomp-waits") && argc == 5)
		helper_seccomp(atoi(argv[3]), atoi(argv[4]), true);
	else if (!strcmp(argv[1], "--signals") && argc == 3)
		helper_signals();
	else
		tap_bail("bad helper arguments");
	fflush(stdout);
	return 0;
}

/* ---- the test: run the helpers ---- */

static void exec_self(void *arg)
{
	char **args = arg;

	unsetenv("GETVALUES_BACKEND");
	execv("/proc/self/exe", args);
	tap_bail("exec: %s", strerror(errno));
}

static void run(const char *what, const char *mode, const char *a,
		const char *b)
{
	char *args[] = { "backend_uring_limits", (char *)mode, top, (char *)a,
			 (char *)b, NULL };

	t_sub(what, 30, exec_self, args);
}

int main(int argc, char **argv)
{
	static const int errs[] = { EPERM, ENOSYS, EINTR, EAGAIN, EBUSY };
	char id[2][16], err[16], what[96];
	struct rlimit rl;

	gv_cost_test_mode(GV_COST_PRIORS);	/* auto batches by its priors */
	if (argc > 1)
		return helper(argc, argv);
	alarm(300);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel, "
			     "io_uring_disabled or seccomp)");
	snprintf(top, sizeof(top), "%s", t_tmpdir("uring-limits"));
	dir_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < FILES; i++) {
		char data[64];

		content(i, data, sizeof(data));
		if (t_write_file(dir_fd, names[i], data, strlen(data), 0644))
			tap_bail("setup: %s", strerror(errno));
	}

	getrlimit(RLIMIT_NOFILE, &rl);
	run("RLIMIT_NOFILE 32/32", "--rlimit", "32", "32");
	run("RLIMIT_NOFILE 48/48", "--rlimit", "48", "48");
	if (rl.rlim_max >= 4096)
		run("RLIMIT_NOFILE 32/4096", "--rlimit", "32", "4096");
	else
		tap_skip(5, "the hard RLIMIT_NOFILE is below 4096 here");

	snprintf(id[0], sizeof(id[0]), "%d", GV_BACKEND_AUTO);
	snprintf(id[1], sizeof(id[1]), "%d", GV_BACKEND_URING);
	for (int i = 0; i < 2; i++) {
		for (size_t e = 0; e < GV_ARRAY_SIZE(errs); e++) {
			snprintf(what, sizeof(what), "seccomp after the probe, "
				 "%s, %s", i ? "uring" : "auto",
				 strerrorname_np(errs[e]));
			snprintf(err, sizeof(err), "%d", errs[e]);
			run(what, "--seccomp", id[i], err);
		}
		snprintf(what, sizeof(what), "seccomp after the probe, %s, "
			 "EINTR for every wait", i ? "uring" : "auto");
		snprintf(err, sizeof(err), "%d", EINTR);
		run(what, "--seccomp-waits", id[i], err);
	}
	run("a storm of signals", "--signals", NULL, NULL);
	close(dir_fd);
	return tap_done();
}
