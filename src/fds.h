/* SPDX-License-Identifier: MIT */
/*
 * fds.h - what fds.c offers besides the descriptor calls in internal.h:
 * the process generation, and the hooks its tests drive it with.
 */
#ifndef GV_FDS_H
#define GV_FDS_H

#include <stdint.h>

/*
 * The generation of this process: it changes in every child of fork(),
 * whether or not the child ran the fork handlers (_Fork(), clone(2)), so
 * that a per-thread cache made in the parent is known for one.
 */
unsigned long gv_fork_gen(void);

/* Tests: check by pid from now on, as where MADV_WIPEONFORK is missing. */
void gv_self_test_nowipe(void);

/* Tests: @n forks more started and done, as if they had been made. */
void gv_fd_test_forks(uint64_t n);

#endif /* GV_FDS_H */
