// SPDX-License-Identifier: GPL-2.0
/*
 * tbi_test.c - readfile(2) and getvalues(2) with tagged pointers on arm64
 * (Top Byte Ignore, the tagged address ABI of HWASan and MTE processes):
 * PID 1 of the guest that kernel/kcross.sh --boot-arm64 starts in QEMU.
 * Prints TAP on the console, then powers the machine off.
 *
 * A pointer whose top byte is not zero names the same memory once the
 * process has asked for the tagged address ABI; every pointer the calls
 * take (the path, the vector, each name, each buffer) is passed tagged,
 * and the values must be the ones untagged pointers get. Before the
 * process asks, the same calls must fail with EFAULT: the tags reach the
 * kernel's checks.
 *
 * Built statically against the patched kernel's uapi headers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/getvalues.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif

#define TAG	0x5aUL
#define FILE	"/tbi.txt"
#define TEXT	"a value read through a tagged pointer\n"

static int n;
static int failed;

static void check(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, what);
	if (!ok)
		failed++;
}

/* @p with TAG in its top byte */
static uint64_t tagged(const void *p)
{
	return (uint64_t)(uintptr_t)p | TAG << 56;
}

static long do_readfile(uint64_t path, uint64_t buf, size_t size)
{
	return syscall(__NR_readfile, AT_FDCWD, path, buf, size, 0);
}

/* data:tbi.txt and stat:size of "/", everything tagged; 1 if as expected */
static int getvalues_tagged(int expect_efault)
{
	static const char path[] = "/";
	static const char n0[] = "data:tbi.txt", n1[] = "stat:size";
	struct getvalues_entry v[2];
	char buf[256];
	long r;

	memset(v, 0, sizeof(v));
	memset(buf, 0, sizeof(buf));
	v[0].name = tagged(n0);
	v[0].value_in.base = tagged(buf);
	v[0].value_in.len = sizeof(buf);
	v[1].name = tagged(n1);
	r = syscall(__NR_getvalues, AT_FDCWD, tagged(path), tagged(v), 2UL,
		    sizeof(v[0]), 0U);
	if (expect_efault)
		return r == -1 && errno == EFAULT;
	printf("# getvalues: %ld; [0] error %u len %llu; [1] error %u\n", r,
	       v[0].error, (unsigned long long)v[0].value_out.len, v[1].error);
	return r == 2 && !v[0].error && !v[1].error &&
	       (v[0].value_out.base & ~(0xffUL << 56)) == (uintptr_t)buf &&
	       v[0].value_out.len == strlen(TEXT) &&
	       !memcmp(buf, TEXT, strlen(TEXT));
}

int main(void)
{
	char buf[256];
	long r;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	printf("1..6\n");
	fd = open(FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0 && write(fd, TEXT, strlen(TEXT)) == (ssize_t)strlen(TEXT) &&
	      !close(fd), "write " FILE);

	r = do_readfile(tagged(FILE), tagged(buf), sizeof(buf));
	check(r == -1 && errno == EFAULT,
	      "readfile: tagged pointers are EFAULT before PR_SET_TAGGED_ADDR_CTRL");
	check(getvalues_tagged(1),
	      "getvalues: tagged pointers are EFAULT before PR_SET_TAGGED_ADDR_CTRL");

	check(!prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0),
	      "prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE)");
	memset(buf, 0, sizeof(buf));
	r = do_readfile(tagged(FILE), tagged(buf), sizeof(buf));
	printf("# readfile: %ld%s%s\n", r, r < 0 ? ", " : "",
	       r < 0 ? strerror(errno) : "");
	check(r == (long)strlen(TEXT) && !memcmp(buf, TEXT, strlen(TEXT)),
	      "readfile: a tagged path and buffer give the file");
	check(getvalues_tagged(0),
	      "getvalues: tagged path, vector, names and buffer give the values");

	printf("# %s\n", failed ? "FAILED" : "PASSED");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
