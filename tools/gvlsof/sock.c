// SPDX-License-Identifier: MIT
/*
 * sock.c - a socket into a row, as lsof's process_proc_sock() makes it
 * from the /proc/net record of its inode: the type (IPv4, unix, netlink,
 * pack...), the DEVICE and NODE columns, the addresses, the TCP state and
 * queues; and the TCP/TPI part of the NAME column (-T).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvlsof.h"

static const char *sock_type_name(unsigned t, bool *known)
{
	static const char *const names[] = {
		[1] = "STREAM", [2] = "DGRAM", [3] = "RAW", [4] = "RDM",
		[5] = "SEQPACKET", [6] = "DCCP", [10] = "PACKET",
	};

	*known = t < ARRAY_SIZE(names) && names[t];
	return *known ? names[t] : "unknown";
}

static const char *netlink_proto(unsigned long p)
{
	static const char *const names[] = {
		"ROUTE", "UNUSED", "USERSOCK", "FIREWALL", "INET_DIAG",
		"NFLOG", "XFRM", "SELINUX", "ISCSI", "AUDIT", "FIB_LOOKUP",
		"CONNECTOR", "NETFILTER", "IP6_FW", "DNRTMSG",
		"KOBJECT_UEVENT", "GENERIC", NULL, "SCSITRANSPORT",
		"ECRYPTFS", "RDMA", "CRYPTO", "SMC",
	};

	if (p < ARRAY_SIZE(names) && names[p])
		return names[p];
	return sfmt("unknown protocol: %d", (int)p);
}

static const char *eth_proto(unsigned long p)
{
	static const struct { unsigned p; const char *name; } names[] = {
		{ 0x0060, "LOOP" }, { 0x0200, "PUP" }, { 0x0201, "PUPAT" },
		{ 0x0800, "IP" }, { 0x0805, "X25" }, { 0x0806, "ARP" },
		{ 0x08FF, "BPQ" }, { 0x0a00, "I3EPUP" }, { 0x0a01, "I3EPUPA" },
		{ 0x6000, "DEC" }, { 0x6001, "DNA_DL" }, { 0x6002, "DNA_RC" },
		{ 0x6003, "DNA_RT" }, { 0x6004, "LAT" }, { 0x6005, "DIAG" },
		{ 0x6006, "CUST" }, { 0x6007, "SCA" }, { 0x8035, "RARP" },
		{ 0x809B, "ATALK" }, { 0x80F3, "AARP" }, { 0x8100, "8021Q" },
		{ 0x8137, "IPX" }, { 0x86DD, "IPV6" }, { 0x8809, "SLOW" },
		{ 0x883E, "WCCP" }, { 0x8863, "PPP_DIS" }, { 0x8864, "PPP_SES" },
		{ 0x8847, "MPLS_UC" }, { 0x884c, "ATMMPOA" },
		{ 0x8848, "MPLS_MC" }, { 0x8884, "ATMFATE" }, { 0x88A2, "AOE" },
		{ 0x88CA, "TIPC" }, { 0x0001, "802.3" }, { 0x0002, "AX25" },
		{ 0x0003, "ALL" }, { 0x0004, "802.2" }, { 0x0005, "SNAP" },
		{ 0x0006, "DDCMP" }, { 0x0007, "WAN_PPP" }, { 0x0008, "PPP MP" },
		{ 0x0009, "LCLTALK" }, { 0x0010, "PPPTALK" },
		{ 0x0011, "802.2" }, { 0x0015, "MOBITEX" },
		{ 0x0016, "CONTROL" }, { 0x0017, "IRDA" }, { 0x0018, "ECONET" },
		{ 0x0019, "HDLC" }, { 0x001A, "ARCNET" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].p == p)
			return names[i].name;
	return sfmt("%d", (int)p);
}

/* The protocol name the kernel gives a socket in no table. */
static const char *sock_protoname(const char *pbr)
{
	char buf[256];
	struct name_val v = {
		.name = "xattr:system.sockprotoname",
		.value_in = { buf, sizeof(buf) },
	};

	if (getvalues(AT_FDCWD, pbr, &v, 1, 0) != 1 || v.error)
		return NULL;
	/* the kernel counts the terminating NUL in the value */
	return sdup_n(buf, strnlen(buf, v.value_out.iov_len));
}

/* lsof applies -s TCP: states to every TCP and UDP socket alike */
static bool state_excluded(struct lfile *lf, int state)
{
	if (state < 0 || state >= ntcp_states)
		return false;
	if (opt.tcp_st_xn && opt.tcp_st_x[state]) {
		lf->sf |= SEL_EXCLF;
		return true;
	}
	if (opt.tcp_st_in) {
		if (!opt.tcp_st_i[state]) {
			lf->sf |= SEL_EXCLF;
			return true;
		}
		opt.tcp_st_i[state] = 2;
	}
	return false;
}

static void inet_row(struct lfile *lf, const struct sockrec *r)
{
	static const char *const protos[] = { "TCP", "UDP", "UDPLITE" };
	bool v6 = r->kind == SK_TCP6;
	int alen = v6 ? 16 : 4, af = v6 ? AF_INET6 : AF_INET;
	const unsigned char *la = NULL, *fa = NULL;
	static const unsigned char zero[16];

	if (state_excluded(lf, r->state))
		return;
	if (opt.fnet && opt.fnet_ty != (v6 ? 4 : 6))
		lf->sf |= SEL_NET;
	snprintf(lf->type, sizeof(lf->type), "%s", v6 ? "IPv6" : "IPv4");
	snprintf(lf->iproto, sizeof(lf->iproto), "%.*s", IPROTOL - 1,
		 protos[r->proto]);
	lf->inp_ty = 2;
	enter_dev_ch(lf, sfmt("%llu", (unsigned long long)r->inode));
	lf->inode = r->inode;
	if (memcmp(r->fa, zero, alen) || r->fport)
		fa = r->fa;
	if (memcmp(r->la, zero, alen) || r->lport)
		la = r->la;
	if (v6 && ((fa && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)fa)) ||
		   (la && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)la)))) {
		af = AF_INET;
		if (fa)
			fa += 12;
		if (la)
			la += 12;
	}
	ent_inaddr(lf, la, r->lport, fa, r->fport, af);
	lf->lts.type = r->proto;
	lf->lts.state = r->state;
	lf->lts.rq = r->rxq;
	lf->lts.sq = r->txq;
	lf->lts.rqs = lf->lts.sqs = true;
	lf->sock = r;
	if (opt.feptE && r->peer)
		lf->sf |= v6 ? SEL_NETS6INFO : SEL_NETSINFO;
}

/* raw, raw6, icmp: the kernel's address strings as they are */
static void raw_row(struct lfile *lf, const struct sockrec *r,
		    const char *type)
{
	char *name = sfmt("%s%s%s", r->s1 ? r->s1 : "", r->s2 ? "->" : "",
			  r->s2 ? r->s2 : "");

	snprintf(lf->type, sizeof(lf->type), "%s", type);
	lf->inode = r->inode;
	lf->inp_ty = 1;
	if (r->s3)
		name = sfmt("%s%sst=%s", name, *name ? " " : "", r->s3);
	if (*name)
		enter_nm(lf, name);
}

static void unix_row(struct lproc *lp, struct lfile *lf,
		     const struct sockrec *r, const char *p, unsigned ss)
{
	bool known;

	(void)lp;
	if (opt.funix)
		lf->sf |= SEL_UNX;
	snprintf(lf->type, sizeof(lf->type), "unix");
	if (r->pcb)
		enter_dev_ch(lf, r->pcb);
	lf->inode = r->inode;
	lf->inp_ty = 1;
	lf->lts.type = (int)r->type;
	lf->lts.opt = r->opt;
	lf->lts.ss = r->ss;
	lf->sock = r;
	if (opt.feptE)
		lf->sf |= SEL_UXSINFO;
	enter_nm(lf, sfmt("%s%stype=%s", r->path ? r->path : "",
			  r->path ? " " : "", sock_type_name(r->type, &known)));
	if (opt.nsfile) {
		/* unix sockets are found by the name they are bound to */
		char *keep = lf->nm;
		bool f = false;

		if (r->sb_def) {
			/* by device and inode first: see unix_stale_stat() */
			struct lfile sv = *lf;

			lf->dev_def = lf->rdev_def = true;
			lf->inp_ty = 1;
			lf->dev = r->sb_dev;
			lf->inode = r->sb_ino;
			lf->rdev = r->sb_rdev;
			f = is_file_named(lf, 0, r->path, NULL, false);
			if (f)
				lf->sf |= SEL_NM;
			lf->dev_def = sv.dev_def;
			lf->rdev_def = sv.rdev_def;
			lf->inp_ty = sv.inp_ty;
			lf->dev = sv.dev;
			lf->inode = sv.inode;
			lf->rdev = sv.rdev;
		}
		if (!f && (ss & SB_MODE) &&
		    is_file_named(lf, 2, r->path ? r->path : p, NULL, false))
			lf->sf |= SEL_NM;
		lf->nm = keep;
	}
}

void process_proc_sock(struct lproc *lp, struct lfile *lf, const char *p,
		       const char *pbr, const struct finfo *s, unsigned ss,
		       const struct finfo *l, unsigned ls)
{
	const struct sockrec *r = NULL;

	if ((opt.foffset || !opt.fsize) && l && (ls & SB_SIZE)) {
		lf->off = l->size;
		lf->off_def = true;
	}
	if (ss & SB_INO) {
		net_load();
		r = net_lookup(s->ino);
	}
	if (r) {
		bool known;

		switch (r->kind) {
		case SK_RAW:
			raw_row(lf, r, "raw");
			return;
		case SK_RAW6:
			raw_row(lf, r, "raw6");
			return;
		case SK_ICMP:
			raw_row(lf, r, "icmp");
			return;
		case SK_NETLINK:
			snprintf(lf->type, sizeof(lf->type), "netlink");
			enter_nm(lf, netlink_proto(r->n1));
			lf->inode = s->ino;
			lf->inp_ty = 1;
			return;
		case SK_PACKET: {
			const char *t = sock_type_name(r->type, &known);

			snprintf(lf->type, sizeof(lf->type), "pack");
			enter_nm(lf, sfmt("type=%s%s", known ? "SOCK_" : "", t));
			snprintf(lf->iproto, sizeof(lf->iproto), "%.*s",
				 IPROTOL - 1, eth_proto(r->n1));
			lf->inp_ty = 2;
			enter_dev_ch(lf, sfmt("%llu",
					      (unsigned long long)s->ino));
			return;
		}
		case SK_UNIX:
			unix_row(lp, lf, r, p, ss);
			return;
		case SK_TCP:
		case SK_TCP6:
			inet_row(lf, r);
			return;
		default:
			break;
		}
	}
	snprintf(lf->type, sizeof(lf->type), "sock");
	if (ss & SB_INO) {
		lf->inode = s->ino;
		lf->inp_ty = 1;
	}
	if (ss & SB_DEV) {
		lf->dev = s->dev;
		lf->dev_def = true;
	}
	if (opt.fxopt) {
		enter_nm(lf, "can't identify protocol (-X specified)");
	} else {
		const char *pn = sock_protoname(pbr);

		enter_nm(lf, pn ? sfmt("protocol: %s", pn) :
				  "can't identify protocol");
	}
}

/* ------------------------------------------------------------------ */
/* -T: the TCP/TPI part of the NAME column                            */

static const char *tcp_state_name(int st, char *buf, size_t size)
{
	if (st < 0 || st >= ntcp_states) {
		snprintf(buf, size, "UNKNOWN_TCP_STATE_%d", st);
		return buf;
	}
	return tcp_states[st];
}

/* lsof's sockss2str() with its LISTEN */
const char *unix_state(const struct lfile *lf)
{
	static const char *const st[] = {
		[1] = "UNCONNECTED", [2] = "CONNECTING", [3] = "CONNECTED",
		[4] = "DISCONNECTING",
	};

	if (lf->lts.opt == 0x10000)	/* __SO_ACCEPTCON */
		return "LISTEN";
	return lf->lts.ss < ARRAY_SIZE(st) && st[lf->lts.ss] ? st[lf->lts.ss] :
							       "UNKNOWN";
}

/* Whether the NAME column gets TCP/TPI text after a blank (lsof's test). */
bool has_tcptpi(const struct lfile *lf)
{
	return opt.ftcptpi && (lf->lts.type >= 0 ||
			       ((opt.ftcptpi & TCPTPI_QUEUES) &&
				(lf->lts.rqs || lf->lts.sqs)));
}

/* The text: "(LISTEN)", "(ESTABLISHED QR=0 QS=0)"... possibly empty. */
char *tcptpi_text(const struct lfile *lf)
{
	char buf[64], *s = sdup("");
	bool ps = false;

	if (!strcmp(lf->type, "unix")) {
		if (opt.ftcptpi & TCPTPI_STATE)
			s = sfmt("(%s)", unix_state(lf));
		return s;
	}
	if ((opt.ftcptpi & TCPTPI_STATE) && lf->lts.type == 0) {
		s = sfmt("(%s", tcp_state_name(lf->lts.state, buf,
					       sizeof(buf)));
		ps = true;
	}
	if (opt.ftcptpi & TCPTPI_QUEUES) {
		if (lf->lts.rqs) {
			s = sfmt("%s%sQR=%lu", s, ps ? " " : "(", lf->lts.rq);
			ps = true;
		}
		if (lf->lts.sqs) {
			s = sfmt("%s%sQS=%lu", s, ps ? " " : "(", lf->lts.sq);
			ps = true;
		}
	}
	if (ps)
		s = sfmt("%s)", s);
	return s;
}

/* The T fields of -F: "ST=LISTEN", "QR=0", "QS=0". */
size_t tcptpi_fields(const struct lfile *lf, const char **out, size_t max)
{
	static char buf[4][96];
	size_t n = 0;
	char tmp[48];

	if (lf->lts.type < 0)
		return 0;
	if (!strcmp(lf->type, "unix")) {
		if (opt.ftcptpi & TCPTPI_STATE) {
			snprintf(buf[0], sizeof(buf[0]), "ST=%s",
				 unix_state(lf));
			out[n++] = buf[0];
		}
		return n;
	}
	if ((opt.ftcptpi & TCPTPI_STATE) && lf->lts.type == 0 && n < max) {
		snprintf(buf[n], sizeof(buf[n]), "ST=%s",
			 tcp_state_name(lf->lts.state, tmp, sizeof(tmp)));
		out[n] = buf[n];
		n++;
	}
	if (opt.ftcptpi & TCPTPI_QUEUES) {
		if (lf->lts.rqs && n < max) {
			snprintf(buf[n], sizeof(buf[n]), "QR=%lu", lf->lts.rq);
			out[n] = buf[n];
			n++;
		}
		if (lf->lts.sqs && n < max) {
			snprintf(buf[n], sizeof(buf[n]), "QS=%lu", lf->lts.sq);
			out[n] = buf[n];
			n++;
		}
	}
	return n;
}
