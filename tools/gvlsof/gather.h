/* SPDX-License-Identifier: MIT */
/*
 * gather.h - what gather.c (the processes) and fds.c (their descriptors)
 * share: one process or task being gathered, and its descriptors.
 */
#ifndef GVLSOF_GATHER_H
#define GVLSOF_GATHER_H

#include "gvlsof.h"

/* What can make a descriptor of a process listable at all. */
enum fdmode {
	FD_FULL,		/* anything */
	FD_SOCK,		/* only sockets */
	FD_NAME,		/* only files a name argument may match */
};

struct gfd {
	int fd;
	enum fdmode mode;	/* the process's, or FD_FULL (-d ORed) */
	bool skip;		/* cannot be listed: not fetched further */
	bool wanted;		/* through rounds 4 and 5 */
	size_t i_pre, i_lstat, i_stat, i_link, i_info;
	struct finfo lst, st;
	int lst_err, st_err, link_err, info_err;
	bool link_done, info_done;
	bool st_known;		/* lst and st known from the link (a socket) */
	bool st_pipe;		/* st known from the link (a pipe), lst not */
	const char *link;
	const char *info;
	size_t info_len;
};

/* One process or task being gathered. */
struct gid {
	int pid, tid;
	char dir[48];		/* "PID" or "PID/task/TID" under /proc */
	int ppid, pgid, rv;	/* rv: lsof's read_id_stat() */
	uid_t uid;
	char *cmd, *tcmd, *cntx;
	size_t proc;		/* in procs[], or SIZE_MAX */
	bool ckscko;
	bool efs;		/* lsof's sticky efs: an exempt file was met */
	size_t lfr;		/* and the row it made, or SIZE_MAX */
	enum fdmode mode;	/* of the descriptors -d does not list */
	size_t i_link[3], i_st[3], i_maps, i_fds;
	int fds_err;
	int denied;		/* the errno that keeps us out of its links */
	struct gfd *fds;
	size_t nfds;
};

/*
 * Every descriptor @d of the admitted ids @g of @gs[0..@n) (those that
 * have a process row): the rounds' loop. (No arithmetic on a NULL array:
 * gs is NULL when the rounds' batches are freed, fds when there are none.)
 */
#define for_each_gfd(gs, n, g, d)					\
	for (struct gid *g = (gs), *g##_end = g ? g + (n) : g;		\
	     g != g##_end; g++)						\
		for (struct gfd *d = g->fds,				\
		     *d##_end = d ? d + g->nfds : d;			\
		     g->proc != SIZE_MAX && d != d##_end; d++)

enum fdmode fd_mode(const struct lproc *lp, bool sck);
void round_fds(struct gid *gs, size_t n);
void fd_row(struct gid *g, struct gfd *d);

#endif /* GVLSOF_GATHER_H */
