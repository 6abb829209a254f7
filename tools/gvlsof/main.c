// SPDX-License-Identifier: MIT
/*
 * main.c - gvlsof: list open files as lsof 4.95 does, with its options and
 * its output, through a handful of getvalues() calls for the whole system.
 * This file runs the cycles (one, or -r's repeats) and decides the exit
 * status as lsof decides it.
 */
#include <errno.h>
#include <locale.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gvlsof.h"

struct opts opt;
uid_t my_uid;

static int comppid(const void *a, const void *b)
{
	const struct lproc *p1 = *(struct lproc *const *)a;
	const struct lproc *p2 = *(struct lproc *const *)b;

	if (p1->pid != p2->pid)
		return p1->pid < p2->pid ? -1 : 1;
	if (p1->tid != p2->tid)
		return p1->tid < p2->tid ? -1 : 1;
	return 0;
}

static void defaults(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	opt.pn = slash ? slash + 1 : argv0;
	opt.fhost = opt.fport = opt.futol = opt.fsearch_err = true;
	opt.all_proc = true;
	opt.cmd_lim = CMDL;
	opt.off_dec_dig = OFFDECDIG;
	opt.ftcptpi = TCPTPI_STATE;
	opt.terminator = '\n';
	opt.fdl_ty = -1;
	opt.tm_limit = TMLIMIT;
	my_uid = getuid();
	/* SELinux, as is_selinux_enabled() finds it */
	{
		struct finfo fi;

		opt.cntx_status = !stat_path("/sys/fs/selinux/enforce", &fi,
					     true);
	}
}

/* One cycle's rows listed; returns how many processes had some. */
static size_t list_cycle(void)
{
	struct lproc **slp;
	size_t n = 0;

	gather_proc_info();
	slp = xrealloc(NULL, (nprocs + 1) * sizeof(*slp));
	for (size_t i = 0; i < nprocs; i++)
		slp[i] = &procs[i];
	if (nprocs > 1)
		qsort(slp, nprocs, sizeof(*slp), comppid);
	if (nprocs && opt.feptE)
		endpoints_process(slp, nprocs);
	if (opt.json)
		json_open();
	if (nprocs) {
		for (print_init(); pr_pass < 2; pr_pass++) {
			n = 0;
			for (size_t i = 0; i < nprocs; i++)
				if (slp[i]->pss && print_proc(slp[i]))
					n++;
		}
	}
	if (opt.json)
		json_close();
	else if (opt.jsonl && opt.rpt_tm)
		putchar('\n');
	free(slp);
	return n;
}

/* The per-cycle state, so that the next cycle starts anew. */
static void cycle_free(void)
{
	endpoints_free();
	procs_free();
	net_free();
	gethostnm_reset();
	strings_free();
}

static void not_located(const char *what, const char *s)
{
	if (opt.fverbose) {
		printf("%s: %s", opt.pn, what);
		safestrprt(s, stdout, 1);
	}
}

/* lsof's verdict: was everything asked for found? */
static int exit_status(bool rc_ok)
{
	int fail = opt.fsearch_err ? 1 : 0;
	int rv = 0;

	/* as in lsof, a -c exclusion is never "found" */
	for (size_t i = opt.ncmdl; i-- > 0;) {
		if (opt.cmdl[i].found)
			continue;
		rv = fail;
		not_located("command not located: ", opt.cmdl[i].str);
	}
	for (size_t i = 0; i < opt.ncmdrx; i++) {
		if (opt.cmdrx[i].found)
			continue;
		rv = fail;
		not_located("no command found for regex: ", opt.cmdrx[i].exp);
	}
	for (size_t i = opt.nsfile; i-- > 0;) {
		if (opt.sfile[i].found)
			continue;
		rv = fail;
		not_located(opt.sfile[i].type ? "no file use located: " :
						"no file system use located: ",
			    opt.sfile[i].aname);
	}
	for (size_t i = 0; i < opt.nnwad; i++) {
		struct nwad *np = &opt.nwad[i];

		/* the addresses one argument gave are found together */
		for (size_t k = 0; k < opt.nnwad; k++) {
			struct nwad *o = &opt.nwad[k];

			if (k != i && np->arg && o->arg &&
			    !strcmp(np->arg, o->arg) && o->found)
				np->found = true;
		}
	}
	for (size_t i = opt.nnwad; i-- > 0;) {
		struct nwad *np = &opt.nwad[i];
		bool dup = false;

		for (size_t k = i; k-- > 0;)
			if (np->arg && opt.nwad[k].arg &&
			    !strcmp(np->arg, opt.nwad[k].arg))
				dup = true;
		if (np->found || !np->arg || dup)
			continue;
		rv = fail;
		not_located("Internet address not located: ", np->arg);
	}
	if (opt.fnet == 1) {
		rv = fail;
		if (opt.fverbose)
			printf("%s: no Internet files located\n", opt.pn);
	}
	for (int i = 0; i < ntcp_states; i++)
		if (opt.tcp_st_i[i] == 1) {
			rv = fail;
			if (opt.fverbose)
				printf("%s: TCP state not located: %s\n",
				       opt.pn, tcp_states[i]);
		}
	if (opt.fnfs == 1) {
		rv = fail;
		if (opt.fverbose)
			printf("%s: no NFS files located\n", opt.pn);
	}
	for (size_t i = 0; i < opt.npid; i++) {
		if (opt.spid[i].found || opt.spid[i].x)
			continue;
		rv = fail;
		if (opt.fverbose)
			printf("%s: process ID not located: %d\n", opt.pn,
			       opt.spid[i].id);
	}
	if (opt.ftask == 1) {
		rv = fail;
		if (opt.fverbose)
			printf("%s: no tasks located\n", opt.pn);
	}
	for (size_t i = opt.ncntx; i-- > 0;) {
		if (opt.cntx_found[i])
			continue;
		rv = fail;
		not_located("context not located: ", opt.cntx_args[i]);
	}
	for (size_t i = 0; i < opt.npgid; i++) {
		if (opt.spgid[i].found || opt.spgid[i].x)
			continue;
		rv = fail;
		if (opt.fverbose)
			printf("%s: process group ID not located: %d\n",
			       opt.pn, opt.spgid[i].id);
	}
	for (size_t i = 0; i < opt.nuid; i++) {
		if (opt.suid[i].excl || opt.suid[i].found)
			continue;
		rv = fail;
		if (!opt.fverbose)
			continue;
		if (opt.suid[i].lnm) {
			printf("%s: login name (UID %lu) not located: ", opt.pn,
			       (unsigned long)opt.suid[i].uid);
			safestrprt(opt.suid[i].lnm, stdout, 1);
		} else {
			printf("%s: user ID not located: %lu\n", opt.pn,
			       (unsigned long)opt.suid[i].uid);
		}
	}
	if (!rv && !rc_ok)
		rv = 1;
	if (!rv && opt.err_stat)
		rv = 1;
	return rv;
}

/*
 * lsof ignores write errors; gvlsof does not: output that did not reach
 * its reader is an error (documented in gvlsof(1)).
 */
static void check_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		int err = errno ? errno : EIO;

		fprintf(stderr, "%s: write error on standard output: %s\n",
			opt.pn, strerror(err));
		exit(1);
	}
}

/*
 * A listing of the whole system fills some megabytes of heap, and each
 * 4 KiB page of it costs a fault when first touched, which in a virtual
 * machine costs as much as several system calls: the heap is asked for
 * transparent huge pages instead (where they are only given on request,
 * as on Debian), through a block grown once and given back to malloc.
 * Its start, up to the first 2 MiB boundary, cannot be a huge page (the
 * page would begin before the heap): it is kept allocated and never
 * touched, so that what gvlsof allocates lands in the huge pages, not in
 * some hundreds of small ones before them.
 */
#define HEAP_PREP	(32 << 20)
#define HUGE_PAGE	(2 << 20)

/* volatile: a block that is never read would be optimised away */
static void *volatile heap_head;

static void heap_hugepages(void)
{
	char *p = malloc(HEAP_PREP), *start, *end;
	size_t head;

	if (!p)
		return;
	start = (char *)(((uintptr_t)p + HUGE_PAGE - 1) &
			 ~(uintptr_t)(HUGE_PAGE - 1));
	end = (char *)(((uintptr_t)p + HEAP_PREP) &
		       ~(uintptr_t)(HUGE_PAGE - 1));
	head = start - p;
	if (end > start)
		madvise(start, end - start, MADV_HUGEPAGE);
	free(p);
	/* the same place again (the top of the heap), up to the boundary */
	if (end > start && head)
		heap_head = malloc(head);
}

int main(int argc, char **argv)
{
	bool rc_ok = true;
	int pr_count = 0;

	/*
	 * The rounds' buffers are large and short-lived: served from the
	 * heap and kept there, they are not mapped and faulted in anew by
	 * every round.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	/* batch.c's helper threads allocate from that heap too */
	mallopt(M_ARENA_MAX, 1);
	heap_hugepages();
	/*
	 * A listing is some megabytes: written in 64 KiB pieces, not in the
	 * 4 KiB of a file's or pipe's default buffer (a terminal stays line
	 * buffered).
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, xrealloc(NULL, 64 << 10), _IOFBF, 64 << 10);
	setlocale(LC_CTYPE, "");
	defaults(argv[0]);
	parse_options(argc, argv);
	if (opt.mnt_sup == 1 && !opt.sel_inet) {
		readmnt();
		check_stdout();
		return 0;
	}
	pipefs_probe();
	sockfs_probe();
	if (opt.rpt_cond)
		rc_ok = false;
	do {
		size_t n = list_cycle();

		if (opt.rpt_tm) {
			if (opt.rpt_cond) {
				if (!n) {
					cycle_free();
					break;
				}
				rc_ok = true;
			}
			if (opt.ffield && !opt.json && !opt.jsonl) {
				char mark[1024] = "";

				if (opt.rpt_fmt)
					marker_format(mark, sizeof(mark),
						      opt.rpt_fmt);
				printf("m%s", mark);
				putchar(opt.terminator);
				if (opt.terminator != '\n')
					putchar('\n');
			} else if (!opt.json && !opt.jsonl) {
				char mark[1024] = "=======";

				if (opt.rpt_fmt &&
				    !marker_format(mark, sizeof(mark),
						   opt.rpt_fmt))
					mark[0] = 0;
				puts(mark);
			}
			check_stdout();
			cycle_free();
			sleep(opt.rpt_tm);
		} else {
			cycle_free();
		}
		if (opt.rpt_max_count && ++pr_count == opt.rpt_max_count)
			opt.rpt_tm = 0;
	} while (opt.rpt_tm);
	{
		int rv = exit_status(rc_ok);

		check_stdout();
		return rv;
	}
}
