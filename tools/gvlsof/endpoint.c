// SPDX-License-Identifier: MIT
/*
 * endpoint.c - -E and +E: the other ends of pipes, pseudo-terminals,
 * unix and local Internet sockets, POSIX message queues and eventfds,
 * added to the NAME column as lsof adds them ("PID,COMMAND,FDmode"), and
 * with +E the end files listed too.
 *
 * The peers of unix sockets are known only to the kernel's sock_diag
 * netlink interface (no file in /proc names them), which is asked once per
 * cycle; everything else comes from what the rounds gathered.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gvlsof.h"

/* A file that is an end: its process and its row. */
struct ept_ref {
	size_t proc, file;
};

/* the holders of one object (a pipe inode, a pty index...) */
struct chain {
	struct ept_ref *v;
	size_t n, cap;
};

enum { K_PIPE, K_PTY, K_MQ, K_EVTFD, K_UNIX, K_INET, K_INET6, NKINDS };

static struct map chains[NKINDS];

static struct chain *chain_get(int kind, uint64_t key, bool create)
{
	struct chain *c = map_get(&chains[kind], key + 1);

	if (!c && create) {
		c = xcalloc(1, sizeof(*c));
		map_put(&chains[kind], key + 1, c);
	}
	return c;
}

static struct lproc *ref_proc(const struct ept_ref *r)
{
	return &procs[r->proc];
}

static struct lfile *ref_file(const struct ept_ref *r)
{
	return &procs[r->proc].files[r->file];
}

/*
 * lsof enters a file once per process and descriptor (the tasks of a
 * process share them): the first one met is kept. Pipes, ptys, message
 * queues and eventfds are appended, sockets prepended.
 */
static void enter(int kind, uint64_t key, size_t proc, size_t file,
		  bool prepend)
{
	struct chain *c = chain_get(kind, key, true);
	struct lproc *lp = &procs[proc];
	struct lfile *lf = &lp->files[file];

	for (size_t i = 0; i < c->n; i++) {
		const struct lfile *ef = ref_file(&c->v[i]);

		if (ref_proc(&c->v[i])->pid == lp->pid &&
		    !strcmp(ef->fd, lf->fd) && (kind != K_PTY ||
						ef->rdev == lf->rdev))
			return;
	}
	GROW(c->v, c->n, c->cap);
	if (prepend) {
		memmove(c->v + 1, c->v, c->n * sizeof(*c->v));
		c->v[0] = (struct ept_ref){ proc, file };
	} else {
		c->v[c->n] = (struct ept_ref){ proc, file };
	}
	c->n++;
}

/* The ends, entered in gathering order as lsof enters them. */
static void build_chains(void)
{
	size_t *order = xrealloc(NULL, (nprocs + 1) * sizeof(*order));

	for (size_t i = 0; i < nprocs; i++)
		order[procs[i].seq] = i;
	for (size_t o = 0; o < nprocs; o++) {
		size_t p = order[o];
		struct lproc *lp = &procs[p];

		for (size_t f = 0; f < lp->nfiles; f++) {
			struct lfile *lf = &lp->files[f];

			if (lf->ntype == N_FIFO && lf->inp_ty == 1)
				enter(K_PIPE, lf->inode, p, f, false);
			else if (mqueue_known && lf->dev_def &&
				 lf->inp_ty == 1 && lf->dev == mqueue_dev)
				enter(K_MQ, lf->inode, p, f, false);
			if (lf->rdev_def && lf->ntype == N_CHR &&
			    is_pty_slave(major(lf->rdev)))
				enter(K_PTY, minor(lf->rdev), p, f, false);
			else if (lf->rdev_def && is_pty_ptmx(lf->rdev) &&
				 lf->tty_index != -1)
				enter(K_PTY, (uint64_t)lf->tty_index, p, f,
				      false);
			if (lf->ntype == N_ANON_INODE && lf->eventfd_id != -1)
				enter(K_EVTFD, (uint64_t)lf->eventfd_id, p, f,
				      false);
			if (lf->sock && !strcmp(lf->type, "unix"))
				enter(K_UNIX, lf->inode, p, f, true);
			else if (lf->sock && lf->sock->peer &&
				 !strcmp(lf->type, "IPv4"))
				enter(K_INET, lf->inode, p, f, true);
			else if (lf->sock && lf->sock->peer &&
				 !strcmp(lf->type, "IPv6"))
				enter(K_INET6, lf->inode, p, f, true);
		}
	}
	free(order);
}

/* "PID,COMMAND,FDmode" of an end, into @lf's NAME column addition. */
static void add_end(struct lfile *lf, const struct ept_ref *r)
{
	const struct lproc *ep = ref_proc(r);
	const struct lfile *ef = ref_file(r);

	add_nma(lf, sfmt("%d,%.*s,%s%c", ep->pid, opt.cmd_lim, ep->cmd,
			 fd_trimmed(ef), ef->access));
}

static void mark_end(const struct ept_ref *r, unsigned chend, unsigned ept)
{
	ref_file(r)->chend = chend;
	ref_proc(r)->ept |= ept;
}

/* Pipes, message queues and eventfds: the same inode, another holder. */
static void simple_ends(struct lproc *lp, int f, int kind, unsigned chend,
			unsigned ept_end)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		struct lfile *lf = &lp->files[i];
		struct chain *c;
		uint64_t key;
		bool sel;

		if (kind == K_PIPE && (lf->ntype != N_FIFO || lf->inp_ty != 1))
			continue;
		if (kind == K_MQ && (!mqueue_known || !lf->dev_def ||
				     lf->dev != mqueue_dev))
			continue;
		if (kind == K_EVTFD && (lf->ntype != N_ANON_INODE ||
					lf->eventfd_id == -1))
			continue;
		key = kind == K_EVTFD ? (uint64_t)lf->eventfd_id : lf->inode;
		c = chain_get(kind, key, false);
		sel = is_file_sel(lp, lf);
		if (f == 0 && !sel)
			continue;
		if (f == 1) {
			if (sel || !(lf->chend & chend))
				continue;
			lf->sf = opt.sel_flags;
			lp->pss |= PS_SEC;
		}
		for (size_t k = 0; c && k < c->n; k++) {
			const struct ept_ref *r = &c->v[k];

			if (ref_proc(r)->pid == lp->pid &&
			    !strcmp(ref_file(r)->fd, lf->fd))
				continue;
			add_end(lf, r);
			if (f == 0 && opt.feptE == 2)
				mark_end(r, chend, ept_end);
		}
	}
}

static void pty_ends(struct lproc *lp, int f)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		struct lfile *lf = &lp->files[i];
		struct chain *c;
		bool mos, sel, first = true;

		if (lf->rdev_def && is_pty_ptmx(lf->rdev))
			mos = true;
		else if (lf->rdev_def && is_pty_slave(major(lf->rdev)))
			mos = false;
		else
			continue;
		sel = is_file_sel(lp, lf);
		if (f == 0 && !sel)
			continue;
		if (f == 1) {
			if (sel || !(lf->chend & CHEND_PTY))
				continue;
			lf->sf = opt.sel_flags;
			lp->pss |= PS_SEC;
		}
		c = chain_get(K_PTY, mos ? (uint64_t)lf->tty_index :
				      minor(lf->rdev), false);
		if (mos && lf->tty_index == -1)
			c = NULL;
		for (size_t k = 0; c && k < c->n; k++) {
			const struct ept_ref *r = &c->v[k];
			const struct lfile *ef = ref_file(r);
			const struct lproc *ep = ref_proc(r);

			/* a master's ends are slaves, a slave's masters */
			if (mos ? !is_pty_slave(major(ef->rdev)) :
				  !is_pty_ptmx(ef->rdev))
				continue;
			if (mos && first)
				add_nma(lf, sfmt("->/dev/pts/%d %d,%.*s,%s%c",
						 lf->tty_index, ep->pid,
						 opt.cmd_lim, ep->cmd,
						 fd_trimmed(ef), ef->access));
			else
				add_end(lf, r);
			first = false;
			if (f == 0 && opt.feptE == 2)
				mark_end(r, CHEND_PTY, EPT_PTY_END);
		}
	}
}

/* "->INO=N" and the holders of socket @p */
static void prt_uxs(struct lfile *lf, const struct sockrec *p, bool mk)
{
	struct chain *c = chain_get(K_UNIX, p->inode, false);

	add_nma(lf, sfmt("->INO=%llu", (unsigned long long)p->inode));
	for (size_t k = 0; c && k < c->n; k++) {
		add_end(lf, &c->v[k]);
		if (mk && opt.feptE == 2)
			mark_end(&c->v[k], CHEND_UXS, EPT_UXS_END);
	}
}

static void unix_ends(struct lproc *lp, int f)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		struct lfile *lf = &lp->files[i];
		const struct sockrec *tp, *p;
		bool sel;

		if (strcmp(lf->type, "unix"))
			continue;
		sel = is_file_sel(lp, lf);
		if (f == 0 && !sel)
			continue;
		if (f == 1) {
			if (sel || !(lf->chend & CHEND_UXS))
				continue;
			lf->sf = opt.sel_flags;
			lp->pss |= PS_SEC;
		}
		tp = net_lookup(lf->inode);
		p = tp ? tp->peer : NULL;
		if (p && p->inode) {
			prt_uxs(lf, p, f == 0);
			if (f == 1)
				continue;
		}
		if (!tp || !tp->icons)
			continue;
		if (tp->icstat) {
			for (p = tp->icons; p && p != tp; p = p->icons)
				if (p->inode)
					prt_uxs(lf, p, f == 0);
		} else {
			for (p = tp->icons; p && !p->icstat; p = p->icons)
				;
			if (p && p->inode)
				prt_uxs(lf, p, f == 0);
		}
	}
}

static void inet_ends(struct lproc *lp, int f, bool v6)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		struct lfile *lf = &lp->files[i];
		const struct sockrec *tp;
		struct chain *c;
		bool sel;

		if (strcmp(lf->type, v6 ? "IPv6" : "IPv4"))
			continue;
		sel = is_file_sel(lp, lf);
		if (f == 0 && !sel)
			continue;
		if (f == 1) {
			if (sel || !(lf->chend & (v6 ? CHEND_NETS6 :
						  CHEND_NETS)))
				continue;
			lf->sf = opt.sel_flags;
			lp->pss |= PS_SEC;
		}
		tp = net_lookup(lf->inode);
		if (!tp || !tp->peer || !tp->peer->inode)
			continue;
		c = chain_get(v6 ? K_INET6 : K_INET, tp->peer->inode, false);
		for (size_t k = 0; c && k < c->n; k++) {
			add_end(lf, &c->v[k]);
			if (f == 0 && opt.feptE == 2)
				mark_end(&c->v[k], v6 ? CHEND_NETS6 :
						       CHEND_NETS,
					 v6 ? EPT_NETS6_END : EPT_NETS_END);
		}
	}
}

/* lsof's two passes over the processes, in PID order. */
void endpoints_process(struct lproc **slp, size_t n)
{
	build_chains();
	for (size_t i = 0; i < n; i++) {
		struct lproc *lp = slp[i];

		if (lp->pss && (lp->ept & EPT_PIPE))
			simple_ends(lp, 0, K_PIPE, CHEND_PIPE, EPT_PIPE_END);
		if (lp->ept & EPT_PSXMQ)
			simple_ends(lp, 0, K_MQ, CHEND_PSXMQ, EPT_PSXMQ_END);
		if (lp->pss && (lp->ept & EPT_UXS))
			unix_ends(lp, 0);
		if (lp->pss && (lp->ept & EPT_PTY))
			pty_ends(lp, 0);
		if (lp->ept & EPT_NETS)
			inet_ends(lp, 0, false);
		if (lp->ept & EPT_NETS6)
			inet_ends(lp, 0, true);
		if (lp->ept & EPT_EVTFD)
			simple_ends(lp, 0, K_EVTFD, CHEND_EVTFD, EPT_EVTFD_END);
	}
	for (size_t i = 0; i < n; i++) {
		struct lproc *lp = slp[i];

		if (lp->ept & EPT_PIPE_END)
			simple_ends(lp, 1, K_PIPE, CHEND_PIPE, 0);
		if (lp->ept & EPT_PSXMQ_END)
			simple_ends(lp, 1, K_MQ, CHEND_PSXMQ, 0);
		if (lp->ept & EPT_UXS_END)
			unix_ends(lp, 1);
		if (lp->ept & EPT_PTY_END)
			pty_ends(lp, 1);
		if (lp->ept & EPT_NETS_END)
			inet_ends(lp, 1, false);
		if (lp->ept & EPT_NETS6_END)
			inet_ends(lp, 1, true);
		if (lp->ept & EPT_EVTFD_END)
			simple_ends(lp, 1, K_EVTFD, CHEND_EVTFD, 0);
	}
}

void endpoints_free(void)
{
	for (int k = 0; k < NKINDS; k++) {
		for (size_t i = 0; i < chains[k].cap; i++) {
			struct chain *c = chains[k].vals[i];

			if (c) {
				free(c->v);
				free(c);
			}
		}
		map_free(&chains[k]);
	}
}

/* ------------------------------------------------------------------ */
/* The peers of unix sockets, from sock_diag.                         */

/* The peer and incoming connections one sock_diag message gives. */
static void unix_diag_msg(const struct nlmsghdr *hp,
			  void (*peer)(uint64_t, uint64_t),
			  void (*icon)(uint64_t, uint64_t))
{
	const struct unix_diag_msg *dm = NLMSG_DATA(hp);
	int len = hp->nlmsg_len - NLMSG_LENGTH(sizeof(*dm));

	if (dm->udiag_family != AF_UNIX || !dm->udiag_ino || len <= 0)
		return;
	for (struct rtattr *rp = (struct rtattr *)(dm + 1); RTA_OK(rp, len);
	     rp = RTA_NEXT(rp, len)) {
		if (rp->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(rp) >= 4) {
			uint32_t pi = *(uint32_t *)RTA_DATA(rp);

			if (pi) {
				peer(dm->udiag_ino, pi);
				peer(pi, dm->udiag_ino);
			}
		} else if (rp->rta_type == UNIX_DIAG_ICONS) {
			uint32_t *ic = RTA_DATA(rp);

			for (size_t k = 0; k < RTA_PAYLOAD(rp) / 4; k++)
				icon(dm->udiag_ino, ic[k]);
		}
	}
}

/* A sock_diag dump request for every unix socket, its peer and icons. */
static int unix_diag_request(void)
{
	struct unix_diag_req req = {
		.sdiag_family = AF_UNIX,
		.udiag_states = ~0U,
		.udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS,
	};
	bool made;
	int ns = diag_send(&req, sizeof(req), &made);

	if (ns < 0 && !made) {
		fprintf(stderr, "%s: netlink socket error: %s\n", opt.pn,
			strerror(errno));
		exit(1);
	}
	if (ns < 0)
		fprintf(stderr, "%s: netlink peer request error: %s\n", opt.pn,
			strerror(errno));
	return ns;
}

/*
 * One dump of every unix socket with its peer and its pending incoming
 * connections; @peer(inode, peer) and @icon(listener, connection) get them.
 */
void unix_diag_peers(void (*peer)(uint64_t, uint64_t),
		     void (*icon)(uint64_t, uint64_t))
{
	static char buf[32768] __attribute__((aligned(8)));
	int ns = unix_diag_request();
	ssize_t nb;

	if (ns < 0)
		return;
	while ((nb = recv(ns, buf, sizeof(buf), 0)) > 0) {
		for (struct nlmsghdr *hp = (struct nlmsghdr *)buf;
		     NLMSG_OK(hp, nb); hp = NLMSG_NEXT(hp, nb)) {
			if (hp->nlmsg_type == NLMSG_DONE)
				goto done;
			if (hp->nlmsg_type == NLMSG_ERROR) {
				fprintf(stderr, "%s: netlink UNIX socket msg "
					"peer info error\n", opt.pn);
				goto done;
			}
			unix_diag_msg(hp, peer, icon);
		}
	}
done:
	close(ns);
}
