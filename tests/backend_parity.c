// SPDX-License-Identifier: MIT
/*
 * backend_parity.c - the same getvalues() and readfile() requests through
 * the sync, uring and auto backends give the same return values, errnos,
 * value positions, lengths and bytes: files of every size around the
 * staging and page boundaries, own and shared buffers, exact fits and
 * overflows, every kind of file a data: entry can meet, bad and overlapping
 * buffers, procfs and sysfs origins, batches larger than the ring, and
 * random layouts. Values are also checked against open/read/close, and
 * each run proves which backend fetched it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <getvalues.h>

#include "cost.h"
#include "internal.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define MAX_ENTRIES	400
#define REGION		(16u << 20)	/* buffers are carved from here */
#define PAGE		4096u
#define FILLED		(REGION - 4 * PAGE)	/* then NONE, RW, RO, NONE */

/* Where an entry's value_in points, as an offset into the region. */
enum buf_kind {
	B_SHARED,	/* NULL: continue the current buffer */
	B_OWN,		/* region + off, len */
	B_NONE,		/* PROT_NONE page */
	B_RO,		/* read-only page */
	B_EDGE,		/* @off bytes before the end of a PROT_NONE page */
};

struct entry {
	const char *name;
	enum buf_kind kind;
	size_t off, len;
};

struct result {
	int ret, err;
	struct {
		uint32_t error;
		long long off;		/* value_out.iov_base - region */
		size_t len;
		unsigned char *bytes;
	} e[MAX_ENTRIES];
};

static char *region;		/* REGION bytes; the last pages guarded */
static const char *dir_path;
static int dir_fd;

static const enum gv_backend_id backends[] = {
	GV_BACKEND_SYNC, GV_BACKEND_URING, GV_BACKEND_AUTO,
};
static const char *const backend_names[] = { "sync", "uring", "auto" };

static void result_free(struct result *r, int num)
{
	for (int i = 0; i < num; i++)
		free(r->e[i].bytes);
}

/*
 * One call on backend @b: fresh pattern in the region, sentinels in the
 * entries (so that untouched ones show), and a copy of everything the
 * caller can see afterwards.
 */
static void run(enum gv_backend_id b, const char *origin,
		const struct entry *ents, int num, struct result *res)
{
	static struct name_val vec[MAX_ENTRIES];
	static unsigned int seed;
	size_t used = 1u << 20;

	/* a new pattern each run: a value that was not written shows */
	for (int i = 0; i < num; i++)
		if (ents[i].kind == B_OWN && ents[i].off + ents[i].len > used)
			used = ents[i].off + ents[i].len;
	if (used > FILLED)
		used = FILLED;
	t_fill_pattern(region, used, ++seed);
	for (int i = 0; i < num; i++) {
		void *base = NULL;

		switch (ents[i].kind) {
		case B_SHARED:
			break;
		case B_OWN:
			base = region + ents[i].off;
			break;
		case B_NONE:
			base = region + REGION - PAGE;
			break;
		case B_RO:
			base = region + REGION - 2 * PAGE;
			break;
		case B_EDGE:
			base = region + REGION - 3 * PAGE - ents[i].off;
			break;
		}
		vec[i] = (struct name_val){
			.name = ents[i].name,
			.value_in = { base, ents[i].len },
			.value_out = { (void *)0x5e5e, 77 },
			.error = 9999,
		};
	}
	gv_backend_force(b);
	errno = 0;
	res->ret = getvalues(AT_FDCWD, origin, vec, num, 0);
	res->err = res->ret < 0 ? errno : 0;
	for (int i = 0; i < num; i++) {
		char *p = vec[i].value_out.iov_base;
		size_t len = vec[i].value_out.iov_len;

		res->e[i].error = vec[i].error;
		res->e[i].len = len;
		res->e[i].off = p == (void *)0x5e5e ? -2 :
				!p ? -1 : (long long)(p - region);
		res->e[i].bytes = NULL;
		if (res->e[i].off >= 0 && !vec[i].error && len &&
		    p >= region && p + len <= region + REGION - 2 * PAGE &&
		    (p >= region + REGION - 3 * PAGE || p + len <= region +
		     FILLED)) {
			res->e[i].bytes = malloc(len);
			memcpy(res->e[i].bytes, p, len);
		}
	}
}

/* The first difference between two results, described in @why. */
static bool same(const struct result *a, const struct result *b, int num,
		 char *why, size_t whylen)
{
	if (a->ret != b->ret || a->err != b->err) {
		snprintf(why, whylen, "returned %d (%s) vs %d (%s)", a->ret,
			 strerrorname_np(a->err), b->ret,
			 strerrorname_np(b->err));
		return false;
	}
	for (int i = 0; i < num; i++) {
		if (a->e[i].error != b->e[i].error) {
			snprintf(why, whylen, "entry %d: error %u vs %u", i,
				 a->e[i].error, b->e[i].error);
			return false;
		}
		if (a->e[i].off != b->e[i].off || a->e[i].len != b->e[i].len) {
			snprintf(why, whylen, "entry %d: value at %lld+%zu vs "
				 "%lld+%zu", i, a->e[i].off, a->e[i].len,
				 b->e[i].off, b->e[i].len);
			return false;
		}
		if ((a->e[i].bytes == NULL) != (b->e[i].bytes == NULL) ||
		    (a->e[i].bytes && memcmp(a->e[i].bytes, b->e[i].bytes,
					     a->e[i].len))) {
			snprintf(why, whylen, "entry %d: different bytes", i);
			return false;
		}
	}
	return true;
}

static enum gv_backend_id last_fetch[3];

/*
 * Run @ents through every backend and compare with sync. @evict: drop the
 * page cache of the data files first, and make auto decide by its probe
 * (as it does on file systems other than ext4, xfs, btrfs, f2fs), so that
 * it finds them cold. Returns the sync result in @out when given (the
 * caller frees it).
 */
/* Whether the last cold check() found every data: file dropped. */
static bool evicted;

/* The page cache of the data: files of @ents dropped (t_evict()). */
static bool evict_data(const struct entry *ents, int num)
{
	const char *names[64];
	int n = 0;

	for (int i = 0; i < num && n < 64; i++)
		if (!strncmp(ents[i].name, "data:", 5))
			names[n++] = ents[i].name + 5;
	return t_evict(dir_fd, names, n);
}

static void check(const char *what, const char *origin,
		  const struct entry *ents, int num, bool evict,
		  struct result *out)
{
	static struct result res[3];
	char why[256];

	evicted = true;
	for (size_t k = 0; k < 3; k++) {
		if (evict)
			evicted = evict_data(ents, num) && evicted;
		gv_backend_force_fs_class(evict ? GV_FS_OTHER : -1);
		run(backends[k], origin, ents, num, &res[k]);
		last_fetch[k] = gv_backend_last();
	}
	gv_backend_force_fs_class(-1);
	for (size_t k = 1; k < 3; k++) {
		bool ok = same(&res[0], &res[k], num, why, sizeof(why));

		tap_ok(ok, "%s: %s = sync", what, backend_names[k]);
		if (!ok)
			tap_diag("   %s", why);
	}
	for (size_t k = 1; k < 3; k++)
		result_free(&res[k], num);
	if (out)
		*out = res[0];
	else
		result_free(&res[0], num);
}

static void make_file(const char *name, size_t size, unsigned int seed)
{
	char *data = malloc(size + 1);

	t_fill_pattern(data, size, seed);
	if (t_write_file(dir_fd, name, data, size, 0644))
		tap_bail("write %s: %s", name, strerror(errno));
	free(data);
}

static const size_t sizes[] = {
	0, 1, 100, 4095, 4096, 4097, 65535, 65536, 65537, 300000,
};

/*
 * After a cold check(): auto's probe found the files cold and fetched them
 * through io_uring. The page cache may take a file back between the
 * eviction and the probe (readahead, another reader on a busy machine):
 * auto is asked again, up to three times in all, each time on files
 * found dropped; and if it still took sync, what it saw is told.
 */
static void expect_cold_uring(const struct entry *ents, int num)
{
	struct result r;
	int again;

	for (again = 0; last_fetch[2] != GV_BACKEND_URING && again < 2;
	     again++) {
		if (!evict_data(ents, num))
			continue;
		gv_backend_force_fs_class(GV_FS_OTHER);
		run(GV_BACKEND_AUTO, dir_path, ents, num, &r);
		last_fetch[2] = gv_backend_last();
		gv_backend_force_fs_class(-1);
		result_free(&r, num);
	}
	if (!tap_ok(last_fetch[2] == GV_BACKEND_URING,
		    "auto's probe found them cold and used io_uring"))
		tap_diag("   fetched by backend %d after %d more tries; "
			 "io_uring usable: %s", last_fetch[2], again,
			 gv_backend_usable(GV_BACKEND_URING) ? "no" : "yes");
}

/* Every size, each entry its own buffer; and checked against reads. */
static void test_sizes(void)
{
	struct entry ents[GV_ARRAY_SIZE(sizes)];
	static char names[GV_ARRAY_SIZE(sizes)][32];
	struct result r;
	bool match = true;

	for (size_t i = 0; i < GV_ARRAY_SIZE(sizes); i++) {
		snprintf(names[i], sizeof(names[i]), "data:size-%zu", sizes[i]);
		make_file(names[i] + 5, sizes[i], (unsigned int)i);
		ents[i] = (struct entry){ names[i], B_OWN, i * 400000,
					  sizes[i] + 10 };
	}
	check("sizes, own buffers", dir_path, ents, GV_ARRAY_SIZE(sizes),
	      false, &r);
	tap_ok(last_fetch[1] == GV_BACKEND_URING,
	       "the forced uring backend fetched them");
	for (size_t i = 0; i < GV_ARRAY_SIZE(sizes); i++) {
		char *want = malloc(sizes[i] + 1);
		ssize_t n = t_orc_read(dir_fd, names[i] + 5, want,
				       sizes[i] + 1);

		if (r.e[i].error || n != (ssize_t)r.e[i].len ||
		    (n && memcmp(want, r.e[i].bytes, n)))
			match = false;
		free(want);
	}
	tap_ok(match, "sizes: the values are the files' contents");
	result_free(&r, GV_ARRAY_SIZE(sizes));

	/* the same in one shared buffer, and again when cold for auto */
	for (size_t i = 0; i < GV_ARRAY_SIZE(sizes); i++)
		ents[i] = (struct entry){ names[i], B_SHARED, 0, 0 };
	ents[0] = (struct entry){ names[0], B_OWN, 0, 4u << 20 };
	check("sizes, one shared buffer", dir_path, ents,
	      GV_ARRAY_SIZE(sizes), false, NULL);
	check("sizes, shared buffer, cold", dir_path, ents,
	      GV_ARRAY_SIZE(sizes), true, NULL);
	{
		struct statfs sfs;

		if (!statfs(dir_path, &sfs) && (sfs.f_type == TMPFS_MAGIC ||
						sfs.f_type == RAMFS_MAGIC))
			tap_skip(1, "%s is in memory: its pages cannot be "
				 "dropped, nothing is cold", dir_path);
		else if (!evicted)
			tap_skip(1, "%s: the page cache keeps the files here "
				 "(POSIX_FADV_DONTNEED)", dir_path);
		else
			expect_cold_uring(ents, GV_ARRAY_SIZE(sizes));
	}
}

/* Buffers exactly the size of the value, one more, one less, zero. */
static void test_fits(void)
{
	static const struct entry own[] = {
		{ "data:size-100", B_OWN, 0, 100 },	/* overflow */
		{ "data:size-100", B_OWN, 1000, 101 },
	};
	static const struct entry own2[] = {
		{ "data:size-100", B_OWN, 1000, 101 },
		{ "data:size-100", B_OWN, 2000, 99 },
		{ "data:size-0", B_OWN, 3000, 0 },
	};
	static const struct entry zero[] = {
		{ "data:size-0", B_OWN, 3000, 1 },
		{ "data:size-1", B_OWN, 4000, 1 },
	};
	static const struct entry shared[] = {
		{ "data:size-100", B_OWN, 0, 301 },
		{ "data:size-100", B_SHARED, 0, 0 },
		{ "data:size-100", B_SHARED, 0, 0 },	/* 300 of 301 */
		{ "data:size-1", B_SHARED, 0, 0 },	/* exactly full */
		{ "data:size-1", B_SHARED, 0, 0 },
	};
	static const struct entry big[] = {
		{ "data:size-300000", B_OWN, 0, 300000 },
		{ "data:size-65536", B_OWN, 400000, 65536 },
		{ "data:size-65537", B_OWN, 500000, 65537 },
	};
	static const struct entry tiny_shared[] = {
		{ "data:size-0", B_OWN, 0, 0 },
		{ "data:size-0", B_SHARED, 0, 0 },
	};

	check("exact fit overflows first", dir_path, own, 2, false, NULL);
	check("one more fits, one less overflows", dir_path, own2, 3, false,
	      NULL);
	check("empty file in 1 byte, 1 byte in 1 byte", dir_path, zero, 2,
	      false, NULL);
	check("shared buffer filled to the last byte", dir_path, shared, 5,
	      false, NULL);
	check("big files at their exact size", dir_path, big, 3, false, NULL);
	check("zero-sized buffer", dir_path, tiny_shared, 2, false, NULL);
}

/* Everything a data: entry can meet, mixed with other groups. */
static void test_kinds(void)
{
	static const struct entry ents[] = {
		{ "stat:size", B_OWN, 0, 64 },
		{ "data:size-100", B_SHARED, 0, 0 },
		{ ":size-4096", B_SHARED, 0, 0 },
		{ "data:missing", B_SHARED, 0, 0 },
		{ "data:sub", B_SHARED, 0, 0 },
		{ "data:fifo", B_SHARED, 0, 0 },
		{ "data:null", B_SHARED, 0, 0 },
		{ "data:link", B_SHARED, 0, 0 },
		{ "data:dangling", B_SHARED, 0, 0 },
		{ "data:sub/inner", B_SHARED, 0, 0 },
		{ "data:abs/inner", B_SHARED, 0, 0 },
		{ "data:climb/passwd", B_SHARED, 0, 0 },
		{ "data:sub/../size-1", B_SHARED, 0, 0 },
		{ "data:/size-1", B_SHARED, 0, 0 },
		{ "data:size-1/", B_SHARED, 0, 0 },
		{ "data:loop", B_SHARED, 0, 0 },
		{ "data:size-1/x", B_SHARED, 0, 0 },
		{ "dir:sub", B_OWN, 100000, 4096 },
		{ "data:sub/inner", B_OWN, 200000, 4096 },
		{ "data:link", B_OWN, 300000, 4096 },
		{ "data:fifo", B_OWN, 400000, 4096 },
		{ "fs:type", B_SHARED, 0, 0 },
		{ "data:", B_SHARED, 0, 0 },
		{ "data:unreadable", B_OWN, 500000, 4096 },
		{ "data:size-65537", B_SHARED, 0, 0 },
	};

	check("every kind of file, mixed groups", dir_path, ents,
	      GV_ARRAY_SIZE(ents), false, NULL);
	check("every kind of file, cold", dir_path, ents, GV_ARRAY_SIZE(ents),
	      true, NULL);
}

/* Buffers that cannot be written, or only partly. */
static void test_bad_buffers(void)
{
	static const struct entry ents[] = {
		{ "data:size-100", B_NONE, 0, 4096 },
		{ "data:size-100", B_RO, 0, 4096 },
		{ "data:size-4096", B_OWN, 0, 8192 },
		{ "data:size-4096", B_SHARED, 0, 0 },
	};
	/* alone: a buffer of its own, the kernel's copy stops mid-way */
	static const struct entry partial[] = {
		{ "data:size-4095", B_OWN, REGION - 3 * PAGE + 100, 5000 },
	};
	static const struct entry fits[] = {
		{ "data:size-100", B_OWN, REGION - 3 * PAGE + 100, 5000 },
		{ "data:size-100", B_SHARED, 0, 0 },
	};
	static const struct entry shared_bad[] = {
		{ "data:size-4096", B_OWN, REGION - 4 * PAGE, 4 * PAGE },
		{ "data:size-4096", B_SHARED, 0, 0 },	/* into PROT_NONE */
		{ "data:size-100", B_SHARED, 0, 0 },
	};

	check("unwritable buffers", dir_path, ents, GV_ARRAY_SIZE(ents), false,
	      NULL);
	check("a value running into a read-only page", dir_path, partial,
	      GV_ARRAY_SIZE(partial), false, NULL);
	check("values that end before a read-only page", dir_path, fits,
	      GV_ARRAY_SIZE(fits), false, NULL);
	/*
	 * The first value cannot be written (the walk learns it only when
	 * it writes its batch, after the ring has read the second value to
	 * where it would have gone); redone, the second value moves.
	 */
	static const struct entry moved[] = {
		{ "stat:size:size-100", B_EDGE, 3, 4096 },
		{ "data:size-1", B_SHARED, 0, 0 },
		{ "data:size-100", B_SHARED, 0, 0 },
	};

	check("a shared buffer running into a bad page", dir_path,
	      shared_bad, GV_ARRAY_SIZE(shared_bad), false, NULL);
	check("a value that moves when an earlier one fails", dir_path, moved,
	      GV_ARRAY_SIZE(moved), false, NULL);
}

/* Entries whose buffers overlap: values land in entry order. */
static void test_overlaps(void)
{
	static const struct entry ents[] = {
		{ "data:size-4096", B_OWN, 0, 8192 },
		{ "data:size-100", B_OWN, 0, 8192 },		/* same */
		{ "data:size-4095", B_OWN, 50, 8192 },		/* inside */
		{ "stat:size", B_OWN, 60, 100 },
		{ "data:size-4097", B_OWN, 20000, 8192 },
		{ "data:size-1", B_SHARED, 0, 0 },
		{ "data:size-100", B_OWN, 24100, 200 },	/* in 4097's tail */
	};

	/* the first data: entry overlaps a value written before it */
	static const struct entry first[] = {
		{ "stat:size", B_OWN, 0, 8192 },
		{ "data:size-100", B_OWN, 2, 8192 },
		{ "data:size-4095", B_SHARED, 0, 0 },
	};

	check("overlapping buffers", dir_path, ents, GV_ARRAY_SIZE(ents),
	      false, NULL);
	check("the batch's first value overlaps an earlier one", dir_path,
	      first, GV_ARRAY_SIZE(first), false, NULL);
}

/* More files than the ring has slots, a shared buffer that runs out. */
static void test_many(void)
{
	static struct entry ents[300];
	static char names[300][32];

	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "data:many/%03d", i);
		ents[i] = (struct entry){ names[i], B_SHARED, 0, 0 };
	}
	if (mkdirat(dir_fd, "many", 0755) && errno != EEXIST)
		tap_bail("mkdir many");
	for (int i = 0; i < 300; i++)
		make_file(names[i] + 5, 50 + i * 7, 1000 + i);
	ents[0] = (struct entry){ names[0], B_OWN, 0, 1u << 20 };
	check("300 files in one shared buffer", dir_path, ents, 300, false,
	      NULL);
	ents[0].len = 300 * 50 + 150 * 7 * 149 / 2;	/* runs out mid-way */
	check("300 files, the buffer runs out", dir_path, ents, 300, false,
	      NULL);
	for (int i = 0; i < 300; i++)
		ents[i] = (struct entry){ names[i], B_OWN, (size_t)i * 4096,
					  i % 3 ? 4096 : 2000 };
	check("300 files, own buffers, some too small", dir_path, ents, 300,
	      true, NULL);
}

/* procfs and sysfs: open first, no special files there. */
static void test_pseudo_fs(void)
{
	static const struct entry proc[] = {
		{ "data:comm", B_OWN, 0, 4096 },
		{ "data:cmdline", B_SHARED, 0, 0 },
		{ "data:personality", B_SHARED, 0, 0 },
		{ "data:limits", B_SHARED, 0, 0 },
		{ "data:exe", B_SHARED, 0, 0 },		/* a symlink */
		{ "data:fd", B_SHARED, 0, 0 },		/* a directory */
		{ "data:missing", B_SHARED, 0, 0 },
		{ "data:comm", B_OWN, 100000, 3 },	/* overflow */
	};
	static const struct entry sys[] = {
		{ "data:online", B_OWN, 0, 4096 },
		{ "data:possible", B_SHARED, 0, 0 },
		{ "data:kernel_max", B_SHARED, 0, 0 },
		{ "data:cpu0", B_SHARED, 0, 0 },
		{ "data:nope", B_OWN, 100000, 4096 },
	};

	/* a file larger than the batch guesses for files of unknown size */
	static const struct entry kallsyms[] = {
		{ "data:filesystems", B_OWN, 0, 8u << 20 },
		{ "data:kallsyms", B_SHARED, 0, 0 },
		{ "data:kallsyms", B_OWN, 9u << 20, 5000 },
	};
	/* sysfs binary files give at most a page per read(2) */
	static const struct entry btf[] = {
		{ "data:btf/vmlinux", B_OWN, 0, 10000 },
		{ "data:btf/vmlinux", B_OWN, 20000, 7u << 20 },
	};

	check("/proc/self", "/proc/self", proc, GV_ARRAY_SIZE(proc), false,
	      NULL);
	check("/sys/devices/system/cpu", "/sys/devices/system/cpu", sys,
	      GV_ARRAY_SIZE(sys), false, NULL);
	if (access("/proc/kallsyms", R_OK))
		tap_skip(2, "no /proc/kallsyms (CONFIG_KALLSYMS)");
	else
		check("/proc/kallsyms, larger than a page", "/proc", kallsyms,
		      GV_ARRAY_SIZE(kallsyms), false, NULL);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		tap_skip(2, "no /sys/kernel/btf/vmlinux "
			 "(CONFIG_DEBUG_INFO_BTF), no sysfs file with short "
			 "reads");
	else
		check("/sys/kernel/btf/vmlinux, short reads", "/sys/kernel",
		      btf, GV_ARRAY_SIZE(btf), false, NULL);
}

/*
 * A mount beneath $ORIGIN: EXDEV, in a private mount namespace; in a
 * child (t_sub()), which has one thread, as a user namespace wants.
 */
static void test_mount(void *arg)
{
	static const struct entry ents[] = {
		{ "data:mnt", B_OWN, 0, 4096 },
		{ "data:mnt/file", B_SHARED, 0, 0 },
		{ "data:size-100", B_SHARED, 0, 0 },
	};
	const char *why = t_private_mounts(NULL);
	char path[4200];

	(void)arg;
	if (why) {
		tap_skip(2, "no private mount namespace: %s", why);
		return;
	}
	snprintf(path, sizeof(path), "%s/mnt", dir_path);
	if (mkdir(path, 0755) || mount("gv", path, "tmpfs", 0, NULL))
		tap_bail("mount tmpfs on %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/mnt/file", dir_path);
	if (t_write_file(AT_FDCWD, path, "x", 1, 0644))
		tap_bail("write %s", path);
	check("a mount beneath $ORIGIN", dir_path, ents, GV_ARRAY_SIZE(ents),
	      false, NULL);
	snprintf(path, sizeof(path), "%s/mnt", dir_path);
	umount2(path, MNT_DETACH);
}

/* Random layouts of random files, buffers, groups. */
static void test_random(void)
{
	static const char *const extra[] = {
		"stat:size", "data:missing", "data:sub", "data:link",
		"fs:bsize", "data:fifo", "dir:", "data:size-65537",
	};
	static struct entry ents[64];
	static char names[64][32];
	unsigned int seed = 12345;
	int bad = 0;

	for (int round = 0; round < 60; round++) {
		int num = 1 + rand_r(&seed) % 64;
		size_t off = 0;

		for (int i = 0; i < num; i++) {
			int pick = rand_r(&seed) % 10;

			if (pick < 8)
				snprintf(names[i], sizeof(names[i]),
					 "data:many/%03d",
					 rand_r(&seed) % 300);
			else
				snprintf(names[i], sizeof(names[i]), "%s",
					 extra[rand_r(&seed) %
					       GV_ARRAY_SIZE(extra)]);
			ents[i] = (struct entry){ names[i], B_SHARED, 0, 0 };
			if (i == 0 || rand_r(&seed) % 3 == 0) {
				size_t len = rand_r(&seed) % 3000;

				if (rand_r(&seed) % 4 == 0)
					len *= 40;
				ents[i] = (struct entry){ names[i], B_OWN,
							  off, len };
				/* now and then, overlap the last one */
				if (rand_r(&seed) % 8)
					off += len + rand_r(&seed) % 64;
			}
		}
		{
			static struct result res[3];
			char why[256];

			for (int k = 0; k < 3; k++)
				run(backends[k], dir_path, ents, num, &res[k]);
			for (int k = 1; k < 3; k++) {
				if (!same(&res[0], &res[k], num, why,
					  sizeof(why))) {
					if (!bad++)
						tap_diag("round %d, %s: %s",
							 round,
							 backend_names[k],
							 why);
				}
			}
			for (int k = 0; k < 3; k++)
				result_free(&res[k], num);
		}
	}
	tap_is_long(bad, 0, "60 random layouts: every backend = sync");
}

/*
 * readfile(): the same through both backends. (A FIFO without a writer
 * makes readfile() wait, as open(2) does: readfile_open.c.)
 */
static void test_readfile(void)
{
	static const char *const files[] = {
		"size-0", "size-100", "size-65537", "size-300000", "sub",
		"missing", "link", "null", "dangling",
	};
	char *a = malloc(400000), *b = malloc(400000);
	int bad = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(files); i++)
		for (size_t size = 0; size <= 300001; size = size * 3 + 1) {
			ssize_t ra, rb;
			int ea, eb;

			gv_backend_force(GV_BACKEND_SYNC);
			errno = 0;
			ra = readfile(dir_fd, files[i], a, size, 0);
			ea = errno;
			gv_backend_force(GV_BACKEND_URING);
			errno = 0;
			rb = readfile(dir_fd, files[i], b, size, 0);
			eb = errno;
			if (ra != rb || (ra < 0 && ea != eb) ||
			    (ra > 0 && memcmp(a, b, ra))) {
				if (!bad++)
					tap_diag("%s, %zu bytes: %zd (%s) vs "
						 "%zd (%s)", files[i], size,
						 ra, strerrorname_np(ea), rb,
						 strerrorname_np(eb));
			}
		}
	tap_is_long(bad, 0, "readfile(): uring = sync for every kind of file "
		    "and buffer size");
	free(a);
	free(b);
}

/*
 * "null": the character device /dev/null is, so that every backend meets a
 * device it must not open. Making one needs CAP_MKNOD; without it, a unix
 * socket stands in (another kind of file data: must never open), and the
 * device itself is left to the run as root.
 */
static int make_null(int dfd, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (!mknodat(dfd, "null", S_IFCHR | 0666, makedev(1, 3)))
		return 0;
	if (errno != EPERM)
		return -1;
	tap_diag("no CAP_MKNOD: \"null\" is a unix socket here, not a "
		 "device; the device case needs root");
	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/null",
			     path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int main(void)
{
	char *data = malloc(300000);

	/*
	 * the choice between sync and uring, even where native is there, by
	 * auto's priors (a cold batch on another fs goes to uring)
	 */
	gv_backend_auto_native(false);
	gv_cost_test_mode(GV_COST_PRIORS);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled, filtered, or closing direct descriptors "
			     "late as Linux 6.1 does)");
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || mprotect(region + REGION - PAGE, PAGE,
					     PROT_NONE) ||
	    mprotect(region + REGION - 2 * PAGE, PAGE, PROT_READ) ||
	    mprotect(region + REGION - 4 * PAGE, PAGE, PROT_NONE))
		tap_bail("mmap: %s", strerror(errno));
	/* on a disk file system, so that auto has something to decide */
	dir_path = t_tmpdir("parity");
	dir_fd = open(dir_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < GV_ARRAY_SIZE(sizes); i++) {
		char name[32];

		snprintf(name, sizeof(name), "size-%zu", sizes[i]);
		t_fill_pattern(data, sizes[i], (unsigned int)i);
		t_write_file(dir_fd, name, data, sizes[i], 0644);
	}
	if (mkdirat(dir_fd, "sub", 0755) || mkdirat(dir_fd, "sub/inner", 0755) ||
	    mkfifoat(dir_fd, "fifo", 0644) ||
	    make_null(dir_fd, dir_path) ||
	    symlinkat("size-100", dir_fd, "link") ||
	    symlinkat("nowhere", dir_fd, "dangling") ||
	    symlinkat("/sub", dir_fd, "abs") ||
	    symlinkat("../../../../../../etc", dir_fd, "climb") ||
	    symlinkat("loop", dir_fd, "loop") ||
	    t_write_file(dir_fd, "sub/file", "inner", 5, 0644) ||
	    t_write_file(dir_fd, "unreadable", "secret", 6, 0))
		tap_bail("scratch files: %s", strerror(errno));
	free(data);

	test_sizes();
	test_fits();
	test_kinds();
	test_bad_buffers();
	test_overlaps();
	test_many();
	test_pseudo_fs();
	test_random();
	test_readfile();
	t_sub("a mount beneath $ORIGIN", 60, test_mount, NULL);
	return tap_done();
}
