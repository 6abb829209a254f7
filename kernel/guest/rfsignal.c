// SPDX-License-Identifier: GPL-2.0
/*
 * rfsignal.c - readfile(2) of multi-page procfs files under a fast
 * SA_RESTART itimer: every call must give the whole file, the same bytes
 * as an open/read loop, however many signals arrive while it reads.
 *
 * seq_read_iter() gives about a page per read and checks no signal, so a
 * readfile(2) that stops its reads at a pending signal returns a prefix of
 * the file that looks like all of it.  The timer fires every 50 us (in
 * practice every tick); /proc/kallsyms (hundreds of pages) and this
 * process's /proc/self/maps, made dozens of pages long with separate
 * mappings, are each read many times.
 *
 * A terminal is the other case: it cannot be read at an offset, so bytes
 * once read are gone and a restart cannot give them again. readfile(2) of
 * a pty that got three bytes and then waits for more, interrupted by a
 * signal whose handler has no SA_RESTART, must return those three bytes,
 * as read(2) returns a short count, not EINTR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>

#include "entry.h"

#define BUF_SIZE	(16u << 20)
#define MAPS		1500		/* separate mappings: maps > 100 KiB */

static volatile sig_atomic_t ticks;
static char *want, *got;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void timer(long usec)
{
	struct itimerval it = {
		.it_interval = { 0, usec },
		.it_value = { 0, usec },
	};

	if (setitimer(ITIMER_REAL, &it, NULL))
		die("setitimer");
}

/* The file as an open/read loop reads it (short reads continue). */
static ssize_t read_all(const char *path, char *buf, size_t size)
{
	size_t done = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (done < size) {
		n = read(fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	close(fd);
	return done;
}

/*
 * @rounds readfile(2) calls of @path, each against an open/read loop
 * made just before it.  Returns the number of calls that differed.
 */
static int rounds_of(const char *path, int rounds, long *shortest,
		     long *len)
{
	int bad = 0;

	*shortest = -1;
	*len = 0;
	for (int r = 0; r < rounds; r++) {
		ssize_t w, g;

		w = read_all(path, want, BUF_SIZE);
		if (w < 0)
			die(path);
		do
			g = syscall(NR_READFILE, AT_FDCWD, path, got,
				    (size_t)BUF_SIZE, 0);
		while (g < 0 && errno == EINTR);
		if (g < 0)
			die("readfile");
		*len = w;
		if (g != w || memcmp(want, got, w)) {
			if (bad < 3)
				printf("# %s: round %d: readfile gave %zd bytes, read(2) %zd\n",
				       path, r, g, w);
			bad++;
			if (*shortest < 0 || g < *shortest)
				*shortest = g;
		}
	}
	return bad;
}

/* The pty case above: 0 when readfile gave the three bytes, else 1. */
static int tty_keeps_bytes(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no restart */
	struct itimerval once = { .it_value = { 1, 0 } };
	struct termios raw;
	char buf[100];
	const char *name;
	int m, s;
	long r;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m)))
		die("pty");
	s = open(name, O_RDWR | O_NOCTTY);	/* held: no hangup */
	if (s < 0 || tcgetattr(s, &raw))
		die(name);
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(s, TCSANOW, &raw) || write(m, "abc", 3) != 3 ||
	    sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &once, NULL))
		die("pty setup");
	r = syscall(NR_READFILE, AT_FDCWD, name, buf, sizeof(buf), 0);
	printf("# %s: readfile returned %ld (%s)\n", name, r,
	       r < 0 ? strerror(errno) : "bytes");
	close(s);
	close(m);
	return r == 3 && !memcmp(buf, "abc", 3) ? 0 : 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm,
				.sa_flags = SA_RESTART };
	static const struct {
		const char *path;
		int rounds;
	} files[] = {
		{ "/proc/kallsyms", 12 },
		{ "/proc/self/maps", 300 },
	};
	int failed = 0, bad;
	long page = sysconf(_SC_PAGESIZE);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", sizeof(files) / sizeof(files[0]) + 1);
	want = malloc(BUF_SIZE);
	got = malloc(BUF_SIZE);
	if (!want || !got)
		die("malloc");
	memset(got, 1, BUF_SIZE);	/* no fault in the measured calls */
	/* alternating protections keep the mappings apart in maps */
	for (int i = 0; i < MAPS; i++)
		if (mmap(NULL, page, i % 2 ? PROT_READ : PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			die("mmap");
	if (syscall(NR_READFILE, AT_FDCWD, "/proc/self/maps", got,
		    (size_t)BUF_SIZE, 0) < 0 && errno == ENOSYS) {
		for (size_t i = 0; i <= sizeof(files) / sizeof(files[0]); i++)
			printf("ok %zu # SKIP no readfile(2)\n", i + 1);
		return 0;
	}
	if (sigaction(SIGALRM, &sa, NULL))
		die("sigaction");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		long shortest, len;
		int before = ticks;

		if (access(files[i].path, R_OK)) {
			printf("ok %zu - %s # SKIP %s\n", i + 1,
			       files[i].path, strerror(errno));
			continue;
		}
		timer(50);
		bad = rounds_of(files[i].path, files[i].rounds, &shortest,
				&len);
		timer(0);
		printf("# %s: %ld bytes, %d rounds, %d signals, %d short (shortest %ld)\n",
		       files[i].path, len, files[i].rounds,
		       (int)ticks - before, bad, shortest);
		if (len <= 2 * page)
			printf("# %s is not multi-page here\n", files[i].path);
		printf("%sok %zu - %s: readfile under an itimer gives the whole file\n",
		       bad ? "not " : "", i + 1, files[i].path);
		failed |= bad;
	}
	bad = tty_keeps_bytes();
	printf("%sok %zu - a terminal: the bytes read before a signal are "
	       "returned, not EINTR\n", bad ? "not " : "",
	       sizeof(files) / sizeof(files[0]) + 1);
	failed |= bad;
	return failed ? 1 : 0;
}
