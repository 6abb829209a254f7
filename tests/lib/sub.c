// SPDX-License-Identifier: MIT
/*
 * sub.c - the helpers behind sub.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

long long t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int t_in_child(int (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		int r = fn();

		fflush(stdout);
		_exit(r);
	}
	if (waitpid(pid, &status, 0) != pid)
		tap_bail("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

unsigned int t_time_scale(void)
{
	const char *s = getenv("GV_TEST_TIME_SCALE");
	unsigned long v = s ? strtoul(s, NULL, 10) : 1;

	return v >= 1 && v <= 1000 ? (unsigned int)v : 1;
}

/* One line of the child's TAP output, replayed as ours. */
static bool t_sub_replay(const char *what, char *line, int *failed)
{
	bool ok = !strncmp(line, "ok ", 3);
	char *desc, *todo;

	if (!strncmp(line, "# ", 2)) {
		tap_diag("%s", line + 2);
		return true;
	}
	if (!strncmp(line, "1..0 # SKIP ", 12)) {
		tap_skip(1, "%s: %s", what, line + 12);
		return true;
	}
	if (!strncmp(line, "Bail out!", 9)) {
		tap_ok(false, "%s: %s", what, line);
		++*failed;
		return true;
	}
	if (!ok && strncmp(line, "not ok ", 7))
		return false;
	desc = line + (ok ? 3 : 7);
	desc += strspn(desc, "0123456789");
	if (!strncmp(desc, " # SKIP ", 8)) {
		tap_skip(1, "%s", desc + 8);
		return true;
	}
	if (!strncmp(desc, " - ", 3))
		desc += 3;
	todo = strstr(desc, " # TODO ");
	if (todo) {
		*todo = 0;
		tap_todo(ok, todo + 8, "%s", desc);
		return true;
	}
	tap_ok(ok, "%s", desc);
	*failed += !ok;
	return true;
}

/*
 * Fork the child that runs @fn(@arg) in a process group of its own, its
 * standard output the write end of a pipe; *@out gets the read end.
 */
static pid_t t_sub_spawn(void (*fn)(void *), void *arg, int *out)
{
	int p[2];
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe2(p, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		close(p[0]);
		if (dup2(p[1], 1) < 0)
			_exit(120);
		close(p[1]);
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	setpgid(pid, pid);
	close(p[1]);
	*out = p[0];
	return pid;
}

/*
 * Replay the lines the child writes to @fd until it closes it; *@failed
 * counts its failing checks. Returns false when @deadline (t_now_ms())
 * came first.
 */
static bool t_sub_relay(const char *what, int fd, long long deadline,
			int *failed)
{
	char buf[8192];
	size_t have = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - t_now_ms();
		ssize_t n;
		char *nl;

		if (left <= 0)
			return false;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			return true;
		have += n;
		buf[have] = 0;
		while ((nl = strchr(buf, '\n'))) {
			*nl = 0;
			if (!t_sub_replay(what, buf, failed))
				tap_diag("%s: %s", what, buf);
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have + 1);
		}
		if (have == sizeof(buf) - 1) {	/* a line too long: say it */
			tap_diag("%s: %s", what, buf);
			have = 0;
		}
	}
}

/* Whether the child ran to its end, by its wait @status; a check if not. */
static bool t_sub_ended(const char *what, int status)
{
	if (WIFSIGNALED(status)) {
		tap_ok(false, "%s: the child ran to its end (killed by signal "
		       "%d, %s)", what, WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
		return false;
	}
	if (WEXITSTATUS(status)) {
		tap_ok(false, "%s: the child ran to its end (exit status %d)",
		       what, WEXITSTATUS(status));
		return false;
	}
	return true;
}

bool t_sub(const char *what, unsigned int timeout_s, void (*fn)(void *),
	   void *arg)
{
	long long deadline = t_now_ms() + timeout_s * 1000LL * t_time_scale();
	int fd, status = 0, failed = 0;
	bool timed_out;
	pid_t pid = t_sub_spawn(fn, arg, &fd);

	timed_out = !t_sub_relay(what, fd, deadline, &failed);
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* what the child left behind in its group */
	kill(-pid, SIGKILL);
	if (timed_out) {
		tap_ok(false, "%s: done within %u s (killed: it hung)", what,
		       timeout_s);
		return false;
	}
	return t_sub_ended(what, status) && failed == 0;
}

int t_as_nobody(void (*fn)(void *arg, void *res), void *arg, void *res,
		size_t size)
{
	int pfd[2], st = 0;
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0) {
		errno = EPERM;
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		fn(arg, res);
		_exit(write(pfd[1], res, size) == (ssize_t)size ? 0 : 3);
	}
	close(pfd[1]);
	n = read(pfd[0], res, size);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (n == (ssize_t)size)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		errno = EPERM;
		return -1;
	}
	tap_bail("a child as nobody did not report (status %#x)", st);
}

bool t_has_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int t_seccomp_errno(const int *nrs, int n, int err)
{
	struct sock_filter code[64];
	struct sock_fprog prog;
	int k = 0;

	if (n > 32) {
		errno = E2BIG;
		return -1;
	}
	code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			AUDIT_ARCH_X86_64, 1, 0);
	code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
	code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	for (int i = 0; i < n; i++)
		code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
				BPF_K, nrs[i], n - i, 0);
	code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
	code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA));
	prog = (struct sock_fprog){ .len = k, .filter = code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int t_join_within(pthread_t t, unsigned int ms, void **ret)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(t, ret, &ts);
}

bool t_wait_asleep(pid_t tid, unsigned int ms)
{
	long long deadline = t_now_ms() + ms;
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	do {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		char *paren;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			paren = strrchr(buf, ')');
			if (paren && (paren[2] == 'S' || paren[2] == 'D'))
				return true;
		}
		usleep(2000);
	} while (t_now_ms() < deadline);
	return false;
}
