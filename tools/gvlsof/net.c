// SPDX-License-Identifier: MIT
/*
 * net.c - sockets: the /proc/net tables, read once, by inode.
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
/* Sockets: the /proc/net tables, by inode.                           */


struct map sockets;
bool sockets_loaded;

static const char *const net_files[] = {
	/* lsof's lookup order: the first table holding an inode wins */
	"raw", "netlink", "packet", "unix", "raw6", "tcp6", "udp6",
	"udplite6", "tcp", "udp", "udplite", "icmp",
};

static void sock_add(uint64_t ino, const char *type, const char *device,
		     const char *node, const char *name)
{
	struct sockrow *s;

	if (!ino || map_get(&sockets, ino))
		return;
	s = salloc_aligned(sizeof(*s));
	*s = (struct sockrow){ type, device, node, name };
	map_put(&sockets, ino, s);
}

static const char *sock_type_name(unsigned t, bool *known)
{
	static const char *const names[] = {
		[1] = "STREAM", [2] = "DGRAM", [3] = "RAW", [4] = "RDM",
		[5] = "SEQPACKET", [6] = "DCCP", [10] = "PACKET",
	};

	*known = t < sizeof(names) / sizeof(names[0]) && names[t];
	return *known ? names[t] : "unknown";
}

/* "00000000a01c223b: 00000002 00000000 00010000 0001 01 136767 @name" */
static void net_unix(char *line)
{
	static const char *const states[] = {
		[1] = "UNCONNECTED", [2] = "CONNECTING", [3] = "CONNECTED",
		[4] = "DISCONNECTING",
	};
	char *w[7], *p = line;
	uint64_t flags, type, st, ino;
	const char *state, *path;
	size_t numlen;
	bool known;
	int n = 0;

	/* seven words; the path, if any, is the rest after one space */
	while (n < 7) {
		while (*p == ' ')
			p++;
		if (!*p)
			return;
		w[n++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
	}
	path = *p ? p : NULL;
	numlen = strlen(w[0]);
	if (!numlen || w[0][numlen - 1] != ':' ||
	    !parse_u64(w[3], 16, &flags) || !parse_u64(w[4], 16, &type) ||
	    !parse_u64(w[5], 16, &st) || !parse_u64(w[6], 10, &ino))
		return;
	w[0][numlen - 1] = 0;
	if (flags == 0x10000)	/* __SO_ACCEPTCON: listening */
		state = "LISTEN";
	else if (st < 5 && states[st])
		state = states[st];
	else
		state = "UNKNOWN";
	sock_add(ino, "unix", sfmt("0x%s", w[0]), sfmt("%" PRIu64, ino),
		 sfmt("%s%stype=%s (%s)", path ? path : "", path ? " " : "",
		      sock_type_name(type, &known), state));
}

static bool hex_addr(const char *s, size_t hexlen, unsigned char *out)
{
	for (size_t i = 0; i < hexlen / 8; i++) {
		char word[9];
		uint64_t v;
		uint32_t u;

		memcpy(word, s + 8 * i, 8);
		word[8] = 0;
		if (!parse_u64(word, 16, &v))
			return false;
		/* the kernel prints each 32-bit word as it is in memory */
		u = (uint32_t)v;
		memcpy(out + 4 * i, &u, 4);
	}
	return true;
}

/* "0100007F:8451" into an address (4 or 16 bytes) and a port. */
static bool addr_port(const char *s, size_t alen, unsigned char *addr,
		      unsigned *port)
{
	uint64_t p;

	if (strlen(s) != 2 * alen + 5 || s[2 * alen] != ':' ||
	    !hex_addr(s, 2 * alen, addr) || !parse_u64(s + 2 * alen + 1, 16, &p))
		return false;
	*port = p & 0xffff;
	return true;
}

static bool all_zero(const unsigned char *a, size_t n)
{
	while (n--)
		if (*a++)
			return false;
	return true;
}

/* lsof's printinaddr(): "*" for the any address, "*" for port 0. */
static void put_endpoint(char *out, size_t size, const unsigned char *a,
			 unsigned port, bool v6)
{
	char host[INET6_ADDRSTRLEN + 2], portbuf[16];

	if (all_zero(a, v6 ? 16 : 4)) {
		strcpy(host, "*");
	} else if (v6) {
		host[0] = '[';
		inet_ntop(AF_INET6, a, host + 1, sizeof(host) - 2);
		strcat(host, "]");
	} else {
		snprintf(host, sizeof(host), "%u.%u.%u.%u", a[0], a[1], a[2],
			 a[3]);
	}
	if (port)
		snprintf(portbuf, sizeof(portbuf), "%u", port);
	else
		strcpy(portbuf, "*");
	snprintf(out + strlen(out), size - strlen(out), "%s:%s", host, portbuf);
}

static const char *tcp_state(uint64_t st)
{
	static const char *const names[] = {
		"CLOSED", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
		"FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK",
		"LISTEN", "CLOSING",
	};

	if (st < sizeof(names) / sizeof(names[0]))
		return names[st];
	return sfmt("UNKNOWN_TCP_STATE_%" PRIu64, st);
}

/*
 * A line of /proc/net/{tcp,udp,udplite}[6]:
 * "0: 0100007F:8451 00000000:0000 0A 00000000:00000000 00:00000000
 *  00000000 0 0 64345 ..."
 */
static void net_inet(char *line, const char *proto, bool v6)
{
	size_t alen = v6 ? 16 : 4;
	unsigned char la[16], fa[16];
	unsigned lport, fport;
	uint64_t st, ino;
	bool have_l, have_f, show_v6 = v6;
	char name[160] = "";
	char *w[10];

	if (split_words(line, w, 10) < 10 || !strcmp(w[1], "local_address") ||
	    !addr_port(w[1], alen, la, &lport) ||
	    !addr_port(w[2], alen, fa, &fport) || !parse_u64(w[3], 16, &st) ||
	    !parse_u64(w[9], 10, &ino))
		return;
	have_l = !all_zero(la, alen) || lport;
	have_f = !all_zero(fa, alen) || fport;
	if (v6) {
		static const unsigned char mapped[12] = {
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
		};

		/* an IPv4-mapped address is shown as IPv4, as lsof does */
		if ((have_f && !memcmp(fa, mapped, 12)) ||
		    (have_l && !memcmp(la, mapped, 12))) {
			memmove(la, la + 12, 4);
			memmove(fa, fa + 12, 4);
			show_v6 = false;
		}
	}
	if (have_l)
		put_endpoint(name, sizeof(name), la, lport, show_v6);
	if (have_f) {
		strcat(name, "->");
		put_endpoint(name, sizeof(name), fa, fport, show_v6);
	}
	/* lsof separates the TCP state by a space, and leaves the space */
	sock_add(ino, v6 ? "IPv6" : "IPv4", sfmt("%" PRIu64, ino), proto,
		 strcmp(proto, "TCP") ? sfmt("%s ", name) :
		 sfmt("%s (%s)", name, tcp_state(st)));
}

/* raw, raw6 and icmp: the kernel's own address strings, as lsof shows them */
static void net_raw(char *line, const char *type, bool state)
{
	char *w[10], *name;
	uint64_t ino;

	if (split_words(line, w, 10) < 10 || !strcmp(w[1], "local_address") ||
	    !parse_u64(w[9], 10, &ino))
		return;
	name = sfmt("%s->%s", w[1], w[2]);
	if (state)
		name = sfmt("%s st=%s", name, w[3]);
	sock_add(ino, type, "", sfmt("%" PRIu64, ino), name);
}

static const char *netlink_proto(uint64_t p)
{
	static const char *const names[] = {
		"ROUTE", "UNUSED", "USERSOCK", "FIREWALL", "INET_DIAG",
		"NFLOG", "XFRM", "SELINUX", "ISCSI", "AUDIT", "FIB_LOOKUP",
		"CONNECTOR", "NETFILTER", "IP6_FW", "DNRTMSG",
		"KOBJECT_UEVENT", "GENERIC", NULL, "SCSITRANSPORT",
		"ECRYPTFS", "RDMA", "CRYPTO", "SMC",
	};

	if (p < sizeof(names) / sizeof(names[0]) && names[p])
		return names[p];
	return sfmt("unknown protocol: %" PRIu64, p);
}

/* "sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode" */
static void net_netlink(char *line)
{
	char *w[10];
	uint64_t eth, ino;

	if (split_words(line, w, 10) < 10 || !parse_u64(w[1], 10, &eth) ||
	    !parse_u64(w[9], 10, &ino))
		return;
	sock_add(ino, "netlink", "", sfmt("%" PRIu64, ino),
		 netlink_proto(eth));
}

static const char *eth_proto(uint64_t p)
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

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].p == p)
			return names[i].name;
	return sfmt("%" PRIu64, p);
}

/* "sk RefCnt Type Proto Iface R Rmem User Inode" */
static void net_packet(char *line)
{
	char *w[9];
	uint64_t type, proto, ino;
	const char *tn;
	bool known;

	if (split_words(line, w, 9) < 9 || !parse_u64(w[2], 10, &type) ||
	    !parse_u64(w[3], 16, &proto) || !parse_u64(w[8], 10, &ino))
		return;
	tn = sock_type_name(type, &known);
	sock_add(ino, "pack", sfmt("%" PRIu64, ino), eth_proto(proto),
		 sfmt("type=%s%s", known ? "SOCK_" : "", tn));
}

static void net_parse(const char *file, const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	bool first = true;
	size_t len;

	while (next_line(&p, end, &line, &len)) {
		char *copy = xrealloc(NULL, len + 1);

		memcpy(copy, line, len);
		copy[len] = 0;
		if (first) {
			/* the header line */
			first = false;
		} else if (!strcmp(file, "unix")) {
			net_unix(copy);
		} else if (!strcmp(file, "netlink")) {
			net_netlink(copy);
		} else if (!strcmp(file, "packet")) {
			net_packet(copy);
		} else if (!strcmp(file, "raw")) {
			net_raw(copy, "raw", true);
		} else if (!strcmp(file, "raw6")) {
			net_raw(copy, "raw6", true);
		} else if (!strcmp(file, "icmp")) {
			net_raw(copy, "icmp", false);
		} else {
			bool v6 = file[strlen(file) - 1] == '6';
			const char *proto = !strncmp(file, "tcp", 3) ? "TCP" :
					    !strncmp(file, "udplite", 7) ?
					    "UDPLITE" : "UDP";

			net_inet(copy, proto, v6);
		}
		free(copy);
	}
}

void sockets_load(void)
{
	struct batch b = { 0 };
	size_t first = 0;

	sockets_loaded = true;
	for (size_t i = 0; i < sizeof(net_files) / sizeof(net_files[0]); i++) {
		size_t k = batch_add(&b, "data:net/%s", net_files[i]);

		if (!i)
			first = k;
	}
	if (!batch_run(&b, PROC))
		for (size_t i = 0; i < b.n; i++) {
			size_t len;
			int err;
			const char *v = val(&b, first + i, &len, &err);

			if (v)
				net_parse(net_files[i], v, len);
		}
	batch_free(&b);
}
