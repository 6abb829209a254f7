// SPDX-License-Identifier: GPL-2.0
/*
 * fuse.c - getvalues(2), readfile(2) and the library (native backend) on
 * a FUSE file system: a read-only passthrough of one directory, served by
 * a child of this program over the raw /dev/fuse protocol (no libfuse),
 * with no attribute or entry caching so that every lookup is a request.
 * data:, stat: fields, dir: and readfile through it give what open(2),
 * read(2), statx(2) and readdir give through it: a small file, one larger
 * than one FUSE read, an empty one, a symlink, a file in a subdirectory,
 * a directory and a missing name.
 *
 * And a hostile server: its directory "dots" lists "." without end, each
 * READDIR reply one more. A dir: entry of it never fills its buffer, so
 * the kernel's listing loop would run until SIGKILL; a signal with a
 * handler (no SA_RESTART) must end the call with EINTR, as getdents(2)
 * would have returned to user space between two passes.
 *
 * kcheck-guest: libgetvalues
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/fuse.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "entry.h"
#include "guest.h"
#include "compare.h"

#define NODES		256
#define DIRS		16
#define REQ_SIZE	(FUSE_MIN_READ_BUFFER + (256 << 10))
#define MAX_WRITE	(128 << 10)
#define BIG		60000

static char scratch[64] = "/var/tmp/gvfuse.XXXXXX";
static char back[128];		/* the directory served */
static int back_fd;
static char *nodes[NODES];	/* nodeid -> path below back, "." the root */

static struct served {		/* what the daemon answered, for the test */
	unsigned long ops[64], other, errors;
} *served;

struct dir_handle {
	bool used;
	bool endless;		/* "dots": "." for ever */
	size_t n;
	struct fuse_dirent_snap {
		uint64_t ino;
		uint32_t type;
		char name[256];
	} *ents;
} dirs[DIRS];

/* --- the daemon ----------------------------------------------------------------- */

static void reply(int fd, uint64_t unique, int err, const void *data,
		  size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (err ? 0 : len), .error = err,
		.unique = unique,
	};
	struct iovec iov[2] = { { &out, sizeof(out) }, { (void *)data, len } };

	if (err)
		served->errors++;
	if (writev(fd, iov, err ? 1 : 2) < 0 && errno != ENOENT)
		served->errors++;
}

static void fill_attr(struct fuse_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->blocks = st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atimensec = st->st_atim.tv_nsec;
	a->mtimensec = st->st_mtim.tv_nsec;
	a->ctimensec = st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = st->st_rdev;
	a->blksize = st->st_blksize;
}

/* the node of @path (made if new): its ID, or 0 when the table is full */
static uint64_t node_of(const char *path)
{
	uint64_t i;

	for (i = 1; i < NODES; i++)
		if (nodes[i] && !strcmp(nodes[i], path))
			return i;
	for (i = 2; i < NODES; i++)
		if (!nodes[i]) {
			nodes[i] = strdup(path);
			return i;
		}
	return 0;
}

static const char *node_path(uint64_t id)
{
	return id < NODES ? nodes[id] : NULL;
}

static void do_lookup(int fd, const struct fuse_in_header *in, const char *name)
{
	const char *dir = node_path(in->nodeid);
	struct fuse_entry_out e = { 0 };
	char path[4096];
	struct stat st;

	if (!dir) {
		reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fstatat(back_fd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	e.nodeid = node_of(path);
	if (!e.nodeid) {
		reply(fd, in->unique, -ENFILE, NULL, 0);
		return;
	}
	fill_attr(&e.attr, &st);
	reply(fd, in->unique, 0, &e, sizeof(e));
}

static void do_getattr(int fd, const struct fuse_in_header *in)
{
	const char *path = node_path(in->nodeid);
	struct fuse_attr_out a = { 0 };
	struct stat st;

	if (!path) {
		reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	if (fstatat(back_fd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	fill_attr(&a.attr, &st);
	reply(fd, in->unique, 0, &a, sizeof(a));
}

static void do_readlink(int fd, const struct fuse_in_header *in)
{
	const char *path = node_path(in->nodeid);
	char target[4096];
	ssize_t n;

	if (!path) {
		reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	n = readlinkat(back_fd, path, target, sizeof(target));
	if (n < 0) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	reply(fd, in->unique, 0, target, n);
}

static void do_open(int fd, const struct fuse_in_header *in,
		    const struct fuse_open_in *op)
{
	const char *path = node_path(in->nodeid);
	struct fuse_open_out o = { 0 };
	int file;

	if (!path) {
		reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	if ((op->flags & O_ACCMODE) != O_RDONLY) {
		reply(fd, in->unique, -EROFS, NULL, 0);
		return;
	}
	file = openat(back_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (file < 0) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	o.fh = file;
	reply(fd, in->unique, 0, &o, sizeof(o));
}

static void do_read(int fd, const struct fuse_in_header *in,
		    const struct fuse_read_in *rd)
{
	static char data[MAX_WRITE];
	ssize_t n;

	n = pread(rd->fh, data, rd->size < sizeof(data) ? rd->size
							 : sizeof(data),
		  rd->offset);
	if (n < 0) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	reply(fd, in->unique, 0, data, n);
}

/* a directory is read whole when opened: READDIR offsets index it */
static void do_opendir(int fd, const struct fuse_in_header *in)
{
	const char *path = node_path(in->nodeid);
	struct fuse_open_out o = { 0 };
	struct dir_handle *h = NULL;
	struct dirent *d;
	int i, dfd;
	DIR *dir;

	for (i = 0; i < DIRS && !h; i++)
		if (!dirs[i].used)
			h = &dirs[i];
	if (!path || !h) {
		reply(fd, in->unique, path ? -ENFILE : -ENOENT, NULL, 0);
		return;
	}
	dfd = openat(back_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = dfd < 0 ? NULL : fdopendir(dfd);
	if (!dir) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	*h = (struct dir_handle){ .used = true,
				  .endless = !strcmp(path, "./dots") };
	while ((d = readdir(dir))) {
		h->ents = realloc(h->ents, (h->n + 1) * sizeof(*h->ents));
		if (!h->ents)
			exit(1);
		h->ents[h->n].ino = d->d_ino;
		h->ents[h->n].type = d->d_type;
		snprintf(h->ents[h->n].name, sizeof(h->ents[0].name), "%s",
			 d->d_name);
		h->n++;
	}
	closedir(dir);
	o.fh = h - dirs;
	reply(fd, in->unique, 0, &o, sizeof(o));
}

static void do_readdir(int fd, const struct fuse_in_header *in,
		       const struct fuse_read_in *rd)
{
	static char out[MAX_WRITE];
	struct dir_handle *h = rd->fh < DIRS ? &dirs[rd->fh] : NULL;
	size_t len = 0, size = rd->size < sizeof(out) ? rd->size : sizeof(out);
	struct fuse_dirent *d;
	uint64_t i;

	if (!h || !h->used) {
		reply(fd, in->unique, -EBADF, NULL, 0);
		return;
	}
	if (h->endless) {
		d = (struct fuse_dirent *)out;
		memset(out, 0, FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + 1));
		*d = (struct fuse_dirent){ .ino = 1, .off = rd->offset + 1,
					   .namelen = 1, .type = DT_DIR };
		d->name[0] = '.';
		reply(fd, in->unique, 0, out,
		      FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + 1));
		return;
	}
	for (i = rd->offset; i < h->n; i++) {
		size_t namelen = strlen(h->ents[i].name);
		size_t rec = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);

		if (len + rec > size)
			break;
		d = (struct fuse_dirent *)(out + len);
		memset(d, 0, rec);
		d->ino = h->ents[i].ino;
		d->off = i + 1;
		d->namelen = namelen;
		d->type = h->ents[i].type;
		memcpy(d->name, h->ents[i].name, namelen);
		len += rec;
	}
	reply(fd, in->unique, 0, out, len);
}

static void do_statfs(int fd, const struct fuse_in_header *in)
{
	struct fuse_statfs_out o = { 0 };
	struct statvfs sv;

	if (fstatvfs(back_fd, &sv)) {
		reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	o.st.blocks = sv.f_blocks;
	o.st.bfree = sv.f_bfree;
	o.st.bavail = sv.f_bavail;
	o.st.files = sv.f_files;
	o.st.ffree = sv.f_ffree;
	o.st.bsize = sv.f_bsize;
	o.st.namelen = sv.f_namemax;
	o.st.frsize = sv.f_frsize;
	reply(fd, in->unique, 0, &o, sizeof(o));
}

static void do_init(int fd, const struct fuse_in_header *in,
		    const struct fuse_init_in *init)
{
	struct fuse_init_out o = { 0 };

	o.major = FUSE_KERNEL_VERSION;
	o.minor = init->minor < FUSE_KERNEL_MINOR_VERSION ?
		  init->minor : FUSE_KERNEL_MINOR_VERSION;
	o.max_readahead = init->max_readahead;
	o.max_write = MAX_WRITE;
	o.time_gran = 1;
	if (init->major != FUSE_KERNEL_VERSION) {
		reply(fd, in->unique, -EPROTO, NULL, 0);
		return;
	}
	reply(fd, in->unique, 0, &o, sizeof(o));
}

/* one request; false when the file system is gone */
static bool serve_one(int fd, char *req)
{
	const struct fuse_in_header *in = (const void *)req;
	const void *arg = req + sizeof(*in);
	ssize_t n = read(fd, req, REQ_SIZE);

	if (n < 0)
		return errno == ENOENT || errno == EINTR || errno == EAGAIN;
	if ((size_t)n < sizeof(*in))
		return false;
	if (in->opcode < 64)
		served->ops[in->opcode]++;
	switch (in->opcode) {
	case FUSE_INIT: do_init(fd, in, arg); break;
	case FUSE_LOOKUP: do_lookup(fd, in, arg); break;
	case FUSE_GETATTR: do_getattr(fd, in); break;
	case FUSE_READLINK: do_readlink(fd, in); break;
	case FUSE_OPEN: do_open(fd, in, arg); break;
	case FUSE_READ: do_read(fd, in, arg); break;
	case FUSE_OPENDIR: do_opendir(fd, in); break;
	case FUSE_READDIR: do_readdir(fd, in, arg); break;
	case FUSE_STATFS: do_statfs(fd, in); break;
	case FUSE_RELEASE:
		close(((const struct fuse_release_in *)arg)->fh);
		reply(fd, in->unique, 0, NULL, 0);
		break;
	case FUSE_RELEASEDIR: {
		uint64_t fh = ((const struct fuse_release_in *)arg)->fh;

		if (fh < DIRS) {
			free(dirs[fh].ents);
			dirs[fh] = (struct dir_handle){ 0 };
		}
		reply(fd, in->unique, 0, NULL, 0);
		break;
	}
	case FUSE_FLUSH:
		reply(fd, in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT:
		break;		/* no reply */
	case FUSE_DESTROY:
		reply(fd, in->unique, 0, NULL, 0);
		return false;
	default:		/* xattrs, access, statx, ...: not served */
		served->other++;
		reply(fd, in->unique, -ENOSYS, NULL, 0);
	}
	return true;
}

static void serve(int fd)
{
	char *req = malloc(REQ_SIZE);

	if (!req)
		_exit(1);
	nodes[FUSE_ROOT_ID] = ".";
	while (serve_one(fd, req))
		;
	_exit(0);
}

/* --- the checks ----------------------------------------------------------------- */

static void make_tree(void)
{
	char path[256], *big;
	int i;

	snprintf(back, sizeof(back), "%s/back", scratch);
	if (mkdir(back, 0755))
		bail("mkdir %s", back);
	snprintf(path, sizeof(path), "%s/small", back);
	put_file(path, "served through /dev/fuse\n");
	snprintf(path, sizeof(path), "%s/empty", back);
	put_file(path, "");
	big = malloc(BIG + 1);
	if (!big)
		bail("malloc");
	for (i = 0; i < BIG; i++)
		big[i] = 'a' + (i * 7 + i / 4096) % 26;
	big[BIG] = 0;
	snprintf(path, sizeof(path), "%s/big", back);
	put_file(path, big);
	free(big);
	snprintf(path, sizeof(path), "%s/sub", back);
	if (mkdir(path, 0750))
		bail("mkdir");
	snprintf(path, sizeof(path), "%s/sub/inner", back);
	put_file(path, "in a subdirectory\n");
	snprintf(path, sizeof(path), "%s/dots", back);
	if (mkdir(path, 0755))
		bail("mkdir");
	snprintf(path, sizeof(path), "%s/link", back);
	if (symlink("small", path))
		bail("symlink");
	back_fd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (back_fd < 0)
		bail("open %s", back);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* the child of check_endless(): 0 if getvalues(2) ended with EINTR */
static int endless_child(const char *mnt)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no restart */
	static char buf[4096];
	struct gv_entry v = { .name = PTR("dir:dots"),
			      .value_in = { PTR(buf), sizeof(buf) } };
	long r;

	if (sigaction(SIGALRM, &sa, NULL))
		return 2;
	alarm(1);
	r = syscall(NR_GETVALUES, AT_FDCWD, mnt, &v, 1, sizeof(v), 0);
	printf("# dir:dots: getvalues(2) returned %ld (%s)\n", r,
	       r < 0 ? strerror(errno) : "no error");
	return r == -1 && errno == EINTR ? 0 : 1;
}

/* dir: of the endless directory, a SIGALRM after 1 s: over within 20 s */
static void check_endless(const char *mnt)
{
	int status = 0, waited;
	pid_t child = fork();

	if (child < 0)
		bail("fork");
	if (!child)
		_exit(endless_child(mnt));
	for (waited = 0; waitpid(child, &status, WNOHANG) == 0; waited++) {
		if (waited == 200) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			break;
		}
		usleep(100000);
	}
	ok(waited < 200 && WIFEXITED(status) && !WEXITSTATUS(status),
	   "dir: of a directory whose server lists \".\" without end: a "
	   "signal ends the call with EINTR (%s after %d.%d s)",
	   waited < 200 ? "over" : "killed", waited / 10, waited % 10);
}

/* mounts @mnt served by a child: the child's PID, or 0 (skipped) */
static pid_t mount_fuse(const char *mnt)
{
	char opts[128];
	pid_t child;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		skip("no /dev/fuse (%s): CONFIG_FUSE_FS", strerror(errno));
		return 0;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("gvfuse", mnt, "fuse.gvfuse", MS_NOSUID | MS_NODEV, opts))
		bail("mount fuse");
	child = fork();
	if (child < 0)
		bail("fork");
	if (!child)
		serve(fd);
	close(fd);
	ok(true, "FUSE passthrough of back/ mounted on mnt/ (%s), served by "
	   "PID %d", opts, child);
	return child;
}

int main(void)
{
	static const char *const files[] = {
		"small", "big", "empty", "link", "sub/inner", "sub", "missing",
	};
	char mnt[128], cmd[160];
	pid_t daemon;
	unsigned int i;
	int dfd, status, waited;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid()) {
		skip("needs root: mounts");
		return tap_done();
	}
	served = mmap(NULL, sizeof(*served), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (served == MAP_FAILED || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		bail("mmap, a mount namespace of its own");
	if (!mkdtemp(scratch))
		bail("mkdtemp");
	make_tree();
	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	if (mkdir(mnt, 0755))
		bail("mkdir");
	daemon = mount_fuse(mnt);
	if (!daemon)
		return tap_done();
	dfd = open(mnt, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		bail("open %s", mnt);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		cmp_file("fuse", dfd, mnt, files[i], 0);
	for (i = 0; i < 5; i++)
		cmp_readfile("fuse", mnt, files[i]);
	cmp_dir("fuse", dfd, mnt, "");
	cmp_dir("fuse", dfd, mnt, "sub");
	check_endless(mnt);
	close(dfd);
	dfd = umount2(mnt, 0);
	ok(!dfd, "unmounted: %s", dfd ? strerror(errno) : "yes");
	for (waited = 0; waitpid(daemon, &status, WNOHANG) == 0; waited++) {
		if (waited == 100)
			kill(daemon, SIGKILL);
		usleep(100000);
	}
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	   served->ops[FUSE_LOOKUP] && served->ops[FUSE_READ] &&
	   served->ops[FUSE_READDIR],
	   "the daemon served the calls and ended: %lu LOOKUP, %lu GETATTR, "
	   "%lu OPEN, %lu READ, %lu READDIR, %lu READLINK, %lu not served, "
	   "%lu error replies", served->ops[FUSE_LOOKUP],
	   served->ops[FUSE_GETATTR], served->ops[FUSE_OPEN],
	   served->ops[FUSE_READ], served->ops[FUSE_READDIR],
	   served->ops[FUSE_READLINK], served->other, served->errors);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd))
		diag("could not remove %s", scratch);
	return tap_done();
}
