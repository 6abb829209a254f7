// SPDX-License-Identifier: MIT
/*
 * harden_review.c - the bugs a review found (fixed by 8a390bc, 3795852 and
 * d9517c9), each provoked as its proof of concept did, so that none comes
 * back; each fails against the library before those commits:
 *  1. io_uring after unshare(CLONE_FILES): io-wq workers keep the descriptor
 *     table the thread had when they were made, so a number the ring looked
 *     up there named another file: a decoy read, a FIFO opened; names
 *     through thread-self or self must describe the calling thread;
 *  2. a value that overflows a buffer that cannot be written is EFAULT on
 *     every backend (io_uring said EOVERFLOW without the write that decides);
 *  3. a backend probe that failed for want of a descriptor (EMFILE) was
 *     remembered as ENOSYS for the life of the process;
 *  4. pthread_cancel() acted on in readfile()'s open(2), or in the probes of
 *     a process's first getvalues(), left a descriptor open;
 *  5. $ORIGIN given as a descriptor was borrowed, not copied: another thread
 *     dup2()ing over its number made data: open a FIFO by name.
 * Every case runs in a child under a deadline; the races run long enough to
 * show the old bugs within a second or two.
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LOW		3	/* decoys take every free number from here */
#define HIGH		64	/* ... up to here */
#define URING_N		32	/* entries of a call through the ring */
#define URING_ROUNDS	10	/* calls after unshare(CLONE_FILES) */
#define EM_N		16	/* entries of a call under EMFILE */
#define CANCELS		200	/* cancellations in readfile()'s open() */
#define PROBE_RUNS	300	/* processes cancelled in their first call */
#define BORROW_MS	800	/* dup2() over $ORIGIN for this long */

static const char outside[] = "OUTSIDE: a file outside $ORIGIN\n";
static char top[PATH_MAX];
static int top_fd = -1;
static atomic_int fifo_opens;

/* Count every open of the FIFO @p by someone else: each wakes this writer. */
static void *fifo_writer(void *p)
{
	for (;;) {
		int fd = open(p, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			atomic_fetch_add(&fifo_opens, 1);
			close(fd);
		} else if (errno != EINTR) {
			return NULL;
		}
	}
}

static void start_writer(const char *fifo)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fifo_writer, (void *)fifo))
		tap_bail("pthread_create");
	pthread_detach(t);	/* blocked in open(2) until the child exits */
}

/* 1. io_uring after unshare(CLONE_FILES) */

struct us_run {
	bool decoys[HIGH];	/* numbers the leader holds the decoy at */
	int unshare_err;
	pid_t tid, kids[URING_ROUNDS + 1];
	int wrong, outside, failed, self_wrong;
};

/*
 * URING_N data: entries @name of @origin; counts the values that lack
 * "Pid:\t@want" (errors and missing entries too) and those from the decoy.
 */
static void status_call(const char *origin, const char *name, pid_t want,
			int *wrong, int *outs, int *failed)
{
	static char buf[URING_N][4096];
	struct name_val v[URING_N];
	char line[32];
	int r;

	snprintf(line, sizeof(line), "\nPid:\t%d\n", want);
	for (int i = 0; i < URING_N; i++)
		v[i] = (struct name_val){
			.name = name,
			.value_in = { buf[i], sizeof(buf[i]) },
		};
	r = getvalues(AT_FDCWD, origin, v, URING_N, 0);
	if (r < 0) {
		*failed = errno;
		r = 0;
	}
	*wrong += URING_N - r;
	for (int i = 0; i < r; i++) {
		const char *s = v[i].value_out.iov_base;
		size_t len = v[i].value_out.iov_len;

		if (!v[i].error && len >= 7 && !memcmp(s, outside, 7))
			(*outs)++;
		if (v[i].error || !memmem(s, len, line, strlen(line)))
			(*wrong)++;
	}
}

static void *us_thread(void *p)
{
	struct us_run *r = p;
	int junk = 0, failed = 0;
	char origin[32];

	gv_backend_force(GV_BACKEND_URING);
	r->tid = gettid();
	for (int k = 0; k <= URING_ROUNDS; k++) {
		/*
		 * A new process each time: nothing of it is in the dcache,
		 * and io_uring hands such an open to an io-wq worker. The
		 * first call makes the ring and its workers, with the table
		 * still shared; then this thread takes a table of its own.
		 */
		r->kids[k] = fork();
		if (r->kids[k] == 0) {
			pause();
			_exit(0);
		}
		snprintf(origin, sizeof(origin), "/proc/%d", r->kids[k]);
		if (k == 0) {
			status_call(origin, "data:status", r->kids[k], &junk,
				    &junk, &failed);
			if (unshare(CLONE_FILES)) {
				r->unshare_err = errno;
				return NULL;
			}
			/* free, here only, the numbers of the decoys */
			for (int fd = LOW; fd < HIGH; fd++)
				if (r->decoys[fd])
					close(fd);
			continue;
		}
		status_call(origin, "data:status", r->kids[k], &r->wrong,
			    &r->outside, &r->failed);
		status_call("/proc", "data:thread-self/status", r->tid,
			    &r->self_wrong, &r->outside, &r->failed);
		status_call("/proc", "data:self/status", getpid(),
			    &r->self_wrong, &r->outside, &r->failed);
	}
	return NULL;
}

static void uring_unshare_case(void *arg)
{
	bool fifo = *(bool *)arg;
	const char *what = fifo ? "a FIFO" : "a file";
	static struct us_run r;
	static char decoy[PATH_MAX + 16], fifos[2][PATH_MAX + 32];
	pthread_t t;

	snprintf(decoy, sizeof(decoy), "%s/%s", top,
		 fifo ? "decoy-fifo" : "decoy-file");
	/* the decoy directory at every free number from LOW to HIGH */
	for (;;) {
		int fd = open(decoy, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			tap_bail("open %s: %s", decoy, strerror(errno));
		if (fd >= HIGH) {
			close(fd);
			break;
		}
		r.decoys[fd] = true;
	}
	if (fifo) {
		snprintf(fifos[0], sizeof(fifos[0]), "%s/status", decoy);
		start_writer(fifos[0]);
		snprintf(fifos[1], sizeof(fifos[1]), "%s/self/status", decoy);
		start_writer(fifos[1]);
	}
	if (pthread_create(&t, NULL, us_thread, &r))
		tap_bail("pthread_create");
	if (t_join_within(t, 5000, NULL)) {
		tap_ok(false, "uring, decoy %s: the unshared thread's calls "
		       "end", what);
		return;
	}
	for (int k = 0; k <= URING_ROUNDS; k++)
		if (r.kids[k] > 0) {
			kill(r.kids[k], SIGKILL);
			waitpid(r.kids[k], NULL, 0);
		}
	if (r.unshare_err) {
		tap_skip(fifo ? 3 : 2, "unshare(CLONE_FILES): %s",
			 strerror(r.unshare_err));
		return;
	}
	if (!tap_ok(!r.wrong && !r.failed, "uring, decoy %s at the reused "
		    "numbers: after unshare(CLONE_FILES), data:status of "
		    "$ORIGIN /proc/PID describes process PID",
		    what))
		tap_diag("   %d of %d values wrong, %d from the decoy; "
			 "a call failed: %s", r.wrong, URING_N * URING_ROUNDS,
			 r.outside, r.failed ? strerrorname_np(r.failed) : "no");
	if (!tap_ok(!r.self_wrong, "uring, decoy %s: data:thread-self/status "
		    "and data:self/status of $ORIGIN /proc describe the "
		    "calling thread and its process", what))
		tap_diag("   %d of %d values wrong", r.self_wrong,
			 2 * URING_N * URING_ROUNDS);
	if (fifo) {
		usleep(100 * 1000);	/* a late open wakes the writer */
		tap_is_long(atomic_load(&fifo_opens), 0, "uring: the FIFOs "
			    "beneath the reused numbers' directory are never "
			    "opened");
	}
}

/* 2. a full value and a buffer that cannot be written */

static void efault_case(void *arg)
{
	const struct t_backend *b = arg;
	static char ok[5][4096], names[5][8];
	struct name_val v[5];
	bool others = true;
	char *ro;
	int r, err;

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	for (int i = 0; i < 5; i++) {
		snprintf(names[i], sizeof(names[i]), "data:f%d", i);
		v[i] = (struct name_val){
			.name = names[i],
			.value_in = { ok[i], sizeof(ok[i]) },
		};
	}
	/* 8 read-only bytes for a longer value: it overflows, unwritably */
	v[2].value_in = (struct iovec){ ro, 8 };
	gv_backend_force(b->id);
	errno = 0;
	r = getvalues(top_fd, "efault", v, 5, 0);
	err = errno;
	if (!tap_ok(r == 5 && v[2].error == EFAULT, "%s: a value that "
		    "overflows a buffer that cannot be written is EFAULT",
		    b->name))
		tap_diag("   returned %d; entry 2: %s", r, t_got(r, err, &v[2]));
	for (int i = 0; i < 5; i++)
		if (i != 2 && !t_is(r > i, &v[i], outside, strlen(outside)))
			others = false;
	tap_ok(others, "%s: the other entries hold their values", b->name);
	munmap(ro, 4096);
}

/* 3. a probe under EMFILE */

struct em_job {
	enum gv_backend_id id;
	const char *name;
	bool uring;		/* usable in a fresh process */
};

static int em_call(int dfd, struct name_val *v, int *err)
{
	static char buf[EM_N][64], names[EM_N][16];
	int r;

	for (int i = 0; i < EM_N; i++) {
		snprintf(names[i], sizeof(names[i]), "data:v%d", i);
		v[i] = (struct name_val){
			.name = names[i],
			.value_in = { buf[i], sizeof(buf[i]) },
		};
	}
	errno = 0;
	r = getvalues(dfd, "", v, EM_N, AT_EMPTY_PATH);
	*err = errno;
	return r;
}

/* The entries hold their values or (if @emfile_ok) EMFILE. */
static bool em_values(int r, const struct name_val *v, bool emfile_ok)
{
	char want[32];

	if (r != EM_N)
		return false;
	for (int i = 0; i < EM_N; i++) {
		int len = snprintf(want, sizeof(want), "value %d\n", i);

		if (!(emfile_ok && v[i].error == EMFILE) &&
		    !t_is(1, &v[i], want, len))
			return false;
	}
	return true;
}

static void emfile_case(void *arg)
{
	const struct em_job *j = arg;
	struct name_val v[EM_N];
	struct rlimit rl, low;
	int fds[HIGH], n = 0, dfd, r, err;
	char path[PATH_MAX + 16];

	gv_backend_force(j->id);
	/* auto then batches from 2 files: it probes io_uring */
	if (j->id == GV_BACKEND_AUTO)
		gv_backend_force_fs_class(GV_FS_DISK);
	snprintf(path, sizeof(path), "%s/emfile", top);
	dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || getrlimit(RLIMIT_NOFILE, &rl))
		tap_bail("setup: %s", strerror(errno));
	low = rl;
	low.rlim_cur = HIGH;
	if (setrlimit(RLIMIT_NOFILE, &low))
		tap_bail("setrlimit: %s", strerror(errno));
	while (n < HIGH && (fds[n] = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) >= 0)
		n++;
	r = em_call(dfd, v, &err);
	if (!tap_ok(r < 0 ? err == EMFILE : em_values(r, v, true), "%s: the "
		    "process's first call, with no descriptor free, fails "
		    "with EMFILE (not ENOSYS)", j->name))
		tap_diag("   returned %d; entry 0: %s", r, t_got(r, err, &v[0]));
	while (n > 0)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &rl);
	r = em_call(dfd, v, &err);
	if (!tap_ok(em_values(r, v, false), "%s: with descriptors free "
		    "again, the next call gives the values", j->name))
		tap_diag("   returned %d; entry 0: %s", r, t_got(r, err, &v[0]));
	if ((j->id == GV_BACKEND_URING || j->id == GV_BACKEND_AUTO) &&
	    !j->uring)
		tap_skip(1, "%s: io_uring is not usable in this process",
			 j->name);
	else if (j->id == GV_BACKEND_URING || j->id == GV_BACKEND_AUTO)
		tap_is_long(gv_backend_usable(GV_BACKEND_URING), 0, "%s: "
			    "io_uring is usable after it (the EMFILE was not "
			    "remembered)", j->name);
	if (j->id == GV_BACKEND_NATIVE)
		tap_is_long(gv_backend_usable(GV_BACKEND_NATIVE), 0, "%s: the "
			    "native calls are usable after it", j->name);
	close(dfd);
}

/* Whether backend @id works in a process that has not probed yet. */
static bool fresh_usable(enum gv_backend_id id)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(gv_backend_usable(id) ? 1 : 0);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st);
}

static void emfile_tests(void)
{
	bool uring = fresh_usable(GV_BACKEND_URING);
	bool native = fresh_usable(GV_BACKEND_NATIVE);
	const struct em_job jobs[] = {
		{ GV_BACKEND_SYNC, "EMFILE, sync", uring },
		{ GV_BACKEND_URING, "EMFILE, uring", uring },
		{ GV_BACKEND_AUTO, "EMFILE, auto", uring },
		{ GV_BACKEND_NATIVE, "EMFILE, native", uring },
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(jobs); i++) {
		if (jobs[i].id == GV_BACKEND_URING && !uring) {
			tap_skip(3, "uring: io_uring is not usable in this "
				 "process (kernel, io_uring_disabled or "
				 "seccomp)");
			continue;
		}
		if (jobs[i].id == GV_BACKEND_NATIVE && !native)
			continue;	/* only in the patched kernel */
		t_sub(jobs[i].name, 10, emfile_case, (void *)&jobs[i]);
	}
}

/* 4. pthread_cancel() in readfile()'s open(), and in the first probes */

static void cancel_open_case(void *arg)
{
	const struct t_backend *b = arg;
	static struct t_reader r;
	int base = t_count_fds(), status;
	char fifo[PATH_MAX + 16], buf[64];
	pthread_t t;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/cancel/fifo", top);
	for (int i = 0; i < CANCELS; i++) {
		long long until;
		int w;

		r = (struct t_reader){
			.backend = b->id, .dfd = top_fd,
			.name = "cancel/fifo", .warm = "cancel/file",
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
	tap_is_long(readfile(top_fd, "cancel/file", buf, sizeof(buf), 0),
		    strlen(outside), "%s: the next readfile() works", b->name);
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
 * Each run a fresh process whose first call is cancelled: a third with the
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

/* 5. $ORIGIN a descriptor that another thread dup2()s over */

static atomic_bool swap_stop;
static int swap_nr, swap_proc, swap_tmp;

static void *swapper(void *p)
{
	(void)p;
	while (!atomic_load(&swap_stop)) {
		dup2(swap_tmp, swap_nr);
		dup2(swap_proc, swap_nr);
	}
	return NULL;
}

static void borrow_case(void *arg)
{
	const struct t_backend *b = arg;
	char dir[PATH_MAX + 16], fifo[PATH_MAX + 32];
	static char want[4096], buf[4096];
	int calls = 0, wrong = 0, errors = 0;
	long long until;
	ssize_t wlen;
	pthread_t t;

	snprintf(dir, sizeof(dir), "%s/borrow", top);
	snprintf(fifo, sizeof(fifo), "%s/version", dir);
	wlen = t_orc_read(AT_FDCWD, "/proc/version", want, sizeof(want));
	swap_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	swap_tmp = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	swap_nr = fcntl(swap_proc, F_DUPFD_CLOEXEC, 0);
	if (wlen <= 0 || swap_proc < 0 || swap_tmp < 0 || swap_nr < 0)
		tap_bail("setup: %s", strerror(errno));
	start_writer(fifo);
	if (pthread_create(&t, NULL, swapper, NULL))
		tap_bail("pthread_create");
	gv_backend_force(b->id);
	until = t_now_ms() + BORROW_MS;
	while (t_now_ms() < until && !atomic_load(&fifo_opens)) {
		for (int k = 0; k < 64; k++, calls++) {
			struct name_val v = {
				.name = "data:version",
				.value_in = { buf, sizeof(buf) },
			};

			if (getvalues(swap_nr, "", &v, 1, AT_EMPTY_PATH) !=
			    1 || v.error)
				errors++;
			else if (!t_is(1, &v, want, wlen))
				wrong++;
		}
	}
	atomic_store(&swap_stop, true);
	pthread_join(t, NULL);
	usleep(100 * 1000);	/* a late open wakes the writer */
	tap_is_long(atomic_load(&fifo_opens), 0, "%s: $ORIGIN a descriptor "
		    "another thread dup2()s over: the FIFO beneath the other "
		    "directory is never opened (%d calls)", b->name, calls);
	if (!tap_is_long(wrong, 0, "%s: each value is the original "
			 "directory's (else an error)", b->name))
		tap_diag("   %d values, %d errors", calls - errors, errors);
}

/* d: a directory, p: a FIFO, f: a file holding outside[] */
static const char *const tree[] = {
	"d decoy-file", "f decoy-file/status", "d decoy-file/self",
	"f decoy-file/self/status", "d decoy-fifo", "p decoy-fifo/status",
	"d decoy-fifo/self", "p decoy-fifo/self/status", "d efault",
	"f efault/f0", "f efault/f1", "f efault/f2", "f efault/f3",
	"f efault/f4", "d emfile", "d cancel", "p cancel/fifo",
	"f cancel/file", "d borrow", "p borrow/version",
};

int main(void)
{
	static const bool variants[] = { false, true };
	struct t_backend bs[4];
	int n;

	alarm(300);	/* t_sub() bounds each case; this, the whole */
	/* a reader cancelled once its open returned closes the FIFO */
	signal(SIGPIPE, SIG_IGN);
	top_fd = t_tmpdir_open("review", top, sizeof(top));
	for (size_t i = 0; i < GV_ARRAY_SIZE(tree); i++) {
		const char *name = tree[i] + 2;
		int err = 0;

		if (tree[i][0] == 'd')
			err = mkdirat(top_fd, name, 0755);
		else if (tree[i][0] == 'p')
			err = mkfifoat(top_fd, name, 0600);
		else
			err = t_write_file(top_fd, name, outside,
					   strlen(outside), 0644);
		if (err)
			tap_bail("setup of %s: %s", name, strerror(errno));
	}
	for (int i = 0; i < EM_N; i++) {
		char name[32], data[32];
		int len = snprintf(data, sizeof(data), "value %d\n", i);

		snprintf(name, sizeof(name), "emfile/v%d", i);
		if (t_write_file(top_fd, name, data, len, 0644))
			tap_bail("setup: %s", strerror(errno));
	}

	/* first, while this process has probed nothing: its children neither */
	emfile_tests();
	t_sub("cancel, first call", 20, cancel_probe_case, NULL);

	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip(5, "uring: io_uring is not usable in this process "
			 "(kernel, io_uring_disabled or seccomp)");
	else
		for (int i = 0; i < 2; i++)
			t_sub(variants[i] ? "uring, unshare, FIFO" :
			      "uring, unshare, file", 10, uring_unshare_case,
			      (void *)&variants[i]);

	n = t_backends(bs, 2 + 3 + 2);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, EFAULT", bs[i].name);
		t_sub(what, 10, efault_case, &bs[i]);
		snprintf(what, sizeof(what), "%s, cancel in open()",
			 bs[i].name);
		t_sub(what, 20, cancel_open_case, &bs[i]);
		snprintf(what, sizeof(what), "%s, borrowed $ORIGIN",
			 bs[i].name);
		t_sub(what, 10, borrow_case, &bs[i]);
	}
	close(top_fd);
	return tap_done();
}
