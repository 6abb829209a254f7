// SPDX-License-Identifier: MIT
/*
 * files.c - the file and directory names to search for, as lsof takes
 * them: its Readlink() of each argument, stat(2) through getvalues(), the
 * choice between a file and a file system (ck_file_arg()), and the files
 * of +d and +D directories (enter_dir()), read a directory per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gvlsof.h"

#define LINK_LIMIT	20	/* symbolic links Readlink() follows */

/* ------------------------------------------------------------------ */
/* Paths, through getvalues().                                        */

/* stat(2) (or lstat(2)) of @path into @fi; -1 with errno on failure. */
int stat_path(const char *path, struct finfo *fi, bool follow)
{
	static const char *const names[] = {
		"stat:type", ":dev", ":rdev", ":ino", ":size", ":nlink",
	};
	struct name_val v[ARRAY_SIZE(names)] = { 0 };
	char buf[512], grp[8];
	uint64_t u[4];

	if (opt.fblock) {
		if (!opt.fwarn)
			fprintf(stderr, "%s: avoiding stat(%s): -b was "
				"specified.\n", opt.pn, path);
		errno = EWOULDBLOCK;
		return -1;
	}
	snprintf(grp, sizeof(grp), "%s", follow ? "stat" : "lstat");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		v[i].name = names[i];
	v[0].name = follow ? "stat:type" : "lstat:type";
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	if (getvalues(AT_FDCWD, path, v, ARRAY_SIZE(v),
		      follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i].error) {
			errno = v[i].error;
			return -1;
		}
	*fi = (struct finfo){ 0 };
	{
		struct batch fake = { .vec = v, .n = ARRAY_SIZE(v) };
		size_t l;
		int e;
		const char *t = val(&fake, 0, &l, &e);

		fi->mode = !memcmp(t, "reg", l) && l == 3 ? S_IFREG :
			   !memcmp(t, "dir", l) && l == 3 ? S_IFDIR :
			   !memcmp(t, "lnk", l) && l == 3 ? S_IFLNK :
			   !memcmp(t, "chr", l) && l == 3 ? S_IFCHR :
			   !memcmp(t, "blk", l) && l == 3 ? S_IFBLK :
			   !memcmp(t, "fifo", l) && l == 4 ? S_IFIFO :
			   !memcmp(t, "sock", l) && l == 4 ? S_IFSOCK : 0;
		if (!val_dev(&fake, 1, &fi->dev) ||
		    !val_dev(&fake, 2, &fi->rdev) ||
		    !val_u64(&fake, 3, &u[0]) || !val_u64(&fake, 4, &u[1]) ||
		    !val_u64(&fake, 5, &u[2])) {
			errno = EIO;
			return -1;
		}
		fi->ino = u[0];
		fi->size = u[1];
		fi->nlink = u[2];
	}
	return 0;
}

/* readlink(2) of @path: its length, -1 with errno (EINVAL: no link). */
static int readlink_gv(const char *path, char *buf, size_t size)
{
	struct name_val v[1] = { { .name = "lstat:type" } };
	char t[16];

	v[0].value_in = (struct iovec){ t, sizeof(t) };
	if (getvalues(AT_FDCWD, path, v, 1, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (v[0].error) {
		errno = v[0].error;
		return -1;
	}
	if (v[0].value_out.iov_len != 3 || memcmp(t, "lnk", 3)) {
		errno = EINVAL;
		return -1;
	}
	v[0] = (struct name_val){ .name = "data:",
				  .value_in = { buf, size } };
	if (getvalues(AT_FDCWD, path, v, 1, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (v[0].error) {
		errno = v[0].error;
		return -1;
	}
	return (int)v[0].value_out.iov_len;
}

/*
 * One pass of lsof's Readlink() over @cur: each component that is a
 * symbolic link replaced by its target, into @abuf. -1 when too long.
 */
static int resolve_once(const char *cur, char *abuf, size_t size)
{
	char lbuf[PATH_MAX + 1], tbuf[PATH_MAX + 1];
	const char *a1, *a2;
	size_t alen = 0;
	char *ap = abuf;

	abuf[0] = 0;
	for (a1 = a2 = cur; *a2; a1 = a2) {
		const char *s1;
		int llen, slen, len;

		for (a2 = a1 + 1; *a2 && *a2 != '/'; a2++)
			;
		if ((len = a2 - cur) >= (int)sizeof(tbuf))
			return -1;
		memcpy(tbuf, cur, len);
		tbuf[len] = 0;
		llen = readlink_gv(tbuf, lbuf, sizeof(lbuf) - 1);
		if (llen >= 0) {
			if (lbuf[0] == '/') {
				memcpy(abuf, lbuf, llen);
				ap = abuf + llen;
				*ap = 0;
				alen = llen;
				continue;
			}
			lbuf[llen] = 0;
			s1 = lbuf;
		} else {
			llen = a2 - a1;
			s1 = a1;
		}
		if (*s1 == '/')
			slen = 1;
		else if (alen > 0)
			slen = abuf[alen - 1] == '/' ? 1 : 2;
		else
			slen = (s1 == lbuf && tbuf[0] == '/') ? 2 : 1;
		if (alen + llen + slen >= size)
			return -1;
		if (slen == 2)
			*ap++ = '/';
		memcpy(ap, s1, llen);
		ap += llen;
		*ap = 0;
		alen += llen + slen - 1;
	}
	return 0;
}

/*
 * lsof's Readlink(): every component of @arg that is a symbolic link is
 * replaced by its target, without any other normalisation, until nothing
 * changes. Returns @arg itself when nothing did, a copy otherwise, NULL
 * (and a message) when the path is too long or loops.
 */
char *Readlink(const char *arg)
{
	char abuf[PATH_MAX + 1];
	const char *cur = arg;
	char *out = NULL;
	int depth = 0;

	if (opt.fblock) {
		if (!opt.fwarn) {
			fprintf(stderr, "%s: avoiding readlink(", opt.pn);
			safestrprt(arg, stderr, 0);
			fprintf(stderr, "): -b was specified.\n");
		}
		return (char *)arg;
	}
	for (;;) {
		if (resolve_once(cur, abuf, sizeof(abuf))) {
			if (!opt.fwarn) {
				fprintf(stderr, "%s: readlink() path too long: ",
					opt.pn);
				safestrprt(arg, stderr, 1);
			}
			return NULL;
		}
		if (!strcmp(cur, abuf))
			return cur == arg ? (char *)arg : out;
		if (++depth > LINK_LIMIT) {
			if (!opt.fwarn) {
				fprintf(stderr, "%s: too many (> %d) symbolic "
					"links in readlink() path: ", opt.pn,
					LINK_LIMIT);
				safestrprt(arg, stderr, 1);
			}
			return NULL;
		}
		out = sdup(abuf);
		cur = out;
	}
}

/* ------------------------------------------------------------------ */
/* File and file system names.                                        */

static struct sfile *sfile_new(void)
{
	static size_t cap;

	if (opt.nsfile == cap) {
		cap = cap ? 2 * cap : 16;
		opt.sfile = xrealloc(opt.sfile, cap * sizeof(*opt.sfile));
	}
	opt.sfile[opt.nsfile] = (struct sfile){ 0 };
	return &opt.sfile[opt.nsfile++];
}

/*
 * The mounts @path names (as a mount point, or as the device of a block
 * device's file system), each once; *@nm of them.
 */
static const struct mounts **mounts_named(const char *path, int fv,
					  size_t *nm)
{
	const struct mounts **mmp = NULL;

	*nm = 0;
	for (struct mounts *mp = fv != 1 ? readmnt() : NULL; mp;
	     mp = mp->next) {
		bool fsm = !strcmp(mp->dir, path);
		size_t mx;

		if (!fsm && (fv == 2 || (mp->fs_mode & S_IFMT) == S_IFBLK))
			fsm = mp->fsnmres && !strcmp(mp->fsnmres, path);
		if (!fsm)
			continue;
		for (mx = 0; mx < *nm; mx++)
			if (!strcmp(mp->dir, mmp[mx]->dir) &&
			    mp->dev == mmp[mx]->dev &&
			    mp->rdev == mmp[mx]->rdev &&
			    mp->inode == mmp[mx]->inode)
				break;
		if (mx < *nm)
			continue;
		mmp = xrealloc(mmp, (*nm + 1) * sizeof(*mmp));
		mmp[(*nm)++] = mp;
	}
	return mmp;
}

/* @path as a file, by its stat (or *@sbp's); false when it has none. */
static bool enter_file(const char *path, const struct finfo *sbp,
		       bool accept_deleted, const char *aname)
{
	struct finfo sb;
	struct sfile *sfp;

	if (sbp) {
		sb = *sbp;
	} else if (stat_path(path, &sb, true)) {
		int en = errno;

		if (!accept_deleted) {
			fprintf(stderr, "%s: status error on ", opt.pn);
			safestrprt(path, stderr, 0);
			fprintf(stderr, ": %s\n", strerror(en));
		}
		opt.err_stat = true;
		return false;
	}
	sfp = sfile_new();
	sfp->type = true;
	sfp->name = xstrdup(path);
	sfp->ino = sb.ino;
	sfp->mode = sb.mode;
	sfp->dev = sb.dev;
	sfp->rdev = sb.rdev;
	sfp->aname = xstrdup(aname);
	return true;
}

/* The file system mounted at @mp. */
static void enter_fs(const struct mounts *mp, const char *aname)
{
	struct sfile *sfp = sfile_new();

	sfp->mp = mp;
	sfp->name = xstrdup(mp->dir);
	sfp->devnm = xstrdup(mp->fsname);
	sfp->dev = mp->dev;
	sfp->rdev = mp->rdev;
	sfp->ino = mp->inode;
	sfp->mode = mp->mode & S_IFMT;
	sfp->aname = xstrdup(aname);
}

/*
 * One argument @arg: a file, or the file systems it names; false when
 * it could not be used.
 */
static bool enter_file_arg(char *arg, char *path, int fv, bool one,
			   const struct finfo *sbp, bool accept_deleted)
{
	const struct mounts **mmp;
	size_t nm, j, k;
	bool ss = false;

	j = k = strlen(path);
	while (k > 1 && path[k - 1] == '/')
		k--;
	if (k < j)
		path = sdup_n(path, k);
	mmp = mounts_named(path, fv, &nm);
	if (fv == 2 && nm == 0) {
		if (!accept_deleted) {
			fprintf(stderr, "%s: not a file system: ", opt.pn);
			safestrprt(arg, stderr, 1);
		}
		opt.err_stat = true;
	} else if (nm == 0) {
		ss = enter_file(path, sbp && one ? sbp : NULL, accept_deleted,
				arg);
	} else {
		for (size_t mx = 0; mx < nm; mx++)
			enter_fs(mmp[mx], arg);
		ss = true;
	}
	free(mmp);
	return ss;
}

/*
 * lsof's ck_file_arg(): each argument names a file (matched by device and
 * inode) or, when it is a mount point or a mounted device, a file system
 * (matched by device). @fv: -f (1: never a file system) or +f (2: always).
 * Returns non-zero when no argument could be used.
 */
int ck_file_arg(int i, int ac, char **av, int fv, bool rs,
		const struct finfo *sbp, bool accept_deleted)
{
	bool ss = false;
	int err = 0;

	for (; i < ac; i++) {
		char *path;

		if (rs && ac == 1 && i == 0) {
			path = av[i];
		} else if (!(path = Readlink(av[i]))) {
			opt.err_stat = true;
			continue;
		}
		ss |= enter_file_arg(av[i], path, fv, ac == 1, sbp,
				     accept_deleted);
	}
	if (accept_deleted) {
		if (!ss && !opt.err_stat)
			err = 1;
		opt.err_stat = false;
	} else if (!ss) {
		err = 1;
	}
	return err;
}

/* The entries of directory @dir and their lstat, in one or two calls. */
struct dirent_gv {
	char *name;
	struct finfo st;
	int err;
};

static int list_dir(const char *dir, struct dirent_gv **out, size_t *n)
{
	struct batch b = { 0 };
	size_t len, i0;
	const char *v;
	int err;

	*out = NULL;
	*n = 0;
	i0 = batch_add(&b, "dir:");
	err = batch_run(&b, dir);
	v = err ? NULL : val(&b, i0, &len, &err);
	if (!v) {
		batch_release(&b);
		return err;
	}
	for (const char *s = v; s < v + len; s += strlen(s) + 1) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = (struct dirent_gv){ .name = sdup(s) };
	}
	batch_reset(&b);
	{
		size_t *first = xrealloc(NULL, (*n + 1) * sizeof(*first));

		for (size_t k = 0; k < *n; k++)
			first[k] = stat_names(&b, "lstat", (*out)[k].name);
		err = batch_run(&b, dir);
		for (size_t k = 0; k < *n; k++) {
			struct dirent_gv *d = &(*out)[k];

			if (err) {
				d->err = err;
				continue;
			}
			stat_get(&b, first[k], &d->st);
			d->err = d->st.err;
			if (d->err == ENAMETOOLONG) {
				char *p = sfmt("%s/%s", dir, d->name);

				d->err = stat_path(p, &d->st, false) ? errno : 0;
			}
		}
		free(first);
	}
	batch_release(&b);
	return 0;
}

/* The directory of +d or +D, through Readlink(); NULL with a warning. */
static char *dir_arg(char *d, struct finfo *sb)
{
	char *dn;

	if (!d || !*d || *d == '+' || *d == '-') {
		if (!opt.fwarn)
			fprintf(stderr, "%s: +d not followed by a directory "
				"path\n", opt.pn);
		return NULL;
	}
	if (!(dn = Readlink(d)))
		return NULL;
	if (stat_path(dn, sb, true)) {
		if (!opt.fwarn) {
			int en = errno;

			fprintf(stderr, "%s: WARNING: can't stat(", opt.pn);
			safestrprt(dn, stderr, 0);
			fprintf(stderr, "): %s\n", strerror(en));
		}
		return NULL;
	}
	if (sb->mode != S_IFDIR) {
		if (!opt.fwarn) {
			fprintf(stderr, "%s: WARNING: not a directory: ", opt.pn);
			safestrprt(dn, stderr, 1);
		}
		return NULL;
	}
	return dn;
}

/* The directories +D has still to read. */
struct dirstack {
	char **d;
	size_t n, cap;
};

static void dir_push(struct dirstack *st, const char *dir)
{
	GROW(st->d, st->n, st->cap);
	st->d[st->n++] = xstrdup(dir);
}

/*
 * Entry @e of a directory, at @fp: a file to search for, unless it is on
 * another file system or a symbolic link (without -x); a directory to
 * read next with +D. Returns whether it was entered.
 */
static bool dir_entry(char *fp, struct dirent_gv *e, dev_t ddev,
		      bool descend, struct dirstack *st)
{
	char *av[1] = { fp };

	if (e->err) {
		if (e->err != ENOENT && !opt.fwarn) {
			fprintf(stderr, "%s: WARNING: can't lstat(", opt.pn);
			safestrprt(fp, stderr, 0);
			fprintf(stderr, "): %s\n", strerror(e->err));
		}
		return false;
	}
	if (!(opt.fxover & XO_FILESYS) && e->st.dev != ddev)
		return false;
	if (e->st.mode == S_IFLNK) {
		if (!(opt.fxover & XO_SYMLINK))
			return false;
		if (stat_path(fp, &e->st, true)) {
			int se = errno;

			if (se != ENOENT && !opt.fwarn) {
				fprintf(stderr, "%s: WARNING: can't stat(",
					opt.pn);
				safestrprt(fp, stderr, 0);
				fprintf(stderr, ") symbolc link: %s\n",
					strerror(se));
			}
			return false;
		}
	}
	if (e->st.mode == S_IFDIR && descend)
		dir_push(st, fp);
	return !ck_file_arg(0, 1, av, 1, true, &e->st, false);
}

/* The entries of @dir; how many were entered. */
static int dir_read(const char *dir, dev_t ddev, bool descend,
		    struct dirstack *st)
{
	struct dirent_gv *ents;
	size_t nents;
	int en = list_dir(dir, &ents, &nents), fct = 0;
	bool sl = !(*dir && dir[strlen(dir) - 1] == '/');

	if (en) {
		if (!opt.fwarn && en != ENOENT) {
			fprintf(stderr, "%s: WARNING: can't opendir(", opt.pn);
			safestrprt(dir, stderr, 0);
			fprintf(stderr, "): %s\n", strerror(en));
		}
		return 0;
	}
	for (size_t k = 0; k < nents; k++)
		fct += dir_entry(sfmt("%s%s%s", dir, sl ? "/" : "",
				      ents[k].name), &ents[k], ddev, descend,
				 st);
	free(ents);
	return fct;
}

/* lsof's enter_dir(): +d (the directory's files) and +D (its tree). */
int enter_dir(char *d, bool descend)
{
	struct dirstack st = { 0 };
	struct finfo sb;
	char *dn = dir_arg(d, &sb);
	char *av[1] = { dn };
	int fct = 0;

	if (!dn)
		return 1;
	dir_push(&st, dn);
	if (!ck_file_arg(0, 1, av, 1, true, &sb, false))
		fct++;
	while (st.n) {
		char *dir = st.d[--st.n];

		fct += dir_read(dir, sb.dev, descend, &st);
		free(dir);
	}
	free(st.d);
	if (!fct) {
		if (!opt.fwarn) {
			fprintf(stderr, "%s: WARNING: no files found in "
				"directory: ", opt.pn);
			safestrprt(d, stderr, 1);
		}
		return 1;
	}
	return 0;
}
