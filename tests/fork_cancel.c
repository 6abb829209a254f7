// SPDX-License-Identifier: MIT
/*
 * fork_cancel.c - fork() never waits for a call in another thread, and a
 * cancelled call leaves nothing behind (SPEC v2 section 4). A thread is
 * blocked in readfile() of a FIFO, in its open() (no writer yet: readfile
 * opens as openat(2) does and waits) or in its read() (a writer that has
 * written nothing). Then fork() must return within a second, and the child
 * must hold no descriptor of that FIFO; the blocked call then completes
 * with what the writer wrote. A thread cancelled while so blocked leaves
 * no descriptor, and the next fork() does not wedge. Every backend; each
 * case in a child under a deadline, since a wedged fork() never returns.
 * Also: threads cancelled in readfile()'s open() as the writer comes, and
 * in a process's first getvalues() (its backend probes), leave no
 * descriptor.
 *
 * Asked for by the hardening review of issue 14, as harden_fork.c; the
 * cancellations in open() and in the first call were harden_review.c's
 * fourth case (a review's proof of concept).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FORK_MS		1000	/* fork() must return within this */
#define CANCELS		200	/* cancellations in readfile()'s open() */
#define PROBE_RUNS	300	/* processes cancelled in their first call */

static const char words[] = "hello through the FIFO";
static char top[2048];
static int dir_fd = -1;
static struct stat fifo_st;

enum where { IN_OPEN, IN_READ };
static const char *const where_names[] = { "open()", "read()" };

/*
 * Let a reader of the FIFO finish: words[] written through the writer @fd,
 * or through one opened now if @fd < 0 (t_fifo_feed()).
 */
static void write_and_go(int fd)
{
	char path[2100];

	snprintf(path, sizeof(path), "%s/fifo", top);
	t_fifo_feed(fd, path, words);
}

struct watchdog {
	atomic_bool forked, fired;
	atomic_int *own;	/* the test's writer, closed if it fires */
};

/*
 * If fork() has not returned after FORK_MS, let the reader go: data, and
 * every writer gone, so that it reaches end of file.
 */
static void *watchdog_main(void *p)
{
	struct watchdog *w = p;
	long long until = t_now_ms() + FORK_MS;

	while (t_now_ms() < until)
		if (atomic_load(&w->forked))
			return NULL;
		else
			usleep(2000);
	atomic_store(&w->fired, true);
	write_and_go(-1);
	if (atomic_load(w->own) >= 0)
		close(atomic_exchange(w->own, -1));
	return NULL;
}

/*
 * fork() under a watchdog. The child counts its descriptors of the FIFO
 * (but *@own, the test's own writer) into *@child_fds. Returns whether fork()
 * returned before the watchdog had to release the reader.
 */
static bool fork_watched(atomic_int *own, int *child_fds)
{
	struct watchdog w = { .own = own };
	int except = atomic_load(own);
	int p[2], status;
	pthread_t t;
	pid_t pid;
	bool in_time;

	*child_fds = -1;
	if (pipe2(p, O_CLOEXEC) ||
	    pthread_create(&t, NULL, watchdog_main, &w))
		tap_bail("watchdog: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int n = t_fifo_fds(&fifo_st, except);

		if (write(p[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(0);
	}
	atomic_store(&w.forked, true);
	in_time = !atomic_load(&w.fired);
	pthread_join(t, NULL);
	close(p[1]);
	if (pid > 0) {
		if (read(p[0], child_fds, sizeof(*child_fds)) !=
		    sizeof(*child_fds))
			*child_fds = -1;
		waitpid(pid, &status, 0);
	}
	close(p[0]);
	return pid > 0 && in_time;
}

struct job {
	const struct t_backend *b;
	enum where where;
};

static void fork_case(void *arg)
{
	const struct job *j = arg;
	const char *be = j->b->name, *in = where_names[j->where];
	static struct t_reader r;
	atomic_int own = -1;
	char path[2100];
	int child_fds;
	pthread_t t;
	bool asleep;

	r = (struct t_reader){
		.backend = j->b->id, .dfd = dir_fd,
		.name = "fifo", .warm = "file",
	};
	snprintf(path, sizeof(path), "%s/fifo", top);
	if (j->where == IN_READ)	/* a writer that writes nothing yet */
		atomic_store(&own, open(path, O_RDWR | O_CLOEXEC));
	asleep = t_reader_start(&r, &t, 0);
	if (!tap_ok(asleep && !atomic_load(&r.done), "%s: readfile() of a "
		    "FIFO blocks in %s until the writer writes", be, in)) {
		tap_diag("   it returned %zd (%s)", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-");
	}
	tap_ok(fork_watched(&own, &child_fds), "%s: fork() returns within "
	       "%d ms while another thread is blocked in readfile()'s %s", be,
	       FORK_MS, in);
	tap_is_long(child_fds, 0, "%s: the child holds no descriptor of the "
		    "FIFO", be);

	/* let the reader finish: the writer writes and goes */
	write_and_go(atomic_exchange(&own, -1));
	if (t_join_within(t, 5000, NULL)) {
		tap_ok(false, "%s: the blocked readfile() ends once the writer "
		       "has written and gone", be);
		return;
	}
	tap_ok(r.ret == (ssize_t)strlen(words) && !memcmp(r.buf, words,
							  strlen(words)),
	       "%s: the blocked readfile() gives what the writer wrote", be);
	tap_is_long(t_fifo_fds(&fifo_st, -1), 0, "%s: no descriptor of the "
		    "FIFO is left", be);
}

static void cancel_case(void *arg)
{
	const struct job *j = arg;
	const char *be = j->b->name, *in = where_names[j->where];
	static struct t_reader r;
	char path[2100], buf[64];
	atomic_int own = -1;
	int child_fds, fd;
	pthread_t t;

	r = (struct t_reader){
		.backend = j->b->id, .dfd = dir_fd,
		.name = "fifo", .warm = "file",
	};
	snprintf(path, sizeof(path), "%s/fifo", top);
	if (j->where == IN_READ)
		atomic_store(&own, open(path, O_RDWR | O_CLOEXEC));
	t_reader_start(&r, &t, 0);
	pthread_cancel(t);
	if (t_join_within(t, 1000, NULL)) {
		/*
		 * Not cancelled inside the call (the library may hold off
		 * cancellation there): let the call end, and it is cancelled
		 * after, or returns.
		 */
		write_and_go(atomic_exchange(&own, -1));
		if (!tap_ok(!t_join_within(t, 3000, NULL), "%s: a thread "
			    "cancelled in readfile()'s %s ends once the FIFO "
			    "ends", be, in))
			return;
	}
	tap_is_long(t_fifo_fds(&fifo_st, atomic_load(&own)), 0, "%s: "
		    "cancelled in readfile()'s %s: no descriptor of the FIFO "
		    "is left", be, in);
	tap_ok(fork_watched(&own, &child_fds), "%s: cancelled in readfile()'s "
	       "%s: the next fork() returns within %d ms", be, in, FORK_MS);
	fd = atomic_exchange(&own, -1);
	if (fd >= 0)
		close(fd);
	gv_backend_force(j->b->id);
	tap_is_long(readfile(dir_fd, "file", buf, sizeof(buf), 0), 4,
		    "%s: cancelled in readfile()'s %s: the next readfile() "
		    "works", be, in);
}

/*
 * CANCELS threads cancelled in readfile()'s open() of the FIFO, each as a
 * writer comes: none may leave the descriptor its open(2) returned (a
 * review found one did; fixed by 3795852).
 */
static void cancel_open_case(void *arg)
{
	const struct t_backend *b = arg;
	static struct t_reader r;
	int base = t_count_fds(), status;
	char fifo[PATH_MAX + 16], buf[64];
	pthread_t t;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/fifo", top);
	for (int i = 0; i < CANCELS; i++) {
		long long until;
		int w;

		r = (struct t_reader){
			.backend = b->id, .dfd = dir_fd,
			.name = "fifo", .warm = "file",
		};
		t_reader_start(&r, &t, 0);	/* asleep in open(): no writer */
		/* a writer lets the open return as the cancellation comes */
		w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		pthread_cancel(t);
		until = t_now_ms() + 3000;
		while (t_join_within(t, 50, NULL)) {
			if (t_now_ms() > until) {
				tap_ok(false, "%s: a thread cancelled in "
				       "readfile()'s open() ends once a writer "
				       "came", b->name);
				return;
			}
			if (w < 0)
				w = open(fifo, O_WRONLY | O_NONBLOCK |
					 O_CLOEXEC);
		}
		if (w >= 0)
			close(w);
	}
	tap_is_long(t_count_fds() - base, 0, "%s: %d threads cancelled in "
		    "readfile()'s open() of a FIFO leave no descriptor",
		    b->name, CANCELS);
	/* t_sub() turns a fork() that never returns into a failure */
	pid = fork();
	if (pid == 0)
		_exit(0);
	tap_ok(pid > 0 && waitpid(pid, &status, 0) == pid, "%s: the next "
	       "fork() returns", b->name);
	gv_backend_force(b->id);
	tap_is_long(readfile(dir_fd, "file", buf, sizeof(buf), 0), 4,
		    "%s: the next readfile() works", b->name);
}

static atomic_bool probe_started, probe_returned, probe_pending;

/* No array on its stack: ASan would keep it poisoned once unwound. */
static void *probe_thread(void *p)
{
	static char buf[64];
	static struct name_val v = {
		.name = "stat:size", .value_in = { buf, sizeof(buf) },
	};

	(void)p;
	if (atomic_load(&probe_pending)) {
		/* a cancellation already pending when the call begins */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		atomic_store(&probe_started, true);
		while (atomic_load(&probe_pending))
			sched_yield();
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	}
	atomic_store(&probe_started, true);
	getvalues(AT_FDCWD, "/", &v, 1, 0);	/* the first call: probes */
	atomic_store(&probe_returned, true);
	for (;;)
		pause();
	return NULL;
}

/*
 * Each run a fresh process whose first call (its probes) is cancelled (a
 * review found that the probes left a descriptor; fixed by d9517c9): a third with the
 * cancellation pending as the call begins (the old probes acted on it at
 * their first open()), the rest at moments spread over its start (the old
 * probes left a descriptor when it came in or after their open()).
 */
static void cancel_probe_case(void *arg)
{
	int inside = 0, leaks = 0, odd = 0;

	(void)arg;
	for (int i = 0; i < PROBE_RUNS; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			tap_bail("fork: %s", strerror(errno));
		if (pid == 0) {
			int base = t_count_fds(), ret = 0;
			void *res;
			pthread_t t;

			gv_backend_force(GV_BACKEND_AUTO);
			atomic_store(&probe_pending, i % 3 == 0);
			if (pthread_create(&t, NULL, probe_thread, NULL))
				_exit(100);
			if (i % 3) {	/* at some moment of its start */
				usleep(i % 100);
				pthread_cancel(t);
			} else {	/* before its call */
				while (!atomic_load(&probe_started))
					sched_yield();
				pthread_cancel(t);
				atomic_store(&probe_pending, false);
			}
			pthread_join(t, &res);
			if (res == PTHREAD_CANCELED &&
			    !atomic_load(&probe_returned))
				ret |= 1;
			if (t_count_fds() != base)
				ret |= 2;
			_exit(ret);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) > 3) {
			odd++;
			continue;
		}
		inside += WEXITSTATUS(st) & 1;
		leaks += !!(WEXITSTATUS(st) & 2);
	}
	tap_is_long(odd, 0, "cancelled first call: every process exits");
	tap_is_long(inside, 0, "a process's first getvalues() (its probes) "
		    "is not cancelled inside, %d runs", PROBE_RUNS);
	tap_is_long(leaks, 0, "a thread cancelled during a process's first "
		    "getvalues() leaves no descriptor, %d runs", PROBE_RUNS);
}

int main(void)
{
	struct t_backend bs[4];
	int n;

	alarm(600);	/* t_sub() bounds each case; this, the whole */
	/*
	 * A reader cancelled once its open returned closes the FIFO: a
	 * write racing with that gets EPIPE, not the signal.
	 */
	signal(SIGPIPE, SIG_IGN);
	dir_fd = t_fifo_dir("fork", top, sizeof(top), &fifo_st);
	/* first, while this process has probed nothing: its children neither */
	t_sub("cancel, first call", 120, cancel_probe_case, NULL);

	n = t_backends(bs, 10 + 3);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, cancel in open()",
			 bs[i].name);
		t_sub(what, 120, cancel_open_case, &bs[i]);
		for (int w = IN_OPEN; w <= IN_READ; w++) {
			struct job j = { &bs[i], w };

			snprintf(what, sizeof(what), "%s, fork, in %s",
				 bs[i].name, where_names[w]);
			t_sub(what, 10, fork_case, &j);
			snprintf(what, sizeof(what), "%s, cancel, in %s",
				 bs[i].name, where_names[w]);
			t_sub(what, 10, cancel_case, &j);
		}
	}
	close(dir_fd);
	return tap_done();
}
