/* SPDX-License-Identifier: MIT */
/*
 * cost.h - what the auto policy has measured: the cost per value of each
 * mechanism (plain system calls, io_uring) by class of file and size of
 * call, learned from the library's own calls, and the choice it makes
 * from them (cost.c). data_policy.c asks and reports; nothing here makes a
 * system call but the measurement of one's cost.
 */
#ifndef GV_COST_H
#define GV_COST_H

#include <stddef.h>
#include <stdint.h>

enum gv_mech { GV_MECH_SYNC, GV_MECH_URING, GV_MECH_COUNT };

/* The files of a call, as their costs are learned apart. */
enum gv_cost_class {
	GV_COST_PROC,		/* procfs */
	GV_COST_PROC_SLOW,	/* procfs, with a file such as stack among them */
	GV_COST_SYS,		/* sysfs, cgroupfs and the like */
	GV_COST_MEMORY,		/* tmpfs, ramfs, ... */
	GV_COST_DISK,		/* ext4, xfs, btrfs, f2fs */
	GV_COST_OTHER,		/* anything else */
	/*
	 * not files: the mntns list (mnt.c), per mount, where GV_MECH_SYNC
	 * stands for listmount() and a statmount() per mount, and
	 * GV_MECH_URING for one read of mountinfo's text
	 */
	GV_COST_MNTLIST,
	GV_COST_CLASSES,
};

/* The monotonic clock, in ns (vDSO: no system call). */
uint64_t gv_cost_now(void);
/*
 * The mechanism for a call of @n files of class @cls: the cheaper one as
 * measured, now and then the other (exploration), or @prior while there
 * is too little to go by.
 */
enum gv_mech gv_cost_decide(enum gv_cost_class cls, size_t n,
			    enum gv_mech prior);
/* Whether calls are measured and reported (not in the tests' modes). */
int gv_cost_learning(void);
/* A call of @n files of class @cls took @ns through @m. */
void gv_cost_record(enum gv_cost_class cls, size_t n, enum gv_mech m,
		    uint64_t ns);
/*
 * What one system call costs in this process, in ns: measured once (a few
 * getppid() calls), injected by a test, or GV_COST_SYSCALL_PRIOR outside
 * GV_COST_LEARN (the machine the constant priors were measured on: a VM
 * with page-table isolation).
 */
#define GV_COST_SYSCALL_PRIOR	1000
uint32_t gv_cost_syscall(void);
/* @sub names a procfs file whose costs are learned apart (its last part) */
int gv_cost_slow_file(const char *sub);

/*
 * Tests and benchmarks. Modes: GV_COST_LEARN (the default) measures the
 * library's calls and explores; GV_COST_PRIORS decides by the prior alone,
 * as auto did before it measured; GV_COST_INJECTED decides from what
 * gv_cost_record() was given, measures nothing itself and never explores.
 */
enum gv_cost_mode { GV_COST_LEARN, GV_COST_PRIORS, GV_COST_INJECTED };
void gv_cost_test_mode(enum gv_cost_mode mode);
/* Take a system call to cost @ns (0: measure it, in GV_COST_LEARN). */
void gv_cost_test_syscall(uint32_t ns);
/* Forget everything learned. */
void gv_cost_test_reset(void);
struct gv_cost_view {
	uint32_t est[GV_MECH_COUNT];	 /* ns per value */
	uint32_t samples[GV_MECH_COUNT]; /* counted up to 255 */
	uint32_t calls;			 /* decisions made */
};
void gv_cost_test_view(enum gv_cost_class cls, size_t n,
		       struct gv_cost_view *v);

#endif /* GV_COST_H */
