// SPDX-License-Identifier: MIT
/*
 * native_probe.c - tells whether the running kernel has the native
 * readfile(2) and getvalues(2) of kernel/patches, by the content of an
 * answer and never by -ENOSYS alone; the probe at its heart is meant to be
 * lifted into src/native.c as it is (which is why this file is MIT).
 *
 *   cc -O2 -Wall -o native_probe kernel/probe/native_probe.c
 *   ./native_probe            prints TAP and the verdict, exits 0
 *   ./native_probe --expect native|none
 *                            exits 1 if the verdict is not the expected one
 *   ./native_probe --force    probe even under a seccomp filter
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The numbers of kernel/patches/0012: 490 and 491 in the common numbering
 * while the series is out of tree (the next free numbers at merge), shifted
 * where an architecture shifts its table.
 */
#if defined(__alpha__)
#define GV_NR_BASE	600
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI32
#define GV_NR_BASE	4490
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI64
#define GV_NR_BASE	5490
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_NABI32
#define GV_NR_BASE	6490
#elif defined(__x86_64__) && defined(__ILP32__)
#define GV_NR_BASE	(0x40000000 + 490)	/* x32 */
#else
#define GV_NR_BASE	490
#endif
#define GV_NR_READFILE	(GV_NR_BASE + 0)
#define GV_NR_GETVALUES	(GV_NR_BASE + 1)

/*
 * The kernel's entry, struct getvalues_entry of include/uapi/linux/
 * getvalues.h (kernel/patches/0007): 64-bit pointers and lengths, the same
 * 48 bytes on every ABI; the call takes its size as the fifth argument.
 */
typedef uint64_t probe_u64 __attribute__((aligned(8)));

struct probe_buf {
	probe_u64 base;
	probe_u64 len;
};

struct probe_entry {
	probe_u64 name;
	struct probe_buf value_in;
	struct probe_buf value_out;
	uint32_t error;
	uint32_t reserved;
};

#define PTR(p)	((uint64_t)(uintptr_t)(p))

/* sizeof - 1: the string literal's own terminator is not part of it. */
static const char groups[] = "xattr\0data\0dir\0stat\0lstat\0fs\0";
#define GROUPS_LEN	(sizeof(groups) - 1)

enum probe_verdict {
	PROBE_NATIVE,		/* the answer is exactly the expected one */
	PROBE_ABSENT,		/* ENOSYS, or any other answer */
	PROBE_SKIPPED,		/* not asked: a seccomp filter might kill us */
};

/*
 * A seccomp filter may kill the process for a system call number it does
 * not know (systemd's SystemCallFilter= does so by default), so the probe
 * is only made when /proc/self/status says no filter is installed, unless
 * the caller insists (GETVALUES_BACKEND=native).
 */
static bool seccomp_filtered(void)
{
	char buf[4096], *p;
	ssize_t n = 0, r;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* cannot tell: assume the worst */
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return false;	/* kernel without seccomp */
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}

/*
 * Asks getvalues(AT_FDCWD, "/", { "" }, 1, 48, 0) for the list of top-level
 * groups. Only a kernel with the series answers 1, error 0, value_out
 * pointing at the start of our buffer and exactly those 29 bytes.
 *
 * Harmless whatever the number means: the only non-pointer arguments are
 * AT_FDCWD (-100: neither a descriptor nor a process), 1, 48 and 0; every
 * pointer is to memory of ours that we throw away, and the buffers are
 * far larger than anything written into them. A kernel without the call
 * returns -ENOSYS before looking at any of them.
 */
static enum probe_verdict probe_getvalues(bool force, long *ret, int *err,
					  struct probe_entry *nv,
					  char *buf, size_t bufsize)
{
	*ret = 0;
	*err = 0;
	if (!force && seccomp_filtered())
		return PROBE_SKIPPED;

	memset(buf, 0x5a, bufsize);
	memset(nv, 0, 2 * sizeof(*nv));
	nv[0].name = PTR("");
	nv[0].value_in.base = PTR(buf);
	nv[0].value_in.len = bufsize;

	errno = 0;
	*ret = syscall(GV_NR_GETVALUES, AT_FDCWD, "/", nv, 1UL, sizeof(*nv),
		       0U);
	*err = *ret < 0 ? errno : 0;

	if (*ret == 1 && nv[0].error == 0 && nv[0].reserved == 0 &&
	    nv[0].value_out.base == PTR(buf) &&
	    nv[0].value_out.len == GROUPS_LEN &&
	    memcmp(buf, groups, GROUPS_LEN) == 0 &&
	    (unsigned char)buf[GROUPS_LEN] == 0x5a &&
	    nv[1].name == 0 && nv[1].value_out.base == 0 &&
	    nv[1].error == 0)
		return PROBE_NATIVE;
	return PROBE_ABSENT;
}

int main(int argc, char **argv)
{
	struct probe_entry nv[2];
	const char *expect = NULL;
	bool force = false;
	enum probe_verdict v;
	char buf[512];
	long ret;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			force = true;
		else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
			expect = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--force] [--expect native|none]\n",
				argv[0]);
			return 2;
		}
	}

	printf("1..1\n");
	v = probe_getvalues(force, &ret, &err, nv, buf, sizeof(buf));
	printf("# getvalues is system call %d here, readfile %d\n",
	       GV_NR_GETVALUES, GV_NR_READFILE);
	if (v == PROBE_SKIPPED)
		printf("# a seccomp filter is installed: not probed\n");
	else
		printf("# getvalues(AT_FDCWD, \"/\", {\"\"}, 1, 48, 0) = %ld%s%s%s\n",
		       ret, err ? " (" : "", err ? strerror(err) : "",
		       err ? ")" : "");
	printf("# verdict: %s\n", v == PROBE_NATIVE ? "native" : "not native");

	if (!expect) {
		printf("ok 1 - the probe ran and said %s\n",
		       v == PROBE_NATIVE ? "native" : "not native");
		return 0;
	}
	if (!strcmp(expect, "native") == (v == PROBE_NATIVE)) {
		printf("ok 1 - the probe says %s, as expected\n",
		       v == PROBE_NATIVE ? "native" : "not native");
		return 0;
	}
	printf("not ok 1 - the probe says %s, expected %s\n",
	       v == PROBE_NATIVE ? "native" : "not native", expect);
	return 1;
}
