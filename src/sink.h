/* SPDX-License-Identifier: MIT */
/*
 * sink.h - the value sinks (sink.c): how a getter puts a value where the
 * walk (walk.c) writes it into the caller's buffer.
 */
#ifndef GV_SINK_H
#define GV_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

struct gv_walk;

/*
 * Where a getter puts its value. Small values are staged in library memory
 * (gv_put*); file contents and xattrs go straight into the caller's buffer
 * through the kernel (gv_out_direct). A value fits only if it is strictly
 * shorter than @room; gv_put* return -EOVERFLOW as soon as it cannot.
 */
struct gv_out {
	struct gv_walk *walk;
	size_t room;		/* space left in the current buffer */
	size_t start;		/* of this value in the staging arena */
	size_t len;		/* bytes of this value so far */
	uintptr_t dst;		/* current position in the caller's buffer */
	bool direct;		/* the value is already in the caller's buffer */
};

int gv_put(struct gv_out *out, const void *p, size_t n);
int gv_puts(struct gv_out *out, const char *s);
int gv_putf(struct gv_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int gv_put_u64(struct gv_out *out, uint64_t v);
/* A list item: @s and its NUL. */
int gv_put_item(struct gv_out *out, const char *s, size_t n);
/*
 * The contents of @fd, from its offset to EOF. @short_is_eof: a read that
 * returns less than asked is at end of file (a regular file of a file
 * system that says so, data_open.c), so no read is made to see EOF.
 */
int gv_put_read(struct gv_out *out, int fd, bool short_is_eof);
/* The names of @fields as a list. */
int gv_put_field_names(struct gv_out *out, const struct gv_field *fields);
/* A gv_group's list getter: the names of the group's fields. */
int gv_list_fields(struct gv_ctx *ctx, const struct gv_req *req,
		   struct gv_out *out);
/*
 * Let the kernel write the value into the caller's buffer: @*dst gets the
 * address, @*room the space. Returns -EGV_RETRY when earlier staged values
 * could not be written (the walk then redoes them one by one): pass it up.
 * Finish with gv_out_direct_done(), giving the length written. A value a
 * batch backend placed in the caller's buffer before the walk began needs
 * no flush: it only calls gv_out_direct_done().
 */
int gv_out_direct(struct gv_out *out, void **dst, size_t *room);
int gv_out_direct_done(struct gv_out *out, size_t len);

#endif /* GV_SINK_H */
