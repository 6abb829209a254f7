// SPDX-License-Identifier: MIT
/*
 * tool_getvalues_options.c - the options of the getvalues command that
 * choose what it reads and how: which object is $ORIGIN (a followed
 * symlink, -L, -E, --fd), --backend against GETVALUES_BACKEND, and
 * --help and -V.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/getvalues_cmd.h"
#include "lib/run.h"
#include "lib/tap.h"
#include "lib/util.h"

/* -L, -E and --fd: which object is $ORIGIN. */
static void test_origin(void)
{
	struct sb want = { 0 }, items = { 0 };
	char path[PATH_MAX], sub[PATH_MAX];
	struct stat st = tg_stat_of("text", true);
	struct run r;
	int fd;

	snprintf(path, sizeof(path), "%s/link", tg_dir);
	run_tool(&r, NULL, path, "data:", "stat:type", NULL);
	sb_adds(&want, "data:=hello world\\n\nstat:type=reg\n");
	expect(&r, 0, &want, "", "a symlink PATH is followed");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "-L", path, "data:", "stat:type", NULL);
	sb_adds(&want, "data:=text\nstat:type=lnk\n");
	expect(&r, 0, &want, "", "-L: the link itself");
	run_free(&r);
	sb_free(&want);

	snprintf(path, sizeof(path), "%s/text", tg_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s: %s", path, strerror(errno));
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 }, "-E",
		 "--fd", "7", "data:", "stat:ino", NULL);
	sb_printf(&want, "data:=hello world\\n\nstat:ino=%llu\n",
		  (unsigned long long)st.st_ino);
	expect(&r, 0, &want, "", "-E --fd 7: the open file itself");
	run_free(&r);
	sb_free(&want);
	close(fd);

	fd = open(tg_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s: %s", tg_dir, strerror(errno));
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 },
		 "--fd=7", "text", "data:", NULL);
	sb_adds(&want, "data:=hello world\\n\n");
	expect(&r, 0, &want, "", "--fd 7 PATH: PATH relative to fd 7");
	run_free(&r);
	sb_free(&want);

	/* with -E every operand is a NAME, "" too */
	sb_items(&items, tg_spec_groups);
	tg_text_list(&want, "", &items);
	sb_free(&items);
	run_tool(&r, &(struct spawn){ .fd_src = fd, .fd_dst = 7 }, "-E",
		 "--fd", "7", "", "dir:sub", NULL);
	snprintf(sub, sizeof(sub), "%s/sub", tg_dir);
	tg_list_dir(sub, &items);
	tg_text_list(&want, "dir:sub", &items);
	sb_free(&items);
	expect(&r, 0, &want, "", "-E: no PATH operand; \"\" is a name");
	run_free(&r);
	sb_free(&want);
	close(fd);

	tg_list_dir(sub, &items);
	tg_text_list(&want, "dir:", &items);
	sb_free(&items);
	run_tool(&r, &(struct spawn){ .cwd = sub }, "-E", "dir:", NULL);
	expect(&r, 0, &want, "", "-E without --fd: the working directory");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, &(struct spawn){ .close_fd = 7 }, "-E", "--fd", "7",
		 "stat:ino", NULL);
	expect(&r, 1, &empty, "getvalues: fd 7: Bad file descriptor\n",
	       "-E --fd on a closed descriptor: exit 1");
	run_free(&r);
}

static void test_backend(void)
{
	static const char *const bogus_env[] = { "GETVALUES_BACKEND=bogus",
						 NULL };
	struct run base, r;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/text", tg_dir);
	run_tool(&base, NULL, path, "data:", "stat:ino", "fs:type", NULL);
	tap_is_long(base.status, 0, "backend: default run succeeds");

	run_tool(&r, NULL, "--backend=sync", path, "data:", "stat:ino",
		 "fs:type", NULL);
	expect(&r, 0, &base.out, "", "--backend=sync: the same output");
	run_free(&r);

	run_tool(&r, &(struct spawn){ .env = bogus_env }, "--backend", "sync",
		 path, "data:", "stat:ino", "fs:type", NULL);
	expect(&r, 0, &base.out, "",
	       "--backend overrides GETVALUES_BACKEND from the environment");
	run_free(&r);

	run_tool(&r, &(struct spawn){ .env = bogus_env }, path, "data:", NULL);
	expect(&r, 1, &empty,
	       "getvalues: GETVALUES_BACKEND=bogus: unknown backend (auto, "
	       "sync, uring, native)\n",
	       "GETVALUES_BACKEND=bogus: exit 1, names the backend and the "
	       "choices");
	run_free(&r);

	run_tool(&r, NULL, "--backend=native", path, "data:", "stat:ino",
		 "fs:type", NULL);
	if (r.status == 0)
		expect(&r, 0, &base.out, "",
		       "--backend=native (available): the same output");
	else
		expect(&r, 1, &empty,
		       "getvalues: backend native: this kernel has no "
		       "readfile(2) and getvalues(2) system calls (see "
		       "getvalues(7))\n",
		       "--backend=native (not available here): exit 1, says "
		       "so");
	run_free(&r);
	run_free(&base);
}

static void test_help_version(void)
{
	struct sb want = { 0 };
	struct run r;

	run_tool(&r, NULL, "--help", NULL);
	tap_ok(r.status == 0 && !strncmp(r.out.p, "Usage: getvalues ", 17) &&
	       r.err.len == 0, "--help: usage on stdout, exit 0");
	run_free(&r);

	sb_printf(&want, "getvalues (libgetvalues) %d.%d.%d\n",
		  GETVALUES_VERSION_MAJOR, GETVALUES_VERSION_MINOR,
		  GETVALUES_VERSION_PATCH);
	run_tool(&r, NULL, "-V", NULL);
	expect(&r, 0, &want, "", "-V: the version of getvalues.h");
	run_free(&r);
	sb_free(&want);
}

int main(void)
{
	tg_start();

	test_origin();
	test_backend();
	test_help_version();

	return tap_done();
}
