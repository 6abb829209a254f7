// SPDX-License-Identifier: MIT
/*
 * emfile.c - readfile() and data: give EMFILE exactly when open(2)
 * would at that moment (SPEC v2, 1 and 2.2): with every descriptor below
 * RLIMIT_NOFILE in use, open(2) gives EMFILE, and so do readfile() and the
 * data: entry; with one descriptor free, open(2) works, and so do they.
 * The native calls take no descriptor of their own: the call goes on and
 * stat: answers with none free, data: works with one. So does the library
 * for this call's $ORIGIN (dfd itself, AT_EMPTY_PATH), but its data: works
 * with descriptors (a pin, the thread's /proc fd directory and the file:
 * up to four on a file system that can hold devices, getvalues(3)): with
 * fewer free, its data: entry gives EMFILE, nothing else, and with four
 * free everything works. RLIMIT_NOFILE binds every backend:
 * none reads a file that open(2) could not open. Each backend in a child
 * of its own (the limit and the descriptors stay there).
 *
 * With no descriptor free, readfile() of a NULL or empty path gives
 * open(2)'s EFAULT or ENOENT, not EMFILE.
 *
 * And a process's first call with no descriptor free fails with EMFILE,
 * and the next call, with descriptors again, works: the failed probe was
 * not remembered. A process whose first calls come with one descriptor
 * free, too few for its probe to make a ring, gets what open(2) gets.
 *
 * Written for SPEC version 2 as spec2_emfile.c; the first call was
 * harden_review.c's third case (a review's proof of concept).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LIMIT	64	/* RLIMIT_NOFILE in the children */
#define EM_N	16	/* entries of a first call under EMFILE */

static const char content[] = "one descriptor's worth\n";
static char top[2048];

/*
 * The first call of a process, with no descriptor free: its backend probe
 * fails for want of one, and must not be remembered as ENOSYS for the
 * life of the process (a review found it was; fixed by d9517c9). Each
 * backend in a fresh process (a child of this one, which probes nothing
 * before).
 */
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
	int fds[LIMIT], n = 0, dfd, r, err;
	char path[PATH_MAX + 16];

	gv_backend_force(j->id);
	/* auto then batches from 2 files: it probes io_uring */
	if (j->id == GV_BACKEND_AUTO)
		gv_backend_force_fs_class(GV_FS_DISK);
	snprintf(path, sizeof(path), "%s/probe", top);
	dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || getrlimit(RLIMIT_NOFILE, &rl))
		tap_bail("setup: %s", strerror(errno));
	low = rl;
	low.rlim_cur = LIMIT;
	if (setrlimit(RLIMIT_NOFILE, &low))
		tap_bail("setrlimit: %s", strerror(errno));
	while (n < LIMIT && (fds[n] = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) >= 0)
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

static void first_call_tests(void)
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

struct em_run {
	struct t_backend b;
	bool fresh;		/* nothing probed nor set up before */
};

/*
 * With no descriptor free, a name that open(2) cannot read (NULL) or
 * finds empty ("") gives open(2)'s error for that, not EMFILE: the name
 * is read before a descriptor is looked for.
 */
static void bad_names(int dir, const char *backend, const char *state)
{
	static const char *const paths[] = { NULL, "" };
	static const char *const what[] = { "a NULL path", "\"\"" };
	char buf[64];

	for (int i = 0; i < 2; i++) {
		int want, got;

		errno = 0;
		/* the system call itself: glibc's openat() takes no NULL */
		want = syscall(SYS_openat, dir, paths[i],
			       O_RDONLY | O_CLOEXEC) < 0 ? errno : 0;
		errno = 0;
		got = readfile(dir, paths[i], buf, sizeof(buf), 0) < 0 ? errno : 0;
		tap_ok(want && got == want, "%s, %s: readfile() of %s gives %s, "
		       "as open(2) gives %s", backend, state, what[i],
		       strerrorname_np(got), strerrorname_np(want));
	}
}

/*
 * EMFILE from readfile() and data: exactly where open(2) gives it: with
 * the backend set up before the limit bites (a ring, a probe), or, @fresh,
 * in a process that has probed nothing, whose probe then finds too few
 * descriptors to tell (a ring takes three): that must fail no call that
 * open(2) would let through (issue 23).
 */
static void run(void *arg)
{
	const struct em_run *r = arg;
	const struct t_backend *b = &r->b;
	struct rlimit rl = { LIMIT, LIMIT };
	char buf[256], size[16];
	struct name_val v[2];
	int dir, last = -1, ref, ret, err;
	ssize_t n;

	gv_backend_force(b->id);
	dir = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 ||
	    (!r->fresh && readfile(dir, "f", buf, sizeof(buf), 0) < 0))
		tap_bail("setup: %s", strerror(errno));
	if (setrlimit(RLIMIT_NOFILE, &rl))
		tap_bail("setrlimit: %s", strerror(errno));
	for (int fd; (fd = fcntl(0, F_DUPFD_CLOEXEC, 0)) >= 0;)
		last = fd;
	snprintf(size, sizeof(size), "%zu", strlen(content));

	bool lib = b->id == GV_BACKEND_SYNC || b->id == GV_BACKEND_URING ||
		   (b->id == GV_BACKEND_AUTO &&
		    gv_backend_usable(GV_BACKEND_NATIVE));
	static const char *const states[] = {
		"no descriptor free", "one descriptor free",
		"four descriptors free",
	};

	for (int round = 0; round < 3; round++) {
		char state[64];
		int want = round ? 0 : EMFILE;
		/*
		 * whether data: can work with that many descriptors: the
		 * native call takes one slot while the file is open
		 */
		bool data = lib ? round == 2 : round >= 1;

		snprintf(state, sizeof(state), "%s%s", states[round],
			 r->fresh ? ", nothing probed before" : "");

		errno = 0;
		ref = openat(dir, "f", O_RDONLY | O_CLOEXEC);
		if (ref >= 0)
			close(ref);
		if ((ref < 0 ? errno : 0) != want) {
			tap_skip(3, "%s: open(2) itself gives %s", state,
				 strerrorname_np(ref < 0 ? errno : 0));
			goto next;
		}
		errno = 0;
		n = readfile(dir, "f", buf, sizeof(buf), 0);
		err = errno;
		if (!tap_ok(want ? n == -1 && err == EMFILE :
			    n == (ssize_t)strlen(content),
			    "%s, %s: readfile() %s, as open(2)", b->name, state,
			    want ? "gives EMFILE" : "works"))
			tap_diag("   returned %zd (%s)", n,
				 n < 0 ? strerrorname_np(err) : "-");
		if (want)
			bad_names(dir, b->name, state);
		v[0] = (struct name_val){ .name = "stat:size:f",
					  .value_in = { buf, sizeof(buf) } };
		v[1] = (struct name_val){ .name = "data:f" };
		errno = 0;
		ret = getvalues(dir, "", v, 2, AT_EMPTY_PATH);
		err = errno;
		if (!tap_ok(ret == 2 && (!data ? v[1].error == EMFILE :
					 t_is(1, &v[1], content,
					       strlen(content))),
			    "%s, %s: data: %s", b->name, state,
			    data ? "works" : "gives EMFILE"))
			tap_diag("   returned %d (%s), data: %s", ret,
				 ret < 0 ? strerrorname_np(err) : "-",
				 t_got(ret, err, &v[1]));
		tap_ok(ret == 2 && t_is(1, &v[0], size, strlen(size)),
		       "%s, %s: the call goes on: stat:size:f is there",
		       b->name, state);
next:
		/* free one more descriptor, then three more */
		for (int k = round ? 3 : 1; k > 0 && last > dir; k--)
			close(last--);
	}
}

/* run() in processes that have probed nothing (children of this one) */
static void fresh_runs(void)
{
	bool uring = fresh_usable(GV_BACKEND_URING);
	bool native = fresh_usable(GV_BACKEND_NATIVE);
	static struct em_run runs[] = {
		{ { GV_BACKEND_SYNC, "sync" }, true },
		{ { GV_BACKEND_URING, "uring" }, true },
		{ { GV_BACKEND_AUTO, "auto" }, true },
		{ { GV_BACKEND_NATIVE, "native" }, true },
	};
	char what[96];

	for (size_t i = 0; i < GV_ARRAY_SIZE(runs); i++) {
		if (runs[i].b.id == GV_BACKEND_URING && !uring) {
			tap_skip(9, "uring: io_uring is not usable in this "
				 "process (kernel, io_uring_disabled or "
				 "seccomp)");
			continue;
		}
		if (runs[i].b.id == GV_BACKEND_NATIVE && !native)
			continue;	/* only in the patched kernel */
		snprintf(what, sizeof(what), "%s, RLIMIT_NOFILE %d, nothing "
			 "probed", runs[i].b.name, LIMIT);
		t_sub(what, 20, run, &runs[i]);
	}
}

int main(void)
{
	struct t_backend bs[4];
	struct em_run runs[4];
	int n, dfd;

	alarm(300);
	gv_cost_test_mode(GV_COST_PRIORS);	/* auto batches by its priors */
	snprintf(top, sizeof(top), "%s", t_tmpdir("emfile"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || t_write_file(dfd, "f", content, strlen(content), 0644) ||
	    mkdirat(dfd, "probe", 0755))
		tap_bail("setup in %s: %s", top, strerror(errno));
	for (int i = 0; i < EM_N; i++) {
		char name[32], data[32];
		int len = snprintf(data, sizeof(data), "value %d\n", i);

		snprintf(name, sizeof(name), "probe/v%d", i);
		if (t_write_file(dfd, name, data, len, 0644))
			tap_bail("setup: %s", strerror(errno));
	}
	close(dfd);
	/* first, while this process has probed nothing: its children neither */
	first_call_tests();
	fresh_runs();
	n = t_backends(bs, 9);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, RLIMIT_NOFILE %d", bs[i].name,
			 LIMIT);
		runs[i] = (struct em_run){ bs[i], false };
		t_sub(what, 20, run, &runs[i]);
	}
	return tap_done();
}
