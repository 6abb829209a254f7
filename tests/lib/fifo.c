// SPDX-License-Identifier: MIT
/*
 * fifo.c - FIFOs that make a call wait: writers blocked in open(2),
 * readers blocked in readfile(), a tripwire thread, and counting a FIFO's
 * descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/fifo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

/* The system call @pid is in, from /proc/PID/syscall; -1 if unknown. */
static long syscall_of(pid_t pid)
{
	char path[64], line[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	n = t_orc_read(AT_FDCWD, path, line, sizeof(line) - 1);
	if (n <= 0)
		return -1;
	line[n] = 0;
	return atol(line);
}

pid_t t_fifo_writer(int dfd, const char *path, const char *data,
		    unsigned int linger_s)
{
	pid_t pid = fork();

	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = openat(dfd, path, O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			_exit(1);
		if (data && write(fd, data, strlen(data)) < 0)
			_exit(1);
		sleep(linger_s);
		_exit(0);
	}
	for (int i = 0; i < 10000; i++) {
		if (syscall_of(pid) == SYS_openat)
			return pid;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tap_bail("FIFO writer never blocked in openat()");
}

bool t_in_openat(pid_t pid)
{
	if (waitpid(pid, NULL, WNOHANG) != 0)
		return false;
	return syscall_of(pid) == SYS_openat;
}

void t_fifo_feed(int fd, const char *path, const char *data)
{
	if (fd < 0)
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, strlen(data)) < 0)
		tap_diag("write: %s", strerror(errno));
	close(fd);
}

struct tripwire {
	char *path;
	atomic_int *opens;
};

static void *tripwire_main(void *p)
{
	struct tripwire *tw = p;

	for (;;) {
		int fd = open(tw->path, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			atomic_fetch_add(tw->opens, 1);
			close(fd);
		} else if (errno != EINTR) {
			free(tw->path);
			free(tw);
			return NULL;
		}
	}
}

void t_fifo_tripwire(const char *path, atomic_int *opens)
{
	struct tripwire *tw = malloc(sizeof(*tw));
	pthread_t t;

	if (!tw || !(tw->path = strdup(path)))
		tap_bail("out of memory");
	tw->opens = opens;
	if (pthread_create(&t, NULL, tripwire_main, tw))
		tap_bail("pthread_create");
	pthread_detach(t);	/* blocked in open(2) until the process ends */
}

static void *reader_main(void *p)
{
	struct t_reader *r = p;

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

bool t_reader_start(struct t_reader *r, pthread_t *t, unsigned int settle_ms)
{
	long long until;

	if (pthread_create(t, NULL, reader_main, r))
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

int t_fifo_dir(const char *tag, char *top, size_t size, struct stat *fifo_st)
{
	int fd = t_tmpdir_open(tag, top, size);

	if (mkfifoat(fd, "fifo", 0600) || fstatat(fd, "fifo", fifo_st, 0) ||
	    t_write_file(fd, "file", "file", 4, 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	return fd;
}

int t_fifo_fds(const struct stat *fifo_st, int except)
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
