// SPDX-License-Identifier: GPL-2.0
/*
 * failnth.c - readfile(2) and getvalues(2) under fault injection: each call
 * of a representative set runs with /proc/thread-self/fail-nth = 1, 2, ...
 * (the n-th allocation or user copy of the call fails) until a run injects
 * no fault, and every run is checked: an errno of the documented set, the
 * entries' output fields consistent with a run without faults, nothing
 * written beyond the entries handled, no descriptor left open.
 *
 * Runs as root in the kcheck guest, whose kernel has CONFIG_FAILSLAB,
 * CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_USERCOPY; it sets the
 * attributes in debugfs itself. The console shows no kernel trace for an
 * injected fault (verbose=0); kcheck tells the allocation failure reports
 * of this run from the others by the markers it writes to /dev/kmsg.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "entry.h"

#define MAX_ENTRIES	32
#define BUF_SIZE	65536
#define MAX_RUNS	100000		/* fault points of one call, at most */
#define SENTINEL_ERR	0xfa11u

/* where the kernel put the value of entry @e (struct gv_entry: entry.h) */
#define OUT(e)	((const char *)(uintptr_t)(e)->value_out.base)

/* One call of the set. */
struct call {
	const char *title;
	bool readfile;
	const char *origin;		/* relative to the scratch directory */
	const char *names[MAX_ENTRIES];	/* getvalues */
	const char *path;		/* readfile */
};

static const struct call calls[] = {
	{ "readfile of a small file", true, .path = "f" },
	{ "readfile of a procfs file", true, .path = "/proc/self/status" },
	{ "readfile of a big file", true, .path = "big" },
	{ "getvalues: every group", false, ".", .names = {
	    "", "mnt:id", ":root", ":mountpoint", ":options", ":source",
	    ":superopts", ":fstype", ":propagate_from", "mntns",
	    "xattr", "xattr:user.k", "xattr:system.posix_acl_access",
	    "data:f", "data:l", "data:d/g", "dir:d", "dir:", "stat:size:f",
	    "stat:ino:l", "lstat:type:l", "stat:mtime:d/g", "fs:type",
	    ":flags", "data:big", "data:missing" } },
	{ "getvalues: a process", false, "/proc/self", .names = {
	    "stat:ino:fd/0", ":size:fd/1", "data:status", "dir:fd",
	    "data:exe", "stat:type:cwd", "data:mountinfo" } },
	{ "getvalues: mounts by ID", false, ".", .names = {
	    "mnt:id", "mntns:1", "mntns:1:root", ":mountpoint", ":options",
	    ":superopts", "mntns:2:source" } },
};

static char scratch[256];
static int scratchfd, nthfd;
static char *bufs[2];
static unsigned long total_runs, total_faults, findings;
/* what the runs with a fault gave */
static unsigned long call_enomem, call_efault, entry_efault, as_without;

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void finding(const char *title, unsigned int n, const char *fmt, ...)
{
	va_list ap;

	findings++;
	if (findings > 50)
		return;
	printf("# %s, fault %u: ", title, n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void put(const char *path, const char *val)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "/sys/kernel/debug/%s", path);
	fd = open(p, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(p);
	close(fd);
}

static void setup_faults(void)
{
	static const char *const attrs[] = {
		"failslab", "fail_page_alloc", "fail_usercopy",
	};

	for (size_t i = 0; i < sizeof(attrs) / sizeof(*attrs); i++) {
		char p[64];

		snprintf(p, sizeof(p), "%s/verbose", attrs[i]);
		put(p, "0");
		snprintf(p, sizeof(p), "%s/probability", attrs[i]);
		put(p, "0");
		snprintf(p, sizeof(p), "%s/times", attrs[i]);
		put(p, "-1");
	}
	put("failslab/ignore-gfp-wait", "N");
	put("fail_page_alloc/ignore-gfp-wait", "N");
	put("fail_page_alloc/ignore-gfp-highmem", "N");
	put("fail_page_alloc/min-order", "0");
	nthfd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nthfd < 0)
		die("/proc/thread-self/fail-nth");
}

static void setup_tree(void)
{
	const char *tmp = getenv("TMPDIR");
	char big[20000];
	int fd;

	snprintf(scratch, sizeof(scratch), "%s/failnth.XXXXXX",
		 tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		die("mkdtemp");
	scratchfd = open(scratch, O_RDONLY | O_DIRECTORY);
	if (scratchfd < 0 || mkdirat(scratchfd, "d", 0755) ||
	    symlinkat("f", scratchfd, "l"))
		die("scratch tree");
	fd = openat(scratchfd, "f", O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6)
		die("f");
	fsetxattr(fd, "user.k", "value", 5, 0);
	close(fd);
	fd = openat(scratchfd, "d/g", O_WRONLY | O_CREAT, 0644);
	close(fd);
	memset(big, 'b', sizeof(big));
	fd = openat(scratchfd, "big", O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, big, sizeof(big)) != sizeof(big))
		die("big");
	close(fd);
	for (int i = 0; i < 2; i++) {
		bufs[i] = malloc(BUF_SIZE);
		if (!bufs[i])
			die("malloc");
	}
}

/* What one run gave: the return value, errno and the entries. */
struct result {
	long ret;
	int err;
	size_t n;
	struct gv_entry v[MAX_ENTRIES];
	char *buf;
};

static void run(const struct call *c, struct result *r, char *buf)
{
	int dfd = c->origin && *c->origin == '/' ? AT_FDCWD : scratchfd;
	const char *path = c->readfile ? c->path : c->origin;

	if (*path == '/')
		dfd = AT_FDCWD;
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	memset(buf, 0, BUF_SIZE);
	if (c->readfile) {
		r->ret = syscall(NR_READFILE, dfd, path, buf, BUF_SIZE, 0);
		r->err = r->ret < 0 ? errno : 0;
		return;
	}
	for (r->n = 0; r->n < MAX_ENTRIES && c->names[r->n]; r->n++) {
		r->v[r->n].name = PTR(c->names[r->n]);
		r->v[r->n].value_out.base = 0xdead;
		r->v[r->n].value_out.len = 0xbeef;
		r->v[r->n].error = SENTINEL_ERR;
	}
	r->v[0].value_in.base = PTR(buf);
	r->v[0].value_in.len = BUF_SIZE;
	r->ret = syscall(NR_GETVALUES, dfd, path, r->v, r->n, sizeof(r->v[0]),
			 0);
	r->err = r->ret < 0 ? errno : 0;
}

static bool untouched(const struct gv_entry *v)
{
	return v->value_out.base == 0xdead &&
	       v->value_out.len == 0xbeef && v->error == SENTINEL_ERR;
}

static bool in_buf(const struct result *r, const struct gv_entry *v)
{
	const char *p = OUT(v);

	return p >= r->buf && p + v->value_out.len <= r->buf + BUF_SIZE;
}

/* A run with an injected fault against the run without. */
static void check(const struct call *c, unsigned int n,
		  const struct result *ref, const struct result *r)
{
	bool deviated = false;
	unsigned long before = entry_efault;

	if (r->ret < 0 && r->err == ENOMEM)
		call_enomem++;
	else if (r->ret < 0 && r->err == EFAULT)
		call_efault++;
	if (c->readfile) {
		if (r->ret >= 0)
			as_without++;
		/* a procfs file may change between runs (ctxt switches) */
		if (r->ret >= 0 && strncmp(c->path, "/proc/", 6) &&
		    (r->ret != ref->ret || memcmp(r->buf, ref->buf, r->ret)))
			finding(c->title, n, "returned %ld bytes, want %ld",
				r->ret, ref->ret);
		if (r->ret < 0 && r->err != ENOMEM && r->err != EFAULT)
			finding(c->title, n, "errno %d (%s)", r->err,
				strerror(r->err));
		return;
	}
	if (r->ret < 0 && r->err != ENOMEM && r->err != EFAULT)
		finding(c->title, n, "errno %d (%s)", r->err, strerror(r->err));
	if (r->ret >= 0 && (size_t)r->ret != r->n)
		finding(c->title, n, "returned %ld of %zu", r->ret, r->n);
	for (size_t i = 0; i < r->n; i++) {
		const struct gv_entry *v = &r->v[i], *w = &ref->v[i];

		if (untouched(v)) {
			if (r->ret >= 0)
				finding(c->title, n, "entry %zu not written", i);
			deviated = true;	/* the call failed before it */
			continue;
		}
		if (deviated && r->ret >= 0) {
			/* a fault on an earlier name: shorthand lost its prefix */
			if (v->error == w->error ||
			    (v->error == EINVAL && c->names[i][0] == ':'))
				continue;
		}
		if (v->error != w->error) {
			if (v->error == EFAULT && !deviated) {
				deviated = true;	/* the injected fault */
				entry_efault++;
				continue;
			}
			if (v->error == EINVAL && deviated &&
			    c->names[i][0] == ':')
				continue;
			finding(c->title, n, "entry %zu (%s): error %u, want %u",
				i, c->names[i], v->error, w->error);
			continue;
		}
		if (v->error) {
			if (v->value_out.len)
				finding(c->title, n, "entry %zu: error with a value",
					i);
			continue;
		}
		if (!in_buf(r, v) || v->value_out.len != w->value_out.len ||
		    memcmp(OUT(v), OUT(w), v->value_out.len)) {
			/* mntns lists and procfs files may change between runs */
			if (strstr(c->names[i], "mntns") ||
			    !strcmp(c->names[i], "data:status") ||
			    !strcmp(c->names[i], "data:mountinfo"))
				continue;
			finding(c->title, n, "entry %zu (%s): value differs", i,
				c->names[i]);
		}
	}
	if (r->ret >= 0 && entry_efault == before)
		as_without++;
}

static int lowest_free_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static void nth_set(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	/*
	 * Writing 0 after a call that did not use up the count is itself a
	 * fault point, which may then be the one that fails: fine, the count
	 * is 0 either way.
	 */
	if (pwrite(nthfd, s, len, 0) != len && !(n == 0 && errno == EFAULT))
		die("write fail-nth");
}

/* Whether the fault was injected: the count went down to 0 in the call. */
static bool nth_injected(void)
{
	char s[16] = "";

	/*
	 * The copy of this read is a fault point too: if the call left the
	 * count at 1, this read fails (EFAULT), and the call did not inject.
	 */
	if (pread(nthfd, s, sizeof(s) - 1, 0) < 0) {
		if (errno == EFAULT)
			return false;
		die("read fail-nth");
	}
	return strtoul(s, NULL, 10) == 0;
}

static void kmsg(const char *msg)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, msg, strlen(msg)) < 0)
			perror("/dev/kmsg");
		close(fd);
	}
}

int main(void)
{
	static struct result ref, r;
	size_t ncalls = sizeof(calls) / sizeof(*calls);
	int fd0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", ncalls);
	if (geteuid() != 0 ||
	    access("/sys/kernel/debug/failslab", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK)) {
		for (size_t i = 0; i < ncalls; i++)
			printf("ok %zu - %s # SKIP needs root, debugfs and CONFIG_FAULT_INJECTION\n",
			       i + 1, calls[i].title);
		return 0;
	}
	setup_tree();
	setup_faults();
	fd0 = lowest_free_fd();
	kmsg("kcheck: fault injection begins\n");
	for (size_t i = 0; i < ncalls; i++) {
		const struct call *c = &calls[i];
		unsigned long runs = 0, faults = 0, before = findings;
		unsigned int n;

		run(c, &ref, bufs[0]);
		if (ref.ret < 0)
			finding(c->title, 0, "fails without a fault: %s",
				strerror(ref.err));
		for (n = 1; n < MAX_RUNS; n++) {
			bool injected;

			nth_set(n);
			run(c, &r, bufs[1]);
			injected = nth_injected();
			nth_set(0);
			runs++;
			if (lowest_free_fd() != fd0)
				finding(c->title, n, "a descriptor was left open");
			if (!injected)
				break;
			faults++;
			check(c, n, &ref, &r);
		}
		total_runs += runs;
		total_faults += faults;
		printf("%sok %zu - %s: %lu runs, %lu faults injected, %lu findings\n",
		       findings == before ? "" : "not ", i + 1, c->title, runs,
		       faults, findings - before);
	}
	kmsg("kcheck: fault injection ends\n");
	printf("# fault injection: %zu calls, %lu runs, %lu faults injected, %lu findings\n",
	       ncalls, total_runs, total_faults, findings);
	printf("# with a fault: the call failed with ENOMEM %lu times, EFAULT %lu; an entry got EFAULT %lu times; the same values as without %lu times\n",
	       call_enomem, call_efault, entry_efault, as_without);
	return findings ? 1 : 0;
}
