// SPDX-License-Identifier: MIT
/*
 * native.c - the native backend: readfile() and getvalues() passed straight
 * to the readfile(2) and getvalues(2) system calls of kernel/patches, where
 * the running kernel has them.
 *
 * The system call numbers are far above any that mainline Linux has
 * assigned (kernel/README.md), but a kernel may still mean something else
 * by them: the probe never trusts -ENOSYS alone, nor a success. It asks
 * getvalues(AT_FDCWD, "/", { "" }, 1, 0) for the list of groups and accepts
 * only the exact answer, byte for byte, into a buffer that must show no
 * other write. The arguments are harmless whatever the number means:
 * AT_FDCWD (-100) is neither a descriptor nor a process, the other integers
 * are 1 and 0, and every pointer is to scratch memory of the probe, far
 * larger than anything written.
 *
 * A seccomp filter may kill the process for a system call it does not know
 * (systemd's SystemCallFilter= does by default), so under one the probe is
 * not made, unless GETVALUES_BACKEND=native asks for this backend.
 *
 * readfile(2) is not probed on its own: it comes from the same patch as
 * getvalues(2), one number before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* kernel/patches/0003: 900 and 901, shifted where an ABI shifts its table */
#if defined(__alpha__)
#define GV_NR_BASE	1010
#elif defined(__ia64__)
#define GV_NR_BASE	1924
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI32
#define GV_NR_BASE	4900
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI64
#define GV_NR_BASE	5900
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_NABI32
#define GV_NR_BASE	6900
#elif defined(__x86_64__) && defined(__ILP32__)
#define GV_NR_BASE	(0x40000000 + 900)	/* x32 */
#else
#define GV_NR_BASE	900
#endif
#define GV_NR_READFILE	(GV_NR_BASE + 0)
#define GV_NR_GETVALUES	(GV_NR_BASE + 1)

/* The top-level list, without the terminator of the literal. */
static const char gv_native_groups[] =
	"mnt\0mntns\0xattr\0data\0dir\0stat\0lstat\0fs\0";
#define GV_NATIVE_GROUPS_LEN	(sizeof(gv_native_groups) - 1)
#define GV_NATIVE_FILL		0x5a

/*
 * 1 if the thread's /proc status shows a seccomp filter, else 0; unknown
 * (no genuine procfs to ask) counts as yes. -EMFILE, -ENFILE or -ENOMEM:
 * cannot tell now (the probe is made again at the next call).
 */
static int gv_native_filtered(void)
{
	char buf[4096], *p;
	ssize_t n = 0, r;
	int fd = gv_proc_open("thread-self/status", O_RDONLY | O_NOCTTY);

	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM)
		return fd;
	if (fd < 0)
		return 1;
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	gv_fd_close(fd);
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return 0;	/* a kernel without seccomp */
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}

int gv_native_probe_nr(long nr, bool force)
{
	struct name_val nv[2];
	char buf[512];
	long r;
	int filtered = force ? 0 : gv_native_filtered();

	if (filtered)
		return filtered < 0 ? filtered : -ENOSYS;
	memset(buf, GV_NATIVE_FILL, sizeof(buf));
	memset(nv, 0, sizeof(nv));
	nv[0].name = "";
	nv[0].value_in.iov_base = buf;
	nv[0].value_in.iov_len = sizeof(buf);
	r = syscall(nr, AT_FDCWD, "/", nv, 1UL, 0U);
	if (r == 1 && nv[0].error == 0 && nv[0].reserved == 0 &&
	    nv[0].name && !*nv[0].name &&
	    nv[0].value_in.iov_base == buf &&
	    nv[0].value_in.iov_len == sizeof(buf) &&
	    nv[0].value_out.iov_base == buf &&
	    nv[0].value_out.iov_len == GV_NATIVE_GROUPS_LEN &&
	    !memcmp(buf, gv_native_groups, GV_NATIVE_GROUPS_LEN) &&
	    (unsigned char)buf[GV_NATIVE_GROUPS_LEN] == GV_NATIVE_FILL &&
	    !nv[1].name && !nv[1].value_in.iov_base &&
	    !nv[1].value_out.iov_base && !nv[1].error)
		return 0;
	return -ENOSYS;
}

static int gv_native_probe(void)
{
	return gv_native_probe_nr(GV_NR_GETVALUES,
				  gv_backend_forced() == GV_BACKEND_NATIVE);
}

/*
 * readfile(3) is a cancellation point, as open(2) and read(2) are; so is
 * the native call, which may wait as they do (a FIFO, a terminal). It is
 * made with asynchronous cancellation enabled: the kernel closes its file
 * before it returns to user space, whether it returns or is interrupted,
 * so a cancellation acted upon at any instant leaves nothing behind.
 */
static ssize_t gv_native_readfile(int dfd, const char *path, void *buf,
				  size_t size, int flags)
{
	int type, err;
	long r;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
	r = syscall(GV_NR_READFILE, dfd, path, buf, size, flags);
	err = errno;
	pthread_setcanceltype(type, NULL);
	return r < 0 ? -err : r;
}

static int gv_native_getvalues(int dfd, const char *path,
			       struct name_val *vec, size_t num,
			       unsigned int flags)
{
	long r = syscall(GV_NR_GETVALUES, dfd, path, vec, num, flags);

	return r < 0 ? -errno : (int)r;
}

const struct gv_backend gv_backend_native = {
	.name = "native",
	.probe = gv_native_probe,
	.readfile = gv_native_readfile,
	.getvalues = gv_native_getvalues,
};
