/* SPDX-License-Identifier: MIT */
/*
 * common.h - what every file of the library takes for granted: the public
 * header, the attributes of exported and hot code, and the library's own
 * error codes, above errno's range.
 */
#ifndef GV_COMMON_H
#define GV_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "getvalues.h"

#define GV_EXPORT __attribute__((visibility("default")))

/*
 * The code of readfile() and of every descriptor's bookkeeping, kept
 * together in .text.hot. With page-table isolation and no PCID (x86
 * without the Meltdown fix in hardware, as in many virtual machines) every
 * system call empties the TLB, and each page of code or data touched after
 * it costs a page walk: some 10 ns here, as much as 30 instructions.
 */
#define GV_HOT __attribute__((hot))

#define GV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Codes of the library's own, never given to a caller: -EGV_RETRY, the
 * staged values could not be written (sink.c, walk.c); -EGV_SYNC, a value
 * a batch does not hold: fetch it one at a time (data_policy.c, the backends).
 */
#define EGV_RETRY 4096
#define EGV_SYNC 4097

#endif /* GV_COMMON_H */
