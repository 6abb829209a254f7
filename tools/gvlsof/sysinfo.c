// SPDX-License-Identifier: MIT
/*
 * sysinfo.c - what gvlsof learns once about the system: login names
 * from /etc/passwd and the locks of /proc/locks.
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

/* ------------------------------------------------------------------ */
/* Users: /etc/passwd, as getpwuid(3) would answer for local users.   */


struct user *users;
size_t nusers;
struct map user_by_uid;

void users_load(void)
{
	size_t size = 65536, cap = 0;
	char *buf = NULL;
	ssize_t n;

	for (;;) {
		buf = xrealloc(buf, size);
		n = readfile(AT_FDCWD, "/etc/passwd", buf, size, 0);
		if (n < 0 || (size_t)n < size)
			break;
		size *= 2;
	}
	if (n > 0) {
		const char *p = buf, *end = buf + n, *line;
		size_t len;

		while (next_line(&p, end, &line, &len)) {
			const char *c1 = memchr(line, ':', len), *c2;
			char num[16];
			uint64_t uid;

			if (!c1 || c1 == line)
				continue;
			c2 = memchr(c1 + 1, ':', line + len - c1 - 1);
			if (!c2)
				continue;
			c1 = c2 + 1;
			c2 = memchr(c1, ':', line + len - c1);
			if (!c2 || c2 == c1 || (size_t)(c2 - c1) >= sizeof(num))
				continue;
			memcpy(num, c1, c2 - c1);
			num[c2 - c1] = 0;
			if (!parse_u64(num, 10, &uid) || uid > UINT32_MAX)
				continue;
			GROW(users, nusers, cap);
			users[nusers].uid = uid;
			users[nusers].name = sdup_n(line,
					(size_t)((char *)memchr(line, ':', len) -
						 line));
			nusers++;
		}
	}
	free(buf);
	/* the first line of a UID names it, as with getpwuid(3) */
	for (size_t i = 0; i < nusers; i++)
		if (!map_get(&user_by_uid, (uint64_t)users[i].uid + 1))
			map_put(&user_by_uid, (uint64_t)users[i].uid + 1,
				&users[i]);
}

const char *user_name(uid_t uid)
{
	struct user *u = map_get(&user_by_uid, (uint64_t)uid + 1);

	return u ? u->name : sfmt("%u", (unsigned)uid);
}

bool user_uid(const char *name, uid_t *uid)
{
	uint64_t v;

	if (parse_u64(name, 10, &v) && v <= UINT32_MAX) {
		*uid = v;
		return true;
	}
	for (size_t i = 0; i < nusers; i++)
		if (!strcmp(users[i].name, name)) {
			*uid = users[i].uid;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------------ */
/* Locks from /proc/locks: the FD column's lock character.            */

struct lock {
	struct lock *next;	/* of the same process and file */
	int pid;
	unsigned maj, min;
	uint64_t ino;
	char type;
};

struct map locks;	/* the newest lock of each process and file */

static uint64_t lock_key(int pid, unsigned maj, unsigned min, uint64_t ino)
{
	uint64_t k = ino * 0x9e3779b97f4a7c15ULL;

	return k ^ ((uint64_t)pid << 32) ^ ((uint64_t)maj << 20) ^ min;
}

void *salloc_aligned(size_t n)
{
	return (void *)(((uintptr_t)salloc(n + 7) + 7) & ~(uintptr_t)7);
}

/*
 * "1: POSIX  ADVISORY  WRITE 15800 fe:00:10952937 0 EOF". As in lsof, a
 * lock on the whole file is upper case, and of the locks one process holds
 * on one file the last one entered with a type not seen before is shown.
 */
void locks_load(const char *v, size_t n)
{
	const char *p = v, *end = v + n, *line;
	size_t len;

	while (v && next_line(&p, end, &line, &len)) {
		char tmp[256], *w[8];
		unsigned maj, min;
		uint64_t ino, pid, from, to = 0x7fffffff, key;
		struct lock *l, *head;
		char type;

		if (len >= sizeof(tmp))
			continue;
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (split_words(tmp, w, 8) < 8 || !strcmp(w[1], "->"))
			continue;
		if (w[3][0] == 'R')
			type = 'r';
		else if (w[3][0] == 'W')
			type = 'w';
		else
			continue;
		if (!parse_u64(w[4], 10, &pid) || pid > INT_MAX ||
		    sscanf(w[5], "%x:%x:%" SCNu64, &maj, &min, &ino) != 3 ||
		    !parse_u64(w[6], 10, &from))
			continue;
		if (strcmp(w[7], "EOF") && !parse_u64(w[7], 10, &to))
			continue;
		if (from == 0 && to == 0x7fffffff)
			type = toupper(type);
		key = lock_key(pid, maj, min, ino);
		head = map_get(&locks, key);
		for (l = head; l; l = l->next)
			if (l->pid == (int)pid && l->maj == maj &&
			    l->min == min && l->ino == ino && l->type == type)
				break;
		if (l)
			continue;
		l = salloc_aligned(sizeof(*l));
		*l = (struct lock){ head, (int)pid, maj, min, ino, type };
		map_put(&locks, key, l);
	}
}

char lock_char(int pid, unsigned maj, unsigned min, uint64_t ino)
{
	for (struct lock *l = map_get(&locks, lock_key(pid, maj, min, ino)); l;
	     l = l->next)
		if (l->pid == pid && l->maj == maj && l->min == min &&
		    l->ino == ino)
			return l->type;
	return ' ';
}
