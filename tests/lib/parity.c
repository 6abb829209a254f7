// SPDX-License-Identifier: MIT
/*
 * parity.c - the native parity tests' scratch tree, mounts and holder,
 * and their calls run through the native system calls and the sync
 * backend, and compared.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
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
#include "lib/mounts.h"
#include "lib/parity.h"
#include "lib/tap.h"
#include "lib/util.h"

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

static char scratch[PATH_MAX];	/* the scratch tree */
int np_scratch_fd = -1;
bool np_have_mounts, np_have_xattr;
pid_t np_holder = -1;
int np_holder_fds[8];
unsigned int np_calls_run;
static struct call cur;		/* the call being built */

/* ---- the scratch tree, the mounts, a process holding descriptors ---- */

static void put(const char *name, const char *data, size_t len)
{
	if (t_write_file(np_scratch_fd, name, data, len, 0644))
		tap_bail("write %s: %s", name, strerror(errno));
}

/*
 * Mounts of every kind mountinfo shows: escapes in the mount point and the
 * source, read-only, nosuid and unbindable, shared, slave, and a slave
 * whose master is not reachable from here (propagate_from).
 */
static void setup_mounts(void)
{
	const char *why = t_private_mounts(NULL);

	if (why) {
		tap_diag("no private mount namespace: %s", why);
		return;
	}
	mt_set_top(scratch);
	mt_mount_at("tmp", "src with\ta tab\\", "tmpfs",
		    MS_NOSUID | MS_NODEV, "size=4m,mode=755");
	put("tmp/f", "on tmpfs\n", 9);
	mt_mount_at("sp ace\tand\\back", "none", "tmpfs", 0, "size=1m");
	mt_mount_at("ro", scratch, NULL, MS_BIND, NULL);
	mt_change("ro", MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOEXEC);
	mt_change("ro", MS_UNBINDABLE);
	/* a shared peer group, a slave of it, a slave of a slave */
	mt_mount_at("peer", "peer", "tmpfs", 0, "size=1m");
	mt_change("peer", MS_SHARED);
	mt_mkdir("peer/sub");
	mt_mount_at("slave", mt_at("peer"), NULL, MS_BIND, NULL);
	mt_change("slave", MS_SLAVE);
	mt_change("slave", MS_SHARED);
	mt_mount_at("slave2", mt_at("slave"), NULL, MS_BIND, NULL);
	mt_change("slave2", MS_SLAVE);
	np_have_mounts = true;
}

static void setup_tree(void)
{
	char big[300000];
	int fd;

	snprintf(scratch, sizeof(scratch), "%s", t_tmpdir("parity"));
	np_scratch_fd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (np_scratch_fd < 0)
		tap_bail("open %s: %s", scratch, strerror(errno));
	put("a", "alpha\n", 6);
	put("empty", "", 0);
	t_fill_pattern(big, sizeof(big), 7);
	put("big", big, sizeof(big));		/* beyond the 64 KiB chunk */
	put("k64", big, 65536);			/* exactly the chunk */
	if (mkdirat(np_scratch_fd, "d", 0755) ||
	    mkdirat(np_scratch_fd, "d/e", 0755) ||
	    mkdirat(np_scratch_fd, "emptydir", 0755) ||
	    mkdirat(np_scratch_fd, "many", 0755))
		tap_bail("mkdir: %s", strerror(errno));
	put("d/b", "bravo", 5);
	put("d/e/c", "charlie", 7);
	for (int i = 0; i < 64; i++) {
		char name[32], data[64];

		snprintf(name, sizeof(name), "many/f%02d", i);
		put(name, data, snprintf(data, sizeof(data),
					 "file %d of the batch\n", i));
	}
	if (symlinkat("a", np_scratch_fd, "link") ||
	    symlinkat("/d", np_scratch_fd, "absd") ||
	    symlinkat("../..", np_scratch_fd, "d/up") ||
	    symlinkat("d", np_scratch_fd, "dl") ||
	    symlinkat("missing", np_scratch_fd, "dangling") ||
	    symlinkat("loop2", np_scratch_fd, "loop1") ||
	    symlinkat("loop1", np_scratch_fd, "loop2") ||
	    symlinkat("/", np_scratch_fd, "root") ||
	    symlinkat("/proc/self/cwd", np_scratch_fd, "magic") ||
	    mkfifoat(np_scratch_fd, "fifo", 0644))
		tap_bail("symlink, FIFO: %s", strerror(errno));
	if (t_real_root() &&
	    mknodat(np_scratch_fd, "null", S_IFCHR | 0666, makedev(1, 3)))
		tap_bail("mknod: %s", strerror(errno));

	fd = openat(np_scratch_fd, "a", O_RDONLY | O_CLOEXEC);
	np_have_xattr = fd >= 0 &&
			!fsetxattr(fd, "user.k", "value", 5, 0) &&
			!fsetxattr(fd, "user.k:colon", "c", 1, 0) &&
			!fsetxattr(fd, "user.empty", "", 0, 0) &&
			!fsetxattr(fd, "user.big", big, 900, 0);
	if (np_have_xattr) {
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
void np_start_holder(void)
{
	int p[2], s[2];

	np_holder_fds[0] = openat(np_scratch_fd, "big", O_RDONLY);
	np_holder_fds[1] = openat(np_scratch_fd, "d", O_RDONLY | O_DIRECTORY);
	np_holder_fds[2] = pipe(p) ? -1 : p[0];
	np_holder_fds[3] = socketpair(AF_UNIX, SOCK_STREAM, 0, s) ? -1 : s[0];
	np_holder_fds[4] = eventfd(0, 0);
	np_holder_fds[5] = open("/dev/null", O_WRONLY);
	np_holder_fds[6] = openat(np_scratch_fd, "a", O_RDWR);
	np_holder = fork();
	if (np_holder == 0) {
		pause();
		_exit(0);
	}
	if (np_holder < 0)
		tap_bail("fork: %s", strerror(errno));
}

/* ---- building and running calls ---- */

void np_call_begin(const char *origin, unsigned int flags, const char *fmt,
		   ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cur.title, sizeof(cur.title), fmt, ap);
	va_end(ap);
	cur.origin = origin;
	cur.flags = flags;
	cur.n = 0;
}

void np_add(const char *name, long buf, size_t len)
{
	if (cur.n == MAX_ENTRIES)
		tap_bail("too many entries in \"%s\"", cur.title);
	cur.e[cur.n++] = (struct entry){ name, buf, len };
}

/* Each entry its own buffer of 64 KiB, in the big area. */
static void add_own(const char *name)
{
	np_add(name, OFF_BIG + (long)(cur.n % 2) * 65536, 65536);
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
	int dfd = np_scratch_fd;
	const char *origin = cur.origin;

	if (origin && *origin == '/')
		dfd = AT_FDCWD;
	for (size_t i = 0; i < cur.n; i++) {
		r->vec[i] = (struct name_val){
			.name = name_in(r->arena, cur.e[i].name),
			.value_in = {
				cur.e[i].buf == CONT ? NULL :
				cur.e[i].buf == BUF_ONE ? (void *)1 :
					r->arena + cur.e[i].buf,
				cur.e[i].len },
		};
	}
	gv_backend_force(backend);
	errno = 0;
	r->ret = getvalues(dfd, origin, r->vec, cur.n, cur.flags);
	r->err = r->ret < 0 ? errno : 0;
	gv_backend_force(GV_BACKEND_AUTO);
}

static long offset(const struct run *r, const void *p)
{
	if (!p)
		return -1;
	if ((const char *)p < r->arena ||
	    (const char *)p >= r->arena + ARENA_SIZE)
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
		touched = (size_t)nat->ret < cur.n ? (size_t)nat->ret + 1 :
			  cur.n;
	for (i = 0; i < cur.n; i++) {
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
	if (i == cur.n)
		return true;
	tap_diag("entry %zu (%s) differs:", i,
		 (uintptr_t)cur.e[i].name < 16 ? "(a bad pointer)" :
		 cur.e[i].name);
	show(nat, i, "native");
	show(syn, i, "sync");
	return false;
}

/* Run the call built so far through both backends and compare. */
void np_check(void)
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
	 * other np_one reads.
	 */
	run(GV_BACKEND_SYNC, &syn);
	run(GV_BACKEND_SYNC, &syn);
	run(GV_BACKEND_NATIVE, &nat);
	np_calls_run++;
	tap_ok(compare(&nat, &syn), "%s", cur.title);
}

/* One call with np_one name, its own buffer. */
void np_one(const char *origin, const char *name)
{
	np_call_begin(origin, 0, "%s on %s", name, origin ? origin : "scratch");
	add_own(name);
	np_check();
}

/*
 * Set up a test program: all skipped where the kernel lacks the calls;
 * the scratch tree, and the mounts where a mount namespace can be had.
 */
void np_start(void)
{
	if (gv_backend_usable(GV_BACKEND_NATIVE))
		tap_skip_all("the kernel lacks getvalues(2) and readfile(2)");
	setup_tree();
	setup_mounts();
	tap_diag("%s, %s", scratch, np_have_mounts ? "with mounts" :
		 "without mounts");
}
