// SPDX-License-Identifier: MIT
/*
 * options.c - lsof's command line: its option scanner (options may start
 * with "-" or "+", and many take a value only when one follows), every
 * option lsof 4.95 has on Linux, and the checks of their combinations.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gvlsof.h"

/*
 * lsof's GetOpt(): "+" or "-" starts options; an option that may take a
 * value gets the rest of the word or the next word, and may give it back
 * (opt_back()) when it decides that was not its value.
 */
struct getopt {
	int x1, x2;		/* word, character */
	int bk[2];		/* where the value started */
	char p;			/* '+' or '-' */
	char *v;		/* the possible value */
};

static const char rules[] =
	"?a" "b" "c:" "D:" "d:" "e:" "E" "f:" "F:" "g:" "h" "i:" "J" "j" "K:"
	"l" "L:" "m:" "M" "n" "N" "o:" "O" "p:" "Q" "P" "r:" "R" "s:" "S:"
	"t" "T:" "u:" "U" "v" "V" "w" "x:" "X" "Z:";

static int next_opt(struct getopt *g, int argc, char **argv, int *err)
{
	const char *cp;
	int c;

	if (!g->x2) {
		if (g->x1 >= argc ||
		    (argv[g->x1][0] != '-' && argv[g->x1][0] != '+') ||
		    !argv[g->x1][1])
			return -1;
		if (!strcmp(argv[g->x1], "--") || !strcmp(argv[g->x1], "++")) {
			g->x1++;
			return -1;
		}
		g->p = argv[g->x1][0];
		g->x2 = 1;
	}
	*err = 0;
	c = (unsigned char)argv[g->x1][g->x2];
	cp = NULL;
	if (c == ':') {
		fprintf(stderr, "%s: colon is an illegal option character.\n",
			opt.pn);
		*err = 1;
	} else if (!(cp = strchr(rules, c))) {
		fprintf(stderr, "%s: illegal option character: %c\n", opt.pn,
			c);
		*err = 2;
	}
	if (*err) {
		if (argv[g->x1][++g->x2] == '\0') {
			g->x1++;
			g->x2 = 0;
		}
		return c;
	}
	if (cp[1] == ':') {
		if (argv[g->x1][g->x2 + 1] != '\0') {
			g->bk[0] = g->x1;
			g->bk[1] = ++g->x2;
			g->v = &argv[g->x1++][g->x2];
		} else if (++g->x1 >= argc) {
			g->v = NULL;
		} else {
			g->bk[0] = g->x1;
			g->bk[1] = 0;
			g->v = argv[g->x1];
			if (!strcmp(g->v, "--"))
				g->v = NULL;
			else
				g->x1++;
		}
		g->x2 = 0;
	} else {
		if (argv[g->x1][++g->x2] == '\0') {
			g->x2 = 0;
			g->x1++;
		}
		g->v = NULL;
	}
	return c;
}

/* The value was not the option's: scan it again as options. */
static void opt_back(struct getopt *g, int skip)
{
	g->x1 = g->bk[0];
	g->x2 = g->bk[1] + skip;
}

static bool no_value(const struct getopt *g)
{
	return !g->v || *g->v == '-' || *g->v == '+';
}

/* "123abc": the leading number (and how many digits it had) */
static int leading_number(const char *s, int *n)
{
	int v = 0;

	for (*n = 0; isdigit((unsigned char)s[*n]); (*n)++)
		v = v * 10 + (s[*n] - '0');
	return v;
}

/* The field letters -F lists, in lsof's order (for -F? and the JSON). */
const char field_ids[] = "acdDfGikKlLmMnopgPrRsStTuZ0";

/*
 * Every letter of lsof's FieldSel table, which -F takes whether or not
 * this lsof prints the field: C, F and N (the kernel file structure's
 * count, address and node, which Linux does not give), z (Solaris zones)
 * and Z without SELinux print nothing.
 */
static const char field_sel_ids[] = "acCdDfFGikKlLmMnNopgPrRsStTuzZ0";

static bool field_known(int c)
{
	if (c == 'Z' && !opt.cntx_status)
		return false;
	return c && strchr(field_ids, c);
}

/* What a field selects besides itself, as lsof's FieldSel table says. */
static void field_side_effects(int c)
{
	switch (c) {
	case 'G': opt.fsv_fg = 1; break;
	case 'k': opt.fnlink = true; break;
	case 'g': opt.fpgid = true; break;
	case 'R': opt.fppid = true; break;
	case 'T': opt.ftcptpi |= TCPTPI_ALL; break;
	case 'Z': opt.fcntx = opt.cntx_status; break;
	default: break;
	}
}

/* -F with no letters (and -J, -j without -F): every field but r. */
static void select_default_fields(void)
{
	for (const char *c = field_ids; *c; c++) {
		if (*c == 'r' || !field_known(*c))
			continue;
		opt.field_sel[(unsigned char)*c] = true;
		field_side_effects(*c);
	}
}

static int opt_field(struct getopt *g, bool *fh)
{
	int err = 0;

	if (no_value(g) || !strcmp(g->v, "0")) {
		if (g->v) {
			if (*g->v == '-' || *g->v == '+')
				opt_back(g, 0);
			else if (*g->v == '0')
				opt.terminator = '\0';
		}
		select_default_fields();
		opt.ffield = opt.fsv_flagx = true;
		return 0;
	}
	if (!strcmp(g->v, "?")) {
		*fh = true;
		return 0;
	}
	for (const char *c = g->v; *c; c++) {
		if (!strchr(field_sel_ids, *c)) {
			fprintf(stderr, "%s: unknown field: %c\n", opt.pn, *c);
			err++;
			continue;
		}
		opt.field_sel[(unsigned char)*c] = true;
		field_side_effects(*c);
		if (*c == 'G')
			opt.fsv_flagx = true;
		if (*c == '0')
			opt.terminator = '\0';
		if (*c == 'o')
			opt.foffset = true;
	}
	opt.ffield = true;
	return err;
}

/* +c w, -c c */
static int opt_cmd(struct getopt *g)
{
	if (g->p == '+') {
		if (no_value(g) || !isdigit((unsigned char)*g->v)) {
			fprintf(stderr, "%s: +c not followed by width number\n",
				opt.pn);
			if (g->v)
				opt_back(g, 0);
			return 1;
		}
		opt.cmd_lim = atoi(g->v);
		if (opt.cmd_lim > MAXSYSCMDL) {
			fprintf(stderr, "%s: +c %d > what system provides "
				"(%d)\n", opt.pn, opt.cmd_lim, MAXSYSCMDL);
			return 1;
		}
		return 0;
	}
	if (g->v && *g->v == '/')
		return enter_cmd_rx(g->v);
	return enter_str_lst(g->v);
}

/* +f, -f, +f[g|G], -f[g|G] */
static int opt_f(struct getopt *g)
{
	int err = 0;

	if (no_value(g)) {
		opt.ffilesys = g->p == '+' ? 2 : 1;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	for (const char *c = g->v; *c; c++) {
		switch (*c) {
		case 'g':
		case 'G':
			if (g->p == '+') {
				opt.fsv_fg = 1;
				opt.fsv_byf = true;
			} else {
				opt.fsv_fg = 0;
			}
			opt.fsv_flagx = *c == 'G';
			break;
		default:
			fprintf(stderr, "%s: unknown file struct option: %c\n",
				opt.pn, *c);
			err++;
		}
	}
	return err;
}

static int opt_i(struct getopt *g)
{
	if (no_value(g)) {
		opt.fnet = 1;
		opt.fnet_ty = 0;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	return enter_network_address(g->v);
}

static int opt_K(struct getopt *g)
{
	if (no_value(g)) {
		opt.ftask = 1;
		opt.ign_tasks = false;
		opt.sel_flags |= SEL_TASK;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	if (!strcasecmp(g->v, "i")) {
		opt.ftask = 0;
		opt.ign_tasks = true;
		opt.sel_flags &= ~SEL_TASK;
		return 0;
	}
	fprintf(stderr, "%s: -K not followed by i (but by %s)\n", opt.pn,
		g->v);
	return 1;
}

static int opt_L(struct getopt *g)
{
	int n;
	long l;

	opt.fnlink = g->p == '+';
	if (no_value(g)) {
		opt.nlink = 0;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	l = leading_number(g->v, &n);
	if (n) {
		if (g->p != '+') {
			fprintf(stderr, "%s: no number may follow -L\n", opt.pn);
			return 1;
		}
		opt.nlink = l;
		opt.sel_flags |= SEL_NLINK;
	} else {
		opt.nlink = 0;
	}
	if (g->v[n])
		opt_back(g, n);
	return 0;
}

static int opt_m(struct getopt *g)
{
	if (g->p == '-') {
		fprintf(stderr, "%s: -m not supported\n", opt.pn);
		return 1;
	}
	if (no_value(g)) {
		opt.mnt_sup = 1;
		if (g->v)
			opt_back(g, 0);
	} else {
		opt.mnt_sup = 2;
		opt.mnt_sup_path = g->v;
	}
	return 0;
}

static int opt_o(struct getopt *g)
{
	int n, v;

	if (no_value(g)) {
		opt.foffset = true;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	v = leading_number(g->v, &n);
	if (n)
		opt.off_dec_dig = v;
	else
		opt.foffset = true;
	if (g->v[n])
		opt_back(g, n);
	return 0;
}

/* strftime() of the marker format (the user's, as lsof takes it), now. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
size_t marker_format(char *buf, size_t size, const char *fmt)
{
	time_t t = time(NULL);
	struct tm *tm = localtime(&t);

	return tm ? strftime(buf, size, fmt, tm) : 0;
}
#pragma GCC diagnostic pop

static int opt_r(struct getopt *g)
{
	const char *cp;
	int n, v;

	if (g->p == '+')
		opt.rpt_cond = true;
	if (no_value(g)) {
		opt.rpt_tm = RPTTM;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	v = leading_number(g->v, &n);
	opt.rpt_tm = n ? v : RPTTM;
	cp = g->v + n;
	if (!*cp)
		return 0;
	while (*cp == ' ')
		cp++;
	if (*cp == 'c') {
		int c = 0;

		for (cp++; isdigit((unsigned char)*cp); cp++)
			c = c * 10 + (*cp - '0');
		opt.rpt_max_count = c;
	}
	if (*cp != 'm') {
		opt_back(g, n);
		return 0;
	}
	cp++;
	opt.rpt_fmt = (char *)cp;
	{
		size_t l = (strlen(cp) + 1) * 8 + 1;
		char *buf = xrealloc(NULL, l);
		size_t got = marker_format(buf, l - 1, cp);

		free(buf);
		if (got < 1) {
			fprintf(stderr, "%s: illegal <fmt>: \"%s\"\n", opt.pn,
				cp);
			return 1;
		}
	}
	return 0;
}

static int opt_s(struct getopt *g)
{
	if (no_value(g)) {
		opt.fsize = true;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	return enter_state_spec(g->v);
}

static void opt_S(struct getopt *g)
{
	int n, v;

	if (no_value(g)) {
		opt.tm_limit = TMLIMIT;
		if (g->v)
			opt_back(g, 0);
		return;
	}
	v = leading_number(g->v, &n);
	opt.tm_limit = n ? v : TMLIMIT;
	if (g->v[n])
		opt_back(g, n);
	if (opt.tm_limit < TMLIMMIN) {
		fprintf(stderr, "%s: WARNING: -S time (%d) changed to %d\n",
			opt.pn, opt.tm_limit, TMLIMMIN);
		opt.tm_limit = TMLIMMIN;
	}
}

static int opt_T(struct getopt *g)
{
	int err = 0;

	if (no_value(g)) {
		opt.ftcptpi = g->p == '-' ? 0 : TCPTPI_STATE;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	opt.ftcptpi = 0;
	for (const char *c = g->v; *c; c++) {
		switch (*c) {
		case 'f': opt.ftcptpi |= TCPTPI_FLAGS; break;
		case 'q': opt.ftcptpi |= TCPTPI_QUEUES; break;
		case 's': opt.ftcptpi |= TCPTPI_STATE; break;
		default:
			fprintf(stderr,
				"%s: unsupported TCP/TPI info selection: %c\n",
				opt.pn, *c);
			err = 1;
		}
	}
	return err;
}

static int opt_x(struct getopt *g)
{
	int err = 0;

	if (no_value(g)) {
		opt.fxover = XO_ALL;
		if (g->v)
			opt_back(g, 0);
		return 0;
	}
	for (const char *c = g->v; *c; c++) {
		if (*c == 'f') {
			opt.fxover |= XO_FILESYS;
		} else if (*c == 'l') {
			opt.fxover |= XO_SYMLINK;
		} else {
			fprintf(stderr, "%s: unknown cross-over option: %c\n",
				opt.pn, *c);
			err++;
		}
	}
	return err;
}

static int opt_Z(struct getopt *g)
{
	if (!opt.cntx_status) {
		fprintf(stderr, "%s: -Z limited to SELinux\n", opt.pn);
		return 1;
	}
	opt.fcntx = true;
	if (g->v && *g->v != '-' && *g->v != '+')
		return enter_cntx_arg(g->v);
	if (g->v)
		opt_back(g, 0);
	return 0;
}

/* -c^X with -cX, and a TCP state both included and excluded */
static int check_conflicts(void)
{
	int err = 0;

	for (size_t i = 0; opt.ncmdi && i < opt.ncmdl; i++) {
		if (!opt.cmdl[i].x)
			continue;
		for (size_t j = 0; j < opt.ncmdl; j++)
			if (!opt.cmdl[j].x &&
			    !strcmp(opt.cmdl[i].str, opt.cmdl[j].str)) {
				fprintf(stderr, "%s: -c^%s and -c%s conflict.\n",
					opt.pn, opt.cmdl[i].str,
					opt.cmdl[j].str);
				err++;
			}
	}
	for (int i = 0; opt.tcp_st_xn && opt.tcp_st_in && i < ntcp_states;
	     i++)
		if (opt.tcp_st_x[i] && opt.tcp_st_i[i]) {
			fprintf(stderr, "%s: can't include and exclude TCP "
				"state: %s\n", opt.pn, tcp_states[i]);
			err = 1;
		}
	return err;
}

/* -F: not with -t; no %n in the marker format of -r */
static int check_fields(void)
{
	int err = 0;

	if (opt.fterse && !opt.json && !opt.jsonl) {
		fprintf(stderr, "%s: -F and -t are mutually exclusive\n",
			opt.pn);
		err++;
	}
	opt.field_sel['p'] = true;
	for (const char *cp = opt.rpt_fmt ? strchr(opt.rpt_fmt, '%') : NULL;
	     cp; cp = strchr(cp, '%')) {
		if (*++cp == 'n') {
			fprintf(stderr, "%s: %%n illegal in -r m<fmt> when -F "
				"has been specified: \"%s\"\n", opt.pn,
				opt.rpt_fmt);
			err++;
			break;
		} else if (*cp == '%') {
			cp++;
		}
	}
	return err;
}

/* -e and +e: mounted file systems */
static int check_efsys(void)
{
	struct mounts *mp = readmnt();
	int err = 0;

	for (size_t i = 0; i < opt.nefsys; i++) {
		struct efsys *ep = &opt.efsys[i];

		for (struct mounts *m = mp; m; m = m->next)
			if (!strcmp(m->dir, ep->path)) {
				ep->mp = m;
				break;
			}
		if (!ep->mp) {
			fprintf(stderr, "%s: \"-e %s\" is not a mounted file "
				"system.\n", opt.pn, ep->path);
			err++;
		}
	}
	return err;
}

/* The checks lsof makes once every option is in. */
static int check_combinations(bool xover)
{
	int err = check_conflicts();

	if (opt.fsize && opt.foffset) {
		fprintf(stderr, "%s: -o and -s are mutually exclusive\n",
			opt.pn);
		err++;
	}
	if (opt.ffield)
		err += check_fields();
	if (opt.fxover && !xover) {
		fprintf(stderr, "%s: -x must accompany +d or +D\n", opt.pn);
		err++;
	}
	if (opt.json && opt.jsonl) {
		fprintf(stderr, "%s: -J and -j are mutually exclusive\n",
			opt.pn);
		err++;
	}
	if ((opt.json || opt.jsonl) && opt.fterse) {
		fprintf(stderr, "%s: -J/-j and -t are mutually exclusive\n",
			opt.pn);
		err++;
	}
	if (opt.nefsys)
		err += check_efsys();
	return err;
}

/* The selection flags from what was asked for. */
static void compute_selection(int first_name, int argc)
{
	if ((opt.ncmdl && opt.ncmdi) || opt.ncmdrx)
		opt.sel_flags |= SEL_CMD;
	if (opt.ncntx)
		opt.sel_flags |= SEL_CNTX;
	if (opt.nfdl)
		opt.sel_flags |= SEL_FD;
	if (opt.fnet)
		opt.sel_flags |= SEL_NET;
	if (opt.fnfs)
		opt.sel_flags |= SEL_NFS;
	if (opt.funix)
		opt.sel_flags |= SEL_UNX;
	if (opt.npgid && opt.npgidi)
		opt.sel_flags |= SEL_PGID;
	if (opt.npid && opt.npidi)
		opt.sel_flags |= SEL_PID;
	if (opt.nuid && opt.nuidincl)
		opt.sel_flags |= SEL_UID;
	if (opt.nnwad)
		opt.sel_flags |= SEL_NA;
	if (first_name < argc)
		opt.sel_flags |= SEL_NM;
	if (!opt.sel_flags) {
		if (opt.fand) {
			fprintf(stderr, "%s: no select options to AND via -a\n",
				opt.pn);
			usage(1, false, false);
		}
		opt.sel_flags = opt.sel_all;
	} else {
		if (first_name >= argc &&
		    (opt.sel_flags & (SEL_NA | SEL_NET)) &&
		    !(opt.sel_flags & ~(SEL_NA | SEL_NET)))
			opt.sel_inet = true;
		opt.all_proc = false;
	}
}

/* +d D, -d s; +D D (-D is not lsof 4.95's on Linux) */
static int opt_d(struct getopt *g, int c, bool *xover)
{
	if (g->p != '+') {
		if (c == 'd')
			return enter_fd(g->v) ? 1 : 0;
		fprintf(stderr, "%s: unsupported option: -D\n", opt.pn);
		return 1;
	}
	if (enter_dir(g->v, c == 'D'))
		return 1;
	opt.sel_flags |= SEL_NM;
	*xover = true;
	return 0;
}

/* -g [s] */
static int opt_g(struct getopt *g)
{
	int err = 0;

	if (g->v) {
		if (*g->v == '-' || *g->v == '+')
			opt_back(g, 0);
		else if (enter_id(true, g->v))
			err = 1;
	}
	opt.fpgid = true;
	return err;
}

/* -J, -j (lsof 4.99.7's) */
static int opt_json(struct getopt *g, int c)
{
	if (g->p == '+') {
		fprintf(stderr, "%s: +%c is not supported\n", opt.pn, c);
		return 1;
	}
	if (c == 'J')
		opt.json = true;
	else
		opt.jsonl = true;
	opt.ffield = true;
	return 0;
}

/*
 * One option, as lsof's main() takes it: a switch of one line a letter
 * (the table of options is its length). Returns 1 for an error.
 */
static int take_option(int c, struct getopt *g, bool *fh, bool *xover)
{
	switch (c) {
	case 'a': opt.fand = true; return 0;
	case 'b': opt.fblock = true; return 0;
	case 'c': return opt_cmd(g);
	case 'd':
	case 'D': return opt_d(g, c, xover);
	case 'e': return enter_efsys(g->v, g->p == '+');
	case 'E': opt.feptE = g->p == '+' ? 2 : 1; return 0;
	case 'f': return opt_f(g);
	case 'F': return opt_field(g, fh);
	case 'g': return opt_g(g);
	case 'h':
	case '?': opt.fhelp = true; return 0;
	case 'i': return opt_i(g);
	case 'J':
	case 'j': return opt_json(g, c);
	case 'K': return opt_K(g);
	case 'l': opt.futol = false; return 0;
	case 'L': return opt_L(g);
	case 'm': return opt_m(g);
	case 'M': opt.fportmap = g->p == '+'; return 0;
	case 'n': opt.fhost = g->p != '-'; return 0;
	case 'N': opt.fnfs = 1; return 0;
	case 'o': return opt_o(g);
	case 'O': opt.fovhd = g->p == '-'; return 0;
	case 'p': return enter_id(false, g->v);
	case 'Q': opt.fsearch_err = false; return 0;
	case 'P': opt.fport = g->p != '-'; return 0;
	case 'r': return opt_r(g);
	case 'R': opt.fppid = true; return 0;
	case 's': return opt_s(g);
	case 'S': opt_S(g); return 0;
	case 't': opt.fterse = opt.fwarn = true; return 0;
	case 'T': return opt_T(g);
	case 'u': return enter_uid(g->v);
	case 'U': opt.funix = true; return 0;
	case 'v': opt.version = true; return 0;
	case 'V': opt.fverbose = true; return 0;
	case 'w': opt.fwarn = g->p != '+'; return 0;
	case 'x': return opt_x(g);
	case 'X': opt.fxopt = !opt.fxopt; return 0;
	case 'Z': return opt_Z(g);
	default:
		fprintf(stderr, "%s: unknown option (%c)\n", opt.pn, c);
		return 1;
	}
}

/* -J, -j without -F's letters: the default fields */
static void json_fields(void)
{
	for (const char *f = field_ids; *f; f++)
		if (opt.field_sel[(unsigned char)*f] && *f != 'p' && *f != 'm')
			return;
	select_default_fields();
}

void parse_options(int argc, char **argv)
{
	struct getopt g = { .x1 = 1 };
	bool fh = false, xover = false;
	int c, e, err = 0;

	while ((c = next_opt(&g, argc, argv, &e)) != -1)
		if (e || take_option(c, &g, &fh, &xover))
			err = 1;
	opt.sel_all = opt.ign_tasks ? (SEL_ALL & ~SEL_TASK) : SEL_ALL;
	opt.sel_proc = opt.ign_tasks ? (SEL_PROC & ~SEL_TASK) : SEL_PROC;
	err |= check_combinations(xover);
	if ((opt.json || opt.jsonl) && !err)
		json_fields();
	if (err || opt.fhelp || fh || opt.version)
		usage(err ? 1 : 0, fh, opt.version);
	compute_selection(g.x1, argc);
	if (g.x1 < argc &&
	    ck_file_arg(g.x1, argc, argv, opt.ffilesys, false, NULL,
			!opt.fsearch_err))
		exit(1);
	if (opt.fxopt && (opt.fnet || opt.nnwad)) {
		fprintf(stderr, "%s: -i is useless when -X is specified.\n",
			opt.pn);
		usage(1, false, false);
	}
}
