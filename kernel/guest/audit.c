// SPDX-License-Identifier: GPL-2.0
/*
 * audit.c - getvalues(2) and readfile(2) under syscall audit, with the
 * rule guest/gvauditd loaded before the tests (always,exit on both calls):
 *
 * - every lookup of a call is audited: the event of a call has a PATH
 *   record for each name it looked up, the SYSCALL record its result,
 *   and no record is lost (the kernel's lost count does not move);
 * - the kernel call takes at most 1024 entries (SPEC v3 §2): 1025 is
 *   EINVAL, audited as such, with nothing written;
 * - what an audited call pins is bounded by that cap, not by the vector:
 *   each lookup's name (a 4 KiB names_cache object) is kept until the
 *   call returns, so a thread samples names_cache in /proc/slabinfo and
 *   MemFree while the library's getvalues() (native backend, which splits
 *   the vector into kernel calls of at most 1024 entries) takes 1,000
 *   entries, then 100,000: the peak stays that of one kernel call;
 * - a watch with read permission (auditctl -w FILE -p r, put first in the
 *   list) fires for readfile(2) and a data: entry of the file, as it does
 *   for openat(2): both calls are in the kernel's read class of system
 *   calls (include/asm-generic/audit_read.h), as getxattr(2) is.
 *
 * kcheck-guest: libgetvalues
 */
#define _GNU_SOURCE
#include <getvalues.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>

#include "entry.h"
#include "guest.h"

#define GVA_DIR	"/run/gvaudit"
#define WATCHED		GVA_DIR "/watched.log"
#define FILES		64
#define CAP		1024
#define BIG		100000
#define BUF_SIZE	(1 << 20)

static char scratch[64] = "/var/tmp/gvaudit.XXXXXX";
static char names[FILES][24];
static char *buf;
static long raw_paths;		/* PATH records of a call of CAP entries */

/* --- the audit side ------------------------------------------------------ */

/* the kernel's audit status (AUDIT_GET), or false */
static bool audit_status(struct audit_status *st)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		char data[1024];
	} msg = { .nh = { .nlmsg_len = NLMSG_LENGTH(0),
			  .nlmsg_type = AUDIT_GET,
			  .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 } };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	ssize_t n;
	bool got = false;

	if (fd < 0)
		return false;
	if (sendto(fd, &msg, msg.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) > 0 &&
	    (n = recv(fd, &msg, sizeof(msg), 0)) > 0 &&
	    msg.nh.nlmsg_type == AUDIT_GET) {
		memset(st, 0, sizeof(*st));
		memcpy(st, NLMSG_DATA(&msg.nh),
		       n - NLMSG_HDRLEN < (ssize_t)sizeof(*st) ?
		       (size_t)(n - NLMSG_HDRLEN) : sizeof(*st));
		got = true;
	}
	close(fd);
	return got;
}

static void watched_reset(void)
{
	if (truncate(WATCHED, 0))
		bail("truncating " WATCHED);
}

/*
 * The watched events so far, once @want of them have ended and no more
 * came for half a second (or after a minute): their records in a
 * malloc'ed string, their count in @events.
 */
static char *watched_wait(int want, int *events)
{
	static char *text;
	int i, n = 0, last = -1, stable = 0;
	ssize_t len;
	char *p;

	free(text);
	text = malloc(64 << 20);
	if (!text)
		bail("malloc");
	for (i = 0; i < 600 && stable < 5; i++) {
		len = get_file(AT_FDCWD, WATCHED, text, (64 << 20) - 1);
		if (len < 0)
			len = 0;
		text[len] = 0;
		for (n = 0, p = text; (p = strstr(p, "event ")); p++)
			if (p == text || p[-1] == '\n')
				n++;
		stable = n >= want && n == last ? stable + 1 : 0;
		last = n;
		usleep(100000);
	}
	*events = n;
	return text;
}

/* the number after "KEY=" in the first @type record of the text, or -1 */
static long field(const char *text, const char *type, const char *key)
{
	const char *rec = strstr(text, type), *end, *p;
	char pat[32];

	if (!rec)
		return -1;
	end = strchr(rec, '\n');
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(rec, pat);
	if (!p || (end && p > end))
		return -1;
	return strtol(p + strlen(pat), NULL, 0);
}

/* sum and maximum of the paths= of every "event" line */
static void event_paths(const char *text, long *sum, long *max)
{
	const char *p;
	long n;

	*sum = *max = 0;
	for (p = text; (p = strstr(p, " paths=")); p++) {
		n = strtol(p + 7, NULL, 10);
		*sum += n;
		if (n > *max)
			*max = n;
	}
}

/* an audit netlink request, acknowledged: 0 or -errno */
static int audit_request(int type, const void *data, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nh = calloc(1, NLMSG_SPACE(len) + 4096);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	int err = -EIO;

	if (!nh || fd < 0)
		bail("audit socket");
	*nh = (struct nlmsghdr){ .nlmsg_len = NLMSG_LENGTH(len),
				 .nlmsg_type = type, .nlmsg_seq = 2,
				 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK };
	memcpy(NLMSG_DATA(nh), data, len);
	if (sendto(fd, nh, nh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		err = -errno;
	else if (recv(fd, nh, NLMSG_SPACE(len) + 4096, 0) > 0 &&
		 nh->nlmsg_type == NLMSG_ERROR)
		err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	close(fd);
	free(nh);
	return err;
}

/* AUDIT_ADD_RULE or AUDIT_DEL_RULE of: -w @path -p r -k gvwatch, first */
static int watch_rule(int type, const char *path)
{
	static const char key[] = "gvwatch";
	size_t plen = strlen(path), klen = sizeof(key) - 1;
	size_t len = sizeof(struct audit_rule_data) + plen + klen;
	struct audit_rule_data *r = calloc(1, len);
	int err;

	if (!r)
		bail("calloc");
	/* the kernel keeps the rule without the flag: no match to delete */
	r->flags = AUDIT_FILTER_EXIT |
		   (type == AUDIT_ADD_RULE ? AUDIT_FILTER_PREPEND : 0);
	r->action = AUDIT_ALWAYS;
	memset(r->mask, 0xff, sizeof(r->mask));	/* every system call */
	r->field_count = 3;
	r->fields[0] = AUDIT_WATCH;
	r->values[0] = plen;
	r->fields[1] = AUDIT_PERM;
	r->values[1] = AUDIT_PERM_READ;
	r->fields[2] = AUDIT_FILTERKEY;
	r->values[2] = klen;
	for (int i = 0; i < 3; i++)
		r->fieldflags[i] = AUDIT_EQUAL;
	r->buflen = plen + klen;
	memcpy(r->buf, path, plen);
	memcpy(r->buf + plen, key, klen);
	err = audit_request(type, r, len);
	free(r);
	return err;
}

/* one watched event of the call just made, and the watch's key in it */
static bool watch_fired(const char *what)
{
	int events;
	char *text = watched_wait(1, &events);
	bool fired = strstr(text, " key=\"gvwatch\"") != NULL;

	if (!ok(events == 1 && fired,
		"a read watch fires for %s: %d event, key gvwatch %s", what,
		events, fired ? "in it" : "not in it"))
		for (const char *p = text; (p = strstr(p, "type=1300 "));
		     p++) {
			int len = (int)strcspn(p, "\n");

			diag("a SYSCALL record ends: %s", p + len -
			     (len > 100 ? 100 : len));
		}
	return fired;
}

/* -w FILE -p r: openat(2) (the control), readfile(2), data: */
static void check_watch(struct gv_entry *v)
{
	char path[128];
	int fd, err, events;

	snprintf(path, sizeof(path), "%s/secret", scratch);
	put_file(path, "s3cret");
	watched_reset();
	err = watch_rule(AUDIT_ADD_RULE, path);
	if (!ok(!err, "a read watch on %s is loaded (%s)", path,
		strerror(-err)))
		return;
	watched_wait(1, &events);	/* the rule change's own event */
	watched_reset();
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, 64) != 6 || close(fd))
		bail("reading %s", path);
	watch_fired("open(2) and read(2)");
	watched_reset();
	if (syscall(NR_READFILE, AT_FDCWD, path, buf, 64, 0) != 6)
		bail("readfile");
	watch_fired("readfile(2)");
	watched_reset();
	v[0] = (struct gv_entry){ .name = PTR("data:secret"),
				  .value_in = { PTR(buf), 64 } };
	if (syscall(NR_GETVALUES, AT_FDCWD, scratch, v, 1, sizeof(*v), 0) != 1 ||
	    v[0].error)
		bail("getvalues data:secret");
	watch_fired("a data: entry of getvalues(2)");
	err = watch_rule(AUDIT_DEL_RULE, path);
	if (err)
		diag("removing the watch: %s", strerror(-err));
}

/* --- the memory sampler --------------------------------------------------- */

static struct sampler {
	pthread_t thread;
	volatile bool stop;
	long peak_active, peak_objs, min_free;
	unsigned long samples;
} smp;

/* names_cache's active and total objects, MemFree in KiB */
static void sample(long *active, long *objs, long *memfree)
{
	static char text[65536];
	ssize_t len;
	char *p;

	*active = *objs = *memfree = -1;
	len = get_file(AT_FDCWD, "/proc/slabinfo", text, sizeof(text) - 1);
	text[len > 0 ? len : 0] = 0;
	p = strstr(text, "\nnames_cache ");
	if (p)
		sscanf(p + 13, "%ld %ld", active, objs);
	len = get_file(AT_FDCWD, "/proc/meminfo", text, sizeof(text) - 1);
	text[len > 0 ? len : 0] = 0;
	p = strstr(text, "MemFree:");
	if (p)
		*memfree = strtol(p + 8, NULL, 10);
}

static void *sampler_run(void *arg)
{
	long active, objs, memfree;

	(void)arg;
	while (!smp.stop) {
		sample(&active, &objs, &memfree);
		if (active > smp.peak_active)
			smp.peak_active = active;
		if (objs > smp.peak_objs)
			smp.peak_objs = objs;
		if (memfree >= 0 && memfree < smp.min_free)
			smp.min_free = memfree;
		smp.samples++;
	}
	return NULL;
}

static void sampler_start(void)
{
	smp.stop = false;
	smp.peak_active = smp.peak_objs = 0;
	smp.min_free = LONG_MAX;
	smp.samples = 0;
	if (pthread_create(&smp.thread, NULL, sampler_run, NULL))
		bail("pthread_create");
	while (smp.samples < 3)
		usleep(1000);
}

static void sampler_stop(void)
{
	unsigned long n = smp.samples;

	while (smp.samples < n + 3)	/* a few more after the call */
		usleep(1000);
	smp.stop = true;
	pthread_join(smp.thread, NULL);
}

/* --- the calls -------------------------------------------------------------- */

static long raw_getvalues(struct gv_entry *v, size_t num)
{
	size_t i;

	for (i = 0; i < num; i++) {
		v[i] = (struct gv_entry){ .name = PTR(names[i % FILES]),
					  .error = 0xfeed };
	}
	v[0].value_in.base = PTR(buf);
	v[0].value_in.len = BUF_SIZE;
	return syscall(NR_GETVALUES, AT_FDCWD, scratch, v, num, sizeof(*v), 0);
}

/* the library's getvalues() of @num entries, each value checked */
static bool lib_getvalues(struct name_val *v, size_t num)
{
	size_t i, bad = 0;
	char want[8];
	int r;

	for (i = 0; i < num; i++)
		v[i] = (struct name_val){ .name = names[i % FILES] };
	v[0].value_in.iov_base = buf;
	v[0].value_in.iov_len = BUF_SIZE;
	r = getvalues(AT_FDCWD, scratch, v, num, 0);
	for (i = 0; r >= 0 && i < num; i++) {
		snprintf(want, sizeof(want), "%zu", i % FILES);
		if (v[i].error || v[i].value_out.iov_len != strlen(want) ||
		    memcmp(v[i].value_out.iov_base, want, strlen(want)))
			bad++;
	}
	return ok((size_t)r == num && !bad,
		  "library getvalues() of %zu entries: %d, %zu values wrong",
		  num, r, bad);
}

static void make_files(void)
{
	char path[128];
	int i;

	if (!mkdtemp(scratch))
		bail("mkdtemp");
	for (i = 0; i < FILES; i++) {
		snprintf(names[i], sizeof(names[i]), "stat:size:f%02d", i);
		snprintf(path, sizeof(path), "%s/f%02d", scratch, i);
		put_file(path, "");
		if (truncate(path, i))
			bail("truncate");
	}
}

/* the 1024 cap: 1025 entries are EINVAL with nothing written */
static void check_cap(struct gv_entry *v)
{
	long r, sum, max;
	int i, events, untouched = 0;
	char *text;

	watched_reset();
	r = raw_getvalues(v, CAP + 1);
	for (i = 0; i < CAP + 1; i++)
		untouched += v[i].error == 0xfeed && !v[i].value_out.base;
	ok(r == -1 && errno == EINVAL && untouched == CAP + 1,
	   "raw getvalues(2) of %d entries: %ld (%s), %d entries untouched",
	   CAP + 1, r, r < 0 ? strerror(errno) : "no error", untouched);
	text = watched_wait(1, &events);
	ok(events == 1 && field(text, "type=1300", "syscall") == NR_GETVALUES &&
	   field(text, "type=1300", "exit") == -EINVAL,
	   "the EINVAL call is audited: %d event, syscall=%ld exit=%ld",
	   events, field(text, "type=1300", "syscall"),
	   field(text, "type=1300", "exit"));
	watched_reset();
	r = raw_getvalues(v, CAP);
	ok(r == CAP, "raw getvalues(2) of %d entries: %ld", CAP, r);
	text = watched_wait(1, &events);
	event_paths(text, &sum, &max);
	raw_paths = sum;
	ok(events == 1 && sum >= CAP && field(text, "type=1300", "items") == sum,
	   "its event has a PATH record for each lookup: %ld (items=%ld)",
	   sum, field(text, "type=1300", "items"));
}

/* each entry's name is in a PATH record of the call's event */
static void check_paths(struct gv_entry *v)
{
	char *text, pat[96];
	int i, events, missing = 0;
	long r;

	watched_reset();
	r = raw_getvalues(v, 16);
	text = watched_wait(1, &events);
	for (i = 0; i < 16; i++) {
		snprintf(pat, sizeof(pat), " name=\"f%02d\"", i);
		missing += !strstr(text, pat);
	}
	ok(r == 16 && events == 1 && !missing,
	   "16 entries, one event, every entry's name in a PATH record "
	   "(%d missing)", missing);
	if (missing)
		diag("the event: %.2000s", text);

	watched_reset();
	snprintf(pat, sizeof(pat), "%s/f05", scratch);
	r = syscall(NR_READFILE, AT_FDCWD, pat, buf, 4096, 0);
	text = watched_wait(1, &events);
	ok(r == 5 && events == 1 &&
	   field(text, "type=1300", "syscall") == NR_READFILE &&
	   field(text, "type=1300", "exit") == 5 && strstr(text, pat),
	   "readfile(2) is audited: %ld, syscall=%ld, its path in a PATH record",
	   r, field(text, "type=1300", "syscall"));
}

/*
 * @reps library calls of @num entries, sampled: the highest names_cache
 * peak above @base, the events and PATH records of the last call.
 */
static void measure(struct name_val *v, size_t num, int reps, long base,
		    long base_free, long *peak, int *events, long *paths,
		    long *max_paths)
{
	long free_min = LONG_MAX, objs = 0;
	unsigned long samples = 0;
	char *text = NULL;
	int i;

	*peak = 0;
	for (i = 0; i < reps; i++) {
		watched_reset();
		sampler_start();
		lib_getvalues(v, num);
		sampler_stop();
		if (smp.peak_active - base > *peak)
			*peak = smp.peak_active - base;
		objs = smp.peak_objs > objs ? smp.peak_objs : objs;
		free_min = smp.min_free < free_min ? smp.min_free : free_min;
		samples += smp.samples;
		text = watched_wait((num + CAP - 1) / CAP, events);
	}
	event_paths(text, paths, max_paths);
	diag("%zu entries, %d call(s): names_cache peak %ld objects above "
	     "idle (%ld in slabs), MemFree %ld KiB below idle, %lu samples; "
	     "the last call: %d kernel calls, %ld PATH records, at most %ld "
	     "in one", num, reps, *peak, objs, base_free - free_min, samples,
	     *events, *paths, *max_paths);
}

/*
 * What the calls pin. Each PATH record of an event is a name the call
 * held until it returned (audit keeps the lookup's names_cache object),
 * so the records per event are exact; the names_cache peaks a thread
 * samples meanwhile show the same in memory (a sample can miss the peak
 * of one short call, not those of 98 calls).
 */
static void check_memory(struct name_val *lv)
{
	long base = 0, base_free = LONG_MAX, a, o, f, d1k, d100k, paths, max;
	int i, events;

	for (i = 0; i < 20; i++) {
		sample(&a, &o, &f);
		base = a > base ? a : base;
		base_free = f < base_free ? f : base_free;
		usleep(10000);
	}
	if (base < 0) {
		skip("no names_cache in /proc/slabinfo (CONFIG_SLUB_DEBUG)");
		return;
	}
	diag("idle: names_cache %ld objects, MemFree %ld KiB", base, base_free);
	/* the library's first call may probe the kernel: not measured */
	watched_reset();
	lib_getvalues(lv, 1);
	watched_wait(1, &events);
	measure(lv, 1000, 5, base, base_free, &d1k, &events, &paths, &max);
	ok(events == 1 && paths >= 1000 && paths <= raw_paths,
	   "1,000 entries: one kernel call, holding %ld names until it returns",
	   paths);
	measure(lv, BIG, 1, base, base_free, &d100k, &events, &paths, &max);
	ok(events >= (BIG + CAP - 1) / CAP && paths >= BIG && max <= raw_paths,
	   "100,000 entries: %d kernel calls, %ld PATH records in all, each "
	   "call holding at most %ld names (%d entries: %ld)", events, paths,
	   max, CAP, raw_paths);
	/* KASAN's quarantine keeps freed objects counted for a while */
	if (getenv("KCHECK_KASAN") && *getenv("KCHECK_KASAN"))
		skip("KASAN: freed names_cache objects wait in its quarantine, "
		     "so the peak (+%ld objects, 1,000 entries: +%ld) is not "
		     "what one call holds", d100k, d1k);
	else
		ok(d100k >= CAP / 2 && d100k <= raw_paths + CAP / 16,
		   "100,000 entries pin at most what one kernel call of %d "
		   "does: names_cache peak +%ld objects (1,000 entries: +%ld)",
		   CAP, d100k, d1k);
}

static void show_totals(void)
{
	char text[4096], *line;
	ssize_t len;
	int pid;

	len = get_file(AT_FDCWD, GVA_DIR "/pid", text, sizeof(text) - 1);
	pid = len > 0 ? atoi(text) : 0;
	if (pid <= 0 || kill(pid, SIGUSR1))
		return;
	usleep(300000);
	len = get_file(AT_FDCWD, GVA_DIR "/totals", text, sizeof(text) - 1);
	text[len > 0 ? len : 0] = 0;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		diag("gvauditd so far: %s", line);
}

int main(void)
{
	struct audit_status before = { 0 }, after = { 0 };
	struct gv_entry *v;
	struct name_val *lv;
	char cmd[128];
	bool got;

	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_NAME, "audit");
	if (access("/proc/self/loginuid", F_OK)) {
		skip("no syscall audit in this kernel (CONFIG_AUDITSYSCALL)");
		return tap_done();
	}
	got = audit_status(&before);
	if (!ok(got && before.enabled == 1 && before.pid > 0,
		"audit is on and gvauditd takes the records (enabled=%u pid=%u)",
		before.enabled, before.pid))
		return tap_done();
	buf = malloc(BUF_SIZE);
	v = calloc(CAP + 1, sizeof(*v));
	lv = calloc(BIG, sizeof(*lv));
	if (!buf || !v || !lv)
		bail("malloc");
	/* touched now, so that MemFree below tells the kernel's memory */
	memset(buf, 0, BUF_SIZE);
	memset(lv, 0, BIG * sizeof(*lv));
	make_files();
	check_cap(v);
	check_paths(v);
	check_watch(v);
	check_memory(lv);
	got = audit_status(&after);
	ok(got && after.lost == before.lost,
	   "no audit record lost: lost %u before, %u after (backlog %u of %u)",
	   before.lost, after.lost, after.backlog, after.backlog_limit);
	show_totals();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd))
		diag("could not remove %s", scratch);
	return tap_done();
}
