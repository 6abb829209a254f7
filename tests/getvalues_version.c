// SPDX-License-Identifier: MIT
/*
 * getvalues_version.c - getvalues_version() says the version of the library
 * running, as the header's macros say the one compiled against; the shared
 * library exports each call under the symbol version it came with
 * (GETVALUES_0.1, GETVALUES_0.2); and nothing in the tree that states the
 * version (man page footers, debian/changelog, the Debian symbols file)
 * disagrees with the header.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <getvalues.h>

#include "lib/tap.h"

static char version[32];	/* "MAJOR.MINOR.PATCH" of the header */

static const struct {
	const char *sym, *node;
} exported[] = {
	{ "readfile", "GETVALUES_0.1" },
	{ "getvalues", "GETVALUES_0.1" },
	{ "getvalues_readfile", "GETVALUES_0.1" },
	{ "getvalues_alloc", "GETVALUES_0.1" },
	{ "getvalues_alloc_each", "GETVALUES_0.2" },
	{ "getvalues_expand_name", "GETVALUES_0.2" },
	{ "getvalues_version", "GETVALUES_0.2" },
};
#define GV_TEST_NSYMS	(int)(sizeof(exported) / sizeof(exported[0]))

static void test_runtime(void)
{
	tap_is_long(getvalues_version(), GETVALUES_VERSION_CODE,
		    "getvalues_version() is the header's %s", version);
	tap_ok(getvalues_version() >= GETVALUES_VERSION(0, 2, 0),
	       "at least 0.2.0, where it came");
	tap_ok(GETVALUES_VERSION(0, 10, 0) > GETVALUES_VERSION(0, 9, 255) &&
	       GETVALUES_VERSION(1, 0, 0) > GETVALUES_VERSION(0, 255, 255),
	       "GETVALUES_VERSION() compares as versions do");
}

static void test_symbols(const char *build)
{
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/libgetvalues.so.0", build);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		tap_skip(GV_TEST_NSYMS + 1, "dlopen %s: %s", path, dlerror());
		return;
	}
	for (int i = 0; i < GV_TEST_NSYMS; i++)
		tap_ok(dlvsym(h, exported[i].sym, exported[i].node) != NULL,
		       "%s@%s", exported[i].sym, exported[i].node);
	tap_ok(!dlvsym(h, "getvalues_version", "GETVALUES_0.1"),
	       "getvalues_version is not in GETVALUES_0.1");
	dlclose(h);
}

/* The first line of @path holding @what, or "" */
static const char *line_with(const char *path, const char *what)
{
	static char line[512];
	FILE *f = fopen(path, "r");

	line[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, what))
			break;
		else
			line[0] = 0;
	if (f)
		fclose(f);
	return line;
}

static void test_tree(const char *src)
{
	static const char *const pages[] = {
		"man/man3/getvalues.3", "man/man3/getvalues_alloc.3",
		"man/man3/readfile.3", "man/man7/getvalues.7",
		"man/man1/getvalues.1",
	};
	char path[2 * PATH_MAX], want[64];

	snprintf(want, sizeof(want), "\"libgetvalues %s\"", version);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", src, pages[i]);
		tap_ok(strstr(line_with(path, ".TH "), want) != NULL,
		       "%s: footer says %s", pages[i], want);
	}
	snprintf(path, sizeof(path), "%s/debian/changelog", src);
	snprintf(want, sizeof(want), "getvalues (%s)", version);
	tap_ok(!strncmp(line_with(path, "getvalues ("), want, strlen(want)),
	       "debian/changelog: the newest entry is %s", version);
	snprintf(path, sizeof(path), "%s/debian/libgetvalues0.symbols", src);
	for (int i = 0; i < GV_TEST_NSYMS; i++) {
		snprintf(want, sizeof(want), " %s@%s ", exported[i].sym,
			 exported[i].node);
		tap_ok(*line_with(path, want), "debian symbols file: %s", want);
	}
}

int main(void)
{
	const char *build = getenv("GV_BUILD");
	char src[PATH_MAX];

	snprintf(version, sizeof(version), "%d.%d.%d", GETVALUES_VERSION_MAJOR,
		 GETVALUES_VERSION_MINOR, GETVALUES_VERSION_PATCH);
	tap_plan(3 + GV_TEST_NSYMS + 1 + 5 + 1 + GV_TEST_NSYMS);
	test_runtime();
	if (!build) {
		tap_skip(GV_TEST_NSYMS + 1 + 5 + 1 + GV_TEST_NSYMS,
			 "GV_BUILD is not set (make check sets it)");
		return tap_done();
	}
	test_symbols(build);
	snprintf(src, sizeof(src), "%s/..", build);
	test_tree(src);
	return tap_done();
}
