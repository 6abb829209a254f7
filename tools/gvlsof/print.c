// SPDX-License-Identifier: MIT
/*
 * print.c - the table, laid out as lsof lays it out: columns sized to
 * their widest value in a first pass over the rows, printed in a second;
 * lsof's escaping of unprintable characters; the NAME column with its
 * Internet addresses and additions; -t.
 */
#include <ctype.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <wchar.h>
#include <wctype.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* Escaping, as lsof's safestrprt() and friends do it.                */

/*
 * lsof passes each byte as a signed char converted to unsigned int: a
 * byte from 0x80 on becomes a large number, which is shown as \xNN.
 */
static const char *safepup(unsigned int c, int *cl)
{
	static char up[8];
	const char *rp;
	int len = 2;

	if (c < 0x20) {
		switch (c) {
		case '\b': rp = "\\b"; break;
		case '\f': rp = "\\f"; break;
		case '\n': rp = "\\n"; break;
		case '\r': rp = "\\r"; break;
		case '\t': rp = "\\t"; break;
		default:
			snprintf(up, sizeof(up), "^%c", c + 0x40);
			rp = up;
		}
	} else if (c == 0xff) {
		rp = "^?";
	} else if (c == '\\') {
		rp = "\\\\";
	} else {
		snprintf(up, sizeof(up), "\\x%02x", (int)(c & 0xff));
		rp = up;
		len = 4;
	}
	if (cl)
		*cl = len;
	return rp;
}

/* flags: 2, a blank is not printable (the COMMAND column) */
int safestrlen(const char *sp, int flags)
{
	char c = (flags & 2) ? ' ' : '\0';
	int len = 0;

	for (; sp && *sp; sp++) {
		if (!isprint((unsigned char)*sp) || *sp == '\\' || *sp == c) {
			/* lsof's count: a high byte counts as 2 */
			if (*sp < 0x20 || (unsigned char)*sp == 0xff ||
			    *sp == '\\')
				len += 2;
			else
				len += 4;
		} else {
			len++;
		}
	}
	return len;
}

/* Nothing to escape: printable ASCII only, and no backslash. */
static bool plain_ascii(const char *sp, char c, size_t *len)
{
	const char *s = sp;

	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '\\' || *s == c)
			return false;
	*len = s - sp;
	return true;
}

/* flags: 1 newline after, 2 blank not printable, 4 quoted, 8 final \n */
void safestrprt(const char *sp, FILE *fs, int flags)
{
	char c = (flags & 2) ? ' ' : '\0';
	int wcmx = MB_CUR_MAX, lnc;
	size_t sl;

	/* the common case, which every locale prints as it is */
	if (sp && !(flags & 4) && plain_ascii(sp, c, &sl)) {
		fwrite(sp, 1, sl, fs);
		if (flags & 1)
			putc('\n', fs);
		return;
	}
	if (flags & 4)
		putc('"', fs);
	for (sl = sp ? strlen(sp) : 0; sp && *sp; sl -= lnc, sp += lnc) {
		if (wcmx > 1) {
			lnc = mblen(sp, sl);
			if (lnc > 1) {
				wchar_t w;

				if (mbtowc(&w, sp, sl) == lnc && iswprint(w)) {
					fwrite(sp, 1, lnc, fs);
				} else {
					for (int i = 0; i < lnc; i++)
						fputs(safepup((unsigned int)sp[i],
							      NULL), fs);
				}
				continue;
			}
		}
		lnc = 1;
		if (*sp != '\\' && isprint((unsigned char)*sp) && *sp != c) {
			putc(*sp, fs);
		} else {
			if ((flags & 8) && *sp == '\n' && !sp[1])
				break;
			fputs(safepup((unsigned int)*sp, NULL), fs);
		}
	}
	if (flags & 4)
		putc('"', fs);
	if (flags & 1)
		putc('\n', fs);
}

/* @len columns of @sp, byte by byte, padded with blanks */
void safestrprtn(const char *sp, int len, FILE *fs, int flags)
{
	char c = (flags & 2) ? ' ' : '\0';
	size_t sl;
	int i = 0;

	if (sp && !(flags & 1) && plain_ascii(sp, c, &sl) &&
	    sl <= (size_t)len) {
		fprintf(fs, "%-*s", len, sp);
		return;
	}
	for (; sp && i < len && *sp; sp++) {
		if (*sp != '\\' && isprint((unsigned char)*sp) && *sp != c) {
			putc(*sp, fs);
			i++;
		} else {
			int cl;
			const char *up;

			if ((flags & 8) && *sp == '\n' && !sp[1])
				break;
			up = safepup((unsigned int)*sp, &cl);
			if (i + cl > len)
				break;
			fputs(up, fs);
			i += cl;
		}
	}
	for (; i < len; i++)
		putc(' ', fs);
	if (flags & 1)
		putc('\n', fs);
}

/* ------------------------------------------------------------------ */
/* The NAME column.                                                   */

/* lsof's printinaddr(): "host:port->host:port" */
static char *inaddr_string(const struct lfile *lf)
{
	char *s = sdup("");

	for (int i = 0; i < 2; i++) {
		const struct inaddr *a = &lf->li[i];
		const char *host, *port = NULL;
		char pbuf[32];
		bool any;

		if (!a->af)
			continue;
		if (i)
			s = sfmt("%s->", s);
		if (a->af == AF_INET6)
			any = IN6_IS_ADDR_UNSPECIFIED((const struct in6_addr *)
						      a->a);
		else
			any = !a->a[0] && !a->a[1] && !a->a[2] && !a->a[3];
		host = any ? "*" : gethostnm(a->a, a->af);
		if (a->port > 0) {
			if (opt.fport) {
				if (!strcasecmp(lf->iproto, "TCP"))
					port = lkup_port(a->port, 0, pbuf,
							 sizeof(pbuf));
				else if (!strcasecmp(lf->iproto, "UDP"))
					port = lkup_port(a->port, 1, pbuf,
							 sizeof(pbuf));
			}
			if (!port) {
				snprintf(pbuf, sizeof(pbuf), "%d", a->port);
				port = pbuf;
			}
		} else if (a->port == 0) {
			port = "*";
		}
		s = sfmt("%s%s", s, host);
		if (port)
			s = sfmt("%s:%s", s, port);
	}
	return s;
}

/*
 * The NAME column of @lf, unescaped: its name, or its Internet addresses,
 * then what lsof adds to it; in the table (@field false) the TCP/TPI
 * state as well.
 */
const char *name_string(const struct lfile *lf, bool field)
{
	char *s;
	bool ps = false;

	/* most rows: a name, perhaps an addition, without formatting */
	if (lf->nm && *lf->nm && !lf->li[0].af && !lf->li[1].af &&
	    (field || !has_tcptpi(lf))) {
		size_t n, a;

		if (!lf->nma)
			return lf->nm;
		n = strlen(lf->nm);
		a = strlen(lf->nma);
		s = salloc(n + a + 2);
		memcpy(s, lf->nm, n);
		s[n] = ' ';
		memcpy(s + n + 1, lf->nma, a + 1);
		return s;
	}
	s = sdup("");
	if (lf->nm && *lf->nm) {
		s = sdup(lf->nm);
		ps = true;
	}
	if (!ps || lf->li[0].af || lf->li[1].af) {
		if (lf->li[0].af || lf->li[1].af) {
			char *a = inaddr_string(lf);

			if (*a) {
				s = sfmt("%s%s%s", s, ps ? " " : "", a);
				ps = true;
			}
		} else if ((lf->ntype == N_BLK || lf->ntype == N_CHR) &&
			   lf->dev_def && lf->rdev_def) {
			s = sfmt("%s device: %u,%u",
				 lf->ntype == N_BLK ? "BLK" : "CHR",
				 major(lf->rdev), minor(lf->rdev));
			ps = true;
		}
	}
	if (lf->nma) {
		s = sfmt("%s%s%s", s, ps ? " " : "", lf->nma);
		ps = true;
	}
	if (!field && has_tcptpi(lf)) {
		s = sfmt("%s%s%s", s, ps ? " " : "", tcptpi_text(lf));
	}
	return s;
}

/* ------------------------------------------------------------------ */
/* The table.                                                         */

int pr_pass;			/* 0: sizing, 1: printing */
static bool hdr;
static int cmd_w, pid_w, tid_w, tcmd_w, cntx_w, ppid_w, pgid_w, user_w,
	   fd_w, type_w, fg_w, dev_w, szoff_w, nl_w, node_w;
static bool prt_tid, prt_tcmd;
static int last_pid = -1;

/* The flag names of +f g, or the hex of +f G and -F G. */
const char *print_fflags(unsigned long ffg)
{
	static const struct { unsigned long v; const char *nm; } tab[] = {
		{ 01, "W" }, { 02, "RW" }, { 0100, "CR" }, { 0200, "EXCL" },
		{ 0400, "NTTY" }, { 01000, "TR" }, { 02000, "AP" },
		{ 04000, "ND" }, { 04010000, "SYN" }, { 020000, "ASYN" },
		{ 040000, "DIR" }, { 0200000, "DTY" }, { 0400000, "NFLK" },
		{ 01000000, "NATM" }, { 010000, "DSYN" }, { 04010000, "RSYN" },
		{ 0100000, "LG" }, { 02000000, "CX" }, { 010000000, "PATH" },
		{ 020200000, "TMPF" },
	};
	unsigned long wf = ffg;
	size_t t = 0;
	char *s = sdup("");
	const char *sep = "";

	/* lsof walks its table once, taking the first entry that matches */
	while (wf && !opt.fsv_flagx) {
		while (t < ARRAY_SIZE(tab) && !(wf & tab[t].v))
			t++;
		if (t == ARRAY_SIZE(tab))
			break;
		s = sfmt("%s%s%s", s, sep, tab[t].nm);
		sep = ",";
		wf &= ~tab[t].v;
	}
	if (wf || opt.fsv_flagx) {
		s = sfmt("%s%s0x%lx", s, sep, wf);
		sep = ",";
	}
	/* the process's own flags: there are none on Linux */
	if (opt.fsv_flagx)
		s = sfmt("%s;0x0", s);
	return s;
}

static bool show_fflags(const struct lfile *lf)
{
	return opt.fsv_fg && lf->ffg_def && (opt.fsv_flagx || lf->ffg);
}

/* The FD column's width: the number and its two flags. */
static int fd_column_len(const struct lfile *lf)
{
	return (int)strnlen(lf->fd, sizeof(lf->fd)) + 2;
}

/* SIZE/OFF: the size, or 0t<offset> (0x<offset> beyond -o's digits) */
const char *offset_string(const struct lfile *lf, char *buf, size_t size)
{
	int len;

	(void)size;
	buf[0] = '0';
	buf[1] = 't';
	len = utoa(buf + 2, lf->off);
	if (opt.off_dec_dig && len > opt.off_dec_dig)
		snprintf(buf, size, "%#llx", (unsigned long long)lf->off);
	return buf;
}

/*
 * The strings below are written into @buf, of at least 64 bytes; each
 * returns its length.
 */
static int szoff_string(const struct lfile *lf, char *buf, size_t size)
{
	if (lf->sz_def)
		return utoa(buf, lf->sz);
	if (lf->off_def)
		return (int)strlen(offset_string(lf, buf, size));
	buf[0] = 0;
	return 0;
}

static int dev_string(const struct lfile *lf, char *buf, size_t size)
{
	dev_t d = lf->rdev_def ? lf->rdev : lf->dev;

	if (lf->rdev_def || lf->dev_def) {
		int n = utoa(buf, major(d));

		buf[n++] = ',';
		return n + utoa(buf + n, minor(d));
	}
	snprintf(buf, size, "%s", lf->dev_ch ? lf->dev_ch : "");
	return (int)strlen(buf);
}

static int node_string(const struct lfile *lf, char *buf, size_t size)
{
	if (lf->inp_ty == 1)
		return utoa(buf, lf->inode);
	if (lf->inp_ty == 2)
		snprintf(buf, size, "%s", lf->iproto);
	else
		buf[0] = 0;
	return (int)strlen(buf);
}

static const char *szoff_title(void)
{
	return opt.foffset ? "OFFSET" : opt.fsize ? "SIZE" : "SIZE/OFF";
}

void print_init(void)
{
	pr_pass = (opt.ffield || opt.fterse) ? 1 : 0;
	last_pid = -1;
	hdr = false;
	prt_tid = prt_tcmd = false;
	cmd_w = 7;
	dev_w = 6;
	fd_w = 2;
	nl_w = 5;
	node_w = 4;
	pgid_w = 4;
	pid_w = 3;
	ppid_w = 4;
	szoff_w = strlen(szoff_title());
	tcmd_w = 7;
	tid_w = 3;
	type_w = 4;
	user_w = 4;
	fg_w = 9;
	cntx_w = opt.fcntx ? 16 : 0;
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

static void print_header(void)
{
	printf("%-*.*s %*s", cmd_w, cmd_w, "COMMAND", pid_w, "PID");
	if (prt_tid)
		printf(" %*s", tid_w, "TID");
	if (prt_tcmd)
		printf(" %-*.*s", tcmd_w, tcmd_w, "TASKCMD");
	if (opt.fcntx)
		printf(" %-*s", cntx_w, "SECURITY-CONTEXT");
	if (opt.fppid)
		printf(" %*s", ppid_w, "PPID");
	if (opt.fpgid)
		printf(" %*s", pgid_w, "PGID");
	printf(" %*s %*s   %*s", user_w, "USER", fd_w - 2, "FD", type_w,
	       "TYPE");
	if (opt.fsv_fg)
		printf(" %*s", fg_w, "FILE-FLAG");
	printf(" %*s", dev_w, "DEVICE");
	printf(" %*s", szoff_w, szoff_title());
	if (opt.fnlink)
		printf(" %*s", nl_w, "NLINK");
	printf(" %*s %s\n", node_w, "NODE", "NAME");
	hdr = true;
}

/*
 * A row's middle columns are put together here and written at once: the
 * table has thousands of rows, and printf() per column is what it would
 * spend its time in.
 */
static char *lbuf;
static size_t llen, lcap;

static void l_put(const char *s, size_t n)
{
	if (llen + n > lcap) {
		lcap = (llen + n) * 2 + 256;
		lbuf = xrealloc(lbuf, lcap);
	}
	memcpy(lbuf + llen, s, n);
	llen += n;
}

static void l_flush(void)
{
	/* lbuf is NULL until the first l_put() */
	if (!llen)
		return;
	fwrite_unlocked(lbuf, 1, llen, stdout);
	llen = 0;
}

/*
 * " %*.*s" of @s, of @n bytes: a blank, then @s cut to @prec bytes,
 * right-aligned in @w
 */
static void l_strn(int w, int prec, const char *s, size_t n)
{
	static const char blanks[] = "                                ";
	int pad;

	if (prec < 0)
		n = 0;
	else if (n > (size_t)prec)
		n = prec;
	pad = w - (int)n + 1;

	for (; pad > 0; pad -= (int)sizeof(blanks) - 1)
		l_put(blanks, pad < (int)sizeof(blanks) - 1 ? (size_t)pad :
			      sizeof(blanks) - 1);
	l_put(s, n);
}

/* l_strn() of a C string */
static void l_str(int w, int prec, const char *s)
{
	l_strn(w, prec, s, strlen(s));
}

/* " %*d" */
static void l_int(int w, int v)
{
	char b[24];
	int n;

	if (v < 0)
		n = snprintf(b, sizeof(b), "%d", v);
	else
		n = utoa(b, (unsigned int)v);
	l_strn(w, INT_MAX, b, (size_t)n);
}

/* safestrprtn(@s, @w, stdout, 2): COMMAND, TASKCMD */
static void l_cmd(const char *s, int w)
{
	static const char blanks[] = "                                ";
	size_t n;

	if (!plain_ascii(s, ' ', &n)) {
		l_flush();
		safestrprtn(s, w, stdout, 2);
		return;
	}
	/* a longer one is cut to the column, as safestrprtn() cuts it */
	if (n > (size_t)w)
		n = w < 0 ? 0 : (size_t)w;
	l_put(s, n);
	for (w -= (int)n; w > 0; w -= (int)sizeof(blanks) - 1)
		l_put(blanks, w < (int)sizeof(blanks) - 1 ? (size_t)w :
			      sizeof(blanks) - 1);
}

/* safestrprt(@s, stdout, 0) and a newline, to end the row */
static void l_name(const char *s)
{
	size_t n;

	if (s && plain_ascii(s, '\0', &n)) {
		l_put(s, n);
		l_put("\n", 1);
		l_flush();
		return;
	}
	l_flush();
	safestrprt(s, stdout, 0);
	putchar('\n');
}

/* The width of a COMMAND, +c's limit applied. */
static int cmd_width(const char *cmd)
{
	int len = safestrlen(cmd, 2);

	return opt.cmd_lim && len > opt.cmd_lim ? opt.cmd_lim : len;
}

/* Pass 0: the process's columns as wide as this row needs. */
static void size_proc(const struct lproc *lp, const char *cmd,
		      const char *user)
{
	char buf[32];

	cmd_w = max_i(cmd_w, cmd_width(cmd));
	pid_w = max_i(pid_w, snprintf(buf, sizeof(buf), "%d", lp->pid));
	if (lp->tcmd) {
		tcmd_w = max_i(tcmd_w, cmd_width(lp->tcmd));
		prt_tcmd = true;
	}
	if (lp->tid) {
		tid_w = max_i(tid_w, snprintf(buf, sizeof(buf), "%d",
					      lp->tid));
		prt_tid = true;
	}
	if (opt.fcntx && lp->cntx)
		cntx_w = max_i(cntx_w, strlen(lp->cntx));
	if (opt.fppid)
		ppid_w = max_i(ppid_w, snprintf(buf, sizeof(buf), "%d",
						lp->ppid));
	if (opt.fpgid)
		pgid_w = max_i(pgid_w, snprintf(buf, sizeof(buf), "%d",
						lp->pgid));
	user_w = max_i(user_w, strlen(user));
}

/* Pass 0: the file's columns as wide as this row needs. */
static void size_file(const struct lfile *lf, const char *fg, const char *nl)
{
	char buf[128];

	fd_w = max_i(fd_w, fd_column_len(lf));
	type_w = max_i(type_w, strlen(lf->type));
	if (opt.fsv_fg)
		fg_w = max_i(fg_w, strlen(fg));
	dev_w = max_i(dev_w, dev_string(lf, buf, sizeof(buf)));
	szoff_w = max_i(szoff_w, szoff_string(lf, buf, sizeof(buf)));
	if (opt.fnlink)
		nl_w = max_i(nl_w, strlen(nl));
	node_w = max_i(node_w, node_string(lf, buf, sizeof(buf)));
}

/* Pass 1: COMMAND to USER. */
static void print_proc_columns(const struct lproc *lp, const char *cmd,
			       const char *user)
{
	l_cmd(cmd, cmd_w);
	l_int(pid_w, lp->pid);
	if (prt_tid) {
		if (lp->tid)
			l_int(tid_w, lp->tid);
		else
			l_str(tid_w, tid_w, "");
	}
	if (prt_tcmd) {
		l_put(" ", 1);
		l_cmd(lp->tcmd ? lp->tcmd : "", tcmd_w);
	}
	if (opt.fcntx) {
		const char *c = lp->cntx ? lp->cntx : "";
		size_t n = strlen(c);

		l_put(" ", 1);
		l_put(c, n);
		for (; (int)n < cntx_w; n++)
			l_put(" ", 1);
	}
	if (opt.fppid)
		l_int(ppid_w, lp->ppid);
	if (opt.fpgid)
		l_int(pgid_w, lp->pgid);
	l_str(user_w, user_w, user);
}

/* Pass 1: FD to NAME. */
static void print_file_columns(const struct lfile *lf, const char *fg,
			       const char *nl)
{
	char acc = lf->lock == ' ' ? lf->access :
		   lf->access == ' ' ? '-' : lf->access;
	char ends[2] = { acc, lf->lock }, buf[128];
	int n;

	l_strn(fd_w - 2, fd_w - 2, lf->fd, strnlen(lf->fd, sizeof(lf->fd)));
	l_put(ends, 2);
	l_str(type_w, type_w, lf->type);
	if (opt.fsv_fg)
		l_str(fg_w, fg_w, fg);
	n = dev_string(lf, buf, sizeof(buf));
	l_strn(dev_w, dev_w, buf, n);
	n = szoff_string(lf, buf, sizeof(buf));
	l_strn(szoff_w, szoff_w, buf, n);
	if (opt.fnlink)
		l_str(nl_w, INT_MAX, nl);
	n = node_string(lf, buf, sizeof(buf));
	l_strn(node_w, node_w, buf, n);
	l_put(" ", 1);
	l_name(name_string(lf, false));
}

/*
 * lsof's print_file(): size (pass 0) or print (pass 1) one row. The
 * process's columns are the same in each of its rows: sized at its first
 * (*@sized).
 */
static void print_file(const struct lproc *lp, const struct lfile *lf,
		       bool *sized)
{
	const char *cmd = lp->cmd && *lp->cmd ? lp->cmd : "(unknown)";
	const char *user = printuid(lp->uid, NULL);
	const char *fg = show_fflags(lf) ? print_fflags(lf->ffg) : "";
	char nl[32];

	if (lf->nlink_def)
		snprintf(nl, sizeof(nl), " %ld", lf->nlink);
	else
		nl[0] = 0;
	if (!pr_pass) {
		if (!*sized)
			size_proc(lp, cmd, user);
		*sized = true;
		size_file(lf, fg, nl);
		return;
	}
	if (!hdr)
		print_header();
	print_proc_columns(lp, cmd, user);
	print_file_columns(lf, fg, nl);
}

/* lsof's print_proc(): true when something of @lp was listed. */
bool print_proc(struct lproc *lp)
{
	bool rv = false, sized = false;

	if (!lp->pss)
		return false;
	if (opt.fterse) {
		if (lp->pid == last_pid)
			return false;
		last_pid = lp->pid;
		for (size_t i = 0; i < lp->nfiles; i++)
			if (is_file_sel(lp, &lp->files[i])) {
				printf("%d\n", lp->pid);
				return true;
			}
		return false;
	}
	if (opt.json || opt.jsonl) {
		if (pr_pass)
			json_proc(lp);
		for (size_t i = 0; i < lp->nfiles; i++)
			if (is_file_sel(lp, &lp->files[i]))
				return true;
		return false;
	}
	if (opt.ffield)
		return print_field_proc(lp);
	for (size_t i = 0; i < lp->nfiles; i++) {
		if (!is_file_sel(lp, &lp->files[i]))
			continue;
		rv = true;
		print_file(lp, &lp->files[i], &sized);
	}
	return rv;
}
