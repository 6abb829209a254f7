// SPDX-License-Identifier: MIT
/*
 * backend_uring.c - the uring backend at work: across fork(), from 8
 * threads at once (10000 calls each), with calls that fail and overflow,
 * and on a file that changes size under the ring, without leaking
 * descriptors, direct descriptor slots or rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/backends.h"
#include "lib/tap.h"
#include "lib/util.h"

#define THREADS		8
#define THREAD_CALLS	10000

static struct t_files main_files;

/* ---- the tests ---- */

static void test_fork(void)
{
	int status, before, pipefd[2];
	char report[256] = "";
	pid_t pid;

	gv_backend_force(GV_BACKEND_URING);
	before = t_count_fds();
	tap_ok(t_files_get(&main_files) == 0 && t_files_readfile(&main_files) == 0,
	       "uring: values right in the parent");
	tap_is_long(t_count_fds(), before,
		    "the ring's own descriptor does not outlive the call");
	tap_ok(t_ring_maps() > 0, "the parent has a ring");
	if (pipe2(pipefd, O_CLOEXEC))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		int maps = t_ring_maps(), fds = t_count_fds(), bad = 0;

		for (int i = 0; i < 200; i++)
			bad += t_files_get(&main_files) || t_files_readfile(&main_files);
		snprintf(report, sizeof(report), "%d %d %d %d %d %d", maps,
			 t_ring_maps(), bad, t_count_fds() - fds,
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
	tap_ok(t_files_get(&main_files) == 0 && t_files_readfile(&main_files) == 0 &&
	       gv_backend_last() == GV_BACKEND_URING,
	       "the parent's ring still works after the child's calls");
}

struct thread_arg {
	struct t_files f;
	long bad, busy;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;

	for (int i = 0; i < THREAD_CALLS; i++)
		a->bad += (i % 8 ? t_files_get(&a->f) : t_files_readfile(&a->f)) != 0;
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
		t_files_make(&args[i].f, tag);
	}
	before = t_count_fds();
	maps_before = t_ring_maps();
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
	tap_is_long(t_ring_maps(), maps_before,
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

		bad += t_files_get(&main_files) != 0;
		bad += t_files_readfile(&main_files) != 0;
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

int main(void)
{
	t_backend_start(&main_files);
	test_fork();
	test_leaks();
	test_resize();
	test_threads();
	return tap_done();
}
