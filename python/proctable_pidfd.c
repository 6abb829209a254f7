// SPDX-License-Identifier: MIT
/*
 * proctable_pidfd.c - a process's credentials (what username, uids and
 * gids are made of) from its pidfd, by the PIDFD_GET_INFO ioctl of Linux
 * 6.13+, instead of /proc/PID/status: the kernel formats some 1.5 kB of
 * status text for three lines (12 us a process on an AMD EPYC), where
 * pidfd_open(), the ioctl and close() cost 4 us and format nothing.
 *
 * The order keeps a reused pid out: a process's pidfd is opened before
 * its stat is read (in the same getvalues() round, a chunk of processes
 * at a time so that a few pidfds are open at once) and asked after. A
 * pid is used again only once its process is reaped, and a pidfd never
 * follows the pid to another process: if the ioctl answers, its process
 * is the one whose stat was read. Where it does not (no pidfd, the
 * process reaped meanwhile, a kernel without the ioctl), status is read
 * as before and psutil's rules apply to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proctable.h"

/*
 * include/uapi/linux/pidfd.h of Linux 6.13 (Debian 12's headers are
 * older): its first version of struct pidfd_info (PIDFD_INFO_SIZE_VER0,
 * 64 bytes), which later kernels still take; ids as the caller's user
 * and pid namespaces see them, as status shows them to its reader.
 */
struct pt_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid;
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	uint32_t spare0;		/* the uapi's spare0[1] */
};

#define PT_PIDFS_IOCTL_MAGIC	0xFF
#define PT_PIDFD_GET_INFO	_IOWR(PT_PIDFS_IOCTL_MAGIC, 11, \
				      struct pt_pidfd_info)
#define PT_PIDFD_INFO_CREDS	(1ULL << 1)

_Static_assert(sizeof(struct pt_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

/*
 * A round takes an eighth of RLIMIT_NOFILE, up to PT_PIDFD_MAX; rounds of
 * fewer than this (a limit under 64) are not worth it: status for all.
 */
#define PT_PIDFD_MIN		8
/*
 * descriptors kept free for each thread's getvalues() beside the pidfds
 * (a round shared out between threads: proctable_share.c)
 */
#define PT_PIDFD_SPARE		16

/* Set once the kernel said it has no pidfd or no PIDFD_GET_INFO. */
static int pidfd_off;

static bool is_off(void)
{
	return __atomic_load_n(&pidfd_off, __ATOMIC_RELAXED);
}

static void set_off(void)
{
	__atomic_store_n(&pidfd_off, 1, __ATOMIC_RELAXED);
}

/*
 * How many processes a round of pidfds may take (0: status for all):
 * pidfd_open() takes the pid in this process's pid namespace, so /proc
 * must be of that namespace (its "self" is getpid()); and a few
 * descriptors must stay free for getvalues() itself.
 */
size_t pt_pidfd_chunk(void)
{
	char self[24], want[24];
	struct rlimit rl;
	ssize_t n;
	size_t k;

	if (is_off())
		return 0;
	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n <= 0)
		return 0;
	self[n] = 0;
	snprintf(want, sizeof(want), "%d", (int)getpid());
	if (strcmp(self, want) || getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	k = rl.rlim_cur == RLIM_INFINITY ? PT_PIDFD_MAX :
	    (size_t)(rl.rlim_cur / 8);
	k = k > PT_PIDFD_MAX ? PT_PIDFD_MAX : k;
	return k < PT_PIDFD_MIN ? 0 : k;
}

/* The last @n pidfds opened before @end give their place to status. */
static void give_back(struct pt_table *t, size_t lo, size_t end, int *fds,
		      size_t n)
{
	for (size_t i = end; i-- > lo && n;) {
		if (fds[i - lo] < 0)
			continue;
		close(fds[i - lo]);
		fds[i - lo] = -1;
		t->procs[i].status_now = true;
		n--;
	}
}

/*
 * PT_PIDFD_SPARE descriptors for each thread of the round left free for
 * getvalues(), which would find processes gone where it cannot open
 * their files: taken (dups of a pidfd of the round) and given back, and
 * as many pidfds as were missing given up. Some 32 cheap calls a thread's
 * round of up to 256 processes.
 */
static void keep_spare(struct pt_table *t, size_t lo, size_t hi, int *fds)
{
	int spare[PT_PIDFD_SPARE * PT_SHARE_THREADS], fd = -1;
	size_t n = 0, want = PT_PIDFD_SPARE * (size_t)t->threads;

	for (size_t i = lo; i < hi && fd < 0; i++)
		fd = fds[i - lo];
	if (fd < 0)
		return;
	if (want > sizeof(spare) / sizeof(spare[0]))
		want = sizeof(spare) / sizeof(spare[0]);
	while (n < want && (spare[n] = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0)
		n++;
	for (size_t i = 0; i < n; i++)
		close(spare[i]);
	if (n < want)
		give_back(t, lo, hi, fds, want - n);
}

/*
 * One thread at a time opens pidfds: each counts the descriptors left
 * free after its own, and the others' pidfds must not take them
 * meanwhile.
 */
static pthread_mutex_t pidfd_lock = PTHREAD_MUTEX_INITIALIZER;

/* In a child forked while another thread held it: that thread is gone. */
void pt_pidfd_fork_child(void)
{
	pthread_mutex_init(&pidfd_lock, NULL);
}

/*
 * A pidfd for each process of procs[@lo..@hi) into @fds, or -1 where
 * status is to be read beside stat (status_now). ESRCH: gone before its
 * stat is read, which then says so; EMFILE: the table is full, and
 * keep_spare() gives some back; ENOSYS or EPERM (a seccomp filter): never
 * again in this process.
 */
void pt_pidfd_open(struct pt_table *t, size_t lo, size_t hi, int *fds)
{
	bool full = false;

	pthread_mutex_lock(&pidfd_lock);
	for (size_t i = lo; i < hi; i++) {
		struct pt_proc *p = &t->procs[i];
		long fd = -1;

		if (!full && !is_off())
			fd = syscall(SYS_pidfd_open, p->pid, 0);
		fds[i - lo] = (int)fd;
		if (fd >= 0)
			continue;
		p->status_now = true;
		if (full || is_off())
			continue;
		if (errno == EMFILE || errno == ENFILE)
			full = true;
		else if (errno == ENOSYS || errno == EPERM)
			set_off();
	}
	keep_spare(t, lo, hi, fds);
	pthread_mutex_unlock(&pidfd_lock);
}

/*
 * The credentials of the pidfds of procs[@lo..@hi), each closed. Where
 * the ioctl fails the process's status is read later (round1_late()):
 * ESRCH is a process reaped since its stat was read, which status then
 * finds gone (or one the ioctl will not describe: status does); ENOTTY,
 * EINVAL (a kernel before 6.13, or a struct it does not take) turn the
 * ioctl off.
 */
void pt_pidfd_creds(struct pt_table *t, size_t lo, size_t hi, int *fds)
{
	for (size_t i = lo; i < hi; i++) {
		struct pt_proc *p = &t->procs[i];
		struct pt_pidfd_info info = { .mask = PT_PIDFD_INFO_CREDS };
		int fd = fds[i - lo];

		if (fd < 0)
			continue;
		if (is_off() || ioctl(fd, PT_PIDFD_GET_INFO, &info)) {
			if (!is_off() && (errno == ENOTTY || errno == EINVAL ||
					  errno == ENOSYS || errno == EOPNOTSUPP))
				set_off();
		} else if ((info.mask & PT_PIDFD_INFO_CREDS) &&
			   info.pid == (uint32_t)p->pid) {
			p->uid[0] = info.ruid;
			p->uid[1] = info.euid;
			p->uid[2] = info.suid;
			p->gid[0] = info.rgid;
			p->gid[1] = info.egid;
			p->gid[2] = info.sgid;
			p->uid_ok = true;
			p->gid_ok = true;
		}
		close(fd);
	}
}
