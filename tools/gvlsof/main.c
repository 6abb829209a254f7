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

/* -c names and regular expressions; as in lsof, an exclusion is never found */
static bool missed_commands(void)
{
	bool missed = false;

	for (size_t i = opt.ncmdl; i-- > 0;) {
		if (opt.cmdl[i].found)
			continue;
		missed = true;
		not_located("command not located: ", opt.cmdl[i].str);
	}
	for (size_t i = 0; i < opt.ncmdrx; i++) {
		if (opt.cmdrx[i].found)
			continue;
		missed = true;
		not_located("no command found for regex: ", opt.cmdrx[i].exp);
	}
	return missed;
}

static bool missed_files(void)
{
	bool missed = false;

	for (size_t i = opt.nsfile; i-- > 0;) {
		if (opt.sfile[i].found)
			continue;
		missed = true;
		not_located(opt.sfile[i].type ? "no file use located: " :
						"no file system use located: ",
			    opt.sfile[i].aname);
	}
	return missed;
}

/* -i addresses: those one argument gave are found together */
static bool missed_addresses(void)
{
	bool missed = false;

	for (size_t i = 0; i < opt.nnwad; i++)
		for (size_t k = 0; k < opt.nnwad; k++)
			if (k != i && opt.nwad[i].arg && opt.nwad[k].arg &&
			    !strcmp(opt.nwad[i].arg, opt.nwad[k].arg) &&
			    opt.nwad[k].found)
				opt.nwad[i].found = true;
	for (size_t i = opt.nnwad; i-- > 0;) {
		struct nwad *np = &opt.nwad[i];
		bool dup = false;

		for (size_t k = i; k-- > 0;)
			if (np->arg && opt.nwad[k].arg &&
			    !strcmp(np->arg, opt.nwad[k].arg))
				dup = true;
		if (np->found || !np->arg || dup)
			continue;
		missed = true;
		not_located("Internet address not located: ", np->arg);
	}
	return missed;
}

/* A search that found nothing at all: -i, -s TCP:STATE, -N, -K */
static bool missed_kind(bool missed, const char *what, const char *arg)
{
	if (missed && opt.fverbose)
		printf("%s: %s%s\n", opt.pn, what, arg);
	return missed;
}

static bool missed_ids(const struct int_lst *l, size_t n, const char *what)
{
	bool missed = false;

	for (size_t i = 0; i < n; i++) {
		if (l[i].found || l[i].x)
			continue;
		missed = true;
		if (opt.fverbose)
			printf("%s: %s not located: %d\n", opt.pn, what,
			       l[i].id);
	}
	return missed;
}

static bool missed_contexts(void)
{
	bool missed = false;

	for (size_t i = opt.ncntx; i-- > 0;) {
		if (opt.cntx_found[i])
			continue;
		missed = true;
		not_located("context not located: ", opt.cntx_args[i]);
	}
	return missed;
}

/*
 * -u: lsof 4.95 leaves the found flag of its list uninitialised (arg.c's
 * enter_uid()), so what it says of a user without processes is what
 * malloc left there. After getpwnam() that is never 0: a login name is
 * never "not located" ("lsof -u nobody" exits 0); a number is, in the C
 * locale, where setlocale() has freed nothing before (gvlsof(1),
 * DIFFERENCES: gvlsof always reports it).
 */
static bool missed_users(void)
{
	bool missed = false;

	for (size_t i = 0; i < opt.nuid; i++) {
		if (opt.suid[i].excl || opt.suid[i].found ||
		    opt.suid[i].by_name)
			continue;
		missed = true;
		if (opt.fverbose)
			printf("%s: user ID not located: %lu\n", opt.pn,
			       (unsigned long)opt.suid[i].uid);
	}
	return missed;
}

/*
 * lsof's verdict: was everything asked for found? Each search says (with
 * -V) what it did not find, in lsof's order.
 */
static int exit_status(bool rc_ok)
{
	bool missed = missed_commands();

	missed |= missed_files();
	missed |= missed_addresses();
	missed |= missed_kind(opt.fnet == 1, "no Internet files located", "");
	for (int i = 0; i < ntcp_states; i++)
		missed |= missed_kind(opt.tcp_st_i[i] == 1,
				      "TCP state not located: ", tcp_states[i]);
	missed |= missed_kind(opt.fnfs == 1, "no NFS files located", "");
	missed |= missed_ids(opt.spid, opt.npid, "process ID");
	missed |= missed_kind(opt.ftask == 1, "no tasks located", "");
	missed |= missed_contexts();
	missed |= missed_ids(opt.spgid, opt.npgid, "process group ID");
	missed |= missed_users();
	if (missed && opt.fsearch_err)
		return 1;
	return !rc_ok || opt.err_stat ? 1 : 0;
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

/* The memory and output set up for a listing of the whole system. */
static void prepare(void)
{
	/*
	 * The rounds' buffers are large and short-lived: served from the
	 * heap and kept there, they are not mapped and faulted in anew by
	 * every round.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	/* fetch.c's helper threads allocate from that heap too */
	mallopt(M_ARENA_MAX, 1);
	heap_hugepages();
	/*
	 * A listing is some megabytes: written in 64 KiB pieces, not in the
	 * 4 KiB of a file's or pipe's default buffer (a terminal stays line
	 * buffered).
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, xrealloc(NULL, 64 << 10), _IOFBF, 64 << 10);
}

/* -r: the marker after a cycle (none in JSON) */
static void print_marker(void)
{
	if (opt.json || opt.jsonl)
		return;
	if (opt.ffield) {
		char mark[1024] = "";

		if (opt.rpt_fmt)
			marker_format(mark, sizeof(mark), opt.rpt_fmt);
		printf("m%s", mark);
		putchar(opt.terminator);
		if (opt.terminator != '\n')
			putchar('\n');
	} else {
		char mark[1024] = "=======";

		if (opt.rpt_fmt &&
		    !marker_format(mark, sizeof(mark), opt.rpt_fmt))
			mark[0] = 0;
		puts(mark);
	}
}

int main(int argc, char **argv)
{
	bool rc_ok;
	int pr_count = 0, rv;

	prepare();
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
	rc_ok = !opt.rpt_cond;
	do {
		size_t n = list_cycle();

		if (!opt.rpt_tm) {
			cycle_free();
		} else if (opt.rpt_cond && !n) {
			cycle_free();
			break;
		} else {
			rc_ok = true;
			print_marker();
			check_stdout();
			cycle_free();
			sleep(opt.rpt_tm);
		}
		if (opt.rpt_max_count && ++pr_count == opt.rpt_max_count)
			opt.rpt_tm = 0;
	} while (opt.rpt_tm);
	rv = exit_status(rc_ok);
	check_stdout();
	return rv;
}
