// SPDX-License-Identifier: MIT
/*
 * inet.c - Internet addresses: the -i selection ([46][proto][@host][:ports])
 * and its matching, and the host and service names lsof prints unless -n
 * and -P ask for numbers.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* -i                                                                 */

/* "1.2.3.4[:...]": the address and where it ends, or NULL */
static const char *is_ipv4_addr(const char *hn, unsigned char *a)
{
	int ov[4], ovx = 0, dc = 0;

	if (*hn < '0' || *hn > '9')
		return NULL;
	ov[0] = *hn++ - '0';
	while (*hn && *hn != ':') {
		if (*hn == '.') {
			dc++;
			if (ov[ovx] < 0 || ov[ovx] > 255 || ++ovx > 3)
				return NULL;
			ov[ovx] = -1;
		} else if (*hn >= '0' && *hn <= '9') {
			ov[ovx] = ov[ovx] < 0 ? *hn - '0' :
				  ov[ovx] * 10 + (*hn - '0');
		} else {
			return NULL;
		}
		hn++;
	}
	if (dc != 3 || ovx != 3 || ov[3] < 0 || ov[3] > 255)
		return NULL;
	for (int i = 0; i < 4; i++)
		a[i] = (unsigned char)ov[i];
	return hn;
}

/* gethostbyname2() of @hn into @n; the hostent for more addresses. */
static struct hostent *lkup_hostnm(const char *hn, struct nwad *n)
{
	struct hostent *he = gethostbyname2(hn, n->af);

	if (!he || n->af != he->h_addrtype)
		return NULL;
	memset(n->a, 0, sizeof(n->a));
	if (n->af == AF_INET6) {
		if (he->h_length > 16)
			return NULL;
		memcpy(n->a, he->h_addr_list[0], he->h_length);
		return he;
	}
	if (he->h_length != 4)
		return NULL;
	memcpy(n->a, he->h_addr_list[0], 4);
	return he;
}

static bool addr_zero(const struct nwad *n)
{
	for (int i = 0; i < (n->af == AF_INET6 ? 16 : 4); i++)
		if (n->a[i])
			return false;
	return true;
}

static int enter_nwad(const struct nwad *n, int sp, int ep, const char *s,
		      struct hostent *he)
{
	struct nwad nc = *n;
	int ac = 1;

	nc.arg = *s ? xstrdup(s) : NULL;
	nc.proto = n->proto ? xstrdup(n->proto) : NULL;
	for (;;) {
		if (!nc.proto && !nc.a[0] && !nc.a[1] && !nc.a[2] && !nc.a[3] &&
		    (nc.af != AF_INET6 || addr_zero(&nc)) && sp == -1) {
			fprintf(stderr, "%s: incomplete Internet address "
				"specification: -i ", opt.pn);
			safestrprt(s, stderr, 1);
			return 1;
		}
		if (opt.nnwad >= MAXNWAD) {
			fprintf(stderr, "%s: network address limit (%d) "
				"exceeded: -i ", opt.pn, MAXNWAD);
			safestrprt(s, stderr, 1);
			return 1;
		}
		nc.sport = sp;
		nc.eport = ep;
		nc.found = false;
		opt.nwad = xrealloc(opt.nwad, (opt.nnwad + 1) *
				    sizeof(*opt.nwad));
		opt.nwad[opt.nnwad++] = nc;
		if (!he || !he->h_addr_list[ac])
			break;
		memcpy(nc.a, he->h_addr_list[ac++],
		       he->h_length < 16 ? he->h_length : 16);
	}
	return 0;
}

static int unacceptable(const char *what, const char *na)
{
	fprintf(stderr, "%s: %s in: -i ", opt.pn, what);
	safestrprt(na, stderr, 1);
	return 1;
}

/* A service name to a port for @proto, or for TCP and UDP alike. */
static int service_port(const char *sn, const char *proto, const char *na,
			int *port)
{
	struct servent *se, *se1;
	int pt = 0, pu = 0;

	if (proto) {
		if (!(se = getservbyname(sn, proto))) {
			fprintf(stderr, "%s: unknown service %s for %s in: -i ",
				opt.pn, sn, proto);
			safestrprt(na, stderr, 1);
			return 1;
		}
		*port = ntohs(se->s_port);
		return 0;
	}
	if ((se = getservbyname(sn, "tcp")))
		pt = ntohs(se->s_port);
	if ((se1 = getservbyname(sn, "udp")))
		pu = ntohs(se1->s_port);
	if (!se && !se1) {
		fprintf(stderr, "%s: unknown service %s in: -i ", opt.pn, sn);
		safestrprt(na, stderr, 1);
		return 1;
	}
	if (se && se1 && pt != pu) {
		fprintf(stderr, "%s: TCP=%d and UDP=%d %s ports conflict;\n",
			opt.pn, pt, pu, sn);
		fprintf(stderr, "      specify \"tcp:%s\" or \"udp:%s\": -i ",
			sn, sn);
		safestrprt(na, stderr, 1);
		return 1;
	}
	*port = se ? pt : pu;
	return 0;
}

/* One -i argument as lsof's enter_network_address() reads it. */
struct netspec {
	const char *na;		/* as given, for messages */
	char *wa;		/* where the reading is */
	int ft;			/* 4, 6 or 0: the family asked for */
	struct nwad n;
	char *hn;		/* a host name, or NULL */
	struct hostent *he;	/* its addresses */
};

/* -i 4, -i 6 alone: every file of the family (true: nothing else) */
static bool net_family(struct netspec *s)
{
	int ft;

	if (*s->wa != '4' && *s->wa != '6') {
		if (opt.fnet)
			s->ft = opt.fnet_ty;
		return false;
	}
	ft = s->ft = *s->wa == '4' ? 4 : 6;
	if (*++s->wa)
		return false;
	if (!opt.fnet) {
		opt.fnet = 1;
		opt.fnet_ty = ft;
	} else if (opt.fnet_ty) {
		if (opt.fnet_ty != ft)
			opt.fnet_ty = 0;
	} else {
		opt.fnet_ty = ft;
	}
	return true;
}

/* [proto]: TCP, UDP or UDPLITE, in lower case */
static int net_proto(struct netspec *s)
{
	char *p = s->wa;

	if (!*p || *p == '@' || *p == ':')
		return 0;
	while (*s->wa && *s->wa != '@' && *s->wa != ':')
		s->wa++;
	s->n.proto = sdup_n(p, s->wa - p);
	if (strcasecmp(s->n.proto, "tcp") && strcasecmp(s->n.proto, "udp") &&
	    strcasecmp(s->n.proto, "udplite")) {
		fprintf(stderr, "%s: unknown protocol name (%s) in: -i ",
			opt.pn, s->n.proto);
		safestrprt(s->na, stderr, 1);
		return 1;
	}
	for (char *c = s->n.proto; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return 0;
}

/* @[IPv6 address] (an IPv4-mapped one is its IPv4 address) */
static int net_ipv6(struct netspec *s)
{
	char *cp, save;
	int ok;

	if (s->ft == 4)
		return unacceptable("IPv6 addresses are prohibited", s->na);
	if (!(cp = strrchr(++s->wa, ']')))
		return unacceptable("unacceptable Internet address", s->na);
	save = *cp;
	*cp = 0;
	ok = inet_pton(AF_INET6, s->wa, s->n.a);
	*cp = save;
	s->n.af = AF_INET6;
	if (ok != 1 || addr_zero(&s->n))
		return unacceptable("unacceptable Internet address", s->na);
	if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)s->n.a)) {
		if (s->ft == 6)
			return unacceptable("IPv4 addresses are prohibited",
					    s->na);
		memmove(s->n.a, s->n.a + 12, 4);
		memset(s->n.a + 4, 0, 12);
		s->n.af = AF_INET;
	}
	s->wa = cp + 1;
	return 0;
}

/* @name: IPv6 first unless -i 4, then IPv4 */
static int net_hostname(struct netspec *s)
{
	char *p2 = s->wa;

	while (*p2 && *p2 != ':')
		p2++;
	if (p2 > s->wa) {
		s->hn = sdup_n(s->wa, p2 - s->wa);
		if (!s->ft)
			s->n.af = AF_INET6;
		if (!(s->he = lkup_hostnm(s->hn, &s->n)) && !s->ft) {
			s->n.af = AF_INET;
			s->he = lkup_hostnm(s->hn, &s->n);
		}
		if (!s->he) {
			fprintf(stderr, "%s: unknown host name (%s) in: -i ",
				opt.pn, s->hn);
			safestrprt(s->na, stderr, 1);
			return 1;
		}
	}
	s->wa = p2;
	return 0;
}

/* [@host]: an IPv4 address, [an IPv6 address] or a name */
static int net_host(struct netspec *s)
{
	const char *p;

	if (*s->wa != '@')
		return 0;
	s->wa++;
	if (!*s->wa || *s->wa == ':')
		return unacceptable("unacceptable Internet address", s->na);
	if ((p = is_ipv4_addr(s->wa, s->n.a))) {
		if (s->ft == 6)
			return unacceptable("IPv4 addresses are prohibited",
					    s->na);
		s->wa = (char *)p;
		s->n.af = AF_INET;
		return 0;
	}
	if (*s->wa == '[')
		return net_ipv6(s);
	return net_hostname(s);
}

/*
 * One item of the port list, up to the next ',' or the end: a port, a
 * service name, or a range of them, into *@sp and *@ep.
 */
static int net_ports(struct netspec *s, int *sp, int *ep)
{
	bool pr = false;
	char *wa = s->wa;

	for (*ep = *sp = 0; *wa; wa++) {
		if (*wa < '0' || *wa > '9') {
			char *p = wa;
			int pt;

			while (*wa && *wa != ',')
				wa++;
			if (wa == p) {
				fprintf(stderr, "%s: invalid service name: -i ",
					opt.pn);
				safestrprt(s->na, stderr, 1);
				return 1;
			}
			if (service_port(sdup_n(p, wa - p), s->n.proto, s->na,
					 &pt))
				return 1;
			if (pr) {
				*ep = pt;
			} else {
				*sp = pt;
				if (*wa == '-')
					pr = true;
			}
		} else {
			for (; *wa && *wa != ','; wa++) {
				if (*wa == '-') {
					if (pr)
						goto bad;
					pr = true;
					break;
				}
				if (*wa < '0' || *wa > '9')
					goto bad;
				if (pr)
					*ep = *ep * 10 + (*wa - '0');
				else
					*sp = *sp * 10 + (*wa - '0');
			}
		}
		if (!*wa || *wa == ',')
			break;
		if (!pr)
			goto bad;
	}
	s->wa = wa;
	if (!pr)
		*ep = *sp;
	if (*ep < *sp)
		goto bad;
	return 0;
bad:
	return unacceptable("unacceptable port specification", s->na);
}

/*
 * The address with ports @sp to @ep, once per address of the host name;
 * a name given without -i 6 that had IPv6 addresses then its IPv4 ones.
 */
static int net_enter(struct netspec *s, int sp, int ep)
{
	for (;;) {
		if (enter_nwad(&s->n, sp, ep, s->na, s->he))
			return 1;
		if (s->hn && s->n.af == AF_INET6 && s->ft != 6) {
			s->n.af = AF_INET;
			if ((s->he = lkup_hostnm(s->hn, &s->n)))
				continue;
		}
		return 0;
	}
}

/* lsof's enter_network_address(): [46][proto][@host][:ports] */
int enter_network_address(char *na)
{
	struct netspec s = { .na = na, .wa = na };
	int sp, ep;

	if (net_family(&s))
		return 0;
	s.n.af = s.ft == 4 ? AF_INET : s.ft == 6 ? AF_INET6 : 0;
	if (net_proto(&s) || net_host(&s))
		return 1;
	if (!*s.wa)
		return net_enter(&s, -1, -1);
	if (*s.wa != ':' || !s.wa[1])
		return unacceptable("unacceptable port specification", na);
	for (++s.wa; *s.wa; s.wa++) {
		if (net_ports(&s, &sp, &ep) || net_enter(&s, sp, ep))
			return 1;
		if (!*s.wa)
			break;
	}
	return 0;
}

/*
 * Is @ia (port @p, family @af, protocol @proto) selected by -i? As in
 * lsof, the specifications are tried newest first and the first match is
 * marked found.
 */
bool is_nw_addr_proto(const unsigned char *ia, int p, int af,
		      const char *proto)
{
	for (size_t k = opt.nnwad; k-- > 0;) {
		struct nwad *n = &opt.nwad[k];

		if (n->proto && strcasecmp(n->proto, proto))
			continue;
		if (af && n->af && af != n->af)
			continue;
		if (af == AF_INET6) {
			if (!addr_zero(n) && memcmp(ia, n->a, 16))
				continue;
		} else if (af == AF_INET) {
			if ((n->a[0] || n->a[1] || n->a[2] || n->a[3]) &&
			    memcmp(ia, n->a, 4))
				continue;
		} else {
			continue;
		}
		if (n->sport == -1 || (p >= n->sport && p <= n->eport)) {
			n->found = true;
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Names for addresses and ports.                                     */

struct hostcache {
	int af;
	unsigned char a[16];
	char *name;
};

static struct hostcache *hc;
static size_t nhc;

/* lsof's gethostnm(): the name of an address, or the number. */
const char *gethostnm(const unsigned char *ia, int af)
{
	size_t al = af == AF_INET6 ? 16 : 4;
	struct hostent *he = NULL;
	char hbuf[256];

	for (size_t i = 0; i < nhc; i++)
		if (hc[i].af == af && !memcmp(hc[i].a, ia, al))
			return hc[i].name;
	if (opt.fhost)
		he = gethostbyaddr(ia, al, af);
	if (!he || !he->h_name) {
		if (af == AF_INET6) {
			hbuf[0] = '[';
			if (!inet_ntop(af, ia, hbuf + 1, sizeof(hbuf) - 3))
				snprintf(hbuf + 1, sizeof(hbuf) - 1,
					 "can't format IPv6 address]");
			else
				strcat(hbuf, "]");
		} else if (af == AF_INET) {
			snprintf(hbuf, sizeof(hbuf), "%u.%u.%u.%u", ia[0],
				 ia[1], ia[2], ia[3]);
		} else {
			snprintf(hbuf, sizeof(hbuf), "(unknown AF value: %d)",
				 af);
		}
	} else {
		snprintf(hbuf, sizeof(hbuf), "%s", he->h_name);
	}
	hc = xrealloc(hc, (nhc + 1) * sizeof(*hc));
	hc[nhc] = (struct hostcache){ .af = af, .name = xstrdup(hbuf) };
	memcpy(hc[nhc].a, ia, al);
	return hc[nhc++].name;
}

struct porttab {
	int port, pr;
	char *name;
};

static struct porttab *ports;
static size_t nports;
static int svc_lookups;		/* getservbyport() calls made */
static bool svc_filled;		/* the whole table read (getservent) */

static const char *cached_port(int p, int pr)
{
	for (size_t i = 0; i < nports; i++)
		if (ports[i].port == p && ports[i].pr == pr)
			return ports[i].name;
	return NULL;
}

static void cache_port(int p, int pr, const char *name)
{
	ports = xrealloc(ports, (nports + 1) * sizeof(*ports));
	ports[nports++] = (struct porttab){ p, pr, xstrdup(name) };
}

/*
 * The service name of port @p (@pr 0 TCP, 1 UDP), as lsof finds it: ten
 * getservbyport() calls, then the whole services table once.
 */
static const char *lkup_svcnam(int p, int pr)
{
	static int failed[10], nfailed;
	struct servent *se;

	if (svc_filled)
		return NULL;
	if (svc_lookups < 10) {
		for (int i = 0; i < nfailed; i++)
			if (failed[i] == p)
				return NULL;
		svc_lookups++;
		if ((se = getservbyport(htons(p), pr ? "udp" : "tcp")))
			return se->s_name;
		if (nfailed < 10)
			failed[nfailed++] = p;
		return NULL;
	}
	setservent(1);
	while ((se = getservent())) {
		int tp;

		if (!se->s_name || !se->s_proto || !*se->s_name)
			continue;
		if (!strcasecmp(se->s_proto, "tcp"))
			tp = 0;
		else if (!strcasecmp(se->s_proto, "udp"))
			tp = 1;
		else
			continue;
		if (!cached_port(ntohs(se->s_port), tp))
			cache_port(ntohs(se->s_port), tp, se->s_name);
	}
	endservent();
	svc_filled = true;
	return NULL;
}

/* The text of port @p of protocol @pr for the NAME column. */
const char *lkup_port(int p, int pr, char *buf, size_t size)
{
	const char *c = cached_port(p, pr), *pn;

	if (c)
		return c;
	pn = opt.fport ? lkup_svcnam(p, pr) : NULL;
	if (!pn && svc_filled && opt.fport)
		pn = cached_port(p, pr);
	if (!pn || !*pn) {
		if (p) {
			snprintf(buf, size, "%d", p);
			return buf;
		}
		return "*";
	}
	cache_port(p, pr, pn);
	return cached_port(p, pr);
}

void gethostnm_reset(void)
{
	for (size_t i = 0; i < nhc; i++)
		free(hc[i].name);
	free(hc);
	hc = NULL;
	nhc = 0;
	for (size_t i = 0; i < nports; i++)
		free(ports[i].name);
	free(ports);
	ports = NULL;
	nports = 0;
}
