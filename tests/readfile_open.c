// SPDX-License-Identifier: MIT
/*
 * readfile_open.c - readfile() opens exactly as openat(2) does, never
 * with an O_NONBLOCK of its own (SPEC v2 section 1): a FIFO with no writer
 * waits for one, and gives what it wrote; a file under a conflicting lease
 * waits until the lease is given up, and gives the file (not EAGAIN).
 * O_NONBLOCK asked for by the caller is still EINVAL. Every backend, each
 * case in a child under a deadline.
 *
 * Written for SPEC version 2 as spec2_readfile_open.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char payload[] = "written after the reader came";
static const char leased[] = "the leased file\n";
static char top[2048];
static int dir_fd = -1;

static void fifo_case(void *arg)
{
	const struct t_backend *b = arg;
	static struct t_reader r;
	char path[2100];
	bool waited;
	pthread_t t;

	r = (struct t_reader){
		.backend = b->id, .dfd = dir_fd,
		.name = "fifo", .warm = "warm",
	};
	waited = t_reader_start(&r, &t, 50);
	if (!tap_ok(waited, "%s: readfile() of a FIFO with no writer waits "
		    "for one, as open(2) does", b->name))
		tap_diag("   it returned %zd (%s)", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-");
	snprintf(path, sizeof(path), "%s/fifo", top);
	t_fifo_feed(-1, path, payload);
	if (t_join_within(t, 5000, NULL)) {
		tap_ok(false, "%s: readfile() ends once the writer is gone",
		       b->name);
		return;
	}
	if (!tap_ok(r.ret == (ssize_t)strlen(payload) &&
		    !memcmp(r.buf, payload, strlen(payload)),
		    "%s: ... and gives what the writer wrote", b->name))
		tap_diag("   returned %zd (%s)", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-");
}

static atomic_int breaks;

static void on_break(int sig)
{
	(void)sig;
	atomic_fetch_add(&breaks, 1);
}

static void lease_case(void *arg)
{
	const struct t_backend *b = arg;
	struct sigaction sa = { .sa_handler = on_break };
	static struct t_reader r;
	sigset_t sigio;
	char path[2100];
	bool waited;
	pthread_t t;
	int fd;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGIO, &sa, NULL);
	snprintf(path, sizeof(path), "%s/leased", top);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK)) {
		tap_skip(2, "%s: no file lease here: %s", b->name,
			 strerror(errno));
		return;
	}
	r = (struct t_reader){
		.backend = b->id, .dfd = dir_fd,
		.name = "leased", .warm = "warm",
	};
	/*
	 * The break's SIGIO is for the lease holder: were it delivered to the
	 * reader, its open would end with EINTR, as open(2) would (no
	 * SA_RESTART). The reader starts with SIGIO blocked, this thread
	 * takes it.
	 */
	sigemptyset(&sigio);
	sigaddset(&sigio, SIGIO);
	pthread_sigmask(SIG_BLOCK, &sigio, NULL);
	waited = t_reader_start(&r, &t, 50);
	pthread_sigmask(SIG_UNBLOCK, &sigio, NULL);
	if (!tap_ok(waited, "%s: readfile() of a file under a conflicting "
		    "lease waits for it, as open(2) does", b->name))
		tap_diag("   it returned %zd (%s)", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-");
	if (!atomic_load(&breaks))
		tap_diag("the lease holder got no notice of the break");
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
	if (t_join_within(t, 5000, NULL)) {
		tap_ok(false, "%s: readfile() ends once the lease is gone",
		       b->name);
		return;
	}
	if (!tap_ok(r.ret == (ssize_t)strlen(leased) &&
		    !memcmp(r.buf, leased, strlen(leased)),
		    "%s: ... and gives the file, not EAGAIN", b->name))
		tap_diag("   returned %zd (%s)", r.ret,
			 r.ret < 0 ? strerrorname_np(r.err) : "-");
}

int main(void)
{
	struct t_backend bs[4];
	char buf[64];
	ssize_t ret;
	int n;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("readfile-open"));
	dir_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || mkfifoat(dir_fd, "fifo", 0600) ||
	    t_write_file(dir_fd, "leased", leased, strlen(leased), 0644) ||
	    t_write_file(dir_fd, "warm", "warm", 4, 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));

	n = t_backends(bs, 5);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, FIFO", bs[i].name);
		t_sub(what, 20, fifo_case, &bs[i]);
		snprintf(what, sizeof(what), "%s, lease", bs[i].name);
		t_sub(what, 20, lease_case, &bs[i]);
		gv_backend_force(bs[i].id);
		errno = 0;
		ret = readfile(dir_fd, "leased", buf, sizeof(buf), O_NONBLOCK);
		tap_is_errno(ret, errno, -1, EINVAL,
			     "%s: O_NONBLOCK from the caller: EINVAL",
			     bs[i].name);
	}
	close(dir_fd);
	return tap_done();
}
