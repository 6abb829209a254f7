// SPDX-License-Identifier: MIT
/*
 * uaccess.c - getvalues() gives the same answers, bad pointers included,
 * when process_vm_readv/writev are unavailable (a kernel without
 * CONFIG_CROSS_MEMORY_ATTACH, a container's seccomp profile) and the
 * library copies through a pipe instead; and it leaves no descriptor behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
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

	/* overflow in a shared buffer */
	struct name_val d[] = {
		{ .name = "data:small", .value_in = { small, 20 } },
		{ .name = "data:small" },
		{ .name = "stat:size" },
	};
	tr_call(t, d, 3, 0);
}

static int deny_process_vm(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & 0xfff)),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * In a child that cannot use process_vm_*: the transcript, then a word that
 * says whether the filter really bit and whether descriptors leaked.
 */
static void run_filtered(int err, struct transcript *t, int *checks)
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
		char probe[8];
		struct iovec l = { probe, sizeof(probe) };
		struct iovec r = { probe, sizeof(probe) };
		int word = 0, before;

		close(pfd[0]);
		if (deny_process_vm(err))
			_exit(3);
		if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) == -1 &&
		    errno == err)
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
	const int errs[] = { ENOSYS, EPERM };

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

	scenarios(&direct);
	tap_ok(direct.len > BIG, "the calls ran (%zu bytes of transcript)",
	       direct.len);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct transcript piped = { 0 };
		int checks = 0;

		run_filtered(errs[i], &piped, &checks);
		tap_ok(checks >= 0 && (checks & 1),
		       "seccomp makes process_vm_readv fail with %s",
		       strerrorname_np(errs[i]));
		tap_is_mem(piped.buf, piped.len, direct.buf, direct.len,
			   "process_vm_* failing with %s: the same values and errors",
			   strerrorname_np(errs[i]));
		tap_ok(checks >= 0 && (checks & 2),
		       "process_vm_* failing with %s: no descriptor left behind",
		       strerrorname_np(errs[i]));
		free(piped.buf);
	}
	free(direct.buf);
	return tap_done();
}
