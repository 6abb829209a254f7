// SPDX-License-Identifier: MIT
/*
 * native_parity_chunks.c - vectors longer than one kernel call takes.
 *
 * getvalues(2) takes at most 1024 entries (SPEC v3) and a pending signal
 * ends it early with the count handled so far; the library's getvalues()
 * hides both on the native backend: it splits a vector into kernel calls,
 * carrying the shorthand prefix and the current buffer across them, and
 * continues a call a signal shortened. Compared with the library's sync
 * backend as native_parity.c does: shorthand and shared buffers across
 * the boundaries, an overflow and bad entries right after one, and the
 * same vector under an interval timer whose signals end kernel calls
 * early. Runs where the kernel has getvalues(2) (kernel/kcheck.sh);
 * elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/parity.h"
#include "lib/tap.h"

#define KERNEL_MAX	1024	/* entries one getvalues(2) call takes */

/* Entry @i of a long vector: shorthand runs that cross the boundaries. */
static const char *long_name(size_t i)
{
	static const char *const cycle[] = {
		"stat:type:a", ":ino:a", ":nlink:d", ":size:a", "data:a",
		":d/b", ":empty", "fs:type", ":namelen", "dir:d", ":d/e",
		"xattr", "lstat:type:link", ":mode:link",
	};

	return cycle[i % GV_ARRAY_SIZE(cycle)];
}

/* @n entries in one shared buffer of @room bytes, shorthand throughout. */
static void long_call(size_t n, size_t room, const char *what)
{
	np_call_begin(".", 0, "%zu entries, %s", n, what);
	for (size_t i = 0; i < n; i++)
		np_add(long_name(i), i ? CONT : OFF_BIG, room);
	np_check();
}

static void calls_long(void)
{
	static const size_t sizes[] = {
		KERNEL_MAX - 1, KERNEL_MAX, KERNEL_MAX + 1, 2 * KERNEL_MAX + 7,
		MAX_ENTRIES,
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(sizes); i++)
		long_call(sizes[i], 134 * PAGE, "one buffer");
	/* the buffer runs out in the second kernel call */
	long_call(3000, 40000, "the buffer full in the second call");
	/* a shorthand first in the second call, its prefix from the first */
	np_call_begin(".", 0, "a shorthand at entry %d", KERNEL_MAX);
	for (size_t i = 0; i < KERNEL_MAX; i++)
		np_add("stat:nlink:a", i ? CONT : OFF_BIG, 65536);
	np_add(":size:a", CONT, 0);
	np_add(":ino:d", CONT, 0);
	np_check();
	/* a buffer of its own at the boundary, then CONT into it */
	np_call_begin(".", 0, "a buffer of its own at entry %d", KERNEL_MAX);
	for (size_t i = 0; i < KERNEL_MAX + 50; i++)
		np_add(long_name(i), i == KERNEL_MAX ? OFF_BIG + 70000 :
		       i ? CONT : OFF_BIG, 65536);
	np_check();
	/* no buffer at all: EINVAL for every entry, in every call */
	np_call_begin(".", 0, "%d entries without a buffer", KERNEL_MAX + 3);
	for (size_t i = 0; i < KERNEL_MAX + 3; i++)
		np_add(long_name(i), CONT, 0);
	np_check();
	/* a shorthand without a prefix right after the boundary */
	np_call_begin(".", 0, "\"\" right before entry %d, then a shorthand",
		      KERNEL_MAX);
	for (size_t i = 0; i < KERNEL_MAX - 1; i++)
		np_add("stat:type", i ? CONT : OFF_BIG, 65536);
	np_add("fs:type", CONT, 0);
	np_add(NAME_NONE, CONT, 0);
	np_add(":type", CONT, 0);
	np_check();
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * The same long vectors while an interval timer sends SIGALRM every
 * 200 us, its handler without SA_RESTART: kernel calls end early (or with
 * EINTR before their first entry), and the library continues them.
 */
static void calls_signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, 200 }, { 0, 200 } };

	if (sigaction(SIGALRM, &sa, NULL) ||
	    setitimer(ITIMER_REAL, &it, NULL))
		tap_bail("timer: %s", strerror(errno));
	for (int round = 0; round < 5; round++)
		long_call(MAX_ENTRIES, 134 * PAGE, "SIGALRM every 200 us");
	long_call(3000, 40000, "the buffer full, SIGALRM every 200 us");
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
	tap_diag("%d signals during the calls", (int)alarms);
	tap_ok(alarms > 0, "the timer's signals came during the calls");
}

int main(void)
{
	np_start();
	calls_long();
	calls_signals();
	tap_diag("%u calls compared", np_calls_run);
	return tap_done();
}
