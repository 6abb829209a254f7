/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a small Test Anything Protocol writer for the test programs.
 *
 * Every test program prints a plan, one "ok"/"not ok" line per check and
 * ends through tap_done(), which returns the exit status prove expects.
 * Skips must say which kernel feature is missing.
 */
#ifndef GV_TAP_H
#define GV_TAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

void tap_plan(int n);
int tap_done(void);
bool tap_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(int n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A check of something not implemented yet (@reason says what): reported,
 * but its failure does not fail the program (TAP "# TODO").
 */
bool tap_todo(bool cond, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void tap_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Checks that print what they got when they fail. */
bool tap_is_long(long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool tap_is_errno(long long ret, int err, long long want_ret, int want_err,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
bool tap_is_mem(const void *got, size_t got_len, const void *want,
		size_t want_len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif /* GV_TAP_H */
