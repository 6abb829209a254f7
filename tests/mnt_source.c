// SPDX-License-Identifier: MIT
/*
 * mnt_source.c - how the mount groups choose between statmount() and
 * mountinfo: GETVALUES_MOUNT_SOURCE is honoured; a statmount() that is
 * missing (ENOSYS) or refused (EPERM from a seccomp filter) sends auto to
 * mountinfo with the same values, while forcing statmount reports it;
 * a call reads mountinfo at most once, and not at all when statmount()
 * works. Each case runs in a child, under its own seccomp filter.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "cost.h"
#include "internal.h"
#include "lib/mountinfo.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "mnt.h"

#define NR_STATMOUNT 457
#define NR_LISTMOUNT 458

/*
 * Make the system calls @nrs fail with @err in this process. No check of
 * the architecture: the test only makes native calls.
 */
static void deny(const long *nrs, int n, int err)
{
	struct sock_filter f[32];
	struct sock_fprog prog = { .filter = f };
	int k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (int i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
						      BPF_K, nrs[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						      SECCOMP_RET_ERRNO | err);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	prog.len = k;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		printf("# seccomp: %s\n", strerror(errno));
		exit(3);
	}
}

static void deny_statmount(int err)
{
	static const long nrs[] = { NR_STATMOUNT, NR_LISTMOUNT };

	deny(nrs, 2, err);
}

static void deny_open(int err)
{
	static const long nrs[] = {
		SYS_openat, SYS_openat2,
#ifdef SYS_open
		SYS_open,
#endif
	};

	deny(nrs, sizeof(nrs) / sizeof(nrs[0]), err);
}

/* Error of "mnt:id" of "/", or 0. */
static unsigned int mnt_id_error(void)
{
	char buf[64];
	struct name_val v = { .name = "mnt:id",
			      .value_in = { buf, sizeof(buf) } };

	if (getvalues(AT_FDCWD, "/", &v, 1, 0) != 1)
		return 1000 + errno;
	return v.error;
}

/*
 * Differences between mountinfo (@mi, read by the test) and mntns plus
 * every mntns:ID:FIELD; with @want_err, every entry must fail so instead.
 */
/*
 * Fields that may fail with excuse_err instead (bit 1 << MF_...): what
 * statmount() cannot give on this kernel comes from mountinfo.
 */
static unsigned int excused, excuse_err;

static size_t diff_all(const struct mi_table *mi, unsigned int want_err)
{
	unsigned long *ids = malloc(mi->n * sizeof(*ids));
	static char buf[1 << 20];
	struct name_val list = { .name = "mntns",
				 .value_in = { buf, sizeof(buf) } };
	size_t per = 1 + MF_NUM, bad = 0, off = 0;
	struct ns_fetch r;

	if (!ids)
		tap_bail("out of memory");
	for (size_t i = 0; i < mi->n; i++)
		ids[i] = mi->m[i].id;
	if (getvalues(AT_FDCWD, "/", &list, 1, 0) != 1)
		bad++;
	else if (want_err)
		bad += list.error != want_err;
	else if (list.error)
		bad++;
	for (size_t i = 0; !want_err && !list.error && i < mi->n; i++) {
		const char *item = buf + off;

		if (off >= list.value_out.iov_len ||
		    strcmp(item, mi->m[i].val[MF_ID])) {
			bad++;
			break;
		}
		off += strlen(item) + 1;
	}
	ns_fetch(&r, ids, mi->n);
	if (r.ret != (int)(mi->n * per))
		bad++;
	for (size_t i = 0; i < mi->n; i++)
		for (int f = 0; f < MF_NUM; f++) {
			const struct name_val *e = &r.vec[i * per + 1 + f];

			if (want_err ? e->error == want_err :
			    nv_is(e, mi->m[i].val[f], mi->m[i].len[f]))
				continue;
			if ((excused & 1u << f) && e->error == excuse_err)
				continue;
			if (!bad++)
				nv_diag(mi->m[i].val[MF_MOUNTPOINT], e,
					mi->m[i].val[f], mi->m[i].len[f]);
		}
	ns_fetch_free(&r);
	free(ids);
	if (bad)
		printf("# %zu differences\n", bad);
	return bad;
}

/* Whether statmount() answers STATMOUNT_SUPPORTED_MASK (Linux 6.15). */
static bool statmount_says_supported(void)
{
	struct {
		uint32_t size, spare;
		uint64_t mnt_id, param;
	} req = { .size = 24, .param = 0x1000 /* SUPPORTED_MASK */ };
	struct statx stx;
	uint64_t sm[512];

	if (statx(AT_FDCWD, "/", 0, 0x4000 /* STATX_MNT_ID_UNIQUE */, &stx) ||
	    !(stx.stx_mask & 0x4000))
		return false;
	req.mnt_id = stx.stx_mnt_id;
	if (syscall(457, &req, sm, sizeof(sm), 0))
		return false;
	return sm[1] & 0x1000;	/* struct statmount's mask */
}

/* ---- the environment variable (children that never called before) ---- */

static int env_bad(void)
{
	setenv("GETVALUES_MOUNT_SOURCE", "kernel", 1);
	return mnt_id_error() != ENOSYS;
}

/* mountinfo must be opened: with open() refused, mnt:id fails. */
static int env_mountinfo(void)
{
	setenv("GETVALUES_MOUNT_SOURCE", "mountinfo", 1);
	deny_open(EACCES);
	return mnt_id_error() != EACCES;
}

static int env_statmount(void)
{
	setenv("GETVALUES_MOUNT_SOURCE", "statmount", 1);
	deny_statmount(EPERM);
	return mnt_id_error() != EPERM;
}

/* ---- falling back, through the test hook ---- */

static struct mi_table mi;

static int refused_auto(void)
{
	deny_statmount(EPERM);
	gv_mnt_force_source("auto");
	return diff_all(&mi, 0) != 0;
}

static int refused_forced(void)
{
	deny_statmount(EPERM);
	gv_mnt_force_source("statmount");
	return diff_all(&mi, EPERM) != 0;
}

static int missing_auto(void)
{
	deny_statmount(ENOSYS);
	gv_mnt_force_source("auto");
	return diff_all(&mi, 0) != 0 || diff_all(&mi, 0) != 0;
}

static int missing_forced(void)
{
	deny_statmount(ENOSYS);
	gv_mnt_force_source("statmount");
	return diff_all(&mi, ENOSYS) != 0;
}

/*
 * mountinfo unreadable, statmount() working: a call for the whole table,
 * which auto would answer from mountinfo, is answered by statmount().
 */
static int auto_opens_nothing(void)
{
	/*
	 * Before Linux 6.15 statmount() cannot say that a file system type
	 * has no subtype, or a mount no source (STATMOUNT_SUPPORTED_MASK),
	 * so the library takes those from mountinfo there (statmount.c):
	 * refused, EACCES.
	 */
	if (!statmount_says_supported()) {
		excused = 1u << MF_FSTYPE | 1u << MF_SOURCE;
		excuse_err = EACCES;
	}
	deny_open(EACCES);
	gv_mnt_force_source("auto");
	return diff_all(&mi, 0) != 0;
}

/*
 * Bytes this process has read so far, less those it has written: the
 * library moves the results of a big call through a pipe of its own
 * (uaccess.c), each byte written into it and read out again, and what is
 * left is what it read from files (/proc/self/io rchar and wchar). Only
 * where vmsplice(2), which puts them there without counting them as
 * written, is refused: no_vmsplice().
 */
static unsigned long long rchar(void)
{
	char buf[1024], *p;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		tap_bail("/proc/self/io: %s", strerror(errno));
	buf[n] = 0;
	p = strstr(buf, "rchar:");
	n = p ? (ssize_t)strtoull(p + 6, NULL, 10) : 0;
	p = strstr(buf, "wchar:");
	return n - (p ? strtoull(p + 6, NULL, 10) : 0);
}

/* In a child: the library fills its pipe by write(2), which rchar() sees. */
static int no_vmsplice(void)
{
	const int nr = SYS_vmsplice;

	if (t_seccomp_errno(&nr, 1, EPERM)) {
		printf("# seccomp: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * A call asking every field of every mount reads mountinfo once: forced,
 * and in auto mode, which reads the whole table for a bulk call (the list
 * with more than IDs, or GV_MNT_BULK mounts by ID or more). The bare list
 * before it comes, in auto mode, from listmount() or mountinfo, whichever
 * costs less as measured (the prior: listmount()). The two calls read
 * mountinfo @times times between them.
 */
static int mountinfo_once_as(const char *source, unsigned int times)
{
	unsigned long long before, used, size = 0;
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		size += n;
	close(fd);
	if (no_vmsplice())
		return 1;
	gv_mnt_force_source(source);
	before = rchar();
	if (diff_all(&mi, 0))
		return 1;
	/* diff_all makes two calls: mntns, then all the fields */
	used = rchar() - before;
	printf("# %s: mountinfo is %llu bytes; two calls read %llu\n",
	       source, size, used);
	return used + size / 2 < times * size || used > times * size + size / 2;
}

static bool have_statmount;

static int mountinfo_once(void)
{
	return mountinfo_once_as("mountinfo", 2);
}

static int mountinfo_once_auto(void)
{
	gv_cost_test_mode(GV_COST_PRIORS);
	return mountinfo_once_as("auto", have_statmount ? 1 : 2);
}

/*
 * auto's bare list by injected costs per mount: from mountinfo where its
 * text costs less than a statmount() per mount (system calls made dear),
 * from listmount() where it costs more.
 */
static int list_by_cost(enum gv_mech cheap)
{
	gv_cost_test_mode(GV_COST_INJECTED);
	gv_cost_test_reset();
	for (size_t n = 1; n <= 1024; n *= 2)
		for (int i = 0; i < 2; i++) {
			gv_cost_record(GV_COST_MNTLIST, n, cheap, 100 * n);
			gv_cost_record(GV_COST_MNTLIST, n, !cheap, 5000 * n);
		}
	return mountinfo_once_as("auto", cheap == GV_MECH_URING ? 2 : 1);
}

static int list_by_cost_text(void)
{
	return list_by_cost(GV_MECH_URING);
}

static int list_by_cost_listmount(void)
{
	return list_by_cost(GV_MECH_SYNC);
}

/* With statmount(), auto answers a few mounts by ID without mountinfo. */
static int few_by_statmount(void)
{
	size_t n = mi.n < 4 ? mi.n : 4, bad = 0;
	unsigned long ids[4] = { 0 }, before, used, noise;
	struct ns_fetch r;

	for (size_t i = 0; i < n; i++)
		ids[i] = mi.m[i].id;
	gv_mnt_force_source("auto");
	before = rchar();
	noise = rchar() - before;	/* reading /proc/self/io itself */
	before = rchar();
	ns_fetch(&r, ids, n);
	used = rchar() - before;
	for (size_t i = 0; i < n; i++)
		for (int f = 0; f < MF_NUM; f++)
			bad += !nv_is(&r.vec[i * (1 + MF_NUM) + 1 + f],
				      mi.m[i].val[f], mi.m[i].len[f]);
	ns_fetch_free(&r);
	printf("# %zu mounts by ID: %zu differences, %lu bytes read "
	       "(reading /proc/self/io: %lu)\n", n, bad, used, noise);
	return bad || used > 2 * noise + 64;
}

int main(void)
{
	bool have = mnt_have_statmount();

	have_statmount = have;

	/* the library's own sources: not the native system call's */
	gv_backend_force(GV_BACKEND_SYNC);
	tap_plan(14);
	tap_is_long(t_in_child(env_bad), 0,
		    "GETVALUES_MOUNT_SOURCE=kernel (unknown): ENOSYS");
	tap_is_long(t_in_child(env_mountinfo), 0,
		    "GETVALUES_MOUNT_SOURCE=mountinfo reads mountinfo");
	if (have)
		tap_is_long(t_in_child(env_statmount), 0,
			    "GETVALUES_MOUNT_SOURCE=statmount uses statmount()");
	else
		tap_skip(1, "kernel lacks statmount() (Linux 6.8)");

	mi_load(&mi);
	tap_is_long(t_in_child(refused_auto), 0,
		    "statmount() refused (EPERM): auto gives mountinfo's values");
	tap_is_long(t_in_child(refused_forced), 0,
		    "statmount() refused, statmount forced: EPERM everywhere");
	tap_is_long(t_in_child(missing_auto), 0,
		    "statmount() missing (ENOSYS): auto gives mountinfo's "
		    "values, twice");
	tap_is_long(t_in_child(missing_forced), 0,
		    "statmount() missing, statmount forced: ENOSYS everywhere");
	if (have)
		tap_is_long(t_in_child(auto_opens_nothing), 0,
			    "mountinfo unreadable: auto's bulk call asks "
			    "statmount() instead");
	else
		tap_skip(1, "kernel lacks statmount() (Linux 6.8)");
	if (access("/proc/self/io", R_OK) == 0) {
		tap_is_long(t_in_child(mountinfo_once), 0,
			    "mountinfo is read once per call, not once per name");
		tap_is_long(t_in_child(mountinfo_once_auto), 0,
			    "auto: a call for every mount reads mountinfo "
			    "once, the bare list none with statmount()");
	} else {
		tap_skip(2, "kernel without task I/O accounting "
			 "(CONFIG_TASK_IO_ACCOUNTING: /proc/self/io)");
	}
	if (have && access("/proc/self/io", R_OK) == 0) {
		tap_is_long(t_in_child(list_by_cost_text), 0,
			    "auto: the list from mountinfo where it costs less "
			    "(injected costs)");
		tap_is_long(t_in_child(list_by_cost_listmount), 0,
			    "auto: the list from listmount() where it costs "
			    "less (injected costs)");
	} else {
		tap_skip(2, "needs statmount() (Linux 6.8) and "
			 "/proc/self/io (CONFIG_TASK_IO_ACCOUNTING)");
	}
	if (have && access("/proc/self/io", R_OK) == 0)
		tap_is_long(t_in_child(few_by_statmount), 0,
			    "auto: a few mounts by ID from statmount(), no "
			    "file read");
	else
		tap_skip(1, "needs statmount() (Linux 6.8) and "
			 "/proc/self/io (CONFIG_TASK_IO_ACCOUNTING)");
	gv_mnt_force_source("statmount");
	if (!have)
		tap_is_long(mnt_id_error(), ENOSYS,
			    "statmount forced where the kernel lacks it: "
			    "ENOSYS");
	else
		tap_skip(1, "only for kernels without statmount(); this one "
			 "has it (the seccomp cases stand in)");
	mi_free(&mi);
	return tap_done();
}
