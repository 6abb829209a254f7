// SPDX-License-Identifier: MIT
/*
 * gvlsof_completion.c - the bash completion of gvlsof (completion/gvlsof),
 * called as bash calls it: options, the PID, user and command of a real
 * process (a holder), -F's letters, directories for +D, TCP states for -s
 * (across bash's ':' word break), -i and -s values attached to the option,
 * file names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/lsof.h"
#include "lib/tap.h"

static const char bash_completion[] =
	"/usr/share/bash-completion/bash_completion";
static char script_path[PATH_MAX];	/* completion/gvlsof */

/*
 * The words bash-completion would offer for @line, one a line, from a bash
 * that has loaded bash-completion and completion/gvlsof. Malloc'd.
 */
static char *complete(const char *line)
{
	static const char script[] =
		"source \"$1\" && source \"$2\" || exit 1\n"
		"line=$3\n"
		"COMP_LINE=$line\n"
		"COMP_POINT=${#line}\n"
		"read -ra COMP_WORDS <<<\"${line//:/ : }\"\n"
		"[[ $line == *' ' || $line == *: ]] && COMP_WORDS+=('')\n"
		"COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
		"COMPREPLY=()\n"
		"_gvlsof gvlsof \"${COMP_WORDS[-1]}\" \"${COMP_WORDS[-2]}\" "
		"2>/dev/null\n"
		"printf '%s\\n' \"${COMPREPLY[@]}\"\n";
	const char *argv[] = { "bash", "-c", script, "bash", bash_completion,
			       script_path, line, NULL };
	struct ls_run r = { 0 };
	char *out;

	ls_run_as(&r, "C", 0, NULL, (char *const *)argv);
	out = r.out;
	r.out = NULL;
	ls_run_free(&r);
	return out;
}

/* Is @word one of the lines of @out? */
static bool offers(const char *out, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p,
								"\n")] != 0))
		if (!strncmp(p, word, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

static void check(const char *line, const char *const *want,
		  const char *const *not, const char *what)
{
	char *out = complete(line);
	bool ok = true;

	for (; want && *want; want++)
		if (!offers(out, *want)) {
			tap_diag("\"%s\": no \"%s\"", line, *want);
			ok = false;
		}
	for (; not && *not; not++)
		if (offers(out, *not)) {
			tap_diag("\"%s\": \"%s\" offered", line, *not);
			ok = false;
		}
	if (!tap_ok(ok, "%s", what))
		tap_diag("offered: %.300s", out);
	free(out);
}

static void hold(void *arg)
{
	prctl(PR_SET_NAME, arg);
}

int main(void)
{
	char line[PATH_MAX + 64], pid[24], user[64], caret[32];
	struct passwd *pw;
	pid_t h;

	if (access(bash_completion, R_OK))
		tap_skip_all("bash-completion is not installed (Debian: "
			     "bash-completion)");
	/* from the top of the tree (make check), or beside the build */
	snprintf(script_path, sizeof(script_path), "completion/gvlsof");
	if (access(script_path, R_OK) && getenv("GV_BUILD"))
		snprintf(script_path, sizeof(script_path),
			 "%s/../completion/gvlsof", getenv("GV_BUILD"));
	if (access(script_path, R_OK))
		tap_skip_all("completion/gvlsof is not here (a test run "
			     "outside the source tree)");
	ls_init("gvlsof-completion");
	if (mkdir(ls_path("subdir"), 0755) ||
	    close(open(ls_path("afile"), O_WRONLY | O_CREAT, 0644)))
		tap_bail("scratch files: %s", strerror(errno));
	h = ls_holder(hold, "gvcomplete", NULL);
	atexit(ls_kill_holders);
	snprintf(pid, sizeof(pid), "%d", (int)h);
	snprintf(caret, sizeof(caret), "^%d", (int)h);
	pw = getpwuid(geteuid());
	snprintf(user, sizeof(user), "%s", pw ? pw->pw_name : "root");

	{
		const char *w[] = { "-J", "-j", NULL };

		check("gvlsof -", w, NULL, "-: the options, -J and -j too");
	}
	{
		const char *w[] = { "+D", "+E", "+r", "+L", NULL };
		const char *n[] = { "-a", NULL };

		check("gvlsof +", w, n, "+: the options that take a +");
	}
	snprintf(line, sizeof(line), "gvlsof -p %.*s", (int)strlen(pid) - 1,
		 pid);
	{
		const char *w[] = { pid, NULL };

		check(line, w, NULL, "-p: a process's PID");
	}
	snprintf(line, sizeof(line), "gvlsof -p ^%s", pid);
	{
		const char *w[] = { caret, NULL };

		check(line, w, NULL, "-p ^: the PID, excluded");
	}
	snprintf(line, sizeof(line), "gvlsof -u %.2s", user);
	{
		const char *w[] = { user, NULL };

		check(line, w, NULL, "-u: a user");
	}
	{
		const char *w[] = { "gvcomplete", NULL };

		check("gvlsof -c gvcom", w, NULL, "-c: a command running now");
	}
	{
		const char *w[] = { "pcf", "pcn", "pcG", NULL };

		check("gvlsof -F pc", w, NULL, "-F: one more field letter");
	}
	snprintf(line, sizeof(line), "gvlsof +D %s/su", ls_dir);
	{
		char want[PATH_MAX];
		const char *w[] = { want, NULL };

		snprintf(want, sizeof(want), "%s/subdir", ls_dir);
		check(line, w, NULL, "+D: a directory");
	}
	snprintf(line, sizeof(line), "gvlsof +D %s/af", ls_dir);
	{
		char want[PATH_MAX];
		const char *n[] = { want, NULL };

		snprintf(want, sizeof(want), "%s/afile", ls_dir);
		check(line, NULL, n, "+D: not a file");
	}
	{
		const char *w[] = { "LISTEN", NULL };

		check("gvlsof -s TCP:LI", w, NULL,
		      "-s: a TCP state after the colon");
	}
	{
		const char *w[] = { "FIN_WAIT1", "FIN_WAIT2", NULL };

		check("gvlsof -s TCP:FIN", w, NULL,
		      "-s: every TCP state lsof knows");
	}
	{
		const char *w[] = { "LISTEN,^CLOSE_WAIT", NULL };

		check("gvlsof -sTCP:LISTEN,^CLOSE_", w, NULL,
		      "-sTCP:...: attached, a list, an exclusion");
	}
	{
		const char *w[] = { "-iTCP", "-iTCP:", NULL };

		check("gvlsof -iTC", w, NULL, "-iTCP: attached");
	}
	snprintf(line, sizeof(line), "gvlsof -n %s/af", ls_dir);
	{
		char want[PATH_MAX];
		const char *w[] = { want, NULL };

		snprintf(want, sizeof(want), "%s/afile", ls_dir);
		check(line, w, NULL, "a file name");
	}
	ls_kill_holders();
	return tap_done();
}
