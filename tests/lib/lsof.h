/* SPDX-License-Identifier: MIT */
/*
 * lsof.h - what the gvlsof tests share: processes that hold open files for
 * them (holders), running gvlsof and the installed lsof with the same
 * arguments, and comparing the two byte for byte.
 *
 * gvlsof runs as a copy named "lsof" in a scratch directory that every
 * user can reach, so that its messages name it as lsof's name it, standard
 * error can be compared too, and nobody can run it wherever the build is.
 */
#ifndef GV_TEST_LSOF_H
#define GV_TEST_LSOF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LS_MAX_HOLDERS	8

extern char ls_tool[PATH_MAX];		/* $GV_BUILD/tools/gvlsof */
extern char ls_as_lsof[PATH_MAX + 80];	/* a copy of it named lsof */
extern const char *ls_dir;		/* the test's scratch directory */
extern pid_t ls_holders[LS_MAX_HOLDERS];
extern int ls_nholders;
/* a command that runs the tools (NULL-terminated), or NULL */
extern const char *const *ls_wrap;

/* Whether lsof is installed (the reference: without it, tests skip). */
bool ls_have_lsof(void);
/* The tool and a scratch directory (readable by all: holders, nobody). */
void ls_init(const char *tag);

/*
 * Start a holder: a child that runs @hold(@arg), which opens what it
 * holds, then waits until killed. Descriptors 0 to 2 stay, descriptors
 * listed in @keep (ended by -1) are inherited, all others are closed.
 */
pid_t ls_holder(void (*hold)(void *), void *arg, const int *keep);
void ls_kill_holders(void);
/* In a holder: @ret, or (if negative) fail with a message to the test. */
int ls_must(int ret, const char *what);
/* A path in the scratch directory (one of a few rotating buffers). */
const char *ls_path(const char *name);
/* "1234,5678": the holders' PIDs as a -p list */
const char *ls_pids(void);
/* A TCP port on 127.0.0.1 that nobody uses now. */
int ls_free_port(void);

/* A holder's thread: it names itself @name (prctl) and sleeps. */
void *ls_idle(void *name);

/* ---- running the tools ---- */

struct ls_run {
	char *out, *err;
	size_t out_len, err_len;
	int status;
};

void ls_run_free(struct ls_run *r);
/* The bytes of the file @path (empty if none), NUL-ended; malloc'd. */
char *ls_slurp(const char *path, size_t *len);
/*
 * Run @argv[0] (a path, or a name found in PATH) with the arguments that
 * follow, LC_ALL=@locale, as user @as (0: unchanged), standard output to
 * @stdout_path (NULL: captured, in ls_path("out") as it comes).
 */
void ls_run_as(struct ls_run *r, const char *locale, uid_t as,
	       const char *stdout_path, char *const argv[]);
/* The same in two steps: started, then waited for (@captured: no path). */
pid_t ls_start_as(const char *locale, uid_t as, const char *stdout_path,
		  char *const argv[]);
void ls_finish(struct ls_run *r, pid_t pid, bool captured);
/* @tool ("lsof", or ls_as_lsof) with the NULL-terminated @args */
void ls_run(struct ls_run *r, const char *tool, const char *locale,
	    const char *const *args);
/*
 * Run @tool with @args (NULL-ended) and "-p PID" of a process that lives
 * until @mark has come @n times in the tool's standard output, then ends:
 * for +r, whose cycles go on while the process lives, however slow the
 * machine (at most two minutes).
 */
void ls_run_repeat(struct ls_run *r, const char *tool,
		   const char *const *args, const char *mark, size_t mlen,
		   int n);
/* The first line where @a and @b differ, for a diagnostic. */
void ls_diag_first_diff(const char *what, const char *a, const char *b);

/*
 * lsof and gvlsof with the same arguments, in locale @locale: the same
 * exit status, standard output and standard error. One check. Where the
 * arguments do not keep the output to named processes (-a -p), other
 * programs' processes may come or go between the two runs: up to three
 * tries, each diagnosed.
 */
bool ls_same(const char *locale, const char *const *args);
/* ls_same() with the arguments that follow, a NULL ends them */
bool ls_same_v(const char *locale, ...) __attribute__((sentinel));

#endif /* GV_TEST_LSOF_H */
