// SPDX-License-Identifier: MIT
/*
 * output.c - the table and the JSON document, escaped as lsof escapes.
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
/* Output.                                                            */

bool utf8_locale;

/* Length of a valid, printable UTF-8 sequence at @s, or 0. */
static int utf8_printable(const unsigned char *s)
{
	unsigned cp;
	int n;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
						  cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
		return 0;
	return n;
}

/*
 * lsof's safestrprt(): unprintable bytes as \b \f \n \r \t, ^X, ^? or
 * \xNN; a space too when @space is false (the COMMAND column).
 */
static size_t escape(const char *s, bool space, char *out, size_t limit)
{
	size_t o = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c;) {
		char tmp[8];
		int n = utf8_locale ? utf8_printable(c) : 0;
		size_t tl;

		if (n) {
			memcpy(tmp, c, n);
			tl = n;
			c += n;
		} else {
			unsigned ch = *c++;

			if ((isprint(ch) && ch < 0x80) && (space || ch != ' '))
				tmp[0] = ch, tl = 1;
			else if (ch == '\b')
				tl = 2, memcpy(tmp, "\\b", 2);
			else if (ch == '\f')
				tl = 2, memcpy(tmp, "\\f", 2);
			else if (ch == '\n')
				tl = 2, memcpy(tmp, "\\n", 2);
			else if (ch == '\r')
				tl = 2, memcpy(tmp, "\\r", 2);
			else if (ch == '\t')
				tl = 2, memcpy(tmp, "\\t", 2);
			else if (ch < 0x20)
				tl = snprintf(tmp, sizeof(tmp), "^%c", ch + 0x40);
			else if (ch == 0xff)
				tl = 2, memcpy(tmp, "^?", 2);
			else
				tl = snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
		}
		if (o + tl > limit)
			break;
		if (out)
			memcpy(out + o, tmp, tl);
		o += tl;
	}
	if (out)
		out[o] = 0;
	return o;
}

static const char *cmd_col(const char *cmd)
{
	char *out = salloc(4 * CMD_LIMIT + 1);

	escape(cmd, false, out, CMD_LIMIT);
	return out;
}

static size_t maxz(size_t a, size_t b)
{
	return a > b ? a : b;
}

void print_text(void)
{
	size_t wc = 7, wp = 3, wu = 4, wf = 2, wt = 4, wd = 6, ws = 8, wn = 4;

	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };
		char pid[16];

		if (p->gone || !(p->head.n + p->mem.n + p->files.n))
			continue;
		p->cmd = cmd_col(p->cmd);
		wc = maxz(wc, strlen(p->cmd));
		wp = maxz(wp, snprintf(pid, sizeof(pid), "%d", p->pid));
		wu = maxz(wu, strlen(user_name(p->uid)));
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];

				wf = maxz(wf, strlen(r->fd) + 2);
				wt = maxz(wt, strlen(r->type));
				wd = maxz(wd, strlen(r->device));
				ws = maxz(ws, strlen(r->sizeoff));
				wn = maxz(wn, strlen(r->node));
			}
	}
	printf("%-*s %*s %*s %*s   %*s %*s %*s %*s NAME\n", (int)wc, "COMMAND",
	       (int)wp, "PID", (int)wu, "USER", (int)wf - 2, "FD", (int)wt,
	       "TYPE", (int)wd, "DEVICE", (int)ws, "SIZE/OFF", (int)wn,
	       "NODE");
	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };
		const char *user = user_name(p->uid);

		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];
				char *name = xrealloc(NULL,
						      4 * strlen(r->name) + 1);
				char acc = r->access;

				if (r->lock != ' ' && acc == ' ')
					acc = '-';
				escape(r->name, true, name, SIZE_MAX);
				printf("%-*s %*d %*s %*s%c%c %*s %*s %*s %*s "
				       "%s\n", (int)wc, p->cmd, (int)wp,
				       p->pid, (int)wu, user, (int)wf - 2,
				       r->fd, acc, r->lock, (int)wt, r->type,
				       (int)wd, r->device, (int)ws,
				       r->sizeoff, (int)wn, r->node, name);
				free(name);
			}
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		int n = utf8_printable(c);

		if (n) {
			fwrite(c, 1, n, stdout);
			c += n - 1;
		} else if (*c == '"' || *c == '\\') {
			printf("\\%c", *c);
		} else if (*c < 0x20 || *c >= 0x7f) {
			/* bytes that are not UTF-8 keep their value */
			printf("\\u%04x", *c);
		} else {
			putchar(*c);
		}
	}
	putchar('"');
}

void print_json(void)
{
	bool first = true;

	printf("{\"gvlsof\": [");
	for (size_t i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		struct rows *all[3] = { &p->head, &p->mem, &p->files };

		if (p->gone)
			continue;
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < all[k]->n; j++) {
				struct row *r = &all[k]->v[j];
				char mode[2] = { r->access, 0 };
				char lock[2] = { r->lock, 0 };

				printf("%s\n  {\"command\": ", first ? "" : ",");
				first = false;
				json_str(p->cmd);
				printf(", \"pid\": %d, \"uid\": %u, \"user\": ",
				       p->pid, (unsigned)p->uid);
				json_str(user_name(p->uid));
				printf(", \"fd\": ");
				json_str(r->fd + strspn(r->fd, " "));
				printf(", \"mode\": ");
				json_str(r->access == ' ' ? "" : mode);
				printf(", \"lock\": ");
				json_str(r->lock == ' ' ? "" : lock);
				printf(", \"type\": ");
				json_str(r->type);
				printf(", \"device\": ");
				json_str(r->device);
				printf(", \"size/off\": ");
				json_str(r->sizeoff);
				printf(", \"node\": ");
				json_str(r->node);
				printf(", \"name\": ");
				json_str(r->name);
				putchar('}');
			}
	}
	printf("%s]}\n", first ? "" : "\n");
}
