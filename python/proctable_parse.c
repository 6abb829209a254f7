// SPDX-License-Identifier: MIT
/*
 * proctable_parse.c - the /proc files of a process, parsed as psutil's
 * _pslinux.py parses them (the same fields, the same lines, the same
 * index after the name in stat), into numbers; no Python objects.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "getvalues.h"
#include "proctable.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/* A decimal number, all of @p..@len (an optional '-' first). */
bool pt_is_number(const char *p, size_t len, long long *out)
{
	unsigned long long v = 0;
	bool neg = false;
	size_t i = 0;

	if (len && p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned long long)(p[i] - '0');
	}
	*out = neg ? -(long long)v : (long long)v;
	return true;
}

/*
 * The whitespace-separated fields of @p..@end (as bytes.split() cuts
 * them), the first @max of them into @f/@flen; returns how many there are
 * (up to @max).
 */
static size_t split_fields(const char *p, const char *end, const char **f,
			   size_t *flen, size_t max)
{
	size_t n = 0;

	while (p < end && n < max) {
		const char *s;

		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		s = p;
		while (p < end && !is_space(*p))
			p++;
		f[n] = s;
		flen[n++] = (size_t)(p - s);
	}
	return n;
}

static bool field_num(const char **f, const size_t *flen, size_t i,
		      unsigned long long *out)
{
	long long v;

	if (!pt_is_number(f[i], flen[i], &v))
		return false;
	*out = (unsigned long long)v;
	return true;
}

/*
 * /proc/PID/stat: the name between the first '(' and the last ')', the
 * fields after ") " by psutil's index (man proc's position minus 3).
 */
bool pt_parse_stat(const struct pt_val *v, struct pt_stat *st)
{
	const char *f[40], *lpar, *rpar, *end = v->p + v->len;
	size_t flen[40];
	unsigned long long x[7];
	long long s[5];

	lpar = memchr(v->p, '(', v->len);
	rpar = memrchr(v->p, ')', v->len);
	if (!lpar || !rpar || rpar < lpar || end - rpar < 2)
		return false;
	st->name = lpar + 1;
	st->name_len = (uint32_t)(rpar - lpar - 1);
	if (split_fields(rpar + 2, end, f, flen, 40) < 40)
		return false;
	st->state = f[0][0];
	if (!pt_is_number(f[1], flen[1], &s[0]) ||
	    !pt_is_number(f[4], flen[4], &s[1]) ||
	    !pt_is_number(f[16], flen[16], &s[2]) ||
	    !pt_is_number(f[36], flen[36], &s[3]) ||
	    !pt_is_number(f[17], flen[17], &s[4]))
		return false;
	if (!field_num(f, flen, 11, &x[0]) || !field_num(f, flen, 12, &x[1]) ||
	    !field_num(f, flen, 13, &x[2]) || !field_num(f, flen, 14, &x[3]) ||
	    !field_num(f, flen, 19, &x[4]) || !field_num(f, flen, 39, &x[5]) ||
	    !field_num(f, flen, 20, &x[6]))
		return false;
	st->ppid = s[0];
	st->tty_nr = s[1];
	st->nice = s[2];
	st->cpu = s[3];
	st->threads = s[4];	/* status's Threads: get_nr_threads() too */
	st->utime = x[0];
	st->stime = x[1];
	st->cutime = x[2];
	st->cstime = x[3];
	st->start = x[4];
	st->blkio = x[5];
	st->vsize = x[6];
	return true;
}

/* The line of @p..@len that starts with @key; its rest in @rest/@rlen. */
static bool find_line(const char *p, size_t len, const char *key,
		      const char **rest, size_t *rlen)
{
	size_t kl = strlen(key);
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) >= kl && !memcmp(p, key, kl)) {
			*rest = p + kl;
			*rlen = (size_t)(le - p) - kl;
			return true;
		}
		p = le + 1;
	}
	return false;
}

/* "N\tN\tN" after "Uid:\t": psutil's r'Uid:\t(\d+)\t(\d+)\t(\d+)'. */
static bool three_ids(const char *p, size_t len, long long out[3])
{
	const char *f[3];
	size_t flen[3];

	if (split_fields(p, p + len, f, flen, 3) < 3)
		return false;
	for (int i = 0; i < 3; i++)
		if (!pt_is_number(f[i], flen[i], &out[i]))
			return false;
	return true;
}

static bool one_num(const char *p, size_t len, long long *out)
{
	const char *f[1];
	size_t flen[1];

	return split_fields(p, p + len, f, flen, 1) == 1 &&
	       pt_is_number(f[0], flen[0], out);
}

/* The lines of status that pt_parse_status() takes, in pt_status order. */
enum status_key {
	K_UID, K_GID, K_THREADS, K_VCTX, K_NVCTX,
	K_VMSIZE, K_VMRSS, K_RSSFILE, K_RSSSHMEM, K_VMEXE, K_VMLIB, K_VMDATA,
	K_VMSTK,
	K_COUNT
};

static const struct {
	const char *key;
	size_t len;
} status_keys[K_COUNT] = {
#define KEY(k, s) [k] = { s, sizeof(s) - 1 }
	KEY(K_UID, "Uid:\t"), KEY(K_GID, "Gid:\t"),
	KEY(K_THREADS, "Threads:\t"),
	KEY(K_VCTX, "voluntary_ctxt_switches:\t"),
	KEY(K_NVCTX, "nonvoluntary_ctxt_switches:\t"),
	KEY(K_VMSIZE, "VmSize:"), KEY(K_VMRSS, "VmRSS:"),
	KEY(K_RSSFILE, "RssFile:"), KEY(K_RSSSHMEM, "RssShmem:"),
	KEY(K_VMEXE, "VmExe:"), KEY(K_VMLIB, "VmLib:"),
	KEY(K_VMDATA, "VmData:"), KEY(K_VMSTK, "VmStk:"),
#undef KEY
};

/* The key a line of status starts with, or K_COUNT. */
static enum status_key status_key(const char *p, size_t len)
{
	for (int k = 0; k < K_COUNT; k++)
		if (len >= status_keys[k].len &&
		    !memcmp(p, status_keys[k].key, status_keys[k].len))
			return (enum status_key)k;
	return K_COUNT;
}

/* A line's value after its key; @seen: the keys met before, first wins. */
static void status_line(struct pt_status *s, enum status_key k,
			const char *r, size_t rl, unsigned int *seen)
{
	long long x;

	if (*seen & (1u << k))
		return;
	*seen |= 1u << k;
	if (k == K_UID)
		s->has_uid = three_ids(r, rl, s->uid);
	else if (k == K_GID)
		s->has_gid = three_ids(r, rl, s->gid);
	else if (k == K_THREADS)
		s->has_threads = one_num(r, rl, &s->threads);
	else if (k == K_VCTX || k == K_NVCTX)
		s->ctx_ok[k - K_VCTX] = one_num(r, rl, &s->ctx[k - K_VCTX]);
	else if (one_num(r, rl, &x) && x >= 0)
		s->vm[k - K_VMSIZE] = (unsigned long long)x;
	else
		s->vm_bad = true;
}

/*
 * /proc/PID/status in one pass: Uid, Gid, Threads and the two context
 * switches as psutil finds them (the first line that starts with each),
 * and the Vm and Rss lines (kB) that give statm's numbers.
 */
bool pt_parse_status(const struct pt_val *v, struct pt_status *s)
{
	const char *p = v->p, *end = v->p + v->len;
	unsigned int seen = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		enum status_key k = status_key(p, (size_t)(le - p));

		if (k != K_COUNT)
			status_line(s, k, p + status_keys[k].len,
				    (size_t)(le - p) - status_keys[k].len,
				    &seen);
		p = le + 1;
	}
	s->has_ctx = s->ctx_ok[0] && s->ctx_ok[1];
	s->vm_seen = (seen >> K_VMSIZE) & ((1u << (K_COUNT - K_VMSIZE)) - 1);
	return true;
}

/*
 * statm's seven numbers (pages) from the Vm lines of status, which the
 * kernel makes from the same counters (fs/proc/task_mmu.c: task_mem() and
 * task_statm()): size VmSize, resident VmRSS, shared RssFile + RssShmem,
 * text VmExe, lib 0, data VmData + VmStk, dirty 0. False where status
 * cannot say for sure, and statm must be read: VmExe is text cut at
 * exec_vm, so a VmLib of 0 may hide a larger text; a line missing, or not
 * whole pages. A status without any of them is a process without memory
 * (a kernel thread, a zombie): statm's zeros, when stat's vsize (@vsize)
 * says so too.
 */
bool pt_status_statm(const struct pt_status *s, long page,
		     unsigned long long vsize, unsigned long long out[7])
{
	enum { N = K_COUNT - K_VMSIZE };
	unsigned long long pages[N], pg = (unsigned long long)page;

	memset(out, 0, 7 * sizeof(*out));
	if (s->vm_bad || page < 1024 || page % 1024)
		return false;
	if (!s->vm_seen)
		return vsize == 0;
	if (s->vm_seen != (1u << N) - 1 || !s->vm[K_VMLIB - K_VMSIZE])
		return false;
	for (int i = 0; i < N; i++) {
		if (s->vm[i] > ULLONG_MAX / 1024 / 2 || s->vm[i] * 1024 % pg)
			return false;
		pages[i] = s->vm[i] * 1024 / pg;
	}
	out[0] = pages[K_VMSIZE - K_VMSIZE];
	out[1] = pages[K_VMRSS - K_VMSIZE];
	out[2] = pages[K_RSSFILE - K_VMSIZE] + pages[K_RSSSHMEM - K_VMSIZE];
	out[3] = pages[K_VMEXE - K_VMSIZE];
	out[5] = pages[K_VMDATA - K_VMSIZE] + pages[K_VMSTK - K_VMSIZE];
	return true;
}

/* /proc/PID/statm: the first seven numbers (pages). */
bool pt_parse_statm(const struct pt_val *v, unsigned long long out[7])
{
	const char *f[7];
	size_t flen[7];

	if (split_fields(v->p, v->p + v->len, f, flen, 7) < 7)
		return false;
	for (size_t i = 0; i < 7; i++)
		if (!field_num(f, flen, i, &out[i]))
			return false;
	return true;
}

/* /proc/PID/io: "name: value" lines; out in psutil's pio order. */
bool pt_parse_io(const struct pt_val *v, unsigned long long out[6])
{
	static const char *const keys[6] = {
		"syscr: ", "syscw: ", "read_bytes: ", "write_bytes: ",
		"rchar: ", "wchar: ",
	};
	const char *r;
	size_t rl;
	long long x;

	for (int i = 0; i < 6; i++) {
		if (!find_line(v->p, v->len, keys[i], &r, &rl) ||
		    !one_num(r, rl, &x))
			return false;
		out[i] = (unsigned long long)x;
	}
	return true;
}

/* The kB number of a "Key:   N kB" line's rest, in bytes. */
static unsigned long long kb_bytes(const char *p, size_t len)
{
	long long x;

	return one_num(p, len, &x) ? (unsigned long long)x * 1024 : 0;
}

/* /proc/PID/smaps_rollup: uss (the Private_ lines), pss, swap in bytes. */
bool pt_parse_smaps_rollup(const struct pt_val *v, unsigned long long out[3])
{
	const char *p = v->p, *end = v->p + v->len;

	out[0] = out[1] = out[2] = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t l = (size_t)(le - p);
		const char *sp = memchr(p, ' ', l);
		size_t kl = sp ? (size_t)(sp - p) : l;

		if (l >= 8 && !memcmp(p, "Private_", 8))
			out[0] += kb_bytes(p + kl, l - kl);
		else if (l >= 4 && !memcmp(p, "Pss:", 4))
			out[1] = kb_bytes(p + 4, l - 4);
		else if (l >= 5 && !memcmp(p, "Swap:", 5))
			out[2] = kb_bytes(p + 5, l - 5);
		p = le + 1;
	}
	return true;
}

/*
 * /proc/PID/task/TID/stat as psutil's threads() reads it: stripped, cut
 * after the FIRST ')' and a byte, split at single spaces; fields 11, 12.
 */
bool pt_parse_thread_stat(const struct pt_val *v, unsigned long long *ut,
			  unsigned long long *stt)
{
	const char *p = v->p, *end = v->p + v->len, *rpar;
	const char *f[13];
	size_t flen[13], n = 0;
	long long a, b;

	while (end > p && is_space(end[-1]))
		end--;
	rpar = memchr(p, ')', (size_t)(end - p));
	if (!rpar || end - rpar < 2)
		return false;
	p = rpar + 2;
	while (n < 13) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		const char *fe = sp ? sp : end;

		f[n] = p;
		flen[n++] = (size_t)(fe - p);
		if (!sp)
			break;
		p = sp + 1;
	}
	if (n < 13 || !pt_is_number(f[11], flen[11], &a) ||
	    !pt_is_number(f[12], flen[12], &b))
		return false;
	*ut = (unsigned long long)a;
	*stt = (unsigned long long)b;
	return true;
}

/* /proc/PID/fdinfo/N: "pos:" of the first line, octal "flags:" of the next. */
bool pt_parse_fdinfo(const struct pt_val *v, unsigned long long *pos,
		     unsigned long long *flags)
{
	const char *f[4], *nl;
	size_t flen[4];
	long long x;
	char oct[32];

	nl = memchr(v->p, '\n', v->len);
	if (!nl || split_fields(v->p, nl, f, flen, 2) < 2 ||
	    !pt_is_number(f[1], flen[1], &x))
		return false;
	*pos = (unsigned long long)x;
	if (split_fields(nl + 1, v->p + v->len, f, flen, 4) < 2 ||
	    flen[1] >= sizeof(oct))
		return false;
	memcpy(oct, f[1], flen[1]);
	oct[flen[1]] = 0;
	*flags = strtoull(oct, NULL, 8);
	return true;
}

/* MemTotal of /proc/meminfo, in bytes (psutil's virtual_memory().total). */
bool pt_parse_meminfo_total(const char *p, size_t len,
			    unsigned long long *total)
{
	const char *r;
	size_t rl;

	if (!find_line(p, len, "MemTotal:", &r, &rl))
		return false;
	*total = kb_bytes(r, rl);
	return true;
}

/* btime of /proc/stat: the boot time in seconds since the epoch. */
bool pt_parse_btime(const char *p, size_t len, unsigned long long *btime)
{
	const char *r;
	size_t rl;
	long long v;

	if (!find_line(p, len, "btime ", &r, &rl) || !one_num(r, rl, &v))
		return false;
	*btime = (unsigned long long)v;
	return true;
}

/* The number of items of a getvalues() list (each ended by a NUL). */
size_t pt_list_count(const struct pt_val *v)
{
	size_t n = 0;

	for (uint32_t i = 0; i < v->len; i++)
		n += v->p[i] == 0;
	return n;
}

/* The item after @at (NULL: the first), its length in @len; NULL at end. */
const char *pt_list_next(const struct pt_val *v, const char *at, size_t *len)
{
	const char *end = v->p + v->len, *nul;

	at = at ? at + *len + 1 : v->p;
	if (at >= end)
		return NULL;
	nul = memchr(at, 0, (size_t)(end - at));
	*len = nul ? (size_t)(nul - at) : (size_t)(end - at);
	return at;
}

/*
 * stat(2) of the path @p..@len in this process's view (as os.stat() of the
 * str psutil has): 0 and the mode, or an errno.
 */
int pt_path_stat(const char *p, size_t len, unsigned int *mode)
{
	char path[PATH_MAX];
	struct stat sb;

	if (len >= sizeof(path) || memchr(p, 0, len))
		return ENAMETOOLONG;
	memcpy(path, p, len);
	path[len] = 0;
	if (stat(path, &sb))
		return errno;
	*mode = sb.st_mode;
	return 0;
}

/*
 * psutil's readlink(): a link target cut at a NUL, and " (deleted)" taken
 * off when the path with it does not exist. The new length; *@err is set
 * to EACCES/EPERM where psutil's check of the path raises.
 */
size_t pt_strip_deleted(const char *p, size_t len, int *err)
{
	static const char suffix[] = " (deleted)";
	const size_t sl = sizeof(suffix) - 1;
	const char *nul = memchr(p, 0, len);
	unsigned int mode;
	int e;

	*err = 0;
	if (nul)
		len = (size_t)(nul - p);
	if (len < sl || memcmp(p + len - sl, suffix, sl))
		return len;
	e = pt_path_stat(p, len, &mode);
	if (e == EACCES || e == EPERM) {
		*err = e;
		return len;
	}
	return e ? len - sl : len;
}

/*
 * psutil's cmdline(): the separator ('\0', or ' ' for a process that
 * rewrote its command line with spaces) and the length without the one
 * trailing separator; the items are that much of @p split at *@sep.
 */
void pt_cmdline_shape(const char *p, size_t len, char *sep, size_t *eff)
{
	*sep = len && p[len - 1] == 0 ? 0 : ' ';
	*eff = len && p[len - 1] == *sep ? len - 1 : len;
	if (*sep == 0 && !memchr(p, 0, *eff) && memchr(p, ' ', *eff))
		*sep = ' ';
}
