// SPDX-License-Identifier: MIT
/*
 * native_parity.c - the same getvalues() and readfile() calls through the
 * native system calls and through the library's plain system calls (sync):
 * return values, errnos, every entry's error, the place and the bytes of
 * every value must be the same.
 *
 * The calls cover every group and field, names and shorthand, SUBPATH
 * rules and confinement, mounts made here (in a private mount namespace:
 * odd names, read-only, shared, slave, unbindable), a process's open files
 * through /proc/PID, overflow at every boundary, and bad pointers: names,
 * buffers and vectors in unmapped and read-only pages. Each call runs on
 * two identical memory arenas, one per backend, so that places compare as
 * offsets. Runs where the kernel has getvalues(2) (kernel/kcheck.sh);
 * elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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

static void put(const char *name, const char *data, size_t len)
{
	if (t_write_file(scratch_fd, name, data, len, 0644))
		tap_bail("write %s: %s", name, strerror(errno));
}

static void mount_at(const char *dir, const char *src, const char *type,
		     unsigned long flags, const char *opts)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", scratch, dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		tap_bail("mkdir %s: %s", path, strerror(errno));
	if (mount(src, path, type, flags, opts))
		tap_bail("mount %s: %s", path, strerror(errno));
}

static void propagate(const char *dir, unsigned long how)
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
static void setup_mounts(void)
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

static void setup_tree(void)
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
static void start_holder(void)
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

static void call_begin(const char *origin, unsigned int flags,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void call_begin(const char *origin, unsigned int flags,
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

static void add(const char *name, long buf, size_t len)
{
	if (c.n == MAX_ENTRIES)
		tap_bail("too many entries in \"%s\"", c.title);
	c.e[c.n++] = (struct entry){ name, buf, len };
}

/* Each entry its own buffer of 64 KiB, in the big area. */
static void add_own(const char *name)
{
	add(name, OFF_BIG + (long)(c.n % 2) * 65536, 65536);
}

static char *new_arena(void)
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

static const char *name_in(char *arena, const char *name)
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

static void run(enum gv_backend_id backend, struct run *r)
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

static long offset(const struct run *r, const void *p)
{
	if (!p)
		return -1;
	if ((const char *)p < r->arena || (const char *)p >= r->arena + ARENA_SIZE)
		return (long)(uintptr_t)p;	/* (void *)1 and the like */
	return (const char *)p - r->arena;
}

static void show(const struct run *r, size_t i, const char *who)
{
	const struct name_val *e = &r->vec[i];
	size_t n = e->value_out.iov_len < 80 ? e->value_out.iov_len : 80;

	tap_diag("  %s: error %u, at %ld, %zu bytes \"%.*s\"", who, e->error,
		 offset(r, e->value_out.iov_base), e->value_out.iov_len,
		 e->error ? 0 : (int)n,
		 e->error ? "" : (const char *)e->value_out.iov_base);
}

/* Compare the runs; on the first difference, say where. */
static bool compare(const struct run *nat, const struct run *syn)
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
static void check(void)
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
static void one(const char *origin, const char *name)
{
	call_begin(origin, 0, "%s on %s", name, origin ? origin : "scratch");
	add_own(name);
	check();
}

/* ---- the calls ---- */

static const char *const mnt_fields[] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source", "superopts",
};

static const char *const stat_fields[] = {
	"type", "mode", "nlink", "uid", "gid", "size", "blocks", "blksize",
	"ino", "dev", "rdev", "atime", "mtime", "ctime", "btime", "mntid",
};

static const char *const fs_fields[] = {
	"type", "bsize", "frsize", "blocks", "bfree", "bavail", "files",
	"ffree", "namelen", "flags",
};

static void calls_listings(void)
{
	static const char *const lists[] = {
		"", "mnt", "mntns", "xattr", "data", "dir", "stat", "lstat",
		"fs",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(lists); i++)
		one(".", lists[i]);
	one("a", "xattr");
	one("/proc/self", "mnt");
}

/* Every field of the mount of @origin, in one call, shorthand after it. */
static void calls_mount_of(const char *origin)
{
	call_begin(origin, 0, "every mnt field of %s", origin);
	add("mnt:id", OFF_BIG, 65536);
	for (size_t i = 1; i < GV_ARRAY_SIZE(mnt_fields); i++) {
		static char names[GV_ARRAY_SIZE(mnt_fields)][32];

		snprintf(names[i], sizeof(names[i]), ":%s", mnt_fields[i]);
		add(names[i], CONT, 0);
	}
	check();
}

static void calls_mounts(void)
{
	static const char *const origins[] = {
		".", "tmp", "sp ace\tand\\back", "ro", "ro/d", "peer", "slave",
		"slave2", "/proc", "/proc/self", "/sys", "/dev", "/", "/tmp",
	};
	static char names[MAX_ENTRIES][48];
	char ids[65536], *p;
	struct name_val v = { .name = "mntns",
			      .value_in = { ids, sizeof(ids) } };
	size_t k = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(origins); i++) {
		if (!have_mounts && i > 0 && i < 8)
			continue;
		calls_mount_of(origins[i]);
	}

	/* the whole table: every field of every mount, in one call */
	gv_backend_force(GV_BACKEND_SYNC);
	if (getvalues(scratch_fd, ".", &v, 1, 0) != 1 || v.error)
		tap_bail("mntns: %s", strerror(errno ? errno : (int)v.error));
	gv_backend_force(GV_BACKEND_AUTO);
	call_begin(".", 0, "mntns:ID:FIELD of every mount, with shorthand");
	add("mntns", OFF_BIG, 134 * PAGE);
	for (p = ids; p < ids + v.value_out.iov_len; p += strlen(p) + 1) {
		unsigned long id = strtoul(p, NULL, 10);

		for (size_t f = 0; f < GV_ARRAY_SIZE(mnt_fields) &&
		     k < MAX_ENTRIES - 8; f++, k++) {
			if (f)
				snprintf(names[k], sizeof(names[k]), ":%s",
					 mnt_fields[f]);
			else
				snprintf(names[k], sizeof(names[k]),
					 "mntns:%lu:%s", id, mnt_fields[f]);
			add(names[k], CONT, 0);
		}
		snprintf(names[k], sizeof(names[k]), "mntns:%lu", id);
		add(names[k++], CONT, 0);
	}
	add("mntns:0", CONT, 0);
	add("mntns:4294967295:id", CONT, 0);
	add("mntns:4294967296:id", CONT, 0);
	add("mntns:007:id", CONT, 0);
	add("mntns:x:id", CONT, 0);
	add("mntns:", CONT, 0);
	add("mntns:1:nope", CONT, 0);
	check();
}

static void calls_stat(void)
{
	static const char *const subs[] = {
		"", "a", "empty", "big", "d", "d/e/c", "link", "absd/b", "dl",
		"dangling", "loop1", "fifo", "null", "root", "magic", "tmp",
		"missing", "d/up/a", "a/x", "d/", "/a", "d//b", "./a", "d/../a",
		"dangling/x", "loop1/x",
	};
	static char names[2][GV_ARRAY_SIZE(subs)][GV_ARRAY_SIZE(stat_fields)]
			[64];

	for (int l = 0; l < 2; l++) {
		for (size_t s = 0; s < GV_ARRAY_SIZE(subs); s++) {
			call_begin(".", 0, "every %s field of \"%s\"",
				   l ? "lstat" : "stat", subs[s]);
			for (size_t f = 0; f < GV_ARRAY_SIZE(stat_fields);
			     f++) {
				snprintf(names[l][s][f], 64, "%s:%s%s%s",
					 l ? "lstat" : "stat", stat_fields[f],
					 *subs[s] ? ":" : "", subs[s]);
				add(names[l][s][f], f ? CONT : OFF_BIG,
				    65536);
			}
			check();
		}
	}
	call_begin("link", AT_SYMLINK_NOFOLLOW, "stat of $ORIGIN a symlink");
	add("stat:type", OFF_BIG, 4096);
	add("lstat:type", CONT, 0);
	add(":ino", CONT, 0);
	add("stat:size:", CONT, 0);
	check();
	call_begin("/", 0, "stat of the root");
	add("stat:ino", OFF_BIG, 4096);
	add(":dev", CONT, 0);
	add(":mntid", CONT, 0);
	check();
}

static void calls_fs(void)
{
	static const char *const origins[] = {
		".", "tmp", "ro", "/proc", "/sys", "/dev", "/",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(origins); i++) {
		if (!have_mounts && i > 0 && i < 3)
			continue;
		call_begin(origins[i], 0, "every fs field of %s", origins[i]);
		for (size_t f = 0; f < GV_ARRAY_SIZE(fs_fields); f++) {
			static char names[GV_ARRAY_SIZE(fs_fields)][32];

			snprintf(names[f], sizeof(names[f]), "fs:%s",
				 fs_fields[f]);
			add(names[f], f ? CONT : OFF_BIG, 4096);
		}
		check();
	}
}

static void calls_xattr(void)
{
	static const char *const names[] = {
		"xattr", "xattr:user.k", "xattr:user.k:colon",
		"xattr:user.empty", "xattr:user.big", "xattr:user.nope",
		"xattr:", "xattr:nope.k", "xattr:system.posix_acl_access",
		"xattr:system.posix_acl_default", "xattr:trusted.x",
		"xattr:security.x",
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++)
		one("a", names[i]);
	one(".", "xattr:user.k");
	one("link", "xattr");
	call_begin("link", AT_SYMLINK_NOFOLLOW, "xattrs of a symlink itself");
	add("xattr", OFF_BIG, 4096);
	add("xattr:user.k", CONT, 0);
	check();
	/* the value and the list at every size around their length */
	for (size_t room = 0; room < 8; room++) {
		call_begin("a", 0, "xattr:user.k in %zu bytes", room);
		add("xattr:user.k", OFF_BIG, room);
		add("stat:type", OFF_BIG + 8192, 16);
		check();
	}
	for (size_t room = 40; room < 60; room += 3) {
		call_begin("a", 0, "xattr list in %zu bytes", room);
		add("xattr", OFF_BIG, room);
		check();
	}
}

static void calls_data_dir(void)
{
	static const char *const subs[] = {
		"", "a", "empty", "big", "k64", "d/b", "d/e/c", "link", "absd/b",
		"d/up/a", "d/up/d/up/d/b", "dl", "dl/b", "dangling",
		"dangling/x", "loop1", "loop1/x", "root", "magic", "magic/x",
		"fifo", "null", "d", "emptydir", "missing", "a/x", "tmp",
		"tmp/f", "ro/a", "/a", "d/", "d//b", "./a", "d/../a", "..",
		"d/e/",
	};
	static char names[2][GV_ARRAY_SIZE(subs)][64];

	for (int g = 0; g < 2; g++)
		for (size_t s = 0; s < GV_ARRAY_SIZE(subs); s++) {
			snprintf(names[g][s], sizeof(names[g][s]), "%s:%s",
				 g ? "dir" : "data", subs[s]);
			one(".", names[g][s]);
		}
	one("a", "data:");
	one("a", "dir:");
	one("d", "data:b");
	one("d", "data:up/a");
	one("d", "dir:up");
	one("link", "data:");
	call_begin("link", AT_SYMLINK_NOFOLLOW, "data: of $ORIGIN a symlink");
	add("data:", OFF_BIG, 4096);
	add("dir:", CONT, 0);
	check();
	one("dl", "data:");
	one("fifo", "data:");
	one("/proc/self", "data:cmdline");
	one("/proc/self", "data:cwd/a");
	one("/proc/self", "dir:cwd");
	one("/proc/self", "data:nope/x");
	one("/sys/kernel", "data:uevent_seqnum");
	one("/sys", "dir:kernel");
}

/* A process's open files, as gvlsof asks for them. */
static void calls_proc(void)
{
	static char names[64][48], origin[32];
	size_t k = 0;

	snprintf(origin, sizeof(origin), "/proc/%d", (int)holder);
	one(origin, "dir:fd");
	one(origin, "data:cwd");
	one(origin, "data:exe");
	one(origin, "data:root");
	one(origin, "data:fdinfo/0");
	call_begin(origin, 0, "the open files of a process");
	for (int i = 0; i < 7; i++) {
		static const char *const field[] = {
			"data:", "stat:type:", ":ino:", ":size:", ":dev:",
			":rdev:", "lstat:mode:",
		};

		for (int f = 0; f < 7; f++, k++) {
			snprintf(names[k], sizeof(names[k]), "%sfd/%d",
				 field[f], holder_fds[i]);
			add(names[k], k ? CONT : OFF_BIG, 65536);
		}
	}
	check();
}

static void calls_names(void)
{
	static char long_name[300], long_short[300], at_limit[300];

	memset(long_name, 'x', 256);
	memcpy(long_name, "data:", 5);
	memcpy(at_limit, long_name, 255);
	memset(long_short, 'y', 255);
	long_short[0] = ':';

	call_begin(".", 0, "names and shorthand");
	add("", OFF_BIG, 65536);
	add(":id", CONT, 0);			/* after "": EINVAL */
	add("mnt", CONT, 0);
	add(":id", CONT, 0);
	add(":parentid", CONT, 0);
	add("nope", CONT, 0);
	add(":id", CONT, 0);
	add("mnt:nope", CONT, 0);
	add("mnt:id:x", CONT, 0);
	add("mnt:", CONT, 0);
	add("fs:type:x", CONT, 0);
	add("stat:", CONT, 0);
	add("stat:size:a", CONT, 0);
	add(":ino:d/b", CONT, 0);
	add(":nlink", CONT, 0);
	add("data:a", CONT, 0);
	add(":d/b", CONT, 0);
	add(":link", CONT, 0);
	add("dir:", CONT, 0);
	add(":d", CONT, 0);
	add("xattr:user.k", CONT, 0);
	add(":user.k:colon", CONT, 0);
	add("mntns:1", CONT, 0);
	add(":id", CONT, 0);
	add("mntns:1:id", CONT, 0);
	add(":root", CONT, 0);
	add("mntns:", CONT, 0);
	add(":1", CONT, 0);
	add(":2:id", CONT, 0);
	add(long_name, CONT, 0);		/* ENAMETOOLONG */
	add(":id", CONT, 0);			/* no prefix left */
	add(at_limit, CONT, 0);
	add("mntns:1:id", CONT, 0);
	add(long_short, CONT, 0);		/* expands beyond 255 */
	add(":id", CONT, 0);
	add("lstat:type:link", CONT, 0);
	add(":size", CONT, 0);
	add("stat:nope:a", CONT, 0);
	add(":type", CONT, 0);
	add("data", CONT, 0);
	add(":x", CONT, 0);
	add("x:y:z", CONT, 0);
	add(":mnt:id", CONT, 0);
	check();

	call_begin(".", 0, "a shorthand first");
	add(":id", OFF_BIG, 64);
	add("mnt:id", CONT, 0);
	check();
}

/* Overflow: every room around a value's length, shared buffers. */
static void calls_overflow(void)
{
	static const char *const small[] = {
		"data:a", "dir:d", "stat:type", "", "mnt:fstype", "data:empty",
		"data:link", "mntns", "xattr", "mnt:unbindable", "fs:flags",
	};
	static const struct { const char *name; size_t len; } big[] = {
		{ "data:big", 300000 }, { "data:k64", 65536 },
		{ "dir:many", 64 * 4 },
	};

	for (size_t i = 0; i < GV_ARRAY_SIZE(small); i++) {
		for (size_t room = 0; room < 48; room++) {
			call_begin(".", 0, "%s in %zu bytes, then more",
				   *small[i] ? small[i] : "\"\"", room);
			add(small[i], OFF_BIG, room);
			add("stat:type", OFF_BIG + 300008, 16);
			check();
		}
	}
	for (size_t i = 0; i < GV_ARRAY_SIZE(big); i++) {
		for (size_t room = big[i].len - 2; room < big[i].len + 3;
		     room++) {
			call_begin(".", 0, "%s in %zu bytes, then more",
				   big[i].name, room);
			add(big[i].name, OFF_BIG, room);
			add("stat:type", OFF_BIG + 300008, 16);
			check();
		}
	}
	for (size_t room = 0; room < 40; room += 3) {
		call_begin(".", 0, "a shared buffer of %zu bytes", room);
		add("data:a", OFF_BIG, room);
		add("data:d/b", CONT, 0);
		add("data:missing", CONT, 0);
		add("stat:type", CONT, 0);
		add("data:d/e/c", CONT, 0);
		add("dir:d/e", CONT, 0);
		add("mnt:options", CONT, 0);
		check();
	}
	call_begin(".", 0, "no buffer yet");
	add("stat:type", CONT, 0);
	add("data:a", CONT, 0);
	add("stat:type", OFF_BIG, 16);
	check();
}

/* Names, buffers and the vector itself in bad memory. */
static void calls_bad_pointers(void)
{
	static const char *const names[] = {
		"stat:nlink", "data:a", "data:empty", "xattr:user.k", "dir:d",
		"data:big", "", "mnt:mountpoint", "data:link", "mntns",
	};

	call_begin(".", 0, "bad names");
	add(NAME_NULL, OFF_BIG, 4096);
	add(NAME_ONE, CONT, 0);
	add(NAME_NONE, CONT, 0);
	add(":id", CONT, 0);
	add(NAME_CROSS, CONT, 0);
	add(NAME_BEFORE, CONT, 0);
	add(":link", CONT, 0);
	check();

	for (int where = 0; where < 4; where++) {
		static const long bufs[] = {
			OFF_NONE, OFF_RO, OFF_NONE - 4, OFF_RO - 2,
		};
		static const char *const what[] = {
			"an unmapped page", "a read-only page",
			"a buffer running into an unmapped page",
			"a buffer running into a read-only page",
		};

		call_begin(".", 0, "values into %s", what[where]);
		for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++)
			add(names[i], i ? CONT : bufs[where], 400000);
		add("data:a", OFF_BIG, 64);
		add("stat:type", CONT, 0);
		check();
		for (size_t i = 0; i < GV_ARRAY_SIZE(names); i++) {
			call_begin(".", 0, "%s into %s", names[i], what[where]);
			add(names[i], bufs[where], 400000);
			add("stat:type", OFF_BIG, 64);
			check();
		}
	}
	/* which comes first, a value too long or a buffer too bad */
	for (int f = 0; f < 3; f++) {
		static const char *const files[] = {
			"data:a", "data:k64", "data:big",
		};
		static const size_t rooms[] = { 4, 100, 65536, 65537, 400000 };
		static const long at[] = { OFF_RO - 2, OFF_NONE - 2 };

		for (size_t r = 0; r < GV_ARRAY_SIZE(rooms); r++)
			for (size_t w = 0; w < GV_ARRAY_SIZE(at); w++) {
				call_begin(".", 0, "%s in %zu bytes, 2 of them "
					   "writable (%s page next)", files[f],
					   rooms[r], w ? "unmapped" :
					   "read-only");
				add(files[f], at[w], rooms[r]);
				add("stat:type", OFF_BIG, 64);
				check();
			}
	}
	call_begin(".", 0, "a buffer (void *)1");
	add("data:a", BUF_ONE, 64);
	add("stat:type", CONT, 0);
	add("dir:d", CONT, 0);
	add("stat:type", OFF_BIG, 64);
	check();
}

/* Errors of the call itself, run by hand on both backends. */
static void calls_call_errors(void)
{
	static const struct {
		const char *title;
		int dfd;	/* -2: the scratch directory */
		const char *path;
		unsigned int flags;
		int vec;	/* 0 good, 1 NULL, 2 into unmapped, 3 reserved */
		size_t num;
	} v[] = {
		{ "unknown flag", -2, ".", 0x100000, 0, 1 },
		{ "AT_RECURSIVE is unknown here", -2, ".", AT_RECURSIVE, 0, 1 },
		{ "num > INT_MAX", -2, ".", 0, 0, (size_t)INT_MAX + 1 },
		{ "vec NULL", -2, ".", 0, 1, 1 },
		{ "vec NULL, num 0", -2, ".", 0, 1, 0 },
		{ "vec into an unmapped page", -2, ".", 0, 2, 2 },
		{ "huge num, short readable vec", -2, ".", 0, 2, INT_MAX },
		{ "reserved != 0", -2, "missing", 0, 3, 2 },
		{ "missing origin", -2, "missing", 0, 0, 1 },
		{ "missing origin, num 0", -2, "missing", 0, 0, 0 },
		{ "empty path", -2, "", 0, 0, 1 },
		{ "empty path, AT_EMPTY_PATH", -2, "", AT_EMPTY_PATH, 0, 1 },
		{ "path NULL", -2, NULL, 0, 0, 1 },
		{ "path NULL, AT_EMPTY_PATH", -2, NULL, AT_EMPTY_PATH, 0, 1 },
		{ "bad dfd", 9999, "a", 0, 0, 1 },
		{ "bad dfd, absolute path", 9999, "/", 0, 0, 1 },
		{ "dfd a file", -3, "x", 0, 0, 1 },
		{ "a symlink, followed", -2, "link", 0, 0, 1 },
		{ "a symlink, not followed", -2, "link", AT_SYMLINK_NOFOLLOW,
		  0, 1 },
		{ "a loop", -2, "loop1", 0, 0, 1 },
		{ "through a file", -2, "a/x", 0, 0, 1 },
		{ "AT_NO_AUTOMOUNT", -2, ".", AT_NO_AUTOMOUNT, 0, 1 },
	};
	char *page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct name_val *edge = (struct name_val *)(page + PAGE) - 1;
	int file = openat(scratch_fd, "a", O_RDONLY | O_CLOEXEC);
	char buf[2][256];

	munmap(page + PAGE, PAGE);
	for (size_t i = 0; i < GV_ARRAY_SIZE(v); i++) {
		int ret[2], err[2];
		struct name_val nv[2][2];
		int dfd = v[i].dfd == -2 ? scratch_fd :
			  v[i].dfd == -3 ? file : v[i].dfd;

		for (int b = 0; b < 2; b++) {
			struct name_val *vec = nv[b];

			memset(nv[b], 0, sizeof(nv[b]));
			nv[b][0] = (struct name_val){
				.name = "stat:type",
				.value_in = { buf[b], sizeof(buf[b]) } };
			nv[b][1].name = "data:a";
			if (v[i].vec == 1)
				vec = NULL;
			if (v[i].vec == 2) {
				*edge = nv[b][0];
				vec = edge;
			}
			if (v[i].vec == 3)
				nv[b][1].reserved = 1;
			gv_backend_force(b ? GV_BACKEND_SYNC :
					     GV_BACKEND_NATIVE);
			errno = 0;
			ret[b] = getvalues(dfd, v[i].path, vec, v[i].num,
					   v[i].flags);
			err[b] = ret[b] < 0 ? errno : 0;
			gv_backend_force(GV_BACKEND_AUTO);
		}
		if (!tap_ok(ret[0] == ret[1] && err[0] == err[1] &&
			    nv[0][0].error == nv[1][0].error &&
			    nv[0][0].value_out.iov_len ==
			    nv[1][0].value_out.iov_len,
			    "the call: %s", v[i].title))
			tap_diag("native %d (%s), sync %d (%s)", ret[0],
				 strerror(err[0]), ret[1], strerror(err[1]));
	}
	close(file);
	munmap(page, PAGE);
}

/* The batch of 64 files, and readfile. */
static void calls_batch_and_readfile(void)
{
	static char names[64][32];
	/* "fifo" has no writer: SPEC v2's readfile waits for one (below) */
	static const char *const paths[] = {
		"a", "empty", "big", "d", "missing", "link", "dangling",
		"null", "/proc/self/cmdline", "/sys/kernel/uevent_seqnum",
	};
	char *b[2];

	call_begin("many", 0, "64 files in one call");
	for (int i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "data:f%02d", i);
		add(names[i], i ? CONT : OFF_BIG, 8192);
	}
	check();

	b[0] = malloc(400000);
	b[1] = malloc(400000);
	for (size_t i = 0; i < GV_ARRAY_SIZE(paths); i++) {
		static const size_t sizes[] = { 0, 1, 6, 65536, 400000 };

		for (size_t s = 0; s < GV_ARRAY_SIZE(sizes); s++) {
			ssize_t r[2];
			int e[2];

			for (int k = 0; k < 2; k++) {
				gv_backend_force(k ? GV_BACKEND_SYNC :
						     GV_BACKEND_NATIVE);
				errno = 0;
				r[k] = readfile(scratch_fd, paths[i], b[k],
						sizes[s], 0);
				e[k] = r[k] < 0 ? errno : 0;
			}
			gv_backend_force(GV_BACKEND_AUTO);
			if (!tap_ok(r[0] == r[1] && e[0] == e[1] &&
				    (r[0] <= 0 || !memcmp(b[0], b[1], r[0])),
				    "readfile %s into %zu bytes", paths[i],
				    sizes[s]))
				tap_diag("native %zd (%s), sync %zd (%s)",
					 r[0], strerror(e[0]), r[1],
					 strerror(e[1]));
		}
	}
	free(b[0]);
	free(b[1]);
}

/* A FIFO: readfile waits for a writer, then reads what it wrote, to EOF. */
static void calls_readfile_fifo(void)
{
	static const char text[] = "through the FIFO";
	char b[2][64];
	ssize_t r[2];
	int e[2];

	for (int k = 0; k < 2; k++) {
		pid_t pid = fork();

		if (pid < 0)
			tap_bail("fork: %s", strerror(errno));
		if (pid == 0) {
			int fd;

			alarm(10);	/* a readfile that did not wait */
			fd = openat(scratch_fd, "fifo", O_WRONLY);

			_exit(fd < 0 || write(fd, text, sizeof(text) - 1) !=
			      sizeof(text) - 1);
		}
		gv_backend_force(k ? GV_BACKEND_SYNC : GV_BACKEND_NATIVE);
		errno = 0;
		r[k] = readfile(scratch_fd, "fifo", b[k], sizeof(b[k]), 0);
		e[k] = r[k] < 0 ? errno : 0;
		gv_backend_force(GV_BACKEND_AUTO);
		waitpid(pid, NULL, 0);
	}
	if (!tap_ok(r[0] == r[1] && e[0] == e[1] &&
		    r[0] == sizeof(text) - 1 && !memcmp(b[0], b[1], r[0]),
		    "readfile of a FIFO: waits for the writer"))
		tap_diag("native %zd (%s), sync %zd (%s)", r[0],
			 strerror(e[0]), r[1], strerror(e[1]));
}

int main(void)
{
	if (gv_backend_usable(GV_BACKEND_NATIVE))
		tap_skip_all("the kernel lacks getvalues(2) and readfile(2)");
	setup_tree();
	if (!geteuid())
		setup_mounts();
	start_holder();
	tap_diag("%s, %s", scratch, have_mounts ? "with mounts" :
		 "without mounts (not root)");
	calls_listings();
	calls_mounts();
	calls_stat();
	calls_fs();
	if (have_xattr)
		calls_xattr();
	calls_data_dir();
	calls_proc();
	calls_names();
	calls_overflow();
	calls_bad_pointers();
	calls_call_errors();
	calls_batch_and_readfile();
	calls_readfile_fifo();
	tap_diag("%u calls compared", calls_run);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return tap_done();
}
