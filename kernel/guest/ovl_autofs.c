// SPDX-License-Identifier: GPL-2.0
/*
 * ovl_autofs.c - getvalues(2), readfile(2) and the library (native
 * backend) on overlayfs and at an autofs automount point.
 *
 * overlayfs: a lower directory, an upper one that hides a lower file, a
 * file copied up by a write and one deleted (a whiteout): data:, stat:
 * fields, dir: and readfile through the overlay give what open(2),
 * read(2), statx(2) and readdir give through it.
 *
 * autofs: a direct and an indirect autofs mount whose daemon never
 * answers give untriggered automount points. SPEC v3 §2.3: a lookup that
 * would pass through one gets EXDEV, as openat2(2) with RESOLVE_NO_XDEV
 * does; a final component that is one is described by stat: untriggered
 * and is a directory to data: (ENODATA). No call may trigger one: a
 * trigger writes a packet into the pipe and waits for the daemon, so the
 * calls run in a child that the parent ends if a packet comes.
 *
 * kcheck-guest: libgetvalues
 */
#define _GNU_SOURCE
#include <linux/auto_fs.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "entry.h"
#include "guest.h"
#include "compare.h"

static char scratch[64] = "/var/tmp/gvovl.XXXXXX";

static void path_in(char *out, size_t size, const char *rel)
{
	snprintf(out, size, "%s/%s", scratch, rel);
}

static void mk(const char *rel, const char *text)
{
	char path[256];

	path_in(path, sizeof(path), rel);
	if (text)
		put_file(path, text);
	else if (mkdir(path, 0755))
		bail("mkdir %s", path);
}

static void check_overlay(void)
{
	char lower[256], upper[256], work[256], merged[256], opts[1024];
	static const char *const files[] = {
		"a", "b", "new", "sub/c", "sub", "gone", "missing",
	};
	unsigned int i;
	int dfd;

	mk("lower", NULL);
	mk("lower/a", "lower a\n");
	mk("lower/b", "lower b, hidden by the upper b\n");
	mk("lower/gone", "deleted through the overlay\n");
	mk("lower/sub", NULL);
	mk("lower/sub/c", "lower sub/c\n");
	mk("upper", NULL);
	mk("upper/b", "upper b\n");
	mk("upper/new", "only in the upper layer\n");
	mk("work", NULL);
	mk("merged", NULL);
	path_in(lower, sizeof(lower), "lower");
	path_in(upper, sizeof(upper), "upper");
	path_in(work, sizeof(work), "work");
	path_in(merged, sizeof(merged), "merged");
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 lower, upper, work);
	if (mount("overlay", merged, "overlay", 0, opts)) {
		if (errno == ENODEV) {
			skip("no overlayfs in this kernel (CONFIG_OVERLAY_FS)");
			return;
		}
		bail("mount overlay");
	}
	ok(true, "overlay mounted: %s", opts);
	dfd = open(merged, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		bail("open %s", merged);
	/* a copy-up by a write, a whiteout by an unlink */
	put_file(strcat(strcpy(opts, merged), "/a"), "copied up and changed\n");
	if (unlinkat(dfd, "gone", 0))
		bail("unlink gone");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		cmp_file("overlay", dfd, merged, files[i], 0);
	for (i = 0; i < 4; i++)
		cmp_readfile("overlay", merged, files[i]);
	cmp_dir("overlay", dfd, merged, "");
	cmp_dir("overlay", dfd, merged, "sub");
	close(dfd);
	if (umount2(merged, 0))
		bail("umount %s", merged);
}

/* --- autofs ------------------------------------------------------------------ */

/*
 * Two autofs mounts with one pipe and a "daemon" that never answers:
 * auto/point is a direct mount, so the point is a mount point first (data:
 * and dir: do not cross into it: EXDEV, as openat2(2) with RESOLVE_NO_XDEV
 * sees it) and its root the trigger; ind is an indirect mount whose key
 * "key" the daemon made, an automount point with nothing mounted on it:
 * SPEC v3's final component that stat: describes untriggered and data:
 * takes for a directory (ENODATA), and EXDEV through it.
 */
static const struct {
	const char *origin;	/* below scratch */
	unsigned int flags;
	const char *name;
	int err;		/* what SPEC v3 says */
	const char *value;	/* a list item, a number, or NULL: point's ino */
	size_t len;
	const char *todo;	/* a known failure of the series: why */
} at_point[] = {
	{ "auto", 0, "data:point/x", EXDEV, "", 0, NULL },
	{ "auto", 0, "dir:point", EXDEV, "", 0, NULL },
	{ "auto", 0, "dir:point/x", EXDEV, "", 0, NULL },
	{ "auto", 0, "stat:type:point/x", EXDEV, "", 0, NULL },
	{ "auto", 0, "lstat:size:point/x", EXDEV, "", 0, NULL },
	{ "auto", 0, "stat:type:point", 0, "dir", 3, NULL },
	{ "auto", 0, "lstat:type:point", 0, "dir", 3, NULL },
	{ "auto", 0, "stat:ino:point", 0, NULL, 0, NULL },
	{ "auto", 0, "data:point", EXDEV, "", 0, NULL },
	{ "auto", 0, "dir:", 0, "point", 6, NULL },
	{ "auto/point", AT_NO_AUTOMOUNT, "stat:type", 0, "dir", 3, NULL },
	{ "ind", 0, "data:key", ENODATA, "", 0, NULL },
	{ "ind", 0, "data:key/x", EXDEV, "", 0, NULL },
	{ "ind", 0, "dir:key", EXDEV, "", 0, NULL },
	{ "ind", 0, "stat:type:key/x", EXDEV, "", 0, NULL },
	{ "ind", 0, "stat:type:key", 0, "dir", 3, NULL },
	{ "ind", 0, "lstat:type:key", 0, "dir", 3, NULL },
	{ "ind", 0, "dir:", 0, "key", 4, NULL },
};
#define AT_POINT	(sizeof(at_point) / sizeof(at_point[0]))

struct point_result {
	int r, err;
	size_t len;
	char text[64];
};

/* in the child: every entry of at_point, raw (pass 0) and library (1) */
static void point_calls(struct point_result (*res)[AT_POINT])
{
	char origin[256], *out;
	struct gv_entry e;
	struct name_val v;
	unsigned int i, pass;
	static char buf[4096];

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < AT_POINT; i++) {
			struct point_result *p = &res[pass][i];

			path_in(origin, sizeof(origin), at_point[i].origin);
			e = (struct gv_entry){ .name = PTR(at_point[i].name),
				.value_in = { PTR(buf), sizeof(buf) } };
			v = (struct name_val){ .name = at_point[i].name,
				.value_in = { buf, sizeof(buf) } };
			p->r = pass ? getvalues(AT_FDCWD, origin, &v, 1,
						at_point[i].flags)
				    : syscall(NR_GETVALUES, AT_FDCWD, origin,
					      &e, 1, sizeof(e), at_point[i].flags);
			if (p->r < 0) {
				p->err = errno;
				continue;
			}
			p->err = pass ? v.error : e.error;
			p->len = pass ? v.value_out.iov_len : e.value_out.len;
			out = pass ? v.value_out.iov_base
				   : (char *)(uintptr_t)e.value_out.base;
			if (p->len > sizeof(p->text))
				p->len = sizeof(p->text);
			memcpy(p->text, out, p->len);
		}
	}
}

/* the child's calls, watched: true if none wrote to the autofs pipe */
static bool point_run(int pipe_rd, struct point_result (*res)[AT_POINT])
{
	struct pollfd pfd = { .fd = pipe_rd, .events = POLLIN };
	int status, waited = 0;
	pid_t child = fork();
	bool quiet = true;

	if (child < 0)
		bail("fork");
	if (!child) {
		point_calls(res);
		_exit(0);
	}
	while (waitpid(child, &status, WNOHANG) == 0 && waited < 600) {
		if (poll(&pfd, 1, 100) > 0) {
			quiet = false;
			kill(child, SIGKILL);
		}
		waited++;
	}
	if (waited >= 600)
		kill(child, SIGKILL);
	waitpid(child, &status, 0);
	if (poll(&pfd, 1, 0) > 0)
		quiet = false;
	ok(quiet && waited < 600 && WIFEXITED(status),
	   "no call at the automount points triggers one (no packet in the "
	   "pipe, done in %d.%ds)", waited / 10, waited % 10);
	return quiet;
}

/*
 * The daemon: a process group of its own (autofs lets the daemon's group
 * through its points, and no other), which makes the indirect mount's key
 * when told on @go, says it did on @done, and never answers a request.
 * No one else may look the key up before it exists: autofs would ask
 * the daemon for a missing key and wait.
 */
static pid_t autofs_daemon(int *go, int *done)
{
	int to[2], from[2];
	char key[256], c;
	pid_t pid;

	if (pipe(to) || pipe(from))
		bail("pipe");
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		setpgid(0, 0);
		close(to[1]);
		close(from[0]);
		if (read(to[0], &c, 1) == 1) {
			path_in(key, sizeof(key), "ind/key");
			c = mkdir(key, 0755) ? 1 : 0;
			if (write(from[1], &c, 1) != 1)
				_exit(1);
		}
		pause();
		_exit(0);
	}
	setpgid(pid, pid);
	close(to[0]);
	close(from[1]);
	*go = to[1];
	*done = from[0];
	return pid;
}

/* mounts autofs on @rel: 0, or the errno */
static int autofs_mount(const char *rel, int pipe_wr, pid_t daemon,
			const char *type)
{
	char path[256], opts[128];

	path_in(path, sizeof(path), rel);
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5,%s",
		 pipe_wr, daemon, type);
	if (mount("gvauto", path, "autofs", 0, opts))
		return errno;
	ok(true, "%s autofs mounted on %s, its daemon never answers: %s",
	   type, rel, opts);
	return 0;
}

static void point_report(struct point_result (*res)[AT_POINT], const char *ino)
{
	unsigned int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < AT_POINT; i++) {
			const char *want = at_point[i].value ?: ino;
			size_t wlen = at_point[i].value ? at_point[i].len
							: strlen(ino);
			struct point_result *g = &res[pass][i];

			bool same = g->r == 1 && g->err == at_point[i].err &&
				    g->len == wlen && !memcmp(g->text, want, wlen);
			char what[256];

			snprintf(what, sizeof(what),
				 "%s %s from %s: %s \"%.*s\" (SPEC: %s \"%s\")",
				 pass ? "library" : "raw", at_point[i].name,
				 at_point[i].origin, g->r < 0 ? "call failed" :
				 strerror(g->err), (int)g->len, g->text,
				 strerror(at_point[i].err), want);
			if (at_point[i].todo)
				ok_todo(same, at_point[i].todo, "%s", what);
			else
				ok(same, "%s", what);
		}
	}
}

/* openat2(2) with RESOLVE_NO_XDEV, for reference, and point's inode */
static void point_reference(char *ino, size_t size)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_NO_XDEV };
	static const char *const through[] = { "point", "point/x" };
	char dir[256];
	struct statx st;
	unsigned int i;
	int dfd;
	long r;

	path_in(dir, sizeof(dir), "auto");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		bail("open %s", dir);
	for (i = 0; i < 2; i++) {
		r = syscall(SYS_openat2, dfd, through[i], &how, sizeof(how));
		ok(r < 0 && errno == EXDEV,
		   "openat2(%s, RESOLVE_NO_XDEV) is EXDEV: %ld (%s)",
		   through[i], r, r < 0 ? strerror(errno) : "opened");
	}
	if (statx(dfd, "point", AT_NO_AUTOMOUNT, STATX_INO, &st))
		bail("statx point");
	snprintf(ino, size, "%llu", (unsigned long long)st.stx_ino);
	close(dfd);
}

static void check_autofs(void)
{
	struct point_result (*res)[AT_POINT];
	char path[256], ino[32];
	int p[2], go, done, err;
	pid_t daemon;
	char made;

	mk("auto", NULL);
	mk("auto/point", NULL);
	mk("ind", NULL);
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		bail("pipe");
	daemon = autofs_daemon(&go, &done);
	err = autofs_mount("auto/point", p[1], daemon, "direct");
	if (!err)
		err = autofs_mount("ind", p[1], daemon, "indirect");
	close(p[1]);
	if (err) {
		kill(daemon, SIGKILL);
		waitpid(daemon, NULL, 0);
		errno = err;
		if (err == ENODEV) {
			skip("no autofs in this kernel (CONFIG_AUTOFS_FS)");
			return;
		}
		bail("mount autofs");
	}
	if (write(go, "", 1) != 1 || read(done, &made, 1) != 1 || made)
		bail("the daemon's mkdir of ind/key");
	point_reference(ino, sizeof(ino));
	res = mmap(NULL, sizeof(*res) * 2, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		bail("mmap");
	memset(res, 0, sizeof(*res) * 2);
	if (point_run(p[0], res))
		point_report(res, ino);
	close(p[0]);
	close(go);
	close(done);
	path_in(path, sizeof(path), "auto/point");
	if (umount2(path, MNT_DETACH))
		bail("umount %s", path);
	path_in(path, sizeof(path), "ind");
	if (umount2(path, MNT_DETACH))
		bail("umount %s", path);
	kill(daemon, SIGKILL);
	waitpid(daemon, NULL, 0);
}

int main(void)
{
	char cmd[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid()) {
		skip("needs root: mounts");
		return tap_done();
	}
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		bail("a mount namespace of its own");
	if (!mkdtemp(scratch))
		bail("mkdtemp");
	check_overlay();
	check_autofs();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd))
		diag("could not remove %s", scratch);
	return tap_done();
}
