/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - getvalues(2) and the library's getvalues() against open(2),
 * read(2), statx(2) and readdir on the same files, for the guest programs
 * that check a file system (fuse, ovl_autofs): data:, stat: fields, dir:
 * and readfile, each through the raw kernel call and through the library
 * (its native backend in the guest). Include after guest.h and entry.h.
 */
#ifndef GV_GUEST_COMPARE_H
#define GV_GUEST_COMPARE_H

#include <dirent.h>
#include <getvalues.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#define CMP_FIELDS	9
#define CMP_VALUE	65536

static const char *const cmp_fields[CMP_FIELDS] = {
	"data:", "stat:type:", "stat:size:", "stat:ino:", "stat:dev:",
	"stat:mode:", "stat:nlink:", "stat:uid:", "stat:mtime:",
};

struct cmp_value {
	int err;		/* positive errno, or 0 */
	size_t len;
	char text[CMP_VALUE];
};

static const char *cmp_type(mode_t m)
{
	return S_ISREG(m) ? "reg" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "lnk" :
	       S_ISCHR(m) ? "chr" : S_ISBLK(m) ? "blk" : S_ISFIFO(m) ? "fifo" :
	       "sock";
}

/* what open(2)/read(2)/readlink(2) and statx(2) give for field @f */
static void cmp_expect(int dfd, const char *sub, int f, struct cmp_value *v)
{
	struct statx st;
	struct stat ls;
	ssize_t n;

	memset(v, 0, sizeof(*v));
	if (f == 0) {
		if (fstatat(dfd, sub, &ls, AT_SYMLINK_NOFOLLOW)) {
			v->err = errno;
		} else if (S_ISLNK(ls.st_mode)) {
			n = readlinkat(dfd, sub, v->text, CMP_VALUE);
			v->len = n < 0 ? 0 : n;
		} else if (!S_ISREG(ls.st_mode)) {
			v->err = ENODATA;
		} else {
			n = get_file(dfd, sub, v->text, CMP_VALUE);
			v->err = n < 0 ? -n : 0;
			v->len = n < 0 ? 0 : n;
		}
		if (v->err)
			v->len = 0;
		return;
	}
	if (statx(dfd, sub, AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st)) {
		v->err = errno;
		return;
	}
	switch (f) {
	case 1: n = snprintf(v->text, CMP_VALUE, "%s", cmp_type(st.stx_mode)); break;
	case 2: n = snprintf(v->text, CMP_VALUE, "%llu", (unsigned long long)st.stx_size); break;
	case 3: n = snprintf(v->text, CMP_VALUE, "%llu", (unsigned long long)st.stx_ino); break;
	case 4: n = snprintf(v->text, CMP_VALUE, "%u:%u", st.stx_dev_major, st.stx_dev_minor); break;
	case 5: n = snprintf(v->text, CMP_VALUE, "%04o", st.stx_mode & 07777); break;
	case 6: n = snprintf(v->text, CMP_VALUE, "%u", st.stx_nlink); break;
	case 7: n = snprintf(v->text, CMP_VALUE, "%u", st.stx_uid); break;
	default: n = snprintf(v->text, CMP_VALUE, "%lld.%09u",
			      (long long)st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec);
	}
	v->len = n;
}

static char cmp_names[CMP_FIELDS][300];
static char cmp_buf[CMP_FIELDS * CMP_VALUE + 1];

/* the fields of @sub by the raw call (@lib false) or the library */
static int cmp_get(const char *origin, const char *sub, bool lib,
		   struct cmp_value *got)
{
	struct gv_entry e[CMP_FIELDS] = { 0 };
	struct name_val v[CMP_FIELDS] = { 0 };
	const void *out;
	int f, r;

	for (f = 0; f < CMP_FIELDS; f++)
		snprintf(cmp_names[f], sizeof(cmp_names[f]), "%s%s",
			 cmp_fields[f], sub);
	for (f = 0; f < CMP_FIELDS; f++) {
		e[f].name = PTR(cmp_names[f]);
		v[f].name = cmp_names[f];
	}
	e[0].value_in.base = PTR(cmp_buf);
	e[0].value_in.len = sizeof(cmp_buf);
	v[0].value_in.iov_base = cmp_buf;
	v[0].value_in.iov_len = sizeof(cmp_buf);
	if (lib)
		r = getvalues(AT_FDCWD, origin, v, CMP_FIELDS, 0);
	else
		r = syscall(NR_GETVALUES, AT_FDCWD, origin, e, CMP_FIELDS,
			    sizeof(e[0]), 0);
	for (f = 0; r == CMP_FIELDS && f < CMP_FIELDS; f++) {
		got[f].err = lib ? v[f].error : e[f].error;
		got[f].len = lib ? v[f].value_out.iov_len : e[f].value_out.len;
		out = lib ? v[f].value_out.iov_base
			  : (const void *)(uintptr_t)e[f].value_out.base;
		if (got[f].len > CMP_VALUE)
			got[f].len = CMP_VALUE;
		memcpy(got[f].text, out, got[f].len);
	}
	return r < 0 ? -errno : r;
}

/*
 * data: and the stat: fields of ORIGIN/@sub, raw and through the library,
 * against open/read/statx of the same file (@dfd is ORIGIN opened).
 * @skip_mask leaves fields out (bit f: cmp_fields[f]).
 */
static void cmp_file(const char *what, int dfd, const char *origin,
		     const char *sub, unsigned int skip_mask)
{
	static struct cmp_value want[CMP_FIELDS], got[CMP_FIELDS];
	int f, r, pass;
	char bad[512];
	size_t at;

	for (f = 0; f < CMP_FIELDS; f++)
		cmp_expect(dfd, sub, f, &want[f]);
	for (pass = 0; pass < 2; pass++) {
		r = cmp_get(origin, sub, pass, got);
		at = 0;
		bad[0] = 0;
		for (f = 0; r == CMP_FIELDS && f < CMP_FIELDS; f++) {
			if (skip_mask & (1u << f))
				continue;
			if (got[f].err == want[f].err && got[f].len == want[f].len &&
			    !memcmp(got[f].text, want[f].text, got[f].len))
				continue;
			at += snprintf(bad + at, at < sizeof(bad) ? sizeof(bad) - at : 0,
				       " %s%s: %s \"%.*s\" for %s \"%.*s\";",
				       cmp_fields[f], sub, strerror(got[f].err),
				       (int)(got[f].len > 40 ? 40 : got[f].len),
				       got[f].text, strerror(want[f].err),
				       (int)(want[f].len > 40 ? 40 : want[f].len),
				       want[f].text);
		}
		ok(r == CMP_FIELDS && !bad[0],
		   "%s: %s data: and stat: of %s as open/read/statx (%d)%s",
		   what, pass ? "library" : "raw", sub, r, bad);
	}
}

/* readfile(2) and the library's readfile() of ORIGIN/@sub as read(2) */
static void cmp_readfile(const char *what, const char *origin, const char *sub)
{
	static char want[CMP_VALUE], got[CMP_VALUE];
	char path[512];
	ssize_t w, g;
	int pass;

	snprintf(path, sizeof(path), "%s/%s", origin, sub);
	w = get_file(AT_FDCWD, path, want, sizeof(want));
	for (pass = 0; pass < 2; pass++) {
		g = pass ? getvalues_readfile(AT_FDCWD, path, got, sizeof(got), 0)
			 : syscall(NR_READFILE, AT_FDCWD, path, got, sizeof(got), 0);
		if (g < 0)
			g = -errno;
		ok(g == w && (w < 0 || !memcmp(got, want, w)),
		   "%s: %s of %s: %zd, read(2): %zd", what,
		   pass ? "library readfile()" : "readfile(2)", sub, g, w);
	}
}

/* dir:@sub, raw and through the library, as readdir of the same directory */
static void cmp_dir(const char *what, int dfd, const char *origin,
		    const char *sub)
{
	static char want[CMP_VALUE], name[300];
	struct gv_entry e = { 0 };
	struct name_val v = { 0 };
	size_t wlen = 0, glen;
	const char *gout;
	struct dirent *d;
	DIR *dir;
	int fd, pass, r;

	fd = openat(dfd, *sub ? sub : ".", O_RDONLY | O_DIRECTORY);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir)
		bail("opendir %s", sub);
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		memcpy(want + wlen, d->d_name, strlen(d->d_name) + 1);
		wlen += strlen(d->d_name) + 1;
	}
	closedir(dir);
	snprintf(name, sizeof(name), "dir:%s", sub);
	for (pass = 0; pass < 2; pass++) {
		e = (struct gv_entry){ .name = PTR(name),
				       .value_in = { PTR(cmp_buf), sizeof(cmp_buf) } };
		v = (struct name_val){ .name = name,
				       .value_in = { cmp_buf, sizeof(cmp_buf) } };
		r = pass ? getvalues(AT_FDCWD, origin, &v, 1, 0)
			 : syscall(NR_GETVALUES, AT_FDCWD, origin, &e, 1,
				   sizeof(e), 0);
		glen = pass ? v.value_out.iov_len : e.value_out.len;
		gout = pass ? v.value_out.iov_base
			    : (const char *)(uintptr_t)e.value_out.base;
		ok(r == 1 && !(pass ? v.error : e.error) && glen == wlen &&
		   !memcmp(gout, want, wlen),
		   "%s: %s dir:%s lists what readdir does (%zu bytes, %s)",
		   what, pass ? "library" : "raw", sub, glen,
		   strerror(pass ? v.error : e.error));
	}
}

#endif /* GV_GUEST_COMPARE_H */
