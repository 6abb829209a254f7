// SPDX-License-Identifier: MIT
/*
 * origin_pinned.c - every entry of one getvalues() call is read beneath
 * the one object that dfd and path named when the call began (SPEC 2.1),
 * however long the vector.
 *
 * Two directories, A and B, each hold a file f with its own name in it.
 * Another thread swaps them with renameat2(RENAME_EXCHANGE) as fast as it
 * can while one call reads data:f 4096 times beneath "A": every value must
 * be the same. The native backend makes four kernel calls of such a vector
 * (at most 1024 entries each, SPEC v3), and had it handed the kernel the
 * name "A" each time, the later calls would have read B's file whenever
 * the swap had happened in between. The same through a symbolic link to
 * A, with AT_SYMLINK_NOFOLLOW (the link itself, in every part) and without
 * it (the directory). On every backend usable here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/tap.h"
#include "lib/util.h"

#define N_ENTRIES	4096	/* four kernel calls' worth */
#define ROUNDS		8
#define CHECKS		3

static int top;				/* holds A, B and L -> A */
static volatile int swapping;
static unsigned long swaps;
static struct name_val vec[N_ENTRIES];
static char buf[N_ENTRIES * 64];

static void *swapper(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&swapping, __ATOMIC_ACQUIRE))
		if (!renameat2(top, "A", top, "B", RENAME_EXCHANGE))
			__atomic_add_fetch(&swaps, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* One call of @name N_ENTRIES times beneath @path: the count, or -errno. */
static int long_call(const char *path, unsigned int flags, const char *name)
{
	int r;

	for (size_t i = 0; i < N_ENTRIES; i++)
		vec[i] = (struct name_val){ .name = name };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(top, path, vec, N_ENTRIES, flags);
	return r < 0 ? -errno : r;
}

/* Every entry of the last call holds what entry 0 holds; or why not. */
static const char *all_alike(int r)
{
	static char why[128];

	if (r != N_ENTRIES) {
		snprintf(why, sizeof(why), "the call returned %d", r);
		return why;
	}
	for (size_t i = 0; i < N_ENTRIES; i++) {
		const struct iovec *v = &vec[i].value_out, *v0 = &vec[0].value_out;

		if (!vec[i].error && v->iov_len == v0->iov_len &&
		    !memcmp(v->iov_base, v0->iov_base, v->iov_len))
			continue;
		snprintf(why, sizeof(why), "entry %zu got \"%.*s\" (error %d), "
			 "entry 0 \"%.*s\"", i, (int)v->iov_len,
			 (char *)v->iov_base, vec[i].error, (int)v0->iov_len,
			 (char *)v0->iov_base);
		return why;
	}
	return NULL;
}

/* ROUNDS calls while A and B trade places: "" if all alike, else why. */
static const char *rounds(const char *path, unsigned int flags,
			  const char *name)
{
	const char *why = NULL;
	pthread_t t;

	swaps = 0;
	swapping = 1;
	if (pthread_create(&t, NULL, swapper, NULL))
		tap_bail("pthread_create failed");
	for (int i = 0; i < ROUNDS && !why; i++)
		why = all_alike(long_call(path, flags, name));
	__atomic_store_n(&swapping, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	return why;
}

static void on_backend(const struct t_backend *b)
{
	const char *why;

	gv_backend_force(b->id);
	why = rounds("A", 0, "data:f");
	tap_ok(!why, "%s: %d x %d entries of data:f beneath a directory "
	       "renamed meanwhile all read one file%s%s", b->name, ROUNDS,
	       N_ENTRIES, why ? ": " : "", why ? why : "");
	tap_diag("%s: %lu swaps during the calls", b->name, swaps);
	why = rounds("L", AT_SYMLINK_NOFOLLOW, "stat:type");
	tap_ok(!why && vec[0].value_out.iov_len == 3 &&
	       !memcmp(vec[0].value_out.iov_base, "lnk", 3),
	       "%s: through a link, AT_SYMLINK_NOFOLLOW: the link in every "
	       "part%s%s", b->name, why ? ": " : "", why ? why : "");
	why = rounds("L", 0, "data:f");
	tap_ok(!why, "%s: through a link, followed: one directory in every "
	       "part%s%s", b->name, why ? ": " : "", why ? why : "");
}

int main(void)
{
	struct t_backend bs[4];
	int n;

	top = t_tmpdir_fd("origin_pinned");
	if (mkdirat(top, "A", 0755) || mkdirat(top, "B", 0755) ||
	    t_write_file(top, "A/f", "A\n", 2, 0644) ||
	    t_write_file(top, "B/f", "B\n", 2, 0644) ||
	    symlinkat("A", top, "L"))
		tap_bail("setup: %s", strerror(errno));
	if (renameat2(top, "A", top, "B", RENAME_EXCHANGE) ||
	    renameat2(top, "A", top, "B", RENAME_EXCHANGE)) {
		tap_skip_all("renameat2(RENAME_EXCHANGE) here: %s",
			     strerror(errno));
	}
	n = t_backends(bs, CHECKS);
	for (int i = 0; i < n; i++)
		on_backend(&bs[i]);
	return tap_done();
}
