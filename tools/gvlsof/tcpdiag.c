// SPDX-License-Identifier: MIT
/*
 * tcpdiag.c - the TCP sockets of /proc/net/tcp and tcp6 through sock_diag,
 * the same records without reading the tables.
 *
 * The kernel makes /proc/net/tcp a page at a time, and every page starts
 * over a walk of the whole established hash (262,144 buckets on a machine
 * with 64 GiB, most of them empty): with 200 sockets, eight pages, the
 * table cost about 12 ms, more than a tenth of a whole listing. A
 * sock_diag dump walks the hash once, wherever its messages break. It
 * gives what the table gives (addresses, ports, state, queues, inode) but
 * for one number: a listening socket's send queue, which the table prints
 * as write_seq - snd_una and sock_diag as the backlog limit. So the dump
 * is used only where queue sizes are not printed (-T without q), and the
 * table is read as before wherever the dump cannot be had. The request
 * itself is sent by diag_send(), endpoint.c's unix dump's too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gvlsof.h"

/*
 * The states the table lists: those of the listening and established
 * hashes, TCP_ESTABLISHED (1) to TCP_NEW_SYN_RECV (12). Not
 * TCP_BOUND_INACTIVE (13): sockets only bound, which the table does not
 * show and Linux 6.8 and later dump when asked.
 */
#define TABLE_STATES	(((1U << 13) - 1) & ~1U)

/*
 * A sock_diag dump request, @req of @len bytes after the netlink header,
 * sent on a new NETLINK_SOCK_DIAG socket: the socket, or -1 with errno
 * set and *@sent saying whether the socket was made.
 */
int diag_send(const void *req, size_t len, bool *sent)
{
	struct {
		struct nlmsghdr nlh;
		unsigned char req[64];
	} msg = {
		.nlh = {
			.nlmsg_len = NLMSG_LENGTH(len),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_DUMP | NLM_F_REQUEST,
		},
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int ns, err;

	*sent = false;
	if (len > sizeof(msg.req)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(msg.req, req, len);
	ns = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (ns < 0)
		return -1;
	*sent = true;
	if (sendto(ns, &msg, msg.nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		err = errno;
		close(ns);
		errno = err;
		return -1;
	}
	return ns;
}

/* A dump request for every TCP socket of family @af; -1 if none. */
static int tcp_diag_request(int af)
{
	struct inet_diag_req_v2 req = {
		.sdiag_family = (unsigned char)af,
		.sdiag_protocol = IPPROTO_TCP,
		.idiag_states = TABLE_STATES,
	};
	bool made;

	return diag_send(&req, sizeof(req), &made);
}

/* One message as the table's line would give it. */
static void tcp_diag_msg(const struct nlmsghdr *hp,
			 void (*fn)(const struct tcp_rec *))
{
	const struct inet_diag_msg *dm = NLMSG_DATA(hp);
	struct tcp_rec t = { 0 };
	size_t alen = dm->idiag_family == AF_INET6 ? 16 : 4;

	if (hp->nlmsg_len < NLMSG_LENGTH(sizeof(*dm)))
		return;
	memcpy(t.la, dm->id.idiag_src, alen);
	memcpy(t.fa, dm->id.idiag_dst, alen);
	t.lport = ntohs(dm->id.idiag_sport);
	t.fport = ntohs(dm->id.idiag_dport);
	t.state = dm->idiag_state;
	t.rxq = dm->idiag_rqueue;
	t.txq = dm->idiag_wqueue;
	t.inode = dm->idiag_inode;
	fn(&t);
}

/*
 * Every TCP socket of family @af (AF_INET, AF_INET6), in the table's
 * order, to @fn; false if the dump failed before its end (no sock_diag,
 * no tcp_diag module), when the caller reads the table instead. A failure
 * part of the way through has given some records: the table's reader
 * keeps the first record of each inode, so they come out the same.
 */
bool tcp_diag(int af, void (*fn)(const struct tcp_rec *))
{
	static char buf[32768] __attribute__((aligned(8)));
	int ns = tcp_diag_request(af);
	ssize_t nb;

	if (ns < 0)
		return false;
	while ((nb = recv(ns, buf, sizeof(buf), 0)) > 0) {
		for (struct nlmsghdr *hp = (struct nlmsghdr *)buf;
		     NLMSG_OK(hp, nb); hp = NLMSG_NEXT(hp, nb)) {
			if (hp->nlmsg_type == NLMSG_DONE) {
				close(ns);
				return true;
			}
			if (hp->nlmsg_type == NLMSG_ERROR)
				goto fail;
			tcp_diag_msg(hp, fn);
		}
	}
fail:
	close(ns);
	return false;
}
