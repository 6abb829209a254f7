// SPDX-License-Identifier: MIT
/*
 * args.c - the values of lsof's selection options, parsed and checked as
 * lsof parses and checks them: process and group IDs, users, descriptor
 * sets, commands and regular expressions, TCP states (inet.c has -i),
 * exempt file systems, security contexts. files.c has the file names.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* -p, -g                                                             */

int enter_id(bool pgid, char *p)
{
	struct int_lst **sp = pgid ? &opt.spgid : &opt.spid;
	size_t *n = pgid ? &opt.npgid : &opt.npid;
	size_t *ni = pgid ? &opt.npgidi : &opt.npidi;
	size_t *nx = pgid ? &opt.npgidx : &opt.npidx;
	const char *what = pgid ? " group" : "";
	int err = 0;

	if (!p) {
		fprintf(stderr, "%s: no process%s ID specified\n", opt.pn, what);
		return 1;
	}
	for (char *cp = p; *cp;) {
		bool first = true, x = false, dup = false;
		int id = 0;

		for (; *cp && *cp != ','; cp++) {
			if (first) {
				first = false;
				if (*cp == '^') {
					x = true;
					continue;
				}
			}
			if (!isdigit((unsigned char)*cp)) {
				fprintf(stderr, "%s: illegal process%s ID: ",
					opt.pn, what);
				safestrprt(p, stderr, 1);
				return 1;
			}
			id = id * 10 + (*cp - '0');
		}
		if (*cp)
			cp++;
		for (size_t i = 0; i < *n; i++) {
			if ((*sp)[i].id != id)
				continue;
			if ((*sp)[i].x == x) {
				dup = true;
				continue;
			}
			fprintf(stderr, "%s: P%sID %d has been included and "
				"excluded.\n", opt.pn, pgid ? "G" : "", id);
			err = 1;
			dup = true;
			break;
		}
		if (dup)
			continue;
		*sp = xrealloc(*sp, (*n + 1) * sizeof(**sp));
		(*sp)[(*n)++] = (struct int_lst){ .id = id, .x = x };
		if (x)
			(*nx)++;
		else
			(*ni)++;
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* -u                                                                 */

/* One -u item up to the next ',': a login name or a UID, maybe ^'ed. */
struct uid_item {
	char lnm[LOGINML + 1];
	size_t lnml;
	bool excl, nn;		/* excluded; a name, not a number */
	uid_t uid;
};

/* Read an item at *@sp, moving past it; false (said) if too long. */
static bool uid_item(char **sp, struct uid_item *it)
{
	char *s = *sp, *st = s;
	bool ok = true;

	*it = (struct uid_item){ 0 };
	for (int i = 0; *s && *s != ','; i++, s++) {
		if (it->lnml >= LOGINML) {
			while (*s && *s != ',') {
				s++;
				it->lnml++;
			}
			fprintf(stderr, "%s: -u login name > %d characters: ",
				opt.pn, LOGINML);
			safestrprtn(st, (int)it->lnml, stderr, 1);
			ok = false;
			break;
		}
		if (i == 0 && *s == '^') {
			it->excl = true;
			continue;
		}
		it->lnm[it->lnml++] = *s;
		if (it->nn)
			continue;
		if (isdigit((unsigned char)*s))
			it->uid = it->uid * 10 + (*s - '0');
		else
			it->nn = true;
	}
	it->lnm[it->lnml < sizeof(it->lnm) ? it->lnml : 0] = 0;
	*sp = *s ? s + 1 : s;
	return ok;
}

/* Enter @it unless it is there already; false for an error. */
static bool uid_add(const struct uid_item *it)
{
	for (size_t i = 0; i < opt.nuid; i++) {
		if (opt.suid[i].uid != it->uid)
			continue;
		if (opt.suid[i].excl == it->excl)
			return true;
		fprintf(stderr, "%s: UID %d has been included and excluded.\n",
			opt.pn, (int)it->uid);
		return false;
	}
	opt.suid = xrealloc(opt.suid, (opt.nuid + 1) * sizeof(*opt.suid));
	opt.suid[opt.nuid++] = (struct seluid){
		.uid = it->uid, .excl = it->excl, .by_name = it->nn,
	};
	if (it->excl)
		opt.nuidexcl++;
	else
		opt.nuidincl++;
	return true;
}

int enter_uid(char *us)
{
	int err = 0;

	if (!us) {
		fprintf(stderr, "%s: no UIDs specified\n", opt.pn);
		return 1;
	}
	for (char *s = us; *s;) {
		struct uid_item it;

		if (!uid_item(&s, &it)) {
			err = 1;
			continue;
		}
		if (it.nn) {
			struct passwd *pw = getpwnam(it.lnm);

			if (!pw) {
				fprintf(stderr, "%s: can't get UID for ",
					opt.pn);
				safestrprt(it.lnm, stderr, 1);
				err = 1;
				continue;
			}
			it.uid = pw->pw_uid;
		}
		if (!uid_add(&it))
			err = 1;
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* -d                                                                 */

static int ckfd_range(const char *first, const char *dash, const char *last,
		      int *lo, int *hi)
{
	const char *cp;

	if (first >= dash || dash >= last) {
		fprintf(stderr, "%s: illegal FD range for -d: ", opt.pn);
		safestrprt(first, stderr, 1);
		return 1;
	}
	for (cp = first, *lo = 0; *cp && cp < dash; cp++) {
		if (!isdigit((unsigned char)*cp))
			goto nondigit;
		*lo = *lo * 10 + (*cp - '0');
	}
	for (cp = dash + 1, *hi = 0; *cp && cp < last; cp++) {
		if (!isdigit((unsigned char)*cp))
			goto nondigit;
		*hi = *hi * 10 + (*cp - '0');
	}
	if (*lo >= *hi) {
		fprintf(stderr, "%s: -d FD range's low >= its high: ", opt.pn);
		safestrprt(first, stderr, 1);
		return 1;
	}
	return 0;
nondigit:
	fprintf(stderr, "%s: non-digit in -d FD range: ", opt.pn);
	safestrprt(first, stderr, 1);
	return 1;
}

static int enter_fd_lst(const char *nm, int lo, int hi, bool excl)
{
	struct fd_lst f = { .lo = lo, .hi = hi };

	if (opt.fdl_ty >= 0 && opt.fdl_ty != excl) {
		if (!opt.fwarn) {
			char buf[256];

			if (nm)
				snprintf(buf, sizeof(buf), "%s%s",
					 excl ? "^" : "", nm);
			else if (lo != hi)
				snprintf(buf, sizeof(buf), "%s%d-%d",
					 excl ? "^" : "", lo, hi);
			else
				snprintf(buf, sizeof(buf), "%s%d",
					 excl ? "^" : "", lo);
			fprintf(stderr, "%s: %s in an %s -d list: %s\n", opt.pn,
				excl ? "exclude" : "include",
				opt.fdl_ty ? "exclude" : "include", buf);
		}
		return 1;
	}
	if (nm) {
		const char *cp;
		int n = 0;

		for (cp = nm; isdigit((unsigned char)*cp); cp++)
			n = n * 10 + (*cp - '0');
		if (*cp) {
			f.nm = xstrdup(nm);
			f.lo = 1;
			f.hi = 0;
		} else {
			f.lo = f.hi = n;
		}
	}
	for (size_t i = 0; i < opt.nfdl; i++) {
		const struct fd_lst *t = &opt.fdl[i];

		if (f.nm ? (t->nm && !strcmp(f.nm, t->nm)) :
			   (!t->nm && f.lo == t->lo && f.hi == t->hi)) {
			free(f.nm);
			return 0;
		}
	}
	if (f.nm && !strcmp(f.nm, "fd")) {
		free(f.nm);
		f.nm = NULL;
		f.lo = 0;
		f.hi = INT_MAX;
	}
	opt.fdl = xrealloc(opt.fdl, (opt.nfdl + 1) * sizeof(*opt.fdl));
	opt.fdl[opt.nfdl++] = f;
	opt.fdl_ty = excl;
	return 0;
}

int enter_fd(char *f)
{
	char *fc, *cp1;
	int err = 0;

	if (!f || strlen(f) + 1 < 2) {
		fprintf(stderr, "%s: no file descriptor specified\n", opt.pn);
		return 1;
	}
	fc = xstrdup(f);
	for (cp1 = fc; *cp1;) {
		char *cp2, *dash = NULL, c;
		bool excl = false;
		int lo, hi;

		if (*cp1 == '^') {
			excl = true;
			cp1++;
		}
		for (cp2 = cp1; *cp2 && *cp2 != ','; cp2++)
			if (*cp2 == '-')
				dash = cp2;
		c = *cp2;
		*cp2 = 0;
		if (cp2 > cp1) {
			if (dash) {
				if (ckfd_range(cp1, dash, cp2, &lo, &hi) ||
				    enter_fd_lst(NULL, lo, hi, excl))
					err = 1;
			} else if (enter_fd_lst(cp1, 0, 0, excl)) {
				err = 1;
			}
		}
		if (!c)
			break;
		cp1 = cp2 + 1;
	}
	free(fc);
	return err;
}

/* ------------------------------------------------------------------ */
/* -c                                                                 */

int enter_str_lst(char *s)
{
	struct str_lst l = { 0 };

	if (!s || *s == '-' || *s == '+') {
		fprintf(stderr, "%s: missing -c option value\n", opt.pn);
		return 1;
	}
	if (*s == '^') {
		l.x = true;
		s++;
	}
	l.str = xstrdup(s);
	l.len = strlen(s);
	if (l.len > MAXSYSCMDL) {
		fprintf(stderr, "%s: \"-c ", opt.pn);
		safestrprt(l.str, stderr, 2);
		fprintf(stderr, "\" length (%zu) > what system provides (%d)\n",
			l.len, MAXSYSCMDL);
		l.len = 0;
		opt.cmdl = xrealloc(opt.cmdl, (opt.ncmdl + 1) *
				    sizeof(*opt.cmdl));
		opt.cmdl[opt.ncmdl++] = l;
		if (l.x)
			opt.ncmdx++;
		else
			opt.ncmdi++;
		return 1;
	}
	opt.cmdl = xrealloc(opt.cmdl, (opt.ncmdl + 1) * sizeof(*opt.cmdl));
	opt.cmdl[opt.ncmdl++] = l;
	if (l.x)
		opt.ncmdx++;
	else
		opt.ncmdi++;
	return 0;
}

/* A regexp modifier given a second time: said once, an error each time. */
static bool rx_repeated(int *count, const char *what, const char *x)
{
	if (++*count == 1)
		return false;
	if (*count == 2) {
		fprintf(stderr, "%s: %s regexp modifier already used: ",
			opt.pn, what);
		safestrprt(x, stderr, 1);
	}
	return true;
}

/* b with x: said once, an error each time */
static bool rx_conflict(int *bxmod, const char *x)
{
	if (++*bxmod == 1) {
		fprintf(stderr, "%s: b and x regexp modifiers conflict: ",
			opt.pn);
		safestrprt(x, stderr, 1);
	}
	return true;
}

/* The modifiers after the closing '/' at @xe, into *@co; false if bad. */
static bool rx_modifiers(const char *x, const char *xe, int *co)
{
	int bmod = 0, imod = 0, xmod = 0, bxmod = 0;
	bool bad = false;

	for (const char *xm = xe + 1; *xm; xm++) {
		switch (*xm) {
		case 'b':
			if (rx_repeated(&bmod, "b", x))
				bad = true;
			else if (xmod)
				bad = rx_conflict(&bxmod, x);
			else
				*co &= ~REG_EXTENDED;
			break;
		case 'i':
			if (rx_repeated(&imod, "i", x))
				bad = true;
			else
				*co |= REG_ICASE;
			break;
		case 'x':
			if (rx_repeated(&xmod, "x", x))
				bad = true;
			else if (bmod)
				bad = rx_conflict(&bxmod, x);
			else
				*co |= REG_EXTENDED;
			break;
		default:
			fprintf(stderr, "%s: invalid regexp modifier: %c\n",
				opt.pn, *xm);
			bad = true;
		}
	}
	return !bad;
}

/* lsof's enter_cmd_rx(): -c /regexp/[bix] */
int enter_cmd_rx(char *x)
{
	int co = REG_NOSUB | REG_EXTENDED, re;
	struct cmd_rx rx = { 0 };
	char *xe, reb[256];

	for (xe = x + 1; *xe && *xe != '/'; xe++)
		;
	if (*xe != '/') {
		fprintf(stderr, "%s: regexp doesn't end with '/': ", opt.pn);
		safestrprt(x, stderr, 1);
		return 1;
	}
	if (!rx_modifiers(x, xe, &co))
		return 1;
	rx.exp = xstrdup(x + 1);
	rx.exp[xe - x - 1] = 0;
	if ((re = regcomp(&rx.cx, rx.exp, co))) {
		fprintf(stderr, "%s: regexp error: ", opt.pn);
		safestrprt(x, stderr, 0);
		regerror(re, &rx.cx, reb, sizeof(reb));
		fprintf(stderr, ": %s\n", reb);
		free(rx.exp);
		return 1;
	}
	opt.cmdrx = xrealloc(opt.cmdrx, (opt.ncmdrx + 1) * sizeof(*opt.cmdrx));
	opt.cmdrx[opt.ncmdrx++] = rx;
	return 0;
}

/* ------------------------------------------------------------------ */
/* -s TCP:states                                                      */

const char *const tcp_states[] = {
	"CLOSED", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
	"FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK",
	"LISTEN", "CLOSING",
};
const int ntcp_states = ARRAY_SIZE(tcp_states);

int enter_state_spec(char *ss)
{
	char *copy, *cp;
	int err = 0;

	if (!strncasecmp(ss, "tcp:", 4)) {
		;
	} else if (!strncasecmp(ss, "UDP:", 4)) {
		if (!ss[4]) {
			fprintf(stderr, "%s: no UDP state names in: %s\n",
				opt.pn, ss);
			return 1;
		}
		/* Linux has no UDP states lsof knows by name */
		fprintf(stderr, "%s: no UDP state names available: %s\n",
			opt.pn, ss);
		return 1;
	} else {
		fprintf(stderr, "%s: unknown -s protocol: \"%s\"\n", opt.pn,
			ss);
		return 1;
	}
	if (!ss[4]) {
		fprintf(stderr, "%s: no TCP state names in: %s\n", opt.pn, ss);
		return 1;
	}
	copy = xstrdup(ss + 4);
	for (cp = copy; *cp;) {
		bool x = false;
		char *ns;
		int i;

		if (*cp == '^') {
			x = true;
			cp++;
		}
		ns = cp;
		while (*cp && *cp != ',')
			cp++;
		if (*cp)
			*cp++ = 0;
		if (!*ns) {
			fprintf(stderr, "%s: NULL TCP state name in: %s\n",
				opt.pn, ss);
			err = 1;
			continue;
		}
		for (i = 0; i < ntcp_states; i++)
			if (!strcasecmp(ns, tcp_states[i]))
				break;
		if (i == ntcp_states) {
			fprintf(stderr, "%s: unknown TCP state name: %s\n",
				opt.pn, ns);
			err = 1;
			continue;
		}
		if (x ? opt.tcp_st_x[i] : opt.tcp_st_i[i]) {
			fprintf(stderr, "%s: duplicate TCP %sclusion: %s\n",
				opt.pn, x ? "ex" : "in", ns);
			err = 1;
			continue;
		}
		if (x) {
			opt.tcp_st_x[i] = 1;
			opt.tcp_st_xn++;
		} else {
			opt.tcp_st_i[i] = 1;
			opt.tcp_st_in++;
		}
	}
	free(copy);
	return err;
}

/* ------------------------------------------------------------------ */
/* -e, +e, -Z                                                          */

int enter_efsys(char *e, bool rdlnk)
{
	char *path;
	size_t i;

	if (!e || *e != '/') {
		if (!opt.fwarn)
			fprintf(stderr, "%s: -e not followed by a file system "
				"path: \"%s\"\n", opt.pn, e ? e : "(null)");
		return 1;
	}
	path = rdlnk ? e : Readlink(e);
	if (!path)
		return 1;
	path = xstrdup(path);
	for (i = strlen(path); i > 1 && path[i - 1] == '/'; i--)
		path[i - 1] = 0;
	for (size_t k = 0; k < opt.nefsys; k++)
		if (!strcmp(opt.efsys[k].path, path)) {
			free(path);
			return 0;
		}
	opt.efsys = xrealloc(opt.efsys, (opt.nefsys + 1) * sizeof(*opt.efsys));
	opt.efsys[opt.nefsys++] = (struct efsys){ .path = path, .pathl = i,
						  .rdlnk = rdlnk };
	return 0;
}

int enter_cntx_arg(char *cntx)
{
	for (size_t i = 0; i < opt.ncntx; i++)
		if (!strcmp(opt.cntx_args[i], cntx)) {
			if (!opt.fwarn)
				fprintf(stderr, "%s: duplicate context: %s\n",
					opt.pn, cntx);
			return 1;
		}
	opt.cntx_args = xrealloc(opt.cntx_args, (opt.ncntx + 1) *
				 sizeof(*opt.cntx_args));
	opt.cntx_found = xrealloc(opt.cntx_found, (opt.ncntx + 1) *
				  sizeof(*opt.cntx_found));
	opt.cntx_args[opt.ncntx] = cntx;
	opt.cntx_found[opt.ncntx++] = false;
	return 0;
}
