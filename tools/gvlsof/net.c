// SPDX-License-Identifier: MIT
/*
 * net.c - the /proc/net tables lsof reads to name sockets (unix, tcp,
 * udp, udplite, raw, icmp for IPv4 and IPv6, netlink, packet), all read
 * in one getvalues() call when the first socket shows up, and parsed as
 * lsof parses them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "gvlsof.h"

static struct map by_inode;	/* the first record of each inode */
static bool loaded, prefetching;

static bool add(struct sockrec *r)
{
	if (!r->inode || map_get(&by_inode, r->inode))
		return false;
	map_put(&by_inode, r->inode, r);
	return true;
}

/* the unix sockets in the order of the table, each inode once */
static struct sockrec **unix_recs;
static size_t n_unix, unix_cap;

static struct sockrec *rec_new(enum sockkind kind, uint64_t ino)
{
	struct sockrec *r = salloc_aligned(sizeof(*r));

	*r = (struct sockrec){ .kind = kind, .inode = ino };
	return r;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? sdup(s) : NULL;
}

/* The lines of one table after its header, @fn called for each. */
static void each_line(const char *file, const char *v, size_t n,
		      bool (*header)(char *line), void (*fn)(char *line))
{
	const char *p = v, *end = v + n, *line;
	bool first = true;
	size_t len;

	while (next_line(&p, end, &line, &len)) {
		char *copy = sdup_n(line, len);

		if (first) {
			first = false;
			if (!header(copy)) {
				if (!opt.fwarn)
					fprintf(stderr, "%s: WARNING: "
						"unsupported format: "
						PROC "/net/%s\n", opt.pn,
						file);
				return;
			}
			continue;
		}
		fn(copy);
	}
}

/* ---- unix ---- */

static bool unix_header(char *l)
{
	char *fp[16];
	int nf = get_fields(l, ":", fp, 16);

	return nf >= 8 && !strcmp(fp[0], "Num") && !strcmp(fp[1], "RefCount") &&
	       !strcmp(fp[2], "Protocol") && !strcmp(fp[3], "Flags") &&
	       !strcmp(fp[4], "Type") && !strcmp(fp[5], "St") &&
	       !strcmp(fp[6], "Inode") && !strcmp(fp[7], "Path");
}

/*
 * "0000000000000000: 00000002 00000000 00010000 0001 01 12345 /path": as
 * in lsof the path is the eighth field, so that it ends at a blank or a
 * colon.
 */
static void unix_line(char *l)
{
	char *fp[16], *ep;
	struct sockrec *r;
	uint64_t ino;
	int nf = get_fields(l, ":", fp, 16);

	if (nf < 7 || !parse_u64(fp[6], 0, &ino))
		return;
	r = rec_new(SK_UNIX, ino);
	r->pcb = *fp[0] ? sfmt("0x%s", fp[0]) : NULL;
	r->path = nf >= 8 ? dup_or_null(fp[7]) : NULL;
	r->type = (unsigned)strtoul(fp[4], &ep, 16);
	if (!*fp[4] || *ep)
		r->type = ~0U;
	r->opt = (unsigned)strtoul(fp[3], &ep, 16);
	r->ss = (unsigned)strtoul(fp[5], &ep, 16);
	if (add(r)) {
		GROW(unix_recs, n_unix, unix_cap);
		unix_recs[n_unix++] = r;
	}
}

/*
 * lsof 4.95 stat(2)s the absolute path of each unix socket and keeps the
 * result as the socket's device and inode when "sr && S_ISSOCK(mode)": when
 * stat() FAILED, so that the buffer still holds the last stat() that
 * succeeded, at the same place in lsof's stack. A socket whose path is
 * gone is thus matched by the device and inode of the socket file stat'ed
 * before it. Only file arguments look at them; done then, in one call.
 */
static void unix_stale_stat(void)
{
	struct batch b = { 0 };
	size_t *first = xrealloc(NULL, (n_unix + 1) * sizeof(*first));
	struct finfo last = { .err = ENOENT };
	int err;

	for (size_t i = 0; i < n_unix; i++) {
		const char *p = unix_recs[i]->path;

		first[i] = p && *p == '/' ? stat_names(&b, "stat", p + 1) :
					    (size_t)-1;
	}
	err = b.n ? batch_run(&b, "/") : ENOENT;
	for (size_t i = 0; i < n_unix && !err; i++) {
		struct sockrec *r = unix_recs[i];
		struct finfo fi;

		if (first[i] == (size_t)-1)
			continue;
		stat_get(&b, first[i], &fi);
		if (!fi.err) {
			last = fi;
		} else if (!last.err && last.mode == S_IFSOCK) {
			r->sb_def = true;
			r->sb_dev = last.dev;
			r->sb_ino = last.ino;
			r->sb_rdev = last.rdev;
		}
	}
	free(first);
	batch_release(&b);
}

/* ---- tcp, udp, udplite, v4 and v6 ---- */

static int inet_proto;
static bool inet_v6;

static bool inet_header(char *l)
{
	char *fp[32];
	int nf = get_fields(l, NULL, fp, 32);

	return nf >= 12 && !strcmp(fp[1], "local_address") &&
	       !strcmp(fp[2], inet_v6 ? "remote_address" : "rem_address") &&
	       !strcmp(fp[3], "st") && !strcmp(fp[4], "tx_queue") &&
	       !strcmp(fp[5], "rx_queue") && !strcmp(fp[11], "inode");
}

/* The kernel prints each 32-bit word of an address as it is in memory. */
static bool hex_words(const char *s, unsigned char *out, int words)
{
	if (strlen(s) != (size_t)words * 8)
		return false;
	for (int i = 0; i < words; i++) {
		char w[9];
		uint64_t v;
		uint32_t u;

		memcpy(w, s + 8 * i, 8);
		w[8] = 0;
		if (!parse_u64(w, 16, &v))
			return false;
		u = (uint32_t)v;
		memcpy(out + 4 * i, &u, 4);
	}
	return true;
}

/* A record of the table being read (inet_proto, inet_v6). */
static void inet_add(const struct tcp_rec *t)
{
	struct sockrec *r = rec_new(inet_v6 ? SK_TCP6 : SK_TCP, t->inode);

	memcpy(r->la, t->la, 16);
	memcpy(r->fa, t->fa, 16);
	r->lport = t->lport;
	r->fport = t->fport;
	r->state = t->state;
	r->txq = t->txq;
	r->rxq = t->rxq;
	r->proto = inet_proto;
	add(r);
}

static void inet_line(char *l)
{
	char *fp[32];
	uint64_t lport, fport, st, txq, rxq, ino;
	struct tcp_rec t = { 0 };
	int words = inet_v6 ? 4 : 1;

	if (get_fields(l, ":", fp, 32) < 14 ||
	    !hex_words(fp[1], t.la, words) || !parse_u64(fp[2], 16, &lport) ||
	    !hex_words(fp[3], t.fa, words) || !parse_u64(fp[4], 16, &fport) ||
	    !parse_u64(fp[5], 16, &st) || !parse_u64(fp[6], 16, &txq) ||
	    !parse_u64(fp[7], 16, &rxq) || !parse_u64(fp[13], 0, &ino))
		return;
	t.lport = (int)(lport & 0xffff);
	t.fport = (int)(fport & 0xffff);
	t.state = (int)st;
	t.txq = txq;
	t.rxq = rxq;
	t.inode = ino;
	inet_add(&t);
}

/* ---- raw, raw6, icmp ---- */

static enum sockkind raw_kind;

static bool raw_header(char *l)
{
	char *fp[32];
	int nf = get_fields(l, NULL, fp, 32);

	return nf >= 12 && !strcmp(fp[1], "local_address") &&
	       !strcmp(fp[2], raw_kind == SK_RAW6 ? "remote_address" :
						    "rem_address") &&
	       (raw_kind == SK_ICMP || !strcmp(fp[3], "st")) &&
	       !strcmp(fp[11], "inode");
}

static void raw_line(char *l)
{
	char *fp[32];
	struct sockrec *r;
	uint64_t ino;

	if (get_fields(l, NULL, fp, 32) < (raw_kind == SK_ICMP ? 11 : 10) ||
	    !parse_u64(fp[9], 0, &ino))
		return;
	r = rec_new(raw_kind, ino);
	r->s1 = dup_or_null(fp[1]);
	r->s2 = dup_or_null(fp[2]);
	r->s3 = raw_kind == SK_ICMP ? NULL : dup_or_null(fp[3]);
	add(r);
}

/* ---- netlink, packet ---- */

static bool netlink_header(char *l)
{
	char *fp[16];

	return get_fields(l, NULL, fp, 16) >= 10 && !strcmp(fp[1], "Eth") &&
	       !strcmp(fp[9], "Inode");
}

static void netlink_line(char *l)
{
	char *fp[16];
	struct sockrec *r;
	uint64_t ino;

	if (get_fields(l, NULL, fp, 16) < 10 || !parse_u64(fp[9], 0, &ino) ||
	    !*fp[1])
		return;
	r = rec_new(SK_NETLINK, ino);
	r->n1 = (unsigned long)atoi(fp[1]);
	add(r);
}

static bool packet_header(char *l)
{
	char *fp[16];

	return get_fields(l, NULL, fp, 16) >= 9 && !strcmp(fp[2], "Type") &&
	       !strcmp(fp[3], "Proto") && !strcmp(fp[8], "Inode");
}

static void packet_line(char *l)
{
	char *fp[16], *ep;
	struct sockrec *r;
	uint64_t ino;
	unsigned long pr;

	if (get_fields(l, NULL, fp, 16) < 9 || !parse_u64(fp[8], 0, &ino) ||
	    !*fp[2] || !*fp[3])
		return;
	pr = strtoul(fp[3], &ep, 16);
	if (*ep)
		return;
	r = rec_new(SK_PACKET, ino);
	r->type = (unsigned)atoi(fp[2]);
	r->n1 = pr;
	add(r);
}

/* ------------------------------------------------------------------ */

struct table {
	const char *file;
	bool (*header)(char *);
	void (*line)(char *);
	int proto;		/* inet: 0 TCP, 1 UDP, 2 UDPLITE */
	bool v6;
	enum sockkind kind;	/* raw */
	bool x;			/* skipped with -X */
};

/* lsof's lookup order: the first table holding an inode names it */
static const struct table tables[] = {
	{ .file = "raw", .header = raw_header, .line = raw_line,
	  .kind = SK_RAW },
	{ .file = "netlink", .header = netlink_header, .line = netlink_line },
	{ .file = "packet", .header = packet_header, .line = packet_line },
	{ .file = "unix", .header = unix_header, .line = unix_line },
	{ .file = "raw6", .header = raw_header, .line = raw_line,
	  .kind = SK_RAW6, .x = true },
	{ .file = "tcp6", .header = inet_header, .line = inet_line,
	  .proto = 0, .v6 = true, .x = true },
	{ .file = "udp6", .header = inet_header, .line = inet_line,
	  .proto = 1, .v6 = true, .x = true },
	{ .file = "udplite6", .header = inet_header, .line = inet_line,
	  .proto = 2, .v6 = true, .x = true },
	{ .file = "tcp", .header = inet_header, .line = inet_line,
	  .proto = 0, .x = true },
	{ .file = "udp", .header = inet_header, .line = inet_line,
	  .proto = 1, .x = true },
	{ .file = "udplite", .header = inet_header, .line = inet_line,
	  .proto = 2, .x = true },
	{ .file = "icmp", .header = raw_header, .line = raw_line,
	  .kind = SK_ICMP },
};

/* ---- endpoints ---- */

static void unix_peer(uint64_t si, uint64_t pi)
{
	struct sockrec *up = map_get(&by_inode, si), *pp;

	if (!up || up->kind != SK_UNIX || up->peer)
		return;
	pp = map_get(&by_inode, pi);
	if (pp && pp->kind == SK_UNIX)
		up->peer = pp;
}

static void unix_icon(uint64_t si, uint64_t ic)
{
	struct sockrec *psi = map_get(&by_inode, si), *pic;

	if (!psi || psi->kind != SK_UNIX || psi->icstat || psi->icons)
		return;
	pic = map_get(&by_inode, ic);
	if (pic && pic->kind == SK_UNIX) {
		psi->icstat = true;
		psi->icons = pic;
	}
}

/*
 * Local connections: two established sockets of one protocol whose
 * addresses and ports are each other's, as lsof pairs them.
 */
static void inet_peers(void)
{
	struct sockrec **est = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < by_inode.cap; i++) {
		struct sockrec *r = by_inode.vals[i];

		if (r && (r->kind == SK_TCP || r->kind == SK_TCP6) &&
		    r->state == 1) {
			GROW(est, n, cap);
			est[n++] = r;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct sockrec *tp = est[i];
		size_t alen = tp->kind == SK_TCP6 ? 16 : 4;

		if (tp->peer)
			continue;
		for (size_t k = 0; k < n; k++) {
			struct sockrec *np = est[k];

			if (np == tp || np->peer || np->kind != tp->kind ||
			    np->proto != tp->proto)
				continue;
			if (!memcmp(tp->fa, np->la, alen) &&
			    !memcmp(tp->la, np->fa, alen) &&
			    tp->fport == np->lport && tp->lport == np->fport) {
				tp->peer = np;
				np->peer = tp;
				break;
			}
		}
	}
	free(est);
}

/*
 * Whether table @t is one tcpdiag.c can give instead: tcp and tcp6, where
 * queue sizes are not printed (the one number sock_diag gives otherwise).
 */
static bool by_diag(const struct table *t)
{
	return t->header == inet_header && t->proto == 0 &&
	       !(opt.ftcptpi & TCPTPI_QUEUES);
}

/* Table @t, parsed from @v (@len bytes), or from sock_diag if @v NULL. */
static void table_load(const struct table *t, const char *v, size_t len)
{
	struct batch b = { .big = true };
	size_t i;
	int err;

	inet_proto = t->proto;
	inet_v6 = t->v6;
	raw_kind = t->kind;
	if (v) {
		each_line(t->file, v, len, t->header, t->line);
		return;
	}
	if (tcp_diag(t->v6 ? AF_INET6 : AF_INET, inet_add))
		return;
	i = batch_add(&b, "data:net/%s", t->file);
	batch_run_proc(&b);
	v = val(&b, i, &len, &err);
	if (v)
		each_line(t->file, v, len, t->header, t->line);
	batch_release(&b);
}

/* Every table, in one getvalues() call. */
static void net_load_now(void)
{
	struct batch b = { .big = true };
	size_t first[ARRAY_SIZE(tables)];

	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		first[i] = by_diag(&tables[i]) ? SIZE_MAX :
			   batch_add(&b, "data:net/%s", tables[i].file);
	batch_run_proc(&b);
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		const struct table *t = &tables[i];
		size_t len = 0;
		int err;
		const char *v = first[i] == SIZE_MAX ? NULL :
				val(&b, first[i], &len, &err);

		if ((!v && first[i] != SIZE_MAX) || (t->x && opt.fxopt))
			continue;
		table_load(t, v, len);
	}
	batch_release(&b);
	if (opt.nsfile && n_unix)
		unix_stale_stat();
	if (opt.feptE) {
		unix_diag_peers(unix_peer, unix_icon);
		inet_peers();
	}
}

/* The prefetch over: what net_load(), net_lookup() and net_free() need. */
void net_settle(void)
{
	if (prefetching) {
		bg_wait();
		prefetching = false;
	}
}

/*
 * The tables, once per cycle: loaded when the first socket is met, as lsof
 * loads them, unless net_prefetch() had a helper thread load them already.
 */
void net_load(void)
{
	net_settle();
	if (loaded)
		return;
	loaded = true;
	net_load_now();
}

/*
 * The tables loaded by a helper thread while the main thread gathers the
 * processes, for a listing that will meet sockets (the whole system, or
 * only network files): they cost some milliseconds (sock_diag, the unix
 * table), which the main thread would otherwise spend alone at its first
 * socket. Nothing where there is no helper.
 */
void net_prefetch(void)
{
	if (loaded || prefetching)
		return;
	if (!bg_start(net_load_now))
		return;
	loaded = true;
	prefetching = true;
}

const struct sockrec *net_lookup(uint64_t ino)
{
	return map_get(&by_inode, ino);
}

void net_free(void)
{
	net_settle();
	map_free(&by_inode);
	free(unix_recs);
	unix_recs = NULL;
	n_unix = unix_cap = 0;
	loaded = false;
}
