// SPDX-License-Identifier: MIT
/*
 * main.c - gvlsof: list open files the way "lsof -n -P" does, with a
 * handful of getvalues() calls for the whole system.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gvlsof.h"

const char *prog = "gvlsof";


static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [-a] [-p [^]PID[,...]] [-u [^]USER[,...]] "
		"[-c [^]PREFIX] [-J] [-D]\n"
		"  List open files like \"lsof -n -P\", through getvalues().\n"
		"  -p PIDS    only these processes\n"
		"  -u USERS   only processes of these users (names or UIDs)\n"
		"  -c PREFIX  only commands starting with PREFIX\n"
		"  -a         AND the selections (default: OR)\n"
		"  -J         JSON output\n"
		"  -D         print the number of getvalues() calls on stderr\n"
		"  -h, -V     help, version\n", prog);
	exit(status);
}

static void locale_init(void)
{
	const char *l = getenv("LC_ALL");

	if (!l || !*l)
		l = getenv("LC_CTYPE");
	if (!l || !*l)
		l = getenv("LANG");
	utf8_locale = l && (strcasestr(l, "utf-8") || strcasestr(l, "utf8"));
}

static void cleanup(void)
{
	for (size_t i = 0; i < nprocs; i++) {
		free(procs[i].maps);
		free(procs[i].fds);
		free(procs[i].head.v);
		free(procs[i].mem.v);
		free(procs[i].files.v);
	}
	free(procs);
	free(users);
	map_free(&user_by_uid);
	map_free(&sockets);
	map_free(&locks);
	mem_free();
	free(sel_pid.items);
	free(sel_pid.excl);
	free(sel_pid.found);
	free(sel_uid.items);
	free(sel_uid.excl);
	free(sel_uid.found);
	free(sel_cmd.items);
	free(sel_cmd.excl);
	free(sel_cmd.found);
	strings_free();
}

/* An inclusion that selected nothing (lsof says nothing, exits 1). */
bool sel_missing(const struct sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->excl[i] && !s->found[i])
			return true;
	return false;
}

int main(int argc, char **argv)
{
	bool json = false, debug = false, missing, listed = false;
	int opt;

	while ((opt = getopt(argc, argv, "ap:u:c:JDhV")) != -1) {
		switch (opt) {
		case 'a': and_mode = true; break;
		case 'p': sel_add_list(&sel_pid, optarg); break;
		case 'u': sel_add_list(&sel_uid, optarg); break;
		case 'c': sel_add_list(&sel_cmd, optarg); break;
		case 'J': json = true; break;
		case 'D': debug = true; break;
		case 'h': usage(stdout, 0); break;
		case 'V':
			printf("gvlsof (libgetvalues %d.%d)\n",
			       GETVALUES_VERSION_MAJOR,
			       GETVALUES_VERSION_MINOR);
			return 0;
		default: usage(stderr, 2);
		}
	}
	if (optind < argc)
		usage(stderr, 2);
	for (size_t i = 0; i < sel_pid.n; i++) {
		uint64_t pid;

		if (!parse_u64(sel_pid.items[i], 10, &pid) || pid > INT_MAX) {
			fprintf(stderr, "%s: illegal process ID: %s\n", prog,
				sel_pid.items[i]);
			return 1;
		}
	}
	users_load();
	for (size_t i = 0; i < sel_uid.n; i++) {
		uid_t uid;

		if (!user_uid(sel_uid.items[i], &uid)) {
			fprintf(stderr, "%s: can't get UID for %s\n", prog,
				sel_uid.items[i]);
			return 1;
		}
	}
	locale_init();
	pipefs_probe();

	list_processes();
	for (size_t i = 0; i < nprocs; i += GROUP_PROCS)
		gather_group(procs + i, nprocs - i < GROUP_PROCS ?
					nprocs - i : GROUP_PROCS);
	mem_rows();

	for (size_t i = 0; i < nprocs; i++)
		listed |= !procs[i].gone;
	if (json)
		print_json();
	else if (listed)
		print_text();
	fflush(stdout);
	if (denied)
		fprintf(stderr, "%s: %zu process%s not inspected (permission "
			"denied)\n", prog, denied, denied == 1 ? "" : "es");
	if (debug)
		fprintf(stderr, "%s: %zu getvalues() calls\n", prog, calls);
	missing = sel_missing(&sel_pid) || sel_missing(&sel_uid) ||
		  sel_missing(&sel_cmd);
	cleanup();
	return missing || !listed;
}
