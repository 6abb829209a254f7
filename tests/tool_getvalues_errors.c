// SPDX-License-Identifier: MIT
/*
 * tool_getvalues_errors.c - how the getvalues command fails: the exit
 * status when some, all or none of the names fail, usage errors, and each
 * kind of failed name said in words that fit it, in text and in JSON.
 */
#include <errno.h>
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

static void test_exit_status(void)
{
	char longname[300];
	struct sb want = { 0 };
	struct run r;

	run_tool(&r, NULL, tg_dir, "data:text", "data:missing", "stat:type:sub",
		 NULL);
	sb_adds(&want, "data:text=hello world\\n\nstat:type:sub=dir\n");
	expect(&r, 64, &want, "getvalues: data:missing: No such file or "
	       "directory\n", "one entry fails: the others print, exit 64");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, tg_dir, "", ":x", "data:text", ":nope", NULL);
	expect(&r, 64, NULL, "getvalues: :x: a shorthand :REST needs a "
	       "previous name with a group (as in stat:mode :size)\n"
	       "getvalues: data:nope: No such file or directory\n",
	       "shorthand after \"\" is EINVAL; errors show expanded names");
	run_free(&r);

	/* mount IDs never exceed INT_MAX; 2^32 is not even an ID */
	run_tool(&r, NULL, tg_dir, "mntns:4294967296:root", ":options",
		 "mntns:4294967295", ":dev", NULL);
	expect(&r, 32, &empty,
	       "getvalues: mntns:4294967296:root: no mount with ID "
	       "4294967296 here\n"
	       "getvalues: mntns:4294967296:options: no mount with ID "
	       "4294967296 here\n"
	       "getvalues: mntns:4294967295: no mount with ID 4294967295 "
	       "here\n"
	       "getvalues: mntns:4294967295:dev: no mount with ID "
	       "4294967295 here\n",
	       "mntns:ID: keeps the ID for the shorthand; none fetched: "
	       "exit 32");
	run_free(&r);

	memset(longname, 'x', sizeof(longname) - 1);
	memcpy(longname, "data:", 5);
	longname[sizeof(longname) - 1] = 0;
	run_tool(&r, NULL, tg_dir, longname, ":text", NULL);
	sb_printf(&want, "getvalues: %s: name longer than 255 bytes\n"
		  "getvalues: :text: a shorthand :REST needs a previous name "
		  "with a group (as in stat:mode :size)\n", longname);
	expect(&r, 32, NULL, want.p,
	       "a name over 255 bytes: ENAMETOOLONG, and no prefix after it");
	run_free(&r);
	sb_free(&want);

	run_tool(&r, NULL, "/nonexistent", "stat:size", NULL);
	expect(&r, 1, &empty,
	       "getvalues: /nonexistent: No such file or directory\n",
	       "a PATH that does not resolve: exit 1, says why");
	run_free(&r);

	static const char *const usage[][5] = {
		{ NULL },
		{ "/", NULL },
		{ "--frobnicate", "/", "stat:size", NULL },
		{ "--json", "-0", "/", "stat:size", NULL },
		{ "--fd", "abc", "/", "stat:size", NULL },
		{ "--fd=-1", "/", "stat:size", NULL },
		{ "--max-size=0", "/", "stat:size", NULL },
		{ "--max-size=12Q", "/", "stat:size", NULL },
		{ "--backend=bogus", "/", "stat:size", NULL },
		{ "-E", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(usage); i++) {
		const char *const *a = usage[i];

		run_tool_v(&r, NULL, a);
		tap_ok(r.status == 1 && r.out.len == 0 &&
		       strstr(r.err.p, "getvalues: ") == r.err.p &&
		       strstr(r.err.p, "--help"),
		       "usage error %zu (%s %s): exit 1, a message, a hint",
		       i, a[0] ? a[0] : "", a[0] && a[1] ? a[1] : "");
		if (i == 8)
			tap_ok(strstr(r.err.p, "bogus") != NULL,
			       "--backend=bogus names the bad backend");
		run_free(&r);
	}
}

/* Each kind of failed name said in words that fit it, in text and JSON. */
static void test_messages(void)
{
	static const char groups[] = "mnt, mntns, xattr, data, dir, stat, "
				     "lstat, fs";
	static const char badsub[] = "bad SUBPATH: it may not start or end "
				     "with '/', hold '//', or have a '.' or "
				     "'..' component";
	const struct {
		const char *name;
		const char *msg;
		bool xattr;
	} cases[] = {
		{ .name = "stat:sise",
		  .msg = "no such field 'sise' in group stat (getvalues "
			 "PATH stat lists them)" },
		{ .name = "lstat:sise:text",
		  .msg = "no such field 'sise' in group lstat "
			 "(getvalues PATH lstat lists them)" },
		{ .name = "fs:magic",
		  .msg = "no such field 'magic' in group fs (getvalues "
			 "PATH fs lists them)" },
		{ .name = "mnt:target",
		  .msg = "no such field 'target' in group mnt "
			 "(getvalues PATH mnt lists them)" },
		{ .name = "proc:stat" },
		{ .name = "stat:size:nope",
		  .msg = "No such file or directory" },
		{ .name = "data:fifo",
		  .msg = "not a regular file or symbolic link (data: "
			 "reads only those, never a device, FIFO or "
			 "socket)" },
		{ .name = "data:../text",
		  .msg = badsub },
		{ .name = "data:sub/",
		  .msg = badsub },
		{ .name = "dir:sub//one",
		  .msg = badsub },
		{ .name = "xattr:",
		  .msg = "xattr: needs the name of an attribute" },
		{ .name = "xattr:user.none",
		  .msg = "no such extended attribute",
		  .xattr = true },
	};
	char fifo[PATH_MAX], msg[512];
	struct sb want = { 0 };
	struct run r;

	/* a FIFO beside the test's own files: data: must not open it */
	snprintf(fifo, sizeof(fifo), "%s/fifo", tg_outdir);
	if (mkfifo(fifo, 0644) && errno != EEXIST)
		tap_bail("mkfifo %s: %s", fifo, strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *origin = strcmp(cases[i].name, "data:fifo") ?
				     tg_dir : tg_outdir;

		if (cases[i].xattr && !tg_have_xattr) {
			tap_skip(1, "no user xattrs on %s", tg_dir);
			continue;
		}
		if (cases[i].msg)
			snprintf(msg, sizeof(msg), "getvalues: %s: %s\n",
				 cases[i].name, cases[i].msg);
		else
			snprintf(msg, sizeof(msg), "getvalues: %s: no such "
				 "group 'proc' (the groups: %s)\n",
				 cases[i].name, groups);
		run_tool(&r, NULL, origin, cases[i].name, NULL);
		tap_ok(r.status == 32 && r.out.len == 0 &&
		       !strcmp(r.err.p, msg), "message for %s: \"%.*s\"",
		       cases[i].name, (int)strlen(msg) - 1, msg);
		if (r.status != 32 || strcmp(r.err.p, msg))
			tap_diag("exit %d, stderr: %s", r.status, r.err.p);
		run_free(&r);
	}

	/* the same words in JSON's message */
	run_tool(&r, NULL, "--json", tg_dir, "stat:sise", NULL);
	sb_adds(&want, "{\n  \"values\": [\n    {\"name\": \"stat:sise\", "
		"\"error\": \"ENOENT\", \"message\": \"no such field 'sise' "
		"in group stat (getvalues PATH stat lists them)\"}\n  ]\n}\n");
	expect(&r, 32, &want, "getvalues: stat:sise: no such field 'sise' in "
	       "group stat (getvalues PATH stat lists them)\n",
	       "--json: the message in words, the errno by name");
	run_free(&r);
	sb_free(&want);
}

int main(void)
{
	tg_start();

	test_exit_status();
	test_messages();

	return tap_done();
}
