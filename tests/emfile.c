// SPDX-License-Identifier: MIT
/*
 * emfile.c - readfile() and data: give EMFILE exactly when open(2)
 * would at that moment (SPEC v2, 1 and 2.2): with every descriptor below
 * RLIMIT_NOFILE in use, open(2) gives EMFILE, and so do readfile() and the
 * data: entry; with one descriptor free, open(2) works, and so do they.
 * The native calls take no descriptor of their own: the call goes on and
 * stat: answers with none free, data: works with one. So does the library
 * for this call's $ORIGIN (dfd itself, AT_EMPTY_PATH), but its data: works
 * with descriptors (a pin, the thread's /proc fd directory and the file:
 * up to four on a file system that can hold devices, getvalues(3)): with
 * fewer free, its data: entry gives EMFILE, nothing else, and with four
 * free everything works. RLIMIT_NOFILE binds every backend:
 * none reads a file that open(2) could not open. Each backend in a child
 * of its own (the limit and the descriptors stay there).
 *
 * Written for SPEC version 2 as spec2_emfile.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define LIMIT 64

static const char content[] = "one descriptor's worth\n";
static char top[2048];

static void run(void *arg)
{
	const struct t_backend *b = arg;
	struct rlimit rl = { LIMIT, LIMIT };
	char buf[256], size[16];
	struct name_val v[2];
	int dir, last = -1, ref, ret, err;
	ssize_t n;

	gv_backend_force(b->id);
	dir = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* the backend set up (a ring, a probe) before the limit bites */
	if (dir < 0 || readfile(dir, "f", buf, sizeof(buf), 0) < 0)
		tap_bail("setup: %s", strerror(errno));
	if (setrlimit(RLIMIT_NOFILE, &rl))
		tap_bail("setrlimit: %s", strerror(errno));
	for (int fd; (fd = fcntl(0, F_DUPFD_CLOEXEC, 0)) >= 0;)
		last = fd;
	snprintf(size, sizeof(size), "%zu", strlen(content));

	bool lib = b->id == GV_BACKEND_SYNC || b->id == GV_BACKEND_URING ||
		   (b->id == GV_BACKEND_AUTO &&
		    gv_backend_usable(GV_BACKEND_NATIVE));
	static const char *const states[] = {
		"no descriptor free", "one descriptor free",
		"four descriptors free",
	};

	for (int round = 0; round < 3; round++) {
		const char *state = states[round];
		int want = round ? 0 : EMFILE;
		/*
		 * whether data: can work with that many descriptors: the
		 * native call takes one slot while the file is open
		 */
		bool data = lib ? round == 2 : round >= 1;

		errno = 0;
		ref = openat(dir, "f", O_RDONLY | O_CLOEXEC);
		if (ref >= 0)
			close(ref);
		if ((ref < 0 ? errno : 0) != want) {
			tap_skip(3, "%s: open(2) itself gives %s", state,
				 strerrorname_np(ref < 0 ? errno : 0));
			goto next;
		}
		errno = 0;
		n = readfile(dir, "f", buf, sizeof(buf), 0);
		err = errno;
		if (!tap_ok(want ? n == -1 && err == EMFILE :
			    n == (ssize_t)strlen(content),
			    "%s, %s: readfile() %s, as open(2)", b->name, state,
			    want ? "gives EMFILE" : "works"))
			tap_diag("   returned %zd (%s)", n,
				 n < 0 ? strerrorname_np(err) : "-");
		v[0] = (struct name_val){ .name = "stat:size:f",
					  .value_in = { buf, sizeof(buf) } };
		v[1] = (struct name_val){ .name = "data:f" };
		errno = 0;
		ret = getvalues(dir, "", v, 2, AT_EMPTY_PATH);
		err = errno;
		if (!tap_ok(ret == 2 && (!data ? v[1].error == EMFILE :
					 t_is(1, &v[1], content,
					       strlen(content))),
			    "%s, %s: data: %s", b->name, state,
			    data ? "works" : "gives EMFILE"))
			tap_diag("   returned %d (%s), data: %s", ret,
				 ret < 0 ? strerrorname_np(err) : "-",
				 t_got(ret, err, &v[1]));
		tap_ok(ret == 2 && t_is(1, &v[0], size, strlen(size)),
		       "%s, %s: the call goes on: stat:size:f is there",
		       b->name, state);
next:
		/* free one more descriptor, then three more */
		for (int k = round ? 3 : 1; k > 0 && last > dir; k--)
			close(last--);
	}
}

int main(void)
{
	struct t_backend bs[4];
	int n, dfd;

	alarm(300);
	snprintf(top, sizeof(top), "%s", t_tmpdir("emfile"));
	dfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || t_write_file(dfd, "f", content, strlen(content), 0644))
		tap_bail("setup in %s: %s", top, strerror(errno));
	close(dfd);
	n = t_backends(bs, 6);
	for (int i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s, RLIMIT_NOFILE %d", bs[i].name,
			 LIMIT);
		t_sub(what, 20, run, &bs[i]);
	}
	return tap_done();
}
