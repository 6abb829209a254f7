// SPDX-License-Identifier: MIT
/*
 * mountinfo.c - mounts from /proc/self/mountinfo, the interface every
 * kernel has: read once per getvalues() call, its lines indexed by mount
 * ID, and a line parsed in place the first time a field of its mount is
 * asked for (so one mount costs the scan of the IDs and one line).
 *
 * A line (proc(5), fs/proc_namespace.c show_mountinfo()):
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id parent dev root point options [tags...] - fstype source superopts
 *
 * Fields are separated by exactly one space and may be empty (a mount
 * source ""); spaces, tabs, newlines and backslashes inside them are
 * written as \ooo octal escapes, which are undone here, but for the
 * options: SPEC 2.4 gives those as mountinfo's text, escapes included, for
 * a file system escapes its own (overlayfs's "lowerdir=/lo\040wer", a
 * comma in a value as \054, which undone would read as a separator).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fds.h"
#include "mnt.h"
#include "proc.h"

static bool gv_is_octal(char c)
{
	return c >= '0' && c <= '7';
}

size_t gv_mnt_unescape(char *s, size_t len)
{
	size_t r = 0, w = 0;

	while (r < len) {
		if (s[r] == '\\' && len - r >= 4 && gv_is_octal(s[r + 1]) &&
		    gv_is_octal(s[r + 2]) && gv_is_octal(s[r + 3])) {
			s[w++] = (char)((s[r + 1] - '0') << 6 |
					(s[r + 2] - '0') << 3 |
					(s[r + 3] - '0'));
			r += 4;
		} else {
			s[w++] = s[r++];
		}
	}
	return w;
}

/*
 * The whole file; /proc files have no size, so grow until EOF. Through a
 * /proc that is checked to be procfs (proc.c), of the calling thread (the
 * main thread may have exited).
 */
int gv_mountinfo_read(char **text, size_t *cap, size_t *len)
{
	size_t n = 0;
	ssize_t r;
	char *p;
	int fd = gv_proc_open("thread-self/mountinfo", O_RDONLY | O_NOCTTY);

	if (fd < 0)
		return fd;
	for (;;) {
		if (*cap - n < 4096) {
			size_t ncap = *cap ? *cap * 2 : 64 * 1024;

			p = realloc(*text, ncap);
			if (!p) {
				r = -ENOMEM;
				break;
			}
			*text = p;
			*cap = ncap;
		}
		r = read(fd, *text + n, *cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			r = r < 0 ? -errno : 0;
			break;
		}
		n += r;
	}
	gv_fd_close(fd);
	if (r < 0)
		return (int)r;
	(*text)[n] = 0;
	*len = n;
	return 0;
}

/*
 * Decimal digits as the kernel prints them, fitting in 32 bits; anything
 * else (empty, a sign, a letter, too long) is no number.
 */
static bool gv_u32(const char *p, size_t n, uint32_t *v)
{
	uint64_t x = 0;

	if (!n || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned char)p[i] - '0';

		if (d > 9)
			return false;
		x = x * 10 + d;
	}
	if (x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/*
 * Next field of a line: up to the next space or the end of the line. Its
 * start and *@len, and @*pos goes past it; NULL past the end.
 */
static char *gv_field_raw(char **pos, char *end, size_t *len)
{
	char *p = *pos, *sp;

	if (p > end)
		return NULL;
	sp = memchr(p, ' ', end - p);
	if (!sp)
		sp = end;
	*len = sp - p;
	*pos = sp + 1;
	return p;
}

/* ... NUL-terminated in place, unescaped when the line has a '\' (@esc) */
static bool gv_field(char **pos, char *end, bool esc, struct gv_str *f)
{
	size_t len;
	char *p = gv_field_raw(pos, end, &len);

	if (!p)
		return false;
	f->p = p;
	f->len = esc ? gv_mnt_unescape(p, len) : len;
	p[f->len] = 0;
	return true;
}

static bool gv_field_u32(char **pos, char *end, uint32_t *v)
{
	size_t len;
	char *p = gv_field_raw(pos, end, &len);

	return p && gv_u32(p, len, v);
}

/* A propagation tag: "shared:N", "master:N", "propagate_from:N", ... */
static void gv_tag(struct gv_mount *m, const struct gv_str *f)
{
	static const struct { const char *name; size_t len, off; } tags[] = {
		{ "shared:", 7, offsetof(struct gv_mount, shared) },
		{ "master:", 7, offsetof(struct gv_mount, master) },
		{ "propagate_from:", 15,
		  offsetof(struct gv_mount, propagate_from) },
	};

	if (f->len == 10 && !memcmp(f->p, "unbindable", 10)) {
		m->unbindable = true;
		return;
	}
	for (size_t i = 0; i < GV_ARRAY_SIZE(tags); i++) {
		size_t l = tags[i].len;

		if (f->len > l && !memcmp(f->p, tags[i].name, l)) {
			gv_u32(f->p + l, f->len - l,
			       (uint32_t *)((char *)m + tags[i].off));
			return;
		}
	}
}

/* One line, @line to @end (its newline or the end of the text). */
static int gv_parse_line(char *line, char *end, struct gv_mount *m)
{
	bool esc = memchr(line, '\\', end - line);
	struct gv_str f;
	char *pos = line, *colon, *sp;

	*m = (struct gv_mount){ 0 };
	if (!gv_field_u32(&pos, end, &m->id) ||
	    !gv_field_u32(&pos, end, &m->parent) || pos > end)
		return -EIO;
	/* MAJOR:MINOR */
	sp = memchr(pos, ' ', end - pos);
	if (!sp)
		sp = end;
	colon = memchr(pos, ':', sp - pos);
	if (!colon || !gv_u32(pos, colon - pos, &m->major) ||
	    !gv_u32(colon + 1, sp - colon - 1, &m->minor))
		return -EIO;
	pos = sp + 1;
	if (!gv_field(&pos, end, esc, &m->root) ||
	    !gv_field(&pos, end, esc, &m->point) ||
	    !gv_field(&pos, end, false, &m->options))
		return -EIO;
	for (;;) {
		if (!gv_field(&pos, end, false, &f))
			return -EIO;
		if (f.len == 1 && f.p[0] == '-')
			break;
		gv_tag(m, &f);
	}
	if (!gv_field(&pos, end, esc, &m->fstype) ||
	    !gv_field(&pos, end, esc, &m->source) ||
	    !gv_field(&pos, end, false, &m->superopts))
		return -EIO;
	m->known = GV_MK_ALL;
	return 0;
}

int gv_mountinfo_index(char *text, size_t len, struct gv_mnt_table *t,
		       struct gv_mnt_arena *a)
{
	const char *pos = text, *end = text + len, *line;
	uint32_t id;
	int more, err = 0;

	for (line = pos; !err &&
	     (more = gv_mountinfo_next_id(&pos, end, &id)) > 0; line = pos) {
		struct gv_mount *m = gv_mnt_alloc(a, sizeof(*m));

		if (!m)
			return -ENOMEM;
		*m = (struct gv_mount){
			.id = id,
			.line = (char *)line,
			/* up to its newline, or the end of the text */
			.line_len = (pos > end ? end : pos - 1) - line,
		};
		err = gv_mnt_table_add(t, m);
	}
	return err ? err : more;
}

int gv_mountinfo_fill(struct gv_mount *m)
{
	struct gv_mount parsed;
	int err;

	if (m->known)
		return 0;
	if (!m->line)
		return -EIO;	/* a line that did not parse before */
	err = gv_parse_line(m->line, m->line + m->line_len, &parsed);
	if (!err && parsed.id != m->id)
		err = -EIO;	/* cannot happen: the index read the same */
	m->line = NULL;
	if (err)
		return err;
	*m = parsed;
	return 0;
}

int gv_mountinfo_next_id(const char **pos, const char *end, uint32_t *id)
{
	const char *p = *pos, *sp, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', end - p);
	if (!nl)
		nl = end;
	sp = memchr(p, ' ', nl - p);
	if (!sp || !gv_u32(p, sp - p, id))
		return -EIO;
	*pos = nl + 1;
	return 1;
}

int gv_mountinfo_id_of(int fd, uint32_t *id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -ENOSYS;		/* before Linux 5.8 */
	*id = (uint32_t)stx.stx_mnt_id;
	return 0;
}
