/* SPDX-License-Identifier: MIT */
/*
 * fifo.h - FIFOs that make a call wait, and the processes and threads
 * around them: writers blocked in open(2), readers blocked in readfile(),
 * a tripwire that counts every open of a FIFO, and the descriptors of a
 * FIFO that a process holds.
 */
#ifndef GV_TEST_FIFO_H
#define GV_TEST_FIFO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * A child that opens the FIFO @dfd/@path for writing, writes @data (NULL:
 * nothing), stays @linger_s seconds and exits. Returns its pid once it is
 * blocked in openat(2) waiting for a reader (a reader that came first
 * would find no writer, and end of file); bails out if it never blocks.
 */
pid_t t_fifo_writer(int dfd, const char *path, const char *data,
		    unsigned int linger_s);
/* Whether our child @pid is still blocked in openat(2) (else reaped). */
bool t_in_openat(pid_t pid);

/*
 * Let a reader of the FIFO @path finish: @data written through the writer
 * @fd, or through one opened now if @fd < 0 (without waiting: none if no
 * reader holds the FIFO), which is then closed.
 */
void t_fifo_feed(int fd, const char *path, const char *data);

/*
 * A thread that opens the FIFO @path for writing, again and again, and
 * counts in *@opens each time someone opened it for reading (which a test
 * wants never to happen). It stays blocked in open(2) until the process
 * ends.
 */
void t_fifo_tripwire(const char *path, atomic_int *opens);

/*
 * A thread that calls readfile(@dfd, @name) on @backend once, after one
 * readfile() of @warm: the backend is set up (a thread's io_uring is made
 * at its first call, and may sleep doing so) before the call that counts.
 */
struct t_reader {
	int backend;		/* an enum gv_backend_id */
	int dfd;
	const char *name, *warm;
	pid_t tid;
	atomic_bool started, done;
	ssize_t ret;
	int err;
	char buf[128];
};

/*
 * Start @r as *@t and wait (up to 3 s) until it sleeps in the kernel, then
 * @settle_ms more. Whether it is still inside readfile() then: a call that
 * does not wait has returned by that time.
 */
bool t_reader_start(struct t_reader *r, pthread_t *t, unsigned int settle_ms);

/*
 * A fresh scratch directory (t_tmpdir_open()) holding a FIFO "fifo" (what
 * it is into *@fifo_st, for t_fifo_fds()) and a file "file" that holds
 * "file", to warm a reader.
 */
int t_fifo_dir(const char *tag, char *top, size_t size, struct stat *fifo_st);
/* Descriptors of the FIFO *@fifo_st in this process, but @except. */
int t_fifo_fds(const struct stat *fifo_st, int except);

#endif /* GV_TEST_FIFO_H */
