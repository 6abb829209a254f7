// SPDX-License-Identifier: MIT
/*
 * forkguard.c - keeps the descriptors the library opens out of fork()ed children.
 *
 * readfile() and getvalues() open descriptors for a few microseconds. If
 * another thread forks in that window, the child would inherit a descriptor
 * the caller never asked for (O_CLOEXEC only helps across exec). Every window
 * holds a read lock; pthread_atfork() takes the write lock, so fork() waits
 * for open windows to close. The lock prefers writers, so a stream of calls
 * cannot starve fork(). Cost: one uncontended atomic pair per call.
 */
#include <pthread.h>

#include "internal.h"

static pthread_rwlock_t gv_fork_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/*
 * Depth of guarded windows in this thread: the lock is taken once per thread,
 * and a fork() from a signal handler that interrupted a window must not wait
 * for its own thread.
 */
static __thread unsigned int gv_fork_depth;

void gv_fork_guard_enter(void)
{
	if (gv_fork_depth++ == 0)
		pthread_rwlock_rdlock(&gv_fork_lock);
}

void gv_fork_guard_leave(void)
{
	if (--gv_fork_depth == 0)
		pthread_rwlock_unlock(&gv_fork_lock);
}

static void gv_fork_prepare(void)
{
	if (gv_fork_depth == 0)
		pthread_rwlock_wrlock(&gv_fork_lock);
}

static void gv_fork_parent(void)
{
	if (gv_fork_depth == 0)
		pthread_rwlock_unlock(&gv_fork_lock);
}

/*
 * The child has one thread and a lock whose owner does not exist there:
 * start over with a fresh lock, held for reading if this thread was inside
 * a window when it forked, so that the window's leave() stays balanced.
 */
static void gv_fork_child(void)
{
	static const pthread_rwlock_t fresh =
		PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

	gv_fork_lock = fresh;
	gv_self_end();
	if (gv_fork_depth)
		pthread_rwlock_rdlock(&gv_fork_lock);
}

__attribute__((constructor)) static void gv_fork_guard_init(void)
{
	pthread_atfork(gv_fork_prepare, gv_fork_parent, gv_fork_child);
}
