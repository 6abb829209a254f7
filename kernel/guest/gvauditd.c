// SPDX-License-Identifier: GPL-2.0
/*
 * gvauditd.c - the kcheck guest's audit daemon: loads an audit rule on
 * readfile(2) and getvalues(2) through the audit netlink socket (the
 * AUDIT_ADD_RULE message auditctl sends), registers itself as auditd and
 * takes every record the kernel sends, so that the whole suite runs with
 * syscall audit on and the records do not flood the console.
 *
 *   gvauditd DIR COMM
 *
 * returns once the rule is loaded and the daemon is in the background;
 * "gvauditd --drained" once the kernel has no record queued for it.
 * In DIR it keeps:
 *   pid          its process ID
 *   audit.log    the first LOG_MAX bytes of records, as auditd writes them
 *   watched.log  the records of the events whose SYSCALL record is of a
 *                process named COMM (at most EVENT_LINES of each), then
 *                "event SERIAL records=N paths=N" when the event ends: a
 *                guest program truncates it, calls, and reads it back
 *   totals       the records of each type so far, written on SIGUSR1
 *
 * kcheck-guest: helper
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guest.h"

#define LOG_MAX		(8 << 20)
#define EVENT_LINES	64
#define WATCH_SLOTS	32
#define BACKLOG		8192
#define MSG_MAX		65536	/* one recv(2): several records */
#define TYPES		3000

static const char *dir, *comm;
static int log_fd = -1, watch_fd = -1;
static long log_bytes;
static unsigned long totals[TYPES], enobufs;
static volatile sig_atomic_t want_totals;

static struct watch {
	unsigned long serial;	/* 0: free */
	unsigned long records, paths;
} watches[WATCH_SLOTS];

static void fail(const char *what)
{
	fprintf(stderr, "gvauditd: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Sends one request and waits for its acknowledgment; records that come
 * meanwhile (the daemon's socket gets both) go to @record.
 * Return: 0 or the negative errno the kernel answered.
 */
static int request(int fd, int type, const void *data, size_t len,
		   void (*record)(int, const char *, size_t))
{
	static unsigned int seq;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char *buf = calloc(1, NLMSG_SPACE(len) > MSG_MAX ?
			      NLMSG_SPACE(len) : MSG_MAX);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n;

	if (!buf)
		fail("calloc");
	nh->nlmsg_len = NLMSG_LENGTH(len);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(nh), data, len);
	if (sendto(fd, buf, nh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		fail("sendto");
	for (;;) {
		n = recv(fd, buf, MSG_MAX, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("recv");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR &&
			    nh->nlmsg_seq == seq) {
				int err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;

				free(buf);
				return err;
			}
			if (nh->nlmsg_type != NLMSG_ERROR && record)
				record(nh->nlmsg_type, NLMSG_DATA(nh),
				       nh->nlmsg_len - NLMSG_HDRLEN);
		}
	}
}

/* always,exit -F arch=ARCH -S readfile -S getvalues -k gvaudit */
static int add_rule(int fd, unsigned int arch)
{
	static const char key[] = "gvaudit";
	size_t len = sizeof(struct audit_rule_data) + sizeof(key) - 1;
	struct audit_rule_data *r = calloc(1, len);
	int nr[] = { NR_READFILE, NR_GETVALUES }, i, err;

	if (!r)
		fail("calloc");
	r->flags = AUDIT_FILTER_EXIT;
	r->action = AUDIT_ALWAYS;
	for (i = 0; i < 2; i++)
		r->mask[nr[i] / 32] |= 1u << (nr[i] % 32);
	r->field_count = 2;
	r->fields[0] = AUDIT_ARCH;
	r->fieldflags[0] = AUDIT_EQUAL;
	r->values[0] = arch;
	r->fields[1] = AUDIT_FILTERKEY;
	r->fieldflags[1] = AUDIT_EQUAL;
	r->values[1] = sizeof(key) - 1;
	r->buflen = sizeof(key) - 1;
	memcpy(r->buf, key, sizeof(key) - 1);
	err = request(fd, AUDIT_ADD_RULE, r, len, NULL);
	free(r);
	return err;
}

/* "audit(1733212800.123:4567): ..." -> 4567 */
static unsigned long serial_of(const char *text)
{
	const char *colon = strchr(text, ':');

	return colon && !strncmp(text, "audit(", 6) ? strtoul(colon + 1, NULL, 10)
						    : 0;
}

static struct watch *watch_find(unsigned long serial)
{
	int i;

	for (i = 0; i < WATCH_SLOTS; i++)
		if (watches[i].serial == serial)
			return &watches[i];
	return NULL;
}

static void watch_record(int type, const char *text, size_t len)
{
	unsigned long serial = serial_of(text);
	char pattern[64];
	struct watch *w;

	if (!serial)
		return;
	w = watch_find(serial);
	if (!w && type == AUDIT_SYSCALL) {
		snprintf(pattern, sizeof(pattern), " comm=\"%s\"", comm);
		if (!memmem(text, len, pattern, strlen(pattern)))
			return;
		w = watch_find(0);
		if (!w)
			w = &watches[serial % WATCH_SLOTS];
		*w = (struct watch){ .serial = serial };
	}
	if (!w)
		return;
	if (type == AUDIT_EOE) {
		dprintf(watch_fd, "event %lu records=%lu paths=%lu\n", serial,
			w->records, w->paths);
		w->serial = 0;
		return;
	}
	if (w->records++ < EVENT_LINES)
		dprintf(watch_fd, "type=%d %.*s\n", type, (int)len, text);
	if (type == AUDIT_PATH)
		w->paths++;
}

static void record(int type, const char *text, size_t len)
{
	while (len && !text[len - 1])
		len--;
	totals[type > 0 && type < TYPES ? type : 0]++;
	if (log_bytes < LOG_MAX)
		log_bytes += dprintf(log_fd, "type=%d msg=%.*s\n", type,
				     (int)len, text);
	watch_record(type, text, len);
}

/* the kernel's status (AUDIT_GET), asked on a socket of its own */
static bool kernel_status(struct audit_status *st)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		struct audit_status st;
		char more[256];
	} msg = { .nh = { .nlmsg_len = NLMSG_LENGTH(0),
			  .nlmsg_type = AUDIT_GET,
			  .nlmsg_flags = NLM_F_REQUEST } };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	bool got;

	if (fd < 0)
		return false;
	got = sendto(fd, &msg, msg.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		     sizeof(kernel)) > 0 &&
	      recv(fd, &msg, sizeof(msg), 0) > (ssize_t)NLMSG_LENGTH(16) &&
	      msg.nh.nlmsg_type == AUDIT_GET;
	if (got)
		*st = msg.st;
	close(fd);
	return got;
}

static void kernel_counts(FILE *f)
{
	struct audit_status st;

	if (kernel_status(&st))
		fprintf(f, "lost %u backlog %u\n", st.lost, st.backlog);
}

/*
 * gvauditd --drained: returns once the kernel's queue of records is empty
 * (at most 30 s), so that the records of one test program do not keep
 * the CPUs of the next one busy.
 */
static int wait_drained(void)
{
	struct audit_status st;
	int i, empty = 0;

	for (i = 0; i < 600 && empty < 2; i++) {
		if (!kernel_status(&st))
			return 1;
		empty = st.backlog ? 0 : empty + 1;
		if (empty < 2)
			usleep(50000);
	}
	return empty < 2;
}

static void write_totals(void)
{
	char path[256], tmp[264];
	FILE *f;
	int t;

	snprintf(path, sizeof(path), "%s/totals", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	for (t = 0; t < TYPES; t++)
		if (totals[t])
			fprintf(f, "type=%d %lu\n", t, totals[t]);
	fprintf(f, "enobufs %lu\n", enobufs);
	kernel_counts(f);
	fclose(f);
	rename(tmp, path);
}

static void on_usr1(int sig)
{
	(void)sig;
	want_totals = 1;
}

static int open_in(const char *name, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(path);
	return fd;
}

/* registers as auditd, raises the backlog, loads the rules */
static int setup(int fd)
{
	struct audit_status s = { 0 };
	int err;

	s.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID;
	s.enabled = 1;
	s.pid = getpid();
	err = request(fd, AUDIT_SET, &s, sizeof(s), record);
	if (err)
		return err;
	memset(&s, 0, sizeof(s));
	s.mask = AUDIT_STATUS_BACKLOG_LIMIT;
	s.backlog_limit = BACKLOG;
	err = request(fd, AUDIT_SET, &s, sizeof(s), record);
	if (!err)
		err = add_rule(fd, AUDIT_ARCH_X86_64);
	if (!err)
		err = add_rule(fd, AUDIT_ARCH_I386);
	return err;
}

static void serve(int fd)
{
	char *buf = malloc(MSG_MAX);
	struct nlmsghdr *nh;
	ssize_t n;

	if (!buf)
		fail("malloc");
	for (;;) {
		if (want_totals) {
			want_totals = 0;
			write_totals();
		}
		n = recv(fd, buf, MSG_MAX, 0);
		if (n < 0 && errno == ENOBUFS)
			enobufs++;
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n <= 0)
			fail("recv");
		nh = (struct nlmsghdr *)buf;
		/*
		 * kauditd sends one record a datagram, its nlmsg_len the
		 * length of the text alone (audit_log_end(): as auditd
		 * knows); read as a netlink length, the last 16 bytes of
		 * each record (its key=, say) were lost.
		 */
		if (n > NLMSG_HDRLEN && nh->nlmsg_len == n - NLMSG_HDRLEN) {
			record(nh->nlmsg_type, NLMSG_DATA(nh), nh->nlmsg_len);
			continue;
		}
		for (; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n))
			record(nh->nlmsg_type, NLMSG_DATA(nh),
			       nh->nlmsg_len - NLMSG_HDRLEN);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int ready[2], fd, err, size = 8 << 20;
	char c;

	if (argc == 2 && !strcmp(argv[1], "--drained"))
		return wait_drained();
	if (argc != 3) {
		fprintf(stderr, "usage: gvauditd DIR COMM | --drained\n");
		return 2;
	}
	dir = argv[1];
	comm = argv[2];
	if (pipe(ready))
		fail("pipe");
	if (fork()) {
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			return 1;	/* the child said why */
		return 0;
	}
	close(ready[0]);
	setsid();
	sigaction(SIGUSR1, &sa, NULL);
	log_fd = open_in("audit.log", O_TRUNC);
	watch_fd = open_in("watched.log", O_APPEND);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		fail("socket(NETLINK_AUDIT)");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	err = setup(fd);
	if (err) {
		errno = -err;
		fail("loading the audit rule");
	}
	err = open_in("pid", O_TRUNC);
	dprintf(err, "%d\n", getpid());
	close(err);
	if (write(ready[1], "", 1) != 1)
		fail("write");
	close(ready[1]);
	serve(fd);
	return 0;
}
