// SPDX-License-Identifier: MIT
/*
 * mountinfo.c - mounts from /proc/self/mountinfo, the interface every
 * kernel has: read once per getvalues() call, parsed in place.
 *
 * A line (proc(5), fs/proc_namespace.c show_mountinfo()):
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id parent dev root point options [tags...] - fstype source superopts
 *
 * Fields are separated by exactly one space and may be empty (a mount
 * source ""); spaces, tabs, newlines and backslashes inside them are
 * written as \ooo octal escapes, which are undone here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "mnt.h"

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
static int gv_read_all(const char *rel, char **text, size_t *cap,
		       size_t *len)
{
	size_t n = 0;
	ssize_t r;
	char *p;
	int fd = gv_proc_open(rel, O_RDONLY | O_NOCTTY);

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

/* Next field of a line: up to the next space or the end of the line. */
static bool gv_field(char **pos, char *end, struct gv_str *f)
{
	char *p = *pos, *sp;

	if (p > end)
		return false;
	sp = memchr(p, ' ', end - p);
	if (!sp)
		sp = end;
	*sp = 0;
	f->p = p;
	f->len = gv_mnt_unescape(p, sp - p);
	p[f->len] = 0;
	*pos = sp + 1;
	return true;
}

static bool gv_number(const struct gv_str *f, uint32_t *v)
{
	char *end;
	unsigned long n;

	if (!f->len || f->p[0] < '0' || f->p[0] > '9')
		return false;
	errno = 0;
	n = strtoul(f->p, &end, 10);
	if (errno || (size_t)(end - f->p) != f->len || n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

/* A propagation tag: "shared:N", "master:N", "propagate_from:N", ... */
static void gv_tag(struct gv_mount *m, const struct gv_str *f)
{
	static const struct { const char *name; size_t off; } tags[] = {
		{ "shared:", offsetof(struct gv_mount, shared) },
		{ "master:", offsetof(struct gv_mount, master) },
		{ "propagate_from:", offsetof(struct gv_mount, propagate_from) },
	};

	if (f->len == 10 && !memcmp(f->p, "unbindable", 10)) {
		m->unbindable = true;
		return;
	}
	for (size_t i = 0; i < GV_ARRAY_SIZE(tags); i++) {
		size_t l = strlen(tags[i].name);
		struct gv_str n = { f->p + l, f->len - l };

		if (f->len > l && !memcmp(f->p, tags[i].name, l))
			gv_number(&n, (uint32_t *)((char *)m + tags[i].off));
	}
}

static int gv_parse_line(char *line, char *end, struct gv_mount *m)
{
	struct gv_str f, dev;
	char *pos = line, *colon;

	*m = (struct gv_mount){ .known = GV_MK_ALL };
	if (!gv_field(&pos, end, &f) || !gv_number(&f, &m->id) ||
	    !gv_field(&pos, end, &f) || !gv_number(&f, &m->parent) ||
	    !gv_field(&pos, end, &dev))
		return -EIO;
	colon = memchr(dev.p, ':', dev.len);
	if (!colon)
		return -EIO;
	if (!gv_number(&(struct gv_str){ dev.p, colon - dev.p }, &m->major) ||
	    !gv_number(&(struct gv_str){ colon + 1,
					 dev.len - (colon + 1 - dev.p) },
		       &m->minor))
		return -EIO;
	if (!gv_field(&pos, end, &m->root) || !gv_field(&pos, end, &m->point) ||
	    !gv_field(&pos, end, &m->options))
		return -EIO;
	for (;;) {
		if (!gv_field(&pos, end, &f))
			return -EIO;
		if (f.len == 1 && f.p[0] == '-')
			break;
		gv_tag(m, &f);
	}
	if (!gv_field(&pos, end, &m->fstype) ||
	    !gv_field(&pos, end, &m->source) ||
	    !gv_field(&pos, end, &m->superopts))
		return -EIO;
	return 0;
}

int gv_mountinfo_load(struct gv_mnt_table *t, struct gv_mnt_arena *a,
		      char **text, size_t *cap)
{
	char *buf, *line, *nl;
	size_t len = 0;
	int err = gv_read_all("thread-self/mountinfo", text, cap, &len);

	if (err)
		return err;
	buf = *text;
	for (line = buf; line < buf + len; line = nl + 1) {
		struct gv_mount *m = gv_mnt_alloc(a, sizeof(*m));

		nl = memchr(line, '\n', buf + len - line);
		if (!nl)
			nl = buf + len;
		if (!m)
			return -ENOMEM;
		err = gv_parse_line(line, nl, m);
		if (!err)
			err = gv_mnt_table_add(t, m);
		if (err)
			return err;
	}
	return 0;
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
