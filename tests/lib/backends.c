// SPDX-License-Identifier: MIT
/*
 * backends.c - checks run on each backend: the backends usable here,
 * one-entry calls, and a set of files read through getvalues() and
 * readfile() with every value checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/backends.h"
#include "lib/tap.h"
#include "lib/util.h"

int t_backends(struct t_backend out[4], int nchecks)
{
	static const struct t_backend all[] = {
		{ GV_BACKEND_SYNC, "sync" },
		{ GV_BACKEND_URING, "uring" },
		{ GV_BACKEND_AUTO, "auto" },
		{ GV_BACKEND_NATIVE, "native" },
	};
	int n = 0;

	for (size_t i = 0; i < GV_ARRAY_SIZE(all); i++) {
		if (all[i].id == GV_BACKEND_URING &&
		    gv_backend_usable(GV_BACKEND_URING)) {
			if (nchecks)
				tap_skip(nchecks, "uring: io_uring is not usable "
					 "in this process (kernel, "
					 "io_uring_disabled or seccomp)");
			continue;
		}
		if (all[i].id == GV_BACKEND_NATIVE &&
		    gv_backend_usable(GV_BACKEND_NATIVE))
			continue;	/* only in the patched kernel */
		out[n++] = all[i];
	}
	return n;
}

int t_lib_backends(struct t_backend out[4], int nchecks, const char *why)
{
	struct t_backend all[4];
	int n = t_backends(all, nchecks), k = 0;
	bool native = !gv_backend_usable(GV_BACKEND_NATIVE);

	for (int i = 0; i < n; i++) {
		if (all[i].id == GV_BACKEND_NATIVE ||
		    (all[i].id == GV_BACKEND_AUTO && native)) {
			tap_skip(nchecks, "%s: %s", all[i].name, why);
			continue;
		}
		out[k++] = all[i];
	}
	return k;
}

const char *t_got(int ret, int err, const struct name_val *e)
{
	static char s[160];

	if (ret < 0)
		snprintf(s, sizeof(s), "the call failed: %s",
			 strerrorname_np(err));
	else if (ret == 0)
		snprintf(s, sizeof(s), "returned 0, error %s",
			 e->error ? strerrorname_np(e->error) : "0");
	else if (e->error)
		snprintf(s, sizeof(s), "error %s", strerrorname_np(e->error));
	else
		snprintf(s, sizeof(s), "a value of %zu bytes",
			 e->value_out.iov_len);
	return s;
}

int t_get1(int dfd, const char *path, unsigned int flags, const char *name,
	   void *buf, size_t size, struct name_val *e, int *err)
{
	int r;

	*e = (struct name_val){
		.name = name,
		.value_in = { .iov_base = buf, .iov_len = size },
	};
	errno = 0;
	r = getvalues(dfd, path, e, 1, flags);
	*err = errno;
	return r;
}

bool t_is(int ret, const struct name_val *e, const void *want, size_t len)
{
	return ret == 1 && !e->error && e->value_out.iov_len == len &&
	       !memcmp(e->value_out.iov_base, want, len);
}

void t_files_make(struct t_files *f, const char *tag)
{
	snprintf(f->path, sizeof(f->path), "%s", t_tmpdir(tag));
	f->dir = open(f->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < T_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		f->len[i] = snprintf(f->content[i], sizeof(f->content[i]),
				     "%s file %d of %s", tag, i, f->path);
		if (t_write_file(f->dir, name, f->content[i], f->len[i], 0644))
			tap_bail("write %s: %s", name, strerror(errno));
	}
}

bool t_files_evict(const struct t_files *f)
{
	static const char *const names[T_FILES] = {
		"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
		"f10", "f11",
	};

	return t_evict(f->dir, names, T_FILES);
}

int t_files_get(const struct t_files *f)
{
	static const char *const names[T_FILES + 1] = {
		"data:f0", ":f1", ":f2", ":f3", ":f4", ":f5", ":f6", ":f7",
		":f8", ":f9", ":f10", ":f11", ":missing",
	};
	struct name_val vec[T_FILES + 1];
	char buf[T_FILES * 64 + 16];
	int r;

	for (int i = 0; i <= T_FILES; i++)
		vec[i] = (struct name_val){ .name = names[i] };
	vec[0].value_in = (struct iovec){ buf, sizeof(buf) };
	r = getvalues(f->dir, "", vec, T_FILES + 1, AT_EMPTY_PATH);
	if (r < 0)
		return -1;
	for (int i = 0; i < T_FILES; i++)
		if (vec[i].error || vec[i].value_out.iov_len != f->len[i] ||
		    memcmp(vec[i].value_out.iov_base, f->content[i],
			   f->len[i])) {
			errno = EBADMSG;
			return -1;
		}
	if (r != T_FILES + 1 || vec[T_FILES].error != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int t_files_readfile(const struct t_files *f)
{
	char buf[64];
	ssize_t n = readfile(f->dir, "f3", buf, sizeof(buf), 0);

	if (n < 0)
		return -1;
	if ((size_t)n != f->len[3] || memcmp(buf, f->content[3], n) ||
	    readfile(f->dir, "missing", buf, sizeof(buf), 0) != -1 ||
	    errno != ENOENT) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int t_ring_maps(void)
{
	return t_count_maps("io_uring");
}

void t_backend_start(struct t_files *f)
{
	gv_backend_auto_native(false);
	/* auto's choices by its priors, not by what it measures here */
	gv_cost_test_mode(GV_COST_PRIORS);
	if (gv_backend_usable(GV_BACKEND_URING))
		tap_skip_all("io_uring is not usable here (kernel without it, "
			     "disabled, filtered, or closing direct descriptors "
			     "late as Linux 6.1 does)");
	t_files_make(f, "main");
}
