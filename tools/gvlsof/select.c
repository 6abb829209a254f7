// SPDX-License-Identifier: MIT
/*
 * select.c - which processes and files are listed, by lsof's rules: the
 * exclusions first, then the process criteria (-p, -g, -u, -c, -K, -Z)
 * ORed, or ANDed with -a, then the file criteria (-d, -i, -U, -N, +L,
 * names); and the rows (struct lfile) they mark as selected.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gvlsof.h"

/* -u ^, -g ^, -p ^: an exclusion comes before any selection */
static bool excluded_by_id(int pid, int pgid, uid_t uid)
{
	for (size_t i = 0; i < opt.nuid; i++)
		if (opt.suid[i].excl && opt.suid[i].uid == uid)
			return true;
	for (size_t i = 0; i < opt.npgid; i++)
		if (opt.spgid[i].x && opt.spgid[i].id == pgid)
			return true;
	for (size_t i = 0; i < opt.npid; i++)
		if (opt.spid[i].x && opt.spid[i].id == pid)
			return true;
	return false;
}

/* The -p or -g entry of @id in @l, marked found; NULL if none. */
static struct int_lst *id_selected(struct int_lst *l, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (!l[i].x && l[i].id == id) {
			l[i].found = true;
			return &l[i];
		}
	return NULL;
}

static bool uid_selected(uid_t uid)
{
	for (size_t i = 0; i < opt.nuid; i++)
		if (!opt.suid[i].excl && opt.suid[i].uid == uid) {
			opt.suid[i].found = true;
			return true;
		}
	return false;
}

/*
 * lsof's is_proc_excl(): true when the process (or task) is excluded;
 * *@pss and *@sf say whether and by what a process criterion selected it.
 */
bool is_proc_excl(int pid, int pgid, uid_t uid, unsigned *pss, unsigned *sf,
		  int tid)
{
	unsigned f = opt.sel_flags;
	unsigned ids = SEL_PGID | SEL_PID | SEL_UID | SEL_TASK;

	*pss = *sf = 0;
	if (excluded_by_id(pid, pgid, uid))
		return true;
	if (opt.all_proc) {
		*pss = PS_PRI;
		*sf = opt.sel_all;
		return false;
	}
	if (opt.npgidi && (f & SEL_PGID)) {
		if (id_selected(opt.spgid, opt.npgid, pgid)) {
			*pss = PS_PRI;
			*sf = SEL_PGID;
		}
		if (f == SEL_PGID)
			return !*sf;
	}
	if (opt.npidi && (f & SEL_PID)) {
		if (id_selected(opt.spid, opt.npid, pid)) {
			*pss = PS_PRI;
			*sf |= SEL_PID;
		}
		if (f == SEL_PID)
			return !*sf;
	}
	if (opt.nuidincl && (f & SEL_UID)) {
		if (uid_selected(uid)) {
			*pss = PS_PRI;
			*sf |= SEL_UID;
		}
		if (f == SEL_UID)
			return !(*sf & SEL_UID);
	}
	if ((f & SEL_TASK) && tid) {
		*pss = PS_PRI;
		*sf |= SEL_TASK;
		if (f == SEL_TASK || (opt.fand && (*sf & f) == f))
			return false;
	}
	if (!*sf)
		return opt.fand && (f & ids);
	if (f & ids)
		return opt.fand && (f & ids) != *sf;
	return opt.fand;
}

/* lsof's is_cmd_excl(): by -c names (prefixes) and /regular expressions/ */
bool is_cmd_excl(const char *cmd, unsigned *pss, unsigned *sf)
{
	for (size_t i = 0; opt.ncmdx && i < opt.ncmdl; i++) {
		const struct str_lst *s = &opt.cmdl[i];

		if (s->x && !strncmp(s->str, cmd, s->len))
			return true;
	}
	if (!(opt.sel_flags & SEL_CMD))
		return false;
	/* lsof keeps them newest first */
	for (size_t i = opt.ncmdl; i-- > 0;) {
		struct str_lst *s = &opt.cmdl[i];

		if (!s->x && !strncmp(s->str, cmd, s->len)) {
			s->found = true;
			*pss |= PS_PRI;
			*sf |= SEL_CMD;
			return false;
		}
	}
	for (size_t i = 0; i < opt.ncmdrx; i++)
		if (!regexec(&opt.cmdrx[i].cx, cmd, 0, NULL, 0)) {
			opt.cmdrx[i].found = true;
			*pss |= PS_PRI;
			*sf |= SEL_CMD;
			return false;
		}
	if (opt.sel_flags == SEL_CMD)
		return true;
	return opt.fand;
}

/* -Z: the process's context against the patterns (fnmatch, as lsof) */
bool is_cntx_sel(struct lproc *lp)
{
	for (size_t i = opt.ncntx; lp->cntx && i-- > 0;)
		if (!fnmatch(opt.cntx_args[i], lp->cntx, 0)) {
			opt.cntx_found[i] = true;
			lp->pss |= PS_PRI;
			lp->sf |= SEL_CNTX;
			return true;
		}
	return false;
}

/* lsof's is_file_sel() */
bool is_file_sel(const struct lproc *lp, const struct lfile *lf)
{
	(void)lp;
	if (!lf || !lf->sf || (lf->sf & SEL_EXCLF))
		return false;
	if (opt.all_proc)
		return true;
	if (opt.fand && (lf->sf & opt.sel_flags) != opt.sel_flags)
		return false;
	return true;
}

/*
 * lsof's ck_fd_status(): 0 neither included nor excluded by -d, 1
 * excluded, 2 included. @nm: "cwd"... or NULL for descriptor @num.
 */
int ck_fd_status(const char *nm, int num)
{
	if (!opt.nfdl || (!nm && num < 0))
		return 0;
	while (nm && *nm == ' ')
		nm++;
	for (size_t i = opt.nfdl; i-- > 0;) {
		const struct fd_lst *f = &opt.fdl[i];
		bool hit = nm ? (f->nm && !strcmp(f->nm, nm)) :
				(num >= f->lo && num <= f->hi);

		if (hit)
			return opt.fdl_ty == 1 ? 1 : 2;
	}
	return 0;
}

/* Whether -d selects descriptor (or special file) @nm/@num: SEL_FD. */
bool fd_selects(const char *nm, int num)
{
	int fds = ck_fd_status(nm, num);

	return opt.fdl_ty == 0 ? fds == 2 : fds != 1;
}

/*
 * Whether -d alone makes @nm/@num listable, whatever the file is: it is
 * ORed with the other criteria (no -a) and selects it.
 */
bool fd_lists(const char *nm, int num)
{
	return opt.nfdl && !opt.fand && fd_selects(nm, num);
}

/*
 * Whether descriptor (or special file) @nm/@num of @lp can be listed at
 * all: when -d is the only file criterion, or is ANDed, a descriptor it
 * does not select is never fetched.
 */
bool fd_may_select(const struct lproc *lp, const char *nm, int num)
{
	if (!opt.nfdl || opt.feptE || fd_selects(nm, num))
		return true;
	/* not selected by -d: only another criterion can list it */
	if (opt.fand)
		return false;
	if (opt.sel_flags == SEL_FD)
		return false;
	if ((lp->pss & PS_PRI) && (lp->sf & ~SEL_FD))
		return true;
	return (opt.sel_flags & ~(SEL_FD | opt.sel_proc)) != 0;
}

/* ------------------------------------------------------------------ */
/* Rows.                                                              */

/* Room for @n more rows of @lp, so that its array grows once. */
void reserve_lfiles(struct lproc *lp, size_t n)
{
	if (lp->cap - lp->nfiles >= n)
		return;
	lp->cap = lp->nfiles + n;
	lp->files = xrealloc(lp->files, lp->cap * sizeof(*lp->files));
}

/* "%4d" of @num, 0 to 9999, without printf: the FD of most rows */
static void fd_text(char *fd, int num)
{
	char t[UTOA_MAX];
	int n = utoa(t, (unsigned int)num), pad = 4 - n;

	memset(fd, ' ', pad);
	memcpy(fd + pad, t, n + 1);
}

/* lsof's alloc_lfile(): a new row of @lp, with -d applied. */
struct lfile *alloc_lfile(struct lproc *lp, const char *nm, int num)
{
	struct lfile *lf;

	GROW(lp->files, lp->nfiles, lp->cap);
	lf = &lp->files[lp->nfiles];
	*lf = (struct lfile){
		.access = ' ', .lock = ' ', .lts = { .type = -1 },
		.eventfd_id = -1, .tty_index = -1, .ntype = N_REGLR,
	};
	if (lp->pss & PS_PRI)
		lf->sf = lp->sf;
	if (nm)
		snprintf(lf->fd, sizeof(lf->fd), "%.*s", FDLEN - 1, nm);
	else if (num >= 0 && num < 10000)
		fd_text(lf->fd, num);
	else if (num >= 0)
		snprintf(lf->fd, sizeof(lf->fd), "*%03d", num % 1000);
	if (opt.nfdl && (nm || num >= 0) && fd_selects(nm, nm ? -1 : num))
		lf->sf |= SEL_FD;
	return lf;
}

/*
 * lsof's link_lfile(): keep the row built last, if it is selected at all;
 * otherwise its slot is reused by the next alloc_lfile().
 */
void link_lfile(struct lproc *lp, struct lfile *lf)
{
	if (lf != &lp->files[lp->nfiles])
		return;
	if (!lf->sf || (lf->sf & SEL_EXCLF))
		return;
	if (opt.feptE) {
		static const struct { unsigned sel, ept; } m[] = {
			{ SEL_PINFO, EPT_PIPE }, { SEL_PSXMQINFO, EPT_PSXMQ },
			{ SEL_UXSINFO, EPT_UXS }, { SEL_PTYINFO, EPT_PTY },
			{ SEL_NETSINFO, EPT_NETS }, { SEL_NETS6INFO, EPT_NETS6 },
			{ SEL_EVTFDINFO, EPT_EVTFD },
		};

		for (size_t i = 0; i < ARRAY_SIZE(m); i++)
			if (lf->sf & m[i].sel) {
				lp->ept |= m[i].ept;
				lf->sf &= ~m[i].sel;
			}
	}
	lp->nfiles++;
	link_counters(lp, lf);
}

/* What keeping a row tells: its process and the -i, -N, -K searches. */
void link_counters(struct lproc *lp, const struct lfile *lf)
{
	if (lf->sf)
		lp->pss |= PS_SEC;
	if (opt.fnet && (lf->sf & SEL_NET))
		opt.fnet = 2;
	if (opt.fnfs && (lf->sf & SEL_NFS))
		opt.fnfs = 2;
	if (opt.ftask && (lf->sf & SEL_TASK))
		opt.ftask = 2;
}

/* the NAME column addition, words separated by a space */
void add_nma(struct lfile *lf, const char *s)
{
	if (!s || !*s)
		return;
	lf->nma = lf->nma ? sfmt("%s %s", lf->nma, s) : sdup(s);
}

void enter_nm(struct lfile *lf, const char *s)
{
	lf->nm = sdup(s);
}

void enter_dev_ch(struct lfile *lf, const char *s)
{
	lf->dev_ch = sdup(s);
}

/* lsof's ent_inaddr(): the local and foreign addresses, and -i @ports */
void ent_inaddr(struct lfile *lf, const unsigned char *la, int lp,
		const unsigned char *fa, int fp, int af)
{
	bool m;

	lf->li[0].af = la ? af : 0;
	lf->li[1].af = fa ? af : 0;
	if (la) {
		memcpy(lf->li[0].a, la, af == AF_INET6 ? 16 : 4);
		lf->li[0].port = lp;
	}
	if (fa) {
		memcpy(lf->li[1].a, fa, af == AF_INET6 ? 16 : 4);
		lf->li[1].port = fp;
	}
	if ((opt.sel_flags & SEL_NA) && opt.nnwad) {
		m = fa && is_nw_addr_proto(fa, fp, af, lf->iproto);
		m |= la && is_nw_addr_proto(la, lp, af, lf->iproto);
		if (m)
			lf->sf |= SEL_NA;
	}
}

/* ------------------------------------------------------------------ */
/* File names.                                                        */

/*
 * The arguments hashed as lsof 4.95's hashSfile() hashes them, with its
 * hash functions and bucket counts: which of two arguments naming one file
 * (hard links, a name given twice) a row matches, and so its NAME and which
 * argument is "located", follows from the order of lsof's chains. lsof
 * walks its argument list (newest first) and puts the first of a bucket at
 * its head, each later one right after the head. Built when first asked,
 * after the arguments (+d and +D add thousands).
 */
#define SFDIHASH	4094	/* sic: not a power of 2, lsof masks 4093 */
#define SFFSHASH	1024
#define SFNMHASH	4096

static struct {
	bool built;
	size_t di[SFDIHASH], fsd[SFFSHASH], nm[SFNMHASH]; /* index + 1 */
	size_t *di_next, *fsd_next, *nm_next;
	size_t *fs, nfs;	/* file systems, newest first */
	bool fs_nfs;		/* one of them is NFS */
} *sx;

/* SFHASHDEVINO(): int arithmetic, of which the mask keeps the low bits */
static size_t hash_devino(dev_t dev, uint64_t ino, unsigned mod)
{
	uint32_t h = (uint32_t)((major(dev) + 1) * (minor(dev) + 1));

	h += (uint32_t)ino;
	return (h * 31415u) & (mod - 1);
}

/* hashbyname(): char is signed here, as in lsof's build */
static size_t hash_name(const char *nm)
{
	uint32_t i = 0;
	int j = 0;

	for (; *nm; nm++) {
		i ^= (uint32_t)(int)(signed char)*nm << j;
		if (++j > 7)
			j = 0;
	}
	return (i * 31415u) & (SFNMHASH - 1);
}

static void chain_add(size_t *head, size_t *next, size_t i)
{
	if (!*head) {
		*head = i + 1;
		next[i] = 0;
	} else {
		next[i] = next[*head - 1];
		next[*head - 1] = i + 1;
	}
}

static void sfile_index(void)
{
	size_t n = opt.nsfile;

	if (sx)
		return;
	sx = xcalloc(1, sizeof(*sx));
	sx->di_next = xcalloc(n + 1, sizeof(size_t));
	sx->fsd_next = xcalloc(n + 1, sizeof(size_t));
	sx->nm_next = xcalloc(n + 1, sizeof(size_t));
	sx->fs = xcalloc(n + 1, sizeof(size_t));
	for (size_t i = n; i-- > 0;) {
		const struct sfile *t = &opt.sfile[i];

		if (t->aname)
			chain_add(&sx->nm[hash_name(t->aname)], sx->nm_next, i);
		if (t->type) {
			chain_add(&sx->di[hash_devino(t->dev, t->ino,
						      SFDIHASH)],
				  sx->di_next, i);
		} else {
			chain_add(&sx->fsd[hash_devino(t->dev, 0, SFFSHASH)],
				  sx->fsd_next, i);
			sx->fs[sx->nfs++] = i;
			sx->fs_nfs |= t->mp && t->mp->nfs;
		}
	}
}

/* Could a file of device @dev and inode @ino match a name at all? */
bool sfile_may_match(dev_t dev, uint64_t ino)
{
	sfile_index();
	/* an NFS file system argument may match any device */
	if (sx->fs_nfs)
		return true;
	for (size_t k = 0; k < sx->nfs; k++)
		if (opt.sfile[sx->fs[k]].dev == dev)
			return true;
	for (size_t j = sx->di[hash_devino(dev, ino, SFDIHASH)]; j;
	     j = sx->di_next[j - 1])
		if (opt.sfile[j - 1].dev == dev && opt.sfile[j - 1].ino == ino)
			return true;
	return false;
}

/* Is a name argument a socket file, that a unix socket may be bound to? */
bool sfile_socket(void)
{
	for (size_t i = 0; i < opt.nsfile; i++)
		if (opt.sfile[i].type && opt.sfile[i].mode == S_IFSOCK)
			return true;
	return false;
}

/*
 * lsof's is_file_named(): @ty 0 by device and inode only (and raw device
 * for devices on /dev's file system), 1 also by file system, 2 by path.
 * A match names the row after the argument and marks it found.
 */
bool is_file_named(struct lfile *lf, int ty, const char *p,
		   const struct mounts *mp, bool cd)
{
	struct sfile *s = NULL;
	int f = 0;

	(void)cd;
	sfile_index();
	if (ty == 2 && p) {
		for (size_t j = sx->nm[hash_name(p)]; j; j = sx->nm_next[j - 1])
			if (!strcmp(p, opt.sfile[j - 1].aname)) {
				s = &opt.sfile[j - 1];
				f = 2;
				break;
			}
	}
	if (!f && ty < 2 && lf->dev_def && lf->inp_ty == 1) {
		for (size_t j = sx->di[hash_devino(lf->dev, lf->inode,
						   SFDIHASH)];
		     j; j = sx->di_next[j - 1]) {
			struct sfile *t = &opt.sfile[j - 1];

			if (t->dev == lf->dev && t->ino == lf->inode) {
				s = t;
				f = 1;
				break;
			}
		}
	}
	if (!f && ty == 1 && lf->dev_def) {
		for (size_t j = sx->fsd[hash_devino(lf->dev, 0, SFFSHASH)]; j;
		     j = sx->fsd_next[j - 1]) {
			struct sfile *t = &opt.sfile[j - 1];

			if (t->dev != lf->dev)
				continue;
			if (lf->ntype != N_NFS) {
				if (!t->mp || !t->mp->nfs) {
					s = t;
					f = 1;
					break;
				}
			} else if (p && mp && mp->dirl && t->name &&
				   !strncmp(mp->dir, t->name, mp->dirl)) {
				s = t;
				f = 1;
				break;
			}
		}
	}
	if (!f)
		return false;
	/* lsof names the row after the argument (a path match keeps it) */
	if (f == 1 && s->type)
		lf->nm = s->devnm ? sfmt("%s (%s)", s->name, s->devnm) :
				    sdup(s->name);
	s->found = true;
	return true;
}
