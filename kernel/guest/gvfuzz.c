// SPDX-License-Identifier: GPL-2.0
/*
 * gvfuzz.c - randomized getvalues(2) and readfile(2) calls for a bounded
 * time: names from the grammar and random bytes, bad and odd pointers,
 * buffers that end in unmapped or read-only memory, vectors that do, large
 * and huge counts, odd origins and flags.
 *
 * It checks what user space can see: every call returns an errno of the
 * documented set or a count of entries no larger than asked, every entry
 * handled has a per-entry errno of the set, values lie inside their
 * buffer, nothing past the entries handled is written, and no descriptor
 * is left open. What the kernel sees (KASAN, lockdep, WARN) is on the
 * console, which kcheck reads.
 *
 * No call may wait for long: readfile(2) of a FIFO waits for a writer as
 * open(2) does, getvalues(2) never waits (SPEC v2). Each call runs under
 * a SIGALRM of WAIT_MAX seconds, without SA_RESTART, so that one that
 * sleeps is ended with EINTR and told, with its arguments, instead of
 * hanging the run: an unexpected result for getvalues(2).
 *
 *   gvfuzz [SECONDS [SEED]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"

#define PAGE		4096UL
#define ARENA_PAGES	64
#define MAX_VEC		512
#define WAIT_MAX	10	/* seconds a call may take */

/* where the kernel put the value of entry @e (struct gv_entry: entry.h) */
#define OUT(e)	((const char *)(uintptr_t)(e)->value_out.base)

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static unsigned int pick(unsigned int n)
{
	return n ? rnd() % n : 0;
}

#define PICK(a)	((a)[pick(sizeof(a) / sizeof(*(a)))])

static const char *const groups[] = {
	"mnt", "mntns", "xattr", "data", "dir", "stat", "lstat", "fs", "",
	"nope", "MNT", "stat ",
};

static const char *const fields[] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source",
	"superopts", "type", "mode", "nlink", "uid", "gid", "size", "blocks",
	"blksize", "ino", "rdev", "atime", "mtime", "ctime", "btime", "mntid",
	"bsize", "frsize", "bfree", "bavail", "files", "ffree", "namelen",
	"flags", "", "nope",
};

static const char *const subpaths[] = {
	"", "f", "d", "d/g", "l", "loop", "abs", "up", "fifo", "missing",
	"d/", "/f", "d//g", "./f", "d/../f", "..", "fd/0", "fd/1", "fd/3",
	"cwd", "root", "exe", "ns/mnt", "map_files", "status", "environ",
	"mountinfo", "mem", "task", "null", "zero", "kernel", "block",
	"user.k", "trusted.k", "system.posix_acl_access", "security.x",
	"user.", "x", "1", "4294967295", "4294967296", "0", "-1",
};

/* Random but mostly well-formed names, and some garbage. */
static void make_name(char *s, size_t cap)
{
	size_t n = 0, i;

	switch (pick(10)) {
	case 0:		/* random bytes */
		n = pick(cap - 1);
		for (i = 0; i < n; i++)
			s[i] = 1 + pick(255);
		s[n] = 0;
		return;
	case 1:		/* shorthand */
		snprintf(s, cap, ":%s%s%s", PICK(fields),
			 pick(2) ? ":" : "", pick(2) ? PICK(subpaths) : "");
		return;
	case 2:		/* long */
		n = 200 + pick(cap - 201);
		memset(s, pick(2) ? 'a' : '/', n);
		memcpy(s, "data:", 5);
		s[n] = 0;
		return;
	case 3:		/* mntns:ID:FIELD */
		snprintf(s, cap, "mntns:%u%s%s", pick(3) ? pick(64) : (unsigned int)rnd(),
			 pick(3) ? ":" : "", PICK(fields));
		return;
	default:
		snprintf(s, cap, "%s%s%s%s%s", PICK(groups),
			 pick(5) ? ":" : "", pick(4) ? PICK(fields) : "",
			 pick(2) ? ":" : "", pick(2) ? PICK(subpaths) : "");
		return;
	}
}

static char *arena;		/* ARENA_PAGES pages; see the layout below */
static char *none_page, *ro_page, *rw;
static char *vecmap;		/* VEC_PAGES pages, the last PROT_NONE */
#define VEC_PAGES	16
static char names[MAX_VEC][300];
static int scratchfd, procfd, devfd, filefd, pipefd[2];
static unsigned long calls, entries, bad;

/*
 * Arena layout: page 0 PROT_NONE, page 1 read-only, pages 2.. writable,
 * the last page PROT_NONE again.
 */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	int fd;

	arena = mmap(NULL, ARENA_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		exit(1);
	none_page = arena;
	ro_page = arena + PAGE;
	rw = arena + 2 * PAGE;
	mprotect(none_page, PAGE, PROT_NONE);
	mprotect(ro_page, PAGE, PROT_READ);
	mprotect(arena + (ARENA_PAGES - 1) * PAGE, PAGE, PROT_NONE);
	/* the vector lives apart, where no value can land */
	vecmap = mmap(NULL, VEC_PAGES * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vecmap == MAP_FAILED)
		exit(1);
	mprotect(vecmap + (VEC_PAGES - 1) * PAGE, PAGE, PROT_NONE);

	snprintf(dir, sizeof(dir), "%s/gvfuzz.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		exit(1);
	scratchfd = open(dir, O_RDONLY | O_DIRECTORY);
	mkdirat(scratchfd, "d", 0755);
	fd = openat(scratchfd, "f", O_WRONLY | O_CREAT, 0644);
	if (write(fd, "content\n", 8) != 8)
		exit(1);
	fsetxattr(fd, "user.k", "v", 1, 0);
	close(fd);
	close(openat(scratchfd, "d/g", O_WRONLY | O_CREAT, 0600));
	symlinkat("f", scratchfd, "l");
	symlinkat("loop", scratchfd, "loop");
	symlinkat("/d", scratchfd, "abs");
	symlinkat("../../..", scratchfd, "up");
	mkfifoat(scratchfd, "fifo", 0644);
	procfd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	devfd = open("/dev", O_RDONLY | O_DIRECTORY);
	filefd = openat(scratchfd, "f", O_RDONLY);
	if (pipe(pipefd))
		exit(1);
}

/* A pointer for a buffer or a name: mostly good, sometimes not. */
static char *odd_pointer(char *good)
{
	switch (pick(12)) {
	case 0: return NULL;
	case 1: return (char *)1;
	case 2: return none_page + pick(PAGE);
	case 3: return ro_page + pick(PAGE);
	case 4: return arena + (ARENA_PAGES - 1) * PAGE - pick(64);
	case 5: return (char *)0xffff888000000000UL;
	default: return good;
	}
}

static size_t odd_size(void)
{
	static const size_t sizes[] = {
		0, 1, 2, 3, 7, 16, 64, 100, 4096, 65536, SIZE_MAX, 1UL << 40,
	};

	return pick(3) ? pick(8192) : PICK(sizes);
}

static volatile sig_atomic_t woken;

static void on_alarm(int sig)
{
	(void)sig;
	woken = 1;
}

/* Arm the alarm for one call; after it, whether the call had to be woken. */
static void call_begin(void)
{
	woken = 0;
	alarm(WAIT_MAX);
}

static bool call_woken(void)
{
	alarm(0);
	return woken;
}

static bool errno_ok(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOENT: case ENOTDIR: case EBADF:
	case ELOOP: case ENAMETOOLONG: case EACCES: case EPERM: case EISDIR:
	case ENODATA: case EXDEV: case EOVERFLOW: case EMFILE: case ENOMEM:
	case EOPNOTSUPP: case ERANGE: case E2BIG: case EAGAIN: case EIO:
	case EINTR: case ENXIO: case ESRCH:
		return true;
	}
	return false;
}

/*
 * A path as far as it can be read: a name of ours, or a pointer into the
 * writable arena (where the values of earlier calls lie: a dir: listing
 * there can spell "fifo"), up to the guard page; else "?".
 */
/* The end of the writable arena: its last page is the guard. */
static const char *arena_end(void)
{
	return arena + (ARENA_PAGES - 1) * PAGE;
}

static const char *shown(const char *p)
{
	if (p >= rw && p < arena_end())
		return p;
	if (p >= names[0] && p < names[0] + sizeof(names[0]))
		return p;
	return "?";
}

static int shown_len(const char *p)
{
	const char *end = arena_end();

	if (p >= rw && p < end)
		return (int)strnlen(p, end - p < 60 ? end - p : 60);
	return 60;
}

static void fuzz_readfile(void)
{
	static const char *const paths[] = {
		"f", "d", "l", "missing", "/proc/self/status", "/proc/self/mem",
		"/sys/kernel/uevent_seqnum", "", "fifo-not", "loop",
	};
	bool listed = pick(8);
	const char *path = listed ? PICK(paths) : odd_pointer(names[0]);
	char *buf = odd_pointer(rw);
	int flags = pick(4) ? 0 : (int)rnd();
	int dfd;
	long r;

	if (path == names[0])
		make_name(names[0], sizeof(names[0]));
	dfd = pick(4) ? scratchfd : AT_FDCWD;
	call_begin();
	r = syscall(NR_READFILE, dfd, path, buf, odd_size(), flags);
	if (call_woken())
		printf("# readfile(%s, \"%.*s\", flags %#x) waited %d s: "
		       "%ld (%s)\n", dfd == AT_FDCWD ? "AT_FDCWD" : "scratch",
		       listed ? 60 : shown_len(path),
		       listed ? path : shown(path), flags, WAIT_MAX, r,
		       r < 0 ? strerror(errno) : "");
	calls++;
	if (r < 0 && !errno_ok(errno)) {
		bad++;
		printf("# readfile: unexpected errno %d (%s)\n", errno,
		       strerror(errno));
	}
}

static void fuzz_getvalues(void)
{
	static const int dfds_n = 6;
	struct gv_entry *vec;
	size_t num, i, space;
	int dfd, which = pick(dfds_n);
	unsigned int flags = 0;
	size_t esize = sizeof(*vec);
	const char *path;
	long r;

	/* the vector: at the start of its mapping, or right before its end */
	num = pick(4) ? pick(48) : pick(MAX_VEC);
	space = (VEC_PAGES - 1) * PAGE;
	if (num * sizeof(*vec) > space)
		num = space / sizeof(*vec);
	vec = (struct gv_entry *)vecmap;
	if (!pick(10))
		vec = (struct gv_entry *)(vecmap + space) - num;
	memset(vec, 0, num * sizeof(*vec));
	for (i = 0; i < num; i++) {
		make_name(names[i], sizeof(names[i]));
		vec[i].name = PTR(pick(20) ? names[i] : odd_pointer(names[i]));
		if (!pick(100))		/* no address of ours */
			vec[i].name |= (uint64_t)(1 + pick(0xffff)) << 47;
		if (!i || !pick(4)) {
			vec[i].value_in.base = PTR(odd_pointer(rw + pick(PAGE)));
			vec[i].value_in.len = odd_size();
		}
		vec[i].reserved = pick(200) ? 0 : (unsigned int)rnd();
		vec[i].error = 0xeeee;	/* must be overwritten or left */
	}
	if (!pick(20)) {
		/* a vector that cannot be used: nothing may be checked */
		vec = (struct gv_entry *)odd_pointer((char *)vec);
		if (vec != (struct gv_entry *)vecmap &&
		    (char *)vec != vecmap + space - num * sizeof(*vec))
			num = pick(2) ? num : (size_t)INT_MAX;
	}
	switch (which) {
	case 0: dfd = scratchfd; path = "."; break;
	case 1: dfd = procfd; path = pick(2) ? "" : NULL; flags = AT_EMPTY_PATH; break;
	case 2: dfd = devfd; path = "."; break;
	case 3: dfd = AT_FDCWD; path = "/sys/kernel"; break;
	case 4: dfd = filefd; path = ""; flags = AT_EMPTY_PATH; break;
	default: dfd = pick(2) ? pipefd[0] : 9999; path = ""; flags = AT_EMPTY_PATH; break;
	}
	if (!pick(10))
		flags |= pick(2) ? AT_SYMLINK_NOFOLLOW : AT_NO_AUTOMOUNT;
	if (!pick(50))
		flags = rnd();
	if (!pick(50))
		num = pick(2) ? (size_t)INT_MAX + 1 + pick(100) : INT_MAX;
	if (!pick(50))		/* an entry size the kernel refuses */
		esize = pick(2) ? pick(48) : PAGE + 8 * (1 + pick(100));
	call_begin();
	r = syscall(NR_GETVALUES, dfd, path, vec, num, esize, flags);
	if (call_woken()) {
		bool named = vec == (struct gv_entry *)vecmap ||
			     (char *)vec == vecmap + space - num * sizeof(*vec);

		bad++;
		printf("# getvalues(origin %d, flags %#x, num %zu) waited %d "
		       "s: %ld (%s); names:", which, flags, num, WAIT_MAX, r,
		       r < 0 ? strerror(errno) : "");
		for (i = 0; named && i < num && i < 8; i++)
			printf(" \"%.40s\"", vec[i].name == PTR(names[i]) ?
			       names[i] : "?");
		printf("\n");
	}
	calls++;
	if (r >= 0 && esize != sizeof(*vec)) {
		bad++;
		printf("# getvalues: entry size %zu accepted\n", esize);
		return;
	}
	if (r < 0) {
		if (!errno_ok(errno)) {
			bad++;
			printf("# getvalues: unexpected errno %d (%s)\n", errno,
			       strerror(errno));
		}
		return;
	}
	if ((size_t)r > num) {
		bad++;
		printf("# getvalues: returned %ld of %zu\n", r, num);
		return;
	}
	entries += r;
	/* the entries handled, and the one that did not fit */
	for (i = 0; i < num && i <= (size_t)r; i++) {
		const struct gv_entry *e = &vec[i];

		if (i == (size_t)r && r != (long)num && e->error != EOVERFLOW) {
			bad++;
			printf("# entry %zu stopped the call with error %u\n",
			       i, e->error);
		}
		if (e->error == 0xeeee || (e->error && !errno_ok(e->error))) {
			bad++;
			printf("# entry %zu (\"%.40s\"): error %u\n", i,
			       e->name == PTR(names[i]) ? names[i] : "?",
			       e->error);
		}
		if (e->error && e->value_out.len) {
			bad++;
			printf("# entry %zu: error %u with a value\n", i,
			       e->error);
		}
	}
	for (; i < num; i++) {
		if (vec[i].error != 0xeeee || vec[i].value_out.base) {
			bad++;
			printf("# entry %zu past the stop was written\n", i);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? atoi(argv[1]) : 30;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) :
				   (uint64_t)time(NULL) * 2654435761u;
	time_t end = time(NULL) + seconds;
	int fd0, fdn;

	struct sigaction sa = { .sa_handler = on_alarm };

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	rng_state = seed | 1;
	printf("1..2\n# seed %llu, %u seconds\n", (unsigned long long)seed,
	       seconds);
	if (syscall(NR_GETVALUES, AT_FDCWD, "/", NULL, 0,
		    sizeof(struct gv_entry), 0) && errno == ENOSYS) {
		printf("ok 1 # SKIP no getvalues(2)\nok 2 # SKIP\n");
		return 0;
	}
	setup();
	fd0 = dup(0);
	close(fd0);
	while (time(NULL) < end) {
		for (int k = 0; k < 100; k++) {
			if (pick(8))
				fuzz_getvalues();
			else
				fuzz_readfile();
		}
	}
	fdn = dup(0);
	close(fdn);
	printf("%sok 1 - %lu calls, %lu entries handled, %lu unexpected results\n",
	       bad ? "not " : "", calls, entries, bad);
	printf("%sok 2 - no descriptor left open\n", fd0 == fdn ? "" : "not ");
	return bad || fd0 != fdn;
}
