// SPDX-License-Identifier: MIT
/*
 * data_shortcut.c - the shortcut of src/data_open.c: data: opens a file by name
 * (openat2 without O_PATH) only on procfs, sysfs and cgroupfs, which hold
 * no devices, FIFOs or sockets, and pins the last component first (an
 * O_PATH openat2) everywhere else. Seen from outside: one data: call made
 * in a child traced with ptrace(2), its openat2 calls looked at. And the
 * guarantee where the shortcut is taken: something mounted over a procfs
 * file (a FIFO with a writer waiting) is not reached (EXDEV), the writer
 * never sees a reader; a sysfs symlink is read as a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "internal.h"
#include "lib/fifo.h"
#include "lib/mounts.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

/* What the openat2 calls of one data: call looked like. */
struct seen {
	int by_name;	/* openat2 of the name itself, not O_PATH */
	int pinned;	/* openat2 with O_PATH|O_NOFOLLOW */
};

/* Read the open_how at @addr in traced child @pid. */
/*
 * The tracee's struct open_how, word by word with PTRACE_PEEKDATA, which
 * every kernel has (process_vm_readv(2) needs CONFIG_CROSS_MEMORY_ATTACH).
 */
static bool how_of(pid_t pid, uint64_t addr, struct open_how *how)
{
	long words[(sizeof(*how) + sizeof(long) - 1) / sizeof(long)];

	for (size_t i = 0; i < GV_ARRAY_SIZE(words); i++) {
		errno = 0;
		words[i] = ptrace(PTRACE_PEEKDATA, pid,
				  (void *)(uintptr_t)(addr + i * sizeof(long)),
				  NULL);
		if (errno)
			return false;
	}
	memcpy(how, words, sizeof(*how));
	return true;
}

/*
 * getvalues(@origin, "data:@name") in a child under ptrace(2), through
 * @backend: count its openat2 calls of either kind. false if it cannot be
 * traced.
 */
static bool trace_data(const char *origin, const char *name,
		       enum gv_backend_id backend, struct seen *s)
{
	struct __ptrace_syscall_info info;
	char entry[300];
	int status;
	pid_t pid;

	*s = (struct seen){ 0 };
	snprintf(entry, sizeof(entry), "data:%s", name);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		char buf[65536];
		struct name_val v = { .name = entry,
				      .value_in = { buf, sizeof(buf) } };

		gv_backend_force(backend);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(127);
		_exit(getvalues(AT_FDCWD, origin, &v, 1, 0) == 1 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD |
		   PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return false;
	}
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		struct open_how how;

		if (WSTOPSIG(status) == (SIGTRAP | 0x80) &&
		    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
			   &info) > 0 &&
		    info.op == PTRACE_SYSCALL_INFO_ENTRY &&
		    info.entry.nr == SYS_openat2 &&
		    how_of(pid, info.entry.args[2], &how)) {
			if ((how.flags & (O_PATH | O_NOFOLLOW)) ==
			    (O_PATH | O_NOFOLLOW))
				s->pinned++;
			else if (!(how.flags & (O_PATH | O_DIRECTORY)))
				s->by_name++;
		}
		ptrace(PTRACE_SYSCALL, pid, 0, 0);
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

static void expect_way(const char *what, const char *origin,
		       const char *name, bool shortcut)
{
	static const enum gv_backend_id backends[] = { GV_BACKEND_SYNC,
						       GV_BACKEND_URING };
	struct seen s;

	for (size_t k = 0; k < GV_ARRAY_SIZE(backends); k++) {
		const char *be = k ? "uring" : "sync";

		if (backends[k] == GV_BACKEND_URING &&
		    gv_backend_usable(GV_BACKEND_URING)) {
			tap_skip(1, "%s: io_uring is not usable here", what);
			continue;
		}
		if (!trace_data(origin, name, backends[k], &s)) {
			tap_skip(1, "%s (%s): cannot trace a child here", what,
				 be);
			continue;
		}
		/* through io_uring the open by name is the ring's, unseen */
		if (shortcut)
			tap_ok(!s.pinned && (s.by_name ||
					     backends[k] == GV_BACKEND_URING),
			       "%s (%s): opened by name, nothing pinned "
			       "(%d, %d)", what, be, s.by_name, s.pinned);
		else
			tap_ok(s.pinned && !s.by_name,
			       "%s (%s): pinned first, never opened by name "
			       "(%d, %d)", what, be, s.pinned, s.by_name);
	}
}

static void test_classes(void)
{
	const char *top = t_tmpdir("shortcut");
	struct statfs sfs;
	char what[64];
	int dir;

	expect_way("procfs", "/proc/self", "stat", true);
	expect_way("sysfs", "/sys/kernel", "uevent_seqnum", true);
	if (!statfs("/sys/fs/cgroup", &sfs) &&
	    (sfs.f_type == CGROUP2_SUPER_MAGIC ||
	     sfs.f_type == CGROUP_SUPER_MAGIC))
		expect_way("cgroupfs", "/sys/fs/cgroup", "cgroup.controllers",
			   true);
	else
		tap_skip(2, "no cgroupfs at /sys/fs/cgroup");
	dir = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || t_write_file(dir, "file", "x", 1, 0644) ||
	    statfs(top, &sfs))
		tap_bail("%s: %s", top, strerror(errno));
	snprintf(what, sizeof(what), "$TMPDIR (%s)",
		 sfs.f_type == TMPFS_MAGIC ? "tmpfs" :
		 sfs.f_type == EXT4_SUPER_MAGIC ? "ext4" : "other");
	expect_way(what, top, "file", false);
	if (!statfs("/dev/shm", &sfs) && sfs.f_type == TMPFS_MAGIC &&
	    !t_write_file(AT_FDCWD, "/dev/shm/gv-shortcut", "x", 1, 0600)) {
		expect_way("/dev/shm (tmpfs)", "/dev/shm", "gv-shortcut",
			   false);
		unlink("/dev/shm/gv-shortcut");
	} else {
		tap_skip(2, "no tmpfs at /dev/shm");
	}
	close(dir);
}

/*
 * A FIFO bind-mounted over a procfs file, a writer blocked in its open:
 * data: of that file must not cross into the mount (EXDEV), and so never
 * open the FIFO, which would let the writer through.
 */
static void fifo_over_proc(void *arg)
{
	const char *top = arg;
	char fifo[4200], target[64];
	struct name_val v;
	char buf[256];
	int r;
	pid_t writer;
	const char *why;
	bool userns;

	if ((why = t_private_mounts(&userns))) {
		tap_skip(2, "no private mount namespace: %s", why);
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", top);
	if (mkfifo(fifo, 0600) && errno != EEXIST)
		tap_bail("mkfifo: %s", strerror(errno));
	snprintf(target, sizeof(target), "/proc/%d/environ", (int)getpid());
	if (mount(fifo, target, NULL, MS_BIND, NULL)) {
		tap_skip(2, "cannot mount over procfs here: %s",
			 strerror(errno));
		return;
	}
	writer = t_fifo_writer(AT_FDCWD, fifo, NULL, 0);
	snprintf(target, sizeof(target), "/proc/%d", (int)getpid());
	v = (struct name_val){ .name = "data:environ",
			       .value_in = { buf, sizeof(buf) } };
	r = getvalues(AT_FDCWD, target, &v, 1, 0);
	tap_ok(r == 1 && v.error == EXDEV,
	       "procfs: a FIFO mounted over a file: EXDEV (got %d, error %u)",
	       r, v.error);
	usleep(100 * 1000);	/* time for a writer let through to leave */
	tap_ok(t_in_openat(writer),
	       "procfs: ... and the FIFO's writer still waits for a reader");
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	umount2(target, MNT_DETACH);
}

/* sysfs: a symlink beneath $ORIGIN is read as a link, never followed. */
static void test_sysfs_link(void)
{
	char want[4096], buf[4096];
	struct name_val v = { .name = "data:subsystem",
			      .value_in = { buf, sizeof(buf) } };
	ssize_t n = readlink("/sys/class/net/lo/subsystem", want,
			     sizeof(want));
	int r;

	if (n < 0) {
		tap_skip(1, "no /sys/class/net/lo/subsystem: %s",
			 strerror(errno));
		return;
	}
	r = getvalues(AT_FDCWD, "/sys/class/net/lo", &v, 1, 0);
	tap_ok(r == 1 && !v.error && v.value_out.iov_len == (size_t)n &&
	       !memcmp(buf, want, n),
	       "sysfs: a symlink is read as a link (its target, %zd bytes)",
	       n);
}

int main(void)
{
	const char *top = t_tmpdir("shortcut-fifo");

	test_classes();
	t_sub("procfs: a FIFO mounted over a file", 20, fifo_over_proc,
	      (void *)top);
	test_sysfs_link();
	return tap_done();
}
