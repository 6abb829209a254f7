// SPDX-License-Identifier: MIT
/*
 * uaccess.c - getvalues() gives the same answers, bad pointers included,
 * when process_vm_readv/writev are unavailable (a kernel without
 * CONFIG_CROSS_MEMORY_ATTACH, a container's seccomp profile) and the
 * library copies through a pipe instead, and when vmsplice(2) is refused
 * too and the pipe is filled by write(2); and it leaves no descriptor
 * behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"

#define BIG (300 * 1024)	/* larger than any pipe's default capacity */

static int dir;
static char *page;		/* page[0..4096) read-write, then PROT_NONE */
static char *ro;		/* a read-only page */
/*
 * Vectors of MANY entries, whose results the pipe takes in one piece:
 * one that can be written, and one whose last entries lie on a page that
 * can only be read.
 */
#define MANY 200
static struct name_val *many, *many_ro;

/* A transcript of one call: return value, errno, every entry's outcome. */
struct transcript {
	char *buf;
	size_t len, cap;
};

static void tr_add(struct transcript *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			tap_bail("out of memory");
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static void tr_call(struct transcript *t, struct name_val *v, int n,
		    unsigned int flags)
{
	int ret, err, count = n;

	errno = 0;
	ret = getvalues(dir, "", v, n, flags | AT_EMPTY_PATH);
	err = ret < 0 ? errno : 0;
	tr_add(t, &ret, sizeof(ret));
	tr_add(t, &err, sizeof(err));
	if (ret < 0)
		return;
	if (ret < n)
		count = ret + 1;
	for (int i = 0; i < count; i++) {
		size_t len = v[i].value_out.iov_len;

		tr_add(t, &v[i].error, sizeof(v[i].error));
		tr_add(t, &len, sizeof(len));
		if (len)
			tr_add(t, v[i].value_out.iov_base, len);
	}
}

static char *many_ro_page;	/* the last page of many_ro */

/*
 * Fill a vector of MANY entries: "stat:size" then ":ino", ":size"...,
 * every error set to what no call gives, so that a result not written
 * shows.
 */
static void many_fill(struct name_val *v)
{
	static char buf[MANY * 24];

	for (int i = 0; i < MANY; i++)
		v[i] = (struct name_val){
			.name = i ? (i % 2 ? ":ino" : ":size") : "stat:size",
			.error = 0xdead };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
}

static void many_refill(void)
{
	many_fill(many);
	if (mprotect(many_ro_page, 4096, PROT_READ | PROT_WRITE))
		tap_bail("mprotect");
	many_fill(many_ro);
	if (mprotect(many_ro_page, 4096, PROT_READ))
		tap_bail("mprotect");
}

static void many_setup(void)
{
	const size_t size = MANY * sizeof(struct name_val);
	size_t len = (size + 4095) / 4096 * 4096;
	char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, len + 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED || b == MAP_FAILED)
		tap_bail("mmap");
	many = (struct name_val *)(a + len) - MANY;
	/* the last 40 entries on the last page */
	many_ro_page = b + len;
	many_ro = (struct name_val *)(many_ro_page +
				      40 * sizeof(struct name_val)) - MANY;
}

/* The same calls, whatever copies the memory. */
static void scenarios(struct transcript *t)
{
	static char buf[BIG + 4096], small[64];
	char *name_at_edge = page + 4096 - sizeof("stat:size");

	/* a shared buffer, shorthand, listings, a big file */
	struct name_val a[] = {
		{ .name = "stat:size", .value_in = { buf, sizeof(buf) } },
		{ .name = ":mode" },
		{ .name = "dir:" },
		{ .name = "data:big" },
		{ .name = "data:small" },
		{ .name = "xattr" },
		{ .name = "fs:type" },
	};
	tr_call(t, a, 7, 0);

	/* a name that ends on the last readable byte, one that runs on */
	memcpy(name_at_edge, "stat:size", sizeof("stat:size"));
	memset(page + 4096 - 8, 'x', 8);
	struct name_val b[] = {
		{ .name = "stat:ino", .value_in = { small, sizeof(small) } },
		{ .name = page + 4096 - 8 },
		{ .name = ":ino" },
		{ .name = (const char *)(page + 4096) },
		{ .name = "stat:nlink" },
	};
	tr_call(t, b, 5, 0);
	memcpy(name_at_edge, "stat:size", sizeof("stat:size"));
	struct name_val b2[] = {
		{ .name = name_at_edge, .value_in = { small, sizeof(small) } },
	};
	tr_call(t, b2, 1, 0);

	/* value buffers that cannot be written, or only partly */
	struct name_val c[] = {
		{ .name = "data:small", .value_in = { ro, 100 } },
		{ .name = "stat:size", .value_in = { small, sizeof(small) } },
		{ .name = "data:small", .value_in = { page + 4096 - 10, 100 } },
		{ .name = "stat:uid" },
		{ .name = "data:big", .value_in = { page + 4096 - 100, BIG + 200 } },
		{ .name = "stat:gid", .value_in = { small, sizeof(small) } },
	};
	tr_call(t, c, 6, 0);

	/* a vector that cannot be read, or not written */
	tr_call(t, (struct name_val *)(page + 4096), 1, 0);
	tr_call(t, (struct name_val *)ro, 1, 0);

	/* many results at once; then the last ones cannot be written */
	many_refill();
	tr_call(t, many, MANY, 0);
	tr_call(t, many_ro, MANY, 0);

	/* overflow in a shared buffer */
	struct name_val d[] = {
		{ .name = "data:small", .value_in = { small, 20 } },
		{ .name = "data:small" },
		{ .name = "stat:size" },
	};
	tr_call(t, d, 3, 0);
}

/* What a filter refuses: process_vm_readv/writev, vmsplice, or all. */
enum { DENY_PVM = 1, DENY_VMSPLICE = 2 };

static int deny(int what, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 what & DENY_PVM ? SYS_process_vm_readv : -1u, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 what & DENY_PVM ? SYS_process_vm_writev : -1u, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 what & DENY_VMSPLICE ? SYS_vmsplice : -1u, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & 0xfff)),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* Whether the filter bites: the first call it refuses fails with @err. */
static bool denied(int what, int err)
{
	char probe[8];
	struct iovec l = { probe, sizeof(probe) };
	struct iovec r = { probe, sizeof(probe) };
	int p[2];
	bool yes;

	if (what & DENY_PVM)
		return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == -1 &&
		       errno == err;
	if (pipe(p))
		return false;
	yes = syscall(SYS_vmsplice, p[1], &l, 1, 0) == -1 && errno == err;
	close(p[0]);
	close(p[1]);
	return yes;
}

/*
 * In a child whose filter refuses @what with @err: the transcript, then a
 * word that says whether the filter really bit and whether descriptors
 * leaked.
 */
static void run_filtered(int what, int err, struct transcript *t,
			 int *checks)
{
	int pfd[2], status = 0;
	char chunk[65536];
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		struct transcript mine = { 0 };
		int word = 0, before;

		close(pfd[0]);
		if (deny(what, err))
			_exit(3);
		if (denied(what, err))
			word |= 1;
		before = t_count_fds();
		scenarios(&mine);
		if (t_count_fds() == before)
			word |= 2;
		if (write(pfd[1], &word, sizeof(word)) != sizeof(word) ||
		    write(pfd[1], mine.buf, mine.len) != (ssize_t)mine.len)
			_exit(4);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], checks, sizeof(*checks)) != sizeof(*checks))
		*checks = -1;
	while ((n = read(pfd[0], chunk, sizeof(chunk))) > 0)
		tr_add(t, chunk, n);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_diag("filtered child exited with status %#x", status);
}

int main(void)
{
	static char big[BIG];
	struct transcript direct = { 0 };
	int ret, err;
	const struct { int what, err; } filters[] = {
		{ DENY_PVM, ENOSYS }, { DENY_PVM, EPERM },
		{ DENY_VMSPLICE, EPERM }, { DENY_PVM | DENY_VMSPLICE, ENOSYS },
	};
	const char *const what[] = {
		NULL, "process_vm_*", "vmsplice", "process_vm_* and vmsplice",
	};

	dir = t_tmpdir_fd("uaccess");
	t_fill_pattern(big, sizeof(big), 11);
	if (t_write_file(dir, "big", big, sizeof(big), 0644) ||
	    t_write_file(dir, "small", "small file\n", 11, 0644))
		tap_bail("setup");
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || ro == MAP_FAILED ||
	    mprotect(page + 4096, 4096, PROT_NONE))
		tap_bail("mmap");

	many_setup();

	scenarios(&direct);
	tap_ok(direct.len > BIG, "the calls ran (%zu bytes of transcript)",
	       direct.len);
	tap_ok(many[MANY - 1].error == 0 && many[MANY - 1].value_out.iov_len,
	       "%d entries: the last one has its value (error %d)", MANY,
	       many[MANY - 1].error);
	many_refill();
	errno = 0;
	ret = getvalues(dir, "", many_ro, MANY, AT_EMPTY_PATH);
	err = errno;
	tap_ok(ret == -1 && err == EFAULT, "%d entries, the last results on "
	       "a read-only page: EFAULT (%d, %s)", MANY, ret,
	       strerrorname_np(err));
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		struct transcript piped = { 0 };
		const char *w = what[filters[i].what];
		const char *e = strerrorname_np(filters[i].err);
		int checks = 0;

		run_filtered(filters[i].what, filters[i].err, &piped, &checks);
		tap_ok(checks >= 0 && (checks & 1),
		       "seccomp makes %s fail with %s", w, e);
		tap_is_mem(piped.buf, piped.len, direct.buf, direct.len,
			   "%s failing with %s: the same values and errors",
			   w, e);
		tap_ok(checks >= 0 && (checks & 2),
		       "%s failing with %s: no descriptor left behind", w, e);
		free(piped.buf);
	}
	free(direct.buf);
	return tap_done();
}
