// SPDX-License-Identifier: MIT
/*
 * syscost.c - make every system call dearer by a chosen amount, then run a
 * benchmark: the other kind of machine, on this one.
 *
 *   syscost [-k LOADS] [-p] [-- COMMAND [ARG...]]
 *
 * Installs seccomp filters that together load the first argument of the
 * system call LOADS times (default 5000) before they allow it, then execs
 * COMMAND. A filter must read an argument: one that looks only at the
 * system call's number is evaluated once per number by the kernel (the
 * seccomp action cache, Linux 5.11) and then costs nothing. A filter holds
 * at most 4096 instructions (BPF_MAXINSNS), so LOADS is spread over as
 * many filters as it takes. The operations io_uring performs for a process
 * are not system calls of it, and no filter sees them: as on a machine
 * with page-table isolation, where their cost does not grow either.
 *
 * Prints on stderr (with -p: on stdout, "PLAIN DEAR" in ns, and runs
 * nothing) the median cost of one getppid() before and after the filters:
 * these go into the heading of each section of bench/RESULTS.md.
 *
 * The filters need no privilege: PR_SET_NO_NEW_PRIVS is set first, so a
 * set-user-ID program run under them does not gain its privileges.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define PER_FILTER	4000	/* loads per filter, under BPF_MAXINSNS */
#define MAX_LOADS	28000	/* the kernel allows 32768 instructions */

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Median ns of one getppid(), over 15 rounds of 20000: of the thread's CPU
 * time, which time slices given to other programs do not count in.
 */
static double getppid_ns(void)
{
	double t[15];

	for (int r = 0; r < 15; r++) {
		double t0 = thread_cpu_ns();

		for (int l = 0; l < 20000; l++)
			syscall(SYS_getppid);
		t[r] = (thread_cpu_ns() - t0) / 20000;
	}
	return bench_median(t, 15);
}

/* One filter of @loads loads of args[0], then allow. */
static int add_filter(int loads)
{
	struct sock_filter *code = calloc(loads + 1, sizeof(*code));
	struct sock_fprog prog = { .len = loads + 1, .filter = code };
	int r;

	if (!code)
		return -1;
	for (int i = 0; i < loads; i++)
		code[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[0]));
	code[loads] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						   SECCOMP_RET_ALLOW);
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	free(code);
	return r;
}

static int install(int loads)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	while (loads > 0) {
		int n = loads < PER_FILTER ? loads : PER_FILTER;

		if (add_filter(n))
			return -1;
		loads -= n;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: syscost [-k LOADS] [-p] [-- COMMAND [ARG...]]"
		"\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int loads = 5000, opt;
	bool print = false;
	double plain, dear;

	while ((opt = getopt(argc, argv, "+k:ph")) != -1) {
		switch (opt) {
		case 'k': loads = atoi(optarg); break;
		case 'p': print = true; break;
		default: usage();
		}
	}
	if (loads < 0 || loads > MAX_LOADS || (!print && optind >= argc))
		usage();
	plain = getppid_ns();
	if (install(loads)) {
		fprintf(stderr, "syscost: seccomp: %s\n", strerror(errno));
		return 1;
	}
	dear = getppid_ns();
	if (print) {
		printf("%.0f %.0f\n", plain, dear);
		return 0;
	}
	fprintf(stderr, "syscost: getppid() %.0f ns, %.0f ns under %d loads "
		"of a filter\n", plain, dear, loads);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "syscost: %s: %s\n", argv[optind], strerror(errno));
	return 127;
}
