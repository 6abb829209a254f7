// SPDX-License-Identifier: MIT
/*
 * getvalues_data.c - the data and dir groups (SPEC 2.4, DECISIONS V3-V6):
 * file contents and symlink targets beneath $ORIGIN, directory listings,
 * the SUBPATH rules ('/', "//", ".", ".."), confinement (symlinks in the
 * middle that point to "/" or climb out resolve as if $ORIGIN were "/"),
 * EXDEV at other mounts, and things that are never opened: FIFOs (a writer
 * blocked in open(2) stays blocked), sockets and device nodes (watched with
 * inotify). Also procfs and sysfs origins, and permission errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/fifo.h"
#include "lib/gvtest.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

static const char *scratch;	/* the tmpfs; holds "secret" and "origin" */
static char originpath[PATH_MAX];
static int origin;		/* $ORIGIN, O_PATH */
static unsigned int chr_unused, blk_unused;
static bool have_devices;	/* "null", "unused" and "blk" were made */

enum want { W_FILE, W_LINK, W_DIR, W_ERR };

struct dcase {
	const char *name;	/* the getvalues name */
	enum want want;
	const char *path;	/* what to read for the expected value */
	int err;
};

#define FILE_(n, p)	{ .name = n, .want = W_FILE, .path = p }
#define LINK(n, p)	{ .name = n, .want = W_LINK, .path = p }
#define DIR_(n, p)	{ .name = n, .want = W_DIR, .path = p }
#define ERR(n, e)	{ .name = n, .want = W_ERR, .err = e }

static const struct dcase cases[] = {
	/* plain files, odd but valid names */
	FILE_("data:file", "file"),
	FILE_("data:empty", "empty"),
	FILE_("data:.hidden", ".hidden"),
	FILE_("data:..x", "..x"),
	FILE_("data:...", "..."),
	FILE_("data:dir/inner", "dir/inner"),
	FILE_("data:dir/deeper/leaf", "dir/deeper/leaf"),
	FILE_("data:dir/.d/x.", "dir/.d/x."),
	/* the last component: symlinks are not followed */
	LINK("data:link", "link"),
	LINK("data:dangling", "dangling"),
	LINK("data:loop", "loop"),
	LINK("data:up", "up"),
	LINK("data:root", "root"),
	LINK("data:escape", "escape"),
	LINK("data:outdir", "outdir"),
	LINK("data:dir/uplink", "dir/uplink"),
	/* symlinks in the middle resolve as if $ORIGIN were "/" */
	FILE_("data:dirlink/inner", "dir/inner"),
	FILE_("data:absdir/inner", "dir/inner"),
	FILE_("data:root/file", "file"),
	FILE_("data:root/dir/deeper/leaf", "dir/deeper/leaf"),
	FILE_("data:up/file", "file"),
	FILE_("data:upup/dir/inner", "dir/inner"),
	FILE_("data:dir/uplink/file", "file"),
	FILE_("data:outdir/secret", "inner-copy/secret"),
	ERR("data:up/secret", ENOENT),
	ERR("data:upup/secret", ENOENT),
	ERR("data:root/secret", ENOENT),
	/* not regular files: ENODATA, never opened */
	ERR("data:", ENODATA),
	ERR("data:dir", ENODATA),
	ERR("data:dir/deeper", ENODATA),
	ERR("data:fifo", ENODATA),
	ERR("data:sock", ENODATA),
	ERR("data:null", ENODATA),
	ERR("data:unused", ENODATA),
	ERR("data:blk", ENODATA),
	ERR("data:dirlink/deeper", ENODATA),
	/* lookups that fail */
	ERR("data:missing", ENOENT),
	ERR("data:missing/x", ENOENT),
	ERR("data:dangling/x", ENOENT),
	ERR("data:file/x", ENOTDIR),
	ERR("data:fifo/x", ENOTDIR),
	ERR("data:loop/x", ELOOP),
	/* other mounts */
	ERR("data:submount", EXDEV),
	ERR("data:submount/file", EXDEV),
	ERR("data:tomnt/file", EXDEV),
	ERR("data:bound", EXDEV),
	ERR("data:dir/bound", EXDEV),
	/* SUBPATH syntax: EINVAL before any lookup */
	ERR("data:/file", EINVAL),
	ERR("data:/", EINVAL),
	ERR("data://", EINVAL),
	ERR("data:file/", EINVAL),
	ERR("data:dir/", EINVAL),
	ERR("data:dir//inner", EINVAL),
	ERR("data:.", EINVAL),
	ERR("data:..", EINVAL),
	ERR("data:./file", EINVAL),
	ERR("data:dir/.", EINVAL),
	ERR("data:dir/./inner", EINVAL),
	ERR("data:dir/..", EINVAL),
	ERR("data:dir/../file", EINVAL),
	ERR("data:../secret", EINVAL),
	ERR("data:missing/../file", EINVAL),
	ERR("data:missing//x", EINVAL),
	ERR("data:fifo/", EINVAL),

	/* dir: listings */
	DIR_("dir:", ""),
	DIR_("dir", ""),
	DIR_("data", ""),
	DIR_("dir:dir", "dir"),
	DIR_("dir:dir/deeper", "dir/deeper"),
	DIR_("dir:many", "many"),
	DIR_("dir:emptydir", "emptydir"),
	DIR_("dir:dirlink/deeper", "dir/deeper"),
	DIR_("dir:root/dir", "dir"),
	DIR_("dir:up/dir", "dir"),
	DIR_("dir:dir/uplink/dir", "dir"),
	ERR("dir:dirlink", ENOTDIR),
	ERR("dir:root", ENOTDIR),
	ERR("dir:up", ENOTDIR),
	ERR("dir:file", ENOTDIR),
	ERR("dir:fifo", ENOTDIR),
	ERR("dir:sock", ENOTDIR),
	ERR("dir:null", ENOTDIR),
	ERR("dir:unused", ENOTDIR),
	ERR("dir:missing", ENOENT),
	ERR("dir:file/x", ENOTDIR),
	ERR("dir:loop/x", ELOOP),
	ERR("dir:submount", EXDEV),
	ERR("dir:submount/sub", EXDEV),
	ERR("dir:tomnt/sub", EXDEV),
	ERR("dir:/dir", EINVAL),
	ERR("dir:/", EINVAL),
	ERR("dir:dir/", EINVAL),
	ERR("dir:dir//deeper", EINVAL),
	ERR("dir:.", EINVAL),
	ERR("dir:..", EINVAL),
	ERR("dir:dir/..", EINVAL),
	ERR("dir:./dir", EINVAL),
	ERR("dir:missing/../dir", EINVAL),
};

/* Whether @name (GROUP:SUBPATH) is about one of the device nodes. */
static bool names_device(const char *name)
{
	const char *sub = strrchr(name, ':');

	return sub && (!strcmp(sub, ":null") || !strcmp(sub, ":unused") ||
		       !strcmp(sub, ":blk"));
}

static void run_case(const struct dcase *c)
{
	static char want[GVT_BIG];
	ssize_t n = 0;

	if (!have_devices && names_device(c->name)) {
		tap_skip(1, GVT_NO_DEVICES);
		return;
	}
	switch (c->want) {
	case W_FILE:
		n = gvt_want_file(origin, c->path, want, sizeof(want));
		break;
	case W_LINK:
		n = gvt_want_link(origin, c->path, want, sizeof(want));
		break;
	case W_DIR:
		n = gvt_want_dir(origin, c->path, want, sizeof(want));
		break;
	case W_ERR:
		gvt_is_error(origin, "", AT_EMPTY_PATH, c->name, c->err,
			     "\"%s\": %s", c->name, strerrorname_np(c->err));
		return;
	}
	if (n < 0)
		tap_bail("reference for %s: %s", c->name, strerror(errno));
	gvt_is_value(origin, "", AT_EMPTY_PATH, c->name, want, n, "\"%s\"",
		     c->name);
}

/* A major number /proc/devices does not list in section @section. */
static unsigned int unused_major(const char *section)
{
	char text[16384], *line, *save;
	bool used[512] = { false }, in = false;
	ssize_t n = t_orc_read(AT_FDCWD, "/proc/devices", text, sizeof(text) - 1);

	if (n < 0)
		tap_bail("/proc/devices: %s", strerror(errno));
	text[n] = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int m;

		if (strstr(line, "devices:"))
			in = !strncmp(line, section, strlen(section));
		else if (in && sscanf(line, "%u", &m) == 1 && m < 512)
			used[m] = true;
	}
	for (unsigned int m = 511; m > 0; m--)
		if (!used[m])
			return m;
	tap_bail("no unused %s major", section);
}

static void setup(void)
{
	char path[PATH_MAX * 2];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s, fd;

	scratch = gvt_scratch_tmpfs("data", "mode=0755");
	snprintf(originpath, sizeof(originpath), "%s/origin", scratch);
	fd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || t_write_file(fd, "secret", "outside secret", 14, 0644) ||
	    mkdirat(fd, "origin", 0755))
		tap_bail("setup: %s", strerror(errno));
	close(fd);
	origin = open(originpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
	chr_unused = unused_major("Character");
	blk_unused = unused_major("Block");
	if (origin < 0 ||
	    t_write_file(origin, "file", "file contents\n", 14, 0644) ||
	    t_write_file(origin, "empty", "", 0, 0644) ||
	    t_write_file(origin, ".hidden", "hidden", 6, 0644) ||
	    t_write_file(origin, "..x", "dotdot x", 8, 0644) ||
	    t_write_file(origin, "...", "three dots", 10, 0644) ||
	    mkdirat(origin, "dir", 0755) ||
	    t_write_file(origin, "dir/inner", "inner", 5, 0644) ||
	    mkdirat(origin, "dir/deeper", 0755) ||
	    t_write_file(origin, "dir/deeper/leaf", "leaf", 4, 0644) ||
	    mkdirat(origin, "dir/.d", 0755) ||
	    t_write_file(origin, "dir/.d/x.", "x dot", 5, 0644) ||
	    t_write_file(origin, "dir/bound", "under a mount", 13, 0644) ||
	    t_write_file(origin, "bound", "under a mount", 13, 0644) ||
	    mkdirat(origin, "emptydir", 0755) || mkdirat(origin, "many", 0755) ||
	    mkdirat(origin, "submount", 0755) ||
	    symlinkat("file", origin, "link") ||
	    symlinkat("nowhere", origin, "dangling") ||
	    symlinkat("loop", origin, "loop") ||
	    symlinkat("..", origin, "up") ||
	    symlinkat("../../../../..", origin, "upup") ||
	    symlinkat("/", origin, "root") ||
	    symlinkat("/dir", origin, "absdir") ||
	    symlinkat("../secret", origin, "escape") ||
	    symlinkat("../..", origin, "dir/uplink") ||
	    symlinkat("dir", origin, "dirlink") ||
	    symlinkat("submount", origin, "tomnt") ||
	    mkfifoat(origin, "fifo", 0644))
		tap_bail("setup: %s", strerror(errno));
	have_devices = gvt_mknod(origin, "null", S_IFCHR | 0666,
				 makedev(1, 3)) &&
		       gvt_mknod(origin, "unused", S_IFCHR | 0666,
				 makedev(chr_unused, 0)) &&
		       gvt_mknod(origin, "blk", S_IFBLK | 0666,
				 makedev(blk_unused, 0));

	/*
	 * "outdir" holds the absolute path of the scratch tree. Beneath
	 * $ORIGIN that path leads, through another absolute symlink, to
	 * "inner-copy", whose "secret" differs from the real one outside.
	 */
	if (symlinkat(scratch, origin, "outdir") ||
	    mkdirat(origin, "inner-copy", 0755) ||
	    t_write_file(origin, "inner-copy/secret", "inner secret", 12, 0644))
		tap_bail("setup outdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s", scratch + 1);
	for (char *p = path; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdirat(origin, path, 0755) && errno != EEXIST)
			tap_bail("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	if (symlinkat("/inner-copy", origin, path))
		tap_bail("setup outdir link: %s", strerror(errno));

	for (int i = 0; i < 600; i++) {
		snprintf(path, sizeof(path), "many/entry-%04d-with-a-longish-name",
			 i);
		if (t_write_file(origin, path, "", 0, 0644))
			tap_bail("many: %s", strerror(errno));
	}

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock",
		     originpath) >= (int)sizeof(sun.sun_path))
		tap_bail("scratch path too long for a socket");
	if (s < 0 || bind(s, (struct sockaddr *)&sun, sizeof(sun)))
		tap_bail("socket: %s", strerror(errno));

	/* another mount inside, and a file bind-mounted on a file */
	snprintf(path, sizeof(path), "%s/submount", originpath);
	if (gvt_mount_tmpfs(path, 0, "mode=0755"))
		tap_bail("mount tmpfs: %s", strerror(errno));
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || t_write_file(fd, "file", "in the mount", 12, 0644) ||
	    mkdirat(fd, "sub", 0755))
		tap_bail("setup mnt: %s", strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/bound", originpath);
	snprintf(path + PATH_MAX, PATH_MAX, "%s/secret", scratch);
	if (mount(path + PATH_MAX, path, NULL, MS_BIND, NULL))
		tap_bail("bind mount: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/dir/bound", originpath);
	if (mount(path + PATH_MAX, path, NULL, MS_BIND, NULL))
		tap_bail("bind mount: %s", strerror(errno));
}

static void on_alarm(int sig)
{
	(void)sig;
	/* a hang is a failure, not a stuck test run */
	static const char msg[] = "Bail out! a getvalues() call hung\n";

	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/*
 * Names that would open the FIFO, the socket or the devices if anything
 * did, with inotify watching the directory and a writer blocked on the
 * FIFO: no open event for them, and the writer still blocked after.
 */
static void test_never_opened(void)
{
	static const char *const names[] = {
		"data:fifo", "dir:fifo", "stat:type:fifo", "lstat:size:fifo",
		"data:sock", "dir:sock", "stat:type:sock",
		"data:null", "dir:null", "stat:rdev:null",
		"data:unused", "dir:unused", "stat:rdev:unused",
		"data:blk", "stat:rdev:blk", "data:dir/../fifo",
	};
	static const char *const special[] = {
		"fifo", "sock", "null", "unused", "blk",
	};
	const size_t all = sizeof(names) / sizeof(names[0]);
	struct name_val v[sizeof(names) / sizeof(names[0])];
	const char *in[sizeof(names) / sizeof(names[0])];
	char fifo[PATH_MAX + 8], dev[PATH_MAX + 8], buf[4096], ev[8192];
	bool bad_event = false;
	size_t n = 0;
	int ino, ret, fd;
	ssize_t len;
	pid_t pid;

	/* without devices, the same call but for their names */
	for (size_t i = 0; i < all; i++)
		if (have_devices || !names_device(names[i]))
			in[n++] = names[i];
	if (n < all)
		tap_skip(all - n, GVT_NO_DEVICES);

	snprintf(fifo, sizeof(fifo), "%s/fifo", originpath);
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0 || inotify_add_watch(ino, originpath, IN_OPEN) < 0)
		tap_bail("inotify: %s", strerror(errno));
	pid = t_fifo_writer(AT_FDCWD, fifo, NULL, 0);

	signal(SIGALRM, on_alarm);
	alarm(20 * t_time_scale());
	for (size_t i = 0; i < n; i++)
		v[i] = (struct name_val){ .name = in[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	ret = getvalues(origin, "", v, n, AT_EMPTY_PATH);
	tap_is_long(ret, n, "FIFO, socket, devices: every entry handled, no hang");
	for (size_t i = 0; i < n; i++) {
		const char *sub = strrchr(in[i], ':') + 1;
		char want[64];

		if (!strncmp(in[i], "data:", 5)) {
			tap_ok(v[i].error == (i == n - 1 ? EINVAL : ENODATA),
			       "\"%s\": %s", in[i],
			       i == n - 1 ? "EINVAL" : "ENODATA");
		} else if (!strncmp(in[i], "dir:", 4)) {
			tap_ok(v[i].error == ENOTDIR, "\"%s\": ENOTDIR",
			       in[i]);
		} else {
			const char *field = strchr(in[i], ':') + 1;
			char f[16];
			ssize_t w;

			snprintf(f, sizeof(f), "%.*s",
				 (int)(strchr(field, ':') - field), field);
			w = gvt_want_stat(origin, sub,
					  in[i][0] == 'l' ?
					  AT_SYMLINK_NOFOLLOW : 0,
					  f, want, sizeof(want));
			gvt_entry_value(&v[i], want, w, "\"%s\" (stat(2): %.*s)",
					in[i], (int)(w > 0 ? w : 0), want);
		}
	}

	/* $ORIGIN itself the FIFO */
	ret = gvt_call1(AT_FDCWD, fifo, 0, "data:", buf, sizeof(buf), &v[0]);
	tap_ok(ret == 1 && v[0].error == ENODATA,
	       "$ORIGIN a FIFO: data: is ENODATA");
	ret = gvt_call1(AT_FDCWD, fifo, 0, "dir:", buf, sizeof(buf), &v[0]);
	tap_ok(ret == 1 && v[0].error == ENOTDIR,
	       "$ORIGIN a FIFO: dir: is ENOTDIR");
	ret = gvt_call1(AT_FDCWD, fifo, 0, "xattr", buf, sizeof(buf), &v[0]);
	tap_ok(ret == 1, "$ORIGIN a FIFO: xattr listing answers");
	if (snprintf(dev, sizeof(dev), "%s/null", originpath) >=
	    (int)sizeof(dev))
		tap_bail("path too long");
	if (have_devices) {
		ret = gvt_call1(AT_FDCWD, dev, 0, "data:", buf, sizeof(buf),
				&v[0]);
		tap_ok(ret == 1 && v[0].error == ENODATA,
		       "$ORIGIN a device: data: is ENODATA");
	} else {
		tap_skip(1, GVT_NO_DEVICES);
	}
	alarm(0);

	tap_ok(t_in_openat(pid),
	       "the FIFO writer is still blocked in open(): nothing opened the FIFO");
	len = read(ino, ev, sizeof(ev));
	for (ssize_t off = 0; len > 0 && off < len;) {
		struct inotify_event *e = (void *)(ev + off);

		off += sizeof(*e) + e->len;
		if (!e->len)
			continue;	/* the directory itself (dir:) */
		for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
			if (!strcmp(e->name, special[i])) {
				tap_diag("opened: %s", e->name);
				bad_event = true;
			}
	}
	tap_ok(!bad_event, "inotify saw no open of the FIFO, socket or devices");

	/* the watch works: a real open of the device (or file) is seen */
	fd = openat(origin, have_devices ? "null" : "file",
		    O_RDONLY | O_CLOEXEC);
	len = read(ino, ev, sizeof(ev));
	tap_ok(fd >= 0 && len > 0, "(inotify does see an open of the %s)",
	       have_devices ? "device" : "file");
	close(fd);
	close(ino);

	/* release the writer */
	fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	waitpid(pid, NULL, 0);
	close(fd);
}

static atomic_bool swapping;

static void *swapper(void *arg)
{
	int dfd = *(int *)arg;

	while (atomic_load(&swapping))
		renameat2(dfd, "victim", dfd, "swapped", RENAME_EXCHANGE);
	return NULL;
}

/*
 * A name that is a regular file one moment and a FIFO the next (another
 * thread keeps exchanging the two): whatever data: sees, it must never open
 * the FIFO, which a writer blocked in open(2) would notice.
 */
static void test_rename_race(void)
{
	char dir[PATH_MAX + 16], fifo[PATH_MAX + 32], buf[64];
	long calls = 0, regular = 0, nodata = 0, other = 0;
	bool opened = false;
	pthread_t thread;
	int dfd, fd;
	pid_t pid;

	if (snprintf(dir, sizeof(dir), "%s/race", originpath) >=
	    (int)sizeof(dir) || mkdir(dir, 0755))
		tap_bail("race dir: %s", strerror(errno));
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(fifo, sizeof(fifo), "%s/swapped", dir);
	if (dfd < 0 || t_write_file(dfd, "victim", "regular", 7, 0644) ||
	    mkfifo(fifo, 0644))
		tap_bail("race setup: %s", strerror(errno));
	pid = t_fifo_writer(AT_FDCWD, fifo, NULL, 0);
	atomic_store(&swapping, true);
	if (pthread_create(&thread, NULL, swapper, &dfd))
		tap_bail("pthread_create");
	signal(SIGALRM, on_alarm);
	alarm(60 * t_time_scale());
	for (; calls < 20000 && !opened; calls++) {
		struct name_val e;

		gvt_call1(dfd, "", AT_EMPTY_PATH, "data:victim", buf,
			  sizeof(buf), &e);
		if (!e.error && e.value_out.iov_len == 7 && !memcmp(buf, "regular", 7))
			regular++;
		else if (e.error == ENODATA)
			nodata++;
		else
			other++;
		if (calls % 64 == 0)
			opened = !t_in_openat(pid);
	}
	alarm(0);
	atomic_store(&swapping, false);
	pthread_join(thread, NULL);
	opened = opened || !t_in_openat(pid);
	tap_diag("%ld calls: %ld regular, %ld ENODATA, %ld other", calls,
		 regular, nodata, other);
	tap_ok(!opened, "a FIFO renamed over a regular file is never opened "
	       "(writer still blocked after %ld calls)", calls);
	tap_ok(other == 0, "... and data: saw the file or ENODATA, nothing else");
	/* release the writer: open the FIFO, under whichever name it is now */
	{
		struct stat st;
		const char *name = fstatat(dfd, "victim", &st, 0) == 0 &&
				   S_ISFIFO(st.st_mode) ? "victim" : "swapped";

		fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	waitpid(pid, NULL, 0);
	if (fd >= 0)
		close(fd);
	close(dfd);
}

/* $ORIGIN a regular file: nothing is beneath it. */
static void test_file_origin(void)
{
	char want[64];
	ssize_t n = gvt_want_file(origin, "file", want, sizeof(want));

	gvt_is_value(origin, "file", 0, "data:", want, n,
		     "$ORIGIN a file: data: is its contents");
	gvt_is_error(origin, "file", 0, "data:x", ENOTDIR,
		     "$ORIGIN a file: data:x is ENOTDIR");
	gvt_is_error(origin, "file", 0, "dir:", ENOTDIR,
		     "$ORIGIN a file: dir: is ENOTDIR");
	gvt_is_error(origin, "file", 0, "dir:x", ENOTDIR,
		     "$ORIGIN a file: dir:x is ENOTDIR");
	gvt_is_error(origin, "link", AT_SYMLINK_NOFOLLOW, "dir:", ENOTDIR,
		     "$ORIGIN a symlink (not followed): dir: is ENOTDIR");
	gvt_is_error(origin, "dirlink", AT_SYMLINK_NOFOLLOW, "data:inner",
		     ENOTDIR, "$ORIGIN a symlink to a directory (not "
		     "followed): data:inner is ENOTDIR");
	n = gvt_want_file(origin, "dir/inner", want, sizeof(want));
	gvt_is_value(origin, "dirlink", 0, "data:inner", want, n,
		     "$ORIGIN a symlink to a directory, followed: data:inner");
}

/* procfs and sysfs, where data: opens directly (no devices there). */
static void test_proc_sys(void)
{
	char want[8192], name[64], path[PATH_MAX + 16];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), self, pfd;
	ssize_t n;

	self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	n = gvt_want_file(self, "comm", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "data:comm", want, n,
		     "/proc/self data:comm");
	n = gvt_want_file(self, "cmdline", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "data:cmdline", want, n,
		     "/proc/self data:cmdline");
	n = gvt_want_link(self, "cwd", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "data:cwd", want, n,
		     "/proc/self data:cwd: the magic link's target");
	snprintf(name, sizeof(name), "fd/%d", fd);
	n = gvt_want_link(self, name, want, sizeof(want));
	snprintf(name, sizeof(name), "data:fd/%d", fd);
	gvt_is_value(AT_FDCWD, "/proc/self", 0, name, want, n,
		     "/proc/self data:fd/N: the magic link's target");
	n = gvt_want_link(self, "ns/mnt", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "data:ns/mnt", want, n,
		     "/proc/self data:ns/mnt");
	n = gvt_want_link(AT_FDCWD, "/proc/mounts", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc", 0, "data:mounts", want, n,
		     "/proc data:mounts: a plain symlink's target");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:fd", ENODATA,
		     "/proc/self data:fd: a directory: ENODATA");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:", ENODATA,
		     "/proc/self data: itself: ENODATA");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:cwd/file", EXDEV,
		     "/proc/self data:cwd/file: magic link in the middle: EXDEV");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:root/etc/hostname", EXDEV,
		     "/proc/self data:root/...: magic link in the middle: EXDEV");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:missing", ENOENT,
		     "/proc/self data:missing: ENOENT");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:comm/x", ENOTDIR,
		     "/proc/self data:comm/x: ENOTDIR");
	gvt_is_error(AT_FDCWD, "/proc/self", 0, "data:../self/comm", EINVAL,
		     "/proc/self data:../self/comm: EINVAL");
	n = gvt_want_file(AT_FDCWD, "/proc/sys/kernel/ostype", want,
			  sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/sys", 0, "data:kernel/ostype", want, n,
		     "/proc/sys data:kernel/ostype");
	n = gvt_want_dir(self, "ns", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/proc/self", 0, "dir:ns", want, n,
		     "/proc/self dir:ns");
	n = gvt_want_file(AT_FDCWD, "/sys/kernel/mm/transparent_hugepage/enabled",
			  want, sizeof(want));
	if (n >= 0)
		gvt_is_value(AT_FDCWD, "/sys/kernel/mm", 0,
			     "data:transparent_hugepage/enabled", want, n,
			     "/sys data:transparent_hugepage/enabled");
	else
		tap_skip(1, "kernel without transparent hugepages in sysfs");
	n = gvt_want_link(AT_FDCWD, "/sys/class/net/lo", want, sizeof(want));
	gvt_is_value(AT_FDCWD, "/sys/class", 0, "data:net/lo", want, n,
		     "/sys/class data:net/lo: a sysfs symlink's target");
	gvt_is_error(AT_FDCWD, "/sys", 0, "data:kernel", ENODATA,
		     "/sys data:kernel: a directory: ENODATA");

	/* a mount on a procfs file: EXDEV there too */
	pfd = open("/proc/sys/kernel/ostype", O_PATH | O_CLOEXEC);
	if (snprintf(path, sizeof(path), "%s/file", originpath) >=
	    (int)sizeof(path))
		tap_bail("path too long");
	if (mount(path, "/proc/sys/kernel/ostype", NULL, MS_BIND, NULL)) {
		tap_skip(2, "cannot bind-mount over a procfs file here: %s",
			 strerror(errno));
	} else {
		gvt_is_error(AT_FDCWD, "/proc/sys", 0, "data:kernel/ostype",
			     EXDEV, "procfs: a file with a mount on it: EXDEV");
		gvt_is_error(AT_FDCWD, "/proc", 0, "data:sys/kernel/ostype",
			     EXDEV, "procfs: the same, deeper: EXDEV");
		umount2("/proc/sys/kernel/ostype", MNT_DETACH);
	}
	close(pfd);
	close(self);
	close(fd);
}

static const char *const unpriv_names[] = {
	"data:private/file", "data:secretfile", "dir:private",
	"data:private", "dir:private/x", "stat:size:private/file",
};
#define UNPRIV_N (sizeof(unpriv_names) / sizeof(unpriv_names[0]))

static void unprivileged_calls(void *arg, void *res)
{
	struct name_val v[UNPRIV_N];
	uint32_t *r = res;
	char buf[256];

	(void)arg;
	for (size_t i = 0; i < UNPRIV_N; i++)
		v[i] = (struct name_val){ .name = unpriv_names[i] };
	v[0].value_in = (struct iovec){ buf, sizeof(buf) };
	if (getvalues(origin, "", v, UNPRIV_N, AT_EMPTY_PATH) != UNPRIV_N)
		memset(r, 0xff, UNPRIV_N * sizeof(*r));
	else
		for (size_t i = 0; i < UNPRIV_N; i++)
			r[i] = v[i].error;
}

/* EACCES comes from the kernel's own checks. */
static void test_unprivileged(void)
{
	static const int want[UNPRIV_N] = {
		EACCES, EACCES, EACCES, ENODATA, EACCES, EACCES,
	};
	uint32_t res[UNPRIV_N];

	if (mkdirat(origin, "private", 0700) ||
	    t_write_file(origin, "private/file", "private", 7, 0644) ||
	    t_write_file(origin, "secretfile", "secret", 6, 0600))
		tap_bail("setup private: %s", strerror(errno));
	if (t_as_nobody(unprivileged_calls, NULL, res, sizeof(res))) {
		tap_skip(UNPRIV_N, T_NO_SECOND_USER);
		return;
	}
	for (size_t i = 0; i < UNPRIV_N; i++)
		tap_ok(res[i] == (uint32_t)want[i], "as nobody: \"%s\": %s",
		       unpriv_names[i], strerrorname_np(want[i]));
}

int main(void)
{
	setup();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_never_opened();
	test_rename_race();
	test_file_origin();
	test_proc_sys();
	test_unprivileged();
	close(origin);
	return tap_done();
}
