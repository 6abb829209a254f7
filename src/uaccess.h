/* SPDX-License-Identifier: MIT */
/*
 * uaccess.h - the caller's memory (uaccess.c), lowest layer: read and
 * written through process_vm_readv/writev on our own pid, so that a bad
 * pointer becomes EFAULT instead of a crash, as it would in a system call.
 */
#ifndef GV_UACCESS_H
#define GV_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "common.h"

void gv_uaccess_end(void);	/* at the end of a call */
/* ustrings.c's: the thread whose memory is read, whether through the pipe */
pid_t gv_uaccess_pid(void);
bool gv_uaccess_piped(void);
/* An error that says process_vm_* cannot be used: the pipe from now on. */
bool gv_pvm_unavailable(int err);
struct gv_closer;
/* ... or, before its descriptors are closed: its pipe goes with them */
void gv_uaccess_defer(struct gv_closer *c);
int gv_copy_from_user(void *dst, uintptr_t src, size_t len);
ssize_t gv_read_into_user(int fd, uintptr_t dst, size_t len, size_t chunk);
int gv_copy_to_user(uintptr_t dst, const void *src, size_t len);

/* Pairs of iovecs written in few system calls: how many landed, in order. */
struct iovec;
size_t gv_copy_to_user_iov(const struct iovec *l, const struct iovec *r,
			   size_t n);
/* The part of an entry written back: value_out and error, adjacent. */
#define GV_RESULT_OFF	offsetof(struct name_val, value_out)
#define GV_RESULT_LEN	(offsetof(struct name_val, error) + \
			 sizeof(uint32_t) - GV_RESULT_OFF)
/* value_out and error of @n entries of @vec into @uvec, then @tail (or NULL) */
int gv_results_to_user(struct name_val *uvec, const struct name_val *vec,
		       size_t n, const struct iovec *tail);
/* Read a NUL-terminated string of at most @max bytes (NUL excluded). */
int gv_strncpy_from_user(char *dst, uintptr_t src, size_t max);
/*
 * The regions the names of this thread's last call lay in, read again with
 * the next call's vector, as a guess (see uaccess.c).
 */
#define GV_PREREAD_MAX 4
struct gv_preread {
	unsigned int n;
	uintptr_t base[GV_PREREAD_MAX];
	size_t len[GV_PREREAD_MAX], got[GV_PREREAD_MAX];
	char data[16384];	/* GV_PREREAD_BYTES */
};
int gv_copy_from_user_pre(void *dst, uintptr_t src, size_t len,
			  struct gv_preread *pre);
bool gv_preread_take(const struct gv_preread *pre, struct iovec *r,
		     void *dst);
void gv_preread_remember(const struct iovec *r, size_t nreg);
int gv_strings_from_user(const uintptr_t *src, size_t n, size_t max,
			 const char **out, int *lens, char **store,
			 const struct gv_preread *pre);

#endif /* GV_UACCESS_H */
