// SPDX-License-Identifier: MIT
/*
 * gvlsof.c - gvlsof prints what lsof prints: processes of our own hold
 * every kind of file lsof knows on Linux, and for each of lsof's output
 * options, "lsof ARGS -a -p HOLDERS" and "gvlsof ARGS -a -p HOLDERS" must
 * give the same exit status, standard output and standard error, byte for
 * byte, in the C locale and in a UTF-8 one.
 *
 * lsof (the installed 4.95) is the reference: without it the program skips,
 * saying so. Selections, errors and exit statuses are in gvlsof_select.c,
 * -E and -K in gvlsof_endpoints.c, -J and -j in gvlsof_json.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

static bool have_ipv6, have_mqueue, have_big_fd;
static char mq_name[64];

static int open_in_dir(const char *name, int flags)
{
	return ls_must(open(ls_path(name), flags | O_CREAT, 0644), name);
}

static void lock_range(int fd, short type, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_len = len };

	ls_must(fcntl(fd, F_SETLK, &fl), "fcntl lock");
}

static void map_file(const char *name, bool unlink_it)
{
	int fd = open_in_dir(name, O_RDWR);

	ls_must(ftruncate(fd, 8192), "ftruncate");
	if (mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
		ls_must(-1, "mmap");
	close(fd);
	if (unlink_it)
		unlink(ls_path(name));
}

static void inet_pair(int family)
{
	struct sockaddr_storage ss = { .ss_family = family };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	int l = socket(family, SOCK_STREAM, 0), c, u;

	if (l < 0 && family == AF_INET6)
		return;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (bind(l, (void *)&ss, len) || listen(l, 4)) {
		if (family == AF_INET6) {
			close(l);
			return;
		}
		ls_must(-1, "tcp listen");
	}
	ls_must(getsockname(l, (void *)&ss, &len), "getsockname");
	c = ls_must(socket(family, SOCK_STREAM, 0), "tcp socket");
	ls_must(connect(c, (void *)&ss, len), "connect");
	ls_must(accept(l, NULL, NULL), "accept");
	u = ls_must(socket(family, SOCK_DGRAM, 0), "udp socket");
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	ls_must(bind(u, (void *)&ss, len), "udp bind");
}

static void unix_listener(const char *path, bool abstract)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(sun);
	int fd = ls_must(socket(AF_UNIX, SOCK_STREAM, 0), "unix socket");

	if (abstract) {
		snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "%s",
			 path);
		len = offsetof(struct sockaddr_un, sun_path) + 1 +
		      strlen(path);
	} else {
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	}
	ls_must(bind(fd, (void *)&sun, len), "unix bind");
	ls_must(listen(fd, 1), "unix listen");
}

/* Holder 0: one descriptor of every kind, with names to escape. */
static void hold_everything(void *arg)
{
	static const char *const names[] = {
		"back\\slash", "h\xc3\xa9", "x\xff", "tab\there", "new\nline",
		"sp ace", "c\x01trl", "del\x7f",
	};
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], sp[2], fd, ep, efd, master, slave;
	sigset_t mask;

	(void)arg;
	prctl(PR_SET_NAME, "gv holder");
	open_in_dir("ro", O_RDONLY);
	open_in_dir("wo", O_WRONLY);
	fd = open_in_dir("rw", O_RDWR);
	ls_must(write(fd, "getvalues", 9), "write");
	lock_range(fd, F_WRLCK, 0);			/* W: whole file */
	ls_must(open(ls_dir, O_RDONLY | O_DIRECTORY), "dir");
	open_in_dir("gone", O_RDWR);
	unlink(ls_path("gone"));
	ls_must(pipe(p), "pipe");
	ls_must(mkfifo(ls_path("fifo"), 0600), "mkfifo");
	ls_must(open(ls_path("fifo"), O_RDWR), "fifo");
	ls_must(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), "socketpair");
	unix_listener(ls_path("sock"), false);
	unix_listener(ls_path("sock et"), false);
	{
		/* abstract names are per network namespace: one per test run */
		char name[64];

		snprintf(name, sizeof(name), "gv-abstract-%d", (int)getppid());
		unix_listener(name, true);
	}
	ls_must(socket(AF_UNIX, SOCK_DGRAM, 0), "unix dgram");
	inet_pair(AF_INET);
	inet_pair(AF_INET6);
	fd = ls_must(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), "netlink");
	ls_must(bind(fd, (void *)&snl, sizeof(snl)), "netlink bind");
	/* an unbound netlink socket is in no /proc/net table: "sock" */
	ls_must(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), "netlink");
	ls_must(open("/dev/null", O_WRONLY), "/dev/null");
	ls_must(open("/dev/urandom", O_RDONLY), "/dev/urandom");
	efd = ls_must(eventfd(0, 0), "eventfd");
	ep = ls_must(epoll_create1(0), "epoll");
	ls_must(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), "epoll_ctl");
	ls_must(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), "epoll_ctl");
	ls_must(timerfd_create(CLOCK_MONOTONIC, 0), "timerfd");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	ls_must(signalfd(-1, &mask, 0), "signalfd");
	ls_must((int)syscall(SYS_pidfd_open, getpid(), 0), "pidfd_open");
	ls_must(openpty(&master, &slave, NULL, NULL, NULL), "openpty");
	map_file("mapped", false);
	map_file("mapped-gone", true);
	ls_must(memfd_create("gv-memfd", 0), "memfd_create");
	ls_must(open(ls_path("ro"), O_PATH), "O_PATH");
	fd = open_in_dir("big", O_RDWR);
	if (lseek(fd, 123456789012LL, SEEK_SET) < 0)
		ls_must(-1, "lseek");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		open_in_dir(names[i], O_RDWR);
	if (have_mqueue)
		ls_must(mq_open(mq_name, O_RDWR | O_CREAT, 0600, NULL),
			"mq_open");
	if (have_big_fd) {
		struct rlimit rl;

		/* the soft limit is often 1024, the hard one higher */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= 12345) {
			rl.rlim_cur = 12346;
			ls_must(setrlimit(RLIMIT_NOFILE, &rl), "setrlimit");
		}
		ls_must(dup2(0, 12345), "dup2");	/* lsof's "*345" */
	}
}

/* Holder 1: other locks, threads, a command name that is UTF-8. */
static void hold_locks(void *arg)
{
	pthread_t t;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "gv\xc3\xa9hold2");
	fd = open_in_dir("ro", O_RDONLY);
	lock_range(fd, F_RDLCK, 0);		/* R: whole file */
	fd = open_in_dir("rw2", O_RDWR);
	lock_range(fd, F_WRLCK, 4);		/* w: a range */
	ls_must(dup(fd), "dup");
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, ls_idle, i ? "gv worker1" :
						      "gv worker0"))
			ls_must(-1, "pthread_create");
}

/* lsof's own view of the holders covers every kind listed here. */
static void check_coverage(void)
{
	static const struct { const char *field; const char *what; } k[] = {
		{ "fcwd\n", "cwd" }, { "frtd\n", "rtd" }, { "ftxt\n", "txt" },
		{ "fmem\n", "mem rows" }, { "fDEL\n", "a deleted mapping" },
		{ "tREG\n", "a regular file" }, { "tDIR\n", "a directory" },
		{ "tFIFO\n", "FIFOs and pipes" }, { "tCHR\n", "devices" },
		{ "tunix\n", "unix sockets" }, { "tIPv4\n", "IPv4 sockets" },
		{ "tnetlink\n", "a netlink socket" },
		{ "tsock\n", "a socket in no table" },
		{ "ta_inode\n", "anonymous inodes" },
		{ "lW\n", "a write lock" }, { "lR\n", "a read lock" },
		{ "lw\n", "a range lock" }, { "n[eventfd:", "an eventfd" },
		{ "n[eventpoll:", "an epoll with targets" },
		{ "n[pidfd:", "a pidfd" }, { "(deleted)", "a deleted file" },
		{ "type=STREAM", "a unix stream" },
		{ "TST=LISTEN", "listeners" },
		{ "TST=ESTABLISHED", "a connection" },
	};
	const char *args[] = { "-F", "-a", "-p", ls_pids(), NULL };
	struct ls_run r = { 0 };

	ls_run(&r, "lsof", "C", args);
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		tap_ok(strstr(r.out, k[i].field), "lsof shows %s", k[i].what);
	if (have_big_fd)
		tap_ok(strstr(r.out, "f*345\n"),
		       "lsof shows a descriptor of five digits");
	else
		tap_skip(1, "descriptor 12345 is above the hard limit of "
			 "descriptors");
	if (have_ipv6)
		tap_ok(strstr(r.out, "tIPv6\n"), "lsof shows IPv6 sockets");
	else
		tap_skip(1, "no IPv6 on the loopback interface");
	if (have_mqueue)
		tap_ok(strstr(r.out, "tPSXMQ\n"),
		       "lsof shows a POSIX message queue");
	else
		tap_skip(1, "no mqueue file system mounted");
	ls_run_free(&r);
}

/* lsof's output options, each ANDed with the holders' PIDs */
static const char *const option_sets[][6] = {
	{ NULL }, { "-n", NULL }, { "-P", NULL }, { "-n", "-P", NULL },
	{ "-l", NULL }, { "+c", "0", NULL }, { "+c", "15", NULL },
	{ "+c", "3", NULL }, { "-o", NULL }, { "-o", "3", NULL },
	{ "-oo", NULL }, { "-s", NULL }, { "+L", NULL }, { "-L", NULL },
	{ "+L1", NULL }, { "-R", NULL }, { "-g", NULL }, { "-R", "-g", NULL },
	{ "-T", NULL }, { "-Tq", NULL }, { "-Ts", NULL }, { "-Tqs", NULL },
	{ "-Tf", NULL }, { "+fg", NULL }, { "+fG", NULL }, { "-f", NULL },
	{ "-t", NULL }, { "-X", NULL }, { "-w", NULL }, { "+w", NULL },
	{ "-b", NULL }, { "-O", NULL }, { "-S", NULL }, { "-S", "5", NULL },
	{ "-K", NULL }, { "-Ki", NULL }, { "-M", NULL }, { "-V", NULL },
	{ "-F", NULL }, { "-F0", NULL }, { "-F", "pcfnaltTDsoiPkgRLKMu", NULL },
	{ "-F0", "-T", NULL }, { "-F", "-o", NULL }, { "-F", "-s", NULL },
	{ "-FG", NULL }, { "-F", "pfn", "-n", "-P", NULL },
	{ "-F", "pfo", "-o", "0", NULL }, { "-F0", "+fg", NULL },
};

int main(void)
{
	static const char *const locales[] = { "C", "C.utf8" };
	int nlocales = 1;

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	ls_init("gvlsof");
	{
		int s = socket(AF_INET6, SOCK_STREAM, 0);
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
					     .sin6_addr = in6addr_loopback };

		have_ipv6 = s >= 0 && !bind(s, (void *)&sin6, sizeof(sin6));
		if (s >= 0)
			close(s);
	}
	{
		struct stat st;

		snprintf(mq_name, sizeof(mq_name), "/gv-test-%d", getpid());
		have_mqueue = !stat("/dev/mqueue", &st) &&
			      !system("grep -qw mqueue /proc/self/mounts");
	}
	{
		struct rlimit rl;

		have_big_fd = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
			      rl.rlim_max > 12345;
	}
	if (!system("locale -a 2>/dev/null | grep -qix c.utf8"))
		nlocales = 2;
	ls_holder(hold_everything, NULL, NULL);
	ls_holder(hold_locks, NULL, NULL);
	atexit(ls_kill_holders);
	if (have_mqueue)
		mq_unlink(mq_name);

	check_coverage();
	for (int l = 0; l < nlocales; l++) {
		for (size_t i = 0; i < sizeof(option_sets) /
				       sizeof(option_sets[0]); i++) {
			const char *args[16];
			size_t n = 0;

			for (const char *const *a = option_sets[i]; *a; a++)
				args[n++] = *a;
			args[n++] = "-a";
			args[n++] = "-p";
			args[n++] = ls_pids();
			args[n] = NULL;
			ls_same(locales[l], args);
		}
	}
	if (nlocales < 2)
		tap_skip(1, "no C.utf8 locale here");
	ls_kill_holders();
	return tap_done();
}
