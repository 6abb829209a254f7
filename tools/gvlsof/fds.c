// SPDX-License-Identifier: MIT
/*
 * fds.c - the descriptors of the processes gather.c admitted: which of
 * them can be listed at all (only sockets with -i, only files a name may
 * match with file arguments), rounds 3 to 5 of getvalues() calls for those
 * that can, and each one's row as lsof's process_id() makes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gather.h"

/* ------------------------------------------------------------------ */
/* The mode of a process's descriptors.                               */

/* the selection criteria a file can meet on its own */
#define FILE_CRIT	(SEL_FD | SEL_NA | SEL_NET | SEL_NFS | SEL_NLINK | \
			 SEL_NM | SEL_UNX)

enum fdmode fd_mode(const struct lproc *lp, bool sck)
{
	unsigned base = (lp->pss & PS_PRI) ? lp->sf : 0;
	unsigned need = opt.sel_flags & FILE_CRIT;

	if (opt.feptE)
		return sck ? FD_SOCK : FD_FULL;
	if (sck)
		return FD_SOCK;
	if (!opt.fand && base)
		return FD_FULL;
	/* a file must meet the file criteria (all of them with -a) */
	need &= ~SEL_FD;	/* -d is applied by number, before */
	if (!need)
		return FD_FULL;
	if (need == SEL_NM)
		return FD_NAME;
	if (opt.fand && (need & SEL_NM))
		return FD_NAME;
	if (!(need & ~(SEL_NA | SEL_NET | SEL_UNX)))
		return FD_SOCK;
	if (opt.fand && (need & (SEL_NA | SEL_NET | SEL_UNX)))
		return FD_SOCK;
	return FD_FULL;
}

static bool is_pipe(const struct finfo *fi)
{
	return pipefs_known && !fi->err && fi->mode == S_IFIFO &&
	       fi->dev == pipefs_dev;
}

/*
 * /dev/null, /dev/zero and /dev/full: their lseek() pins the position at
 * 0 and their reads and writes never move it, so fdinfo would say 0.
 */
static bool pos_always_zero(const struct finfo *fi)
{
	return fi->mode == S_IFCHR && major(fi->rdev) == 1 &&
	       (minor(fi->rdev) == 3 || minor(fi->rdev) == 5 ||
		minor(fi->rdev) == 7);
}

/*
 * Whether the fdinfo must be read for what lsof shows of this file; the
 * position of a pipe, FIFO or socket is never moved by the kernel (their
 * reads and writes ignore it, their lseek(2) fails), so it is 0 without
 * reading it.
 */
static bool needs_info(const struct gfd *d)
{
	const struct finfo *s = &d->st;

	if (opt.fsv_fg || d->st_err)
		return opt.fsv_fg;
	if (s->mode == S_IFSOCK || s->mode == S_IFIFO)
		return false;
	if (s->mode == S_IFCHR || s->mode == S_IFBLK) {
		if (opt.feptE && is_pty_ptmx(s->rdev))
			return true;
		return !opt.fsize && !pos_always_zero(s);
	}
	return opt.foffset;
}

/* the link: sockets and pipes are named without it */
static bool needs_link(const struct gfd *d)
{
	return d->st_err || (d->st.mode != S_IFSOCK && !is_pipe(&d->st));
}

/* lsof's rest of "anon_inode:[eventfd]" */
static void split_link(const char *link, const char **pbuf,
		       const char **rest)
{
	const char *colon;

	*rest = NULL;
	*pbuf = link;
	if (link[0] == '/' || !(colon = strchr(link, ':')))
		return;
	*pbuf = sdup_n(link, colon - link);
	*rest = colon + 1;
}

static bool needs_anon_info(const struct gfd *d)
{
	const char *pbuf, *rest;

	if (d->info_done || d->st_err || d->st.mode || !d->link)
		return false;
	split_link(d->link, &pbuf, &rest);
	return !strcmp(pbuf, "anon_inode") && rest &&
	       fdinfo_mask(rest) != fdinfo_mask(NULL);
}

/* One descriptor into its row, as lsof's process_id() makes it. */
void fd_row(struct gid *g, struct gfd *d)
{
	struct lproc *lp = &procs[g->proc];
	char *path = sfmt(PROC "/%s/fd/%d", g->dir, d->fd);
	const char *pbuf = NULL, *rest = NULL;
	struct finfo lst = d->lst, st = d->st;
	struct fdinfo fi = { .eventfd_id = -1, .tty_index = -1, .pid = -1 };
	const struct efsys *ep = NULL;
	unsigned ls = 0, ss = 0;
	struct lfile *lf;
	bool pn, lnk;
	int av = 0;

	lf = alloc_lfile(lp, NULL, d->fd);
	if (!d->link_done && d->link_err < 0) {
		/* a socket or a pipe: named from its stat */
		d->link = st.mode == S_IFSOCK ? "socket:" : "pipe:";
	}
	if (!d->link) {
		lnk = false;
		if (!opt.fwarn) {
			add_nma(lf, sfmt("(readlink: %s)",
					 strerror(d->link_err)));
			pn = true;
		} else {
			pn = false;
		}
	} else {
		lnk = true;
		split_link(d->link, &pbuf, &rest);
		if (opt.nefsys && (ep = isefsys(pbuf))) {
			efsys_row(lf, ep, "UNKNfd", pbuf);
			g->efs = true;
			g->lfr = lf->sf ? lp->nfiles : SIZE_MAX;
			pn = false;
		} else {
			if (!d->lst_err)
				ls = SB_ALL;
			else if (!opt.fwarn)
				add_nma(lf, sfmt("lstat: %s)",
						 strerror(d->lst_err)));
			if (!d->st_err)
				ss = SB_ALL;
			else if (!opt.fwarn)
				add_nma(lf, sfmt("(stat: %s)",
						 strerror(d->st_err)));
			pn = !g->ckscko || ((ss & SB_MODE) &&
					    st.mode == S_IFSOCK);
		}
	}
	/*
	 * As in lsof, once an exempt file was met in this process, the
	 * position and flags read from fdinfo go to its row, not to this
	 * one's.
	 */
	if (pn || (g->efs && g->lfr != SIZE_MAX)) {
		struct lfile *lfr = g->lfr != SIZE_MAX ?
				    &lp->files[g->lfr] : NULL;

		if (d->info_done && d->info) {
			av = parse_fdinfo(d->info, d->info_len,
					  fdinfo_mask(rest), &fi);
		} else if (!d->info_done && (ss & SB_MODE) &&
			   (st.mode == S_IFSOCK || st.mode == S_IFIFO ||
			    pos_always_zero(&st))) {
			fi.pos = 0;
			av = FDI_POS;
		}
		if (av & FDI_POS) {
			if (g->efs) {
				if (opt.foffset && lfr) {
					lfr->off = fi.pos;
					lfr->off_def = true;
				}
			} else {
				ls |= SB_SIZE;
				lst.size = fi.pos;
			}
		} else {
			ls &= ~SB_SIZE;
		}
		if ((av & FDI_FLAGS) && opt.fsv_fg) {
			struct lfile *t = g->efs ? lfr : lf;

			if (t) {
				t->ffg = fi.flags;
				t->ffg_def = true;
			}
		}
	}
	if (ep) {
		link_lfile(lp, lf);
		return;
	}
	if (!pn)
		return;
	process_proc_node(lp, lf, lnk ? pbuf : path, path, &st, ss, &lst, ls);
	if (lf->ntype == N_ANON_INODE) {
		if (rest && *rest)
			enter_nm(lf, anon_decorate(rest, &fi));
		if (opt.feptE && fi.eventfd_id != -1) {
			lf->eventfd_id = fi.eventfd_id;
			lf->sf |= SEL_EVTFDINFO;
		}
	} else if (opt.feptE && lf->rdev_def && is_pty_ptmx(lf->rdev) &&
		   (av & FDI_TTY)) {
		lf->tty_index = fi.tty_index;
		lf->sf |= SEL_PTYINFO;
	}
	link_lfile(lp, lf);
}

/* ------------------------------------------------------------------ */
/* The rounds of a group.                                             */

/*
 * With -e, what is on an exempt file system is never stat'ed: the links
 * come first, then the lstat, stat and fdinfo of the other descriptors.
 */
static void efsys_fetch(struct gid *gs, size_t n)
{
	struct batch b = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			const char *pbuf, *rest;
			char sub[96];

			d->i_lstat = SIZE_MAX;
			if (!d->wanted || !d->link)
				continue;
			snprintf(sub, sizeof(sub), "%s/fd/%d", g->dir, d->fd);
			d->i_info = batch_add_parts(&b, "data:", g->dir,
						    "/fdinfo/", d->fd);
			split_link(d->link, &pbuf, &rest);
			if (isefsys(pbuf))
				continue;
			d->i_lstat = batch_add_parts(&b, "lstat:mode:", sub,
						     "", -1);
			d->i_stat = stat_names(&b, "stat", sub);
		}
	}
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			size_t len;
			const char *v;

			if (!d->wanted || !d->link)
				continue;
			v = val(&b, d->i_info, &len, &d->info_err);
			d->info = v ? vdup(v, len) : NULL;
			d->info_len = v ? len : 0;
			d->info_done = true;
			if (d->i_lstat == SIZE_MAX)
				continue;
			v = val(&b, d->i_lstat, &len, &d->lst_err);
			if (v) {
				char tmp[16];

				snprintf(tmp, sizeof(tmp), "%.*s", (int)len, v);
				d->lst.mode = S_IFLNK;
				d->lst.perm = (unsigned)strtoul(tmp, NULL, 8);
			}
			stat_get(&b, d->i_stat, &d->st);
			d->st_err = d->st.err;
		}
	}
	batch_free(&b);
}

/*
 * A socket's or a pipe's link, "socket:[INODE]" or "pipe:[INODE]", says
 * what their stat would: the inode, on sockfs or pipefs (whose devices
 * gvlsof learns from its own), of a type, size 0 and one link. A socket
 * is always open for reading and writing (sock_alloc_file()), so its
 * link's lstat is known too; a pipe's end is one or the other, and its
 * lstat is still asked for. An O_PATH descriptor of a socket file links
 * to the file's path, and is stat'ed as any file.
 */
static void from_link(struct gfd *d)
{
	const char *l = d->link, *ep;
	bool sock;
	uint64_t ino;
	char *end;

	if (!l || opt.nefsys)
		return;
	if (!strncmp(l, "socket:[", 8) && sockfs_known)
		sock = true;
	else if (!strncmp(l, "pipe:[", 6) && pipefs_known)
		sock = false;
	else
		return;
	ep = strchr(l, '[') + 1;
	errno = 0;
	ino = strtoull(ep, &end, 10);
	if (errno || end == ep || strcmp(end, "]"))
		return;
	d->st = (struct finfo){
		.mode = sock ? S_IFSOCK : S_IFIFO,
		.dev = sock ? sockfs_dev : pipefs_dev,
		.ino = ino, .nlink = 1,
	};
	d->st_err = 0;
	if (sock) {
		d->lst = (struct finfo){ .mode = S_IFLNK, .perm = 0700 };
		d->lst_err = 0;
		d->st_known = true;
	} else {
		d->st_pipe = true;
	}
}

/* Rounds 3 to 5 for the descriptors of the admitted ids of @gs. */
void round_fds(struct gid *gs, size_t n)
{
	/* kept from group to group: the rounds do not grow them again */
	static struct batch b, l;
	bool early = !opt.nefsys;

	/*
	 * 3: what can rule a descriptor out; with nothing to rule out, the
	 * links, which say all of a socket's stat and most of a pipe's
	 */
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];

			d->wanted = !d->skip && !g->denied;
			if (!d->wanted || (g->mode == FD_FULL && !early))
				continue;
			if (g->mode != FD_NAME) {
				d->i_pre = batch_add_parts(&b, "data:", g->dir,
							   "/fd/", d->fd);
			} else {
				d->i_pre = batch_add_parts(&b, "stat:dev:",
							   g->dir, "/fd/",
							   d->fd);
				batch_add_parts(&b, "stat:ino:", g->dir, "/fd/",
						d->fd);
				batch_add_parts(&b, "stat:type:", g->dir,
						"/fd/", d->fd);
			}
		}
	}
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			size_t len;

			if (!d->wanted || (g->mode == FD_FULL && !early))
				continue;
			if (g->mode != FD_NAME) {
				const char *v = val(&b, d->i_pre, &len,
						    &d->link_err);

				d->link_done = true;
				d->link = v ? vdup(v, len) : NULL;
				/* with -i or -U only a socket can be listed */
				if (g->mode == FD_SOCK)
					d->wanted = d->link &&
						    !strncmp(d->link, "socket:",
							     7);
				if (d->wanted)
					from_link(d);
			} else {
				const char *t = val(&b, d->i_pre + 2, &len,
						    &d->st_err);
				dev_t dev;
				uint64_t ino;

				d->wanted = val_dev(&b, d->i_pre, &dev) &&
					    val_u64(&b, d->i_pre + 1, &ino) &&
					    (sfile_may_match(dev, ino) ||
					     (t && len == 4 &&
					      !memcmp(t, "sock", 4) &&
					      sfile_socket()));
			}
		}
	}
	batch_reset(&b);

	/* 4: lstat of the link and stat of the file */
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			char sub[96];

			if (!d->wanted || opt.nefsys || d->st_known)
				continue;
			snprintf(sub, sizeof(sub), "%s/fd/%d", g->dir, d->fd);
			d->i_lstat = batch_add_parts(&b, "lstat:mode:", sub,
						     "", -1);
			if (!d->st_pipe)
				d->i_stat = stat_names(&b, "stat", sub);
		}
	}
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			size_t len;
			const char *v;

			if (!d->wanted || opt.nefsys || d->st_known)
				continue;
			v = val(&b, d->i_lstat, &len, &d->lst_err);
			if (v) {
				char tmp[16];

				snprintf(tmp, sizeof(tmp), "%.*s", (int)len, v);
				d->lst.mode = S_IFLNK;
				d->lst.perm = (unsigned)strtoul(tmp, NULL, 8);
			}
			if (d->st_pipe)
				continue;
			stat_get(&b, d->i_stat, &d->st);
			d->st_err = d->st.err;
		}
	}
	batch_reset(&b);

	/* 5: links, then fdinfo (that of anonymous inodes needs the link) */
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];

			d->i_link = d->i_info = SIZE_MAX;
			if (!d->wanted)
				continue;
			if (!d->link_done && (opt.nefsys || needs_link(d)))
				d->i_link = batch_add_parts(&l, "data:", g->dir,
							    "/fd/", d->fd);
			if (!opt.nefsys && needs_info(d))
				d->i_info = batch_add_parts(&l, "data:", g->dir,
							    "/fdinfo/", d->fd);
		}
	}
	batch_run_proc(&l);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			size_t len;
			const char *v;

			if (d->i_link != SIZE_MAX) {
				v = val(&l, d->i_link, &len, &d->link_err);
				d->link = v ? vdup(v, len) : NULL;
				d->link_done = true;
			}
			if (d->i_info != SIZE_MAX) {
				v = val(&l, d->i_info, &len, &d->info_err);
				d->info = v ? vdup(v, len) : NULL;
				d->info_len = v ? len : 0;
				d->info_done = true;
			}
		}
	}
	batch_reset(&l);
	if (opt.nefsys)
		efsys_fetch(gs, n);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];

			d->i_info = SIZE_MAX;
			if (d->wanted && needs_anon_info(d))
				d->i_info = batch_add_parts(&b, "data:", g->dir,
							    "/fdinfo/", d->fd);
		}
	}
	batch_run_proc(&b);
	for (size_t i = 0; i < n; i++) {
		struct gid *g = &gs[i];

		for (size_t k = 0; g->proc != SIZE_MAX && k < g->nfds; k++) {
			struct gfd *d = &g->fds[k];
			size_t len;
			const char *v;

			if (d->i_info == SIZE_MAX)
				continue;
			v = val(&b, d->i_info, &len, &d->info_err);
			d->info = v ? vdup(v, len) : NULL;
			d->info_len = v ? len : 0;
			d->info_done = true;
		}
	}
	batch_reset(&b);
	batch_reset(&l);
	if (!n) {
		batch_free(&b);
		batch_free(&l);
	}
}
