// SPDX-License-Identifier: MIT
/*
 * fetch.c - the values fetched: one getvalues(3) call for every entry,
 * and the buffer policy (grow and retry; skip what overflows at the limit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static char *buffers_new(struct buffers *bs, size_t size)
{
	char **nb = realloc(bs->b, (bs->n + 1) * sizeof(*nb));

	if (!nb)
		return NULL;
	bs->b = nb;
	nb[bs->n] = malloc(size);
	return nb[bs->n] ? nb[bs->n++] : NULL;
}

void buffers_free(struct buffers *bs)
{
	for (size_t i = 0; i < bs->n; i++)
		free(bs->b[i]);
	free(bs->b);
}

static void take_results(struct entry *e, const struct name_val *vec,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		e[i].err = vec[i].error;
		e[i].val = vec[i].value_out.iov_base;
		e[i].len = e[i].err ? 0 : vec[i].value_out.iov_len;
	}
}

/*
 * The next buffer size after @got of @todo entries fitted in @size bytes:
 * twice as much, or all @todo at the rate of those that fitted and a
 * quarter more, whichever is larger (so a long table costs one more call,
 * not five); at most @limit.
 */
static size_t grown_size(size_t size, size_t got, size_t todo, size_t limit)
{
	size_t want = size > limit / 2 ? limit : size * 2;

	if (got && size / got < limit / todo) {
		size_t rate = size / got * todo;

		if (rate > limit - rate / 4)
			rate = limit;
		else
			rate += rate / 4;
		if (rate > want)
			want = rate;
	}
	return want;
}

/*
 * Fetch every entry with one getvalues() call, into a buffer of @size bytes
 * at first. On EOVERFLOW the whole call is made again with a buffer twice
 * as large, up to cmd->max_size. Only if
 * a value does not fit even then does that entry fail (too_big); the call
 * then goes on from the next entry, in a fresh buffer, so that one huge
 * value does not hide the others. Returns 0, or -errno of a failed call.
 */
int fetch_values(const struct gv_cmd *cmd, struct entry *e, size_t n,
			struct buffers *bs, size_t size)
{
	struct name_val *vec = calloc(n, sizeof(*vec));
	size_t start = 0;
	char *buf = NULL;
	int ret = 0;

	if (!vec)
		return -ENOMEM;
	if (size > cmd->max_size)
		size = cmd->max_size;
	while (start < n) {
		size_t todo = n - start;
		int got;

		if (!buf && !(buf = buffers_new(bs, size))) {
			ret = -ENOMEM;
			break;
		}
		memset(vec + start, 0, todo * sizeof(*vec));
		for (size_t i = start; i < n; i++)
			vec[i].name = e[i].written;
		/*
		 * A call that goes on after a value too big for the limit
		 * starts with that value's successor, which has no previous
		 * entry any more: give its shorthand expanded.
		 */
		if (start && e[start].written[0] == ':')
			vec[start].name = e[start].shown;
		vec[start].value_in.iov_base = buf;
		vec[start].value_in.iov_len = size;

		got = getvalues(cmd->dfd, cmd->path ? cmd->path : "",
				vec + start, todo, cmd->flags);
		if (got < 0) {
			ret = -errno;
			break;
		}
		if ((size_t)got == todo) {
			take_results(e + start, vec + start, todo);
			break;
		}
		if (size < cmd->max_size) {
			/* grow and redo the whole call */
			size = grown_size(size, got, todo, cmd->max_size);
			free(bs->b[--bs->n]);
			buf = NULL;
			continue;
		}
		/* at the limit: keep what fitted, start again after it */
		take_results(e + start, vec + start, got);
		if (got == 0) {
			e[start].err = EOVERFLOW;
			e[start].too_big = true;
			e[start].len = 0;
			start++;
		} else {
			start += got;
			buf = NULL;	/* the values so far stay in it */
		}
	}
	free(vec);
	return ret;
}
