// SPDX-License-Identifier: MIT
/*
 * fds.c - the descriptors of the processes gather.c admitted: which of
 * them can be listed at all (only sockets with -i, only files a name may
 * match with file arguments, anything -d selects when it is ORed), rounds
 * 3 to 5 of getvalues() calls for those that can, and each one's row as
 * lsof's process_id() makes it.
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
	/*
	 * A file must meet the file criteria (all of them with -a). -d is
	 * applied by number, before: with -a to every descriptor (skip),
	 * else it makes the descriptors it selects listable whatever the
	 * rest says (gfd.mode), and this mode is for the others.
	 */
	need &= ~SEL_FD;
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

/* What fd_row() learns of a descriptor on the way to its row. */
struct fdrow {
	struct lfile *lf;
	const char *path;		/* /proc/ID/fd/N */
	const char *pbuf, *rest;	/* the link, split as lsof splits it */
	struct finfo lst, st;
	unsigned ls, ss;		/* SB_* known of each */
	struct fdinfo fi;
	int av;				/* FDI_* read from the fdinfo */
	const struct efsys *ep;		/* an exempt file system (-e) */
	bool lnk;			/* the link was read */
	bool pn;			/* the row is made (lsof's pn) */
};

/*
 * "(readlink: MESSAGE)" of errno @err, made once: a process whose links
 * are refused has a row of it for every descriptor (thousands).
 */
static const char *readlink_note(int err)
{
	static char *note[256];

	if (err < 0 || err >= (int)ARRAY_SIZE(note))
		return sfmt("(readlink: %s)", strerror(err));
	if (!note[err]) {
		const char *m = strerror(err);
		size_t n = strlen(m);

		note[err] = xrealloc(NULL, n + 13);
		memcpy(note[err], "(readlink: ", 11);
		memcpy(note[err] + 11, m, n);
		memcpy(note[err] + 11 + n, ")", 2);
	}
	return note[err];
}

/* The link and the stats: what lsof's readlink, lstat and stat said. */
static void fd_row_stat(struct gid *g, const struct gfd *d, struct fdrow *r)
{
	struct lproc *lp = &procs[g->proc];

	if (!d->link) {
		r->lnk = false;
		r->pn = !opt.fwarn;
		/* the row's first addition: the note itself, not a copy */
		if (r->pn && !r->lf->nma)
			r->lf->nma = readlink_note(d->link_err);
		else if (r->pn)
			add_nma(r->lf, readlink_note(d->link_err));
		return;
	}
	r->lnk = true;
	split_link(d->link, &r->pbuf, &r->rest);
	if (opt.nefsys && (r->ep = isefsys(r->pbuf))) {
		efsys_row(r->lf, r->ep, "UNKNfd", r->pbuf);
		g->efs = true;
		g->lfr = r->lf->sf ? lp->nfiles : SIZE_MAX;
		r->pn = false;
		return;
	}
	if (!d->lst_err)
		r->ls = SB_ALL;
	else if (!opt.fwarn)
		add_nma(r->lf, sfmt("lstat: %s)", strerror(d->lst_err)));
	if (!d->st_err)
		r->ss = SB_ALL;
	else if (!opt.fwarn)
		add_nma(r->lf, sfmt("(stat: %s)", strerror(d->st_err)));
	r->pn = !g->ckscko || ((r->ss & SB_MODE) && r->st.mode == S_IFSOCK);
}

/*
 * The position and flags from the fdinfo. As in lsof, once an exempt
 * file was met in this process, they go to its row, not to this one's.
 */
static void fd_row_info(struct gid *g, const struct gfd *d, struct fdrow *r)
{
	struct lproc *lp = &procs[g->proc];
	struct lfile *lfr = g->lfr != SIZE_MAX ? &lp->files[g->lfr] : NULL;
	struct lfile *t = g->efs ? lfr : r->lf;

	if (d->info_done && d->info) {
		r->av = parse_fdinfo(d->info, d->info_len,
				     fdinfo_mask(r->rest), &r->fi);
	} else if (!d->info_done && (r->ss & SB_MODE) &&
		   (r->st.mode == S_IFSOCK || r->st.mode == S_IFIFO ||
		    pos_always_zero(&r->st))) {
		r->fi.pos = 0;
		r->av = FDI_POS;
	}
	if (!(r->av & FDI_POS)) {
		r->ls &= ~SB_SIZE;
	} else if (!g->efs) {
		r->ls |= SB_SIZE;
		r->lst.size = r->fi.pos;
	} else if (opt.foffset && lfr) {
		lfr->off = r->fi.pos;
		lfr->off_def = true;
	}
	if ((r->av & FDI_FLAGS) && opt.fsv_fg && t) {
		t->ffg = r->fi.flags;
		t->ffg_def = true;
	}
}

/* One descriptor into its row, as lsof's process_id() makes it. */
void fd_row(struct gid *g, struct gfd *d)
{
	struct lproc *lp = &procs[g->proc];
	struct fdrow r = {
		.path = proc_fd_path(g->dir, "/fd/", d->fd),
		.lst = d->lst, .st = d->st,
		.fi = { .eventfd_id = -1, .tty_index = -1, .pid = -1 },
	};
	struct lfile *lf;

	lf = r.lf = alloc_lfile(lp, NULL, d->fd);
	if (!d->link_done && d->link_err < 0) {
		/* a socket or a pipe: named from its stat */
		d->link = r.st.mode == S_IFSOCK ? "socket:" : "pipe:";
	}
	fd_row_stat(g, d, &r);
	if (r.pn || (g->efs && g->lfr != SIZE_MAX))
		fd_row_info(g, d, &r);
	if (r.ep) {
		link_lfile(lp, lf);
		return;
	}
	if (!r.pn)
		return;
	process_proc_node(lp, lf, r.lnk ? r.pbuf : r.path, r.path, &r.st,
			  r.ss, &r.lst, r.ls);
	if (lf->ntype == N_ANON_INODE) {
		if (r.rest && *r.rest)
			enter_nm(lf, anon_decorate(r.rest, &r.fi));
		if (opt.feptE && r.fi.eventfd_id != -1) {
			lf->eventfd_id = r.fi.eventfd_id;
			lf->sf |= SEL_EVTFDINFO;
		}
	} else if (opt.feptE && lf->rdev_def && is_pty_ptmx(lf->rdev) &&
		   (r.av & FDI_TTY)) {
		lf->tty_index = r.fi.tty_index;
		lf->sf |= SEL_PTYINFO;
	}
	link_lfile(lp, lf);
}

/* ------------------------------------------------------------------ */
/* The rounds of a group.                                             */

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

/*
 * 3: what can rule a descriptor out (its link when only sockets can be
 * listed, its device, inode and type when only named files can); with
 * nothing to rule out, the links, which say all of a socket's stat and
 * most of a pipe's.
 */
static bool fetch_pre(const struct gfd *d, bool early)
{
	return d->wanted && (d->mode != FD_FULL || early);
}

static void pre_add(struct gid *gs, size_t n, struct batch *b, bool early)
{
	for_each_gfd(gs, n, g, d) {
		d->wanted = !d->skip && !g->denied;
		if (!fetch_pre(d, early))
			continue;
		if (d->mode != FD_NAME) {
			d->i_pre = batch_add_parts(b, "data:", g->dir, "/fd/",
						   d->fd);
			continue;
		}
		d->i_pre = batch_add_parts(b, "stat:dev:", g->dir, "/fd/",
					   d->fd);
		batch_add_parts(b, "stat:ino:", g->dir, "/fd/", d->fd);
		batch_add_parts(b, "stat:type:", g->dir, "/fd/", d->fd);
	}
}

/* A descriptor only a name argument can select: is it one? */
static bool name_may_match(const struct batch *b, struct gfd *d)
{
	size_t len;
	const char *t = val(b, d->i_pre + 2, &len, &d->st_err);
	dev_t dev;
	uint64_t ino;

	return val_dev(b, d->i_pre, &dev) && val_u64(b, d->i_pre + 1, &ino) &&
	       (sfile_may_match(dev, ino) ||
		(t && len == 4 && !memcmp(t, "sock", 4) && sfile_socket()));
}

static void pre_take(struct gid *gs, size_t n, const struct batch *b,
		     bool early)
{
	for_each_gfd(gs, n, g, d) {
		size_t len;
		const char *v;

		if (!fetch_pre(d, early))
			continue;
		if (d->mode == FD_NAME) {
			d->wanted = name_may_match(b, d);
			continue;
		}
		v = val(b, d->i_pre, &len, &d->link_err);
		d->link_done = true;
		d->link = v ? vdup(v, len) : NULL;
		/* with -i or -U only a socket can be listed */
		if (d->mode == FD_SOCK)
			d->wanted = d->link && !strncmp(d->link, "socket:", 7);
		if (d->wanted)
			from_link(d);
	}
}

/* "lstat:mode:" of a /proc link: the permission bits of the link */
static void lstat_take(const struct batch *b, struct gfd *d)
{
	size_t len;
	const char *v = val(b, d->i_lstat, &len, &d->lst_err);
	unsigned int perm = 0;

	if (!v)
		return;
	/* octal digits, as strtoul(v, NULL, 8) reads them */
	for (size_t i = 0; i < len && v[i] >= '0' && v[i] <= '7'; i++)
		perm = perm * 8 + (unsigned int)(v[i] - '0');
	d->lst.mode = S_IFLNK;
	d->lst.perm = perm;
}

/* The descriptor's fdinfo, from entry @i of @b. */
static void info_take(const struct batch *b, size_t i, struct gfd *d)
{
	size_t len;
	const char *v = val(b, i, &len, &d->info_err);

	d->info = v ? vdup(v, len) : NULL;
	d->info_len = v ? len : 0;
	d->info_done = true;
}

/* "@dir/fd/@fd" into @sub (of @size bytes), as snprintf() would */
static void fd_subpath(char *sub, size_t size, const char *dir, int fd)
{
	size_t ld = strlen(dir);

	if (fd < 0 || ld + 4 + 11 >= size) {
		snprintf(sub, size, "%s/fd/%d", dir, fd);
		return;
	}
	memcpy(sub, dir, ld);
	memcpy(sub + ld, "/fd/", 4);
	utoa(sub + ld + 4, (unsigned int)fd);
}

/* 4: lstat of the link and stat of the file */
static bool fetch_stat(const struct gfd *d)
{
	return d->wanted && !opt.nefsys && !d->st_known;
}

static void stat_add(struct gid *gs, size_t n, struct batch *b)
{
	for_each_gfd(gs, n, g, d) {
		char sub[96];

		if (!fetch_stat(d))
			continue;
		fd_subpath(sub, sizeof(sub), g->dir, d->fd);
		d->i_lstat = batch_add_parts(b, "lstat:mode:", sub, "", -1);
		if (!d->st_pipe)
			d->i_stat = stat_names(b, "stat", sub);
	}
}

static void stat_take(struct gid *gs, size_t n, const struct batch *b)
{
	for_each_gfd(gs, n, g, d) {
		if (!fetch_stat(d))
			continue;
		lstat_take(b, d);
		if (d->st_pipe)
			continue;
		stat_get(b, d->i_stat, &d->st);
		d->st_err = d->st.err;
	}
}

/* 5: links, then fdinfo (that of anonymous inodes needs the link) */
static void link_add(struct gid *gs, size_t n, struct batch *l)
{
	for_each_gfd(gs, n, g, d) {
		d->i_link = d->i_info = SIZE_MAX;
		if (!d->wanted)
			continue;
		if (!d->link_done && (opt.nefsys || needs_link(d)))
			d->i_link = batch_add_parts(l, "data:", g->dir, "/fd/",
						    d->fd);
		if (!opt.nefsys && needs_info(d))
			d->i_info = batch_add_parts(l, "data:", g->dir,
						    "/fdinfo/", d->fd);
	}
}

static void link_take(struct gid *gs, size_t n, const struct batch *l)
{
	for_each_gfd(gs, n, g, d) {
		size_t len;
		const char *v;

		if (d->i_link != SIZE_MAX) {
			v = val(l, d->i_link, &len, &d->link_err);
			d->link = v ? vdup(v, len) : NULL;
			d->link_done = true;
		}
		if (d->i_info != SIZE_MAX)
			info_take(l, d->i_info, d);
	}
}

static void anon_add(struct gid *gs, size_t n, struct batch *b)
{
	for_each_gfd(gs, n, g, d) {
		d->i_info = SIZE_MAX;
		if (d->wanted && needs_anon_info(d))
			d->i_info = batch_add_parts(b, "data:", g->dir,
						    "/fdinfo/", d->fd);
	}
}

static void anon_take(struct gid *gs, size_t n, const struct batch *b)
{
	for_each_gfd(gs, n, g, d)
		if (d->i_info != SIZE_MAX)
			info_take(b, d->i_info, d);
}

/*
 * With -e, what is on an exempt file system is never stat'ed: the links
 * come first, then the lstat, stat and fdinfo of the other descriptors.
 */
static void efsys_fetch(struct gid *gs, size_t n)
{
	struct batch b = { 0 };

	for_each_gfd(gs, n, g, d) {
		const char *pbuf, *rest;
		char sub[96];

		d->i_lstat = SIZE_MAX;
		if (!d->wanted || !d->link)
			continue;
		snprintf(sub, sizeof(sub), "%s/fd/%d", g->dir, d->fd);
		d->i_info = batch_add_parts(&b, "data:", g->dir, "/fdinfo/",
					    d->fd);
		split_link(d->link, &pbuf, &rest);
		if (isefsys(pbuf))
			continue;
		d->i_lstat = batch_add_parts(&b, "lstat:mode:", sub, "", -1);
		d->i_stat = stat_names(&b, "stat", sub);
	}
	batch_run_proc(&b);
	for_each_gfd(gs, n, g, d) {
		if (!d->wanted || !d->link)
			continue;
		info_take(&b, d->i_info, d);
		if (d->i_lstat == SIZE_MAX)
			continue;
		lstat_take(&b, d);
		stat_get(&b, d->i_stat, &d->st);
		d->st_err = d->st.err;
	}
	batch_release(&b);
}

/* Rounds 3 to 5 for the descriptors of the admitted ids of @gs. */
void round_fds(struct gid *gs, size_t n)
{
	/* kept from group to group: the rounds do not grow them again */
	static struct batch b, l;
	bool early = !opt.nefsys;

	pre_add(gs, n, &b, early);
	batch_run_proc(&b);
	pre_take(gs, n, &b, early);
	batch_reset(&b);

	stat_add(gs, n, &b);
	batch_run_proc(&b);
	stat_take(gs, n, &b);
	batch_reset(&b);

	link_add(gs, n, &l);
	batch_run_proc(&l);
	link_take(gs, n, &l);
	batch_reset(&l);
	if (opt.nefsys)
		efsys_fetch(gs, n);

	anon_add(gs, n, &b);
	batch_run_proc(&b);
	anon_take(gs, n, &b);
	batch_reset(&b);
	if (!n) {
		batch_release(&b);
		batch_release(&l);
	}
}
