/* SPDX-License-Identifier: MIT */
/*
 * gvlsof.h - what the parts of gvlsof share, and how data flows through
 * them.
 *
 * gvlsof lists open files as lsof 4.95 does, with lsof's options and
 * output, but it asks getvalues() for many facts at once where lsof makes
 * several system calls per file. The flow:
 *
 *   options.c, args.c   the command line into struct opts and the
 *                       selection lists (PIDs, users, commands, FDs,
 *                       Internet addresses, file names);
 *   files.c             the file and directory arguments, +d and +D;
 *   gather.c            the rounds: one getvalues() call with $ORIGIN
 *                       /proc asks the same few names for up to 256
 *                       processes (or tasks) at once: identity, then the
 *                       links, stats and maps of the selected ones, then
 *                       their descriptors. A selection is applied as early
 *                       as it can be, so that what cannot be listed is
 *                       never fetched;
 *   fds.c               the descriptors of the admitted processes: which
 *                       can be listed, their rounds of calls and rows;
 *   fetch.c             a round's names (a batch) fetched as
 *                       getvalues_alloc_each() calls, shared out between
 *                       threads;
 *   node.c, sock.c      each fetched file into a struct lfile, the row
 *                       lsof would print, with lsof's rules (node.c for
 *                       files, maps and anonymous inodes, sock.c for
 *                       sockets, from the /proc/net tables of net.c);
 *   select.c            which processes and files are selected;
 *   endpoint.c          -E/+E: the other ends of pipes, sockets, ptys...;
 *   print.c, field.c    the rows as a table (print.c), as -F fields and
 *                       as -J/-j JSON (field.c);
 *   usage.c             -h, -v and -F ?: what gvlsof says about itself;
 *   main.c              the repeat loop and the exit status.
 *
 * Memory for strings lives until the end of a cycle (salloc), so rows hold
 * plain pointers.
 */
#ifndef GVLSOF_H
#define GVLSOF_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <getvalues.h>

#define PROC		"/proc"
#define GROUP_PROCS	256	/* processes (or tasks) per round */
#define BATCH_MAX_BUF	(1UL << 30)	/* no value is larger */

/* lsof 4.95's limits and defaults, which show in its output */
#define LSOF_REVISION	"4.95.0"
#define CMDL		9	/* COMMAND characters by default (+c) */
#define MAXSYSCMDL	15	/* the kernel's command names */
#define FDLEN		8
#define TYPEL		8
#define IPROTOL		8
#define USERPRTL	8	/* a UID without a name is right-aligned */
#define LOGINML		32	/* login names are cut there */
#define OFFDECDIG	8	/* 0t offsets up to this many digits */
#define RPTTM		15	/* repeat seconds */
#define TMLIMIT		15	/* -S default */
#define TMLIMMIN	2
#define MAXNWAD		100	/* -i addresses */
#define EPOLL_MAX_TFDS	32	/* eventpoll targets shown */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define GROW(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 16;			\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));\
		}							\
	} while (0)

/* ------------------------------------------------------------------ */
/* Selection: which criterion selected a process or a file (lsof's).  */

enum {
	SEL_CMD		= 0x0001,
	SEL_CNTX	= 0x0002,
	SEL_FD		= 0x0004,
	SEL_NA		= 0x0008,	/* -i with an address or port */
	SEL_NET		= 0x0010,	/* -i */
	SEL_NFS		= 0x0020,
	SEL_NLINK	= 0x0040,
	SEL_NM		= 0x0080,	/* file names */
	SEL_PGID	= 0x0100,
	SEL_PID		= 0x0200,
	SEL_UID		= 0x0400,
	SEL_UNX		= 0x0800,
	SEL_EXCLF	= 0x2000,	/* the file is excluded */
	SEL_TASK	= 0x4000,
	/* set while gathering so that an endpoint file is kept */
	SEL_PINFO	= 0x8000,
	SEL_UXSINFO	= 0x10000,
	SEL_PTYINFO	= 0x20000,
	SEL_NETSINFO	= 0x40000,
	SEL_PSXMQINFO	= 0x80000,
	SEL_NETS6INFO	= 0x100000,
	SEL_EVTFDINFO	= 0x200000,
};

#define SEL_ALL		(SEL_CMD | SEL_CNTX | SEL_FD | SEL_NA | SEL_NET | \
			 SEL_NM | SEL_NFS | SEL_PID | SEL_UID | SEL_UNX |  \
			 SEL_TASK)
#define SEL_PROC	(SEL_CMD | SEL_CNTX | SEL_PGID | SEL_PID | SEL_UID | \
			 SEL_TASK)
#define SEL_NW		(SEL_NA | SEL_NET | SEL_UNX)
#define SEL_FILE	(SEL_FD | SEL_NFS | SEL_NLINK | SEL_NM)

/* process selection state */
#define PS_PRI		1	/* selected by a process criterion */
#define PS_SEC		2	/* selected for a file */

/* node types */
enum ntype { N_REGLR, N_BLK, N_CHR, N_FIFO, N_ANON_INODE, N_NFS, N_UNKN };

/* endpoint kinds (lproc.ept and lfile.chend) */
enum {
	EPT_PIPE = 0x1, EPT_PIPE_END = 0x2,
	EPT_UXS = 0x4, EPT_UXS_END = 0x8,
	EPT_PTY = 0x10, EPT_PTY_END = 0x20,
	EPT_NETS = 0x40, EPT_NETS_END = 0x80,
	EPT_PSXMQ = 0x100, EPT_PSXMQ_END = 0x200,
	EPT_NETS6 = 0x400, EPT_NETS6_END = 0x800,
	EPT_EVTFD = 0x1000, EPT_EVTFD_END = 0x2000,
};

enum {
	CHEND_PIPE = 0x1, CHEND_PTY = 0x2, CHEND_UXS = 0x4, CHEND_NETS = 0x8,
	CHEND_PSXMQ = 0x10, CHEND_NETS6 = 0x20, CHEND_EVTFD = 0x40,
};

/* -T */
#define TCPTPI_FLAGS	0x1
#define TCPTPI_QUEUES	0x2
#define TCPTPI_STATE	0x4
#define TCPTPI_WINDOWS	0x8
#define TCPTPI_ALL	(TCPTPI_QUEUES | TCPTPI_STATE | TCPTPI_WINDOWS)

/* -x */
#define XO_FILESYS	0x1
#define XO_SYMLINK	0x2
#define XO_ALL		(XO_FILESYS | XO_SYMLINK)

/* ------------------------------------------------------------------ */
/* Rows.                                                              */

struct inaddr {
	int af;			/* 0: none */
	unsigned char a[16];
	int port;
};

/* TCP/TPI (and unix socket) state */
struct lts {
	int type;		/* -1 none; 0 TCP, 1 UDP, 2 UDPLITE; unix: type */
	int state;
	unsigned long rq, sq;
	bool rqs, sqs;
	unsigned opt, ss;	/* unix: flags and state from /proc/net/unix */
};

struct sockrec;

/* A file as lsof prints it: one row. */
struct lfile {
	char fd[FDLEN];
	char access, lock;
	char type[TYPEL];
	char iproto[IPROTOL];
	bool dev_def, rdev_def, sz_def, off_def, nlink_def, ffg_def;
	unsigned char inp_ty;	/* 0 none, 1 inode, 2 protocol */
	enum ntype ntype;
	dev_t dev, rdev;
	uint64_t sz, off, inode;
	long nlink;
	unsigned long ffg;	/* fdinfo flags (+f g) */
	const char *dev_ch;	/* DEVICE text when not dev numbers */
	char *nm;		/* name */
	const char *nma;	/* name addition */
	struct inaddr li[2];	/* local and foreign address */
	struct lts lts;
	unsigned sf;		/* SEL_* */
	unsigned chend;
	int eventfd_id, tty_index;
	const struct sockrec *sock;	/* for endpoints */
};

/* A process, or with -K one of its tasks. */
struct lproc {
	int pid, tid, ppid, pgid;
	uid_t uid;
	char *cmd, *tcmd, *cntx;
	unsigned pss, sf, ept;
	struct lfile *files;
	size_t nfiles, cap;
	size_t seq;		/* gathering order (endpoint lists) */
};

/* ------------------------------------------------------------------ */
/* Options (lsof's globals).                                          */

struct nwad {			/* -i address */
	char *arg;		/* as given, for messages */
	char *proto;
	int af;
	unsigned char a[16];
	int sport, eport;	/* -1: any */
	bool found;
};

struct str_lst {		/* -c */
	char *str;
	size_t len;
	bool x, found;
};

struct cmd_rx {			/* -c /regex/ */
	char *exp;
	regex_t cx;
	bool found;
};

struct int_lst {		/* -p, -g */
	int id;
	bool x, found;
};

struct seluid {			/* -u */
	uid_t uid;
	bool excl, found;
	bool by_name;		/* given as a login name */
};

struct fd_lst {			/* -d */
	char *nm;		/* a name ("cwd"), or NULL for a range */
	int lo, hi;
};

struct mounts;

struct sfile {			/* a file or file system argument */
	char *aname;		/* as given */
	char *name;		/* the path, or the mount point */
	char *devnm;		/* the file system's device, or NULL */
	bool type;		/* true: a file, false: a file system */
	dev_t dev, rdev;
	uint64_t ino;
	unsigned mode;		/* S_IFMT bits */
	const struct mounts *mp;
	bool found;
};

struct efsys {			/* -e, +e */
	char *path;
	size_t pathl;
	bool rdlnk;
	const struct mounts *mp;
};

struct opts {
	const char *pn;		/* our name, as lsof calls it Pn */
	bool fand, fblock, fhelp, fhost, fport, fportmap, futol, fwarn,
	     fterse, fverbose, fnfs_opt, fsize, foffset, fovhd, fxopt,
	     funix, fsearch_err, fcntx, version, json, jsonl;
	int fnet, fnet_ty;	/* -i given (2: a file found); 4, 6 or 0 */
	int fnfs;		/* -N (2: found) */
	int ftask;		/* -K (2: found) */
	bool ign_tasks;		/* -Ki */
	int feptE;		/* 1 -E, 2 +E */
	int ffilesys;		/* +f 2, -f 1 */
	bool fnlink, fpgid, fppid;
	long nlink;		/* +L N */
	int ftcptpi;
	int fxover;
	bool ffield;
	char terminator;
	bool field_sel[128];
	unsigned fsv_fg;	/* +f g: 1; with G: hex */
	bool fsv_flagx, fsv_byf;
	int cmd_lim;
	int off_dec_dig;
	int rpt_tm, rpt_max_count;
	bool rpt_cond;		/* +r */
	char *rpt_fmt;		/* m<fmt> */
	int tm_limit;
	int mnt_sup;		/* +m: 1 print, 2 read MntSupP */
	char *mnt_sup_path;
	unsigned sel_flags, sel_all, sel_proc;
	bool sel_inet;		/* only Internet selections */
	bool all_proc;

	struct str_lst *cmdl;
	size_t ncmdl, ncmdi, ncmdx;
	struct cmd_rx *cmdrx;
	size_t ncmdrx;
	struct int_lst *spid, *spgid;
	size_t npid, npidi, npidx, npgid, npgidi, npgidx;
	struct seluid *suid;
	size_t nuid, nuidincl, nuidexcl;
	struct fd_lst *fdl;
	size_t nfdl;
	int fdl_ty;		/* -1 none, 0 include, 1 exclude */
	struct nwad *nwad;
	size_t nnwad;
	struct sfile *sfile;
	size_t nsfile;
	struct efsys *efsys;
	size_t nefsys;
	char **cntx_args;
	bool *cntx_found;
	size_t ncntx;
	unsigned char tcp_st_i[16], tcp_st_x[16];	/* 1 given, 2 found */
	size_t tcp_st_in, tcp_st_xn;
	bool err_stat;		/* a file argument failed */
	bool cntx_status;	/* SELinux is enabled */
};

extern struct opts opt;
extern uid_t my_uid;

/* ------------------------------------------------------------------ */
/* util.c: memory, maps, text; fetch.c: batches of names fetched.      */

void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
__attribute__((noreturn)) void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

char *salloc(size_t n);
void *salloc_aligned(size_t n);
char *sdup(const char *s);
char *sdup_n(const char *s, size_t n);
char *sfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void strings_free(void);
void *strings_take(void);
void strings_adopt(void *list);

struct batch {
	struct name_val *vec;
	size_t *off;		/* of each full name in @names */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	void **bufs;
	size_t nbufs, bufs_cap;
	bool big;		/* few names, each a large value: share out */
};

size_t batch_add(struct batch *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t batch_add_parts(struct batch *b, const char *a, const char *bb,
		       const char *c, long num);
int batch_run(struct batch *b, const char *origin);
void batch_run_proc(struct batch *b);
bool bg_start(void (*fn)(void));
void bg_wait(void);
void batch_reset(struct batch *b);
void batch_release(struct batch *b);
const char *val(const struct batch *b, size_t i, size_t *len, int *err);
bool val_u64(const struct batch *b, size_t i, uint64_t *out);
bool val_dev(const struct batch *b, size_t i, dev_t *dev);
extern bool stat_nlink;		/* stat_names() asks for nlink too */

/* stat fields of one object: lstat/stat names from @first on */
struct finfo {
	int err;		/* 0: the fields are set */
	unsigned mode;		/* S_IFMT bits, 0 for anonymous inodes */
	unsigned perm;		/* permission bits (the lstat of a link) */
	dev_t dev, rdev;
	uint64_t ino, size, nlink;
};

/* which fields of a struct finfo are known, as lsof's SB_* */
#define SB_DEV		0x01
#define SB_INO		0x02
#define SB_MODE		0x04
#define SB_NLINK	0x08
#define SB_RDEV		0x10
#define SB_SIZE		0x20
#define SB_ALL		0x3f

/* what lsof reads of /proc/PID/fdinfo/N */
struct fdinfo {
	unsigned long flags;
	uint64_t pos;
	int eventfd_id, tty_index, pid;
	int tfds[EPOLL_MAX_TFDS];
	size_t ntfd;
};

enum {
	FDI_FLAGS = 0x1, FDI_POS = 0x2, FDI_EVENTFD = 0x4, FDI_TTY = 0x8,
	FDI_PID = 0x10, FDI_TFD = 0x20,
};

size_t stat_names(struct batch *b, const char *group, const char *sub);
void stat_get(const struct batch *b, size_t first, struct finfo *fi);

struct map {
	uint64_t *keys;
	void **vals;
	size_t n, cap;
};

void *map_get(const struct map *m, uint64_t key);
void map_put(struct map *m, uint64_t key, void *v);
void map_free(struct map *m);
uint64_t hash_str(const char *s);

bool next_line(const char **p, const char *end, const char **line,
	       size_t *len);
int get_fields(char *ln, const char *sep, char **fp, int max);
bool parse_u64(const char *s, int base, uint64_t *out);
char *vdup(const char *v, size_t len);
char *proc_fd_path(const char *dir, const char *mid, int num);
#define UTOA_MAX	24	/* utoa()'s room: 20 digits and the NUL */
int utoa(char *p, unsigned long long v);
int cmp_int(const void *a, const void *b);

/* ------------------------------------------------------------------ */
/* sysinfo.c: users, locks, the mount table, devices.                 */

struct mounts {
	char *dir;		/* mount point */
	size_t dirl;
	char *fsname;		/* source (device) */
	char *fsnmres;		/* source with links resolved */
	char *fstype;
	dev_t dev;		/* st_dev of the mount point */
	dev_t rdev;
	uint64_t inode;
	unsigned mode, fs_mode;
	bool stat_ok;
	bool nfs;
	struct mounts *next;
};

const char *printuid(uid_t uid, bool *numeric);
/* /proc/locks: read beside the gathering, parsed after it */
void locks_prefetch(void);
void locks_settle(void);
char lock_char(int pid, dev_t dev, uint64_t ino);
struct mounts *readmnt(void);
__attribute__((noreturn)) void die_mountinfo(int err);
void mounts_parse(const char *v, size_t n);
bool mounts_loaded(void);
extern dev_t mqueue_dev;
extern bool mqueue_known;
extern int has_nfs;
extern dev_t pipefs_dev;
extern bool pipefs_known;
void pipefs_probe(void);
extern dev_t sockfs_dev;
extern bool sockfs_known;
void sockfs_probe(void);
void mounts_stat(void);
void cycle_free_sysinfo(void);

/* ------------------------------------------------------------------ */
/* options.c, args.c                                                  */

void parse_options(int argc, char **argv);
size_t marker_format(char *buf, size_t size, const char *fmt);
extern const char field_ids[];
void usage(int err, bool fh, bool version);
int enter_id(bool pgid, char *p);
int enter_uid(char *us);
int enter_fd(char *f);
int enter_str_lst(char *s);
int enter_cmd_rx(char *x);
int enter_network_address(char *na);
int enter_state_spec(char *ss);
int enter_efsys(char *e, bool rdlnk);
int enter_cntx_arg(char *cntx);
int ck_file_arg(int i, int ac, char **av, int fv, bool rs,
		const struct finfo *sbp, bool accept_deleted);
int enter_dir(char *d, bool descend);
char *Readlink(const char *arg);
int stat_path(const char *path, struct finfo *fi, bool follow);
extern const char *const tcp_states[];
extern const int ntcp_states;

/* ------------------------------------------------------------------ */
/* select.c                                                           */

bool is_proc_excl(int pid, int pgid, uid_t uid, unsigned *pss,
		  unsigned *sf, int tid);
bool is_cmd_excl(const char *cmd, unsigned *pss, unsigned *sf);
bool is_cntx_sel(struct lproc *lp);
bool is_file_sel(const struct lproc *lp, const struct lfile *lf);
int ck_fd_status(const char *nm, int num);
bool fd_selects(const char *nm, int num);
bool fd_lists(const char *nm, int num);
bool fd_may_select(const struct lproc *lp, const char *nm, int num);
bool is_file_named(struct lfile *lf, int ty, const char *p,
		   const struct mounts *mp, bool cd);
bool sfile_may_match(dev_t dev, uint64_t ino);
bool sfile_socket(void);

void reserve_lfiles(struct lproc *lp, size_t n);
struct lfile *alloc_lfile(struct lproc *lp, const char *nm, int num);
void link_lfile(struct lproc *lp, struct lfile *lf);
void link_counters(struct lproc *lp, const struct lfile *lf);
void add_nma(struct lfile *lf, const char *s);
void enter_nm(struct lfile *lf, const char *s);
void enter_dev_ch(struct lfile *lf, const char *s);
void ent_inaddr(struct lfile *lf, const unsigned char *la, int lp,
		const unsigned char *fa, int fp, int af);
extern struct lfile *cur_unlinked;

/* ------------------------------------------------------------------ */
/* gather.c, node.c, sock.c, net.c                                    */

extern struct lproc *procs;
extern size_t nprocs;
void gather_proc_info(void);
void procs_free(void);

void process_proc_node(struct lproc *lp, struct lfile *lf, const char *p,
		       const char *pbr, const struct finfo *s, unsigned ss,
		       const struct finfo *l, unsigned ls);
void process_proc_map(struct lproc *lp, const char *v, size_t n,
		      const struct finfo *txt, bool txt_ok, bool name_only);
void mem_stat_all(void);
void mem_rows_finish(void);
int parse_fdinfo(const char *v, size_t n, int msk, struct fdinfo *fi);
int fdinfo_mask(const char *rest);
const char *anon_decorate(const char *rest, const struct fdinfo *fi);
const struct efsys *isefsys(const char *path);
void efsys_row(struct lfile *lf, const struct efsys *ep, const char *type,
	       const char *path);
bool is_pty_slave(unsigned maj);
bool is_pty_ptmx(dev_t dev);

void process_proc_sock(struct lproc *lp, struct lfile *lf, const char *p,
		       const char *pbr, const struct finfo *s, unsigned ss,
		       const struct finfo *l, unsigned ls);
void print_tcptpi_text(const struct lfile *lf, FILE *f);
void print_tcptpi_field(const struct lfile *lf);

/* the /proc/net tables, by inode */
enum sockkind { SK_AX25, SK_IPX, SK_RAW, SK_NETLINK, SK_PACKET, SK_UNIX,
		SK_RAW6, SK_TCP6, SK_TCP, SK_SCTP, SK_ICMP };

struct sockrec {
	enum sockkind kind;
	uint64_t inode;
	/* inet */
	int proto;		/* 0 TCP, 1 UDP, 2 UDPLITE */
	int state;
	unsigned char la[16], fa[16];
	int lport, fport;
	unsigned long txq, rxq;
	/* unix */
	char *pcb, *path;
	unsigned type, opt, ss;
	bool sb_def;		/* lsof's stale stat(2) of the path */
	dev_t sb_dev, sb_rdev;
	uint64_t sb_ino;
	/* raw, icmp, netlink, packet, ax25, ipx, sctp */
	char *s1, *s2, *s3, *s4;
	unsigned long n1, n2;
	/* endpoints */
	const struct sockrec *peer;	/* unix and local inet peer */
	const struct sockrec *icons;	/* unix: incoming connections */
	bool icstat;
	void *ept;			/* endpoint.c's list */
};

void net_load(void);
void net_prefetch(void);
void net_settle(void);
const struct sockrec *net_lookup(uint64_t ino);
void net_free(void);
void unix_diag_peers(void (*peer)(uint64_t, uint64_t),
		     void (*icon)(uint64_t, uint64_t));

/* tcpdiag.c: a line of /proc/net/tcp or tcp6, from sock_diag */
struct tcp_rec {
	unsigned char la[16], fa[16];
	int lport, fport, state;
	unsigned long txq, rxq;
	uint64_t inode;
};

bool tcp_diag(int af, void (*fn)(const struct tcp_rec *));
/* a sock_diag dump request sent (endpoint.c's too): the socket, or -1 */
int diag_send(const void *req, size_t len, bool *sent);

/* sock.c: the TCP/TPI part of the NAME column and of -F T */
const char *unix_state(const struct lfile *lf);
bool has_tcptpi(const struct lfile *lf);
char *tcptpi_text(const struct lfile *lf);
size_t tcptpi_fields(const struct lfile *lf, const char **out, size_t max);

/* inet.c */
bool is_nw_addr_proto(const unsigned char *ia, int p, int af,
		      const char *proto);
const char *gethostnm(const unsigned char *ia, int af);
const char *lkup_port(int p, int pr, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* endpoint.c, print.c, field.c                                      */

void endpoints_process(struct lproc **slp, size_t n);
void endpoints_free(void);

void print_init(void);
bool print_proc(struct lproc *lp);
extern int pr_pass;
void safestrprt(const char *sp, FILE *fs, int flags);
void safestrprtn(const char *sp, int len, FILE *fs, int flags);
int safestrlen(const char *sp, int flags);
const char *name_string(const struct lfile *lf, bool field);
const char *print_fflags(unsigned long ffg);
const char *fd_trimmed(const struct lfile *lf);
const char *offset_string(const struct lfile *lf, char *buf, size_t size);
bool print_field_proc(struct lproc *lp);
void json_open(void);
void json_close(void);
void json_proc(struct lproc *lp);
void gethostnm_reset(void);

#endif /* GVLSOF_H */
