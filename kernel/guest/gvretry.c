// SPDX-License-Identifier: GPL-2.0
/*
 * gvretry.c - a getvalues(2) lookup that renames force to retry keeps
 * one name, however many tries it takes.
 *
 * A scoped lookup (RESOLVE_IN_ROOT) that meets ".." fails with -EAGAIN
 * when rename_lock moved since it started, and getvalues(2) retries it up
 * to 256 times.  With a syscall audit rule loaded, every struct filename
 * the call allocates is kept until it returns (__audit_getname()), so a
 * lookup that allocated a name per try could pin 256 of them per entry.
 * Audit is not needed to count them: /proc/thread-self/fail-nth counts
 * down once per allocation (and user copy) of the thread, so the count a
 * call consumed is its number of fault points.  stat:type:l0, where l0 is
 * a chain of symlinks, each to a path 200 directories deep and back with
 * "..", is looked up while a thread renames a file back and forth: the call must consume as
 * many fault points as it does with nothing renamed (a few more at most),
 * whether its lookup succeeded or gave up with EAGAIN.
 *
 * Needs root, debugfs and CONFIG_FAULT_INJECTION (CONFIG_FAILSLAB); skips
 * without.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "entry.h"

#define DEPTH		200
#define LINKS		30		/* MAXSYMLINKS is 40 */
#define BUDGET		20		/* seconds of calls under renames */
#define CALLS		1000
#define START		1000000u
#define SLACK		8	/* a racing lookup's own allocations (a dentry
				   or two; 3 seen under KASAN); a name a try
				   would add up to 255 */

static char dir[] = "/tmp/gvretry.XXXXXX";
static volatile bool stop;
static int nthfd;

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(const char *path, const char *val)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "/sys/kernel/debug/%s", path);
	fd = open(p, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(p);
	close(fd);
}

/* fault points of nothing, so that probability 0 injects none */
static void setup_faults(void)
{
	static const char *const attrs[] = {
		"failslab", "fail_page_alloc", "fail_usercopy",
	};
	char p[64];

	for (size_t i = 0; i < sizeof(attrs) / sizeof(*attrs); i++) {
		snprintf(p, sizeof(p), "%s/verbose", attrs[i]);
		put(p, "0");
		snprintf(p, sizeof(p), "%s/probability", attrs[i]);
		put(p, "0");
	}
	put("failslab/ignore-gfp-wait", "N");
	nthfd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nthfd < 0)
		die("/proc/thread-self/fail-nth");
}

/*
 * dir/d/d/.../d (DEPTH deep), dir/f, and LINKS symlinks dir/l0 ... that
 * each go DEPTH directories down and back up with "..", then on to the
 * next one, the last to f: a lookup of l0 walks LINKS * DEPTH * 2
 * components, time for renames on the other CPU to land in it.
 */
static void setup_tree(void)
{
	char path[8192], target[4096], *end;
	size_t n = strlen(dir);

	if (!mkdtemp(dir))
		die("mkdtemp");
	strcpy(path, dir);
	target[0] = '\0';
	for (int i = 0; i < DEPTH; i++) {
		strcpy(path + n, "/d");
		n += 2;
		if (mkdir(path, 0755))
			die(path);
		strcat(target, "d/");
	}
	for (int i = 0; i < DEPTH; i++)
		strcat(target, "../");
	end = target + strlen(target);
	for (int i = 0; i < LINKS; i++) {
		if (i + 1 < LINKS)
			sprintf(end, "l%d", i + 1);
		else
			strcpy(end, "f");
		snprintf(path, sizeof(path), "%s/l%d", dir, i);
		if (symlink(target, path))
			die(path);
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	if (close(open(path, O_WRONLY | O_CREAT, 0644)))
		die(path);
	snprintf(path, sizeof(path), "%s/r1", dir);
	if (close(open(path, O_WRONLY | O_CREAT, 0644)))
		die(path);
}

static void *renamer(void *arg)
{
	char a[64], b[64];

	(void)arg;
	snprintf(a, sizeof(a), "%s/r1", dir);
	snprintf(b, sizeof(b), "%s/r2", dir);
	while (!stop)
		if (rename(a, b) || rename(b, a))
			die("rename");
	return NULL;
}

/* One call of stat:type:l: the fault points it consumed, its error. */
static unsigned int one_call(unsigned int *error)
{
	struct gv_entry e = { .name = PTR("stat:type:l0") };
	char buf[64], s[16] = "";
	int len = snprintf(s, sizeof(s), "%u", START);
	long ret;

	e.value_in.base = PTR(buf);
	e.value_in.len = sizeof(buf);
	if (pwrite(nthfd, s, len, 0) != len)
		die("write fail-nth");
	ret = syscall(NR_GETVALUES, AT_FDCWD, dir, &e, 1UL, sizeof(e), 0);
	memset(s, 0, sizeof(s));
	if (pread(nthfd, s, sizeof(s) - 1, 0) < 0)
		die("read fail-nth");
	if (ret != 1) {
		printf("# the call returned %ld (%s)\n", ret, strerror(errno));
		*error = ~0u;
	} else {
		*error = e.error;
	}
	if (pwrite(nthfd, "0", 1, 0) != 1)
		die("write fail-nth");
	return START - strtoul(s, NULL, 10);
}

int main(void)
{
	unsigned int quiet = ~0u, most = 0, least = ~0u, error, n;
	int eagain = 0, ok = 0, other = 0, calls = 0;
	pthread_t t;
	struct gv_entry e = { .name = PTR("") };

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..1\n");
	if (syscall(NR_GETVALUES, AT_FDCWD, "/", &e, 1UL, sizeof(e), 0) < 0 &&
	    errno == ENOSYS) {
		printf("ok 1 # SKIP no getvalues(2)\n");
		return 0;
	}
	if (geteuid() || access("/sys/kernel/debug/failslab", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK)) {
		printf("ok 1 # SKIP needs root, debugfs and CONFIG_FAULT_INJECTION\n");
		return 0;
	}
	setup_faults();
	setup_tree();
	/* nothing renamed: the fewest fault points, dentries all cached */
	for (int i = 0; i < 5; i++) {
		n = one_call(&error);
		if (error) {
			printf("not ok 1 - stat:type:l0 without renames: error %u\n",
			       error);
			return 1;
		}
		quiet = n < quiet ? n : quiet;
	}
	if (pthread_create(&t, NULL, renamer, NULL))
		die("pthread_create");
	for (time_t end = time(NULL) + BUDGET;
	     calls < CALLS && time(NULL) < end; calls++) {
		n = one_call(&error);
		most = n > most ? n : most;
		least = n < least ? n : least;
		if (error == EAGAIN)
			eagain++;
		else if (!error)
			ok++;
		else
			other++;
	}
	stop = true;
	pthread_join(t, NULL);
	printf("# fault points of a call: %u with nothing renamed; %u to %u under renames (%d calls: %d ok, %d EAGAIN after 256 tries, %d other)\n",
	       quiet, least, most, calls, ok, eagain, other);
	if (!eagain)
		printf("# no call gave up: the retries were not all provoked\n");
	printf("%sok 1 - a retried lookup keeps one name (at most %u fault points more, %u seen)\n",
	       most <= quiet + SLACK && !other ? "" : "not ", SLACK,
	       most - quiet);
	return !(most <= quiet + SLACK && !other);
}
