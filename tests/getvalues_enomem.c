// SPDX-License-Identifier: MIT
/*
 * getvalues_enomem.c - ENOMEM fails the call (SPEC 2.2): the entries
 * handled before it keep what they got, the entry that ran out of memory
 * and those after it are not written, and -1 with ENOMEM comes back; it is
 * never one entry's error while the call goes on.
 *
 * Memory runs out for real: in a child under an RLIMIT_AS a little above
 * what it has mapped, the call lists a directory of long names (some
 * 2 MB of value, which the library stages in memory of its own before it
 * writes it into the caller's buffer). The native call writes the listing
 * straight into the caller's buffer and maps nothing: skipped there. So is
 * a build with AddressSanitizer, whose allocator does not return NULL.
 *
 * Asked for by issue 23 (item F).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define NAMES	8192		/* names of NAME_LEN bytes: 2 MB listed */
#define NAME_LEN 250
#define MARGIN	(512u << 10)	/* address space left for the call */
#define CHECKS	4

static char top[2048];
static char size_of_f[32];

/* Bytes of address space this process has mapped (/proc/self/status). */
static unsigned long long mapped(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		tap_bail("/proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

static bool untouched(const struct name_val *e)
{
	return e->error == 0xdeadbeef && e->value_out.iov_base == (void *)1 &&
	       e->value_out.iov_len == 2;
}

static void fill(struct name_val *v, char *buf, size_t size)
{
	static const char *const names[] = {
		"stat:size:f", "dir:big", "stat:type:f",
	};

	for (int i = 0; i < 3; i++)
		v[i] = (struct name_val){
			.name = names[i], .value_out = { (void *)1, 2 },
			.error = 0xdeadbeef,
		};
	v[0].value_in = (struct iovec){ buf, size };
}

static void run(void *arg)
{
	const struct t_backend *b = arg;
	struct name_val v[3], small[2] = {
		{ .name = "stat:size:f" }, { .name = "dir:" },
	};
	size_t size = 4u << 20;
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	struct rlimit rl, was;
	int dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC), ret, err;

	if (buf == MAP_FAILED || dfd < 0 || getrlimit(RLIMIT_AS, &was))
		tap_bail("setup: %s", strerror(errno));
	gv_backend_force(b->id);
	/* the library's lazy set-up (probes, rings) done, with no listing */
	small[0].value_in = (struct iovec){ buf, size };
	if (getvalues(dfd, "", small, 2, AT_EMPTY_PATH) != 2)
		tap_bail("a first call: %s", strerror(errno));

	rl = was;
	rl.rlim_cur = mapped() + MARGIN;
	if (setrlimit(RLIMIT_AS, &rl))
		tap_bail("setrlimit(RLIMIT_AS): %s", strerror(errno));
	fill(v, buf, size);
	errno = 0;
	ret = getvalues(dfd, "", v, 3, AT_EMPTY_PATH);
	err = errno;
	tap_ok(ret == -1 && err == ENOMEM, "%s: out of memory for the "
	       "listing, the call fails with ENOMEM (returned %d, %s; "
	       "dir:big %s)", b->name, ret, strerrorname_np(err),
	       untouched(&v[1]) ? "untouched" : t_got(1, 0, &v[1]));
	tap_ok(t_is(1, &v[0], size_of_f, strlen(size_of_f)), "%s: the entry "
	       "handled before it keeps its value (%s)", b->name,
	       untouched(&v[0]) ? "untouched" : t_got(1, 0, &v[0]));
	tap_ok(untouched(&v[1]) && untouched(&v[2]), "%s: the entry that ran "
	       "out of memory and the one after it are not written",
	       b->name);

	setrlimit(RLIMIT_AS, &was);
	fill(v, buf, size);
	ret = getvalues(dfd, "", v, 3, AT_EMPTY_PATH);
	if (!tap_ok(ret == 3 && !v[0].error && !v[2].error &&
		    !v[1].error &&
		    v[1].value_out.iov_len == NAMES * (NAME_LEN + 1),
		    "%s: with memory again, the call lists the %d names",
		    b->name, NAMES))
		tap_diag("   returned %d; dir:big %s", ret,
			 t_got(ret, errno, &v[1]));
}

int main(void)
{
	struct t_backend bs[4];
	char name[NAME_LEN + 16];
	int n, dfd, big;

	alarm(300);
#if defined(__SANITIZE_ADDRESS__)
	tap_skip_all("AddressSanitizer's allocator does not return NULL "
		     "under RLIMIT_AS");
#endif
	snprintf(top, sizeof(top), "%s", t_tmpdir("enomem"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || t_write_file(dfd, "f", "twelve bytes", 12, 0644) ||
	    mkdirat(dfd, "big", 0755))
		tap_bail("setup in %s: %s", top, strerror(errno));
	snprintf(size_of_f, sizeof(size_of_f), "12");
	big = openat(dfd, "big", O_PATH | O_DIRECTORY | O_CLOEXEC);
	memset(name, 'n', NAME_LEN);
	for (int i = 0; big >= 0 && i < NAMES; i++) {
		int len = snprintf(name, sizeof(name), "%05d", i);

		name[len] = 'n';
		name[NAME_LEN] = '\0';
		if (t_write_file(big, name, "", 0, 0644))
			tap_bail("setup: %s", strerror(errno));
	}
	close(big);
	close(dfd);
	n = t_lib_backends(bs, CHECKS, "the native call lists into the "
			   "caller's buffer, with no memory of ours");
	for (int i = 0; i < n; i++)
		t_sub(bs[i].name, 60, run, &bs[i]);
	return tap_done();
}
