// SPDX-License-Identifier: MIT
/*
 * fd.c - the rows of one process: cwd, rtd, txt and its descriptors,
 * made from the values the rounds fetched.
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
/* Processes, descriptors and rows.                                   */







struct proc *procs;
size_t nprocs, procs_cap;
uint64_t our_mntns;
bool our_mntns_ok;
size_t denied;		/* processes we may not inspect */
size_t calls;		/* getvalues() calls, for -D */

struct row *row_add(struct rows *r, const char *fd)
{
	struct row *row;

	GROW(r->v, r->n, r->cap);
	row = &r->v[r->n++];
	*row = (struct row){ .fd = fd, .access = ' ', .lock = ' ',
			     .type = "", .device = "", .sizeoff = "",
			     .node = "", .name = "" };
	return row;
}

void stat_names(struct batch *b, const char *group, const char *sub,
		       size_t *first)
{
	*first = batch_add(b, "%s:type:%s", group, sub);
	batch_add(b, "%s:dev:%s", group, sub);
	batch_add(b, "%s:rdev:%s", group, sub);
	batch_add(b, "%s:ino:%s", group, sub);
	batch_add(b, "%s:size:%s", group, sub);
}

static unsigned type_bits(const char *v, size_t len)
{
	static const struct { const char *name; unsigned fmt; } t[] = {
		{ "reg", S_IFREG }, { "dir", S_IFDIR }, { "lnk", S_IFLNK },
		{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "fifo", S_IFIFO },
		{ "sock", S_IFSOCK },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, v, len))
			return t[i].fmt;
	return 0;
}

/* The five stat values from @first on (see stat_names) into @fi. */
void stat_get(const struct batch *b, size_t first, struct finfo *fi)
{
	size_t len;
	const char *v = val(b, first, &len, &fi->err);

	*fi = (struct finfo){ .err = fi->err };
	if (!v)
		return;
	fi->fmt = type_bits(v, len);
	if (!val_dev(b, first + 1, &fi->maj, &fi->min) ||
	    !val_dev(b, first + 2, &fi->rmaj, &fi->rmin) ||
	    !val_u64(b, first + 3, &fi->ino) ||
	    !val_u64(b, first + 4, &fi->size))
		fi->err = b->vec[first + 4].error ? (int)b->vec[first + 4].error
						  : EIO;
}

static const char *offset_str(uint64_t off)
{
	/* lsof shows 8 decimal digits at most, then switches to hex */
	const char *s = sfmt("0t%" PRIu64, off);

	return strlen(s) > 10 ? sfmt("0x%" PRIx64, off) : s;
}

/*
 * TYPE, DEVICE, SIZE/OFF and NODE of a file from its stat, as lsof's
 * process_proc_node() sets them. @off: the descriptor's offset, or NULL
 * when there is none (cwd, txt, mem rows; devices then show no offset).
 */
void row_from_stat(struct row *r, const struct finfo *fi,
			  bool anon, const char *off, int pid)
{
	const char *type;

	if (fi->err) {
		r->type = "unknown";
		return;
	}
	switch (fi->fmt) {
	case S_IFBLK: type = "BLK"; break;
	case S_IFCHR: type = "CHR"; break;
	case S_IFDIR: type = "DIR"; break;
	case S_IFIFO: type = "FIFO"; break;
	case S_IFREG: type = "REG"; break;
	case S_IFLNK: type = "LINK"; break;
	default:
		type = anon ? "a_inode" : sfmt("%04o", (fi->fmt >> 12) & 0xf);
	}
	r->type = type;
	if (fi->fmt == S_IFCHR || fi->fmt == S_IFBLK)
		r->device = sfmt("%u,%u", fi->rmaj, fi->rmin);
	else
		r->device = sfmt("%u,%u", fi->maj, fi->min);
	if (fi->fmt == S_IFCHR || fi->fmt == S_IFBLK || fi->fmt == S_IFIFO)
		r->sizeoff = off ? off : "";
	else
		r->sizeoff = sfmt("%" PRIu64, fi->size);
	r->node = sfmt("%" PRIu64, fi->ino);
	r->lock = lock_char(pid, fi->maj, fi->min, fi->ino);
}

/* cwd, rtd, txt: the link and the stat of what it points to. */
void special_row(struct proc *p, const struct batch *b, int which)
{
	static const char *const fds[] = { "cwd", "rtd", "txt" };
	static const char *const links[] = { "cwd", "root", "exe" };
	struct row *r = row_add(&p->head, fds[which]);
	size_t len;
	int err;
	const char *v = val(b, p->i_link[which], &len, &err);
	struct finfo fi;

	if (!v) {
		r->type = "unknown";
		r->name = sfmt(PROC "/%d/%s", p->pid, links[which]);
		/* lsof keeps quiet about root's kernel threads having no exe */
		if (which != 2 || err != ENOENT || p->uid)
			r->name = sfmt("%s (readlink: %s)", r->name,
				       strerror(err));
		if (which == 2)
			p->txt.err = err;
		return;
	}
	r->name = vdup(v, len);
	stat_get(b, p->i_st[which], &fi);
	if (which == 2)
		p->txt = fi;
	row_from_stat(r, &fi, false, NULL, p->pid);
	if (fi.err)
		r->name = sfmt("%s (stat: %s)", r->name, strerror(fi.err));
}

/* Append the lines of /proc/PID/maps that lsof shows as mem rows. */
void maps_parse(struct proc *p, const char *v, size_t n)
{
	const char *q = v, *end = v + n, *line;
	size_t len;

	while (next_line(&q, end, &line, &len)) {
		char *copy = xrealloc(NULL, len + 1), *w[5], *path;
		unsigned maj, min;
		uint64_t start, end_addr, ino;
		struct mapping *m;
		size_t plen;
		bool dup = false;

		memcpy(copy, line, len);
		copy[len] = 0;
		if (split_words(copy, w, 5) < 5)
			goto next;
		path = w[4] + strlen(w[4]) + 1;
		if (path > copy + len)
			goto next;
		while (*path == ' ')
			path++;
		if (!*path ||
		    sscanf(w[0], "%" SCNx64 "-%" SCNx64, &start, &end_addr) != 2 ||
		    sscanf(w[3], "%x:%x", &maj, &min) != 2 ||
		    !parse_u64(w[4], 10, &ino) || (!maj && !min && !ino))
			goto next;
		/* the executable has its txt row */
		if (!p->txt.err && p->txt.maj == maj && p->txt.min == min &&
		    p->txt.ino == ino)
			goto next;
		for (size_t i = 0; i < p->nmaps && !dup; i++)
			dup = p->maps[i].maj == maj && p->maps[i].min == min &&
			      p->maps[i].ino == ino;
		if (dup)
			goto next;
		GROW(p->maps, p->nmaps, p->maps_cap);
		m = &p->maps[p->nmaps++];
		plen = strlen(path);
		*m = (struct mapping){ .start = start, .end = end_addr,
				       .ino = ino, .maj = maj, .min = min };
		if (plen > 10 && !strcmp(path + plen - 10, " (deleted)")) {
			m->deleted = true;
			plen -= 10;
		}
		m->path = sdup_n(path, plen);
next:
		free(copy);
	}
}

/* The parts of a /proc/PID/fd/N link: "/path", or "pipe:[123]". */
static void link_parts(const char *link, const char **name, const char **rest)
{
	const char *colon;

	*rest = NULL;
	*name = link;
	if (link[0] == '/' || !(colon = strchr(link, ':')))
		return;
	*name = sdup_n(link, colon - link);
	*rest = colon + 1;
}

/* lsof's decorations of anonymous inodes, from fdinfo. */
static const char *anon_name(const char *rest, const char *info, size_t n)
{
	const char *p = info, *end = info + n, *line;
	int tfds[EPOLL_MAX_TFDS], ntfd = 0;
	long long id = -1;
	size_t len;
	char *s;

	if (!info)
		return rest;
	while (next_line(&p, end, &line, &len)) {
		char tmp[128], *w[2];
		uint64_t v;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (split_words(tmp, w, 2) < 2 || !parse_u64(w[1], 0, &v) ||
		    v > INT_MAX)
			continue;
		if ((!strcmp(w[0], "eventfd-id:") &&
		     !strcmp(rest, "[eventfd]")) ||
		    (!strcmp(w[0], "Pid:") && !strcmp(rest, "[pidfd]")))
			id = v;
		else if (!strcmp(w[0], "tfd:") && ntfd < EPOLL_MAX_TFDS &&
			 !strcmp(rest, "[eventpoll]"))
			tfds[ntfd++] = v;
	}
	if (id >= 0)
		return sfmt("%.*s:%lld]", (int)strlen(rest) - 1, rest, id);
	if (!ntfd)
		return rest;
	for (int i = 1; i < ntfd; i++)		/* sorted, as lsof has them */
		for (int j = i; j > 0 && tfds[j - 1] > tfds[j]; j--) {
			int t = tfds[j];

			tfds[j] = tfds[j - 1];
			tfds[j - 1] = t;
		}
	s = sfmt("[eventpoll:%d", tfds[0]);
	for (int i = 1; i < ntfd; i++)
		s = sfmt("%s,%d", s, tfds[i]);
	return sfmt("%s%s", s, ntfd == EPOLL_MAX_TFDS ? "...]" : "]");
}

static uint64_t fdinfo_pos(const char *info, size_t n, bool *ok)
{
	uint64_t pos = 0;

	*ok = info && n > 5 && !memcmp(info, "pos:", 4);
	if (*ok) {
		const char *c = info + 4;

		while (c < info + n && (*c == ' ' || *c == '\t'))
			c++;
		for (*ok = false; c < info + n && *c >= '0' && *c <= '9'; c++)
			pos = pos * 10 + (*c - '0'), *ok = true;
	}
	return pos;
}

/* The protocol name the kernel gives an unidentified socket. */
static const char *sock_proto(int pid, int fd)
{
	char path[64], buf[256];
	struct name_val v = {
		.name = "xattr:system.sockprotoname",
		.value_in = { buf, sizeof(buf) },
	};

	snprintf(path, sizeof(path), PROC "/%d/fd/%d", pid, fd);
	calls++;
	if (getvalues(AT_FDCWD, path, &v, 1, 0) != 1 || v.error)
		return NULL;
	/* the kernel counts the terminating NUL in the value */
	return sdup_n(buf, strnlen(buf, v.value_out.iov_len));
}

static dev_t pipefs_dev;
static bool pipefs_known;

/*
 * The device of pipefs, the kernel's internal file system for pipes: a
 * FIFO on it is a pipe, whose NAME is "pipe", without reading its link.
 * It is a property of the running kernel, learnt from a pipe of our own.
 */
void pipefs_probe(void)
{
	struct stat st;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return;
	if (!fstat(p[0], &st)) {
		pipefs_dev = st.st_dev;
		pipefs_known = true;
	}
	close(p[0]);
	close(p[1]);
}

bool is_pipe(const struct finfo *fi)
{
	return pipefs_known && !fi->err && fi->fmt == S_IFIFO &&
	       major(pipefs_dev) == fi->maj && minor(pipefs_dev) == fi->min;
}

/*
 * /dev/null, /dev/zero and /dev/full: their lseek() pins the position at
 * 0 and their reads and writes never move it, so fdinfo would say 0.
 */
static bool pos_always_zero(const struct finfo *fi)
{
	return fi->fmt == S_IFCHR && fi->rmaj == 1 &&
	       (fi->rmin == 3 || fi->rmin == 5 || fi->rmin == 7);
}

bool needs_link(const struct fdesc *d)
{
	/* sockets are named from /proc/net; pipes are "pipe" */
	return d->fi.err || (d->fi.fmt != S_IFSOCK && !is_pipe(&d->fi));
}

bool needs_info(const struct fdesc *d)
{
	return !d->fi.err && (d->fi.fmt == S_IFCHR || d->fi.fmt == S_IFBLK) &&
	       !pos_always_zero(&d->fi);
}

/* Anonymous inodes lsof decorates with fdinfo: "[eventfd:3]". */
bool needs_anon_info(const struct fdesc *d)
{
	const char *rest;

	if (d->fi.err || d->fi.fmt || !d->link ||
	    strncmp(d->link, "anon_inode:", 11))
		return false;
	rest = d->link + 11;
	return !strcmp(rest, "[eventfd]") || !strcmp(rest, "[pidfd]") ||
	       !strcmp(rest, "[eventpoll]");
}

void fd_row(struct proc *p, struct fdesc *d)
{
	const char *name = "pipe", *rest = NULL;
	struct row *r;

	if (d->lstat_err == ENOENT || d->link_err == ENOENT)
		return;			/* closed since we listed it */

	/* lsof keeps descriptor numbers right-aligned in 4 (or 7) columns */
	r = row_add(&p->files, sfmt("%*d", d->fd < 10000 ? 4 : 7, d->fd));
	if (!d->lstat_err) {
		unsigned m = d->perm & (S_IRUSR | S_IWUSR);

		r->access = m == S_IRUSR ? 'r' : m == S_IWUSR ? 'w' : 'u';
	}
	if (d->link_err) {
		r->type = "unknown";
		r->name = sfmt(PROC "/%d/fd/%d (readlink: %s)", p->pid, d->fd,
			       strerror(d->link_err));
		return;
	}
	if (!d->fi.err && d->fi.fmt == S_IFSOCK) {
		struct sockrow *s = map_get(&sockets, d->fi.ino);

		r->sizeoff = "0t0";
		if (s) {
			r->type = s->type;
			r->device = s->device;
			r->node = s->node;
			r->name = s->name;
		} else {
			const char *proto = sock_proto(p->pid, d->fd);

			r->type = "sock";
			r->device = sfmt("%u,%u", d->fi.maj, d->fi.min);
			r->node = sfmt("%" PRIu64, d->fi.ino);
			r->name = proto ? sfmt("protocol: %s", proto) :
					  "can't identify protocol";
		}
		return;
	}
	if (d->link)
		link_parts(d->link, &name, &rest);
	if (!d->fi.err && !d->fi.fmt && !strcmp(name, "anon_inode")) {
		row_from_stat(r, &d->fi, true, NULL, p->pid);
		r->name = rest && *rest ? anon_name(rest, d->info, d->info_len) :
					  name;
		return;
	}
	if ((d->fi.fmt == S_IFCHR || d->fi.fmt == S_IFBLK) &&
	    !pos_always_zero(&d->fi)) {
		bool ok;
		uint64_t pos = fdinfo_pos(d->info, d->info_len, &ok);

		row_from_stat(r, &d->fi, false, ok ? offset_str(pos) : NULL,
			      p->pid);
	} else {
		/*
		 * The kernel never moves the file position of a pipe, FIFO
		 * or socket (their reads and writes ignore it and lseek
		 * fails with ESPIPE), so its fdinfo is not read: it says 0.
		 */
		row_from_stat(r, &d->fi, false, "0t0", p->pid);
	}
	r->name = name;
	if (d->fi.err)
		r->name = sfmt("%s (stat: %s)", name, strerror(d->fi.err));
}
