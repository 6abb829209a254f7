// SPDX-License-Identifier: MIT
/*
 * util.c - the helpers behind util.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/tap.h"
#include "lib/util.h"

#define T_MAX_TMPDIRS 16

static char t_tmpdirs[T_MAX_TMPDIRS][PATH_MAX];
static int t_ntmpdirs;
static pid_t t_owner;

static int t_rm_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void t_rm_rf(const char *path)
{
	nftw(path, t_rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void t_cleanup(void)
{
	if (getpid() != t_owner)
		return;
	for (int i = 0; i < t_ntmpdirs; i++)
		t_rm_rf(t_tmpdirs[i]);
}

const char *t_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (t_ntmpdirs == T_MAX_TMPDIRS)
		tap_bail("too many scratch directories");
	if (!base || !*base)
		base = "/tmp";
	dir = t_tmpdirs[t_ntmpdirs];
	snprintf(dir, PATH_MAX, "%s/gv-%s.XXXXXX", base, tag);
	if (!mkdtemp(dir))
		tap_bail("mkdtemp %s: %s", dir, strerror(errno));
	if (t_ntmpdirs++ == 0) {
		t_owner = getpid();
		atexit(t_cleanup);
	}
	return dir;
}

int t_tmpdir_open(const char *tag, char *path, size_t size)
{
	const char *dir = t_tmpdir(tag);
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		tap_bail("open %s: %s", dir, strerror(errno));
	if (path)
		snprintf(path, size, "%s", dir);
	return fd;
}

int t_tmpdir_fd(const char *tag)
{
	return t_tmpdir_open(tag, NULL, 0);
}

int t_copy_file(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	char buf[65536];
	ssize_t n = -1;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto done;
	if (out >= 0 && n == 0 && !fchmod(out, mode))
		ret = 0;
done:
	if (out >= 0 && close(out))
		ret = -1;
	if (in >= 0)
		close(in);
	return ret;
}

int t_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

void t_fill_pattern(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	unsigned int x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (unsigned char)(x >> 16);
	}
}

int t_write_file(int dfd, const char *name, const void *data, size_t len,
		 mode_t mode)
{
	const char *p = data;
	int fd;

	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		p += n;
		len -= n;
	}
	return close(fd);
}

ssize_t t_orc_read(int dfd, const char *path, void *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < size) {
		n = read(fd, (char *)buf + got, size - got);
		if (n < 0) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	return got;
}

struct t_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int t_list_fds(int *fds, int max)
{
	char buf[4096];
	int n = 0, dir;
	long len;

	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	while ((len = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < len;) {
			struct t_dirent64 *d = (void *)(buf + off);
			int fd = 0;

			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			for (const char *c = d->d_name; *c; c++)
				fd = fd * 10 + (*c - '0');
			if (fd == dir)
				continue;
			if (n < max)
				fds[n] = fd;
			n++;
		}
	}
	close(dir);
	return n;
}

int t_count_maps(const char *what)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

int t_count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int t_count_fds(void)
{
	return t_list_fds(NULL, 0);
}

bool t_evict(int dfd, const char *const *names, int n)
{
	struct statfs sfs;

	if (!fstatfs(dfd, &sfs) && (sfs.f_type == TMPFS_MAGIC ||
				    sfs.f_type == RAMFS_MAGIC))
		return true;
	for (int tries = 0; tries < 20; tries++) {
		bool cold = true;

		for (int i = 0; i < n; i++) {
			int fd = openat(dfd, names[i], O_RDONLY | O_NONBLOCK |
					O_NOFOLLOW | O_CLOEXEC);
			unsigned char in = 0;
			void *map;

			if (fd < 0)
				continue;
			/* dirty pages are not dropped: write them first */
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			/* a read, even RWF_NOWAIT, would start readahead */
			map = mmap(NULL, 1, PROT_READ, MAP_SHARED, fd, 0);
			if (map != MAP_FAILED) {
				if (mincore(map, 1, &in) || (in & 1))
					cold = false;
				munmap(map, 1);
			}
			close(fd);
		}
		if (cold)
			return true;
		usleep(20000);
	}
	return false;
}
