// SPDX-License-Identifier: MIT
/*
 * backend.c - the table of backends, GETVALUES_BACKEND and cached probes.
 *
 * A backend is an ops table for one mechanism (plain system calls, io_uring,
 * the native system calls). Each probe runs once per process and its answer
 * is kept; GETVALUES_BACKEND=sync|uring|native|auto is read once, at the
 * first call.
 *
 * Where a backend helps is decided per call, in data_policy.c (the auto policy)
 * for getvalues() and here for readfile().
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int gv_sync_probe(bool forced)
{
	(void)forced;
	return 0;
}

const struct gv_backend gv_backend_sync = {
	.name = "sync",
	.probe = gv_sync_probe,
	.readfile = gv_sync_readfile,
};

static const struct gv_backend *const gv_backends[] = {
	[GV_BACKEND_SYNC] = &gv_backend_sync,
	[GV_BACKEND_URING] = &gv_backend_uring,
	[GV_BACKEND_NATIVE] = &gv_backend_native,
};

static enum gv_backend_id gv_forced = GV_BACKEND_AUTO;
static pthread_once_t gv_forced_once = PTHREAD_ONCE_INIT;

/* 0 = not probed yet; 1 = usable; < 0 = -errno from the probe */
static int gv_probed[GV_BACKEND_UNKNOWN];

static __thread enum gv_backend_id gv_last;

static void gv_read_env(void)
{
	const char *s = getenv("GETVALUES_BACKEND");

	if (!s || !*s || !strcmp(s, "auto"))
		gv_forced = GV_BACKEND_AUTO;
	else if (!strcmp(s, "sync"))
		gv_forced = GV_BACKEND_SYNC;
	else if (!strcmp(s, "uring"))
		gv_forced = GV_BACKEND_URING;
	else if (!strcmp(s, "native"))
		gv_forced = GV_BACKEND_NATIVE;
	else
		gv_forced = GV_BACKEND_UNKNOWN;
}

/* The backend GETVALUES_BACKEND asks for, or GV_BACKEND_AUTO. */
GV_HOT enum gv_backend_id gv_backend_forced(void)
{
	pthread_once(&gv_forced_once, gv_read_env);
	return __atomic_load_n(&gv_forced, __ATOMIC_RELAXED);
}

void gv_backend_force(enum gv_backend_id id)
{
	pthread_once(&gv_forced_once, gv_read_env);
	__atomic_store_n(&gv_forced, id, __ATOMIC_RELAXED);
}

enum gv_backend_id gv_backend_last(void)
{
	return gv_last;
}

/* Why a probe may fail now and work later: not remembered. */
static bool gv_probe_transient(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM;
}

/*
 * 0 if backend @id works in this process, else -ENOSYS; or, when the probe
 * could not tell for want of a descriptor or of memory, that error, and
 * the next call probes again. Racing first calls may both probe; probes
 * are idempotent, so they store the same answer. A backend that stops
 * working later (a seccomp filter installed after the probe) says so with
 * its lost member: auto then falls back to sync by itself, and a forced
 * one fails with ENOSYS from then on (SPEC v2).
 *
 * A probe opens and reads files: never a cancellation point, so that a
 * pthread_cancel() cannot leave its descriptors open.
 */
GV_HOT int gv_backend_usable(enum gv_backend_id id)
{
	int r, cancel;

	if (id <= GV_BACKEND_AUTO || id >= (int)GV_ARRAY_SIZE(gv_backends) ||
	    !gv_backends[id])
		return -ENOSYS;
	r = __atomic_load_n(&gv_probed[id], __ATOMIC_ACQUIRE);
	if (r == 0) {
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
		r = gv_backends[id]->probe(gv_backend_forced() == id);
		pthread_setcancelstate(cancel, NULL);
		if (gv_probe_transient(r))
			return r;
		r = r == 0 ? 1 : -ENOSYS;
		__atomic_store_n(&gv_probed[id], r, __ATOMIC_RELEASE);
	}
	if (r == 1 && gv_backends[id]->lost && gv_backends[id]->lost()) {
		r = -ENOSYS;
		__atomic_store_n(&gv_probed[id], r, __ATOMIC_RELEASE);
	}
	return r == 1 ? 0 : -ENOSYS;
}

void gv_backend_set_last(enum gv_backend_id id)
{
	gv_last = id;
}

static bool gv_auto_native = true;

void gv_backend_auto_native(bool allow)
{
	__atomic_store_n(&gv_auto_native, allow, __ATOMIC_RELAXED);
}

/*
 * The native system calls do a whole call in one entry into the kernel,
 * with no copies through process_vm_readv/writev and no descriptors: where
 * the kernel has them, auto always takes them.
 */
static enum gv_backend_id gv_backend_auto(enum gv_backend_id id,
					  enum gv_backend_id otherwise)
{
	if (id != GV_BACKEND_AUTO)
		return id;
	if (!__atomic_load_n(&gv_auto_native, __ATOMIC_RELAXED) ||
	    gv_backend_usable(GV_BACKEND_NATIVE))
		return otherwise;
	return GV_BACKEND_NATIVE;
}

/* The backend that takes whole getvalues() calls under @id, or NULL. */
static const struct gv_backend *gv_backend_whole_of(enum gv_backend_id *id)
{
	const struct gv_backend *be;

	*id = gv_backend_auto(*id, GV_BACKEND_AUTO);
	be = *id > GV_BACKEND_AUTO && *id < (int)GV_ARRAY_SIZE(gv_backends) ?
		gv_backends[*id] : NULL;
	return be && be->whole_call ? be : NULL;
}

bool gv_backend_whole(enum gv_backend_id id)
{
	return gv_backend_whole_of(&id);
}

int gv_backend_getvalues(enum gv_backend_id id, int dfd, const char *path,
			 struct name_val *vec, size_t num, unsigned int flags,
			 gv_prefix_next_fn *next)
{
	const struct gv_backend *be = gv_backend_whole_of(&id);

	if (!be)
		return -EGV_SYNC;
	gv_last = id;
	return be->whole_call(dfd, path, vec, num, flags, next);
}

/*
 * readfile() opens, reads and closes one file: there is nothing to batch,
 * and through io_uring the open into a direct descriptor would escape
 * RLIMIT_NOFILE, a blocking read would wait in a worker that neither a
 * signal's SA_RESTART nor pthread_cancel() reaches, and on procfs, sysfs
 * and tmpfs the worker makes it slower. So a forced uring reads it with
 * plain system calls, as sync does; only the native call is different.
 * Nor does it need a ring: a probe that could not make one for want of
 * descriptors (a ring and its probe take three) fails no readfile() that
 * open(2) would let through (SPEC v2: EMFILE exactly when open(2) gives it).
 */
GV_HOT const struct gv_backend *gv_backend_readfile(int *err)
{
	enum gv_backend_id id = gv_backend_forced();

	if (id == GV_BACKEND_UNKNOWN) {
		*err = -EINVAL;		/* GETVALUES_BACKEND names nothing */
		return NULL;
	}
	if (id != GV_BACKEND_AUTO) {
		/* one that does not work here: ENOSYS, as for getvalues */
		*err = gv_backend_usable(id);
		if (id == GV_BACKEND_URING && *err != -ENOSYS) {
			*err = 0;	/* plain system calls, see above */
			return gv_backends[GV_BACKEND_SYNC];
		}
		return *err ? NULL : gv_backends[id];
	}
	id = gv_backend_auto(id, GV_BACKEND_SYNC);
	*err = gv_backend_usable(id);
	return *err ? NULL : gv_backends[id];
}
