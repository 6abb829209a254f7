// SPDX-License-Identifier: MIT
/*
 * backend.c - the table of backends, GETVALUES_BACKEND, and cached probes.
 *
 * A backend is an ops table for one mechanism (plain system calls, io_uring,
 * the native system calls). Each probe runs once per process and its answer
 * is kept; GETVALUES_BACKEND=sync|uring|native|auto is read once, at the
 * first call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int gv_sync_probe(void)
{
	return 0;
}

const struct gv_backend gv_backend_sync = {
	.name = "sync",
	.probe = gv_sync_probe,
	.readfile = gv_sync_readfile,
};

static const struct gv_backend *const gv_backends[] = {
	[GV_BACKEND_SYNC] = &gv_backend_sync,
};

static enum gv_backend_id gv_forced = GV_BACKEND_AUTO;
static pthread_once_t gv_forced_once = PTHREAD_ONCE_INIT;

/* 0 = not probed yet; 1 = usable; < 0 = -errno from the probe */
static int gv_probed[GV_BACKEND_UNKNOWN];

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
enum gv_backend_id gv_backend_forced(void)
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
	return GV_BACKEND_SYNC;
}

/*
 * 0 if backend @id works in this process, else -ENOSYS. Racing first calls
 * may both probe; probes are idempotent, so they store the same answer.
 */
int gv_backend_usable(enum gv_backend_id id)
{
	int r;

	if (id <= GV_BACKEND_AUTO || id >= (int)GV_ARRAY_SIZE(gv_backends) ||
	    !gv_backends[id])
		return -ENOSYS;
	r = __atomic_load_n(&gv_probed[id], __ATOMIC_ACQUIRE);
	if (r == 0) {
		r = gv_backends[id]->probe() == 0 ? 1 : -ENOSYS;
		__atomic_store_n(&gv_probed[id], r, __ATOMIC_RELEASE);
	}
	return r == 1 ? 0 : -ENOSYS;
}

const struct gv_backend *gv_backend_ops(enum gv_backend_id id)
{
	return gv_backends[id];
}

/* ---- getvalues(): how the data: values of one call are fetched ---- */

/* No backend fetches batches yet: every value is fetched one at a time. */
void gv_batch_begin(struct gv_ctx *ctx)
{
	ctx->batch_state = GV_BATCH_OFF;
	ctx->batch = NULL;
}

void gv_batch_end(struct gv_ctx *ctx)
{
	ctx->batch_state = GV_BATCH_OFF;
}

int gv_batch_data(struct gv_ctx *ctx, const struct gv_req *req,
		  struct gv_out *out)
{
	(void)ctx;
	(void)req;
	(void)out;
	return -EGV_SYNC;
}

int gv_batch_probe(struct gv_ctx *ctx, const struct gv_req *req, int fd,
		   struct gv_out *out)
{
	(void)ctx;
	(void)req;
	(void)fd;
	(void)out;
	return -EGV_SYNC;
}
