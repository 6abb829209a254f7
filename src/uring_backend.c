// SPDX-License-Identifier: MIT
/*
 * uring_backend.c - the io_uring backend as the registry (backend.c) sees
 * it: its ops table. It works where this thread can make its ring
 * (uring.c); single files are read on plain system calls (sync.c); a
 * getvalues() call's data: values are fetched as one batch on the ring
 * (uring_batch.c). The table sits above both, so that neither calls the
 * other's file by name but through it.
 */
#include <errno.h>

#include "internal.h"
#include "uring.h"

static int gv_uring_probe(bool forced)
{
	(void)forced;
	int err = 0;

	/* EBUSY: a signal handler probes while this thread makes its ring */
	return gv_ring_get(&err) || err == -EBUSY ? 0 : err;
}

const struct gv_backend gv_backend_uring = {
	.name = "uring",
	.probe = gv_uring_probe,
	.readfile = gv_sync_readfile,
	.batch_fetch = gv_uring_batch_fetch,
	.batch_get = gv_uring_batch_get,
	.batch_free = gv_uring_batch_free,
	.warm = gv_ring_warm,
	.refuses = gv_uring_refuses,
	.lost = gv_uring_lost,
};
