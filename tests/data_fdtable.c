// SPDX-License-Identifier: MIT
/*
 * data_fdtable.c - a thread with a descriptor table of its own
 * (unshare(CLONE_FILES)) reads only what is beneath $ORIGIN through data:.
 * The thread-group leader's descriptor N is made another file outside
 * $ORIGIN, a FIFO holding data, or /dev/zero, for every N the thread's
 * calls could use; the value must be the file beneath $ORIGIN, and the
 * FIFO's data must still be there (nothing opened or read it).
 *
 * Asked for by the hardening review of issue 14, as harden_fdtable.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LOW	3	/* the decoys take every free number from here */
#define HIGH	200	/* ... up to here */
#define KEEP	900	/* our own descriptors move above them */

static const char inside[] = "inside: the file beneath $ORIGIN\n";
static const char inside2[] = "inside2: another file beneath $ORIGIN\n";
static const char secret[] = "SECRET: a file outside $ORIGIN\n";
static const char fifo_data[] = "FIFODATA";

static char top[4096];
static int origin_fd = -1, fifo_w = -1;

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

int main(void)
{
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

	n = t_backends(bs, 3 * 2 * 2);
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
	close(fifo_w);
	close(origin_fd);
	return tap_done();
}
