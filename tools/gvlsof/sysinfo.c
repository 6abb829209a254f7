// SPDX-License-Identifier: MIT
/*
 * sysinfo.c - what gvlsof learns about the system rather than about one
 * process: login names, the locks of /proc/locks, the mount table and the
 * devices of pipefs and mqueue.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "gvlsof.h"

/* ------------------------------------------------------------------ */
/* Login names, through NSS as lsof asks for them.                    */

struct uidname {
	uid_t uid;
	char nm[LOGINML + 1];
};

static struct map uid_cache;

/*
 * lsof's printuid(): the login name of @uid or, with -l or when there is
 * none, the number right-aligned in USERPRTL columns. As in lsof, a UID
 * without a name is reported on standard error each time it is asked for
 * (unless -w).
 */
const char *printuid(uid_t uid, bool *numeric)
{
	static char user[32];
	struct uidname *u;
	struct passwd *pw;

	if (opt.futol) {
		u = map_get(&uid_cache, (uint64_t)uid + 1);
		if (u) {
			if (numeric)
				*numeric = false;
			return u->nm;
		}
		pw = getpwuid(uid);
		if (!pw) {
			if (!opt.fwarn) {
				fflush(stdout);
				fprintf(stderr, "%s: no pwd entry for UID %lu\n",
					opt.pn, (unsigned long)uid);
			}
		} else {
			u = xcalloc(1, sizeof(*u));
			u->uid = uid;
			strncpy(u->nm, pw->pw_name, LOGINML);
			map_put(&uid_cache, (uint64_t)uid + 1, u);
			if (numeric)
				*numeric = false;
			return u->nm;
		}
	}
	snprintf(user, sizeof(user), "%*lu", USERPRTL, (unsigned long)uid);
	if (numeric)
		*numeric = true;
	return user;
}

static void uid_cache_free(void)
{
	for (size_t i = 0; i < uid_cache.cap; i++)
		free(uid_cache.vals[i]);
	map_free(&uid_cache);
}

/* ------------------------------------------------------------------ */
/* Locks from /proc/locks: the FD column's lock character.            */

struct lock {
	struct lock *next;	/* of the same process and file */
	int pid;
	dev_t dev;
	uint64_t ino;
	char type;
};

static struct map locks;	/* the chain of each process and file */

static uint64_t lock_key(int pid, dev_t dev, uint64_t ino)
{
	return (ino * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(unsigned)pid << 32) ^
	       (uint64_t)dev;
}

/*
 * "1: POSIX  ADVISORY  WRITE 15800 fe:00:10952937 0 EOF". As in lsof, a
 * lock on the whole file is upper case, and of the locks one process holds
 * on one file the last one listed with a type not seen before is shown.
 */
static void locks_load(const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	size_t len;

	map_free(&locks);
	while (v && next_line(&p, end, &line, &len)) {
		char tmp[512], *fp[16], *ec;
		unsigned long maj, min;
		uint64_t ino, bp, ep = 0x7fffffff, key;
		struct lock *l, *head;
		dev_t dev;
		int pid;
		char type;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (get_fields(tmp, ":", fp, 16) < 10 || !strcmp(fp[1], "->"))
			continue;
		if (fp[3][0] == 'R')
			type = 'r';
		else if (fp[3][0] == 'W')
			type = 'w';
		else
			continue;
		pid = atoi(fp[4]);
		maj = strtoul(fp[5], &ec, 16);
		if (!*fp[5] || *ec)
			continue;
		min = strtoul(fp[6], &ec, 16);
		if (!*fp[6] || *ec)
			continue;
		if (!parse_u64(fp[7], 0, &ino) || !parse_u64(fp[8], 0, &bp))
			continue;
		if (strcmp(fp[9], "EOF") && !parse_u64(fp[9], 0, &ep))
			continue;
		if (bp == 0 && ep == 0x7fffffff)
			type = type == 'r' ? 'R' : 'W';
		dev = makedev(maj, min);
		key = lock_key(pid, dev, ino);
		head = map_get(&locks, key);
		for (l = head; l; l = l->next)
			if (l->pid == pid && l->dev == dev && l->ino == ino &&
			    l->type == type)
				break;
		if (l)
			continue;
		l = salloc_aligned(sizeof(*l));
		*l = (struct lock){ head, pid, dev, ino, type };
		map_put(&locks, key, l);
	}
}

/*
 * Reading /proc/locks takes the kernel's file_rwsem for writing, which
 * first waits for an RCU grace period (rcu_sync_enter()): 4 to 8 ms on an
 * idle 2-CPU VM, asleep, in which a listing that reads it first (as lsof
 * does) does nothing else, some tenth of the whole. So a thread of its own
 * reads it while the processes are gathered, and the text is parsed after
 * them (locks_settle()), when the FD column's lock characters are filled in
 * (lock_char()). It is a snapshot taken at the start of the cycle, as
 * lsof's. Where no thread can be started, it is read there and then.
 */
static struct {
	pthread_t thread;
	bool running;
	void *buf;
	struct name_val nv;
} lk;

static void *locks_read(void *arg)
{
	(void)arg;
	lk.nv = (struct name_val){ .name = "data:locks" };
	if (getvalues_alloc_each(AT_FDCWD, "/proc", &lk.nv, 1, 0,
				 BATCH_MAX_BUF, &lk.buf) != 1)
		lk.nv.error = errno ? errno : EIO;
	return NULL;
}

void locks_prefetch(void)
{
	sigset_t all, old;

	lk.buf = NULL;
	/* signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	lk.running = !pthread_create(&lk.thread, NULL, locks_read, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!lk.running)
		locks_read(NULL);
}

void locks_settle(void)
{
	if (lk.running)
		pthread_join(lk.thread, NULL);
	lk.running = false;
	if (lk.nv.error)
		locks_load(NULL, 0);
	else
		locks_load(lk.nv.value_out.iov_base, lk.nv.value_out.iov_len);
	free(lk.buf);
	lk.buf = NULL;
}

char lock_char(int pid, dev_t dev, uint64_t ino)
{
	for (struct lock *l = map_get(&locks, lock_key(pid, dev, ino)); l;
	     l = l->next)
		if (l->pid == pid && l->dev == dev && l->ino == ino)
			return l->type;
	return ' ';
}

/* ------------------------------------------------------------------ */
/* The mount table, from /proc/self/mountinfo.                        */

static struct mounts *lmi;	/* as lsof's readmnt() keeps it */
static bool lmi_parsed, lmi_stated;
dev_t mqueue_dev;
bool mqueue_known;
int has_nfs;			/* 1: NFS mounted, 2: also in the table */

/* mountinfo's octal escapes (\040) undone. */
static char *unescape(const char *s)
{
	char *out = xrealloc(NULL, strlen(s) + 1), *o = out;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
	return out;
}

static bool is_nfs_type(const char *t)
{
	return !strcasecmp(t, "nfs") || !strcasecmp(t, "nfs3") ||
	       !strcasecmp(t, "nfs4");
}

/* What lsof says of a mount it may not stat(2) with -b. */
static void block_warning(const char *dir, const char *type)
{
	fprintf(stderr, "%s: avoiding readlink(", opt.pn);
	safestrprt(dir, stderr, 0);
	fprintf(stderr, "): -b was specified.\n");
	fprintf(stderr, "%s: avoiding stat(%s): -b was specified.\n", opt.pn,
		dir);
	fprintf(stderr, "%s: WARNING: can't stat() ", opt.pn);
	safestrprt(type, stderr, 0);
	fprintf(stderr, " file system ");
	safestrprt(dir, stderr, 1);
	fprintf(stderr, "      Output information may be incomplete.\n");
}

/*
 * "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": the
 * mounts lsof's readmnt() keeps, in the same order, with the device of
 * each file system. What lsof learns from stat(2) of the mount points is
 * added by mounts_stat(), when a file argument, -e or +m needs it.
 */
void mounts_parse(const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	struct mounts **tail = &lmi;
	size_t len;

	lmi_parsed = true;
	while (v && next_line(&p, end, &line, &len)) {
		char *copy = sdup_n(line, len), *fp[64], *dash;
		unsigned maj, min;
		struct mounts *mp;
		char *dir, *src, *type, *cp;
		int nf, k;

		nf = get_fields(copy, NULL, fp, 64);
		for (k = 6; k < nf && strcmp(fp[k], "-"); k++)
			;
		if (nf < 10 || k + 2 >= nf)
			continue;
		dash = fp[k];
		(void)dash;
		type = fp[k + 1];
		src = unescape(fp[k + 2]);
		dir = unescape(fp[4]);
		cp = strchr(src, ':');
		if ((cp && !strncasecmp(cp + 1, "(pid", 4)) ||
		    !strcasecmp(type, "autofs") ||
		    !strcasecmp(type, "pipefs") ||
		    !strcasecmp(type, "sockfs") || *dir != '/') {
			free(src);
			free(dir);
			continue;
		}
		if (is_nfs_type(type) && !has_nfs)
			has_nfs = 1;
		if (opt.fblock) {
			/* lsof keeps no mount, so none is a duplicate */
			if (!opt.fwarn)
				block_warning(dir, type);
			free(src);
			free(dir);
			continue;
		}
		for (mp = lmi; mp; mp = mp->next)
			if (!strcmp(mp->dir, dir))
				break;
		if (mp) {
			/* a duplicate: only "/" is replaced, by NFS only */
			if (strcmp(dir, "/") || mp->nfs || !is_nfs_type(type)) {
				free(src);
				free(dir);
				continue;
			}
			free(mp->dir);
			free(mp->fsname);
			free(mp->fstype);
		} else {
			mp = xcalloc(1, sizeof(*mp));
			*tail = mp;
			tail = &mp->next;
		}
		mp->dir = dir;
		mp->dirl = strlen(dir);
		mp->fsname = src;
		mp->fstype = xstrdup(type);
		mp->nfs = is_nfs_type(type);
		if (sscanf(fp[2], "%u:%u", &maj, &min) == 2)
			mp->dev = makedev(maj, min);
		if (mp->nfs && has_nfs < 2)
			has_nfs = 2;
		if (!strcmp(type, "mqueue")) {
			mqueue_dev = mp->dev;
			mqueue_known = true;
		}
	}
}

bool mounts_loaded(void)
{
	return lmi_parsed;
}

/*
 * stat(2) of every mount point and of every file system source that is a
 * path, as lsof's readmnt() makes them: one getvalues() call each, with
 * the component itself as the SUBPATH of its directory, so that a mount
 * point is described as stat(2) describes it. With -b nothing is stat'ed
 * and, as in lsof, no mount is kept (and each one is reported).
 */
void mounts_stat(void)
{
	struct mounts **pp = &lmi;

	if (lmi_stated)
		return;
	lmi_stated = true;
	while (*pp) {
		struct mounts *mp = *pp;
		struct finfo fi;
		char *ln;

		if (stat_path(mp->dir, &fi, true)) {
			if (!opt.fwarn) {
				fprintf(stderr, "%s: WARNING: can't stat() ",
					opt.pn);
				safestrprt(mp->fstype, stderr, 0);
				fprintf(stderr, " file system ");
				safestrprt(mp->dir, stderr, 1);
				fprintf(stderr, "      Output information may "
					"be incomplete.\n");
			}
			*pp = mp->next;
			free(mp->dir);
			free(mp->fsname);
			free(mp->fstype);
			free(mp);
			continue;
		}
		mp->stat_ok = true;
		mp->dev = fi.dev;
		mp->rdev = fi.rdev;
		mp->inode = fi.ino;
		mp->mode = fi.mode;
		if (!strcmp(mp->fstype, "mqueue"))
			mqueue_dev = mp->dev;
		if (*mp->fsname == '/' && (ln = Readlink(mp->fsname))) {
			mp->fsnmres = xstrdup(ln);
			if (!stat_path(ln, &fi, true))
				mp->fs_mode = fi.mode;
		} else {
			mp->fsnmres = xstrdup(mp->fsname);
		}
		if (opt.mnt_sup == 1)
			printf("%s %#lx\n", mp->dir, (long)mp->dev);
		pp = &mp->next;
	}
}

/*
 * No mount table: lsof 4.95 ends there too, with "can't fopen(/proc/mounts,
 * "r")" and status 1, whatever else was asked. The message says why when
 * /proc is no procfs (a bare chroot), where "No such file or directory"
 * alone would not.
 */
void die_mountinfo(int err)
{
	struct stat root, proc;
	struct statfs sfs;
	const char *why = "";

	if (stat(PROC, &proc) || stat("/", &root) ||
	    proc.st_dev == root.st_dev)
		why = " (" PROC " is not mounted)";
	else if (statfs(PROC, &sfs) || sfs.f_type != PROC_SUPER_MAGIC)
		why = " (" PROC " is not procfs)";
	die("can't read %s/self/mountinfo: %s%s", PROC, strerror(err), why);
}

struct mounts *readmnt(void)
{
	if (!lmi_parsed) {
		struct batch b = { 0 };
		size_t i = batch_add(&b, "data:self/mountinfo"), len;
		int err;
		const char *v;

		batch_run_proc(&b);
		v = val(&b, i, &len, &err);
		if (!v)
			die_mountinfo(err);
		mounts_parse(v, len);
		batch_release(&b);
	}
	mounts_stat();
	return lmi;
}

void cycle_free_sysinfo(void)
{
	while (lmi) {
		struct mounts *next = lmi->next;

		free(lmi->dir);
		free(lmi->fsname);
		free(lmi->fsnmres);
		free(lmi->fstype);
		free(lmi);
		lmi = next;
	}
	lmi_parsed = lmi_stated = false;
	has_nfs = 0;
	mqueue_known = false;
	map_free(&locks);
	uid_cache_free();
}

/* ------------------------------------------------------------------ */
/* pipefs.                                                            */

dev_t pipefs_dev;
bool pipefs_known;

/*
 * The device of pipefs, the kernel's internal file system for pipes: a
 * FIFO on it is a pipe, whose NAME is "pipe", without reading its link.
 * It is a property of the running kernel, learnt from a pipe of our own.
 */
void pipefs_probe(void)
{
	struct stat st;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return;
	if (!fstat(p[0], &st)) {
		pipefs_dev = st.st_dev;
		pipefs_known = true;
	}
	close(p[0]);
	close(p[1]);
}

dev_t sockfs_dev;
bool sockfs_known;

/* The device of sockfs, where every socket's inode is, from one of ours. */
void sockfs_probe(void)
{
	struct stat st;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	if (!fstat(s, &st) && S_ISSOCK(st.st_mode)) {
		sockfs_dev = st.st_dev;
		sockfs_known = true;
	}
	close(s);
}
