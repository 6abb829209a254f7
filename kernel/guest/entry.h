/* SPDX-License-Identifier: GPL-2.0 */
/*
 * entry.h - the kernel's struct getvalues_entry (include/uapi/linux/
 * getvalues.h of kernel/patches/0007) for the guest programs, which are
 * built without the patched kernel's headers: 64-bit pointers and
 * lengths, 48 bytes on every ABI; the call takes its size after the count.
 * Also the calls' numbers on x86_64 (kernel/patches/0012).
 */
#ifndef GV_GUEST_ENTRY_H
#define GV_GUEST_ENTRY_H

#include <stdint.h>

#define NR_READFILE	490
#define NR_GETVALUES	491

typedef uint64_t u64a __attribute__((aligned(8)));

struct gv_buf {
	u64a base;
	u64a len;
};

struct gv_entry {
	u64a name;
	struct gv_buf value_in;
	struct gv_buf value_out;
	unsigned int error;
	unsigned int reserved;
};

_Static_assert(sizeof(struct gv_entry) == 48, "GETVALUES_ENTRY_SIZE_VER0");

#define PTR(p)	((uint64_t)(uintptr_t)(p))

#endif /* GV_GUEST_ENTRY_H */
