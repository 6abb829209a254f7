/* SPDX-License-Identifier: MIT */
/*
 * mnt.h - what the mount groups (mnt.c) share with their two sources of
 * facts: statmount()/listmount() (statmount.c) and /proc/self/mountinfo
 * (mountinfo.c). Both turn a mount into the same struct gv_mount, with its
 * strings as mountinfo shows them once unescaped, in the memory and table
 * of mnt_table.c, beneath them all.
 */
#ifndef GV_MNT_H
#define GV_MNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Facts about a mount, one bit each: what a field needs, and what a source
 * could tell (gv_mount.known). statmount() may know only some of them on a
 * given kernel; mountinfo always knows all.
 */
enum {
	GV_MK_BASIC	= 1u << 0,	/* id parentid options shared master
					   unbindable */
	GV_MK_PROPFROM	= 1u << 1,
	GV_MK_ROOT	= 1u << 2,
	GV_MK_POINT	= 1u << 3,
	GV_MK_DEV	= 1u << 4,
	GV_MK_FSTYPE	= 1u << 5,
	GV_MK_SOURCE	= 1u << 6,
	GV_MK_SUPEROPTS	= 1u << 7,
	GV_MK_ALL	= (1u << 8) - 1,
};

/* A string of a mount: raw bytes, not NUL-terminated. */
struct gv_str {
	const char *p;
	size_t len;
};

struct gv_mount {
	uint64_t unique;	/* statmount()'s 64-bit ID; 0 from mountinfo */
	uint32_t id, parent;	/* the 32-bit IDs of mountinfo */
	uint32_t major, minor;
	uint32_t shared, master, propagate_from;	/* 0: none */
	bool unbindable;
	unsigned int known;	/* GV_MK_* */
	struct gv_str root, point, options, fstype, source, superopts;
	/* from mountinfo, while known is 0: its line, not parsed yet */
	char *line;
	size_t line_len;
};

/* mnt_table.c: memory for the mounts of one call, all freed at once. */
struct gv_mnt_arena {
	struct gv_mnt_block *head, *cur;
	size_t total;
};

void *gv_mnt_alloc(struct gv_mnt_arena *a, size_t n);
/* Everything allocated is forgotten; the memory stays for reuse. */
void gv_mnt_arena_reset(struct gv_mnt_arena *a);
void gv_mnt_arena_free(struct gv_mnt_arena *a);

/* Mounts by 32-bit ID, in the order they were added. */
struct gv_mnt_table {
	struct gv_mount **v;
	size_t n, cap;
	uint32_t *slot;		/* open addressing: index + 1; 0 is free */
	size_t nslot;		/* a power of two, or 0 */
};

int gv_mnt_table_add(struct gv_mnt_table *t, struct gv_mount *m);
struct gv_mount *gv_mnt_table_find(const struct gv_mnt_table *t,
				   uint32_t id);
void gv_mnt_table_reset(struct gv_mnt_table *t);
void gv_mnt_table_free(struct gv_mnt_table *t);

/*
 * 32-bit mount IDs by the 64-bit unique IDs of listmount(), in the order
 * of these: what the list of a mount namespace remembers from call to
 * call (mnt.c).
 */
struct gv_mnt_idpair {
	uint64_t unique;
	uint32_t id;
};

struct gv_mnt_idmap {
	struct gv_mnt_idpair *v;
	size_t n, cap;
	size_t at;		/* after the pair found last */
	bool unsorted;		/* added out of order: sort when sealed */
};

bool gv_mnt_idmap_find(struct gv_mnt_idmap *m, uint64_t unique,
		       uint32_t *id);
int gv_mnt_idmap_add(struct gv_mnt_idmap *m, uint64_t unique, uint32_t id);
/* Ready for gv_mnt_idmap_find(): in order. */
void gv_mnt_idmap_seal(struct gv_mnt_idmap *m);
/* Empty, its memory kept for the next pairs. */
void gv_mnt_idmap_clear(struct gv_mnt_idmap *m);
void gv_mnt_idmap_free(struct gv_mnt_idmap *m);

/*
 * The pairs of one listing (@known) kept for the next, which builds its
 * own (@next): one set for the process, taken by one call at a time (an
 * empty one when it is taken), and given back (freed past a size).
 */
struct gv_mnt_ids {
	struct gv_mnt_idmap known, next;
};
struct gv_mnt_ids *gv_mnt_ids_take(void);
void gv_mnt_ids_put(struct gv_mnt_ids *ids);
/* Tests: every pair kept made false, as another boot would find them. */
void gv_mnt_ids_test_poison(void);

/* 32-bit mount IDs, a list of them growing as needed. */
struct gv_mnt_idlist {
	uint32_t *v;
	size_t n, cap;
};

int gv_mnt_idlist_add(struct gv_mnt_idlist *l, uint32_t id);

/*
 * mountinfo.c: /proc/thread-self/mountinfo read into @*text, a buffer of
 * @*cap bytes that is grown as needed and may be reused; its length in
 * @*len (the text is NUL-terminated besides).
 */
int gv_mountinfo_read(char **text, size_t *cap, size_t *len);
/*
 * Index @len bytes of that text into @t: a mount per line with its ID and
 * line, and nothing known yet (-EIO for a line that starts with no ID).
 */
int gv_mountinfo_index(char *text, size_t len, struct gv_mnt_table *t,
		       struct gv_mnt_arena *a);
/*
 * Parse the line of an indexed mount in place, once: then every fact is
 * known, and the strings point into the text. -EIO for a bad line.
 */
int gv_mountinfo_fill(struct gv_mount *m);
/*
 * Only the ID of the line at @*pos, which moves on to the next line:
 * 1, or 0 at @end, or -EIO for a line that starts with no ID.
 */
int gv_mountinfo_next_id(const char **pos, const char *end, uint32_t *id);
/* The 32-bit mount ID of @fd, as mountinfo shows it. */
int gv_mountinfo_id_of(int fd, uint32_t *id);

/* statmount.c */
struct gv_sm_buf {
	void *p;
	size_t size;
};

/* 0 if this process may use statmount()/listmount(), else -ENOSYS. */
int gv_statmount_usable(void);
/* The 64-bit ID of the mount @fd is on (statx STATX_MNT_ID_UNIQUE). */
int gv_statmount_id_of(int fd, uint64_t *unique);
/*
 * statmount() of mount @unique, asking for what the facts @need take,
 * into @*out (allocated in @a). Facts the kernel cannot tell are left out
 * of (*out)->known. @buf is reused between calls and grown as needed.
 */
int gv_statmount(struct gv_sm_buf *buf, uint64_t unique, unsigned int need,
		 struct gv_mnt_arena *a, struct gv_mount **out);
/*
 * listmount(): up to @max IDs of the mounts reachable from the caller's
 * root that come after @last (0: from the first). Returns how many.
 */
long gv_listmount(uint64_t last, uint64_t *ids, size_t max);
/*
 * The 32-bit IDs of all those mounts, in their order, appended to @out:
 * from the pairs of the listing before (@ids), and statmount() (@buf, @a)
 * for mounts new since; then @ids keeps the pairs of this listing.
 */
int gv_listmount_ids(struct gv_mnt_ids *ids, struct gv_sm_buf *buf,
		     struct gv_mnt_arena *a, struct gv_mnt_idlist *out);

/* mountinfo.c: undo mountinfo's \ooo escapes in place; the new length. */
size_t gv_mnt_unescape(char *s, size_t len);

/*
 * mnt.c: for the tests, GETVALUES_MOUNT_SOURCE as if the environment said
 * @name ("auto", "statmount", "mountinfo"; anything else: ENOSYS).
 */
void gv_mnt_force_source(const char *name);

#endif /* GV_MNT_H */
