// SPDX-License-Identifier: MIT
/*
 * data_fdtable.c - a thread with a descriptor table of its own
 * (unshare(CLONE_FILES)) reads only what is beneath $ORIGIN through data:.
 * The thread-group leader's descriptor N is made another file outside
 * $ORIGIN, a FIFO holding data, or /dev/zero, for every N the thread's
 * calls could use; the value must be the file beneath $ORIGIN, and the
 * FIFO's data must still be there (nothing opened or read it). The same
 * through io_uring, whose workers keep the table the thread had when the
 * ring was made: a call after unshare(CLONE_FILES) must neither read the
 * decoys at the numbers it reuses nor open FIFOs beneath them. And $ORIGIN
 * given as a descriptor that another thread dup2()s over: each value is
 * the original directory's, and a FIFO beneath the other one is never
 * opened.
 *
 * Asked for by the hardening review of issue 14, as harden_fdtable.c; the
 * io_uring and dup2() cases were harden_review.c's first and fifth (a
 * review's proofs of concept).
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LOW	3	/* the decoys take every free number from here */
#define HIGH	200	/* ... up to here */
#define KEEP	900	/* our own descriptors move above them */
#define URING_HIGH	64	/* under io_uring, the decoys go up to here */
#define URING_N		32	/* entries of a call through the ring */
#define URING_ROUNDS	10	/* calls after unshare(CLONE_FILES) */
#define BORROW_MS	800	/* dup2() over $ORIGIN for this long */

static const char inside[] = "inside: the file beneath $ORIGIN\n";
static const char inside2[] = "inside2: another file beneath $ORIGIN\n";
static const char secret[] = "SECRET: a file outside $ORIGIN\n";
static const char fifo_data[] = "FIFODATA";

static char top[4096];
static int origin_fd = -1, fifo_w = -1;
static atomic_int fifo_opens;	/* opens of the FIFOs no call may open */

enum decoy { D_FILE, D_FIFO, D_ZERO };
static const char *const decoy_names[] = {
	"a file outside $ORIGIN", "a FIFO holding data", "/dev/zero",
};

struct run {
	enum gv_backend_id backend;
	bool by_path;		/* $ORIGIN by name, not by descriptor */
	bool decoys[HIGH];	/* numbers the leader holds a decoy at */
	/* results */
	int ret, err, unshared;
	struct name_val v[3];
	char buf[8192];
};

static void *thread_main(void *p)
{
	struct run *r = p;
	char path[4200];

	r->unshared = unshare(CLONE_FILES) ? errno : 0;
	if (r->unshared)
		return NULL;
	/* in this table only: free the numbers the leader's decoys hold */
	for (int fd = LOW; fd < HIGH; fd++)
		if (r->decoys[fd])
			close(fd);
	r->v[0] = (struct name_val){ .name = "data:inside",
				     .value_in = { r->buf, sizeof(r->buf) } };
	r->v[1] = (struct name_val){ .name = ":inside2" };
	r->v[2] = (struct name_val){ .name = ":inside" };
	gv_backend_force(r->backend);
	snprintf(path, sizeof(path), "%s/origin", top);
	errno = 0;
	if (r->by_path)
		r->ret = getvalues(AT_FDCWD, path, r->v, 3, 0);
	else
		r->ret = getvalues(origin_fd, "", r->v, 3, AT_EMPTY_PATH);
	r->err = errno;
	return NULL;
}

/* Open the decoy at every free number from LOW to HIGH, in this table. */
static void plant(enum decoy d, bool *decoys)
{
	char path[4200];

	memset(decoys, 0, HIGH * sizeof(*decoys));
	for (;;) {
		int fd;

		switch (d) {
		case D_FILE:
			snprintf(path, sizeof(path), "%s/secret", top);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			break;
		case D_FIFO:
			snprintf(path, sizeof(path), "%s/fifo", top);
			fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			break;
		default:
			fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
			break;
		}
		if (fd < 0)
			tap_bail("decoy: %s", strerror(errno));
		if (fd >= HIGH) {
			close(fd);
			return;
		}
		decoys[fd] = true;
	}
}

static void unplant(const bool *decoys)
{
	for (int fd = LOW; fd < HIGH; fd++)
		if (decoys[fd])
			close(fd);
}

struct job {
	const struct t_backend *b;
	enum decoy d;
	bool by_path;
};

/* In a child of its own: a hang or a crash is one failing check. */
static void check(void *arg)
{
	const struct job *j = arg;
	const struct t_backend *b = j->b;
	enum decoy d = j->d;
	bool by_path = j->by_path;
	const char *how = by_path ? "by path" : "by descriptor";
	static struct run r;
	int queued = -1;
	char drain[64];
	pthread_t t;

	/* exactly fifo_data in the FIFO, whatever an earlier run took */
	while (read(fifo_w, drain, sizeof(drain)) > 0)
		;
	if (write(fifo_w, fifo_data, strlen(fifo_data)) !=
	    (ssize_t)strlen(fifo_data))
		tap_bail("FIFO: %s", strerror(errno));
	r = (struct run){ .backend = b->id, .by_path = by_path };
	plant(d, r.decoys);
	if (pthread_create(&t, NULL, thread_main, &r))
		tap_bail("pthread_create");
	pthread_join(t, NULL);
	unplant(r.decoys);
	if (d == D_FIFO && ioctl(fifo_w, FIONREAD, &queued))
		queued = -1;
	if (r.unshared) {
		tap_skip(2, "unshare(CLONE_FILES): %s", strerror(r.unshared));
		return;
	}
	if (!tap_ok(r.ret == 3 && t_is(1, &r.v[0], inside, strlen(inside)) &&
		    t_is(1, &r.v[1], inside2, strlen(inside2)) &&
		    t_is(1, &r.v[2], inside, strlen(inside)),
		    "%s, $ORIGIN %s, the leader's descriptors are %s: an "
		    "unshared thread reads the files beneath $ORIGIN", b->name,
		    how, decoy_names[d])) {
		tap_diag("   returned %d (%s); entries: %s", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-",
			 t_got(r.ret, r.err, &r.v[0]));
		for (int i = 0; i < 3 && r.ret > i; i++)
			if (!r.v[i].error)
				tap_diag("   entry %d: \"%.*s\"", i,
					 (int)(r.v[i].value_out.iov_len > 60 ?
					       60 : r.v[i].value_out.iov_len),
					 (char *)r.v[i].value_out.iov_base);
	}
	switch (d) {
	case D_FIFO:
		tap_is_long(queued, strlen(fifo_data), "%s, $ORIGIN %s: the "
			    "FIFO's data is still in it (nothing read it)",
			    b->name, how);
		break;
	case D_FILE:
		tap_ok(r.ret < 0 || !memmem(r.buf, sizeof(r.buf), "SECRET", 6),
		       "%s, $ORIGIN %s: the file outside $ORIGIN was not read",
		       b->name, how);
		break;
	default:
		tap_ok(r.ret < 0 || r.v[0].error != EOVERFLOW,
		       "%s, $ORIGIN %s: /dev/zero was not read (no overflow)",
		       b->name, how);
		break;
	}
}

/*
 * io_uring after unshare(CLONE_FILES): the ring's io-wq workers keep the
 * descriptor table the thread had when they were made, so a number they
 * looked up there named the decoy the leader holds at it (a review found
 * decoys read and FIFOs opened; fixed by 8a390bc). Names through
 * thread-self and self must still describe the calling thread.
 */
struct us_run {
	bool decoys[URING_HIGH];	/* numbers the leader holds the decoy at */
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

		if (!v[i].error && len >= 7 && !memcmp(s, secret, 7))
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
			for (int fd = LOW; fd < URING_HIGH; fd++)
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
	/* the decoy directory at every free number from LOW to URING_HIGH */
	for (;;) {
		int fd = open(decoy, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			tap_bail("open %s: %s", decoy, strerror(errno));
		if (fd >= URING_HIGH) {
			close(fd);
			break;
		}
		r.decoys[fd] = true;
	}
	if (fifo) {
		snprintf(fifos[0], sizeof(fifos[0]), "%s/status", decoy);
		t_fifo_tripwire(fifos[0], &fifo_opens);
		snprintf(fifos[1], sizeof(fifos[1]), "%s/self/status", decoy);
		t_fifo_tripwire(fifos[1], &fifo_opens);
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

/*
 * $ORIGIN a descriptor that another thread dup2()s over, between /proc
 * and a directory whose "version" is a FIFO: the library must copy the
 * descriptor, not borrow its number (a review found data: opening the
 * FIFO by name; fixed by d9517c9).
 */
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
	t_fifo_tripwire(fifo, &fifo_opens);
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

/* d: a directory, p: a FIFO, f: a file holding secret[] */
static const char *const tree[] = {
	"d decoy-file", "f decoy-file/status", "d decoy-file/self",
	"f decoy-file/self/status", "d decoy-fifo", "p decoy-fifo/status",
	"d decoy-fifo/self", "p decoy-fifo/self/status", "d borrow",
	"p borrow/version",
};

int main(void)
{
	static const bool variants[] = { false, true };
	struct t_backend bs[4];
	char path[4200];
	int n, dfd, fd;

	alarm(600);	/* t_sub() bounds each check; this, the whole */
	snprintf(top, sizeof(top), "%s", t_tmpdir("fdtable"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "origin", 0755) ||
	    t_write_file(dfd, "origin/inside", inside, strlen(inside), 0644) ||
	    t_write_file(dfd, "origin/inside2", inside2, strlen(inside2),
			 0644) ||
	    t_write_file(dfd, "secret", secret, strlen(secret), 0644) ||
	    mkfifoat(dfd, "fifo", 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	for (size_t i = 0; i < GV_ARRAY_SIZE(tree); i++) {
		const char *name = tree[i] + 2;
		int err;

		if (tree[i][0] == 'd')
			err = mkdirat(dfd, name, 0755);
		else if (tree[i][0] == 'p')
			err = mkfifoat(dfd, name, 0600);
		else
			err = t_write_file(dfd, name, secret, strlen(secret),
					   0644);
		if (err)
			tap_bail("setup of %s: %s", name, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/origin", top);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	origin_fd = fcntl(fd, F_DUPFD_CLOEXEC, KEEP);
	close(fd);
	close(dfd);
	/* the FIFO's writer: it holds data that a reader would take */
	snprintf(path, sizeof(path), "%s/fifo", top);
	fd = open(path, O_RDWR | O_CLOEXEC);
	fifo_w = fcntl(fd, F_DUPFD_CLOEXEC, KEEP + 1);
	close(fd);
	if (origin_fd < 0 || fifo_w < 0 ||
	    fcntl(fifo_w, F_SETFL, O_NONBLOCK))
		tap_bail("setup: %s", strerror(errno));

	n = t_backends(bs, 3 * 2 * 2 + 2);
	for (int i = 0; i < n; i++)
		for (int by_path = 0; by_path < 2; by_path++)
			for (int d = D_FILE; d <= D_ZERO; d++) {
				struct job j = { &bs[i], d, by_path };
				char what[64];

				snprintf(what, sizeof(what), "%s, %s, %s",
					 bs[i].name, by_path ? "by path" :
					 "by descriptor", decoy_names[d]);
				t_sub(what, 5, check, &j);
			}
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, borrowed $ORIGIN",
			 bs[i].name);
		t_sub(what, 10, borrow_case, &bs[i]);
	}
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip(5, "uring: io_uring is not usable in this process "
			 "(kernel, io_uring_disabled or seccomp)");
	else
		for (int i = 0; i < 2; i++)
			t_sub(variants[i] ? "uring, unshare, FIFO" :
			      "uring, unshare, file", 10, uring_unshare_case,
			      (void *)&variants[i]);
	close(fifo_w);
	close(origin_fd);
	return tap_done();
}
