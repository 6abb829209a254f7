/* SPDX-License-Identifier: MIT */
/*
 * call.h - the entry points' own calls (getvalues.c), for alloc.c.
 */
#ifndef GV_CALL_H
#define GV_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "common.h"

/*
 * getvalues.c: a getvalues() call the library makes for its own callers
 * (alloc.c). Entries @from to the end are handled, their names parsed from
 * entry 0 on so that a shorthand at @from keeps its prefix; the value_in
 * of every entry is ignored: the first handled gets @buf, the others
 * follow it. @tail[0], if not empty, is written into @tail[1] after the
 * results, in the same system call. Returns the count of entries handled
 * from @from, as getvalues() would (@from < num), or -errno. A count short
 * of the end without @overflow (native calls that signals kept ending, see
 * getvalues(3)) leaves the entry at the count untouched, and @used then
 * covers the values before it.
 */
struct gv_call {
	size_t from;
	void *buf;
	size_t size;
	struct iovec tail[2];
	size_t used;		/* out: the bytes of @buf the values took */
	bool overflow;		/* out: the call stopped at EOVERFLOW */
};
int gv_getvalues_call(int dfd, const char *path, struct name_val *vec,
		      size_t num, unsigned int flags, struct gv_call *call);
/* Tests: library calls through a copy of the vector, as for native. */
void gv_getvalues_test_copy(bool on);

#endif /* GV_CALL_H */
