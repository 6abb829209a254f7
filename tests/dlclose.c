// SPDX-License-Identifier: MIT
/*
 * dlclose.c - dlclose() of libgetvalues.so while a thread that used
 * io_uring through it is alive, then that thread exits: no crash (nothing
 * of the library may run after it is unmapped, such as a thread-specific
 * data destructor). The shared library is found in $GV_BUILD; each case
 * runs in a forked child, so that a crash is one failing check.
 *
 * Asked for by the hardening review of issue 14, as harden_dlclose.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/sub.h"
#include "lib/tap.h"
#include "lib/util.h"

#define FILES 8

typedef int (*getvalues_fn)(int, const char *, struct name_val *, size_t,
			    unsigned int);
typedef ssize_t (*readfile_fn)(int, const char *, void *, size_t, int);

static char libpath[4096];
static int dir_fd = -1;

struct job {
	const char *backend;	/* GETVALUES_BACKEND in the child */
	bool use_getvalues, use_readfile;
};

struct user {
	const struct job *job;
	getvalues_fn gv;
	readfile_fn rf;
	sem_t used, closed;
	int bad;
};

static void *user_main(void *p)
{
	static const char *const names[FILES] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
	};
	struct user *u = p;
	struct name_val v[FILES];
	char buf[FILES * 64], one[64];

	if (u->job->use_getvalues) {
		for (int i = 0; i < FILES; i++)
			v[i] = (struct name_val){ .name = names[i] };
		v[0].value_in = (struct iovec){ buf, sizeof(buf) };
		if (u->gv(dir_fd, "", v, FILES, AT_EMPTY_PATH) != FILES)
			u->bad++;
		for (int i = 0; i < FILES; i++)
			if (v[i].error || v[i].value_out.iov_len != 2)
				u->bad++;
	}
	if (u->job->use_readfile && u->rf(dir_fd, "f1", one, sizeof(one), 0) !=
	    2)
		u->bad++;
	sem_post(&u->used);
	/* the library goes away while this thread lives */
	while (sem_wait(&u->closed) && errno == EINTR)
		;
	return NULL;	/* thread exit: nothing of the library may run */
}

static void run(void *arg)
{
	const struct job *j = arg;
	static struct user u;
	void *h;
	pthread_t t;
	int rings;

	setenv("GETVALUES_BACKEND", j->backend, 1);
	h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		tap_ok(false, "dlopen %s: %s", libpath, dlerror());
		return;
	}
	u = (struct user){ .job = j };
	u.gv = (getvalues_fn)dlsym(h, "getvalues");
	u.rf = (readfile_fn)dlsym(h, "readfile");
	if (!u.gv || !u.rf || sem_init(&u.used, 0, 0) ||
	    sem_init(&u.closed, 0, 0))
		tap_bail("dlsym or sem_init");
	rings = t_count_maps("io_uring");
	if (pthread_create(&t, NULL, user_main, &u))
		tap_bail("pthread_create");
	while (sem_wait(&u.used) && errno == EINTR)
		;
	tap_is_long(u.bad, 0, "GETVALUES_BACKEND=%s: the thread's calls "
		    "through the dlopen()ed library work", j->backend);
	if (t_count_maps("io_uring") <= rings)
		tap_diag("the thread made no ring (io_uring not usable?)");
	dlclose(h);
	if (t_count_maps("libgetvalues.so"))
		tap_diag("the library is still mapped after dlclose()");
	sem_post(&u.closed);
	pthread_join(t, NULL);
	/* a crash in the thread's exit would have killed this child */
	tap_ok(true, "GETVALUES_BACKEND=%s: the thread exits after dlclose() "
	       "without a crash", j->backend);
}

int main(void)
{
	static const struct job jobs[] = {
		{ "uring", true, false },
		{ "uring", false, true },
		{ "uring", true, true },
		{ "auto", true, true },
	};
	const char *build = getenv("GV_BUILD");
	struct stat st;

	alarm(300);
	if (!build || !*build)
		tap_skip_all("GV_BUILD is not set: no shared library to "
			     "dlopen (make check sets it)");
	snprintf(libpath, sizeof(libpath), "%s/libgetvalues.so.0", build);
	if (stat(libpath, &st))
		tap_skip_all("%s: %s (a static-only build, e.g. the kcheck "
			     "guest)", libpath, strerror(errno));
	dir_fd = t_tmpdir_fd("dlclose");
	for (int i = 0; i < FILES; i++) {
		char name[8], data[3];

		snprintf(name, sizeof(name), "f%d", i);
		snprintf(data, sizeof(data), "%02d", i);
		if (t_write_file(dir_fd, name, data, 2, 0644))
			tap_bail("setup: %s", strerror(errno));
	}
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		char what[96];

		snprintf(what, sizeof(what), "GETVALUES_BACKEND=%s, %s%s%s",
			 jobs[i].backend,
			 jobs[i].use_getvalues ? "getvalues()" : "",
			 jobs[i].use_getvalues && jobs[i].use_readfile ?
			 " and " : "",
			 jobs[i].use_readfile ? "readfile()" : "");
		t_sub(what, 30, run, (void *)&jobs[i]);
	}
	close(dir_fd);
	return tap_done();
}
