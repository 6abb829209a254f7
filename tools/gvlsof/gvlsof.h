/* SPDX-License-Identifier: MIT */
/*
 * gvlsof.h - what the parts of gvlsof share: the processes and their rows,
 * the batches of getvalues() names, and the helpers every part uses.
 */
#ifndef GVLSOF_H
#define GVLSOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <getvalues.h>

#define PROC		"/proc"
#define GROUP_PROCS	256	/* processes per round */
#define CMD_LIMIT	9	/* COMMAND characters lsof shows by default */
#define EPOLL_MAX_TFDS	32	/* eventpoll targets lsof shows */
#define BATCH_MAX_BUF	(1UL << 30)	/* no value is larger */

#define GROW(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 16;			\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));\
		}							\
	} while (0)

struct batch {
	struct name_val *vec;
	size_t *off;		/* of each full name in @names */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	void **bufs;
	size_t nbufs, bufs_cap;
	size_t calls;		/* getvalues() calls made, for -D */
};

struct map {
	uint64_t *keys;
	void **vals;
	size_t n, cap;		/* cap: 0 or a power of two */
};

/* A bump allocator for the strings of the table. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct user {
	uid_t uid;
	char *name;
};

struct sockrow {
	const char *type, *device, *node, *name;
};

struct finfo {
	int err;		/* errno of the stat; 0: the fields are set */
	unsigned fmt;		/* S_IFMT bits; 0 for anonymous inodes */
	unsigned maj, min, rmaj, rmin;
	uint64_t ino, size;
};

struct row {
	const char *fd;
	char access, lock;
	const char *type, *device, *sizeoff, *node, *name;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

struct mapping {
	uint64_t start, end, ino;
	unsigned maj, min;
	const char *path;
	bool deleted;
	size_t stat_i;		/* in the map_files batch, other namespaces */
	struct finfo *st;	/* the stat of the path, same namespace */
};

struct fdesc {
	int fd;
	size_t i_lstat, i_stat, i_link, i_info;
	int lstat_err, link_err;
	unsigned perm;		/* permission bits of the /proc link */
	struct finfo fi;
	const char *link;	/* NULL: failed, or not needed */
	const char *info;	/* fdinfo; NULL: failed, or not needed */
	size_t info_len;
};

struct proc {
	int pid;
	uid_t uid;
	const char *cmd;	/* as /proc/PID/stat has it */
	bool gone;		/* exited, a zombie, or not selected */
	size_t i_stat, i_uid, i_link[3], i_st[3], i_maps, i_ns, i_fds;
	struct finfo txt;	/* of the exe, for the mem rows */
	bool other_ns;		/* in another mount namespace than ours */
	struct mapping *maps;
	size_t nmaps, maps_cap;
	struct fdesc *fds;
	size_t nfds;
	struct rows head, mem, files;
};

struct sel {
	char **items;
	bool *excl;
	bool *found;
	size_t n, cap;
};

extern struct chunk *strings;
extern struct user *users;
extern size_t nusers;
extern struct map user_by_uid;
extern struct map locks;
extern struct map sockets;
extern bool sockets_loaded;
extern struct proc *procs;
extern size_t nprocs, procs_cap;
extern uint64_t our_mntns;
extern bool our_mntns_ok;
extern size_t denied;
extern struct sel sel_pid, sel_uid, sel_cmd;
extern bool and_mode;
extern bool utf8_locale;
extern size_t calls;
extern const char *prog;

void *xrealloc(void *p, size_t n);
char *salloc(size_t n);
char *sdup_n(const char *s, size_t n);
char *sfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void strings_free(void);
size_t batch_add(struct batch *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int batch_run(struct batch *b, const char *origin);
void batch_reset(struct batch *b);
void batch_free(struct batch *b);
const char *val(const struct batch *b, size_t i, size_t *len, int *err);
bool val_u64(const struct batch *b, size_t i, uint64_t *out);
bool val_dev(const struct batch *b, size_t i, unsigned *maj,
		    unsigned *min);
void *map_get(const struct map *m, uint64_t key);
void map_put(struct map *m, uint64_t key, void *v);
void map_free(struct map *m);
uint64_t hash_str(const char *s);
bool next_line(const char **p, const char *end, const char **line,
		      size_t *len);
int split_words(char *s, char **w, int max);
bool parse_u64(const char *s, int base, uint64_t *out);
char *vdup(const char *v, size_t len);
void users_load(void);
const char *user_name(uid_t uid);
bool user_uid(const char *name, uid_t *uid);
void *salloc_aligned(size_t n);
void locks_load(const char *v, size_t n);
char lock_char(int pid, unsigned maj, unsigned min, uint64_t ino);
void sockets_load(void);
struct row *row_add(struct rows *r, const char *fd);
void stat_names(struct batch *b, const char *group, const char *sub,
		       size_t *first);
void stat_get(const struct batch *b, size_t first, struct finfo *fi);
void row_from_stat(struct row *r, const struct finfo *fi,
			  bool anon, const char *off, int pid);
void special_row(struct proc *p, const struct batch *b, int which);
void maps_parse(struct proc *p, const char *v, size_t n);
void pipefs_probe(void);
bool is_pipe(const struct finfo *fi);
bool needs_link(const struct fdesc *d);
bool needs_info(const struct fdesc *d);
bool needs_anon_info(const struct fdesc *d);
void fd_row(struct proc *p, struct fdesc *d);
void sel_add_list(struct sel *s, char *arg);
bool sel_has_incl(const struct sel *s);
bool selected(struct proc *p);
void die_call(const char *what, int err);
void list_processes(void);
void gather_group(struct proc *ps, size_t n);
void mem_rows(void);
void mem_free(void);
void print_text(void);
void print_json(void);
bool sel_missing(const struct sel *s);

#endif /* GVLSOF_H */
