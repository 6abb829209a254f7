/* SPDX-License-Identifier: MIT */
/*
 * proc.h - /proc (proc.c), lowest layer: checked to be procfs before
 * anything is opened there.
 */
#ifndef GV_PROC_H
#define GV_PROC_H

#include <stddef.h>

#include "common.h"

struct gv_ctx;

int gv_proc_open(const char *rel, int oflags);
int gv_proc_fd_path(struct gv_ctx *ctx, int fd, char *buf, size_t size);
int gv_proc_fd_dirfd(struct gv_ctx *ctx);
void gv_proc_release(struct gv_ctx *ctx);

#endif /* GV_PROC_H */
