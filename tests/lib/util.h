/* SPDX-License-Identifier: MIT */
/*
 * util.h - helpers the test programs share: scratch directories, files with
 * known contents, reference reads through open/read/close, descriptor counts.
 */
#ifndef GV_TEST_UTIL_H
#define GV_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A fresh directory under $TMPDIR (or /tmp), removed at exit. */
const char *t_tmpdir(const char *tag);
/* The same, opened O_PATH|O_DIRECTORY. */
int t_tmpdir_fd(const char *tag);
/* The same, its path also into @path (@size bytes) unless that is NULL. */
int t_tmpdir_open(const char *tag, char *path, size_t size);

void t_fill_pattern(void *buf, size_t len, unsigned int seed);
/* Create (or replace) @name under @dfd with @len bytes of @data. */
int t_write_file(int dfd, const char *name, const void *data, size_t len,
		 mode_t mode);
/* A new file @to with @from's bytes and @mode: 0, or -1 with errno. */
int t_copy_file(const char *from, const char *to, mode_t mode);
/* Write the string @s into the existing file @path: 0, or -1 with errno. */
int t_write_str(const char *path, const char *s);
/* Reference read: open, read until EOF or @size, close; -1 with errno. */
ssize_t t_orc_read(int dfd, const char *path, void *buf, size_t size);

/* Threads of this process (/proc/self/task), or -1. */
int t_count_threads(void);
/* Number of open descriptors, counted without allocating (fork-safe). */
int t_count_fds(void);
/* Lines of /proc/self/maps that contain @what, or -1. */
int t_count_maps(const char *what);
/* Fill @fds with the open descriptor numbers; returns how many. */
int t_list_fds(int *fds, int max);

/*
 * Drop the page cache of @n files @names under @dfd, and check with
 * mincore(2) that it is gone (a page may linger in another CPU's batch on
 * its way to the LRU, beyond POSIX_FADV_DONTNEED's reach: tried again for
 * a while). true when every file is cold, or on tmpfs/ramfs (nothing to
 * drop: the pages are the files); false if some page stays cached.
 */
bool t_evict(int dfd, const char *const *names, int n);

/* Remove a directory tree; errors are ignored. */
void t_rm_rf(const char *path);

#endif /* GV_TEST_UTIL_H */
