/* SPDX-License-Identifier: MIT */
/*
 * native_parity_lib.h - what the native parity tests share: a scratch tree
 * (files, directories, links, a FIFO, a device, xattrs and an ACL), mounts
 * of every kind in a private mount namespace, a process holding a
 * descriptor of every kind, and calls built entry by entry, run through
 * the native system calls and through the library's sync backend on two
 * identical memory arenas, and compared: return values, errnos, every
 * entry's error, the place (as an offset) and the bytes of every value.
 */
#ifndef GV_TEST_NATIVE_PARITY_LIB_H
#define GV_TEST_NATIVE_PARITY_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/tap.h"
#include "lib/util.h"

#define PAGE		4096L
/* The arena: pages of it, and the offsets of its special pages. */
#define ARENA_PAGES	200
#define OFF_NONE	(64 * PAGE)	/* PROT_NONE */
#define OFF_RO		(65 * PAGE)	/* PROT_READ */
#define OFF_BIG		(66 * PAGE)	/* 134 pages of space */
#define ARENA_SIZE	(ARENA_PAGES * PAGE)

#define CONT		LONG_MIN	/* no buffer: continue the current one */
#define BUF_ONE		(LONG_MIN + 1)	/* the buffer (void *)1 */
#define MAX_ENTRIES	4096

/* Names that are not strings. */
#define NAME_NULL	((const char *)0)
#define NAME_ONE	((const char *)1)
#define NAME_NONE	((const char *)2)	/* in the PROT_NONE page */
#define NAME_CROSS	((const char *)3)	/* running into it */
#define NAME_BEFORE	((const char *)4)	/* ending right before it */

struct entry {
	const char *name;
	long buf;		/* offset in the arena, or CONT */
	size_t len;
};

struct call {
	char title[160];
	const char *origin;	/* relative to the scratch directory */
	unsigned int flags;
	size_t n;
	struct entry e[MAX_ENTRIES];
};

/* One backend's run of a call. */
struct run {
	char *arena;
	struct name_val *vec;
	int ret, err;
};

static char scratch[PATH_MAX];
static int scratch_fd = -1;
static bool have_mounts, have_xattr;
static pid_t holder = -1;
static int holder_fds[8];
static struct call c;
static unsigned int calls_run;

/* ---- the scratch tree, the mounts, a process holding descriptors ---- */

static inline void put(const char *name, const char *data, size_t len)
{
	if (t_write_file(scratch_fd, name, data, len, 0644))
		tap_bail("write %s: %s", name, strerror(errno));
}

static inline void mount_at(const char *dir, const char *src,
			    const char *type, unsigned long flags,
			    const char *opts)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", scratch, dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		tap_bail("mkdir %s: %s", path, strerror(errno));
	if (mount(src, path, type, flags, opts))
		tap_bail("mount %s: %s", path, strerror(errno));
}

static inline void propagate(const char *dir, unsigned long how)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", scratch, dir);
	if (mount(NULL, path, NULL, how, NULL))
		tap_bail("propagation of %s: %s", path, strerror(errno));
}

/*
 * Mounts of every kind mountinfo shows: escapes in the mount point and the
 * source, read-only, nosuid and unbindable, shared, slave, and a slave
 * whose master is not reachable from here (propagate_from).
 */
static inline void setup_mounts(void)
{
	char src[PATH_MAX + 64];

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		tap_diag("no private mount namespace: %s", strerror(errno));
		return;
	}
	mount_at("tmp", "src with\ta tab\\", "tmpfs", MS_NOSUID | MS_NODEV,
		 "size=4m,mode=755");
	put("tmp/f", "on tmpfs\n", 9);
	mount_at("sp ace\tand\\back", "none", "tmpfs", 0, "size=1m");
	mount_at("ro", scratch, NULL, MS_BIND, NULL);
	snprintf(src, sizeof(src), "%s/ro", scratch);
	if (mount(NULL, src, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		  MS_NOEXEC, NULL))
		tap_bail("remount ro: %s", strerror(errno));
	propagate("ro", MS_UNBINDABLE);
	/* a shared peer group, a slave of it, a slave of a slave */
	mount_at("peer", "peer", "tmpfs", 0, "size=1m");
	propagate("peer", MS_SHARED);
	mkdir(strcat(strcpy(src, scratch), "/peer/sub"), 0755);
	snprintf(src, sizeof(src), "%s/peer", scratch);
	mount_at("slave", src, NULL, MS_BIND, NULL);
	propagate("slave", MS_SLAVE);
	propagate("slave", MS_SHARED);
	snprintf(src, sizeof(src), "%s/slave", scratch);
	mount_at("slave2", src, NULL, MS_BIND, NULL);
	propagate("slave2", MS_SLAVE);
	have_mounts = true;
}

static inline void setup_tree(void)
{
	char big[300000];
	int fd;

	snprintf(scratch, sizeof(scratch), "%s", t_tmpdir("parity"));
	scratch_fd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (scratch_fd < 0)
		tap_bail("open %s: %s", scratch, strerror(errno));
	put("a", "alpha\n", 6);
	put("empty", "", 0);
	t_fill_pattern(big, sizeof(big), 7);
	put("big", big, sizeof(big));		/* beyond the 64 KiB chunk */
	put("k64", big, 65536);			/* exactly the chunk */
	if (mkdirat(scratch_fd, "d", 0755) ||
	    mkdirat(scratch_fd, "d/e", 0755) ||
	    mkdirat(scratch_fd, "emptydir", 0755) ||
	    mkdirat(scratch_fd, "many", 0755))
		tap_bail("mkdir: %s", strerror(errno));
	put("d/b", "bravo", 5);
	put("d/e/c", "charlie", 7);
	for (int i = 0; i < 64; i++) {
		char name[32], data[64];

		snprintf(name, sizeof(name), "many/f%02d", i);
		put(name, data, snprintf(data, sizeof(data),
					 "file %d of the batch\n", i));
	}
	if (symlinkat("a", scratch_fd, "link") ||
	    symlinkat("/d", scratch_fd, "absd") ||
	    symlinkat("../..", scratch_fd, "d/up") ||
	    symlinkat("d", scratch_fd, "dl") ||
	    symlinkat("missing", scratch_fd, "dangling") ||
	    symlinkat("loop2", scratch_fd, "loop1") ||
	    symlinkat("loop1", scratch_fd, "loop2") ||
	    symlinkat("/", scratch_fd, "root") ||
	    symlinkat("/proc/self/cwd", scratch_fd, "magic") ||
	    mkfifoat(scratch_fd, "fifo", 0644))
		tap_bail("symlink, FIFO: %s", strerror(errno));
	if (!geteuid() &&
	    mknodat(scratch_fd, "null", S_IFCHR | 0666, makedev(1, 3)))
		tap_bail("mknod: %s", strerror(errno));

	fd = openat(scratch_fd, "a", O_RDONLY | O_CLOEXEC);
	have_xattr = fd >= 0 &&
		     !fsetxattr(fd, "user.k", "value", 5, 0) &&
		     !fsetxattr(fd, "user.k:colon", "c", 1, 0) &&
		     !fsetxattr(fd, "user.empty", "", 0, 0) &&
		     !fsetxattr(fd, "user.big", big, 900, 0);
	if (have_xattr) {
		/* a POSIX ACL: version 2, then tag, permissions, ID */
		static const unsigned char acl[] = {
			2, 0, 0, 0,
			0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
			0x02, 0, 4, 0, 0xd2, 0x04, 0, 0,
			0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
			0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
			0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
		};

		if (fsetxattr(fd, "system.posix_acl_access", acl, sizeof(acl),
			      0))
			tap_diag("no POSIX ACLs: %s", strerror(errno));
	} else {
		tap_diag("no user xattrs in %s", scratch);
	}
	close(fd);
}

/* A child holding a descriptor of every kind, for /proc/PID. */
static inline void start_holder(void)
{
	int p[2], s[2];

	holder_fds[0] = openat(scratch_fd, "big", O_RDONLY);
	holder_fds[1] = openat(scratch_fd, "d", O_RDONLY | O_DIRECTORY);
	holder_fds[2] = pipe(p) ? -1 : p[0];
	holder_fds[3] = socketpair(AF_UNIX, SOCK_STREAM, 0, s) ? -1 : s[0];
	holder_fds[4] = eventfd(0, 0);
	holder_fds[5] = open("/dev/null", O_WRONLY);
	holder_fds[6] = openat(scratch_fd, "a", O_RDWR);
	holder = fork();
	if (holder == 0) {
		pause();
		_exit(0);
	}
	if (holder < 0)
		tap_bail("fork: %s", strerror(errno));
}

/* ---- building and running calls ---- */

static inline void call_begin(const char *origin, unsigned int flags,
			      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void call_begin(const char *origin, unsigned int flags,
			      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c.title, sizeof(c.title), fmt, ap);
	va_end(ap);
	c.origin = origin;
	c.flags = flags;
	c.n = 0;
}

static inline void add(const char *name, long buf, size_t len)
{
	if (c.n == MAX_ENTRIES)
		tap_bail("too many entries in \"%s\"", c.title);
	c.e[c.n++] = (struct entry){ name, buf, len };
}

/* Each entry its own buffer of 64 KiB, in the big area. */
static inline void add_own(const char *name)
{
	add(name, OFF_BIG + (long)(c.n % 2) * 65536, 65536);
}

static inline char *new_arena(void)
{
	char *a = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	memset(a, 0x5a, ARENA_SIZE);
	/* names near the PROT_NONE page */
	memcpy(a + OFF_NONE - 3, "dat", 3);
	memcpy(a + OFF_NONE - 7, "data:a", 7);
	if (mprotect(a + OFF_NONE, PAGE, PROT_NONE) ||
	    mprotect(a + OFF_RO, PAGE, PROT_READ))
		tap_bail("mprotect: %s", strerror(errno));
	return a;
}

static inline const char *name_in(char *arena, const char *name)
{
	switch ((uintptr_t)name) {
	case 0:
		return NULL;
	case 1:
		return (const char *)1;
	case 2:
		return arena + OFF_NONE + 16;
	case 3:
		return arena + OFF_NONE - 3;
	case 4:
		return arena + OFF_NONE - 7;
	}
	return name;
}

static inline void run(enum gv_backend_id backend, struct run *r)
{
	int dfd = scratch_fd;
	const char *origin = c.origin;

	if (origin && *origin == '/')
		dfd = AT_FDCWD;
	for (size_t i = 0; i < c.n; i++) {
		r->vec[i] = (struct name_val){
			.name = name_in(r->arena, c.e[i].name),
			.value_in = {
				c.e[i].buf == CONT ? NULL :
				c.e[i].buf == BUF_ONE ? (void *)1 :
					r->arena + c.e[i].buf,
				c.e[i].len },
		};
	}
	gv_backend_force(backend);
	errno = 0;
	r->ret = getvalues(dfd, origin, r->vec, c.n, c.flags);
	r->err = r->ret < 0 ? errno : 0;
	gv_backend_force(GV_BACKEND_AUTO);
}

static inline long offset(const struct run *r, const void *p)
{
	if (!p)
		return -1;
	if ((const char *)p < r->arena || (const char *)p >= r->arena + ARENA_SIZE)
		return (long)(uintptr_t)p;	/* (void *)1 and the like */
	return (const char *)p - r->arena;
}

static inline void show(const struct run *r, size_t i, const char *who)
{
	const struct name_val *e = &r->vec[i];
	size_t n = e->value_out.iov_len < 80 ? e->value_out.iov_len : 80;

	tap_diag("  %s: error %u, at %ld, %zu bytes \"%.*s\"", who, e->error,
		 offset(r, e->value_out.iov_base), e->value_out.iov_len,
		 e->error ? 0 : (int)n,
		 e->error ? "" : (const char *)e->value_out.iov_base);
}

/* Compare the runs; on the first difference, say where. */
static inline bool compare(const struct run *nat, const struct run *syn)
{
	size_t i, touched;

	if (nat->ret != syn->ret || nat->err != syn->err) {
		tap_diag("native returns %d (%s), sync %d (%s)", nat->ret,
			 strerror(nat->err), syn->ret, strerror(syn->err));
		return false;
	}
	touched = 0;
	if (nat->ret >= 0)
		touched = (size_t)nat->ret < c.n ? (size_t)nat->ret + 1 : c.n;
	for (i = 0; i < c.n; i++) {
		const struct name_val *a = &nat->vec[i], *b = &syn->vec[i];

		if (i >= touched) {
			if (a->error || b->error || a->value_out.iov_base ||
			    b->value_out.iov_base)
				break;
			continue;
		}
		if (a->error != b->error ||
		    a->value_out.iov_len != b->value_out.iov_len ||
		    offset(nat, a->value_out.iov_base) !=
		    offset(syn, b->value_out.iov_base) ||
		    (!a->error && a->value_out.iov_len &&
		     memcmp(a->value_out.iov_base, b->value_out.iov_base,
			    a->value_out.iov_len)))
			break;
	}
	if (i == c.n)
		return true;
	tap_diag("entry %zu (%s) differs:", i,
		 (uintptr_t)c.e[i].name < 16 ? "(a bad pointer)" : c.e[i].name);
	show(nat, i, "native");
	show(syn, i, "sync");
	return false;
}

/* Run the call built so far through both backends and compare. */
static inline void check(void)
{
	static struct run nat, syn;

	if (!nat.arena) {
		nat.arena = new_arena();
		syn.arena = new_arena();
		nat.vec = calloc(MAX_ENTRIES, sizeof(*nat.vec));
		syn.vec = calloc(MAX_ENTRIES, sizeof(*syn.vec));
		if (!nat.vec || !syn.vec)
			tap_bail("out of memory");
	}
	/*
	 * sync first, twice: the first read of a file may still move its
	 * atime (relatime); after it, neither backend changes anything the
	 * other one reads.
	 */
	run(GV_BACKEND_SYNC, &syn);
	run(GV_BACKEND_SYNC, &syn);
	run(GV_BACKEND_NATIVE, &nat);
	calls_run++;
	tap_ok(compare(&nat, &syn), "%s", c.title);
}

/* One call with one name, its own buffer. */
static inline void one(const char *origin, const char *name)
{
	call_begin(origin, 0, "%s on %s", name, origin ? origin : "scratch");
	add_own(name);
	check();
}

/*
 * Set up a test program: all skipped where the kernel lacks the calls;
 * the scratch tree, and as root the mounts.
 */
static inline void np_start(void)
{
	if (gv_backend_usable(GV_BACKEND_NATIVE))
		tap_skip_all("the kernel lacks getvalues(2) and readfile(2)");
	setup_tree();
	if (!geteuid())
		setup_mounts();
	tap_diag("%s, %s", scratch, have_mounts ? "with mounts" :
		 "without mounts (not root)");
}

#endif /* GV_TEST_NATIVE_PARITY_LIB_H */
