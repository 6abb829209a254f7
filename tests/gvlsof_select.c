// SPDX-License-Identifier: MIT
/*
 * gvlsof_select.c - lsof's selections in gvlsof: file and directory names
 * (+d, +D), -c (prefixes, regular expressions, exclusions), -u, -g, -p,
 * -d, -i (protocols, addresses, ports, ranges), -s, -U, -N, +L, -e, -r;
 * every usage error lsof reports; the exit statuses, -Q and -V; and what
 * lsof does not do: a write error on standard output fails (/dev/full).
 *
 * Each case runs lsof and gvlsof with the same arguments and wants the
 * same exit status, standard output and standard error. Output is kept to
 * the holders' processes (-a -p) wherever the selection allows it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/sub.h"
#include "lib/tap.h"

static int tcp_port;

/*
 * The holders' command names begin with a tag of this run, so that -c
 * selects them and no process of another program (or of this test run
 * at the same time by someone else): "TAG files" and "TAGclient".
 */
static char tag[8], cmd_files[16], cmd_client[16];

/* The holders' files live in t/, apart from the tools' own output. */
static const char *tpath(const char *name)
{
	static char paths[8][PATH_MAX];
	static int k;
	char *p = paths[k++ % 8];

	snprintf(p, PATH_MAX, "%s/t%s%s", ls_dir, *name ? "/" : "", name);
	return p;
}

static int open_in_dir(const char *name, int flags)
{
	return ls_must(open(tpath(name), flags | O_CREAT, 0644), name);
}

/* Holder 0: files of the scratch directory, a tree, sockets. */
static void hold_files(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				   .sin_port = htons(tcp_port) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, cmd_files);
	open_in_dir("rw", O_RDWR);
	open_in_dir("ro", O_RDONLY);
	open_in_dir("sub/deep/leaf", O_RDONLY);
	/* three names of one file: which one a row takes is lsof's hashing */
	open_in_dir("link1", O_RDONLY);
	ls_must(link(tpath("link1"), tpath("link2")), "link");
	ls_must(link(tpath("link1"), tpath("link3")), "link");
	ls_must(open(tpath("sub"), O_RDONLY | O_DIRECTORY), "sub");
	open_in_dir("doomed", O_RDWR);
	unlink(tpath("doomed"));
	fd = ls_must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	ls_must(bind(fd, (void *)&sin, sizeof(sin)), "bind");
	ls_must(listen(fd, 4), "listen");
	ls_must(socket(AF_INET, SOCK_DGRAM, 0), "udp");
	fd = ls_must(socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", tpath("sock"));
	ls_must(bind(fd, (void *)&sun, sizeof(sun)), "unix bind");
	ls_must(listen(fd, 1), "unix listen");
	/* one whose file is gone: lsof 4.95 matches it by a stale stat(2) */
	fd = ls_must(socket(AF_UNIX, SOCK_STREAM, 0), "unix");
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", tpath("gone"));
	ls_must(bind(fd, (void *)&sun, sizeof(sun)), "unix bind");
	unlink(tpath("gone"));
	ls_must(open("/dev/null", O_RDONLY), "/dev/null");
}

/* Holder 1: a connection to holder 0, another command name. */
static void hold_client(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				   .sin_port = htons(tcp_port) };
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, cmd_client);
	open_in_dir("ro", O_RDONLY);
	fd = ls_must(socket(AF_INET, SOCK_STREAM, 0), "socket");
	ls_must(connect(fd, (void *)&sin, sizeof(sin)), "connect");
}

#define SAME(...)	ls_same_v("C", __VA_ARGS__, NULL)

static char pid0[16], pid1[16], pids[40], port[32], pgid[16], uid_s[16];
static const char *user;

static void file_names(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", tpath(""));
	SAME(tpath("rw"));
	SAME(tpath("ro"));
	SAME("-n", "-P", tpath("ro"), tpath("rw"));
	SAME(dir);
	SAME(tpath("sub/deep/leaf"));
	SAME(tpath("sub/"));
	SAME("+d", dir);
	SAME("+D", dir);
	SAME("-x", "+D", dir);
	SAME("+d", tpath("sub"), "-a", "-p", pid0);
	SAME("-f", tpath("rw"));
	SAME("+f", tpath("rw"));
	SAME(tpath("sock"));
	SAME(tpath("link1"), tpath("link2"));
	SAME(tpath("link2"), tpath("link1"), tpath("link3"));
	SAME(tpath("link3"), tpath("link2"), tpath("link1"));
	SAME(tpath("rw"), tpath("rw"), tpath("rw"));
	SAME("-a", "-p", pids, "/", "/");
	SAME(tpath("unheld"));
	SAME("-Q", tpath("unheld"));
	SAME("-V", tpath("unheld"));
	SAME("/no/such/file");
	SAME("-Q", "/no/such/file");
	SAME("+d", "/no/such/dir");
	SAME("+d", tpath("rw"));
	SAME("-a", "-p", pids, "/dev/null");
	SAME("-a", "-p", pids, "/");
	SAME("-a", "-p", pids, "+L1");
	SAME("-a", "-p", pids, "-x");
}

static void process_selections(void)
{
	char c[6][24];

	/* TAG as "gv" was: both holders; TAGc as "gvc": the client */
	snprintf(c[0], sizeof(c[0]), "%sc", tag);
	snprintf(c[1], sizeof(c[1]), "/^%s f/", tag);
	snprintf(c[2], sizeof(c[2]), "/%sC/i", tag);
	for (char *u = c[2]; *u; u++)
		*u = toupper((unsigned char)*u);
	c[2][strlen(c[2]) - 1] = 'i';
	snprintf(c[3], sizeof(c[3]), "/%s.l/b", tag);
	snprintf(c[4], sizeof(c[4]), "^%sc", tag);
	SAME("-c", tag);
	SAME("-c", c[0]);
	SAME("-c", c[1]);
	SAME("-c", c[2]);
	SAME("-c", c[3]);
	SAME("-a", "-p", pids, "-c", c[4]);
	SAME("-c", tag, "-c", c[4]);
	SAME("-c", c[0], "-c", c[4]);
	SAME("-c", "1234567890123456");
	SAME("-c", "/[/");
	SAME("-c", "/x/q");
	SAME("-c", "/x");
	SAME("-a", "-p", pids, "-u", user);
	SAME("-a", "-p", pids, "-u", uid_s);
	SAME("-a", "-p", pids, "-u", "^0", "-u", "^65534");
	SAME("-u", "no-such-user-gv");
	SAME("-u", "1,^1");
	SAME("-a", "-p", pids, "-g", pgid);
	SAME("-a", "-p", pids, "-g");
	SAME("-g", "x");
	SAME("-p", pid0, "-p", pid1);
	SAME("-p", pids, "-p", "^", pid1);
	SAME("-p", pid0, "-a", "-c", c[0]);
	SAME("-p", pid0, "-c", c[0]);
	SAME("-p", "999999999");
	SAME("-V", "-p", "999999999");
	SAME("-p", "abc");
	SAME("-p", "5,^5");
	SAME("-p");
	SAME("-a", "-p", pids, "-d", "0-2");
	SAME("-a", "-p", pids, "-d", "^0-2");
	SAME("-a", "-p", pids, "-d", "cwd,txt,3");
	SAME("-a", "-p", pids, "-d", "fd");
	SAME("-a", "-p", pids, "-d", "^fd");
	SAME("-d", "5-3");
	SAME("-d", "1-");
	SAME("-d", "cwd,^txt");
	SAME("-d", "1-x");
}

static void network_selections(void)
{
	char at[64], spec[96];

	snprintf(at, sizeof(at), ":%d", tcp_port);
	snprintf(spec, sizeof(spec), "TCP@127.0.0.1:%d", tcp_port);
	SAME("-a", "-p", pids, "-i");
	SAME("-a", "-p", pids, "-i", "-n");
	SAME("-a", "-p", pids, "-iTCP", "-P");
	SAME("-a", "-p", pids, "-iUDP", "-n", "-P");
	SAME("-a", "-p", pids, "-i4", "-n");
	SAME("-a", "-p", pids, "-i6", "-n");
	SAME("-a", "-p", pids, "-i", "@127.0.0.1", "-n");
	SAME("-a", "-p", pids, "-i", at, "-n", "-P");
	SAME("-a", "-p", pids, "-i", spec, "-n", "-P");
	SAME("-a", "-p", pids, "-i", ":1-65535", "-n", "-P");
	SAME("-a", "-p", pids, "-i", "@localhost", "-n", "-P");
	SAME("-a", "-p", pids, "-i", "[::1]", "-n", "-P");
	SAME("-a", "-p", pids, "-iTCP", "-sTCP:LISTEN", "-n", "-P");
	SAME("-a", "-p", pids, "-iTCP", "-sTCP:^LISTEN", "-n", "-P");
	SAME("-a", "-p", pids, "-i", "-sTCP:CLOSE_WAIT", "-n", "-P");
	SAME("-a", "-p", pids, "-U");
	SAME("-a", "-p", pids, "-U", "-i", "-n", "-P");
	SAME("-p", pid0, "-i", "-n", "-P");
	SAME("-p", pid0, "-a", "-N");
	SAME("-i", "bogus");
	SAME("-i", "@");
	SAME("-i", ":");
	SAME("-i", "TCP:no-such-service-gv");
	SAME("-i", "@no-such-host.invalid");
	SAME("-i", "TCP:5-1");
	SAME("-sTCP:BOGUS");
	SAME("-sUDP:Idle");
	SAME("-sXYZ:LISTEN");
	SAME("-i", "-X");
}

static void usage_errors(void)
{
	SAME("-C");
	SAME("-D");
	SAME("-A", "x");
	SAME("-k");
	SAME("-z");
	SAME("-Z");
	SAME("-m");
	SAME("-x", "l");
	SAME("-o", "-s");
	SAME("-F", "-t");
	SAME("-K", "x");
	SAME("-T", "z");
	SAME("+c", "16");
	SAME("+c", "x");
	SAME("-S", "1", "-a", "-p", pid0);
	SAME("-F", "Q");
	SAME("-a");
	SAME("-e", tpath("rw"));
	SAME("-e", "relative");
	SAME("-f", "x");
	SAME("-F", "?");
	SAME("-r", "1c2", "-a", "-p", pid0);
	SAME("-r", "1c2m--%%--", "-a", "-p", pid0);
	SAME("-F", "pfn", "-r", "1c2", "-a", "-p", pid0);
	SAME("+r", "1", "-p", "999999999");
	SAME("-F", "-r", "1m%n");
}

/* What gvlsof says of itself, where it is not lsof. */
static void help_and_version(void)
{
	const char *h[] = { "-h", NULL }, *v[] = { "-v", NULL };
	struct ls_run l = { 0 }, g = { 0 };
	int missing = 0;

	ls_run(&l, "lsof", "C", h);
	ls_run(&g, ls_as_lsof, "C", h);
	tap_is_long(g.status, l.status, "-h: lsof's exit status");
	/*
	 * every line of lsof's help but the usage line, which adds -J -j,
	 * and lsof's web addresses, which are not gvlsof's
	 */
	for (char *line = strtok(l.err, "\n"); line; line = strtok(NULL, "\n"))
		if (!strstr(line, "-F [f]") && !strstr(line, "latest") &&
		    !strstr(g.err, line)) {
			tap_diag("missing: %s", line);
			missing++;
		}
	tap_ok(!missing && strstr(g.err, "-J"), "-h: lsof's help and -J, -j");
	tap_ok(!strstr(g.err, "://") && strstr(g.err, "getvalues") &&
	       strstr(g.err, "gvlsof(1)"),
	       "-h: no web address, the project and its manual instead");
	ls_run_free(&l);
	ls_run_free(&g);
	ls_run(&l, "lsof", "C", v);
	ls_run(&g, ls_as_lsof, "C", v);
	tap_ok(l.status == g.status && strstr(g.err, "revision: 4.95.0\n") &&
	       strstr(g.err, "gvlsof") && !strstr(g.err, "://"),
	       "-v: lsof's revision, gvlsof named, no web address");
	ls_run_free(&l);
	ls_run_free(&g);
}

/*
 * +r: cycles while a process lives, each one marked, then exit 0 when it
 * has gone. The same process in each cycle, so the cycles are the same,
 * but for the last one, which may have caught the process as it exited
 * (its descriptors and maps going): at least two complete cycles.
 */
static void count_cycles(const char *what, const struct ls_run *r,
			 const char *mark, size_t mlen)
{
	const char *out = r->out, *stop = r->out + r->out_len, *p, *end;
	size_t len = 0;
	int cycles = 0, same = 0;

	for (p = out; (end = memmem(p, stop - p, mark, mlen));
	     p = end + mlen) {
		if (!cycles)
			len = end - p;
		if ((size_t)(end - p) == len && !memcmp(p, out, len) &&
		    same == cycles)
			same++;
		cycles++;
	}
	if (!tap_ok(same >= 2 && same >= cycles - 1 && len > 0 && p == stop,
		    "%s: cycles, the same but for the last, each marked",
		    what))
		tap_diag("%d cycles, %d the same from the first, %zu bytes "
			 "after the last", cycles, same, (size_t)(stop - p));
}

/*
 * The process lives until gvlsof has shown it in three cycles, however
 * long the machine takes to run them, then ends; gvlsof must then see it
 * gone and exit 0 (ls_run_repeat()).
 */
static void repeat(void)
{
	static const struct {
		const char *args[5], *mark;
		size_t mlen;
		const char *what;
	} cases[] = {
		{ { "+r", "1" }, "\n=======\n", 9, "+r 1" },
		{ { "+r", "1m--%%--" }, "\n--%--\n", 7, "+r 1m<fmt>" },
		{ { "-F", "pfn", "+r", "1" }, "\nm\n", 3, "-F pfn +r 1" },
		{ { "-F0", "+r", "1" }, "\nm\0\n", 4, "-F0 +r 1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ls_run r = { 0 };

		ls_run_repeat(&r, ls_as_lsof, cases[i].args, cases[i].mark,
			      cases[i].mlen, 3);
		tap_is_long(r.status, 0, "%s: exit 0 when the process is gone",
			    cases[i].what);
		count_cycles(cases[i].what, &r, cases[i].mark, cases[i].mlen);
		ls_run_free(&r);
	}
}

/* gvlsof > /dev/full: an error, where lsof exits 0 (gvlsof(1)). */
static void write_error(void)
{
	const char *argv[] = { ls_tool, "-p", pid0, NULL };
	struct ls_run r = { 0 };

	if (access("/dev/full", W_OK)) {
		tap_skip(1, "no /dev/full here");
		return;
	}
	ls_run_as(&r, "C", 0, "/dev/full", (char *const *)argv);
	if (!tap_ok(r.status == 1 && strstr(r.err, "write error") &&
		    strstr(r.err, "No space left on device"),
		    "> /dev/full: exit 1 and a message"))
		tap_diag("status %d, stderr: %s", r.status, r.err);
	ls_run_free(&r);
}

static void can_exec(void *path, void *res)
{
	*(int *)res = access(path, X_OK);
}

/* Why nobody may not run @path, or NULL if it may. */
static const char *nobody_cannot_run(const char *path)
{
	int res = -1;

	if (t_as_nobody(can_exec, (void *)path, &res, sizeof(res)))
		return T_NO_SECOND_USER;
	if (res)
		return "nobody cannot run the copy of gvlsof in $TMPDIR";
	return NULL;
}

/* A process that is gone; one we may not inspect. */
static void absent_and_denied(void)
{
	const char *why;
	char gone[16];
	pid_t p = fork();

	if (p < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!p)
		_exit(0);
	waitpid(p, NULL, 0);
	snprintf(gone, sizeof(gone), "%d", (int)p);
	SAME("-p", gone);
	SAME("-V", "-p", gone, "-p", pid0);

	if (geteuid() == 0 && (why = nobody_cannot_run(ls_as_lsof))) {
		tap_skip(1, "%s", why);
	} else if (geteuid() == 0) {
		/* as nobody, a holder of root's */
		const char *const as_nobody[] = { "-p", pid0, NULL };
		struct ls_run l = { 0 }, g = { 0 };
		const char *argv_l[] = { "lsof", as_nobody[0], as_nobody[1],
					 NULL };
		const char *argv_g[] = { ls_as_lsof, as_nobody[0],
					 as_nobody[1], NULL };

		ls_run_as(&l, "C", 65534, NULL, (char *const *)argv_l);
		ls_run_as(&g, "C", 65534, NULL, (char *const *)argv_g);
		tap_ok(l.status == g.status && l.out_len == g.out_len &&
		       !memcmp(l.out, g.out, l.out_len) &&
		       strstr(g.out, "(readlink: Permission denied)") &&
		       strstr(g.out, "(opendir: Permission denied)"),
		       "as nobody: lsof's rows of errors for root's process");
		if (l.out_len != g.out_len || memcmp(l.out, g.out, l.out_len))
			ls_diag_first_diff("stdout", l.out, g.out);
		ls_run_free(&l);
		ls_run_free(&g);
	} else {
		char one[] = "1";
		struct stat st;

		/* the first process is root's, and closed to us */
		if (stat("/proc/1", &st) || st.st_uid == geteuid() ||
		    !access("/proc/1/fd", R_OK))
			tap_skip(1, "no process here that is closed to us");
		else
			SAME("-p", one);
	}
}

int main(void)
{
	struct passwd *pw;

	if (!ls_have_lsof())
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	ls_init("gvlsof-select");
	snprintf(tag, sizeof(tag), "gq%c%c", 'a' + getpid() % 26,
		 'a' + getpid() / 26 % 26);
	snprintf(cmd_files, sizeof(cmd_files), "%s files", tag);
	snprintf(cmd_client, sizeof(cmd_client), "%sclient", tag);
	{
		char sub[PATH_MAX];

		snprintf(sub, sizeof(sub), "%s", tpath("sub"));
		if (mkdir(tpath(""), 0755) || mkdir(sub, 0755) ||
		    mkdir(tpath("sub/deep"), 0755))
			tap_bail("mkdir: %s", strerror(errno));
	}
	tcp_port = ls_free_port();
	ls_holder(hold_files, NULL, NULL);
	ls_holder(hold_client, NULL, NULL);
	atexit(ls_kill_holders);
	snprintf(pid0, sizeof(pid0), "%d", (int)ls_holders[0]);
	snprintf(pid1, sizeof(pid1), "%d", (int)ls_holders[1]);
	snprintf(pids, sizeof(pids), "%s", ls_pids());
	snprintf(port, sizeof(port), "%d", tcp_port);
	snprintf(pgid, sizeof(pgid), "%d", (int)getpgid(ls_holders[0]));
	snprintf(uid_s, sizeof(uid_s), "%u", (unsigned)geteuid());
	pw = getpwuid(geteuid());
	user = pw ? strdup(pw->pw_name) : uid_s;

	file_names();
	process_selections();
	network_selections();
	usage_errors();
	help_and_version();
	repeat();
	write_error();
	absent_and_denied();
	ls_kill_holders();
	return tap_done();
}
