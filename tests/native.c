// SPDX-License-Identifier: MIT
/*
 * native.c - the native backend: when the library uses readfile(2) and
 * getvalues(2), and that its probe goes by the content of an answer, never
 * by a return value alone.
 *
 * The running kernel decides what is expected: where system call 491
 * answers ENOSYS (every mainline kernel, this machine's included), the
 * library must never report the native backend; where it answers the
 * probe's question exactly (the kcheck guest), auto must use it. The probe
 * itself is then put before kernels that answer wrongly, faked by a seccomp
 * filter that traps the system call into a SIGSYS handler (x86_64 only).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/tap.h"
#include "lib/util.h"

#define NR_GETVALUES	491	/* x86_64, and every ABI numbered alike */

static const char groups[] = "xattr\0data\0dir\0stat\0lstat\0fs\0";
#define GROUPS_LEN	(sizeof(groups) - 1)

/* What the kernel itself says to the probe's question, asked by hand. */
static bool kernel_is_native(void)
{
	struct gv_kentry v[2] = { { .name = GV_U64("") } };
	char buf[512];
	long r;

	memset(buf, 0x5a, sizeof(buf));
	v[0].value_in = (struct gv_kbuf){ GV_U64(buf), sizeof(buf) };
	r = syscall(NR_GETVALUES, AT_FDCWD, "/", v, 1UL, sizeof(v[0]), 0U);
	tap_diag("system call %d: returns %ld%s%s", NR_GETVALUES, r,
		 r < 0 ? ", " : "", r < 0 ? strerror(errno) : "");
	return r == 1 && !v[0].error && v[0].value_out.base == GV_U64(buf) &&
	       v[0].value_out.len == GROUPS_LEN &&
	       !memcmp(buf, groups, GROUPS_LEN);
}

/* A few values through auto, then the backend that fetched them. */
static enum gv_backend_id auto_call(int dfd, char *buf, size_t size)
{
	struct name_val v[] = {
		{ .name = "data:f", .value_in = { buf, size } },
		{ .name = "stat:size:f" },
		{ .name = "fs:type" },
	};

	gv_backend_force(GV_BACKEND_AUTO);
	if (getvalues(dfd, "", v, 3, AT_EMPTY_PATH) != 3 || v[0].error)
		tap_diag("auto call: %s, entry error %u", strerror(errno),
			 v[0].error);
	return gv_backend_last();
}

/*
 * Mounts are the library's on every backend (the kernel series has no
 * mnt or mntns since v3): a vector that names one, forced onto the native
 * backend, gets the values the sync backend gives.
 */
static void test_mounts(int dfd, bool native)
{
	char buf[2][4096];
	struct name_val v[2][3];
	int ret[2];

	if (!native) {
		tap_skip(1, "mnt on the native backend: the kernel lacks getvalues(2)");
		return;
	}
	for (int b = 0; b < 2; b++) {
		struct name_val e[3] = {
			{ .name = "mnt:fstype",
			  .value_in = { buf[b], sizeof(buf[b]) } },
			{ .name = "data:f" },
			{ .name = "" },
		};

		memcpy(v[b], e, sizeof(e));
		gv_backend_force(b ? GV_BACKEND_SYNC : GV_BACKEND_NATIVE);
		ret[b] = getvalues(dfd, "", v[b], 3, AT_EMPTY_PATH);
	}
	gv_backend_force(GV_BACKEND_AUTO);
	tap_ok(ret[0] == 3 && ret[1] == 3 && !v[0][0].error &&
	       !v[0][1].error && !v[0][2].error &&
	       v[0][0].value_out.iov_len == v[1][0].value_out.iov_len &&
	       !memcmp(buf[0], buf[1], (size_t)((char *)v[1][2].value_out.iov_base +
						v[1][2].value_out.iov_len - buf[1])),
	       "mnt and the list of groups on the native backend: as sync gives them");
}

static void test_selection(bool native)
{
	int dfd = t_tmpdir_fd("native");
	char buf[4096], rbuf[64];
	struct name_val v[] = {
		{ .name = "data:f", .value_in = { buf, sizeof(buf) } },
	};
	int ret;

	if (t_write_file(dfd, "f", "contents\n", 9, 0644))
		tap_bail("write f: %s", strerror(errno));
	tap_ok(!gv_backend_usable(GV_BACKEND_NATIVE) == native,
	       "the library says %s, as the kernel's answer does",
	       native ? "native" : "not native");
	tap_ok((auto_call(dfd, buf, sizeof(buf)) == GV_BACKEND_NATIVE) ==
	       native, "auto %s the native system call",
	       native ? "takes" : "never takes");

	gv_backend_force(GV_BACKEND_NATIVE);
	errno = 0;
	ret = getvalues(dfd, "", v, 1, AT_EMPTY_PATH);
	if (native)
		tap_ok(ret == 1 && !v[0].error &&
		       gv_backend_last() == GV_BACKEND_NATIVE &&
		       v[0].value_out.iov_len == 9 &&
		       !memcmp(buf, "contents\n", 9),
		       "GETVALUES_BACKEND=native: getvalues(2) answers");
	else
		tap_is_errno(ret, errno, -1, ENOSYS,
			     "GETVALUES_BACKEND=native: getvalues() ENOSYS");
	errno = 0;
	ret = readfile(dfd, "f", rbuf, sizeof(rbuf), 0);
	if (native)
		tap_ok(ret == 9 && !memcmp(rbuf, "contents\n", 9),
		       "GETVALUES_BACKEND=native: readfile(2) answers");
	else
		tap_is_errno(ret, errno, -1, ENOSYS,
			     "GETVALUES_BACKEND=native: readfile() ENOSYS");
	test_mounts(dfd, native);
	if (native) {
		ret = readfile(dfd, "missing", rbuf, sizeof(rbuf), 0);
		tap_is_errno(ret, errno, -1, ENOENT,
			     "GETVALUES_BACKEND=native: readfile(2) errors");
	} else {
		tap_skip(1, "readfile(2) errors: the kernel lacks readfile(2)");
	}
	gv_backend_force(GV_BACKEND_AUTO);
	close(dfd);
}

/* ---- the probe before kernels that answer wrongly ---- */

enum fake {
	FAKE_EXACT,		/* what a kernel with the series answers */
	FAKE_ONE_NO_WRITE,	/* returns 1, writes nothing */
	FAKE_TWO,		/* returns 2 */
	FAKE_EPERM,		/* -1, EPERM */
	FAKE_SHORT,		/* one byte less of the list */
	FAKE_ONE_MORE,		/* one byte more in the buffer */
	FAKE_OTHER_PLACE,	/* value_out not at the buffer's start */
	FAKE_ERROR_SET,		/* the right bytes, but error set */
	FAKE_NEXT_ENTRY,	/* the right answer, and vec[1] written too */
	FAKE_NAME_MOVED,	/* the right answer, and vec[0].name changed */
};

static volatile sig_atomic_t trapped;
static enum fake fake;

#ifdef __x86_64__
static void sigsys(int sig, siginfo_t *si, void *ctx)
{
	greg_t *regs = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	struct gv_kentry *v = (struct gv_kentry *)regs[REG_RDX];
	char *buf = (char *)(uintptr_t)v[0].value_in.base;
	long ret = 1;

	(void)sig;
	(void)si;
	trapped++;
	if (regs[REG_R8] != sizeof(*v)) {	/* the entry size */
		regs[REG_RAX] = -EINVAL;
		return;
	}
	switch (fake) {
	case FAKE_ONE_NO_WRITE:
		break;
	case FAKE_TWO:
		ret = 2;
		break;
	case FAKE_EPERM:
		ret = -EPERM;
		break;
	default:
		memcpy(buf, groups, GROUPS_LEN);
		v[0].value_out.base = GV_U64(buf);
		v[0].value_out.len = GROUPS_LEN;
		if (fake == FAKE_SHORT)
			v[0].value_out.len--;
		if (fake == FAKE_ONE_MORE)
			buf[GROUPS_LEN] = 0;
		if (fake == FAKE_OTHER_PLACE)
			v[0].value_out.base = GV_U64(buf + 1);
		if (fake == FAKE_ERROR_SET)
			v[0].error = EIO;
		if (fake == FAKE_NEXT_ENTRY)
			v[1].error = EIO;
		if (fake == FAKE_NAME_MOVED)
			v[0].name = GV_U64(groups);
		break;
	}
	regs[REG_RAX] = ret;
}

/* Every call of system call @nr traps into sigsys(). */
static int trap_syscall(long nr)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { GV_ARRAY_SIZE(code), code };
	struct sigaction sa = { .sa_sigaction = sigsys,
				.sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * In a child: the probe, forced or not, before the fake kernel. Exit
 * status: 0 native, 1 not native, 2 the probe was not even made, 3 the
 * filter could not be installed.
 */
static int probe_child(enum fake f, bool force)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fake = f;
		if (trap_syscall(NR_GETVALUES))
			_exit(3);
		if (gv_native_probe_nr(NR_GETVALUES, force) == 0)
			_exit(0);
		_exit(trapped ? 1 : 2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_probe(void)
{
	static const struct {
		enum fake fake;
		const char *what;
	} wrong[] = {
		{ FAKE_ONE_NO_WRITE, "returns 1 and writes nothing" },
		{ FAKE_TWO, "returns 2" },
		{ FAKE_EPERM, "fails with EPERM" },
		{ FAKE_SHORT, "says one byte less" },
		{ FAKE_ONE_MORE, "writes one byte more" },
		{ FAKE_OTHER_PLACE, "puts the value elsewhere" },
		{ FAKE_ERROR_SET, "sets the entry's error" },
		{ FAKE_NEXT_ENTRY, "writes the next entry too" },
		{ FAKE_NAME_MOVED, "changes the name pointer" },
	};
	int r = probe_child(FAKE_EXACT, true);

	if (r == 3) {
		tap_skip(GV_ARRAY_SIZE(wrong) + 2,
			 "cannot install a seccomp filter here");
		return;
	}
	tap_is_long(r, 0, "a kernel that answers exactly: native "
		    "(the check can pass)");
	tap_is_long(probe_child(FAKE_EXACT, false), 2,
		    "under a seccomp filter the probe is not even made, "
		    "unless forced");
	for (size_t i = 0; i < GV_ARRAY_SIZE(wrong); i++)
		tap_is_long(probe_child(wrong[i].fake, true), 1,
			    "a kernel that %s: not native", wrong[i].what);
}
#else
static void test_probe(void)
{
	tap_skip(11, "the faked kernels are written for x86_64");
}
#endif

int main(void)
{
	bool native = kernel_is_native();

	tap_plan(17);
	tap_diag("this kernel %s getvalues(2)", native ? "has" : "lacks");
	test_selection(native);
	test_probe();
	return tap_done();
}
