/* SPDX-License-Identifier: MIT */
/*
 * harden_lib.h - what the hardening tests (issue 14, SPEC version 2) share:
 * the backends each check runs on, one-entry getvalues() calls that
 * describe what came back, readers blocked in readfile(), and scratch
 * directories with a FIFO whose descriptors a process can count.
 */
#ifndef GV_TEST_HARDEN_LIB_H
#define GV_TEST_HARDEN_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

struct hl_backend {
	enum gv_backend_id id;
	const char *name;
};

/*
 * The backends to run on: sync, uring and auto, and native where the
 * kernel has it. Those not usable here are skipped with @nchecks skips
 * each, and left out of @out. Returns how many are in @out.
 */
static inline int hl_backends(struct hl_backend out[4], int nchecks)
{
	static const struct hl_backend all[] = {
		{ GV_BACKEND_SYNC, "sync" },
		{ GV_BACKEND_URING, "uring" },
		{ GV_BACKEND_AUTO, "auto" },
		{ GV_BACKEND_NATIVE, "native" },
	};
	int n = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(all); i++) {
		if (all[i].id == GV_BACKEND_URING &&
		    gv_backend_usable(GV_BACKEND_URING)) {
			if (nchecks)
				tap_skip(nchecks, "uring: io_uring is not usable "
					 "in this process (kernel, "
					 "io_uring_disabled or seccomp)");
			continue;
		}
		if (all[i].id == GV_BACKEND_NATIVE &&
		    gv_backend_usable(GV_BACKEND_NATIVE))
			continue;	/* only in the patched kernel */
		out[n++] = all[i];
	}
	return n;
}

/* What one entry got, for a diagnostic: "ret 1, error ENOENT", "12 bytes". */
static inline const char *hl_got(int ret, int err, const struct name_val *e)
{
	static char s[160];

	if (ret < 0)
		snprintf(s, sizeof(s), "the call failed: %s",
			 strerrorname_np(err));
	else if (ret == 0)
		snprintf(s, sizeof(s), "returned 0, error %s",
			 e->error ? strerrorname_np(e->error) : "0");
	else if (e->error)
		snprintf(s, sizeof(s), "error %s", strerrorname_np(e->error));
	else
		snprintf(s, sizeof(s), "a value of %zu bytes",
			 e->value_out.iov_len);
	return s;
}

/* getvalues() of one @name into @buf; fills *@e, returns the result. */
static inline int hl_get1(int dfd, const char *path, unsigned int flags,
			  const char *name, void *buf, size_t size,
			  struct name_val *e, int *err)
{
	int r;

	*e = (struct name_val){
		.name = name,
		.value_in = { .iov_base = buf, .iov_len = size },
	};
	errno = 0;
	r = getvalues(dfd, path, e, 1, flags);
	*err = errno;
	return r;
}

/* The entry holds exactly @want. */
static inline bool hl_is(int ret, const struct name_val *e, const void *want,
			 size_t len)
{
	return ret == 1 && !e->error && e->value_out.iov_len == len &&
	       !memcmp(e->value_out.iov_base, want, len);
}

/*
 * A thread that calls readfile(@dfd, @name) on @backend once, after one
 * readfile() of @warm: the backend is set up (a thread's io_uring is made
 * at its first call, and may sleep doing so) before the call that counts.
 */
struct hl_reader {
	enum gv_backend_id backend;
	int dfd;
	const char *name, *warm;
	pid_t tid;
	atomic_bool started, done;
	ssize_t ret;
	int err;
	char buf[128];
};

static inline void *hl_reader_main(void *p)
{
	struct hl_reader *r = p;

	gv_backend_force(r->backend);
	r->tid = gettid();
	if (readfile(r->dfd, r->warm, r->buf, sizeof(r->buf), 0) < 0)
		tap_diag("readfile() of %s: %s", r->warm, strerror(errno));
	atomic_store(&r->started, true);
	errno = 0;
	r->ret = readfile(r->dfd, r->name, r->buf, sizeof(r->buf), 0);
	r->err = errno;
	atomic_store(&r->done, true);
	return NULL;
}

/*
 * Start @r as *@t and wait (up to 3 s) until it sleeps in the kernel, then
 * @settle_ms more. Whether it is still inside readfile() then: a call that
 * does not wait has returned by that time.
 */
static inline bool hl_reader_start(struct hl_reader *r, pthread_t *t,
				   unsigned int settle_ms)
{
	long long until;

	if (pthread_create(t, NULL, hl_reader_main, r))
		tap_bail("pthread_create");
	until = t_now_ms() + 3000;
	while (!atomic_load(&r->started))
		usleep(1000);
	while (!atomic_load(&r->done) && t_now_ms() < until)
		if (t_wait_asleep(r->tid, 20))
			break;
	if (settle_ms)
		usleep(settle_ms * 1000);
	return !atomic_load(&r->done);
}

/*
 * A fresh scratch directory tagged @tag: its path into @top (@size bytes),
 * and the directory opened O_PATH, returned. Bails out on failure.
 */
static inline int hl_tmpdir(const char *tag, char *top, size_t size)
{
	int fd;

	snprintf(top, size, "%s", t_tmpdir(tag));
	fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("%s: %s", top, strerror(errno));
	return fd;
}

/*
 * hl_tmpdir() holding a FIFO "fifo" (what it is into *@fifo_st, for
 * hl_fifo_fds()) and a file "file" that holds "file", to warm a reader.
 */
static inline int hl_fifo_dir(const char *tag, char *top, size_t size,
			      struct stat *fifo_st)
{
	int fd = hl_tmpdir(tag, top, size);

	if (mkfifoat(fd, "fifo", 0600) || fstatat(fd, "fifo", fifo_st, 0) ||
	    t_write_file(fd, "file", "file", 4, 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	return fd;
}

/* Descriptors of the FIFO *@fifo_st in this process, but @except. */
static inline int hl_fifo_fds(const struct stat *fifo_st, int except)
{
	int fds[1024], n = t_list_fds(fds, 1024), count = 0;

	for (int i = 0; i < n && i < 1024; i++) {
		struct stat st;

		if (fds[i] != except && !fstat(fds[i], &st) &&
		    st.st_dev == fifo_st->st_dev &&
		    st.st_ino == fifo_st->st_ino)
			count++;
	}
	return count;
}

#endif /* GV_TEST_HARDEN_LIB_H */
