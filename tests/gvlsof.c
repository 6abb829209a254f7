// SPDX-License-Identifier: MIT
/*
 * gvlsof.c - gvlsof lists what lsof lists: two processes of our own hold
 * every kind of descriptor, and "lsof -n -P -p PIDS" and "gvlsof -p PIDS"
 * must agree row by row on all nine columns. Then the selections, -J, and
 * processes gvlsof may not inspect.
 *
 * Exact parity is expected in every column for every row here. Where it
 * cannot hold in general (gvlsof(1), COMPATIBILITY), the holders avoid the
 * case: no task lists (lsof -K), no unix socket path with a space, users
 * from /etc/passwd only.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "lib/tap.h"
#include "lib/util.h"

#define NCOLS 9
static const char *const cols[NCOLS] = {
	"COMMAND", "PID", "USER", "FD", "TYPE", "DEVICE", "SIZE/OFF", "NODE",
	"NAME",
};

struct row {
	char *f[NCOLS];
};

struct table {
	struct row *rows;
	int n;
};

static const char *dir;
static char gvlsof[4096];
static pid_t holders[2];

static void kill_holders(void)
{
	for (int i = 0; i < 2; i++)
		if (holders[i] > 0) {
			kill(holders[i], SIGKILL);
			waitpid(holders[i], NULL, 0);
			holders[i] = 0;
		}
}

/* ---- the holders ---- */

static int must(int fd, const char *what, int ready)
{
	if (fd < 0) {
		dprintf(ready, "%s: %s\n", what, strerror(errno));
		_exit(1);
	}
	return fd;
}

static int path_fd(const char *name, int flags, int ready)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return must(open(path, flags | O_CREAT, 0644), name, ready);
}

static void lock_range(int fd, short type, off_t len, int ready)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = len };

	must(fcntl(fd, F_SETLK, &fl), "fcntl lock", ready);
}

static void map_file(const char *name, bool unlink_it, int ready)
{
	char path[4096];
	int fd = path_fd(name, O_RDWR, ready);

	must(ftruncate(fd, 8192), "ftruncate", ready);
	if (mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
		must(-1, "mmap", ready);
	close(fd);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink_it)
		unlink(path);
}

static void inet_pair(int family, int ready)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	int l = socket(family, SOCK_STREAM, 0), c, u;

	if (l < 0 && family == AF_INET6)
		return;			/* no IPv6 here: not an error */
	ss.ss_family = family;
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
		must(-1, "tcp listen", ready);
	}
	must(getsockname(l, (void *)&ss, &len), "getsockname", ready);
	c = must(socket(family, SOCK_STREAM, 0), "tcp socket", ready);
	must(connect(c, (void *)&ss, len), "connect", ready);
	must(accept(l, NULL, NULL), "accept", ready);
	u = must(socket(family, SOCK_DGRAM, 0), "udp socket", ready);
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	must(bind(u, (void *)&ss, len), "udp bind", ready);
}

/* Holder 0: one descriptor of every kind. */
static void hold_everything(int ready)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], sp[2], fd, ep, efd, mem;
	char path[4096];

	prctl(PR_SET_NAME, "gv holder");
	fd = path_fd("ro", O_RDONLY, ready);
	fd = path_fd("wo", O_WRONLY, ready);
	fd = path_fd("rw", O_RDWR, ready);
	must(write(fd, "getvalues", 9), "write", ready);
	lock_range(fd, F_WRLCK, 0, ready);		/* W: whole file */
	must(open(dir, O_RDONLY | O_DIRECTORY), "dir", ready);
	path_fd("gone", O_RDWR, ready);
	snprintf(path, sizeof(path), "%s/gone", dir);
	unlink(path);
	must(pipe(p), "pipe", ready);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	must(mkfifo(path, 0600), "mkfifo", ready);
	must(open(path, O_RDWR), "fifo", ready);
	must(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), "socketpair", ready);
	fd = must(socket(AF_UNIX, SOCK_STREAM, 0), "unix socket", ready);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", dir);
	must(bind(fd, (void *)&sun, sizeof(sun)), "unix bind", ready);
	must(listen(fd, 1), "unix listen", ready);
	must(socket(AF_UNIX, SOCK_DGRAM, 0), "unix dgram", ready);
	inet_pair(AF_INET, ready);
	inet_pair(AF_INET6, ready);
	fd = must(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), "netlink",
		  ready);
	must(bind(fd, (void *)&snl, sizeof(snl)), "netlink bind", ready);
	/* an unbound netlink socket is in no /proc/net table: "sock" */
	must(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), "netlink", ready);
	must(open("/dev/null", O_WRONLY), "/dev/null", ready);
	must(open("/dev/urandom", O_RDONLY), "/dev/urandom", ready);
	efd = must(eventfd(0, 0), "eventfd", ready);
	ep = must(epoll_create1(0), "epoll", ready);
	must(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), "epoll_ctl", ready);
	must(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), "epoll_ctl", ready);
	/* a device whose position moves, where there is one */
	mem = open("/dev/mem", O_RDONLY);
	if (mem >= 0 && lseek(mem, 4096, SEEK_SET) != 4096)
		close(mem);
	map_file("mapped", false, ready);
	map_file("mapped-gone", true, ready);
}

/* Holder 1: other locks, a name without spaces, few descriptors. */
static void hold_locks(int ready)
{
	int fd;

	prctl(PR_SET_NAME, "gvholder2");
	fd = path_fd("ro", O_RDONLY, ready);
	lock_range(fd, F_RDLCK, 0, ready);		/* R: whole file */
	fd = path_fd("rw2", O_RDWR, ready);
	lock_range(fd, F_WRLCK, 4, ready);		/* w: a range */
	must(dup(fd), "dup", ready);
}

static pid_t start_holder(void (*hold)(int))
{
	int ready[2];
	char msg[256] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		/* only stdio is inherited: whatever else the runner left */
		if (ready[1] > 3)
			close_range(3, ready[1] - 1, 0);
		close_range(ready[1] + 1, ~0U, 0);
		hold(ready[1]);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		close(ready[1]);
		for (;;)
			pause();
	}
	close(ready[1]);
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	if (n != 1) {
		msg[n > 0 ? n : 0] = 0;
		kill_holders();
		tap_bail("holder: %s", n > 0 ? msg : "died");
	}
	return pid;
}

/* ---- running the tools ---- */

/* Run @argv with LC_ALL=C; returns its stdout; @status, @err optional. */
static char *capture(char *const argv[], int *status, char **err,
		     uid_t as)
{
	char out_path[4096], err_path[4096], *buf = NULL;
	int st;
	pid_t pid;

	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		setenv("LC_ALL", "C", 1);
		if (as && (setgroups(0, NULL) || setgid(as) || setuid(as)))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(k ? err_path : out_path, "r");
		size_t cap = 4096, len = 0;
		char *b = malloc(cap);

		while (f && b) {
			size_t got = fread(b + len, 1, cap - len - 1, f);

			len += got;
			if (len + 1 < cap)
				break;
			cap *= 2;
			b = realloc(b, cap);
		}
		if (f)
			fclose(f);
		if (!b)
			tap_bail("out of memory");
		b[len] = 0;
		if (k == 0)
			buf = b;
		else if (err)
			*err = b;
		else
			free(b);
	}
	return buf;
}

static char *trim(const char *s, size_t n)
{
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	return strndup(s, n);
}

/*
 * Split lsof's table into its nine columns, by the header: every column
 * but COMMAND and NAME is right-aligned to the end of its title, the FD
 * column being followed by the access and lock characters.
 */
static bool parse(char *text, struct table *t)
{
	char *line = strtok(text, "\n"), *hdr = line;
	size_t end[NCOLS];

	t->rows = NULL;
	t->n = 0;
	if (!hdr)
		return true;
	for (int c = 1; c < NCOLS; c++) {
		char key[16];
		const char *at;

		snprintf(key, sizeof(key), " %s", cols[c]);
		at = strstr(hdr, key);
		if (!at)
			return false;
		end[c] = at - hdr + strlen(key);
	}
	end[3] += 2;		/* access and lock follow the descriptor */
	while ((line = strtok(NULL, "\n"))) {
		struct row *r;
		size_t len = strlen(line), from = 0;

		if (len < end[7])
			return false;
		t->rows = realloc(t->rows, (t->n + 1) * sizeof(*t->rows));
		r = &t->rows[t->n++];
		r->f[0] = trim(line, strcspn(line, " "));
		from = strlen(r->f[0]);
		for (int c = 1; c < NCOLS - 1; c++) {
			r->f[c] = trim(line + from, end[c] - from);
			from = end[c];
		}
		r->f[8] = strdup(line + end[8] - strlen(cols[8]));
	}
	return true;
}

static void table_free(struct table *t)
{
	for (int i = 0; i < t->n; i++)
		for (int c = 0; c < NCOLS; c++)
			free(t->rows[i].f[c]);
	free(t->rows);
}

/* The access and lock characters of an FD column: "5uW" -> "uW". */
static const char *fd_mode(const char *fd)
{
	while (*fd >= '0' && *fd <= '9')
		fd++;
	return fd;
}

static bool has_row(const struct table *t, int col, const char *val,
		    int col2, const char *substr)
{
	for (int i = 0; i < t->n; i++) {
		const char *v = t->rows[i].f[col];

		if (col == 3 && *v >= '0' && *v <= '9')
			v = fd_mode(v);
		if (!strcmp(v, val) &&
		    (col2 < 0 || strstr(t->rows[i].f[col2], substr)))
			return true;
	}
	return false;
}

static void compare(const struct table *want, const struct table *got)
{
	tap_is_long(got->n, want->n, "gvlsof lists as many rows as lsof");
	for (int i = 0; i < want->n && i < got->n; i++) {
		const struct row *w = &want->rows[i], *g = &got->rows[i];
		bool same = true;

		for (int c = 0; c < NCOLS; c++)
			if (strcmp(w->f[c], g->f[c])) {
				same = false;
				tap_diag("%s: lsof \"%s\", gvlsof \"%s\"",
					 cols[c], w->f[c], g->f[c]);
			}
		tap_ok(same, "row %d (%s %s %s %s) equal in all columns", i + 1,
		       w->f[1], w->f[3], w->f[4], w->f[8]);
	}
}

/* Rows of lsof that prove every kind of descriptor was there. */
static void check_coverage(const struct table *t)
{
	static const struct { int col; const char *val; int col2;
			      const char *sub; const char *what; } k[] = {
		{ 3, "cwd", -1, NULL, "cwd" },
		{ 3, "rtd", -1, NULL, "rtd" },
		{ 3, "txt", -1, NULL, "txt" },
		{ 3, "mem", 8, "/mapped", "a mapped file" },
		{ 3, "DEL", 8, "/mapped-gone", "a mapped, deleted file" },
		{ 4, "REG", 8, "/ro", "a regular file" },
		{ 4, "REG", 8, "(deleted)", "a deleted file" },
		{ 4, "DIR", 8, "gv-", "a directory" },
		{ 4, "FIFO", 8, "pipe", "a pipe" },
		{ 4, "FIFO", 8, "/fifo", "a FIFO" },
		{ 4, "CHR", 8, "/dev/null", "/dev/null" },
		{ 4, "CHR", 8, "/dev/urandom", "a device with fdinfo" },
		{ 4, "unix", 8, "(LISTEN)", "a listening unix socket" },
		{ 4, "unix", 8, "(CONNECTED)", "a unix socket pair" },
		{ 4, "IPv4", 8, "(LISTEN)", "a TCP listener" },
		{ 4, "IPv4", 8, "(ESTABLISHED)", "a TCP connection" },
		{ 7, "UDP", -1, NULL, "a UDP socket" },
		{ 4, "netlink", 8, "ROUTE", "a netlink socket" },
		{ 4, "sock", 8, "protocol: NETLINK", "an unidentified socket" },
		{ 4, "a_inode", 8, "[eventfd:", "an eventfd" },
		{ 4, "a_inode", 8, "[eventpoll:", "an epoll with targets" },
		{ 3, "r", 8, "/ro", "read-only (r)" },
		{ 3, "w", 8, "/wo", "write-only (w)" },
		{ 3, "uW", 8, "/rw", "read-write, write-locked (uW)" },
		{ 3, "rR", 8, "/ro", "read-locked (rR)" },
		{ 3, "uw", 8, "/rw2", "range-locked (uw)" },
		{ 0, "gv\\x20hol", -1, NULL, "a command with a space" },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		tap_ok(has_row(t, k[i].col, k[i].val, k[i].col2, k[i].sub),
		       "lsof shows %s", k[i].what);
}

static int count_rows_for(const struct table *t, const char *pid)
{
	int n = 0;

	for (int i = 0; i < t->n; i++)
		n += !strcmp(t->rows[i].f[1], pid);
	return n;
}

int main(void)
{
	char pids[64], pid0[16], pid1[16], *out, *err, *lsof_out;
	struct table want, got, sel;
	const char *build = getenv("GV_BUILD");
	int status;

	if (system("command -v lsof >/dev/null 2>&1"))
		tap_skip_all("lsof is not installed (make check installs it "
			     "through scripts/deps.sh)");
	snprintf(gvlsof, sizeof(gvlsof), "%s/tools/gvlsof",
		 build ? build : "build");
	if (access(gvlsof, X_OK))
		tap_bail("%s: %s", gvlsof, strerror(errno));
	dir = t_tmpdir("lsof");
	chmod(dir, 0755);

	holders[0] = start_holder(hold_everything);
	holders[1] = start_holder(hold_locks);
	atexit(kill_holders);
	snprintf(pid0, sizeof(pid0), "%d", holders[0]);
	snprintf(pid1, sizeof(pid1), "%d", holders[1]);
	snprintf(pids, sizeof(pids), "%s,%s", pid0, pid1);

	lsof_out = capture((char *[]){ "lsof", "-n", "-P", "-p", pids, NULL },
			   &status, NULL, 0);
	tap_ok(status == 0, "lsof -n -P -p %s exits 0", pids);
	out = capture((char *[]){ gvlsof, "-p", pids, NULL }, &status, &err,
		      0);
	if (!tap_ok(status == 0 && !*err, "gvlsof -p %s exits 0, quietly",
		    pids))
		tap_diag("stderr: %s", err);
	free(err);
	if (!tap_ok(parse(lsof_out, &want), "lsof's table parses") ||
	    !tap_ok(parse(out, &got), "gvlsof's table parses"))
		tap_bail("unexpected output");
	check_coverage(&want);
	compare(&want, &got);
	free(out);

	/* -c PREFIX selects by command; ^ excludes, as in lsof */
	out = capture((char *[]){ gvlsof, "-c", "gvholder", NULL }, &status,
		      NULL, 0);
	parse(out, &sel);
	tap_ok(status == 0 && sel.n == count_rows_for(&got, pid1) &&
	       count_rows_for(&sel, pid1) == sel.n,
	       "-c gvholder lists exactly the second holder");
	table_free(&sel);
	free(out);
	out = capture((char *[]){ gvlsof, "-p", pids, "-c", "^gvholder",
				  NULL }, &status, NULL, 0);
	parse(out, &sel);
	tap_ok(status == 0 && sel.n == count_rows_for(&got, pid0) &&
	       count_rows_for(&sel, pid0) == sel.n,
	       "-c ^gvholder excludes it from -p");
	table_free(&sel);
	free(out);
	out = capture((char *[]){ gvlsof, "-a", "-p", pids, "-u", "root",
				  "-c", "gv h", NULL }, &status, NULL, 0);
	parse(out, &sel);
	tap_ok(status == 0 && sel.n == count_rows_for(&got, pid0) &&
	       count_rows_for(&sel, pid0) == sel.n,
	       "-a ANDs -p, -u and -c");
	table_free(&sel);
	free(out);
	out = capture((char *[]){ gvlsof, "-p", "999999999", NULL }, &status,
		      NULL, 0);
	tap_ok(status == 1 && !*out, "a PID that does not exist: exit 1");
	free(out);
	out = capture((char *[]){ gvlsof, "-u", "no-such-user-gv", NULL },
		      &status, &err, 0);
	tap_ok(status == 1 && strstr(err, "no-such-user-gv"),
	       "an unknown user: exit 1 and a message");
	free(out);
	free(err);

	/* -J: the same rows, as JSON a real parser reads */
	{
		char cmd[8192];
		FILE *f;
		int rows = -1;

		snprintf(cmd, sizeof(cmd),
			 "LC_ALL=C %s -J -p %s | python3 -c 'import json,sys; "
			 "d = json.load(sys.stdin)[\"gvlsof\"]; "
			 "print(len(d), sum(1 for r in d if r[\"fd\"].isdigit() "
			 "and r[\"mode\"] == \"u\" and r[\"lock\"] == "
			 "\"W\" and r[\"name\"].endswith(\"/rw\")))'",
			 gvlsof, pids);
		f = popen(cmd, "r");
		if (f) {
			int rw = 0;

			if (fscanf(f, "%d %d", &rows, &rw) != 2 || rw != 1)
				rows = -1;
			pclose(f);
		}
		tap_is_long(rows, got.n, "-J: valid JSON, the same rows");
	}

	/* a process we may not inspect: skipped, one line on stderr */
	out = capture((char *[]){ gvlsof, "-p", pid0, NULL }, &status, &err,
		      65534);
	tap_ok(status == 1 && !*out && strstr(err, "1 process not inspected") &&
	       !strchr(strchr(err, '\n') + 1, '\n'),
	       "as nobody: the holder is skipped with one line on stderr");
	free(out);
	free(err);

	table_free(&want);
	table_free(&got);
	free(lsof_out);
	kill_holders();
	return tap_done();
}
