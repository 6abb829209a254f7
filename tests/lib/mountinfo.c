// SPDX-License-Identifier: MIT
/*
 * mountinfo.c - /proc/self/mountinfo read and unescaped (but for the
 * options) for the mount tests, and every field of many mounts fetched in
 * one getvalues() call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mountinfo.h"
#include "lib/tap.h"

const char *const mf_names[MF_NUM] = {
	"id", "parentid", "root", "mountpoint", "options", "shared", "master",
	"propagate_from", "unbindable", "dev", "fstype", "source", "superopts",
};

/* \ooo to the byte it stands for; anything else stays. */
static size_t mi_unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 +
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return w - s;
}

/*
 * Field @f of @m from mountinfo's text @s, unescaped, but for the options:
 * SPEC 2.4 gives those as mountinfo's text, a file system's own escapes
 * included.
 */
static void mi_set(struct mi_mount *m, int f, const char *s)
{
	m->val[f] = strdup(s);
	if (!m->val[f])
		tap_bail("out of memory");
	if (f == MF_OPTIONS || f == MF_SUPEROPTS)
		m->len[f] = strlen(s);
	else
		m->len[f] = mi_unescape(m->val[f]);
}

/* Split at single spaces; empty fields stay (a source may be ""). */
static int mi_split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

void mi_free(struct mi_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		for (int f = 0; f < MF_NUM; f++)
			free(t->m[i].val[f]);
	free(t->m);
	t->m = NULL;
	t->n = 0;
}

void mi_load(struct mi_table *t)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *f[64];
	size_t cap = 0;
	ssize_t len;

	if (!fp)
		tap_bail("/proc/self/mountinfo: %s", strerror(errno));
	mi_free(t);
	while ((len = getline(&line, &cap, fp)) > 0) {
		struct mi_mount m = { 0 };
		int n, dash;

		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		n = mi_split(line, f, 64);
		for (dash = 6; dash < n && strcmp(f[dash], "-"); dash++)
			;
		if (dash + 3 >= n)
			tap_bail("mountinfo line with %d fields", n);
		m.id = strtoul(f[0], NULL, 10);
		mi_set(&m, MF_ID, f[0]);
		mi_set(&m, MF_PARENTID, f[1]);
		mi_set(&m, MF_DEV, f[2]);
		mi_set(&m, MF_ROOT, f[3]);
		mi_set(&m, MF_MOUNTPOINT, f[4]);
		mi_set(&m, MF_OPTIONS, f[5]);
		mi_set(&m, MF_SHARED, "");
		mi_set(&m, MF_MASTER, "");
		mi_set(&m, MF_PROPFROM, "");
		mi_set(&m, MF_UNBINDABLE, "");
		for (int i = 6; i < dash; i++) {
			static const struct { const char *tag; int f; } tags[] = {
				{ "shared:", MF_SHARED },
				{ "master:", MF_MASTER },
				{ "propagate_from:", MF_PROPFROM },
			};

			if (!strcmp(f[i], "unbindable")) {
				free(m.val[MF_UNBINDABLE]);
				mi_set(&m, MF_UNBINDABLE, "yes");
			}
			for (size_t k = 0; k < 3; k++)
				if (!strncmp(f[i], tags[k].tag,
					     strlen(tags[k].tag))) {
					free(m.val[tags[k].f]);
					mi_set(&m, tags[k].f,
					       f[i] + strlen(tags[k].tag));
				}
		}
		mi_set(&m, MF_FSTYPE, f[dash + 1]);
		mi_set(&m, MF_SOURCE, f[dash + 2]);
		mi_set(&m, MF_SUPEROPTS, f[dash + 3]);
		t->m = realloc(t->m, (t->n + 1) * sizeof(*t->m));
		if (!t->m)
			tap_bail("out of memory");
		t->m[t->n++] = m;
	}
	free(line);
	fclose(fp);
}

const struct mi_mount *mi_find(const struct mi_table *t, unsigned long id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->m[i].id == id)
			return &t->m[i];
	return NULL;
}

bool mnt_have_statmount(void)
{
	long r = syscall(457, NULL, NULL, 0, 0);

	return !(r < 0 && errno == ENOSYS);
}

bool mnt_statmount_complete(void)
{
	/* SB_SOURCE; FS_SUBTYPE came with it but is set only for a subtype */
	const uint64_t want = 0x200;
	struct { uint32_t size, spare; uint64_t mnt_id, param; } req = {
		.size = sizeof(req), .param = want | 0x100,
	};
	static uint64_t buf[8192];
	struct statx stx;

	if (statx(AT_FDCWD, "/", 0, 0x4000 /* STATX_MNT_ID_UNIQUE */, &stx) ||
	    !(stx.stx_mask & 0x4000))
		return false;
	req.mnt_id = stx.stx_mnt_id;
	/* struct statmount: its mask is the second u64 */
	return syscall(457, &req, buf, sizeof(buf), 0) == 0 &&
	       (buf[1] & want) == want;
}

void ns_fetch(struct ns_fetch *r, const unsigned long *ids, size_t n)
{
	size_t per = 1 + MF_NUM, bufsize = (64 << 10) + n * 8192;
	char (*shorts)[24] = calloc(MF_NUM, sizeof(*shorts));

	r->n = n;
	r->vec = calloc(n * per, sizeof(*r->vec));
	r->names = calloc(n, sizeof(*r->names));
	r->buf = malloc(bufsize);
	if (!r->vec || !r->names || !r->buf || !shorts)
		tap_bail("out of memory");
	for (int f = 0; f < MF_NUM; f++)
		snprintf(shorts[f], sizeof(shorts[f]), ":%s", mf_names[f]);
	for (size_t i = 0; i < n; i++) {
		snprintf(r->names[i], sizeof(r->names[i]), "mntns:%lu", ids[i]);
		r->vec[i * per].name = r->names[i];
		for (int f = 0; f < MF_NUM; f++)
			r->vec[i * per + 1 + f].name = shorts[f];
	}
	r->vec[0].value_in.iov_base = r->buf;
	r->vec[0].value_in.iov_len = bufsize;
	r->ret = getvalues(AT_FDCWD, "/", r->vec, n * per, 0);
	/* the names live on in r->names; the shorthand strings do not */
	for (size_t i = 0; i < n * per; i++)
		if (i % per)
			r->vec[i].name = mf_names[i % per - 1];
	free(shorts);
}

void ns_fetch_free(struct ns_fetch *r)
{
	free(r->vec);
	free(r->names);
	free(r->buf);
}

bool nv_is(const struct name_val *e, const char *want, size_t len)
{
	return e->error == 0 && e->value_out.iov_len == len &&
	       !memcmp(e->value_out.iov_base, want, len);
}

void nv_diag(const char *what, const struct name_val *e, const char *want,
	     size_t len)
{
	tap_diag("%s: got error %u, '%.*s' (%zu bytes); want '%.*s' (%zu)",
		 what, e->error, (int)e->value_out.iov_len,
		 e->error ? "" : (const char *)e->value_out.iov_base,
		 e->value_out.iov_len, (int)len, want, len);
}
