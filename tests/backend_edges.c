// SPDX-License-Identifier: MIT
/*
 * backend_edges.c - requests on which the backends differed (issue 14),
 * each on every backend: data:thread-self/... of /proc describes the
 * calling thread; readfile() blocked on a FIFO restarts after a signal
 * whose handler has SA_RESTART, as read(2) does; a buffer whose declared
 * length runs far past its mapping is fine when the value lands in mapped
 * memory; with AT_EMPTY_PATH a NULL path means ""; an unknown
 * GETVALUES_BACKEND makes every call fail with EINVAL.
 *
 * Asked for by the hardening review of issue 14, as harden_backends.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define BIG	100000		/* bytes of "big": more than a staging chunk */
#define MAPPED	(128u << 10)	/* then a PROT_NONE page */

static char top[2048];
static int dir_fd = -1;
static unsigned char big[BIG];
static const char small[] = "small file\n";

/* ---- data:thread-self/... ---- */

struct ts_run {
	enum gv_backend_id backend;
	pid_t tid;
	char name[16];
	int ret, err;
	struct name_val v[3];
	char buf[16384];
};

static void *ts_main(void *p)
{
	struct ts_run *r = p;

	pthread_setname_np(pthread_self(), r->name);
	r->tid = gettid();
	gv_backend_force(r->backend);
	r->v[0] = (struct name_val){ .name = "data:thread-self/stat",
				     .value_in = { r->buf, sizeof(r->buf) } };
	r->v[1] = (struct name_val){ .name = ":thread-self/comm" };
	r->v[2] = (struct name_val){ .name = ":thread-self/status" };
	errno = 0;
	r->ret = getvalues(AT_FDCWD, "/proc", r->v, 3, 0);
	r->err = errno;
	return NULL;
}

static void test_thread_self(const struct t_backend *b)
{
	static struct ts_run r;
	char want[64], *status;
	pthread_t t;
	bool ok;

	/* a new thread: nothing of its /proc directory is cached yet */
	for (int round = 0; round < 3; round++) {
		r = (struct ts_run){ .backend = b->id };
		snprintf(r.name, sizeof(r.name), "gv-ts-%s-%d", b->name, round);
		if (pthread_create(&t, NULL, ts_main, &r))
			tap_bail("pthread_create");
		pthread_join(t, NULL);
		snprintf(want, sizeof(want), "%d (%s) ", r.tid, r.name);
		ok = r.ret == 3 && !r.v[0].error &&
		     r.v[0].value_out.iov_len > strlen(want) &&
		     !memcmp(r.v[0].value_out.iov_base, want, strlen(want));
		if (!tap_ok(ok, "%s: data:thread-self/stat of /proc begins "
			    "\"%s\" (the calling thread)", b->name, want))
			tap_diag("   got %s: \"%.*s\"",
				 t_got(r.ret, r.err, &r.v[0]),
				 r.ret > 0 && !r.v[0].error ? 40 : 0,
				 (char *)r.v[0].value_out.iov_base);
		snprintf(want, sizeof(want), "%s\n", r.name);
		tap_ok(r.ret == 3 && t_is(1, &r.v[1], want, strlen(want)),
		       "%s: :thread-self/comm is the thread's name", b->name);
		snprintf(want, sizeof(want), "\nPid:\t%d\n", r.tid);
		status = r.v[2].value_out.iov_base;
		tap_ok(r.ret == 3 && !r.v[2].error &&
		       memmem(status, r.v[2].value_out.iov_len, want,
			      strlen(want)),
		       "%s: :thread-self/status has the thread's Pid:", b->name);
	}
}

/* ---- SA_RESTART ---- */

static atomic_int handled;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

struct sr_job {
	const struct t_backend *b;
	bool in_open;		/* no writer until the signals are over */
};

static void sr_case(void *arg)
{
	const struct sr_job *j = arg;
	static const char words[] = "after the signals";
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };
	static struct t_reader r;
	char path[2100];
	int own = -1, sent = 0;
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(path, sizeof(path), "%s/fifo", top);
	if (!j->in_open)
		own = open(path, O_RDWR | O_CLOEXEC);
	r = (struct t_reader){
		.backend = j->b->id, .dfd = dir_fd,
		.name = "fifo", .warm = "small",
	};
	t_reader_start(&r, &t, 0);
	for (int i = 0; i < 5 && !atomic_load(&r.done); i++) {
		int before = atomic_load(&handled);
		long long until = t_now_ms() + 1000;

		t_wait_asleep(r.tid, 1000);
		if (atomic_load(&r.done))
			break;
		pthread_kill(t, SIGUSR1);
		sent++;
		while (atomic_load(&handled) == before && t_now_ms() < until)
			usleep(1000);
		usleep(20000);
	}
	t_fifo_feed(own, path, words);
	if (t_join_within(t, 5000, NULL)) {
		tap_ok(false, "%s: readfile() ends once the FIFO ends",
		       j->b->name);
		return;
	}
	if (!tap_ok(sent > 0 && r.ret == (ssize_t)strlen(words) &&
		    !memcmp(r.buf, words, strlen(words)),
		    "%s: readfile() blocked in %s on a FIFO, %d SA_RESTART "
		    "signals: it restarts and gives the data, as read(2) would",
		    j->b->name, j->in_open ? "open()" : "read()", sent))
		tap_diag("   returned %zd (%s); signals handled %d", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-",
			 atomic_load(&handled));
}

/* ---- a declared length past the mapping ---- */

static void test_long_buffer(const struct t_backend *b, char *map)
{
	static const size_t lens[] = {
		(size_t)1 << 40, (size_t)SSIZE_MAX, SIZE_MAX,
	};
	static const char *const len_names[] = {
		"2^40", "SSIZE_MAX", "SIZE_MAX",
	};

	gv_backend_force(b->id);
	for (size_t i = 0; i < GV_ARRAY_SIZE(lens); i++) {
		struct name_val v[2] = {
			{ .name = "data:big", .value_in = { map, lens[i] } },
			{ .name = "data:small" },
		};
		ssize_t n;
		int ret, err;
		bool ok;

		memset(map, 0, MAPPED);
		errno = 0;
		ret = getvalues(dir_fd, "", v, 2, AT_EMPTY_PATH);
		err = errno;
		ok = ret == 2 && !v[0].error && !v[1].error &&
		     v[0].value_out.iov_base == map &&
		     v[0].value_out.iov_len == BIG && !memcmp(map, big, BIG) &&
		     v[1].value_out.iov_base == map + BIG &&
		     v[1].value_out.iov_len == strlen(small) &&
		     !memcmp(map + BIG, small, strlen(small));
		if (!tap_ok(ok, "%s: getvalues(), a %d-byte mapping declared "
			    "%s bytes long: both values land in it", b->name,
			    MAPPED, len_names[i]))
			tap_diag("   returned %d (%s); entry 0: %s", ret,
				 ret < 0 ? strerrorname_np(err) : "-",
				 t_got(ret, err, &v[0]));
		if (lens[i] > SSIZE_MAX)
			continue;	/* readfile() returns an ssize_t */
		memset(map, 0, MAPPED);
		errno = 0;
		n = readfile(dir_fd, "big", map, lens[i], 0);
		if (!tap_ok(n == BIG && !memcmp(map, big, BIG),
			    "%s: readfile(), a %d-byte mapping declared %s "
			    "bytes long: the file lands in it", b->name, MAPPED,
			    len_names[i]))
			tap_diag("   returned %zd (%s)", n,
				 n < 0 ? strerrorname_np(errno) : "-");
	}
}

/* ---- a NULL path with AT_EMPTY_PATH ---- */

static void test_null_path(const struct t_backend *b)
{
	static const char *const names[] = {
		"stat:ino", ":size:small", "data:small", "dir:", "fs:type",
	};
	enum { N = GV_ARRAY_SIZE(names) };
	static char buf[2][8192];
	struct name_val v[2][N];
	int ret[2], err[2];
	bool same;

	gv_backend_force(b->id);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < N; i++)
			v[k][i] = (struct name_val){ .name = names[i] };
		v[k][0].value_in = (struct iovec){ buf[k], sizeof(buf[k]) };
		errno = 0;
		ret[k] = getvalues(dir_fd, k ? NULL : "", v[k], N,
				   AT_EMPTY_PATH);
		err[k] = errno;
	}
	same = ret[0] == N && ret[1] == N;
	for (int i = 0; same && i < N; i++)
		same = !v[0][i].error && !v[1][i].error &&
		       v[0][i].value_out.iov_len == v[1][i].value_out.iov_len &&
		       !memcmp(v[0][i].value_out.iov_base,
			       v[1][i].value_out.iov_base,
			       v[0][i].value_out.iov_len);
	if (!tap_ok(same, "%s: getvalues(fd, NULL, ..., AT_EMPTY_PATH) is "
		    "getvalues(fd, \"\", ...)", b->name))
		tap_diag("   \"\": %d (%s), NULL: %d (%s)", ret[0],
			 ret[0] < 0 ? strerrorname_np(err[0]) : "-", ret[1],
			 ret[1] < 0 ? strerrorname_np(err[1]) : "-");
	errno = 0;
	ret[1] = getvalues(dir_fd, NULL, v[1], N, 0);
	tap_is_errno(ret[1], errno, -1, EFAULT, "%s: a NULL path without "
		     "AT_EMPTY_PATH: EFAULT, as statx(2)", b->name);
}

/* ---- GETVALUES_BACKEND ---- */

static int env_helper(void)
{
	struct name_val v = { .name = "stat:size:small" };
	char buf[64];
	int r1, e1, r2, e2;

	v.value_in = (struct iovec){ buf, sizeof(buf) };
	errno = 0;
	r1 = getvalues(dir_fd, "", &v, 1, AT_EMPTY_PATH);
	e1 = errno;
	errno = 0;
	r2 = readfile(dir_fd, "small", buf, sizeof(buf), 0) < 0 ? -1 : 1;
	e2 = errno;
	printf("%d %d %d %d\n", r1, e1, r2, e2);
	return 0;
}

static void test_env(void)
{
	static const char *const bad[] = {
		"bogus", "URING", "sync ", "nativ", "auto,sync",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(bad); i++) {
		int p[2], r1 = 0, e1 = 0, r2 = 0, e2 = 0, status;
		char out[128] = "", fd[16];
		ssize_t n;
		pid_t pid;

		if (pipe2(p, O_CLOEXEC))
			tap_bail("pipe");
		snprintf(fd, sizeof(fd), "%d", dir_fd);
		pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			setenv("GETVALUES_BACKEND", bad[i], 1);
			fcntl(dir_fd, F_SETFD, 0);
			execl("/proc/self/exe", "backend_edges", "--env",
			      fd, (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		n = read(p[0], out, sizeof(out) - 1);
		out[n > 0 ? n : 0] = 0;
		close(p[0]);
		waitpid(pid, &status, 0);
		if (sscanf(out, "%d %d %d %d", &r1, &e1, &r2, &e2) != 4)
			r1 = 0;
		if (!tap_ok(r1 == -1 && e1 == EINVAL && r2 == -1 &&
			    e2 == EINVAL, "GETVALUES_BACKEND=\"%s\": "
			    "getvalues() and readfile() fail with EINVAL",
			    bad[i]))
			tap_diag("   getvalues %d (%s), readfile %d (%s)", r1,
				 strerrorname_np(e1), r2, strerrorname_np(e2));
	}
}

int main(int argc, char **argv)
{
	struct t_backend bs[4];
	char *map;
	int n;

	if (argc == 3 && !strcmp(argv[1], "--env")) {
		dir_fd = atoi(argv[2]);
		return env_helper();
	}
	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("backends"));
	dir_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	t_fill_pattern(big, sizeof(big), 14);
	if (dir_fd < 0 || mkfifoat(dir_fd, "fifo", 0600) ||
	    t_write_file(dir_fd, "big", big, sizeof(big), 0644) ||
	    t_write_file(dir_fd, "small", small, strlen(small), 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	map = mmap(NULL, MAPPED + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + MAPPED, 4096, PROT_NONE))
		tap_bail("mmap: %s", strerror(errno));

	n = t_backends(bs, 9 + 2 + 5 + 2);
	for (int i = 0; i < n; i++) {
		test_thread_self(&bs[i]);
		for (int in_open = 0; in_open < 2; in_open++) {
			struct sr_job j = { &bs[i], in_open };
			char what[64];

			snprintf(what, sizeof(what), "%s, SA_RESTART",
				 bs[i].name);
			t_sub(what, 20, sr_case, &j);
		}
		test_long_buffer(&bs[i], map);
		test_null_path(&bs[i]);
	}
	test_env();
	munmap(map, MAPPED + 4096);
	close(dir_fd);
	return tap_done();
}
