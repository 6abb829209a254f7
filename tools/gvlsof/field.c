// SPDX-License-Identifier: MIT
/*
 * field.c - the rows as -F fields (a letter, the value, a newline or with
 * -F0 a NUL), and as -J JSON or -j JSON lines, lsof 4.99.7's formats: the
 * same fields, the same selection, JSON's escaping.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "gvlsof.h"

static bool sel(int c)
{
	return opt.field_sel[(unsigned char)c];
}

static void term(void)
{
	putchar(opt.terminator);
}

static bool show_fflags(const struct lfile *lf)
{
	return opt.fsv_fg && lf->ffg_def && (opt.fsv_flagx || lf->ffg);
}

/* The FD field: the descriptor without its leading blanks. */
const char *fd_trimmed(const struct lfile *lf)
{
	const char *cp = lf->fd;

	while (*cp == ' ')
		cp++;
	return cp;
}

static const char *trimmed(const char *s)
{
	while (s && *s == ' ')
		s++;
	return s;
}

/* One field: the letter and value of @fmt, then the terminator; 1. */
static int __attribute__((format(printf, 1, 2))) field(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	term();
	return 1;
}

/* The process's fields, after its p field. */
static void field_proc(const struct lproc *lp)
{
	bool numeric;
	const char *login;

	if (sel('K') && lp->tid)
		field("K%d", lp->tid);
	if (sel('M') && lp->tcmd)
		field("M%s", lp->tcmd);
	if (sel('Z') && opt.fcntx && lp->cntx && opt.cntx_status)
		field("Z%s", lp->cntx);
	if (sel('g') && opt.fpgid)
		field("g%d", lp->pgid);
	if (sel('R') && opt.fppid)
		field("R%d", lp->ppid);
	if (sel('c')) {
		putchar('c');
		safestrprt(lp->cmd ? lp->cmd : "(unknown)", stdout, 0);
		term();
	}
	if (sel('u'))
		field("u%d", (int)lp->uid);
	if (sel('L')) {
		login = printuid(lp->uid, &numeric);
		if (!numeric)
			field("L%s", login);
	}
}

/* The fields of one file, in lsof's order; how many were printed. */
static int field_file(const struct lfile *lf)
{
	char buf[64];
	int lc = 0;

	if (sel('f'))
		lc += field("f%s", fd_trimmed(lf));
	if (sel('a'))
		lc += field("a%c", lf->access);
	if (sel('l'))
		lc += field("l%c", lf->lock);
	if (sel('t') && *trimmed(lf->type))
		lc += field("t%s", trimmed(lf->type));
	if (sel('G') && show_fflags(lf))
		lc += field("G%s", print_fflags(lf->ffg));
	if (sel('d') && lf->dev_ch && *trimmed(lf->dev_ch))
		lc += field("d%s", trimmed(lf->dev_ch));
	if (sel('D') && lf->dev_def)
		lc += field("D0x%lx", (unsigned long)lf->dev);
	if (sel('r') && lf->rdev_def)
		lc += field("r0x%lx", (unsigned long)lf->rdev);
	if (sel('s') && lf->sz_def)
		lc += field("s%llu", (unsigned long long)lf->sz);
	if (sel('o') && lf->off_def)
		lc += field("o%s", offset_string(lf, buf, sizeof(buf)));
	if (sel('i') && lf->inp_ty == 1)
		lc += field("i%llu", (unsigned long long)lf->inode);
	if (sel('k') && lf->nlink_def)
		lc += field("k%ld", lf->nlink);
	if (sel('P') && lf->inp_ty == 2 && *trimmed(lf->iproto))
		lc += field("P%s", trimmed(lf->iproto));
	if (sel('n')) {
		putchar('n');
		safestrprt(name_string(lf, true), stdout, 0);
		term();
		lc++;
	}
	if (lf->lts.type >= 0 && sel('T')) {
		const char *t[4];
		size_t n = tcptpi_fields(lf, t, 4);

		for (size_t k = 0; k < n; k++)
			field("T%s", t[k]);
		lc++;
	}
	return lc;
}

/* lsof's print_proc() with -F. */
bool print_field_proc(struct lproc *lp)
{
	bool any = false;

	for (size_t i = 0; i < lp->nfiles && !any; i++)
		any = is_file_sel(lp, &lp->files[i]);
	if (!any)
		return false;
	field("p%d", lp->pid);
	field_proc(lp);
	if (!opt.terminator)
		putchar('\n');
	for (size_t i = 0; i < lp->nfiles; i++) {
		const struct lfile *lf = &lp->files[i];

		if (is_file_sel(lp, lf) && field_file(lf) && !opt.terminator)
			putchar('\n');
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* JSON (-J) and JSON lines (-j).                                     */

static bool json_first_proc;

/*
 * Control characters, '"' and '\\' escaped; other bytes, valid UTF-8 or
 * not, as they are (as lsof 4.99.7, lsfd and ip -j do).
 */
static void json_puts(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\b': fputs("\\b", stdout); break;
		case '\f': fputs("\\f", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
}

static void json_key(bool *sep, const char *key)
{
	if (*sep)
		putchar(',');
	printf("\"%s\":", key);
	*sep = true;
}

static void json_str(bool *sep, const char *key, const char *v)
{
	json_key(sep, key);
	putchar('"');
	json_puts(v);
	putchar('"');
}

static void json_char(bool *sep, const char *key, char c)
{
	char s[2] = { c, 0 };

	json_str(sep, key, s);
}

static void json_int(bool *sep, const char *key, long long v)
{
	json_key(sep, key);
	printf("%lld", v);
}

static void json_u64_str(bool *sep, const char *key, unsigned long long v)
{
	json_key(sep, key);
	printf("\"%llu\"", v);
}

static void json_proc_fields(const struct lproc *lp, bool *sep)
{
	bool numeric;
	const char *login;

	if (sel('p'))
		json_int(sep, "pid", lp->pid);
	if (sel('K') && lp->tid)
		json_int(sep, "tid", lp->tid);
	if (sel('M') && lp->tcmd)
		json_str(sep, "task_cmd", lp->tcmd);
	if (sel('Z') && opt.fcntx && lp->cntx && opt.cntx_status)
		json_str(sep, "security_context", lp->cntx);
	if (sel('g') && opt.fpgid)
		json_int(sep, "pgid", lp->pgid);
	if (sel('R') && opt.fppid)
		json_int(sep, "ppid", lp->ppid);
	if (sel('c'))
		json_str(sep, "command", lp->cmd ? lp->cmd : "(unknown)");
	if (sel('u'))
		json_int(sep, "uid", (int)lp->uid);
	if (sel('L')) {
		login = printuid(lp->uid, &numeric);
		if (!numeric)
			json_str(sep, "login", login);
	}
}

static void json_file_fields(const struct lfile *lf, bool *sep)
{
	char buf[64];

	if (sel('f'))
		json_str(sep, "fd", fd_trimmed(lf));
	if (sel('a') && lf->access != ' ')
		json_char(sep, "access", lf->access);
	if (sel('l') && lf->lock != ' ')
		json_char(sep, "lock", lf->lock);
	if (sel('t') && *trimmed(lf->type))
		json_str(sep, "type", trimmed(lf->type));
	if (sel('d') && lf->dev_ch && *trimmed(lf->dev_ch))
		json_str(sep, "device", trimmed(lf->dev_ch));
	if (sel('D') && lf->dev_def) {
		snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)lf->dev);
		json_str(sep, "device_number", buf);
	}
	if (sel('r') && lf->rdev_def) {
		snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)lf->rdev);
		json_str(sep, "raw_device", buf);
	}
	if (sel('s') && lf->sz_def)
		json_u64_str(sep, "size", lf->sz);
	if (sel('o') && lf->off_def)
		json_u64_str(sep, "offset", lf->off);
	if (sel('i') && lf->inp_ty == 1)
		json_u64_str(sep, "inode", lf->inode);
	if (sel('k') && lf->nlink_def)
		json_int(sep, "nlink", lf->nlink);
	if (sel('P') && lf->inp_ty == 2 && *trimmed(lf->iproto))
		json_str(sep, "protocol", trimmed(lf->iproto));
	if (sel('G') && show_fflags(lf))
		json_str(sep, "flags", print_fflags(lf->ffg));
	if (sel('n'))
		json_str(sep, "name", name_string(lf, true));
	if (lf->lts.type >= 0 && sel('T')) {
		bool tsep = false;

		json_key(sep, "tcp_info");
		putchar('{');
		if (!strcmp(lf->type, "unix")) {
			if (opt.ftcptpi & TCPTPI_STATE)
				json_str(&tsep, "state", unix_state(lf));
		} else {
			const char *t[4];
			size_t n = tcptpi_fields(lf, t, 4);

			for (size_t k = 0; k < n; k++) {
				if (!strncmp(t[k], "ST=", 3))
					json_str(&tsep, "state", t[k] + 3);
				else if (!strncmp(t[k], "QR=", 3))
					json_int(&tsep, "recv_queue",
						 strtoll(t[k] + 3, NULL, 10));
				else if (!strncmp(t[k], "QS=", 3))
					json_int(&tsep, "send_queue",
						 strtoll(t[k] + 3, NULL, 10));
			}
		}
		putchar('}');
	}
}

void json_open(void)
{
	printf("{\"lsof_version\":\"%s\",\"processes\":[", LSOF_REVISION);
	json_first_proc = true;
}

void json_close(void)
{
	printf("]}\n");
}

void json_proc(struct lproc *lp)
{
	bool any = false;

	for (size_t i = 0; i < lp->nfiles && !any; i++)
		any = is_file_sel(lp, &lp->files[i]);
	if (!any)
		return;
	if (opt.json) {
		bool sep = false, first = true;

		if (!json_first_proc)
			putchar(',');
		json_first_proc = false;
		putchar('{');
		json_proc_fields(lp, &sep);
		if (sep)
			putchar(',');
		printf("\"files\":[");
		for (size_t i = 0; i < lp->nfiles; i++) {
			bool fsep = false;

			if (!is_file_sel(lp, &lp->files[i]))
				continue;
			if (!first)
				putchar(',');
			putchar('{');
			json_file_fields(&lp->files[i], &fsep);
			putchar('}');
			first = false;
		}
		printf("]}");
		return;
	}
	for (size_t i = 0; i < lp->nfiles; i++) {
		bool sep = false;

		if (!is_file_sel(lp, &lp->files[i]))
			continue;
		putchar('{');
		json_proc_fields(lp, &sep);
		json_file_fields(&lp->files[i], &sep);
		printf("}\n");
	}
}
