// SPDX-License-Identifier: MIT
/*
 * proctable_fetch.c - the kernel's side of a listing, with no Python
 * object and so without the GIL: the pids of /proc, then in rounds of a
 * few getvalues() calls the files of every process that the asked
 * attributes need (round 1: stat, status, cmdline, ...; round 2: each
 * thread's stat and each descriptor's link; round 3: the fdinfo of the
 * descriptors that are regular files), parsed into numbers, and the
 * system calls psutil makes beside them (ioprio_get, a stat of a path,
 * the user database, the terminals of /dev). The credentials come from
 * pidfds where nothing else needs status (proctable_pidfd.c).
 *
 * Where psutil raises NoSuchProcess the process is left out (gone); an
 * entry that fails with ENOENT or ESRCH while /proc/PID is still there is
 * psutil's ZombieProcess or its "" for a kernel thread's exe.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "getvalues.h"
#include "proctable.h"

static const char *const file_names[PT_NFILE] = {
	[F_STAT] = "stat", [F_STATM] = "statm", [F_STATUS] = "status",
	[F_CMDLINE] = "cmdline", [F_ENVIRON] = "environ", [F_IO] = "io",
	[F_SMAPS] = "smaps_rollup", [F_EXE] = "exe", [F_CWD] = "cwd",
	[F_FD] = "fd", [F_TASK] = "task",
};

long pt_clock_ticks(void)
{
	static long ticks;

	if (!ticks)
		ticks = sysconf(_SC_CLK_TCK);
	return ticks;
}

long pt_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* psutil's cpu_count() (sysconf reads a file for it: once a listing). */
static long ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The pids of /proc, in order (process_iter yields them sorted). */
static int list_pids(struct pt_table *t)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int *pids = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return errno;
	while ((de = readdir(d))) {
		long long v;

		if (!pt_is_number(de->d_name, strlen(de->d_name), &v) || v < 0)
			continue;
		if (n == cap) {
			int *q = realloc(pids, (cap = cap ? 2 * cap : 512) *
					 sizeof(*q));

			if (!q) {
				free(pids);
				closedir(d);
				return ENOMEM;
			}
			pids = q;
		}
		pids[n++] = (int)v;
	}
	closedir(d);
	qsort(pids, n, sizeof(*pids), cmp_int);
	t->procs = calloc(n ? n : 1, sizeof(*t->procs));
	if (!t->procs) {
		free(pids);
		return ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		t->procs[i].pid = pids[i];
		t->procs[i].user = t->procs[i].tty = -1;
	}
	t->n = n;
	free(pids);
	return 0;
}

static bool is_lookup_err(uint32_t err)
{
	return err == ENOENT || err == ESRCH;
}

/*
 * psutil's check after ENOENT/ESRCH: is /proc/PID still there? As its
 * os.path.exists() asks, with stat(2): faccessat2(2), which a container's
 * seccomp profile may refuse, took every process for gone there.
 */
static bool still_there(int pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return stat(path, &st) == 0;
}

/*
 * The files of /proc/PID that every process needs for the attributes of
 * t->attrs. Some are read later, for some processes only (late_files()):
 * cmdline for a name of 15 characters or more and for an exe that
 * psutil guesses; statm where status is read and cannot stand for it;
 * status where a pidfd did not give the credentials. num_threads comes
 * from stat, whose field 20 is status's Threads (both get_nr_threads()
 * under the task's sighand lock, 0 without it: fs/proc/array.c).
 */
static unsigned int files_for(const struct pt_table *t)
{
	static const unsigned int need[PT_NATTR] = {
		[A_EXE] = PT_BIT(F_EXE),
		[A_CMDLINE] = PT_BIT(F_CMDLINE),
		[A_ENVIRON] = PT_BIT(F_ENVIRON),
		[A_USERNAME] = PT_BIT(F_STATUS), [A_UIDS] = PT_BIT(F_STATUS),
		[A_GIDS] = PT_BIT(F_STATUS),
		[A_NUM_CTX_SWITCHES] = PT_BIT(F_STATUS),
		[A_MEMORY_INFO] = PT_BIT(F_STATM),
		[A_MEMORY_PERCENT] = PT_BIT(F_STATM),
		[A_MEMORY_FULL_INFO] = PT_BIT(F_STATM) | PT_BIT(F_SMAPS),
		[A_NUM_FDS] = PT_BIT(F_FD), [A_OPEN_FILES] = PT_BIT(F_FD),
		[A_IO_COUNTERS] = PT_BIT(F_IO), [A_CWD] = PT_BIT(F_CWD),
		[A_THREADS] = PT_BIT(F_TASK),
	};
	unsigned int files = PT_BIT(F_STAT);

	for (int a = 0; a < PT_NATTR; a++)
		if (t->attrs & PT_BIT(a))
			files |= need[a];
	if (t->pidfd_chunk)
		files &= ~PT_BIT(F_STATUS);	/* pt_pidfd_creds() */
	if ((files & PT_BIT(F_STATUS)) && (files & PT_BIT(F_STATM)))
		files &= ~PT_BIT(F_STATM);	/* status has its numbers */
	return files;
}

/* The files of round 1 for process @p: status too where no pidfd is. */
static unsigned int proc_files(const struct pt_table *t,
			       const struct pt_proc *p)
{
	return t->files | (p->status_now ? PT_BIT(F_STATUS) : 0);
}

/* The credentials of status, where they were read from it. */
static void status_ids(struct pt_proc *p)
{
	if (!p->status_ok)
		return;
	p->uid_ok = p->status.has_uid;
	p->gid_ok = p->status.has_gid;
	memcpy(p->uid, p->status.uid, sizeof(p->uid));
	memcpy(p->gid, p->status.gid, sizeof(p->gid));
}

/* Whether psutil's exe() would guess from cmdline (resolve_paths()). */
static bool exe_guessed(const struct pt_proc *p)
{
	int err = 0;

	if (!p->f[F_EXE].err)
		pt_strip_deleted(p->f[F_EXE].p, p->f[F_EXE].len, &err);
	return p->f[F_EXE].err || err;
}

/* The files that process @p needs beyond t->files, after round 1. */
static unsigned int late_files(const struct pt_table *t,
			       const struct pt_proc *p)
{
	unsigned int files = 0;
	uint64_t mem = PT_BIT(A_MEMORY_INFO) | PT_BIT(A_MEMORY_PERCENT) |
		       PT_BIT(A_MEMORY_FULL_INFO);

	if (p->gone)
		return 0;
	if ((t->attrs & mem) && !(t->files & PT_BIT(F_STATM)) && !p->statm_ok)
		files |= PT_BIT(F_STATM);
	if (!(t->files & PT_BIT(F_CMDLINE)) &&
	    (((t->attrs & PT_BIT(A_NAME)) && p->st.name_len >= 15) ||
	     ((t->attrs & PT_BIT(A_EXE)) && exe_guessed(p))))
		files |= PT_BIT(F_CMDLINE);
	if (t->pidfd_chunk && !p->status_now && !p->uid_ok)
		files |= PT_BIT(F_STATUS);
	return files;
}

static void parse_round1(struct pt_table *t, struct pt_proc *p)
{
	struct pt_val *f = p->f;
	unsigned int w = proc_files(t, p);

	p->stat_ok = !f[F_STAT].err && pt_parse_stat(&f[F_STAT], &p->st);
	/*
	 * psutil's Process(pid) reads it first: NoSuchProcess, but for a
	 * refusal (/proc mounted with hidepid=1: EPERM), which it lets pass,
	 * and the values from stat are AccessDenied (proctable.c).
	 */
	if (!p->stat_ok && f[F_STAT].err != EPERM && f[F_STAT].err != EACCES) {
		p->gone = true;
		return;
	}
	/* its status is refused alike: a pidfd's credentials are not psutil's */
	if (!p->stat_ok)
		p->uid_ok = p->gid_ok = false;
	if (w & PT_BIT(F_STATUS))
		p->status_ok = !f[F_STATUS].err &&
			       pt_parse_status(&f[F_STATUS], &p->status);
	status_ids(p);
	if ((w & PT_BIT(F_STATUS)) && p->status_ok && p->stat_ok)
		p->statm_ok = pt_status_statm(&p->status, pt_page_size(),
					      p->st.vsize, p->statm);
	if (w & PT_BIT(F_STATM))
		p->statm_ok = !f[F_STATM].err &&
			      pt_parse_statm(&f[F_STATM], p->statm);
	if (w & PT_BIT(F_IO))
		p->io_ok = !f[F_IO].err && pt_parse_io(&f[F_IO], p->io);
	if (w & PT_BIT(F_SMAPS))
		p->smaps_ok = !f[F_SMAPS].err &&
			      pt_parse_smaps_rollup(&f[F_SMAPS], p->smaps);
	/*
	 * psutil's environ() turns ESRCH into NoSuchProcess, and
	 * process_iter() leaves the process out: a kernel thread's environ
	 * gives it (Linux 6.18), and so does a process whose mm is gone.
	 */
	if (f[F_ENVIRON].err == ESRCH) {
		p->gone = true;
		return;
	}
	for (int i = 0; i < PT_NFILE; i++)
		if (is_lookup_err(f[i].err)) {
			p->gone = !still_there(p->pid);
			break;
		}
}

/*
 * Round 1 of procs[@lo..@hi) of table @arg: their pidfds opened (where the
 * credentials come from them), their files read, then the pidfds asked
 * and closed: the order proctable_pidfd.c needs. Ranges run at once in
 * several threads (proctable_share.c): only this range's processes are
 * written.
 */
static int round1_chunk(void *arg, size_t lo, size_t hi)
{
	struct pt_table *t = arg;
	struct pt_batch b = { 0 };
	int fds[PT_PIDFD_MAX];
	size_t k = 0;
	int err;

	if (t->pidfd_chunk)
		pt_pidfd_open(t, lo, hi, fds);
	for (size_t i = lo; i < hi; i++) {
		unsigned int w = proc_files(t, &t->procs[i]);

		for (int f = 0; f < PT_NFILE; f++)
			if (w & PT_BIT(f))
				pt_batch_add(&b, f >= F_FD ? "dir:" : "data:",
					     t->procs[i].pid, file_names[f], -1);
	}
	err = pt_batch_run(t, &b);
	if (t->pidfd_chunk)
		pt_pidfd_creds(t, lo, hi, fds);
	for (size_t i = lo; !err && i < hi; i++) {
		unsigned int w = proc_files(t, &t->procs[i]);

		for (int f = 0; f < PT_NFILE; f++)
			if (w & PT_BIT(f))
				pt_val_set(&t->procs[i].f[f], &b.vec[k++]);
			else	/* not read (yet) */
				t->procs[i].f[f] = (struct pt_val){
					.p = "", .err = ENODATA };
		parse_round1(t, &t->procs[i]);
	}
	pt_batch_free(&b);
	return err;
}

/*
 * Round 1: the files every process needs, in a few getvalues() calls, a
 * range of processes at a time, shared out between threads; a range is
 * at most a round of pidfds where each process holds one meanwhile.
 */
static int round1(struct pt_table *t)
{
	t->threads = pt_share_threads(t->threads);
	return pt_share(t->n, t->pidfd_chunk, t->threads, round1_chunk, t);
}

/* Round 1's late files (late_files()), of the processes that need them. */
static int round1_late(struct pt_table *t)
{
	static const int late[3] = { F_STATM, F_CMDLINE, F_STATUS };
	struct pt_batch b = { 0 };
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < t->n; i++) {
		unsigned int w = late_files(t, &t->procs[i]);

		for (int j = 0; j < 3; j++)
			if (w & PT_BIT(late[j]))
				pt_batch_add(&b, "data:", t->procs[i].pid,
					     file_names[late[j]], -1);
	}
	if (b.n)
		err = pt_batch_run(t, &b);
	for (size_t i = 0; !err && b.n && i < t->n; i++) {
		struct pt_proc *p = &t->procs[i];
		unsigned int w = late_files(t, p);

		for (int j = 0; j < 3; j++) {
			struct pt_val *v = &p->f[late[j]];

			if (!(w & PT_BIT(late[j])))
				continue;
			pt_val_set(v, &b.vec[k++]);
			if (late[j] == F_STATM)
				p->statm_ok = !v->err &&
					      pt_parse_statm(v, p->statm);
			if (late[j] == F_STATUS) {
				p->status_ok = !v->err &&
					       pt_parse_status(v, &p->status);
				status_ids(p);
			}
			if (is_lookup_err(v->err) && !p->gone)
				p->gone = !still_there(p->pid);
		}
	}
	pt_batch_free(&b);
	return err;
}

/*
 * psutil's guess of exe from cmdline[0] (Process.exe()): an absolute path
 * to a regular file this process may execute; else @fallback.
 */
static void guess_exe(struct pt_proc *p, enum pt_path_kind fallback)
{
	const struct pt_val *c = &p->f[F_CMDLINE];
	const char *end;
	unsigned int mode;
	char sep, path[4096];
	size_t eff;

	p->exe.kind = fallback;
	if (c->err || !c->len)
		return;	/* cmdline's AccessDenied gives the fallback too */
	pt_cmdline_shape(c->p, c->len, &sep, &eff);
	end = memchr(c->p, sep, eff);
	eff = end ? (size_t)(end - c->p) : eff;
	if (!eff || c->p[0] != '/' || eff >= sizeof(path) ||
	    pt_path_stat(c->p, eff, &mode) || !S_ISREG(mode))
		return;
	memcpy(path, c->p, eff);
	path[eff] = 0;
	if (access(path, X_OK))
		return;
	p->exe = (struct pt_path){ P_PATH, c->p, eff };
}

/* exe and cwd as psutil's readlink() and its errors make them. */
static void resolve_paths(struct pt_table *t, struct pt_proc *p)
{
	const struct pt_val *v;
	int err;

	if (t->files & PT_BIT(F_EXE)) {
		v = &p->f[F_EXE];
		if (!v->err) {
			size_t len = pt_strip_deleted(v->p, v->len, &err);

			if (err)
				guess_exe(p, P_DENIED);
			else
				p->exe = (struct pt_path){ P_PATH, v->p, len };
		} else if (is_lookup_err(v->err)) {
			guess_exe(p, P_EMPTY);
		} else {
			guess_exe(p, P_DENIED);
		}
	}
	if (t->files & PT_BIT(F_CWD)) {
		v = &p->f[F_CWD];
		p->cwd.kind = P_DENIED;
		if (!v->err) {
			size_t len = pt_strip_deleted(v->p, v->len, &err);

			if (!err)
				p->cwd = (struct pt_path){ P_PATH, v->p, len };
		}
	}
}

static struct pt_extra *extra_add(struct pt_table *t, size_t proc,
				  long long id)
{
	if (t->nextra == t->extra_cap) {
		size_t c = t->extra_cap ? 2 * t->extra_cap : 1024;
		struct pt_extra *q = realloc(t->extra, c * sizeof(*q));

		if (!q)
			return NULL;
		t->extra = q;
		t->extra_cap = c;
	}
	t->extra[t->nextra] = (struct pt_extra){ .proc = proc, .id = id };
	return &t->extra[t->nextra++];
}

/* psutil sorts the names of task/ as strings: "10" before "9". */
static int cmp_id_text(const void *a, const void *b)
{
	char x[24], y[24];

	snprintf(x, sizeof(x), "%lld", ((const struct pt_extra *)a)->id);
	snprintf(y, sizeof(y), "%lld", ((const struct pt_extra *)b)->id);
	return strcmp(x, y);
}

/* The items of the listing @v of process @i as extras; their first index. */
static int add_listing(struct pt_table *t, size_t i, const struct pt_val *v,
		       size_t *first, size_t *n)
{
	const char *it = NULL;
	size_t len = 0;
	long long id;

	*first = t->nextra;
	while ((it = pt_list_next(v, it, &len)))
		if (pt_is_number(it, len, &id) && !extra_add(t, i, id))
			return ENOMEM;
	*n = t->nextra - *first;
	return 0;
}

/* Round 2's names: each thread's stat, each descriptor's link. */
static int round2_names(struct pt_table *t, struct pt_batch *b)
{
	bool threads = t->attrs & PT_BIT(A_THREADS);
	bool files = t->attrs & PT_BIT(A_OPEN_FILES);

	for (size_t i = 0; i < t->n; i++) {
		struct pt_proc *p = &t->procs[i];

		if (p->gone)
			continue;
		if (threads && !p->f[F_TASK].err) {
			if (add_listing(t, i, &p->f[F_TASK], &p->task_first,
					&p->task_n))
				return ENOMEM;
			qsort(t->extra + p->task_first, p->task_n,
			      sizeof(*t->extra), cmp_id_text);
			for (size_t k = 0; k < p->task_n; k++)
				pt_batch_add(b, "data:", p->pid, "task/%/stat",
					     t->extra[p->task_first + k].id);
		}
		if (files && !p->f[F_FD].err) {
			if (add_listing(t, i, &p->f[F_FD], &p->fd_first,
					&p->fd_n))
				return ENOMEM;
			for (size_t k = 0; k < p->fd_n; k++)
				pt_batch_add(b, "data:", p->pid, "fd/",
					     t->extra[p->fd_first + k].id);
		}
	}
	return 0;
}

/*
 * A descriptor's link as psutil's open_files() takes it: skipped when
 * gone, not a link or too long; AccessDenied for any other error or where
 * the check of its path is refused; a candidate (its fdinfo is read) when
 * it is an absolute path to a regular file.
 */
static void check_fd(struct pt_proc *p, struct pt_extra *x)
{
	unsigned int mode;
	int err;

	x->state = XS_SKIP;
	if (x->v.err) {
		if (!is_lookup_err(x->v.err) && x->v.err != EINVAL &&
		    x->v.err != ENAMETOOLONG)
			p->files_denied = true;
		return;
	}
	x->path_len = (uint32_t)pt_strip_deleted(x->v.p, x->v.len, &err);
	if (err) {
		p->files_denied = true;
		return;
	}
	if (!x->path_len || x->v.p[0] != '/')
		return;
	err = pt_path_stat(x->v.p, x->path_len, &mode);
	if (err == EACCES || err == EPERM)
		p->files_denied = true;
	else if (!err && S_ISREG(mode))
		x->state = XS_CANDIDATE;
}

static int round2(struct pt_table *t)
{
	struct pt_batch b = { 0 };
	size_t k = 0;
	int err = round2_names(t, &b);

	if (!err && b.n)
		err = pt_batch_run(t, &b);
	for (size_t i = 0; !err && b.n && i < t->nextra; i++) {
		struct pt_extra *x = &t->extra[i];
		struct pt_proc *p = &t->procs[x->proc];
		bool thread = i >= p->task_first &&
			      i < p->task_first + p->task_n;

		pt_val_set(&x->v, &b.vec[k++]);
		if (!thread)
			check_fd(p, x);
		else if (!x->v.err && pt_parse_thread_stat(&x->v, &x->a, &x->b))
			x->state = XS_OK;
		/* psutil's _assert_alive() after a thread or file gone */
		if (is_lookup_err(x->v.err) && !p->gone && !still_there(p->pid))
			p->gone = true;
	}
	pt_batch_free(&b);
	return err;
}

/* Round 3: the fdinfo of the descriptors that are regular files. */
static int round3(struct pt_table *t)
{
	struct pt_batch b = { 0 };
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < t->nextra; i++)
		if (t->extra[i].state == XS_CANDIDATE)
			pt_batch_add(&b, "data:", t->procs[t->extra[i].proc].pid,
				     "fdinfo/", t->extra[i].id);
	if (b.n)
		err = pt_batch_run(t, &b);
	for (size_t i = 0; !err && b.n && i < t->nextra; i++) {
		struct pt_extra *x = &t->extra[i];

		if (x->state != XS_CANDIDATE)
			continue;
		pt_val_set(&x->info, &b.vec[k++]);
		x->state = XS_SKIP;
		if (!x->info.err && pt_parse_fdinfo(&x->info, &x->a, &x->b))
			x->state = XS_OK;
		else if (x->info.err && !is_lookup_err(x->info.err))
			t->procs[x->proc].files_denied = true;
	}
	pt_batch_free(&b);
	return err;
}

/*
 * The name of @uid into *@name (NULL where there is none), as Python's
 * pwd.getpwuid() finds it: its buffer grown while getpwuid_r() says
 * ERANGE (an entry with a long GECOS), any other failure no name. 0 or
 * ENOMEM.
 */
static int user_name(uid_t uid, char **name)
{
	struct passwd pw, *res = NULL;
	size_t size = 1024;
	char *buf = NULL;
	int err;

	*name = NULL;
	do {
		char *more;

		if (size >= (1u << 20))
			break;		/* a megabyte: no name, as a failure */
		more = realloc(buf, size *= 2);
		if (!more) {
			free(buf);
			return ENOMEM;
		}
		buf = more;
		err = getpwuid_r(uid, &pw, buf, size, &res);
	} while (err == ERANGE);
	if (!err && res && !(*name = strdup(pw.pw_name)))
		err = ENOMEM;
	free(buf);
	return err == ENOMEM ? ENOMEM : 0;
}

/* The user name of each uid met (psutil: pwd.getpwuid(uids().real)). */
static int resolve_users(struct pt_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct pt_proc *p = &t->procs[i];
		uid_t uid = (uid_t)p->uid[0];
		size_t u;

		if (p->gone || !p->uid_ok)
			continue;
		for (u = 0; u < t->nusers && t->users[u].uid != uid; u++)
			;
		if (u == t->nusers) {
			struct pt_user *q = realloc(t->users,
						    (u + 1) * sizeof(*q));

			if (!q)
				return ENOMEM;
			t->users = q;
			q[u].uid = uid;
			if (user_name(uid, &q[u].name))
				return ENOMEM;
			t->nusers++;
		}
		p->user = (int)u;
	}
	return 0;
}

static int tty_add(struct pt_table *t, const char *path)
{
	struct stat sb;
	struct pt_tty *q;

	if (stat(path, &sb))
		return 0;	/* psutil skips a FileNotFoundError */
	q = realloc(t->ttys, (t->nttys + 1) * sizeof(*q));
	if (!q)
		return ENOMEM;
	t->ttys = q;
	q[t->nttys].rdev = sb.st_rdev;
	if (!(q[t->nttys].path = strdup(path)))
		return ENOMEM;
	t->nttys++;
	return 0;
}

/* psutil's terminal map: the /dev/tty* and /dev/pts/ entries, stat'ed. */
static int scan_ttys(struct pt_table *t)
{
	static const char *const dirs[2] = { "/dev", "/dev/pts" };
	char path[300];
	int err = 0;

	for (int i = 0; i < 2 && !err; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		while (d && !err && (de = readdir(d))) {
			if (de->d_name[0] == '.' ||
			    (!i && strncmp(de->d_name, "tty", 3)))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i],
				 de->d_name);
			err = tty_add(t, path);
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 0; i < t->n; i++)
		for (size_t k = t->nttys; k-- > 0;)	/* the last one wins */
			if (t->ttys[k].rdev ==
			    (unsigned long long)t->procs[i].st.tty_nr) {
				t->procs[i].tty = (int)k;
				break;
			}
	return err;
}

static void get_ioprio(struct pt_proc *p)
{
	long r = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, p->pid);

	p->ioprio_err = r < 0 ? errno : 0;
	p->ioprio = r < 0 ? 0 : (int)r;
	if (p->ioprio_err == ESRCH)
		p->gone = true;
}

/* The system calls beside the files, and what they depend on. */
static int after_files(struct pt_table *t)
{
	int err = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->procs[i].gone)
			continue;
		resolve_paths(t, &t->procs[i]);
		if (t->attrs & PT_BIT(A_IONICE))
			get_ioprio(&t->procs[i]);
	}
	if (t->attrs & PT_BIT(A_USERNAME))
		err = resolve_users(t);
	if (!err && (t->attrs & PT_BIT(A_TERMINAL)))
		err = scan_ttys(t);
	return err;
}

/*
 * A child forked while another thread listed: the module's locks that
 * thread held are free there (it does not exist in the child), so that
 * the child can list too. The pidfds that thread held stay open in the
 * child (O_CLOEXEC), as a descriptor psutil had open would.
 */
static void pt_fork_child(void)
{
	pt_pidfd_fork_child();
	pt_batch_fork_child();
}

static void pt_atfork(void)
{
	pthread_atfork(NULL, NULL, pt_fork_child);
}

/*
 * Everything a listing of t->attrs needs, without the GIL. 0 or an errno
 * of the listing itself (ENOMEM, or /proc not there).
 */
int pt_fetch(struct pt_table *t)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint64_t ids = PT_BIT(A_USERNAME) | PT_BIT(A_UIDS) | PT_BIT(A_GIDS);
	struct timespec ts;
	int err;

	pthread_once(&once, pt_atfork);
	/* num_ctx_switches reads status anyway: its credentials come free */
	if ((t->attrs & ids) && !(t->attrs & PT_BIT(A_NUM_CTX_SWITCHES)) &&
	    !t->no_pidfd)
		t->pidfd_chunk = pt_pidfd_chunk();
	t->files = files_for(t);
	err = list_pids(t);
	if (err == EMFILE || err == ENFILE) {	/* another listing's calls? */
		pt_calls_exclude(true);
		err = list_pids(t);
		pt_calls_exclude(false);
	}
	if (!err)
		err = round1(t);
	if (!err)
		err = round1_late(t);
	if (!err && (t->attrs & (PT_BIT(A_THREADS) | PT_BIT(A_OPEN_FILES))))
		err = round2(t);
	if (!err && (t->attrs & PT_BIT(A_OPEN_FILES)))
		err = round3(t);
	if (!err)
		err = after_files(t);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t->ncpus = ncpus();
	t->timer = ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9) *
		   (double)t->ncpus;
	return err;
}

void pt_table_free(struct pt_table *t)
{
	for (size_t i = 0; i < t->nbufs; i++)
		free(t->bufs[i]);
	for (size_t i = 0; i < t->nusers; i++)
		free(t->users[i].name);
	for (size_t i = 0; i < t->nttys; i++)
		free(t->ttys[i].path);
	free(t->bufs);
	free(t->users);
	free(t->ttys);
	free(t->procs);
	free(t->extra);
	*t = (struct pt_table){ 0 };
}
