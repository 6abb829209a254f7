// SPDX-License-Identifier: MIT
/*
 * backend_uring_zero.c - a zero-length buffer in an io_uring batch (issue
 * 14: src/uring.c applied an offset to a NULL staging pointer, undefined
 * behaviour clang's UBSan reports). In this process: the same layouts on
 * uring as on sync, value for value. Since gcc's UBSan (SANITIZE=1) does
 * not see that kind of undefined behaviour, the layouts are also replayed
 * through the clang-built fuzz target (make fuzz, build-fuzz/ beside
 * $GV_BUILD) with GETVALUES_BACKEND=uring, where it aborts.
 *
 * Asked for by the hardening review of issue 14, as harden_uring_zero.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/tap.h"
#include "lib/util.h"

#define MAXE 4

/* One layout: names, and each entry's buffer (-1: continue the current). */
struct layout {
	const char *what;
	const char *names[MAXE];
	int len[MAXE];
};

static const struct layout layouts[] = {
	{ "a zero-length first buffer, then more in it",
	  { "data:f", ":empty", ":f" }, { 0, -1, -1 } },
	{ "a value, then a zero-length buffer of its own",
	  { "data:f", "data:empty", ":f" }, { 64, 0, -1 } },
	{ "two values, then a zero-length buffer for a bigger file",
	  { "data:f", ":g", "data:big" }, { 64, -1, 0 } },
	{ "zero-length buffers only",
	  { "data:empty", "data:f" }, { 0, 0 } },
};

/* The clang fuzz target's input format for the same layouts. */
static const char *const fuzz_inputs[] = {
	"0\n+0 data:file\n.:empty\n.:file\n",
	"0\n+64 data:file\n+0 data:empty\n.:file\n",
	"0\n+64 data:file\n.:a:b\n+0 data:big\n",
	"0\n+0 data:empty\n+0 data:file\n",
};

static int dir_fd = -1;
static char store[2][MAXE][128];

struct result {
	int ret, err;
	uint32_t error[MAXE];
	long off[MAXE];		/* value_out.iov_base - its buffer */
	size_t len[MAXE];
};

static void run(const struct layout *l, enum gv_backend_id b, int k,
		struct result *r)
{
	struct name_val v[MAXE];
	int n = 0;

	while (n < MAXE && l->names[n])
		n++;
	for (int i = 0; i < n; i++) {
		v[i] = (struct name_val){ .name = l->names[i] };
		if (l->len[i] >= 0)
			v[i].value_in = (struct iovec){ store[k][i],
							(size_t)l->len[i] };
	}
	gv_backend_force(b);
	errno = 0;
	r->ret = getvalues(dir_fd, "", v, n, AT_EMPTY_PATH);
	r->err = r->ret < 0 ? errno : 0;
	for (int i = 0; i < n; i++) {
		char *base = v[i].value_out.iov_base;
		long off = -1;

		for (int s = 0; s < MAXE && base; s++)
			if (base >= store[k][s] && base <= store[k][s] + 128)
				off = s * 1000 + (base - store[k][s]);
		r->error[i] = v[i].error;
		r->off[i] = off;
		r->len[i] = v[i].value_out.iov_len;
	}
}

static void test_parity(void)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct result s = { 0 }, u = { 0 };
		bool same;

		run(&layouts[i], GV_BACKEND_SYNC, 0, &s);
		run(&layouts[i], GV_BACKEND_URING, 1, &u);
		same = s.ret == u.ret && s.err == u.err;
		for (int e = 0; same && e < s.ret + 1 && e < MAXE &&
		     layouts[i].names[e]; e++)
			same = s.error[e] == u.error[e] && s.off[e] == u.off[e] &&
			       s.len[e] == u.len[e];
		if (!tap_ok(same, "%s: uring as sync", layouts[i].what))
			tap_diag("   sync returned %d, uring %d", s.ret, u.ret);
	}
}

/* Run the fuzz target on @input; its exit status, its stderr in @log. */
static int fuzz_one(const char *fuzzer, const char *input, char *log,
		    size_t size)
{
	const char *tmp = t_tmpdir("uring-zero");
	char path[4200];
	int p[2], status;
	size_t have = 0;
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/input", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, input, strlen(input)) < 0 || close(fd))
		tap_bail("%s: %s", path, strerror(errno));
	if (pipe2(p, O_CLOEXEC))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		dup2(p[1], 1);
		setenv("GETVALUES_BACKEND", "uring", 1);
		/* its scratch tree too, left behind when it aborts */
		setenv("TMPDIR", tmp, 1);
		alarm(60);
		execl(fuzzer, fuzzer, "-runs=1", path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], log + have, size - 1 - have);

		if (n <= 0)
			break;
		have += n;
		if (have == size - 1)	/* keep the end */
			have = 0;
	}
	log[have] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_fuzzer(void)
{
	const char *build = getenv("GV_BUILD");
	size_t n = sizeof(fuzz_inputs) / sizeof(fuzz_inputs[0]);
	char fuzzer[4200];
	static char log[1 << 16];

	if (!build || !*build) {
		tap_skip(n, "GV_BUILD is not set: no fuzz target to run");
		return;
	}
	snprintf(fuzzer, sizeof(fuzzer), "%s/../build-fuzz/fuzz_getvalues",
		 build);
	if (access(fuzzer, X_OK)) {
		tap_skip(n, "%s: %s (make fuzz builds it with clang)", fuzzer,
			 strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int st = fuzz_one(fuzzer, fuzz_inputs[i], log, sizeof(log));
		char *err = strstr(log, "runtime error");

		if (!tap_ok(st == 0 && !err, "clang UBSan, "
			    "GETVALUES_BACKEND=uring: %s", layouts[i].what)) {
			char *line = err, *nl = err ? strchr(err, '\n') : NULL;

			while (line && line > log && line[-1] != '\n')
				line--;
			if (nl)
				*nl = 0;
			tap_diag("   exit status %d: %s", st, line ? line : "");
		}
	}
}

int main(void)
{
	static char big[5000];

	alarm(300);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel, "
			     "io_uring_disabled or seccomp)");
	dir_fd = t_tmpdir_fd("uring-zero");
	memset(big, 'B', sizeof(big));
	if (t_write_file(dir_fd, "f", "ff", 2, 0644) ||
	    t_write_file(dir_fd, "g", "ggg", 3, 0644) ||
	    t_write_file(dir_fd, "empty", "", 0, 0644) ||
	    t_write_file(dir_fd, "big", big, sizeof(big), 0644))
		tap_bail("setup: %s", strerror(errno));
	test_parity();
	test_fuzzer();
	close(dir_fd);
	return tap_done();
}
