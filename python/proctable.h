/* SPDX-License-Identifier: MIT */
/*
 * proctable.h - the process table of the Python module: what the fetch
 * (proctable_fetch.c, no Python objects, run without the GIL), the parsers
 * of the /proc files (proctable_parse.c) and the Python side
 * (proctable.c: process_iter(), process_table()) share.
 *
 * A listing is three steps: the pids of /proc; the files the asked
 * attributes need, of every process at once, in a few getvalues() calls
 * (then the files those name: a thread's stat, a descriptor's link and
 * fdinfo), and the credentials from pidfds (proctable_pidfd.c) where
 * status is not read anyway; and one Python object per value, made from
 * the parsed numbers.
 */
#ifndef GV_PROCTABLE_H
#define GV_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The attributes, with psutil's names (pt_attr_names[] in proctable.c). */
enum pt_attr {
	A_PID, A_PPID, A_NAME, A_EXE, A_CMDLINE, A_ENVIRON, A_STATUS,
	A_USERNAME, A_UIDS, A_GIDS, A_TERMINAL, A_CREATE_TIME, A_CPU_TIMES,
	A_CPU_NUM, A_MEMORY_INFO, A_MEMORY_FULL_INFO, A_NUM_THREADS,
	A_NUM_CTX_SWITCHES, A_NUM_FDS, A_NICE, A_IONICE, A_IO_COUNTERS, A_CWD,
	A_OPEN_FILES, A_THREADS, A_CPU_PERCENT, A_MEMORY_PERCENT,
	PT_NATTR
};

/* The files of /proc/PID that attributes are made from. */
enum pt_file {
	F_STAT, F_STATM, F_STATUS, F_CMDLINE, F_ENVIRON, F_IO, F_SMAPS,
	F_EXE, F_CWD, F_FD, F_TASK,
	PT_NFILE
};

#define PT_BIT(x)	(1ULL << (x))

/* A value getvalues() gave: where it is, or the errno of its entry. */
struct pt_val {
	const char *p;
	uint32_t len;
	uint32_t err;
};

/* The fields of /proc/PID/stat that psutil reads. */
struct pt_stat {
	const char *name;	/* between the first '(' and the last ')' */
	uint32_t name_len;
	char state;
	long long ppid, tty_nr, nice, cpu, threads;
	unsigned long long utime, stime, cutime, cstime, start, blkio, vsize;
};

/*
 * The lines of /proc/PID/status that psutil reads, and its Vm and Rss
 * lines (kB: VmSize VmRSS RssFile RssShmem VmExe VmLib VmData VmStk),
 * which give statm's numbers where status is read anyway.
 */
struct pt_status {
	long long uid[3], gid[3], threads, ctx[2];
	bool has_uid, has_gid, has_threads, has_ctx, ctx_ok[2];
	unsigned long long vm[8];
	unsigned int vm_seen;		/* bit i: vm[i]'s line was there */
	bool vm_bad;			/* one of them was not a number */
};

/* How a path-valued attribute (exe, cwd) came out. */
enum pt_path_kind { P_PATH, P_EMPTY, P_DENIED };

struct pt_path {
	enum pt_path_kind kind;
	const char *p;		/* P_PATH: the path, not NUL-terminated */
	size_t len;
};

/* One process, after the fetch. */
struct pt_proc {
	int pid;
	bool gone;			/* exited during the listing */
	bool stat_ok, status_ok, statm_ok, io_ok, smaps_ok;
	bool status_now;		/* status read beside stat: no pidfd */
	bool uid_ok, gid_ok;		/* from status, or from a pidfd */
	long long uid[3], gid[3];	/* real, effective, saved */
	struct pt_val f[PT_NFILE];
	struct pt_stat st;
	struct pt_status status;
	unsigned long long statm[7];	/* in pages */
	unsigned long long io[6];	/* psutil's order of pio */
	unsigned long long smaps[3];	/* uss, pss, swap in bytes */
	int ioprio, ioprio_err;
	struct pt_path exe, cwd;
	bool files_denied;		/* open_files: AccessDenied */
	size_t task_first, task_n;	/* in pt_table.extra */
	size_t fd_first, fd_n;
	int user;			/* index in pt_table.users, or -1 */
	int tty;			/* index in pt_table.ttys, or -1 */
};

/* A thread of a process, or one of its descriptors. */
enum pt_extra_state { XS_SKIP, XS_CANDIDATE, XS_OK };

struct pt_extra {
	size_t proc;
	long long id;			/* tid, or descriptor number */
	enum pt_extra_state state;
	struct pt_val v;		/* task/TID/stat, or the fd/N link */
	struct pt_val info;		/* fdinfo/N */
	unsigned long long a, b;	/* utime/stime, or position/flags */
	uint32_t path_len;		/* of the link, " (deleted)" taken off */
};

struct pt_user {
	uid_t uid;
	char *name;			/* NULL: no such user (psutil: str(uid)) */
};

struct pt_tty {
	unsigned long long rdev;
	char *path;
};

/* A batch of getvalues() names, run in calls of a bounded size. */
struct pt_batch {
	struct name_val *vec;
	size_t *off;			/* of each name in names */
	char *names;
	size_t n, cap, off_cap, names_len, names_cap;
};

struct pt_table {
	uint64_t attrs;			/* PT_BIT(A_...) asked for */
	unsigned int files;		/* PT_BIT(F_...) needed */
	bool no_pidfd;			/* status for the credentials (tests) */
	int threads;			/* sharing round 1: at most (0: any) */
	size_t pidfd_chunk;		/* >0: credentials from pidfds */
	struct pt_proc *procs;
	size_t n, cap;
	struct pt_extra *extra;
	size_t nextra, extra_cap;
	void **bufs;			/* getvalues buffers the values are in */
	size_t nbufs, bufs_cap;
	struct pt_user *users;
	size_t nusers;
	struct pt_tty *ttys;
	size_t nttys;
	long ncpus;			/* psutil's cpu_count() */
	double timer;			/* psutil's monotonic() * CPUs, at the end */
	int err;			/* of the fetch itself (ENOMEM, ...) */
};

/* proctable_fetch.c */
int pt_fetch(struct pt_table *t);
void pt_table_free(struct pt_table *t);
long pt_clock_ticks(void);
long pt_page_size(void);

/* proctable_pidfd.c */
#define PT_PIDFD_MAX	256	/* pidfds open at once, at most */
size_t pt_pidfd_chunk(void);
void pt_pidfd_open(struct pt_table *t, size_t lo, size_t hi, int *fds);
void pt_pidfd_creds(struct pt_table *t, size_t lo, size_t hi, int *fds);
void pt_pidfd_fork_child(void);

/* proctable_share.c */
#define PT_SHARE_THREADS	4	/* threads at most, the caller's too */
/*
 * The threads a round may use: the CPUs this process may run on, at most
 * @max (0: PT_SHARE_THREADS), or 1 where the descriptor table has too
 * few free for them.
 */
int pt_share_threads(int max);
/*
 * @fn(@arg, lo, hi) over [0, @n) in ranges of at most @max_step (0: any),
 * shared out between @threads threads; the first error stops the rest.
 */
int pt_share(size_t n, size_t max_step, int threads,
	     int (*fn)(void *arg, size_t lo, size_t hi), void *arg);

/* proctable_batch.c */
void pt_batch_add(struct pt_batch *b, const char *what, int pid,
		  const char *sub, long long id);
int pt_batch_run(struct pt_table *t, struct pt_batch *b);
void pt_batch_free(struct pt_batch *b);
void pt_val_set(struct pt_val *v, const struct name_val *nv);
int pt_push_buf(struct pt_table *t, void *buf);
void pt_batch_fork_child(void);
/*
 * With @exclude, wait until no getvalues() call of the module runs, and
 * keep them out until called without it (a retry after EMFILE).
 */
void pt_calls_exclude(bool exclude);

/* proctable_parse.c */
bool pt_parse_stat(const struct pt_val *v, struct pt_stat *st);
bool pt_parse_status(const struct pt_val *v, struct pt_status *s);
bool pt_parse_statm(const struct pt_val *v, unsigned long long out[7]);
bool pt_status_statm(const struct pt_status *s, long page,
		     unsigned long long vsize, unsigned long long out[7]);
bool pt_parse_io(const struct pt_val *v, unsigned long long out[6]);
bool pt_parse_smaps_rollup(const struct pt_val *v, unsigned long long out[3]);
bool pt_parse_thread_stat(const struct pt_val *v, unsigned long long *ut,
			  unsigned long long *st);
bool pt_parse_fdinfo(const struct pt_val *v, unsigned long long *pos,
		     unsigned long long *flags);
bool pt_parse_meminfo_total(const char *p, size_t len,
			    unsigned long long *total);
bool pt_parse_btime(const char *p, size_t len, unsigned long long *btime);
size_t pt_list_count(const struct pt_val *v);
const char *pt_list_next(const struct pt_val *v, const char *at, size_t *len);
bool pt_is_number(const char *p, size_t len, long long *out);
int pt_path_stat(const char *p, size_t len, unsigned int *mode);
size_t pt_strip_deleted(const char *p, size_t len, int *err);
void pt_cmdline_shape(const char *p, size_t len, char *sep, size_t *eff);

#endif /* GV_PROCTABLE_H */
