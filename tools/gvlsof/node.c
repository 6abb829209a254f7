// SPDX-License-Identifier: MIT
/*
 * node.c - a file into a row, by lsof's rules: its type, device, size or
 * offset, inode, lock and name from what the rounds fetched (stat, lstat
 * of the /proc link, fdinfo); the mem rows of /proc/PID/maps; what lsof
 * adds to anonymous inodes from fdinfo; the -e exemptions.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* Pseudo-terminals.                                                  */

bool is_pty_slave(unsigned maj)
{
	return maj >= 136 && maj < 136 + 8;	/* Unix98 PTY slaves */
}

bool is_pty_ptmx(dev_t dev)
{
	return major(dev) == 5 && minor(dev) == 2;	/* /dev/ptmx */
}

/* ------------------------------------------------------------------ */
/* fdinfo.                                                            */

/*
 * lsof's get_fdinfo(): the values of the lines @msk asks for, with its
 * rules for when to stop reading (tfd: lines last, at most 32 of them).
 */
int parse_fdinfo(const char *v, size_t n, int msk, struct fdinfo *fi)
{
	const char *p = v, *end = v + n, *line;
	size_t len;
	int rv = 0;

	*fi = (struct fdinfo){ .eventfd_id = -1, .tty_index = -1, .pid = -1 };
	while (v && next_line(&p, end, &line, &len)) {
		char tmp[256], *fp[4], *ep;
		unsigned long long ull;
		int flag = 0, nf;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		nf = get_fields(tmp, NULL, fp, 4);
		if (nf < 2 || !*fp[0] || !*fp[1])
			continue;
		if ((msk & FDI_FLAGS) && !strcmp(fp[0], "flags:")) {
			ull = strtoul(fp[1], &ep, 0);
			if (ull == ULONG_MAX || *ep)
				continue;
			fi->flags = (unsigned long)ull;
			if ((rv |= FDI_FLAGS) == msk)
				break;
			continue;
		}
		if ((msk & FDI_POS) && !strcmp(fp[0], "pos:")) {
			ull = strtoull(fp[1], &ep, 0);
			if (ull == ULLONG_MAX || *ep)
				continue;
			fi->pos = ull;
			if ((rv |= FDI_POS) == msk)
				break;
			continue;
		}
		if ((msk & FDI_PID) && !strcmp(fp[0], "Pid:"))
			flag = FDI_PID;
		else if ((msk & FDI_TFD) && !strcmp(fp[0], "tfd:"))
			flag = FDI_TFD;
		else if ((msk & FDI_EVENTFD) && !strcmp(fp[0], "eventfd-id:"))
			flag = FDI_EVENTFD;
		else if ((msk & FDI_TTY) && !strcmp(fp[0], "tty-index:"))
			flag = FDI_TTY;
		if (!flag)
			continue;
		ull = strtoul(fp[1], &ep, 0);
		if (ull == ULONG_MAX || *ep)
			continue;
		{
			int val = (int)ull;

			if (val < 0)
				val = -1;
			rv |= flag;
			switch (flag) {
			case FDI_EVENTFD: fi->eventfd_id = val; break;
			case FDI_TTY: fi->tty_index = val; break;
			case FDI_PID: fi->pid = val; break;
			default:
				if (fi->ntfd < EPOLL_MAX_TFDS)
					fi->tfds[fi->ntfd++] = val;
			}
		}
		if ((flag != FDI_TFD && (rv == msk || (rv & FDI_TFD))) ||
		    (flag == FDI_TFD && rv == msk &&
		     fi->ntfd == EPOLL_MAX_TFDS))
			break;
	}
	return rv;
}

/* The fdinfo lines lsof asks for, by what the link says after ':'. */
int fdinfo_mask(const char *rest)
{
	int msk = FDI_FLAGS | FDI_POS | FDI_TTY;

	if (rest && !strncmp(rest, "[event", 6)) {
		if (rest[6] == 'f')
			msk |= FDI_EVENTFD;
		else if (rest[6] == 'p')
			msk |= FDI_TFD;
	}
	if (rest && rest[0] == '[' && rest[1] == 'p')
		msk |= FDI_PID;
	return msk;
}

/* "[eventpoll]" with its targets: "[eventpoll:3,5...]" */
static char *eventpoll_name(const struct fdinfo *fi)
{
	int tfds[EPOLL_MAX_TFDS];
	size_t n = fi->ntfd, o;
	char *s = salloc(16 + 12 * n);

	memcpy(tfds, fi->tfds, n * sizeof(*tfds));
	qsort(tfds, n, sizeof(*tfds), cmp_int);
	o = sprintf(s, "[eventpoll:");
	for (size_t i = 0; i < n; i++)
		o += sprintf(s + o, "%s%d", i ? "," : "", tfds[i]);
	strcpy(s + o, n == EPOLL_MAX_TFDS ? "...]" : "]");
	return s;
}

/* The NAME of an anonymous inode, decorated from fdinfo as lsof does. */
const char *anon_decorate(const char *rest, const struct fdinfo *fi)
{
	if (fi->eventfd_id != -1 && !strcmp(rest, "[eventfd]"))
		return sfmt("[eventfd:%d]", fi->eventfd_id);
	if (fi->pid != -1 && !strcmp(rest, "[pidfd]"))
		return sfmt("[pidfd:%d]", fi->pid);
	if (fi->ntfd > 0 && !strcmp(rest, "[eventpoll]"))
		return eventpoll_name(fi);
	return rest;
}

/* ------------------------------------------------------------------ */
/* -e, +e                                                             */

/*
 * lsof's isefsys(): is @path on an exempt file system? With @lf, the row
 * is filled as lsof fills it: not stat'ed, type @type ("UNKNcwd"...).
 */
const struct efsys *isefsys(const char *path)
{
	size_t len = strlen(path);

	for (size_t i = opt.nefsys; i-- > 0;) {
		const struct efsys *ep = &opt.efsys[i];

		if (ep->pathl <= len && !strncmp(ep->path, path, ep->pathl))
			return ep;
	}
	return NULL;
}

void efsys_row(struct lfile *lf, const struct efsys *ep, const char *type,
	       const char *path)
{
	bool ds = false;

	if (ep->mp && ep->mp->stat_ok) {
		lf->dev = ep->mp->dev;
		lf->dev_def = ds = true;
		lf->rdev = ep->mp->rdev;
		lf->rdev_def = true;
	}
	if (!ds)
		enter_dev_ch(lf, "UNKNOWN");
	lf->ntype = N_UNKN;
	snprintf(lf->type, sizeof(lf->type), "%s", type ? type : "UNKN");
	enter_nm(lf, path);
	add_nma(lf, sfmt("(%ce %s)", ep->rdlnk ? '+' : '-', ep->path));
}

/* ------------------------------------------------------------------ */
/* A node.                                                            */

/*
 * The device, raw device, NFS mount and inode of the row (its lock comes
 * after the gathering: locks_settle()).
 */
static const struct mounts *node_ids(struct lfile *lf, const char *p,
				     const struct finfo *s, unsigned ss)
{
	const struct mounts *mp = NULL;

	if (ss & SB_DEV) {
		lf->dev = s->dev;
		lf->dev_def = true;
	}
	if ((lf->ntype == N_CHR || lf->ntype == N_BLK) && (ss & SB_RDEV)) {
		lf->rdev = s->rdev;
		lf->rdev_def = true;
		if (opt.feptE && lf->ntype == N_CHR &&
		    is_pty_slave(major(lf->rdev)))
			lf->sf |= SEL_PTYINFO;
	}
	if (lf->ntype == N_REGLR && has_nfs == 2) {
		for (const struct mounts *m = readmnt(); m; m = m->next)
			if (m->nfs && m->stat_ok && lf->dev_def &&
			    lf->dev == m->dev && m->dirl &&
			    !strncmp(m->dir, p, m->dirl)) {
				lf->ntype = N_NFS;
				mp = m;
				break;
			}
	}
	if (ss & SB_INO) {
		lf->inode = s->ino;
		lf->inp_ty = 1;
		if (opt.feptE) {
			if (lf->ntype == N_FIFO)
				lf->sf |= SEL_PINFO;
			else if (mqueue_known && lf->dev == mqueue_dev)
				lf->sf |= SEL_PSXMQINFO;
		}
	}
	return mp;
}

/* SIZE/OFF (the position is the link's lstat size) and the link count */
static void node_size(struct lfile *lf, const struct finfo *s, unsigned ss,
		      const struct finfo *l, unsigned ls)
{
	bool pos = l && (ls & SB_SIZE);

	switch (lf->ntype) {
	case N_BLK:
	case N_CHR:
	case N_FIFO:
		if (!opt.fsize && pos) {
			lf->off = l->size;
			lf->off_def = true;
		}
		break;
	default:
		if (opt.foffset) {
			if (pos) {
				lf->off = l->size;
				lf->off_def = true;
			}
		} else if (ss & SB_SIZE) {
			lf->sz = s->size;
			lf->sz_def = true;
		}
	}
	if (opt.fnlink && (ss & SB_NLINK)) {
		lf->nlink = (long)s->nlink;
		lf->nlink_def = true;
		if (opt.nlink && lf->nlink < opt.nlink)
			lf->sf |= SEL_NLINK;
	}
}

/* The TYPE column, from the file's mode (@type) when it is known. */
static void node_type_name(struct lfile *lf, unsigned type, unsigned ss)
{
	const char *tn;

	if (!(ss & SB_MODE)) {
		tn = "unknown";
	} else {
		switch (type) {
		case S_IFBLK: tn = "BLK"; break;
		case S_IFCHR: tn = "CHR"; break;
		case S_IFDIR: tn = "DIR"; break;
		case S_IFIFO: tn = "FIFO"; break;
		case S_IFREG:
			tn = mqueue_known && lf->dev == mqueue_dev ? "PSXMQ" :
								     "REG";
			break;
		case S_IFLNK: tn = "LINK"; break;
		default:
			if (lf->ntype != N_ANON_INODE) {
				snprintf(lf->type, sizeof(lf->type), "%04o",
					 (type >> 12) & 0xf);
				return;
			}
			tn = "a_inode";
		}
	}
	/* every name above fits TYPEL */
	memcpy(lf->type, tn, strlen(tn) + 1);
}

/*
 * lsof's process_proc_node(): @p is the file's path (the link target),
 * @pbr the /proc path it was read from, @s its stat with the fields @ss
 * (SB_*) known, @l the lstat of the /proc link for descriptors (NULL for
 * cwd, txt...), whose size is the fdinfo position when @ls has SB_SIZE.
 */
void process_proc_node(struct lproc *lp, struct lfile *lf, const char *p,
		       const char *pbr, const struct finfo *s, unsigned ss,
		       const struct finfo *l, unsigned ls)
{
	const struct mounts *mp;
	unsigned type = 0;

	if (l && (ls & SB_MODE) && l->mode == S_IFLNK) {
		unsigned m = l->perm & (S_IRUSR | S_IWUSR);

		lf->access = m == S_IRUSR ? 'r' : m == S_IWUSR ? 'w' : 'u';
	}
	if (ss & SB_MODE) {
		type = s->mode;
		switch (type) {
		case S_IFBLK: lf->ntype = N_BLK; break;
		case S_IFCHR: lf->ntype = N_CHR; break;
		case S_IFIFO: lf->ntype = N_FIFO; break;
		case S_IFSOCK:
			process_proc_sock(lp, lf, p, pbr, s, ss, l, ls);
			return;
		case 0:
			if (!strcmp(p, "anon_inode"))
				lf->ntype = N_ANON_INODE;
			break;
		}
	}
	if (opt.sel_inet)
		return;
	mp = node_ids(lf, p, s, ss);
	node_size(lf, s, ss, l, ls);
	node_type_name(lf, type, ss);
	if (lf->ntype == N_NFS && opt.fnfs)
		lf->sf |= SEL_NFS;
	if (opt.nsfile && is_file_named(lf, 1, p, mp,
					type == S_IFCHR || type == S_IFBLK))
		lf->sf |= SEL_NM;
	if (!lf->nm) {
		if (lf->ntype == N_NFS && mp && mp->fsname)
			lf->nm = sfmt("%s (%s)", p, mp->fsname);
		else
			lf->nm = sdup(p);
	}
}

/* ------------------------------------------------------------------ */
/* mem rows.                                                          */

/*
 * The lines of /proc/PID/maps that lsof shows, first as pending rows: the
 * stat(2) of their paths, in our mount namespace as lsof makes it, is
 * fetched for the whole system at once (mem_stat_all()), one getvalues()
 * call per directory holding mapped files.
 */
struct mapped {
	const char *path, *dir, *base;
	struct finfo fi;
	bool done;
	struct mapped *next;	/* of the same hash */
};

struct pending_mem {
	size_t proc, file;	/* the row */
	dev_t dev;
	uint64_t ino;
	bool deleted;
	const struct efsys *ep;
	struct mapped *m;
};

static struct map mapped_by_hash;
static struct mapped **mapped;
static size_t nmapped, mapped_cap;
static struct pending_mem *pend;
static size_t npend, pend_cap;

static struct mapped *mapped_get(const char *path)
{
	uint64_t h = hash_str(path);
	struct mapped *m = map_get(&mapped_by_hash, h);

	for (; m; m = m->next)
		if (!strcmp(m->path, path))
			return m;
	m = salloc_aligned(sizeof(*m));
	*m = (struct mapped){ .path = path,
			      .next = map_get(&mapped_by_hash, h) };
	map_put(&mapped_by_hash, h, m);
	m->base = strrchr(path, '/');
	if (!m->base) {
		m->dir = ".";
		m->base = path;
	} else {
		m->dir = m->base == path ? "/" : sdup_n(path, m->base - path);
		m->base++;
	}
	GROW(mapped, nmapped, mapped_cap);
	mapped[nmapped++] = m;
	return m;
}

/* The files of one maps text already given a row. */
struct seen {
	struct { dev_t dev; uint64_t ino; } *f;
	size_t n, cap;
};

/* Whether file @dev, @ino had a row in @s; if not, it has now. */
static bool map_seen(struct seen *s, dev_t dev, uint64_t ino)
{
	/* a file's mappings mostly follow each other: the last first */
	for (size_t i = s->n; i-- > 0;)
		if (s->f[i].dev == dev && s->f[i].ino == ino)
			return true;
	GROW(s->f, s->n, s->cap);
	s->f[s->n].dev = dev;
	s->f[s->n++].ino = ino;
	return false;
}

/*
 * A maps line of anonymous memory, "START-END PERM OFFSET MM:mm INODE ":
 * the kernel ends the five fields with a blank, and a line with a path
 * has more blanks before it (the padding, at least one). Most lines of a
 * process are such, and none of them is listed: dropped unparsed.
 */
static bool no_path(const char *line, size_t len)
{
	int blanks = 0;

	if (!len || line[len - 1] != ' ')
		return false;
	for (size_t i = 0; i < len && blanks <= 5; i++)
		blanks += line[i] == ' ';
	return blanks == 5;
}

/* lsof's process_proc_map(), up to the stat of each path. */
void process_proc_map(struct lproc *lp, const char *v, size_t n,
		      const struct finfo *txt, bool txt_ok, bool name_only)
{
	const char *q = v, *end = v + n, *line;
	struct seen seen = { 0 };
	size_t len;

	while (v && next_line(&q, end, &line, &len)) {
		/* most lines are dropped: parsed in a copy on the stack */
		char buf[512], *copy, *fp[6], *path, *ep;
		unsigned long maj, min;
		uint64_t ino;
		struct pending_mem *pm;
		struct lfile *lf;
		bool deleted = false;
		size_t pl;
		dev_t dev;
		int nf;

		if (no_path(line, len))
			continue;
		if (len < sizeof(buf)) {
			copy = memcpy(buf, line, len);
			copy[len] = 0;
		} else {
			copy = sdup_n(line, len);
		}
		/* six fields, then the path: the rest, blanks and all */
		nf = get_fields(copy, ":", fp, 6);
		if (nf < 6)
			continue;
		path = fp[5] + strlen(fp[5]) + 1;
		if (path > copy + len)
			continue;
		while (*path == ' ' || *path == '\t')
			path++;
		if (!*path)
			continue;
		pl = strlen(path);
		if (pl > 10 && !strcmp(path + pl - 10, " (deleted)")) {
			path[pl - 10] = 0;
			deleted = true;
		}
		maj = strtoul(fp[3], &ep, 16);
		if (!*fp[3] || *ep)
			continue;
		min = strtoul(fp[4], &ep, 16);
		if (!*fp[4] || *ep)
			continue;
		if (!parse_u64(fp[5], 0, &ino))
			continue;
		dev = makedev(maj, min);
		if (!dev && !ino)
			continue;
		if (txt_ok && dev == txt->dev && ino == txt->ino)
			continue;
		/* only a file a name argument may match can be listed */
		if (name_only && !sfile_may_match(dev, ino))
			continue;
		if (map_seen(&seen, dev, ino))
			continue;
		if (copy == buf)
			path = sdup(path);
		lf = alloc_lfile(lp, "mem", -1);
		(void)lf;
		GROW(pend, npend, pend_cap);
		pm = &pend[npend++];
		*pm = (struct pending_mem){
			.proc = lp - procs, .file = lp->nfiles, .dev = dev,
			.ino = ino, .deleted = deleted,
		};
		/* kept until the stat is in; the row is finished then */
		lp->nfiles++;
		lp->files[pm->file].nm = path;
		pm->ep = opt.nefsys ? isefsys(path) : NULL;
		if (!pm->ep)
			pm->m = mapped_get(path);
	}
	free(seen.f);
}

static int cmp_mapped(const void *a, const void *b)
{
	const struct mapped *x = *(struct mapped *const *)a;
	const struct mapped *y = *(struct mapped *const *)b;

	return strcmp(x->dir, y->dir);
}

/* stat(2) of @m as $ORIGIN: for a name too long to be a SUBPATH. */
static void stat_one(struct mapped *m)
{
	if (stat_path(m->path, &m->fi, true))
		m->fi = (struct finfo){ .err = errno };
}

/*
 * One getvalues() call per directory holding mapped files, the files as
 * SUBPATHs of one component: a SUBPATH may not cross into another mount,
 * and mapped files live on many.
 */
void mem_stat_all(void)
{
	struct batch b = { 0 };
	size_t i = 0, *first;

	if (!nmapped)
		return;
	first = xrealloc(NULL, nmapped * sizeof(*first));
	qsort(mapped, nmapped, sizeof(*mapped), cmp_mapped);
	while (i < nmapped) {
		const char *dir = mapped[i]->dir;
		size_t j, k;
		int err;

		for (j = i; j < nmapped && !strcmp(mapped[j]->dir, dir); j++)
			first[j] = stat_names(&b, "stat", mapped[j]->base);
		err = opt.fblock && has_nfs ? EWOULDBLOCK : batch_run(&b, dir);
		for (k = i; k < j; k++) {
			if (err)
				mapped[k]->fi = (struct finfo){ .err = err };
			else
				stat_get(&b, first[k], &mapped[k]->fi);
			if (mapped[k]->fi.err == ENAMETOOLONG)
				stat_one(mapped[k]);
		}
		batch_reset(&b);
		i = j;
	}
	free(first);
	batch_release(&b);
}

/* A mapped file on an exempt file system: the maps line only, no stat. */
static void mem_row_exempt(struct lfile *lf, const struct pending_mem *pm,
			   const char *path)
{
	lf->dev = pm->dev;
	lf->inode = pm->ino;
	lf->dev_def = true;
	lf->inp_ty = 1;
	enter_nm(lf, path);
	snprintf(lf->type, sizeof(lf->type), "%s",
		 pm->deleted ? "UNKNdel" : "UNKNmem");
	add_nma(lf, sfmt("(%ce %s)", pm->ep->rdlnk ? '+' : '-',
			 pm->ep->path));
}

/*
 * The path's stat is not the mapped file's: a deleted file's row is DEL,
 * another's says what differs, as lsof says it.
 */
static void mem_row_differs(struct lfile *lf, const struct pending_mem *pm,
			    const struct finfo *fi)
{
	const char *sep = "(path ";

	if (pm->deleted) {
		snprintf(lf->fd, sizeof(lf->fd), "DEL");
		return;
	}
	if (opt.fwarn)
		return;
	if (fi->err) {
		add_nma(lf, sfmt("(stat: %s)", strerror(fi->err)));
		return;
	}
	if (fi->dev != pm->dev) {
		add_nma(lf, sfmt("(path dev=%d,%d%s", major(fi->dev),
				 minor(fi->dev), fi->ino == pm->ino ? ")" :
								      ","));
		sep = "";
	}
	if (fi->ino != pm->ino)
		add_nma(lf, sfmt("%sinode=%llu)", sep,
				 (unsigned long long)fi->ino));
}

/* A mapped file's row, from its path's stat (one stat per path). */
static void mem_row(struct lproc *lp, struct lfile *lf,
		    const struct pending_mem *pm, const char *path)
{
	const struct finfo *fi = &pm->m->fi;
	bool full = !fi->err && fi->dev == pm->dev && fi->ino == pm->ino;
	struct finfo sb = { .mode = S_IFREG, .dev = pm->dev, .ino = pm->ino };

	if (!full)
		mem_row_differs(lf, pm, fi);
	if (!strcmp(lf->fd, "DEL")) {
		/* lsof makes the row anew as DEL */
		lf->sf = (lp->pss & PS_PRI) ? lp->sf : 0;
		if (opt.nfdl && fd_selects("DEL", -1))
			lf->sf |= SEL_FD;
	}
	if (full)
		sb = *fi;
	process_proc_node(lp, lf, path, path, &sb,
			  full ? SB_ALL : SB_DEV | SB_INO | SB_MODE, NULL, 0);
}

/* The pending mem rows finished from the stat of their paths. */
void mem_rows_finish(void)
{
	for (size_t k = 0; k < npend; k++) {
		struct pending_mem *pm = &pend[k];
		struct lproc *lp = &procs[pm->proc];
		struct lfile *lf = &lp->files[pm->file];
		char *path = lf->nm;

		lf->nm = NULL;
		if (pm->ep)
			mem_row_exempt(lf, pm, path);
		else
			mem_row(lp, lf, pm, path);
		if (!lf->sf || (lf->sf & SEL_EXCLF))
			lf->sf = 0;		/* not listed */
		else
			link_counters(lp, lf);
	}
	free(pend);
	pend = NULL;
	npend = pend_cap = 0;
	free(mapped);
	mapped = NULL;
	nmapped = mapped_cap = 0;
	map_free(&mapped_by_hash);
}
