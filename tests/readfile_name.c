// SPDX-License-Identifier: MIT
/*
 * readfile_name.c - a program with a readfile() of its own uses the library:
 * GETVALUES_NO_READFILE leaves the name out of <getvalues.h>, the program's
 * readfile() (another signature) links against libgetvalues.a and wins, and
 * getvalues_readfile() is the library's, here and in libgetvalues.so.
 */
#define GETVALUES_NO_READFILE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/tap.h"
#include "lib/util.h"

static int own_calls;

/* The program's own helper: a name many programs use, another signature. */
char *readfile(const char *path);
char *readfile(const char *path)
{
	char *s = strdup(path);

	own_calls++;
	return s;
}

typedef ssize_t readfile_fn(int, const char *, void *, size_t, int);

int main(void)
{
	static const char text[] = "the library's readfile\n";
	const char *dir = t_tmpdir("readfile-name");
	char path[4096], buf[64], so[4096];
	const char *build = getenv("GV_BUILD");
	readfile_fn *fn;
	char *own;
	void *lib;
	int dfd;
	ssize_t n;

	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || t_write_file(dfd, "f", text, sizeof(text) - 1, 0644))
		tap_bail("scratch file in %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/f", dir);

	own = readfile(path);
	tap_ok(own && !strcmp(own, path) && own_calls == 1,
	       "the program's own readfile() is the one it calls");
	free(own);

	n = getvalues_readfile(dfd, "f", buf, sizeof(buf), 0);
	tap_is_mem(buf, n < 0 ? 0 : n, text, sizeof(text) - 1,
		   "getvalues_readfile() reads the file (static library)");
	tap_is_long(own_calls, 1, "the library never calls the program's "
		    "readfile()");
	errno = 0;
	n = getvalues_readfile(dfd, "f", buf, sizeof(buf), O_APPEND);
	tap_is_errno(n, errno, -1, EINVAL, "getvalues_readfile(): bad flags "
		     "are EINVAL, as for readfile()");

	if (!build) {
		tap_skip(3, "GV_BUILD is not set: no shared library to load");
		return tap_done();
	}
	snprintf(so, sizeof(so), "%s/libgetvalues.so.0", build);
	if (access(so, F_OK)) {
		/* make STATIC=1 (the kcheck guest) builds no shared library */
		tap_skip(3, "%s: %s (a static build)", so, strerror(errno));
		return tap_done();
	}
	lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		tap_bail("dlopen %s: %s", so, dlerror());
	fn = (readfile_fn *)dlsym(lib, "getvalues_readfile");
	memset(buf, 0, sizeof(buf));
	n = fn ? fn(dfd, "f", buf, sizeof(buf), 0) : -1;
	tap_is_mem(buf, n < 0 ? 0 : n, text, sizeof(text) - 1,
		   "libgetvalues.so exports getvalues_readfile()");
	fn = (readfile_fn *)dlsym(lib, "readfile");
	memset(buf, 0, sizeof(buf));
	n = fn ? fn(dfd, "f", buf, sizeof(buf), 0) : -1;
	tap_is_mem(buf, n < 0 ? 0 : n, text, sizeof(text) - 1,
		   "libgetvalues.so still exports readfile() for everyone "
		   "else");
	tap_is_long(own_calls, 1, "still only the program's own call");
	dlclose(lib);
	close(dfd);
	return tap_done();
}
