/* SPDX-License-Identifier: MIT */
/*
 * run.h - what the tests of the command-line tools share: a growing byte
 * string, running a program with its output and exit status captured, one
 * check per stream, and counting the getvalues() calls a run makes.
 */
#ifndef GV_TEST_RUN_H
#define GV_TEST_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- a growing byte string ---- */

struct sb {
	char *p;
	size_t len, cap;
};

static const struct sb empty __attribute__((unused)) = { .p = "" };

void sb_add(struct sb *b, const void *p, size_t n);
void sb_adds(struct sb *b, const char *s);
void sb_printf(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @n bytes as lowercase hex digits. */
void sb_hex(struct sb *b, const void *p, size_t n);
/* The escaping getvalues(1) documents for the C locale, written anew. */
void sb_escaped(struct sb *b, const void *p, size_t n);
/* The NULL-ended @items as a list: each ended by NUL. */
void sb_items(struct sb *b, const char *const *items);
void sb_free(struct sb *b);

/* ---- running a program ---- */

struct spawn {
	const char *locale;		/* LC_ALL; default "C" */
	const char *cwd;
	const char *const *env;		/* NAME=VALUE, NULL-terminated */
	int fd_src, fd_dst;		/* dup2 when fd_dst > 0 */
	int close_fd;			/* closed in the child when > 0 */
};

struct run {
	struct sb out, err;
	int status;			/* exit status, or 128 + signal */
	pid_t pid;
};

/*
 * Run @prog (a path, or a name found in PATH) with @argv, as @sp says
 * (NULL: the defaults), standard input /dev/null, standard output and
 * error captured into @r.
 */
void run_argv(struct run *r, const struct spawn *sp, const char *prog,
	      char *const *argv);
/* Run the tool with the arguments of the NULL-terminated @args. */
void run_tool_v(struct run *r, const struct spawn *sp,
		const char *const *args);
/* Run the tool with the NULL-terminated arguments that follow. */
void run_tool(struct run *r, const struct spawn *sp, ...)
	__attribute__((sentinel));
void run_free(struct run *r);

/* Exit status, stdout and stderr (each unless NULL), each one check. */
void expect(const struct run *r, int status, const struct sb *out,
	    const char *err, const char *what);

/*
 * How many getvalues() calls the tool makes on $ORIGIN @origin, seen from
 * outside: the sync backend resolves $ORIGIN from the path once per call,
 * and strace shows the path string; @trace is where strace writes. -1
 * when strace cannot trace here.
 */
int tool_count_calls(const char *origin, const char *trace,
		     const char *const *args);

/* Whether python3 can read JSON here: tool_init() finds out. */
extern bool tool_have_json;
#define TOOL_NO_JSON "python3 with its json module is needed to read " \
	"JSON (scripts/deps.sh check installs it)"

/*
 * @name in $GV_BUILD/tools: bail out without it. The JSON checks need
 * python3, which scripts/deps.sh check installs; where there is none (the
 * kcheck guest), those checks, and only those, skip with that reason.
 */
void tool_init(const char *name);

#endif /* GV_TEST_RUN_H */
