// SPDX-License-Identifier: GPL-2.0
/*
 * ima.c - files read through getvalues(2)'s data: and readfile(2), raw
 * and through the library (native backend), are measured by IMA as those
 * read by open(2) and read(2) are: the guest boots with ima_policy=tcb,
 * which measures every file root opens for reading (but on pseudo file
 * systems and tmpfs), and each of five files of the same content, read
 * one way each, gains one entry in ascii_runtime_measurements with the
 * same file hash. A change of content is measured again, the same way.
 *
 * kcheck-guest: libgetvalues
 */
#define _GNU_SOURCE
#include <getvalues.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "entry.h"
#include "guest.h"

#define MEASUREMENTS	"/sys/kernel/security/ima/ascii_runtime_measurements"
#define LIST_MAX	(64 << 20)
#define WAYS		5

static char scratch[64] = "/var/tmp/gvima.XXXXXX";
static const char *const ways[WAYS] = {
	"open+read", "data: raw", "data: library", "readfile(2)",
	"library readfile()",
};
static char *list;

/* reads the file @i the way ways[@i] says: the bytes read, or -errno */
static long read_way(int i, const char *name, char *buf, size_t size)
{
	char entry[64], path[160];
	struct gv_entry e = { .name = PTR(entry),
			      .value_in = { PTR(buf), size } };
	struct name_val v = { .name = entry, .value_in = { buf, size } };
	long r;

	snprintf(entry, sizeof(entry), "data:%s", name);
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	switch (i) {
	case 0:
		return get_file(AT_FDCWD, path, buf, size);
	case 1:
		r = syscall(NR_GETVALUES, AT_FDCWD, scratch, &e, 1, sizeof(e), 0);
		return r != 1 ? -errno : e.error ? -(long)e.error
					       : (long)e.value_out.len;
	case 2:
		r = getvalues(AT_FDCWD, scratch, &v, 1, 0);
		return r != 1 ? -errno : v.error ? -(long)v.error
					       : (long)v.value_out.iov_len;
	case 3:
		r = syscall(NR_READFILE, AT_FDCWD, path, buf, size, 0);
		return r < 0 ? -errno : r;
	default:
		r = getvalues_readfile(AT_FDCWD, path, buf, size, 0);
		return r < 0 ? -errno : r;
	}
}

/*
 * The file hashes of the entries for @path in the measurement list, in
 * order, space-separated, in @hashes; their number.
 */
static int measured(const char *path, char *hashes, size_t size)
{
	char *line, *next, *hash, *name;
	size_t at = 0;
	int n = 0;
	ssize_t len = get_file(AT_FDCWD, MEASUREMENTS, list, LIST_MAX - 1);

	hashes[0] = 0;
	if (len < 0)
		return -1;
	list[len] = 0;
	for (line = list; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		/* PCR template-hash template file-hash path */
		hash = strchr(line, ' ');
		hash = hash ? strchr(hash + 1, ' ') : NULL;
		hash = hash ? strchr(hash + 1, ' ') : NULL;
		name = hash ? strchr(hash + 1, ' ') : NULL;
		if (!name || strcmp(name + 1, path))
			continue;
		*name = 0;
		at += snprintf(hashes + at, at < size ? size - at : 0, "%s%s",
			       n ? " " : "", hash + 1);
		n++;
	}
	return n;
}

/* every file read its way: each gets @want entries, the last of equal hash */
static void round_of_reads(const char *content, int want)
{
	char name[16], path[160], buf[256], hashes[WAYS][512], *last[WAYS];
	long r;
	int i, n;

	for (i = 0; i < WAYS; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		snprintf(path, sizeof(path), "%s/%s", scratch, name);
		put_file(path, content);
		r = read_way(i, name, buf, sizeof(buf));
		ok(r == (long)strlen(content) && !memcmp(buf, content, r),
		   "%s of %s: %ld bytes", ways[i], name, r);
	}
	for (i = 0; i < WAYS; i++) {
		snprintf(path, sizeof(path), "%s/f%d", scratch, i);
		n = measured(path, hashes[i], sizeof(hashes[i]));
		last[i] = strrchr(hashes[i], ' ');
		last[i] = last[i] ? last[i] + 1 : hashes[i];
		ok(n == want && !strstr(last[i], ":00000000") &&
		   !strcmp(last[i], last[0]),
		   "%s: %d measurement(s) of f%d (open+read: %d), file hash %s",
		   ways[i], n, i, want, last[i]);
	}
}

int main(void)
{
	char content[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(MEASUREMENTS, R_OK)) {
		skip("no IMA measurement list (%s): CONFIG_IMA, securityfs",
		     strerror(errno));
		return tap_done();
	}
	if (geteuid()) {
		skip("needs root: the tcb policy measures root's reads");
		return tap_done();
	}
	list = malloc(LIST_MAX);
	if (!list || !mkdtemp(scratch))
		bail("malloc, mkdtemp");
	snprintf(content, sizeof(content), "measured once, pid %d, time %ld\n",
		 getpid(), (long)time(NULL));
	round_of_reads(content, 1);
	/* the same files, new content: each is measured again */
	snprintf(content, sizeof(content), "measured twice, pid %d, time %ld\n",
		 getpid(), (long)time(NULL));
	round_of_reads(content, 2);
	snprintf(content, sizeof(content), "rm -rf %s", scratch);
	if (system(content))
		diag("could not remove %s", scratch);
	return tap_done();
}
