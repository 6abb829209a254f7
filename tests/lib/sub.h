/* SPDX-License-Identifier: MIT */
/*
 * sub.h - helpers for tests that must survive what they provoke: checks run
 * in a forked child under a deadline (a hang or a crash becomes a failing
 * check, never a stuck suite), acting as another user, seccomp filters,
 * and bounded waits for threads.
 */
#ifndef GV_TEST_SUB_H
#define GV_TEST_SUB_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * Run @fn(@arg) in a forked child, in a process group of its own, for at
 * most @timeout_s seconds. The child reports with the ordinary tap_*()
 * calls; its lines are numbered again and replayed here, so that they
 * count as this program's checks. A child that hangs is killed (with its
 * own children) and one failing check says so; so does a child that dies
 * of a signal or exits non-zero. Returns true when the child ran to its
 * end with every check passing.
 */
bool t_sub(const char *what, unsigned int timeout_s, void (*fn)(void *),
	   void *arg);

/*
 * Run @fn(@arg, @res) in a child that is user and group nobody (65534, no
 * supplementary groups), for what only another user than the files' owner
 * sees (EACCES, EPERM); the @size bytes of @res come back. 0, or -1 with
 * errno EPERM where this process cannot become another user: that needs
 * real root (a user namespace maps one user only).
 */
int t_as_nobody(void (*fn)(void *arg, void *res), void *arg, void *res,
		size_t size);
#define T_NO_SECOND_USER "needs real root, to act as a second user (nobody)"

/* Whether capability @cap is in this thread's effective set. */
bool t_has_cap(int cap);

/*
 * A seccomp filter (no_new_privs is set first) making each of the @n
 * system calls @nrs fail with @err; the rest are allowed. 0 or -1/errno.
 */
int t_seccomp_errno(const int *nrs, int n, int err);

/* pthread_join() with a deadline: 0, or ETIMEDOUT (the thread still runs). */
int t_join_within(pthread_t t, unsigned int ms, void **ret);

/*
 * Wait up to @ms until thread @tid of this process sleeps (state S or D in
 * /proc/self/task/TID/stat), as a thread blocked in a system call does.
 */
bool t_wait_asleep(pid_t tid, unsigned int ms);

/*
 * @fn run in a child of this process (its output flushed first, the
 * child's before it exits): the child's exit status, or 128 + the signal
 * that ended it.
 */
int t_in_child(int (*fn)(void));

/* Milliseconds of CLOCK_MONOTONIC. */
long long t_now_ms(void);

/*
 * How many times longer than usual a watchdog here should wait: the
 * environment's GV_TEST_TIME_SCALE (kernel/kcheck.sh sets 10 in a KASAN
 * guest under emulation), else 1. Time limits that catch a hang are
 * multiplied by it (t_sub() does); nothing that measures speed is.
 */
unsigned int t_time_scale(void);

#endif /* GV_TEST_SUB_H */
