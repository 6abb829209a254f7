/* SPDX-License-Identifier: MIT */
/*
 * internal.h - declarations shared by the library's own files; not installed.
 *
 * Internal functions return 0 or a negative errno; only the public entry
 * points turn that into -1 and errno.
 */
#ifndef GV_INTERNAL_H
#define GV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "getvalues.h"

#define GV_EXPORT __attribute__((visibility("default")))

#define GV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* forkguard.c: keeps descriptors the library opens out of fork()ed children */
void gv_fork_guard_enter(void);
void gv_fork_guard_leave(void);

/* readfile.c */
ssize_t gv_read_fd(int fd, void *buf, size_t size);
ssize_t gv_sync_readfile(int dfd, const char *path, void *buf, size_t size,
			 int flags);

/* backend.c: one ops table per mechanism, chosen per call */
enum gv_backend_id {
	GV_BACKEND_AUTO,
	GV_BACKEND_SYNC,
	GV_BACKEND_URING,
	GV_BACKEND_NATIVE,
	GV_BACKEND_UNKNOWN,
};

struct gv_backend {
	const char *name;
	/* 0 when usable in this process, else -errno; run once, cached */
	int (*probe)(void);
	ssize_t (*readfile)(int dfd, const char *path, void *buf, size_t size,
			    int flags);
};

extern const struct gv_backend gv_backend_sync;

enum gv_backend_id gv_backend_forced(void);
int gv_backend_usable(enum gv_backend_id id);
const struct gv_backend *gv_backend_ops(enum gv_backend_id id);

#endif /* GV_INTERNAL_H */
