// SPDX-License-Identifier: MIT
/*
 * fork_generations.c - children that ran no fork handlers, and counters that
 * a long-lived process wears out. A child of _Fork() or of a bare clone(2)
 * inherits the parent's caches (the thread id that the copies into the
 * caller's memory go to, the thread's io_uring ring, the descriptor table
 * of the library): its calls must fill its own memory and leave the
 * parent's alone, on every backend, also where the library tells a new
 * process by its pid. A fork() after some 16384 threads have come and gone,
 * or after 2^23 and more forks, must still close in the child the
 * descriptor of a call blocked in another thread, and only that one; so
 * must the first fork() of a process whose first call another thread makes
 * while that fork runs, and a fork() whose child calls the library from a
 * child handler that runs before the library's.
 *
 * Asked for by the hardening review of issue 14, as harden_forkwrap.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "fds.h"
#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define NV		20	/* values per call: auto takes io_uring */
#define THREADS		16382	/* then the 16384th thread to call */
#define MARK		"the parent's buffer"
#define MARK_ERR	12345u

extern pid_t _Fork(void);

static char top[2048];
static int dir_fd = -1;
static struct stat fifo_st;

enum how { BY_FORK, BY_CLONE };
static const char *const how_names[] = { "_Fork()", "clone(2)" };

struct job {
	const struct t_backend *b;
	enum how how;
	bool nowipe;
};

/* What the child saw, sent to the parent through a pipe. */
struct seen {
	int ret, rf_ret;
	unsigned int error;
	bool values_mine, rf_mine;
};

static char buf[NV][1024], rf_buf[1024];
static struct name_val v[NV];

/* Whether @s, @len bytes of /proc/self/stat, begins with our pid. */
static bool stat_is_mine(const char *s, size_t len)
{
	char want[32];
	int n = snprintf(want, sizeof(want), "%d (", (int)getpid());

	return len >= (size_t)n && !memcmp(s, want, n);
}

static int call(void)
{
	for (int i = 0; i < NV; i++)
		v[i] = (struct name_val){ .name = "data:stat",
			.value_in = { buf[i], sizeof(buf[i]) } };
	return getvalues(AT_FDCWD, "/proc/self", v, NV, 0);
}

static void child_main(int wfd)
{
	struct seen s = { 0 };

	memset(buf, 0, sizeof(buf));
	memset(rf_buf, 0, sizeof(rf_buf));
	s.ret = call();
	s.error = v[0].error;
	s.values_mine = s.ret == NV;
	for (int i = 0; i < NV && s.values_mine; i++)
		s.values_mine = !v[i].error &&
				stat_is_mine(buf[i], v[i].value_out.iov_len);
	s.rf_ret = (int)readfile(AT_FDCWD, "/proc/self/stat", rf_buf,
				 sizeof(rf_buf), 0);
	s.rf_mine = s.rf_ret > 0 && stat_is_mine(rf_buf, s.rf_ret);
	if (write(wfd, &s, sizeof(s)) != sizeof(s))
		_exit(2);
	_exit(0);
}

static void nohandlers_case(void *arg)
{
	const struct job *j = arg;
	const char *be = j->b->name, *how = how_names[j->how];
	const char *way = j->nowipe ? ", pid compared" : "";
	struct seen s = { .ret = -2 };
	bool parent_kept = true;
	int p[2], st = -1, r;
	pid_t pid;

	gv_backend_force(j->b->id);
	if (j->nowipe)
		gv_self_test_nowipe();
	/* the thread id cached, the thread's ring made */
	r = call();
	tap_is_long(r, NV, "%s%s: the parent's call gets %d values", be, way,
		    NV);
	for (int i = 0; i < NV; i++) {
		snprintf(buf[i], sizeof(buf[i]), MARK);
		v[i].error = MARK_ERR;
	}
	snprintf(rf_buf, sizeof(rf_buf), MARK);
	if (pipe2(p, O_CLOEXEC))
		tap_bail("pipe2: %s", strerror(errno));
	if (j->how == BY_FORK)
		pid = _Fork();
	else
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL,
				     NULL);
	if (pid == 0)
		child_main(p[1]);
	close(p[1]);
	if (pid < 0)
		tap_bail("%s: %s", how, strerror(errno));
	if (read(p[0], &s, sizeof(s)) != sizeof(s))
		s.ret = -2;
	close(p[0]);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st), "%s%s: the child of %s "
	       "ends normally (status %#x)", be, way, how, st);
	tap_ok(s.values_mine, "%s%s: the child's getvalues() fills the "
	       "child's buffers with its own /proc/self/stat (ret %d, "
	       "error %u)", be, way, s.ret, s.error);
	tap_ok(s.rf_mine, "%s%s: the child's readfile() fills the child's "
	       "buffer (ret %d)", be, way, s.rf_ret);
	for (int i = 0; i < NV; i++)
		parent_kept = parent_kept && !strcmp(buf[i], MARK) &&
			      v[i].error == MARK_ERR;
	parent_kept = parent_kept && !strcmp(rf_buf, MARK);
	tap_ok(parent_kept, "%s%s: the parent's memory is untouched by the "
	       "child's calls (\"%.12s\", error %u)", be, way, buf[0],
	       v[0].error);
	tap_is_long(call(), NV, "%s%s: the parent's next call still works",
		    be, way);
}

/* A writer of the FIFO that writes nothing yet: its readers block. */
static int silent_writer(void)
{
	char path[2100];
	int w;

	snprintf(path, sizeof(path), "%s/fifo", top);
	w = open(path, O_RDWR | O_CLOEXEC);
	if (w < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	return w;
}

/* Write a byte through the writer @w and close it: whether @t then ends. */
static bool release(int w, pthread_t t)
{
	if (write(w, "x", 1) != 1)
		tap_diag("write: %s", strerror(errno));
	close(w);
	return !t_join_within(t, 5000, NULL);
}

/*
 * fork() while another thread is blocked in readfile() of the FIFO: the
 * child must hold none of its descriptors but @keep, and have @keep.
 */
static void fork_blocked(const char *what, int keep)
{
	static struct t_reader r;
	int w, st = -1;
	bool joined;
	pthread_t t;
	pid_t pid;

	r = (struct t_reader){
		.backend = GV_BACKEND_SYNC, .dfd = dir_fd,
		.name = "fifo", .warm = "file",
	};
	w = silent_writer();
	if (!tap_ok(t_reader_start(&r, &t, 0), "%s: readfile() of the FIFO "
		    "blocks", what))
		return;
	pid = fork();
	if (pid == 0)
		_exit((t_fifo_fds(&fifo_st, w) ? 1 : 0) |
		      (keep >= 0 && fcntl(keep, F_GETFD) < 0 ? 2 : 0));
	if (pid > 0)
		waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && !(WEXITSTATUS(st) & 1), "%s: the child of "
	       "fork() holds no descriptor of the blocked call", what);
	if (keep >= 0)
		tap_ok(WIFEXITED(st) && !(WEXITSTATUS(st) & 2), "%s: the child "
		       "keeps the caller's descriptor %d", what, keep);
	joined = release(w, t);
	tap_ok(joined && r.ret == 1, "%s: the blocked readfile() then gives "
	       "what was written (%zd)", what, r.ret);
}

static void *once(void *arg)
{
	char b[64];

	(void)arg;
	gv_backend_force(GV_BACKEND_SYNC);
	if (readfile(dir_fd, "file", b, sizeof(b), 0) != 4)
		return (void *)1;
	return NULL;
}

/*
 * The library numbered threads in 14 bits: the 16384th thread to call took
 * the number of the first, and its descriptors looked like the forking
 * thread's own in the child.
 */
static void threads_case(void *arg)
{
	int bad = 0;
	char b[64];

	(void)arg;
	gv_backend_force(GV_BACKEND_SYNC);
	readfile(dir_fd, "file", b, sizeof(b), 0);	/* this thread first */
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;
		void *res;

		if (pthread_create(&t, NULL, once, NULL))
			tap_bail("pthread_create: %s", strerror(errno));
		pthread_join(t, &res);
		bad += res != NULL;
	}
	tap_is_long(bad, 0, "%d threads, one call each", THREADS);
	fork_blocked("the 16384th thread blocked", -1);
	fork_blocked("the 16385th thread blocked", -1);
}

/*
 * A close leaves a mark with the forks started; compared modulo 2^24, a
 * mark came back as "closed after this fork began" 2^23 forks later, and
 * the child closed the caller's descriptor that had the number since.
 * The forks between are counted, not made.
 */
static void forks_case(void *arg)
{
	static const uint64_t later[] = {
		10, 0x7fffff, 0x800001, 0xfffff0, 1ull << 40,
	};
	char what[64];

	(void)arg;
	for (size_t i = 0; i < GV_ARRAY_SIZE(later); i++) {
		int x = open("/dev/null", O_RDONLY | O_CLOEXEC), p[2];

		if (x < 0 || pipe2(p, O_CLOEXEC))
			tap_bail("open, pipe2: %s", strerror(errno));
		gv_fd_own(x);
		gv_fd_test_forks(1);
		gv_fd_close(x);			/* marked */
		gv_fd_test_forks(later[i]);
		if (dup3(p[0], x, O_CLOEXEC) != x)	/* the caller's now */
			tap_bail("dup3: %s", strerror(errno));
		snprintf(what, sizeof(what), "%#llx forks later",
			 (unsigned long long)later[i]);
		fork_blocked(what, x);
		close(x);
		close(p[0]);
		close(p[1]);
	}
}

/*
 * The first call of a process, made by another thread while fork() runs:
 * after the library's prepare handler (a handler registered before the
 * library was loaded runs after it) and before the child is made. The
 * library used to count no fork when no table existed yet, and the child
 * kept the call's descriptor from the table the call made meanwhile.
 */
typedef ssize_t (*readfile_fn)(int, const char *, char *, size_t, int);

static char libpath[2100];
static struct {
	readfile_fn rf;
	sem_t go;
	atomic_int tid;
	atomic_bool armed;
	ssize_t ret;
} late;

static void *late_main(void *arg)
{
	char b[64];

	(void)arg;
	atomic_store(&late.tid, gettid());
	while (sem_wait(&late.go) && errno == EINTR)
		;
	late.ret = late.rf(dir_fd, "fifo", b, sizeof(b), 0);
	return NULL;
}

/* Whether thread @tid is in read(2). */
static bool in_read(pid_t tid)
{
	char path[64], line[64];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = (int)read(fd, line, sizeof(line) - 1);
	close(fd);
	return n > 0 && (line[n] = 0, atoi(line) == SYS_read) &&
	       line[0] != 'r';	/* "running" */
}

static void late_prepare(void)
{
	long long until = t_now_ms() + 5000;

	if (!atomic_exchange(&late.armed, false))
		return;
	sem_post(&late.go);
	while (t_now_ms() < until && !in_read(atomic_load(&late.tid)))
		usleep(1000);
}

/*
 * Load the library now, after the fork handlers this process registered,
 * on the sync backend (its readfile() into late.rf), and start @fn as *@t;
 * returns a writer of the FIFO that writes nothing yet. -1 (a failed
 * check) if the library cannot be loaded.
 */
static int load_and_start(void *(*fn)(void *), pthread_t *t)
{
	void *h;
	int w;

	setenv("GETVALUES_BACKEND", "sync", 1);
	h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		tap_ok(false, "dlopen %s: %s", libpath, dlerror());
		return -1;
	}
	late.rf = (readfile_fn)dlsym(h, "readfile");
	if (!late.rf)
		tap_bail("dlsym readfile: %s", dlerror());
	w = silent_writer();
	if (pthread_create(t, NULL, fn, NULL))
		tap_bail("pthread_create: %s", strerror(errno));
	return w;
}

static void late_case(void *arg)
{
	int w, st = -1;
	bool joined;
	pthread_t t;
	pid_t pid;

	(void)arg;
	if (pthread_atfork(late_prepare, NULL, NULL) ||
	    sem_init(&late.go, 0, 0))
		tap_bail("pthread_atfork, sem_init");
	w = load_and_start(late_main, &t);
	if (w < 0)
		return;
	while (!atomic_load(&late.tid))
		usleep(1000);
	atomic_store(&late.armed, true);
	pid = fork();
	if (pid == 0)
		_exit(t_fifo_fds(&fifo_st, w) ? 1 : 0);
	tap_ok(in_read(atomic_load(&late.tid)), "the first call, made while "
	       "fork() ran, blocks in read(2)");
	if (pid > 0)
		waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st), "the child of that fork() "
	       "holds no descriptor of the call (status %#x)", st);
	joined = release(w, t);
	tap_ok(joined && late.ret == 1, "the call then gives what was "
	       "written (%zd)", late.ret);
}

/*
 * A child handler registered before the library was loaded runs before
 * the library's, and may call it: that first call in the child must leave
 * the parent's table as the library's handler does, closing the
 * descriptor of the call blocked in the parent's other thread.
 */
static atomic_bool early_armed;
static ssize_t early_ret = -2;

static void early_child(void)
{
	char b[64];

	if (atomic_load(&early_armed))
		early_ret = late.rf(dir_fd, "file", b, sizeof(b), 0);
}

static void *early_main(void *arg)
{
	char b[64];

	(void)arg;
	late.rf(dir_fd, "file", b, sizeof(b), 0);
	atomic_store(&late.tid, gettid());
	late.ret = late.rf(dir_fd, "fifo", b, sizeof(b), 0);
	return NULL;
}

static void early_case(void *arg)
{
	long long until = t_now_ms() + 5000;
	int w, st = -1;
	bool joined;
	pthread_t t;
	pid_t pid;

	(void)arg;
	if (pthread_atfork(NULL, NULL, early_child))
		tap_bail("pthread_atfork");
	w = load_and_start(early_main, &t);
	if (w < 0)
		return;
	while (t_now_ms() < until && !(atomic_load(&late.tid) &&
				       in_read(atomic_load(&late.tid))))
		usleep(1000);
	tap_ok(in_read(atomic_load(&late.tid)), "a call blocks in read(2) "
	       "in another thread");
	atomic_store(&early_armed, true);
	pid = fork();
	if (pid == 0)
		_exit((t_fifo_fds(&fifo_st, w) ? 1 : 0) |
		      (early_ret != 4 ? 2 : 0));
	atomic_store(&early_armed, false);
	if (pid > 0)
		waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && !(WEXITSTATUS(st) & 2), "the call from a "
	       "child handler run before the library's works");
	tap_ok(WIFEXITED(st) && !(WEXITSTATUS(st) & 1), "the child holds no "
	       "descriptor of the blocked call (status %#x)", st);
	joined = release(w, t);
	tap_ok(joined && late.ret == 1, "the blocked call then gives what "
	       "was written (%zd)", late.ret);
}

int main(void)
{
	struct t_backend bs[4];
	const char *build;
	struct stat st;
	int n;

	alarm(300);	/* t_sub() bounds each case; this, the whole */
	dir_fd = t_fifo_dir("forkwrap", top, sizeof(top), &fifo_st);

	n = t_backends(bs, 4 * 6);
	for (int i = 0; i < n; i++)
		for (int h = BY_FORK; h <= BY_CLONE; h++)
			for (int nw = 0; nw <= 1; nw++) {
				struct job j = { &bs[i], h, nw };
				char what[96];

				snprintf(what, sizeof(what), "%s, %s%s",
					 bs[i].name, how_names[h],
					 nw ? ", pid compared" : "");
				t_sub(what, 20, nohandlers_case, &j);
			}
	t_sub("16384 threads", 60, threads_case, NULL);
	t_sub("2^23 forks and more", 30, forks_case, NULL);
	build = getenv("GV_BUILD");
	snprintf(libpath, sizeof(libpath), "%s/libgetvalues.so.0",
		 build ? build : "");
	if (!build || !*build || stat(libpath, &st)) {
		tap_skip(7, "no shared library in $GV_BUILD to dlopen (make "
			 "check sets it; a static-only build has none)");
	} else {
		t_sub("the first call while fork() runs", 30, late_case, NULL);
		t_sub("a call from an earlier child handler", 30, early_case,
		      NULL);
	}
	close(dir_fd);
	return tap_done();
}
