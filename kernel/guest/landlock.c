// SPDX-License-Identifier: GPL-2.0
/*
 * landlock.c - getvalues(2), readfile(2) and the library (native backend)
 * under two LSMs:
 *
 * landlock: a ruleset that handles reading files and directories and
 * allows it beneath one directory only. data:, dir: and readfile of what
 * it denies fail with EACCES as open(2) does, through the raw calls and
 * the library; stat: is not a read and works as statx(2) does; what it
 * allows reads as before.
 *
 * yama: ptrace_scope is 1 for the whole run (init sets it): an
 * unprivileged process cannot attach to a sibling, yet stat: of the
 * sibling's /proc/PID/fd/0 magic link gives what stat(2) gives, since
 * yama restricts attaching only, not the read access /proc asks for.
 *
 * kcheck-guest: libgetvalues
 */
#define _GNU_SOURCE
#include <getvalues.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "entry.h"
#include "guest.h"

static char scratch[64] = "/var/tmp/gvlandlock.XXXXXX";

/* one entry by the raw call (@lib false) or the library: its errno */
static int one(const char *origin, const char *name, bool lib, char *val,
	       size_t *len)
{
	static char buf[4096];
	struct gv_entry e = { .name = PTR(name),
			      .value_in = { PTR(buf), sizeof(buf) } };
	struct name_val v = { .name = name, .value_in = { buf, sizeof(buf) } };
	int r;

	r = lib ? getvalues(AT_FDCWD, origin, &v, 1, 0)
		: syscall(NR_GETVALUES, AT_FDCWD, origin, &e, 1, sizeof(e), 0);
	if (r != 1)
		return r < 0 ? -errno : -1000;
	*len = lib ? v.value_out.iov_len : e.value_out.len;
	if (*len > 255)
		*len = 255;
	memcpy(val, lib ? v.value_out.iov_base
			: (void *)(uintptr_t)e.value_out.base, *len);
	val[*len] = 0;
	return lib ? (int)v.error : (int)e.error;
}

/* --- yama ------------------------------------------------------------------- */

struct yama_result {
	long attach, attach_err;
	int stat_err, gv_err;
	char stat_ino[32], gv_ino[256];
};

static void as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		_exit(99);
	prctl(PR_SET_DUMPABLE, 1);	/* /proc/PID as its own user's */
}

static void check_yama(void)
{
	struct yama_result *res;
	char scope[16], origin[64];
	struct stat st;
	int p[2], status;
	pid_t a, b;
	size_t len;

	if (get_file(AT_FDCWD, "/proc/sys/kernel/yama/ptrace_scope", scope,
		     sizeof(scope)) < 0) {
		skip("no yama in this kernel (CONFIG_SECURITY_YAMA)");
		return;
	}
	ok(scope[0] == '1', "yama ptrace_scope is 1 for the run: %c", scope[0]);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED || pipe(p))
		bail("mmap, pipe");
	a = fork();
	if (!a) {	/* the sibling: waits with the pipe as its stdin */
		dup2(p[0], 0);
		close(p[1]);
		as_nobody();
		read(0, scope, 1);
		_exit(0);
	}
	close(p[0]);
	usleep(200000);
	b = fork();
	if (!b) {
		as_nobody();
		res->attach = ptrace(PTRACE_ATTACH, a, NULL, NULL);
		res->attach_err = errno;
		snprintf(origin, sizeof(origin), "/proc/%d/fd/0", a);
		res->stat_err = stat(origin, &st) ? errno : 0;
		snprintf(res->stat_ino, sizeof(res->stat_ino), "%llu",
			 (unsigned long long)st.st_ino);
		snprintf(origin, sizeof(origin), "/proc/%d", a);
		res->gv_err = one(origin, "stat:ino:fd/0", false, res->gv_ino,
				  &len);
		_exit(0);
	}
	waitpid(b, &status, 0);
	close(p[1]);
	waitpid(a, NULL, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && res->attach < 0 &&
	   res->attach_err == EPERM,
	   "yama: nobody cannot attach to its sibling: %ld (%s)", res->attach,
	   strerror(res->attach_err));
	ok(res->stat_err == 0 && res->gv_err == 0 &&
	   !strcmp(res->stat_ino, res->gv_ino),
	   "yama: stat:ino:fd/0 of the sibling as stat(2): %s \"%s\", "
	   "stat(2): %s \"%s\"", strerror(res->gv_err), res->gv_ino,
	   strerror(res->stat_err), res->stat_ino);
}

/* --- landlock ------------------------------------------------------------- */

static int allow(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	int r;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return -1;
	r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0);
	close(pb.parent_fd);
	return r;
}

/* reads allowed beneath @allowed and /proc only, from now on */
static bool restrict_reads(const char *allowed)
{
	const uint64_t reads = LANDLOCK_ACCESS_FS_READ_FILE |
			       LANDLOCK_ACCESS_FS_READ_DIR;
	struct landlock_ruleset_attr attr = { .handled_access_fs = reads };
	int ruleset, abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		skip("no landlock (%s): CONFIG_SECURITY_LANDLOCK, lsm=",
		     strerror(errno));
		return false;
	}
	ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0 || allow(ruleset, allowed, reads) ||
	    allow(ruleset, "/proc", reads) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0))
		bail("landlock ruleset");
	close(ruleset);
	ok(true, "landlock ABI %d: reads allowed beneath allowed/ and /proc "
	   "only", abi);
	return true;
}

static void expect(const char *origin, const char *name, int err,
		   const char *value)
{
	char val[256];
	size_t len = 0;
	int pass, got;

	for (pass = 0; pass < 2; pass++) {
		got = one(origin, name, pass, val, &len);
		ok(got == err && (err || !strcmp(val, value)),
		   "landlock: %s %s: %s \"%s\", as open/statx: %s \"%s\"",
		   pass ? "library" : "raw", name,
		   got < 0 ? "call failed" : strerror(got), got ? "" : val,
		   strerror(err), value);
	}
}

static void expect_readfile(const char *path, int err)
{
	char buf[256];
	ssize_t r;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		r = pass ? getvalues_readfile(AT_FDCWD, path, buf, sizeof(buf), 0)
			 : syscall(NR_READFILE, AT_FDCWD, path, buf,
				   sizeof(buf), 0);
		ok(err ? r < 0 && errno == err : r >= 0,
		   "landlock: %s of %s: %zd (%s), open(2): %s",
		   pass ? "library readfile()" : "readfile(2)", path, r,
		   r < 0 ? strerror(errno) : "read", strerror(err));
	}
}

static void check_landlock(void)
{
	char allowed[128], denied[128], path[160], size[32];
	struct stat st;
	int fd, open_err;

	snprintf(allowed, sizeof(allowed), "%s/allowed", scratch);
	snprintf(denied, sizeof(denied), "%s/denied", scratch);
	if (mkdir(allowed, 0755) || mkdir(denied, 0755))
		bail("mkdir");
	snprintf(path, sizeof(path), "%s/f", allowed);
	put_file(path, "allowed");
	snprintf(path, sizeof(path), "%s/f", denied);
	put_file(path, "denied");
	if (stat(path, &st))
		bail("stat");
	snprintf(size, sizeof(size), "%lld", (long long)st.st_size);
	/* the library picks its backend before the ruleset, as a program would */
	expect(scratch, "data:allowed/f", 0, "allowed");
	if (!restrict_reads(allowed))
		return;
	fd = open(path, O_RDONLY);
	open_err = fd < 0 ? errno : 0;
	ok(open_err == EACCES, "landlock: open(2) of denied/f: %s",
	   strerror(open_err));
	if (fd >= 0)
		close(fd);
	expect(scratch, "data:denied/f", EACCES, "");
	expect(denied, "data:f", EACCES, "");
	expect(scratch, "dir:denied", EACCES, "");
	expect(scratch, "stat:size:denied/f", 0, size);
	expect(scratch, "data:allowed/f", 0, "allowed");
	expect_readfile(path, EACCES);
	snprintf(path, sizeof(path), "%s/f", allowed);
	expect_readfile(path, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(scratch))
		bail("mkdtemp");
	if (geteuid())
		skip("needs root: yama's sibling runs as nobody");
	else
		check_yama();
	check_landlock();	/* the process is confined from here on */
	/* known names: removing them reads no directory */
	chdir(scratch);
	if (unlink("allowed/f") || unlink("denied/f") || rmdir("allowed") ||
	    rmdir("denied") || rmdir(scratch))
		diag("could not remove %s: %s", scratch, strerror(errno));
	return tap_done();
}
