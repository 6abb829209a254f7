/* SPDX-License-Identifier: MIT */
/*
 * fds.h - descriptors (fds.c), the lowest layer: every descriptor the
 * library opens is owned from open() to close; the process generation;
 * and the hooks its tests drive it with.
 */
#ifndef GV_FDS_H
#define GV_FDS_H

#include <stdint.h>
#include <sys/types.h>

/*
 * Every descriptor the library opens is owned, from open() to close, so
 * that a fork() in another thread closes it in the child.
 */
int gv_fd_own(int fd);			/* returns @fd */
void gv_fd_disown(int fd);
void gv_fd_close(int fd);		/* disown, close; -1 is ignored */
void gv_fd_close_cleanup(void *arg);	/* pthread_cleanup_push(): int * */
/*
 * Descriptors a call closes later, many in one close_range(2): 128, so
 * that a call of 64 files closes them and $ORIGIN in one (64 made it
 * flush in the middle, and once more at the end, with a lone close(2)).
 */
struct gv_closer {
	unsigned int n;
	int fd[128];
};
void gv_fd_defer(struct gv_closer *c, int fd);	/* -1 is ignored */
void gv_fd_flush(struct gv_closer *c);
pid_t gv_tid(void);			/* the calling thread, cached */

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
