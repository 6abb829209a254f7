// SPDX-License-Identifier: MIT
/*
 * mounts.c - the mounts mode: a findmnt(8)-like table of every mount, or
 * of the mount PATH is on, its columns, and the two calls that fetch it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* The index of @field in the fields of @t, added if it is not there. */
static size_t mtable_field(struct mtable *t, const char *field)
{
	size_t i;

	for (i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i], field))
			return i;
	t->fields[t->nfields++] = field;
	return i;
}

/* The distinct fields the columns show, and which column shows which. */
static void mtable_fields(const struct gv_cmd *cmd, struct mtable *t)
{
	for (size_t c = 0; c < cmd->ncols; c++) {
		t->fidx[c] = mtable_field(t, cmd->cols[c]->field);
		if (cmd->cols[c]->field2)
			t->fidx2[c] = mtable_field(t, cmd->cols[c]->field2);
	}
}

/*
 * The names of every field of every mount: "mntns:ID:FIELD" first, then
 * ":FIELD" for the other fields of that mount, so one call fetches the
 * whole table; "mnt:FIELD" and the same shorthand for $ORIGIN's mount.
 * @ids holds @nids list items (decimal IDs), or is NULL for $ORIGIN's.
 */
static char **mount_names(const struct mtable *t, const struct entry *ids,
			  size_t nids, char ***shortp)
{
	char **names = calloc(nids * t->nfields, sizeof(*names));
	char **shorts = calloc(t->nfields, sizeof(*shorts));
	const char *item = NULL;
	size_t pos = 0, ilen = 0;

	*shortp = shorts;
	if (!names || !shorts) {
		free(names);
		return NULL;
	}
	for (size_t f = 0; f < t->nfields; f++)
		if (asprintf(&shorts[f], ":%s", t->fields[f]) < 0) {
			shorts[f] = NULL;
			goto fail;
		}
	for (size_t m = 0; m < nids; m++) {
		char **row = names + m * t->nfields;
		int n;

		if (ids && !next_item(ids, &pos, &item, &ilen))
			goto fail;
		if (ids)
			n = asprintf(&row[0], "mntns:%.*s:%s", (int)ilen, item,
				     t->fields[0]);
		else
			n = asprintf(&row[0], "mnt:%s", t->fields[0]);
		if (n < 0) {
			row[0] = NULL;
			goto fail;
		}
		for (size_t f = 1; f < t->nfields; f++)
			row[f] = shorts[f];
	}
	return names;
fail:
	for (size_t m = 0; m < nids; m++)
		free(names[m * t->nfields]);
	free(names);
	return NULL;
}

static void mount_names_free(const struct mtable *t, char **names,
			     char **shorts, size_t nids)
{
	for (size_t m = 0; names && m < nids; m++)
		free(names[m * t->nfields]);
	free(names);
	for (size_t f = 0; shorts && f < t->nfields; f++)
		free(shorts[f]);
	free(shorts);
}

/*
 * Which mounts to show, reporting failed cells. A mount whose fields are
 * ENOENT was unmounted between the listing and the second call: it is
 * left out without a word, as if the listing had come a moment later. A
 * mount none of whose fields could be read is left out too.
 */
static int mtable_rows(const struct gv_cmd *cmd, struct mtable *t)
{
	int status = EXIT_ALL_OK;

	t->rows = calloc(t->nmounts ? t->nmounts : 1, sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t m = 0; m < t->nmounts; m++) {
		const struct entry *c = &t->cells[m * t->nfields];
		bool gone = false, some = false;

		for (size_t f = 0; f < t->nfields; f++) {
			gone |= cmd->all_mounts && c[f].err == ENOENT;
			some |= !c[f].err;
		}
		if (gone)
			continue;
		for (size_t f = 0; f < t->nfields; f++)
			if (c[f].err) {
				report_error(cmd, &c[f]);
				status = EXIT_SOME_FAILED;
			}
		if (some)
			t->rows[t->nrows++] = m;
	}
	if (status != EXIT_ALL_OK && !t->nrows)
		status = EXIT_NONE_FETCHED;
	return status;
}

/*
 * The mount table: with all_mounts, one call for the list of mount IDs
 * ("mntns") and one for the fields of all of them; else one call for the
 * fields of $ORIGIN's mount.
 */
int run_mounts(const struct gv_cmd *cmd)
{
	char lname[] = "mntns";
	struct entry list = { .written = lname, .shown = lname, .list = true };
	void *lbuf = NULL, *buf = NULL;
	char **names = NULL, **shorts = NULL;
	struct mtable t = { 0 };
	int ret = 0, status = EXIT_ALL_OK;
	size_t n = 0, pos = 0, ilen;
	const char *item;

	mtable_fields(cmd, &t);
	t.nmounts = 1;
	if (cmd->all_mounts) {
		ret = fetch_values(cmd, &list, 1, &lbuf);
		if (ret)
			goto out;
		if (list.err) {
			report_error(cmd, &list);
			status = EXIT_NONE_FETCHED;
			goto out;
		}
		for (t.nmounts = 0; next_item(&list, &pos, &item, &ilen);)
			t.nmounts++;
	}
	n = t.nmounts * t.nfields;
	if (n) {
		names = mount_names(&t, cmd->all_mounts ? &list : NULL,
				    t.nmounts, &shorts);
		t.cells = calloc(n, sizeof(*t.cells));
		if (!names || !t.cells) {
			ret = -ENOMEM;
			goto out;
		}
		ret = expand_names(t.cells, names, n);
		if (!ret)
			ret = fetch_values(cmd, t.cells, n, &buf);
		if (ret)
			goto out;
	}
	ret = mtable_merge(cmd, &t);
	if (!ret)
		ret = mtable_rows(cmd, &t);
	if (ret < 0)
		goto out;
	status = ret;
	ret = 0;
	/* as for values: what failed prints nothing, not an empty table */
	if (t.nrows || status == EXIT_ALL_OK)
		cmd->fmt->table(stdout, cmd, &t);
out:
	if (ret) {
		report_call_error(cmd, -ret);
		status = EXIT_TROUBLE;
	}
	for (size_t i = 0; t.cells && i < n; i++)
		free(t.cells[i].shown);
	mtable_merge_free(&t);
	free(t.cells);
	free(t.rows);
	mount_names_free(&t, names, shorts, t.nmounts);
	free(lbuf);
	free(buf);
	return status;
}
