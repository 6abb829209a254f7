// SPDX-License-Identifier: MIT
/*
 * gather.c - the rounds of getvalues() calls that collect what the rows
 * need, for up to GROUP_PROCS processes (or tasks) at a time, with
 * $ORIGIN /proc:
 *
 *   0. the PIDs (dir:), /proc/locks and our mount table, once;
 *   1. identity: data:PID/stat, stat:uid:PID (and with -K, dir:PID/task
 *      and then data:PID/task/TID/stat); then the selection by PID, PGID,
 *      user and command, so that an excluded process is never read again;
 *   2. cwd, root and exe (link and stat), maps, and the list of the
 *      descriptors;
 *   3. to 5. in fds.c: per descriptor, what can rule it out (its link
 *      when only sockets can be listed, its device and inode when only
 *      named files can), then for those still wanted the lstat of the
 *      /proc link and the stat of the file, then links and fdinfo.
 *
 * Consecutive names use the ":REST" shorthand and are ordered so that the
 * library reuses one statx per object and one directory lookup per
 * /proc/PID/fd. Rows are then built in lsof's order (node.c, sock.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"

struct lproc *procs;
size_t nprocs;
static size_t procs_cap;
static size_t gather_seq;

/* lsof's Cckreg and Ckscko: only socket files are examined */
static bool cckreg, ckscko;

/* ------------------------------------------------------------------ */
/* Identity.                                                          */

/*
 * lsof's read_id_stat(): the command (between the first "(" and its
 * matching ")", counting parentheses), the parent and group IDs, and
 * whether it is a zombie (1) or stopped (2). -1 when unreadable.
 */
static int read_id_stat(const char *v, size_t len, int id, char **cmd,
			int *ppid, int *pgid, int *nthreads)
{
	const char *p = v, *end = v + len, *c;
	char *fp[20], *rest;
	int nf;
	size_t o = 0;
	int pc = 1;
	char *buf;

	if (!v || !len)
		return -1;
	if (atoi(p) != id)
		return -1;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '(')
		return -1;
	buf = salloc(end - p);
	for (c = p + 1; c < end; c++) {
		if (*c == '(')
			pc++;
		if (*c == ')' && !--pc)
			break;
		buf[o++] = *c == '\n' ? '\n' : *c;
	}
	if (c >= end)
		return -1;
	buf[o] = 0;
	*cmd = buf;
	rest = sdup_n(c + 1, end - c - 1);
	if ((nf = get_fields(rest, NULL, fp, 20)) < 3)
		return -1;
	/* field 20, num_threads: 1 says there is no task but the process */
	*nthreads = nf >= 18 ? atoi(fp[17]) : 2;
	*ppid = atoi(fp[1]);
	*pgid = atoi(fp[2]);
	if (!strcmp(fp[0], "Z"))
		return 1;
	if (!strcmp(fp[0], "T"))
		return 2;
	return 0;
}

static struct lproc *alloc_lproc(const struct gid *g, unsigned pss,
				 unsigned sf)
{
	struct lproc *lp;

	GROW(procs, nprocs, procs_cap);
	lp = &procs[nprocs++];
	*lp = (struct lproc){
		.pid = g->pid, .ppid = g->ppid, .pgid = g->pgid, .uid = g->uid,
		.cmd = g->cmd, .pss = pss, .sf = sf, .tid = g->tid,
		.tcmd = g->tcmd, .cntx = g->cntx, .seq = gather_seq++,
	};
	return lp;
}

/* ------------------------------------------------------------------ */
/* Rounds.                                                            */

static bool want_tasks(void)
{
	return !opt.ign_tasks && (opt.sel_flags & SEL_TASK);
}

/* lsof's process_id(), up to allocating the process: NULL if excluded */
static struct lproc *admit(struct gid *g)
{
	unsigned pss, sf;
	struct lproc *lp;
	bool excl;

	excl = is_proc_excl(g->pid, g->pgid, g->uid, &pss, &sf, g->tid) ||
	       is_cmd_excl(g->cmd, &pss, &sf);
	/*
	 * With -E an excluded process is still read, for the ends of its
	 * files, with the selection state lsof's checks left when they
	 * excluded it.
	 */
	if (excl && !opt.feptE)
		return NULL;
	if (cckreg && !opt.feptE)
		ckscko = (sf & opt.sel_proc) ? false : true;
	lp = alloc_lproc(g, pss, sf);
	if (opt.fcntx && lp->cntx && opt.ncntx)
		is_cntx_sel(lp);
	g->ckscko = ckscko;
	g->proc = lp - procs;
	return lp;
}

static void add_file_names(struct batch *b, struct gid *g)
{
	static const char *const links[] = { "cwd", "root", "exe" };
	static const char *const fds[] = { " cwd", " rtd", "txt" };
	struct lproc *lp = &procs[g->proc];

	g->mode = fd_mode(lp, g->ckscko);
	for (int k = 0; k < 3; k++) {
		char sub[96];

		g->i_link[k] = g->i_st[k] = SIZE_MAX;
		if (g->ckscko || !fd_may_select(lp, fds[k], -1))
			continue;
		/* the link and its stat share one lookup of PID/ */
		snprintf(sub, sizeof(sub), "%s/%s", g->dir, links[k]);
		g->i_link[k] = batch_add(b, "data:%s", sub);
		if (!opt.nefsys)
			g->i_st[k] = stat_names(b, "stat", sub);
	}
	g->i_maps = SIZE_MAX;
	if (!g->ckscko && (fd_may_select(lp, "mem", -1) ||
			   fd_may_select(lp, "DEL", -1)))
		g->i_maps = batch_add(b, "data:%s/maps", g->dir);
	g->i_fds = batch_add(b, "dir:%s/fd", g->dir);
}

static const char *value_str(const struct batch *b, size_t i, int *err)
{
	size_t len;
	const char *v;

	if (i == SIZE_MAX) {
		*err = -1;
		return NULL;
	}
	v = val(b, i, &len, err);
	return v ? vdup(v, len) : NULL;
}

/* cwd, rtd, txt: lsof's rows, with its messages for what failed */
static void special_rows(struct gid *g, const struct batch *b,
			 struct finfo *txt, bool *txt_ok)
{
	static const char *const links[] = { "cwd", "root", "exe" };
	static const char *const fds[] = { " cwd", " rtd", "txt" };
	static const char *const unkn[] = { "UNKNcwd", "UNKNrtd", "UNKNtxt" };
	struct lproc *lp = &procs[g->proc];

	*txt_ok = false;
	for (int k = 0; k < 3; k++) {
		char *path = sfmt(PROC "/%s/%s", g->dir, links[k]);
		struct finfo sb = { 0 };
		const char *link;
		struct lfile *lf;
		unsigned ss = 0;
		int err;
		bool pn;

		if (g->i_link[k] == SIZE_MAX)
			continue;
		lf = alloc_lfile(lp, fds[k], -1);
		link = value_str(b, g->i_link[k], &err);
		if (!link && (err == EACCES || err == EPERM))
			g->denied = err;
		if (!link || !*link) {
			if (!link && !opt.fwarn) {
				if (k != 2 || err != ENOENT || g->uid)
					add_nma(lf, sfmt("(readlink: %s)",
							 strerror(err)));
				pn = true;
			} else {
				pn = false;
			}
			if (pn)
				process_proc_node(lp, lf, path, path, &sb, 0,
						  NULL, 0);
			if (pn)
				link_lfile(lp, lf);
			continue;
		}
		if (opt.nefsys) {
			const struct efsys *ep = isefsys(link);

			if (ep) {
				efsys_row(lf, ep, unkn[k], link);
				if (k == 0) {
					g->efs = true;
					g->lfr = lf->sf ? lp->nfiles : SIZE_MAX;
				}
				link_lfile(lp, lf);
				continue;
			}
			if (stat_path(path, &sb, true))
				sb.err = errno;
		} else {
			stat_get(b, g->i_st[k], &sb);
		}
		if (!sb.err) {
			ss = SB_ALL;
			if (k == 2) {
				*txt = sb;
				*txt_ok = true;
			}
		} else if (!opt.fwarn) {
			add_nma(lf, sfmt("(stat: %s)", strerror(sb.err)));
		}
		process_proc_node(lp, lf, link, path, &sb, ss, NULL, 0);
		link_lfile(lp, lf);
	}
}

/* The list of descriptors, or lsof's NOFD row. */
static void list_fds(struct gid *g, const struct batch *b)
{
	struct lproc *lp = &procs[g->proc];
	size_t len, cap = 0;
	const char *v = val(b, g->i_fds, &len, &g->fds_err);
	bool ok;

	if (!v) {
		if (!opt.fwarn) {
			struct lfile *lf = alloc_lfile(lp, "NOFD", -1);

			add_nma(lf, sfmt(PROC "/%s/fd (opendir: %s)", g->dir,
					 strerror(g->fds_err)));
			link_lfile(lp, lf);
		}
		return;
	}
	for (const char *s = v; s < v + len; s += strlen(s) + 1)
		cap++;
	g->fds = xrealloc(NULL, (cap ? cap : 1) * sizeof(*g->fds));
	reserve_lfiles(lp, cap);
	for (const char *s = v; s < v + len; s++) {
		uint64_t fd = 0;
		const char *e = s;

		/* a name of digits (parse_u64() without strtoull) */
		for (; *e >= '0' && *e <= '9' && fd <= INT_MAX; e++)
			fd = fd * 10 + (uint64_t)(*e - '0');
		ok = e != s && !*e && fd <= INT_MAX;
		s = e + strlen(e);
		if (!ok)
			continue;
		g->fds[g->nfds++] = (struct gfd){
			.fd = (int)fd, .skip = !fd_may_select(lp, NULL, fd),
			/* -d ORed lists it, whatever the other criteria */
			.mode = fd_lists(NULL, fd) ? FD_FULL : g->mode,
			.lst_err = -1, .st_err = -1, .link_err = -1,
			.info_err = -1,
		};
	}
	/* the kernel lists them in order; lsof prints them as read */
	for (size_t i = 1; i < g->nfds; i++)
		if (g->fds[i].fd < g->fds[i - 1].fd) {
			qsort(g->fds, g->nfds, sizeof(*g->fds), cmp_int);
			break;
		}
}

/* Round 2 and the rows of the admitted ids of @gs, in order. */
static void gather_files(struct gid *gs, size_t n)
{
	static struct batch b;

	for (size_t i = 0; i < n; i++)
		if (gs[i].proc != SIZE_MAX)
			add_file_names(&b, &gs[i]);
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];
		struct finfo txt;
		bool txt_ok;
		size_t len;
		int err;
		const char *v;

		if (g->proc == SIZE_MAX)
			continue;
		special_rows(g, &b, &txt, &txt_ok);
		if (g->i_maps != SIZE_MAX &&
		    (v = val(&b, g->i_maps, &len, &err)))
			process_proc_map(&procs[g->proc], v, len, &txt, txt_ok,
					 g->mode == FD_NAME &&
					 !fd_lists("mem", -1) &&
					 !fd_lists("DEL", -1));
		list_fds(g, &b);
	}
	batch_reset(&b);
	if (!n)
		batch_release(&b);
	round_fds(gs, n);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];

			/*
			 * The kernel's ptrace check that refused the cwd link
			 * refuses every descriptor's link and fdinfo alike:
			 * lsof's rows of errors, without asking again.
			 */
			if (g->denied && !d->skip && d->mode == FD_FULL) {
				d->link_err = g->denied;
				d->link_done = true;
				d->wanted = true;
			}
			if (d->wanted)
				fd_row(g, d);
		}
		free(g->fds);
	}
}

/* Round 1 of a group of processes: what it learns, and the ids admitted. */
struct group {
	const int *pids;
	size_t n;
	struct gid *mains;	/* per PID: the process */
	size_t *i_task;		/* per PID: its dir:PID/task in @t */
	size_t *first;		/* per PID: its first task's stat in @ts */
	struct batch t, ts;
	bool tasks;		/* -K: tasks are listed */
	struct gid *gs;		/* the admitted ids, in lsof's order */
	size_t ngs, gcap;
};

/* The identity of one process, from round 1's batch @b. */
static void take_identity(struct group *gr, size_t i, const struct batch *b,
			  size_t i_uid, size_t i_stat, size_t i_cntx)
{
	struct gid *m = &gr->mains[i];
	int pid = gr->pids[i], err = 0, nthreads = 1;
	size_t len;
	uint64_t uid;
	const char *v;

	m->pid = pid;
	m->rv = -1;
	gr->i_task[i] = SIZE_MAX;
	if (!val_u64(b, i_uid, &uid))
		return;
	m->uid = (uid_t)uid;
	v = val(b, i_stat, &len, &err);
	m->rv = read_id_stat(v, len, pid, &m->cmd, &m->ppid, &m->pgid,
			     &nthreads);
	if (m->rv < 0)
		return;
	if (i_cntx != SIZE_MAX && (v = val(b, i_cntx, &len, &err)))
		m->cntx = sdup_n(v, strnlen(v, len));
	else if (opt.fcntx && !opt.fwarn)
		m->cntx = sfmt("(getpidcon: %s)", strerror(err));
	/* the tasks are listed only where there are some */
	if (gr->tasks && nthreads != 1)
		gr->i_task[i] = batch_add(&gr->t, "dir:%d/task", pid);
}

/* Identities: uid, stat (and context) of every PID; the task lists. */
static void round_identity(struct group *gr)
{
	struct batch b = { 0 };
	size_t n = gr->n, *i_stat = xrealloc(NULL, n * sizeof(size_t) * 3);
	size_t *i_uid = i_stat + n, *i_cntx = i_stat + 2 * n;

	for (size_t i = 0; i < n; i++) {
		i_uid[i] = batch_add(&b, "stat:uid:%d", gr->pids[i]);
		i_stat[i] = batch_add(&b, "data:%d/stat", gr->pids[i]);
		i_cntx[i] = opt.fcntx ? batch_add(&b, "data:%d/attr/current",
						  gr->pids[i]) : SIZE_MAX;
	}
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++)
		take_identity(gr, i, &b, i_uid[i], i_stat[i], i_cntx[i]);
	batch_release(&b);
	free(i_stat);
	batch_run_proc(&gr->t);
}

/* The next TID of a dir:PID/task list, false at its end. */
static bool next_tid(const char **s, const char *end, int *tid)
{
	while (*s < end) {
		uint64_t t;
		bool ok = parse_u64(*s, 10, &t) && t <= INT_MAX;

		*s += strlen(*s) + 1;
		if (ok) {
			*tid = (int)t;
			return true;
		}
	}
	return false;
}

/* The tasks' stat of every process that has tasks. */
static void round_tasks(struct group *gr)
{
	for (size_t i = 0; i < gr->n; i++) {
		size_t len;
		int err, tid;
		const char *v, *s;

		gr->first[i] = gr->ts.n;
		if (gr->i_task[i] == SIZE_MAX ||
		    !(v = val(&gr->t, gr->i_task[i], &len, &err)))
			continue;
		for (s = v; next_tid(&s, v + len, &tid);)
			batch_add(&gr->ts, "data:%d/task/%d/stat", gr->pids[i],
				  tid);
	}
	batch_run_proc(&gr->ts);
}

static void group_keep(struct group *gr, const struct gid *g)
{
	GROW(gr->gs, gr->ngs, gr->gcap);
	gr->gs[gr->ngs++] = *g;
}

/*
 * The tasks of process @i, each admitted as lsof admits it. Returns
 * whether one was; *@pidts whether the process is one of its own tasks.
 */
static bool admit_tasks(struct group *gr, size_t i, bool *pidts)
{
	const struct gid *main = &gr->mains[i];
	size_t len, k = gr->first[i];
	const char *v, *s;
	int err, tid;
	bool ht = false;

	*pidts = false;
	if (gr->i_task[i] == SIZE_MAX ||
	    !(v = val(&gr->t, gr->i_task[i], &len, &err)))
		return false;
	for (s = v; next_tid(&s, v + len, &tid);) {
		struct gid g = *main;
		size_t tl;
		const char *tv = val(&gr->ts, k++, &tl, &err);
		int nt;

		if (tid == main->pid) {
			*pidts = true;
			continue;
		}
		g.tid = tid;
		g.rv = read_id_stat(tv, tl, g.tid, &g.tcmd, &g.ppid, &g.pgid,
				    &nt);
		if (g.rv < 0 || g.rv == 1)
			continue;
		snprintf(g.dir, sizeof(g.dir), "%d/task/%d", main->pid, g.tid);
		g.proc = SIZE_MAX;
		g.lfr = SIZE_MAX;
		if (!admit(&g))
			continue;
		ht = true;
		group_keep(gr, &g);
	}
	return ht;
}

/* Each process after its tasks, admitted as lsof admits it. */
static void admit_group(struct group *gr)
{
	for (size_t i = 0; i < gr->n; i++) {
		struct gid main = gr->mains[i];
		bool ht, pidts;

		if (main.rv < 0)
			continue;
		ht = admit_tasks(gr, i, &pidts);
		if (main.rv == 1)
			continue;
		snprintf(main.dir, sizeof(main.dir), "%d", main.pid);
		main.proc = SIZE_MAX;
		main.lfr = SIZE_MAX;
		/* with -a, -K lists the process as one of its tasks */
		main.tid = (opt.fand && ht && pidts && gr->tasks) ? main.pid :
								    0;
		if (admit(&main)) {
			if (main.tid)
				procs[main.proc].tid = 0;
			group_keep(gr, &main);
		}
	}
}

/*
 * Round 1 for the PIDs @pids: identities, tasks, and the admission of
 * each id in lsof's order (a process's tasks before the process); then
 * rounds 2 to 5 for those admitted.
 */
static void gather_group(const int *pids, size_t n)
{
	struct group gr = {
		.pids = pids, .n = n, .tasks = want_tasks(),
		.mains = xcalloc(n, sizeof(*gr.mains)),
		.i_task = xrealloc(NULL, 2 * n * sizeof(size_t)),
	};

	gr.first = gr.i_task + n;
	round_identity(&gr);
	round_tasks(&gr);
	admit_group(&gr);
	batch_release(&gr.ts);
	batch_release(&gr.t);
	free(gr.i_task);
	free(gr.mains);
	gather_files(gr.gs, gr.ngs);
	free(gr.gs);
}

/* The PIDs of /proc's listing @v (@len bytes), in order. */
static int *pids_listed(const char *v, size_t len, size_t *npids)
{
	size_t cap = 0;
	int *pids = NULL;

	*npids = 0;
	for (const char *s = v; s < v + len; s += strlen(s) + 1) {
		uint64_t pid;

		if (parse_u64(s, 10, &pid) && pid <= INT_MAX &&
		    *s >= '0' && *s <= '9') {
			GROW(pids, *npids, cap);
			pids[(*npids)++] = (int)pid;
		}
	}
	if (*npids > 1)
		qsort(pids, *npids, sizeof(*pids), cmp_int);
	return pids;
}

/* The PIDs of -p, each once, in order: no listing of /proc needed. */
static int *pids_given(size_t *npids)
{
	size_t cap = 0, m = 1;
	int *pids = NULL;

	*npids = 0;
	for (size_t i = 0; i < opt.npid; i++)
		if (!opt.spid[i].x) {
			GROW(pids, *npids, cap);
			pids[(*npids)++] = opt.spid[i].id;
		}
	if (*npids <= 1)
		return pids;
	qsort(pids, *npids, sizeof(*pids), cmp_int);
	/* a PID given twice is one process */
	for (size_t k = 1; k < *npids; k++)
		if (pids[k] != pids[m - 1])
			pids[m++] = pids[k];
	*npids = m;
	return pids;
}

/*
 * Round 0: our mount table, and the PIDs (NULL: /proc cannot be listed).
 */
static int *round_zero(size_t *npids)
{
	struct batch b = { 0 };
	size_t i_dir = SIZE_MAX, i_mnt = SIZE_MAX, len;
	int *pids = NULL, err;
	const char *v;

	/* -p alone (or ANDed) needs no listing of /proc */
	if (!(opt.sel_flags & SEL_PID) || opt.feptE ||
	    (!opt.fand && opt.sel_flags != SEL_PID))
		i_dir = batch_add(&b, "dir:");
	if (!opt.sel_inet && !mounts_loaded())
		i_mnt = batch_add(&b, "data:self/mountinfo");
	batch_run_proc(&b);
	if (i_mnt != SIZE_MAX) {
		/* as lsof, which reads its mount table first */
		v = val(&b, i_mnt, &len, &err);
		if (!v)
			die_mountinfo(err);
		mounts_parse(v, len);
	}
	if (!opt.sel_inet && (opt.fblock || opt.mnt_sup))
		readmnt();
	if (i_dir == SIZE_MAX)
		pids = pids_given(npids);
	else if ((v = val(&b, i_dir, &len, &err)))
		pids = pids_listed(v, len, npids);
	else
		die("can't open %s", PROC);
	batch_release(&b);
	return pids;
}

/* lsof's choice of checking only sockets (Cckreg, Ckscko) */
static void socket_checking(void)
{
	unsigned f = opt.sel_flags;

	if (!(f & SEL_NW)) {
		cckreg = ckscko = false;
	} else if (opt.fand || !(f & ~SEL_NW)) {
		cckreg = false;
		ckscko = true;
	} else if ((f & SEL_FILE) || !(f & opt.sel_proc)) {
		cckreg = ckscko = false;
	} else {
		cckreg = ckscko = true;
	}
}

/* The FD column's lock character of every file with a device and inode. */
static void locks_apply(void)
{
	for (size_t i = 0; i < nprocs; i++) {
		struct lproc *lp = &procs[i];

		for (size_t k = 0; k < lp->nfiles; k++) {
			struct lfile *lf = &lp->files[k];

			if (lf->dev_def && lf->inp_ty == 1)
				lf->lock = lock_char(lp->pid, lf->dev,
						     lf->inode);
		}
	}
}

/* Round 0 and every group. */
void gather_proc_info(void)
{
	size_t npids;
	int *pids;

	stat_nlink = opt.fnlink;
	gather_seq = 0;
	/* the whole system, or its network files: sockets will be met */
	if (opt.all_proc || !(opt.sel_flags & ~SEL_NW))
		net_prefetch();
	locks_prefetch();
	pids = round_zero(&npids);
	socket_checking();
	for (size_t i = 0; i < npids; i += GROUP_PROCS)
		gather_group(pids + i, npids - i < GROUP_PROCS ? npids - i :
							 GROUP_PROCS);
	free(pids);
	locks_settle();
	locks_apply();
	net_settle();
	mem_stat_all();
	mem_rows_finish();
}

void procs_free(void)
{
	gather_files(NULL, 0);		/* frees the rounds' batches */
	for (size_t i = 0; i < nprocs; i++)
		free(procs[i].files);
	free(procs);
	procs = NULL;
	nprocs = procs_cap = 0;
}
