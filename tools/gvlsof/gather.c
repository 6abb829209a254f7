// SPDX-License-Identifier: MIT
/*
 * gather.c - selection of processes and the rounds of getvalues() calls
 * that collect what their rows need.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* Selection.                                                         */


struct sel sel_pid, sel_uid, sel_cmd;
bool and_mode;

void sel_add_list(struct sel *s, char *arg)
{
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		bool ex = *tok == '^';

		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 8;
			s->items = xrealloc(s->items, s->cap * sizeof(char *));
			s->excl = xrealloc(s->excl, s->cap * sizeof(bool));
			s->found = xrealloc(s->found, s->cap * sizeof(bool));
		}
		s->items[s->n] = tok + ex;
		s->excl[s->n] = ex;
		s->found[s->n] = false;
		s->n++;
	}
}

bool sel_has_incl(const struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->excl[i])
			return true;
	return false;
}

/*
 * 1: selected by an inclusion; 0: not mentioned; -1: excluded. @match
 * compares one item.
 */
static int sel_match(struct sel *s, bool (*match)(const char *, const void *),
		     const void *what)
{
	int r = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (!match(s->items[i], what))
			continue;
		if (s->excl[i])
			return -1;
		s->found[i] = true;
		r = 1;
	}
	return r;
}

static bool match_pid(const char *item, const void *what)
{
	return atoi(item) == *(const int *)what;
}

static bool match_uid(const char *item, const void *what)
{
	uid_t uid;

	return user_uid(item, &uid) && uid == *(const uid_t *)what;
}

static bool match_cmd(const char *item, const void *what)
{
	return !strncmp(item, what, strlen(item));
}

/* lsof: the -p, -u and -c inclusions are ORed, or ANDed with -a. */
bool selected(struct proc *p)
{
	int r[3] = {
		sel_match(&sel_pid, match_pid, &p->pid),
		sel_match(&sel_uid, match_uid, &p->uid),
		sel_match(&sel_cmd, match_cmd, p->cmd),
	};
	const struct sel *s[3] = { &sel_pid, &sel_uid, &sel_cmd };
	bool any = false, all = true, asked = false;

	for (int i = 0; i < 3; i++) {
		if (r[i] < 0)
			return false;
		if (!sel_has_incl(s[i]))
			continue;
		asked = true;
		any |= r[i] > 0;
		all &= r[i] > 0;
	}
	return !asked || (and_mode ? all : any);
}

/* ------------------------------------------------------------------ */
/* Gathering.                                                         */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

void die_call(const char *what, int err)
{
	fprintf(stderr, "%s: getvalues(%s): %s\n", prog, what, strerror(err));
	exit(1);
}

/* Run @b on /proc; a failure of the call itself ends the program. */
static void run_proc(struct batch *b)
{
	int err = b->n ? batch_run(b, PROC) : 0;

	calls += b->calls;
	b->calls = 0;
	if (err)
		die_call(PROC, err);
}

/* Round 0: the PIDs, /proc/locks, our mount namespace. */
void list_processes(void)
{
	struct batch b = { 0 };
	size_t i_dir = SIZE_MAX, i_locks, i_ns, len;
	const char *v;
	int err, *pids = NULL;
	size_t npids = 0, pids_cap = 0;

	/* only -p (or -a with -p): no need to list /proc */
	if (!sel_has_incl(&sel_pid) ||
	    (!and_mode && (sel_has_incl(&sel_uid) || sel_has_incl(&sel_cmd))))
		i_dir = batch_add(&b, "dir:");
	i_locks = batch_add(&b, "data:locks");
	i_ns = batch_add(&b, "stat:ino:self/ns/mnt");
	err = batch_run(&b, PROC);
	calls += b.calls;
	if (err)
		die_call(PROC, err);
	v = val(&b, i_locks, &len, &err);
	locks_load(v, len);
	our_mntns_ok = val_u64(&b, i_ns, &our_mntns);

	if (i_dir != SIZE_MAX) {
		v = val(&b, i_dir, &len, &err);
		if (!v)
			die_call(PROC, err);
		for (const char *s = v; s < v + len; s += strlen(s) + 1) {
			uint64_t pid;

			if (parse_u64(s, 10, &pid) && pid <= INT_MAX) {
				GROW(pids, npids, pids_cap);
				pids[npids++] = pid;
			}
		}
	} else {
		for (size_t i = 0; i < sel_pid.n; i++) {
			uint64_t pid;

			if (sel_pid.excl[i])
				continue;
			if (!parse_u64(sel_pid.items[i], 10, &pid) ||
			    pid > INT_MAX)
				continue;
			GROW(pids, npids, pids_cap);
			pids[npids++] = pid;
		}
	}
	if (npids > 1)
		qsort(pids, npids, sizeof(*pids), cmp_int);
	for (size_t i = 0; i < npids; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		GROW(procs, nprocs, procs_cap);
		procs[nprocs++] = (struct proc){ .pid = pids[i] };
	}
	free(pids);
	batch_free(&b);
}

/* Round 1: command, state and owner; then the selection. */
static void round_identity(struct proc *ps, size_t n)
{
	struct batch b = { 0 };
	int err;

	for (size_t i = 0; i < n; i++) {
		ps[i].i_stat = batch_add(&b, "data:%d/stat", ps[i].pid);
		ps[i].i_uid = batch_add(&b, "stat:uid:%d", ps[i].pid);
	}
	run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		size_t len;
		const char *v = val(&b, p->i_stat, &len, &err);
		const char *open, *close;
		uint64_t uid;

		if (!v || !val_u64(&b, p->i_uid, &uid)) {
			p->gone = true;
			continue;
		}
		/* "pid (comm) S ...": comm may hold anything, even ")" */
		open = memchr(v, '(', len);
		close = v + len;
		while (close > v && close[-1] != ')')
			close--;
		if (!open || close <= open + 1 || close + 2 > v + len) {
			p->gone = true;
			continue;
		}
		p->cmd = sdup_n(open + 1, close - 1 - (open + 1));
		p->uid = uid;
		if (close[1] == 'Z' || !selected(p))
			p->gone = true;		/* lsof lists no zombies */
	}
	batch_free(&b);
}

/* Round 2: cwd, root, exe, maps, mount namespace, descriptors. */
static void round_process(struct proc *ps, size_t n, struct batch *b)
{
	static const char *const links[] = { "cwd", "root", "exe" };

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		char sub[64];

		if (p->gone)
			continue;
		/* the three links share one lookup of PID/ */
		for (int k = 0; k < 3; k++) {
			snprintf(sub, sizeof(sub), "%d/%s", p->pid, links[k]);
			p->i_link[k] = batch_add(b, "data:%s", sub);
			stat_names(b, "stat", sub, &p->i_st[k]);
		}
		p->i_maps = batch_add(b, "data:%d/maps", p->pid);
		p->i_ns = batch_add(b, "stat:ino:%d/ns/mnt", p->pid);
		p->i_fds = batch_add(b, "dir:%d/fd", p->pid);
	}
	run_proc(b);
}

static bool is_denied(int err)
{
	return err == EACCES || err == EPERM;
}

static void collect_fds(struct proc *p, const struct batch *b)
{
	size_t len, cap = 0;
	int err;
	const char *v = val(b, p->i_fds, &len, &err);
	int cwd_err = b->vec[p->i_link[0]].error;

	/*
	 * Another user's process (its fd directory is closed to us), or
	 * one the kernel's ptrace check keeps us out of (its links are):
	 * counted, and left out rather than shown as rows of errors.
	 */
	if (!v || is_denied(cwd_err)) {
		if (is_denied(err) || is_denied(cwd_err))
			denied++;
		p->gone = true;
		return;
	}
	for (const char *s = v; s < v + len; s += strlen(s) + 1) {
		uint64_t fd;

		if (!parse_u64(s, 10, &fd) || fd > INT_MAX)
			continue;
		GROW(p->fds, p->nfds, cap);
		p->fds[p->nfds++] = (struct fdesc){ .fd = fd };
	}
	if (p->nfds > 1)
		qsort(p->fds, p->nfds, sizeof(*p->fds), cmp_int);
}

static void get_info(struct fdesc *d, const struct batch *b)
{
	size_t len;
	int err;
	const char *v = val(b, d->i_info, &len, &err);

	d->info = v ? vdup(v, len) : NULL;
	d->info_len = v ? len : 0;
}

/*
 * The descriptors of @ps: round 3 (lstat, stat), round 4 (links, fdinfo
 * of devices), round 5 (fdinfo of the anonymous inodes lsof decorates).
 */
static void round_fds(struct proc *ps, size_t n)
{
	struct batch b = { 0 }, l = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			char sub[64];

			/* lstat and stat of one link share its directory */
			snprintf(sub, sizeof(sub), "%d/fd/%d", p->pid, d->fd);
			d->i_lstat = batch_add(&b, "lstat:mode:%s", sub);
			stat_names(&b, "stat", sub, &d->i_stat);
		}
	}
	run_proc(&b);

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			size_t len;
			const char *v = val(&b, d->i_lstat, &len, &d->lstat_err);
			char tmp[16];

			if (v && len < sizeof(tmp)) {
				memcpy(tmp, v, len);
				tmp[len] = 0;
				d->perm = strtoul(tmp, NULL, 8);
			}
			stat_get(&b, d->i_stat, &d->fi);
			d->i_link = d->i_info = SIZE_MAX;
			if (d->lstat_err == ENOENT)
				continue;
			if (needs_link(d))
				d->i_link = batch_add(&l, "data:%d/fd/%d",
						      p->pid, d->fd);
			if (needs_info(d))
				d->i_info = batch_add(&l, "data:%d/fdinfo/%d",
						      p->pid, d->fd);
			if (!d->fi.err && d->fi.fmt == S_IFSOCK &&
			    !sockets_loaded)
				sockets_load();
		}
	}
	batch_reset(&b);
	run_proc(&l);

	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];

		for (size_t k = 0; !p->gone && k < p->nfds; k++) {
			struct fdesc *d = &p->fds[k];
			size_t len;

			if (d->i_link != SIZE_MAX) {
				const char *v = val(&l, d->i_link, &len,
						    &d->link_err);

				d->link = v ? vdup(v, len) : NULL;
			}
			if (d->i_info != SIZE_MAX)
				get_info(d, &l);
			if (needs_anon_info(d))
				d->i_info = batch_add(&b, "data:%d/fdinfo/%d",
						      p->pid, d->fd);
		}
	}
	run_proc(&b);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; !ps[i].gone && k < ps[i].nfds; k++) {
			struct fdesc *d = &ps[i].fds[k];

			if (needs_anon_info(d))
				get_info(d, &b);
			fd_row(&ps[i], d);
		}
	batch_free(&b);
	batch_free(&l);
}

void gather_group(struct proc *ps, size_t n)
{
	struct batch b = { 0 };

	round_identity(ps, n);
	round_process(ps, n, &b);
	for (size_t i = 0; i < n; i++) {
		struct proc *p = &ps[i];
		uint64_t ns;
		size_t len;
		int err;
		const char *v;

		if (p->gone)
			continue;
		collect_fds(p, &b);
		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			special_row(p, &b, k);
		p->other_ns = our_mntns_ok && val_u64(&b, p->i_ns, &ns) &&
			      ns != our_mntns;
		v = val(&b, p->i_maps, &len, &err);
		if (v)
			maps_parse(p, v, len);
	}
	batch_free(&b);
	round_fds(ps, n);
}
