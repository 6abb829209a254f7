// SPDX-License-Identifier: MIT
/*
 * main.c - the getvalues command: print named values about one file,
 * fetched with a single getvalues(3) call, as text, JSON or raw bytes.
 *
 * Two modes: "values" prints the names given; "mounts" (--mounts, or a lone
 * mnt or mntns in text output) prints a findmnt(8)-like table of mounts,
 * fetched with two calls however many mounts there are (mounts.c).
 *
 * Layout: an option table that also writes the help text (options.c); a
 * struct gv_cmd holding what the options chose (cmd.h); one fetch function
 * on the library's buffer policy (fetch.c); and output formatters as small
 * ops tables (text, JSON, raw) that only see finished entries (format.c).
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static int run_values(const struct gv_cmd *cmd)
{
	void *buf = NULL;
	struct entry *e;
	int ret, status = EXIT_ALL_OK;

	e = calloc(cmd->nnames, sizeof(*e));
	if (!e) {
		cmd_warnx("%s", strerror(ENOMEM));
		return EXIT_TROUBLE;
	}
	ret = expand_names(e, cmd->names, cmd->nnames);
	if (!ret)
		ret = fetch_values(cmd, e, cmd->nnames, &buf);
	if (ret) {
		report_call_error(cmd, -ret);
		status = EXIT_TROUBLE;
	} else {
		size_t failed = 0;

		if (cmd->fmt->begin)
			cmd->fmt->begin(stdout);
		for (size_t i = 0; i < cmd->nnames; i++) {
			cmd->fmt->entry(stdout, cmd, &e[i], i);
			failed += e[i].err != 0;
		}
		if (cmd->fmt->end)
			cmd->fmt->end(stdout);
		if (failed)
			status = failed == cmd->nnames ? EXIT_NONE_FETCHED :
							 EXIT_SOME_FAILED;
	}
	for (size_t i = 0; i < cmd->nnames; i++)
		free(e[i].shown);
	free(e);
	free(buf);
	return status;
}

int main(int argc, char **argv)
{
	const char *env = getenv("GETVALUES_BACKEND");
	struct gv_cmd cmd;
	int status;

	setlocale(LC_ALL, "");
	status = parse_args(argc, argv, &cmd);
	if (status >= 0)
		goto out;
	/* every call would fail (EINVAL): say why instead */
	if (!cmd.backend && env && *env && !backend_known(env)) {
		cmd_warnx("GETVALUES_BACKEND=%s: unknown backend (auto, sync, "
		      "uring, native)", env);
		return EXIT_TROUBLE;
	}
	/* the library reads GETVALUES_BACKEND once, at its first call */
	if (cmd.backend && setenv("GETVALUES_BACKEND", cmd.backend, 1)) {
		cmd_warnx("%s", strerror(errno));
		return EXIT_TROUBLE;
	}
	status = cmd.mounts ? run_mounts(&cmd) : run_values(&cmd);
out:
	if (fflush(stdout) || ferror(stdout)) {
		cmd_warnx("write error: %s", strerror(errno));
		status = EXIT_TROUBLE;
	}
	return status;
}
