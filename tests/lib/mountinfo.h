/* SPDX-License-Identifier: MIT */
/*
 * mountinfo.h - the mount tests' own reading of /proc/self/mountinfo
 * (written apart from the library's, so that the two check each other),
 * and fetching every field of many mounts with one getvalues() call.
 */
#ifndef GV_TEST_MOUNTINFO_H
#define GV_TEST_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include <getvalues.h>

#define MF_NUM 13

/* The fields of SPEC 2.4, in its order. */
extern const char *const mf_names[MF_NUM];

enum { MF_ID, MF_PARENTID, MF_ROOT, MF_MOUNTPOINT, MF_OPTIONS, MF_SHARED,
       MF_MASTER, MF_PROPFROM, MF_UNBINDABLE, MF_DEV, MF_FSTYPE, MF_SOURCE,
       MF_SUPEROPTS };

struct mi_mount {
	unsigned long id;
	char *val[MF_NUM];	/* unescaped but options, NUL-terminated */
	size_t len[MF_NUM];
};

struct mi_table {
	struct mi_mount *m;
	size_t n;
};

/* Read /proc/self/mountinfo into @t (emptied first); bails out on error. */
void mi_load(struct mi_table *t);
void mi_free(struct mi_table *t);
/* The mount with ID @id, or NULL. */
const struct mi_mount *mi_find(const struct mi_table *t, unsigned long id);

/* Whether this kernel has statmount() (Linux 6.8). */
bool mnt_have_statmount(void);
/*
 * Whether its statmount() tells every field mountinfo shows: the file
 * system's subtype and the mount source came in Linux 6.13
 * (STATMOUNT_FS_SUBTYPE, STATMOUNT_SB_SOURCE); before, the library's
 * statmount source forced gives ENOSYS for fstype and source.
 */
bool mnt_statmount_complete(void);

/*
 * Every field of every mount of @ids in ONE call: "mntns:ID" (the field
 * names), then ":id", ":parentid", ... by shorthand. @vec gets
 * (1 + MF_NUM) entries per mount.
 */
struct ns_fetch {
	struct name_val *vec;
	char (*names)[32];
	char *buf;
	size_t n;
	int ret;
};

void ns_fetch(struct ns_fetch *r, const unsigned long *ids, size_t n);
void ns_fetch_free(struct ns_fetch *r);

/* Whether entry @e holds exactly @want; a diagnostic of what it holds. */
bool nv_is(const struct name_val *e, const char *want, size_t len);
void nv_diag(const char *what, const struct name_val *e, const char *want,
	     size_t len);

#endif /* GV_TEST_MOUNTINFO_H */
