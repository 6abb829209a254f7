// SPDX-License-Identifier: MIT
/*
 * fetch.c - the values fetched: every entry through getvalues_alloc_each(3),
 * which owns the buffer policy (grow and go on; an entry too large for
 * --max-size fails alone).
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"

/*
 * Fetch every entry of @e (@n of them) by the names as written; the
 * values go into *@bufp (free() it). Returns 0, or -errno of a failed
 * call.
 */
int fetch_values(const struct gv_cmd *cmd, struct entry *e, size_t n,
		 void **bufp)
{
	struct name_val *vec = calloc(n, sizeof(*vec));
	int got;

	if (!vec)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		vec[i].name = e[i].written;
	got = getvalues_alloc_each(cmd->dfd, cmd->path ? cmd->path : "", vec,
				   n, cmd->flags, cmd->max_size, bufp);
	if (got < 0) {
		got = -errno;
		free(vec);
		return got;
	}
	for (size_t i = 0; i < n; i++) {
		e[i].err = vec[i].error;
		/* only an entry too large at the limit gets EOVERFLOW */
		e[i].too_big = e[i].err == EOVERFLOW;
		e[i].val = vec[i].value_out.iov_base;
		e[i].len = e[i].err ? 0 : vec[i].value_out.iov_len;
	}
	free(vec);
	return 0;
}
