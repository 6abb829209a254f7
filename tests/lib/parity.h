/* SPDX-License-Identifier: MIT */
/*
 * parity.h - what the native parity tests share: a scratch tree (files,
 * directories, links, a FIFO, a device, xattrs and an ACL), mounts of
 * every kind in a private mount namespace, a process holding a descriptor
 * of every kind, and calls built entry by entry, run through the native
 * system calls and through the library's sync backend on two identical
 * memory arenas, and compared: return values, errnos, every entry's error,
 * the place (as an offset) and the bytes of every value.
 */
#ifndef GV_TEST_PARITY_H
#define GV_TEST_PARITY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PAGE		4096L
/* The arena: pages of it, and the offsets of its special pages. */
#define ARENA_PAGES	200
#define OFF_NONE	(64 * PAGE)	/* PROT_NONE */
#define OFF_RO		(65 * PAGE)	/* PROT_READ */
#define OFF_BIG		(66 * PAGE)	/* 134 pages of space */
#define ARENA_SIZE	(ARENA_PAGES * PAGE)

#define CONT		LONG_MIN	/* no buffer: continue the current one */
#define BUF_ONE		(LONG_MIN + 1)	/* the buffer (void *)1 */
#define MAX_ENTRIES	4096

/* Names that are not strings. */
#define NAME_NULL	((const char *)0)
#define NAME_ONE	((const char *)1)
#define NAME_NONE	((const char *)2)	/* in the PROT_NONE page */
#define NAME_CROSS	((const char *)3)	/* running into it */
#define NAME_BEFORE	((const char *)4)	/* ending right before it */

extern int np_scratch_fd;		/* the scratch tree, O_PATH */
extern bool np_have_mounts, np_have_xattr;
extern pid_t np_holder;			/* holds np_holder_fds */
extern int np_holder_fds[8];
extern unsigned int np_calls_run;

/* A child holding a descriptor of every kind, for /proc/PID. */
void np_start_holder(void);

/* Begin a call on @origin (relative to the scratch tree) with @flags. */
void np_call_begin(const char *origin, unsigned int flags, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));
/* An entry: @name, a buffer at arena offset @buf (or CONT) of @len bytes. */
void np_add(const char *name, long buf, size_t len);
/* Run the call built so far through both backends and compare: a check. */
void np_check(void);
/* One call with one name, its own buffer: a check. */
void np_one(const char *origin, const char *name);

/*
 * Set up a test program: all skipped where the kernel lacks the calls;
 * the scratch tree, and the mounts where a mount namespace can be had.
 */
void np_start(void);

#endif /* GV_TEST_PARITY_H */
