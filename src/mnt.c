// SPDX-License-Identifier: MIT
/*
 * mnt.c - the mnt and mntns groups: the mount $ORIGIN is on, and the mounts
 * of the caller's mount namespace, as /proc/self/mountinfo shows them.
 *
 * Two sources give the same struct gv_mount: statmount()/listmount()
 * (statmount.c), used when the kernel has them, and mountinfo
 * (mountinfo.c), for older kernels, when statmount() is denied, and for a
 * fact a given kernel's statmount() cannot tell. GETVALUES_MOUNT_SOURCE=
 * statmount|mountinfo forces one (statmount where missing: ENOSYS).
 *
 * Per call, each mount is fetched once, with every part any entry of the
 * call asks for, and kept: the fields of one mount come from one snapshot.
 * mountinfo is read at most once per call, and not at all when statmount()
 * answers everything; of its lines, only those of the mounts asked about
 * are parsed (the list needs only their IDs). Nothing is kept from one
 * call to the next but memory, and the pairs of 64-bit and 32-bit IDs of
 * the mounts a list saw, which cannot go stale (gv_listmount_ids()):
 * mountinfo can change with no event that poll(2) reports (a rename above
 * a mount point, a change of propagation), so a cache of it could not
 * know when it went stale (getvalues(7)).
 *
 * Which one auto takes depends on the call (bench/mounts): statmount()
 * answers for one mount in a few microseconds, where mountinfo costs the
 * whole table (some 1.3 ms for 1000 mounts); but a statmount() of every
 * string of a mount costs some 2.4 us, twice what mountinfo costs a mount.
 * So a call that asks of GV_MNT_BULK mounts or more by ID, or lists the
 * namespace and asks more than IDs, reads mountinfo; the others use
 * statmount(). The bare list takes listmount() once the IDs of a list
 * before are kept, else whichever of listmount() (and a statmount() of the
 * IDs per mount) and mountinfo's text costs less per mount as measured
 * where it runs: gv_mntns_list_auto().
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "groups.h"
#include "lookup.h"
#include "mnt.h"

/* mounts asked of by ID in one call from which auto reads mountinfo */
#define GV_MNT_BULK 16

/* ---- which source: GETVALUES_MOUNT_SOURCE, read once ---- */

enum gv_mnt_source {
	GV_MNT_AUTO,
	GV_MNT_STATMOUNT,
	GV_MNT_MOUNTINFO,
	GV_MNT_BAD,		/* an unknown value: every entry ENOSYS */
};

static enum gv_mnt_source gv_mnt_forced;
static pthread_once_t gv_mnt_env_once = PTHREAD_ONCE_INIT;

static enum gv_mnt_source gv_mnt_parse_source(const char *s)
{
	if (!s || !*s || !strcmp(s, "auto"))
		return GV_MNT_AUTO;
	if (!strcmp(s, "statmount"))
		return GV_MNT_STATMOUNT;
	if (!strcmp(s, "mountinfo"))
		return GV_MNT_MOUNTINFO;
	return GV_MNT_BAD;
}

static void gv_mnt_read_env(void)
{
	gv_mnt_forced = gv_mnt_parse_source(getenv("GETVALUES_MOUNT_SOURCE"));
}

void gv_mnt_force_source(const char *name)
{
	pthread_once(&gv_mnt_env_once, gv_mnt_read_env);
	__atomic_store_n(&gv_mnt_forced, gv_mnt_parse_source(name),
			 __ATOMIC_RELAXED);
}

/* ---- the per-call cache ---- */

struct gv_mnt_cache {
	enum gv_mnt_source source;
	bool bulk;		/* lists, or asks of many mounts by ID */
	bool use_mountinfo;	/* mountinfo this call (bulk, or statmount() failed) */
	unsigned int need;	/* GV_MK_* any entry of the call asks for */
	struct gv_mnt_arena arena;
	struct gv_sm_buf smbuf;

	/* $ORIGIN's mount: 0 not looked up yet, 1 found, < 0 -errno */
	int origin_state;
	struct gv_mount *origin;

	/* the last mount found by ID: a table asks its fields in a row */
	struct gv_mount *last;

	/* from statmount(): every mount fetched, by 32-bit ID */
	struct gv_mnt_table sm;
	/* the walk of listmount(): its position, the IDs in its order */
	uint64_t scan_last;
	bool scan_done;
	struct gv_mnt_idlist ns;
	/* a call that only lists takes the IDs of the listing before */
	bool ids_only;
	struct gv_mnt_ids *ids;

	/*
	 * from mountinfo: read at most once (enum gv_mi_state, or -errno);
	 * indexed by ID when a mount is asked for, its line parsed when a
	 * field of it is
	 */
	int mi_state;
	struct gv_mnt_table mi;
	char *mi_text;
	size_t mi_cap, mi_len;
};

enum gv_mi_state { GV_MI_UNREAD, GV_MI_READ, GV_MI_INDEXED };

/*
 * One finished call's cache, parked with its memory for the next call of
 * any thread: taken and given back with atomic exchanges. Past this size
 * it is freed instead (a one-off table of ten thousand mounts).
 */
#define GV_MNT_KEEP_MAX (4u << 20)

static struct gv_mnt_cache *gv_mnt_parked;

static void gv_mnt_free(struct gv_mnt_cache *c)
{
	gv_mnt_table_free(&c->sm);
	gv_mnt_table_free(&c->mi);
	gv_mnt_arena_free(&c->arena);
	free(c->smbuf.p);
	free(c->mi_text);
	free(c->ns.v);
	free(c);
}

static void gv_mnt_release(struct gv_ctx *ctx)
{
	struct gv_mnt_cache *c = ctx->mnt, *expected = NULL;

	if (!c)
		return;
	ctx->mnt = NULL;
	gv_mnt_ids_put(c->ids);
	c->ids = NULL;
	if (c->arena.total + c->mi_cap + c->smbuf.size > GV_MNT_KEEP_MAX) {
		gv_mnt_free(c);
		return;
	}
	gv_mnt_table_reset(&c->sm);
	gv_mnt_table_reset(&c->mi);
	gv_mnt_arena_reset(&c->arena);
	if (!__atomic_compare_exchange_n(&gv_mnt_parked, &expected, c, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		gv_mnt_free(c);
}

/* A cache with nothing in it, with the memory of an earlier call if any. */
static struct gv_mnt_cache *gv_mnt_take(void)
{
	struct gv_mnt_cache *c = __atomic_exchange_n(&gv_mnt_parked, NULL,
						     __ATOMIC_ACQUIRE);
	struct gv_mnt_cache keep;

	if (!c)
		return calloc(1, sizeof(*c));
	keep = *c;
	*c = (struct gv_mnt_cache){
		.arena = keep.arena,
		.smbuf = keep.smbuf,
		.sm = keep.sm,
		.mi = keep.mi,
		.mi_text = keep.mi_text,
		.mi_cap = keep.mi_cap,
		.ns = { keep.ns.v, 0, keep.ns.cap },
	};
	return c;
}

/*
 * What the whole call will ask of its mounts, and whether that is the
 * whole table at once (bulk): many mounts by ID, or the list with any fact
 * of its mounts beyond their IDs. The list alone is not: its IDs may come
 * cheaper from listmount() (gv_mntns_list_auto()).
 */
static void gv_mnt_plan(const struct gv_ctx *ctx, struct gv_mnt_cache *c)
{
	bool list = false, mount = false;

	for (size_t i = 0, ids = 0, last = 0; i < ctx->nreqs; i++) {
		const struct gv_req *r = &ctx->reqs[i];

		/* nothing more to learn: a table of every field, say */
		if (c->bulk && mount && c->need == GV_MK_ALL)
			break;

		if ((r->group == &gv_group_mnt || r->group == &gv_group_mntns) &&
		    r->field) {
			c->need |= r->field->arg2;
			mount = true;
		}
		if (r->group != &gv_group_mntns || r->err)
			continue;
		if (!r->has_id) {
			list = true;
			continue;
		}
		mount = true;
		if (r->id != last && ++ids == GV_MNT_BULK)
			c->bulk = true;
		last = r->id;
	}
	if (list && (c->need & ~GV_MK_BASIC))
		c->bulk = true;
	c->ids_only = list && !mount;
}

static struct gv_mnt_cache *gv_mnt_cache(struct gv_ctx *ctx)
{
	struct gv_mnt_cache *c = ctx->mnt;

	if (c)
		return c;
	c = gv_mnt_take();
	if (!c)
		return NULL;
	pthread_once(&gv_mnt_env_once, gv_mnt_read_env);
	c->source = __atomic_load_n(&gv_mnt_forced, __ATOMIC_RELAXED);
	gv_mnt_plan(ctx, c);
	if (c->source == GV_MNT_AUTO && c->bulk)
		c->use_mountinfo = true;
	ctx->mnt = c;
	return c;
}

/* Whether this call reads mounts with statmount(). */
static bool gv_mnt_statmount(const struct gv_mnt_cache *c)
{
	if (c->source == GV_MNT_STATMOUNT)
		return true;
	return c->source == GV_MNT_AUTO && !c->use_mountinfo &&
	       !gv_statmount_usable();
}

/*
 * In auto mode, a statmount() that is missing or refused (ENOSYS; EPERM or
 * EACCES from a seccomp filter or LSM) sends the call to mountinfo.
 */
static bool gv_mnt_fall_back(struct gv_mnt_cache *c, int err)
{
	if (c->source != GV_MNT_AUTO)
		return false;
	if (err != -ENOSYS && err != -EPERM && err != -EACCES)
		return false;
	c->use_mountinfo = true;
	return true;
}

/*
 * A bulk call whose mountinfo cannot be read (no /proc in this mount
 * namespace, say) asks statmount() after all, when the kernel has it.
 */
static bool gv_mnt_unbulk(struct gv_mnt_cache *c)
{
	if (!c->bulk || c->source != GV_MNT_AUTO || c->mi_state >= 0 ||
	    gv_statmount_usable())
		return false;
	c->bulk = false;
	c->use_mountinfo = false;
	return true;
}

/* mountinfo's text, read once per call. */
static int gv_mountinfo_text(struct gv_mnt_cache *c)
{
	if (c->mi_state == GV_MI_UNREAD) {
		int err = gv_mountinfo_read(&c->mi_text, &c->mi_cap,
					    &c->mi_len);

		c->mi_state = err ? err : GV_MI_READ;
	}
	return c->mi_state < 0 ? c->mi_state : 0;
}

/* ... and its mounts, indexed once per call. */
static int gv_mountinfo(struct gv_mnt_cache *c)
{
	int err = gv_mountinfo_text(c);

	if (!err && c->mi_state == GV_MI_READ) {
		err = gv_mountinfo_index(c->mi_text, c->mi_len, &c->mi,
					 &c->arena);
		c->mi_state = err ? err : GV_MI_INDEXED;
	}
	return err;
}

/*
 * One more stretch of listmount(), each new mount fetched with statmount()
 * and kept. Stretches grow, so that looking up one ID early in the list is
 * cheap; the list (@all) takes the longest at once: 3 listmount() calls
 * for ten thousand mounts, not 9.
 */
#define GV_MNT_STRETCH 4096

static int gv_mnt_scan_step(struct gv_mnt_cache *c, bool all)
{
	size_t max = all || c->ns.n >= GV_MNT_STRETCH ? GV_MNT_STRETCH :
		     c->ns.n < 64 ? 64 : c->ns.n;
	uint64_t *ids = malloc(max * sizeof(*ids));
	long n;
	int err = 0;

	if (!ids)
		return -ENOMEM;
	n = gv_listmount(c->scan_last, ids, max);
	if (n < 0) {
		free(ids);
		return (int)n;
	}
	for (long i = 0; i < n && !err; i++) {
		struct gv_mount *m = NULL;

		c->scan_last = ids[i];
		if (c->origin && c->origin->unique == ids[i]) {
			m = c->origin;
		} else {
			err = gv_statmount(&c->smbuf, ids[i], c->need, &c->arena,
					   &m);
			if (err == -ENOENT) {	/* unmounted meanwhile */
				err = 0;
				continue;
			}
			if (!err)
				err = gv_mnt_table_add(&c->sm, m);
		}
		if (!err)
			err = gv_mnt_idlist_add(&c->ns, m->id);
	}
	if (!err && (size_t)n < max)
		c->scan_done = true;
	free(ids);
	return err;
}

/* $ORIGIN's mount, from statmount(). */
static int gv_sm_origin(struct gv_ctx *ctx, struct gv_mnt_cache *c,
			struct gv_mount **out)
{
	uint64_t unique;
	struct gv_mount *m;
	int err = gv_statmount_id_of(ctx->origin, &unique);

	if (err)
		return err;
	/* listmount() may have brought it already: one snapshot per mount */
	for (size_t i = 0; i < c->sm.n; i++)
		if (c->sm.v[i]->unique == unique) {
			*out = c->sm.v[i];
			return 0;
		}
	/* its mount point tells whether it is reachable from our root */
	err = gv_statmount(&c->smbuf, unique, c->need | GV_MK_POINT,
				   &c->arena, &m);
	if (err)
		return err;
	if ((m->known & GV_MK_POINT) && !m->point.len)
		return -ENOENT;
	err = gv_mnt_table_add(&c->sm, m);
	if (err)
		return err;
	*out = m;
	return 0;
}

/* Mount @id, from statmount(): kept, or found further along listmount(). */
static int gv_sm_by_id(struct gv_mnt_cache *c, uint32_t id,
		       struct gv_mount **out)
{
	int err;

	for (;;) {
		*out = gv_mnt_table_find(&c->sm, id);
		if (*out)
			return 0;
		if (c->scan_done)
			return -ENOENT;
		err = gv_mnt_scan_step(c, false);
		if (err)
			return err;
	}
}

static int gv_mi_lookup(struct gv_ctx *ctx, struct gv_mnt_cache *c,
			const struct gv_req *req, struct gv_mount **out)
{
	uint32_t id;
	int err = gv_mountinfo(c);

	if (!err && !req->has_id)
		err = gv_mountinfo_id_of(ctx->origin, &id);
	if (err)
		return err;
	*out = gv_mnt_table_find(&c->mi, req->has_id ? req->id : id);
	return *out ? gv_mountinfo_fill(*out) : -ENOENT;
}

/*
 * The mount an entry is about ($ORIGIN's, or mntns:ID's), knowing the
 * facts @need. A fact this kernel's statmount() cannot tell comes from
 * mountinfo (auto) or is ENOSYS (statmount forced).
 */
static int gv_mnt_find(struct gv_ctx *ctx, const struct gv_req *req,
		       unsigned int need, struct gv_mount **out)
{
	struct gv_mnt_cache *c = gv_mnt_cache(ctx);
	struct gv_mount *m = NULL;
	int err;

	if (!c)
		return -ENOMEM;
	if (c->source == GV_MNT_BAD)
		return -ENOSYS;
	if (gv_mnt_statmount(c)) {
		if (req->has_id) {
			err = gv_sm_by_id(c, req->id, &m);
		} else {
			if (!c->origin_state) {
				err = gv_sm_origin(ctx, c, &c->origin);
				c->origin_state = err ? err : 1;
			}
			err = c->origin_state < 0 ? c->origin_state : 0;
			m = c->origin;
		}
		if (err && !gv_mnt_fall_back(c, err))
			return err;
		if (!err && (m->known & need) == need) {
			*out = m;
			return 0;
		}
		if (!err && c->source == GV_MNT_STATMOUNT)
			return -ENOSYS;
		if (!err) {	/* this one fact from mountinfo */
			err = gv_mountinfo(c);
			if (err)
				return err;
			*out = gv_mnt_table_find(&c->mi, m->id);
			return *out ? gv_mountinfo_fill(*out) : -ENOENT;
		}
	}
	err = gv_mi_lookup(ctx, c, req, out);
	if (err && gv_mnt_unbulk(c))
		return gv_mnt_find(ctx, req, need, out);
	return err;
}

/*
 * ... and the mount of the entry before, when it is the same ID and knows
 * @need: the fields of a table come one mount at a time.
 */
static int gv_mnt_lookup(struct gv_ctx *ctx, const struct gv_req *req,
			 unsigned int need, struct gv_mount **out)
{
	struct gv_mnt_cache *c = ctx->mnt;
	int err;

	if (c && c->last && req->has_id && c->last->id == req->id &&
	    (c->last->known & need) == need) {
		*out = c->last;
		return 0;
	}
	err = gv_mnt_find(ctx, req, need, out);
	if (!err && req->has_id)
		ctx->mnt->last = *out;
	return err;
}

/* ---- the fields ---- */

/* @v in decimal, ending at @end; returns where it starts. */
static char *gv_mnt_u32(char *end, uint32_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

#define GV_MNT_MEMBER(m, f, type) \
	((const type *)((const char *)(m) + (f)->arg))

static int gv_mnt_string(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out)
{
	struct gv_mount *m;
	const struct gv_str *s;
	int err = gv_mnt_lookup(ctx, req, req->field->arg2, &m);

	if (err)
		return err;
	s = GV_MNT_MEMBER(m, req->field, struct gv_str);
	return gv_put(out, s->p, s->len);
}

static int gv_mnt_number(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out)
{
	struct gv_mount *m;
	int err = gv_mnt_lookup(ctx, req, req->field->arg2, &m);

	return err ? err :
		gv_put_u64(out, *GV_MNT_MEMBER(m, req->field, uint32_t));
}

/* Peer group numbers: empty when there is none (0). */
static int gv_mnt_group(struct gv_ctx *ctx, const struct gv_req *req,
			struct gv_out *out)
{
	struct gv_mount *m;
	uint32_t v;
	int err = gv_mnt_lookup(ctx, req, req->field->arg2, &m);

	if (err)
		return err;
	v = *GV_MNT_MEMBER(m, req->field, uint32_t);
	return v ? gv_put_u64(out, v) : gv_put(out, "", 0);
}

static int gv_mnt_unbindable(struct gv_ctx *ctx, const struct gv_req *req,
			     struct gv_out *out)
{
	struct gv_mount *m;
	int err = gv_mnt_lookup(ctx, req, req->field->arg2, &m);

	return err ? err : gv_puts(out, m->unbindable ? "yes" : "");
}

static int gv_mnt_dev(struct gv_ctx *ctx, const struct gv_req *req,
		      struct gv_out *out)
{
	struct gv_mount *m;
	char buf[24], *end = buf + sizeof(buf), *p;
	int err = gv_mnt_lookup(ctx, req, req->field->arg2, &m);

	if (err)
		return err;
	p = gv_mnt_u32(end, m->minor);
	*--p = ':';
	p = gv_mnt_u32(p, m->major);
	return gv_put(out, p, end - p);
}

#define S(name, member, fact) { #name, gv_mnt_string, \
	offsetof(struct gv_mount, member), fact }
#define N(name, member, fact, get) { #name, get, \
	offsetof(struct gv_mount, member), fact }

/* arg: where the value is in struct gv_mount; arg2: the facts it needs */
static const struct gv_field gv_mnt_fields[] = {
	N(id, id, GV_MK_BASIC, gv_mnt_number),
	N(parentid, parent, GV_MK_BASIC, gv_mnt_number),
	S(root, root, GV_MK_ROOT),
	S(mountpoint, point, GV_MK_POINT),
	S(options, options, GV_MK_BASIC),
	N(shared, shared, GV_MK_BASIC, gv_mnt_group),
	N(master, master, GV_MK_BASIC, gv_mnt_group),
	N(propagate_from, propagate_from, GV_MK_BASIC | GV_MK_PROPFROM,
	  gv_mnt_group),
	{ "unbindable", gv_mnt_unbindable, 0, GV_MK_BASIC },
	{ "dev", gv_mnt_dev, 0, GV_MK_DEV },
	S(fstype, fstype, GV_MK_FSTYPE),
	S(source, source, GV_MK_SOURCE),
	S(superopts, superopts, GV_MK_SUPEROPTS),
	{ NULL, NULL, 0, 0 },
};

static int gv_mntns_item(struct gv_out *out, uint32_t id)
{
	char buf[16], *end = buf + sizeof(buf), *p = gv_mnt_u32(end, id);

	return gv_put_item(out, p, end - p);
}

/*
 * The list from mountinfo: from its index when an entry of the call made
 * it already, else from the first field of each line alone. @*n: how many.
 */
static int gv_mntns_list_mi(struct gv_mnt_cache *c, struct gv_out *out,
			    size_t *n)
{
	const char *pos = c->mi_text, *end = pos + c->mi_len;
	uint32_t id;
	int err = 0, more;

	*n = 0;
	if (c->mi_state == GV_MI_INDEXED) {
		for (size_t i = 0; i < c->mi.n && !err; i++)
			err = gv_mntns_item(out, c->mi.v[i]->id);
		*n = c->mi.n;
		return err;
	}
	while (!err && (more = gv_mountinfo_next_id(&pos, end, &id)) > 0) {
		err = gv_mntns_item(out, id);
		++*n;
	}
	return err ? err : more;
}

/* The list from listmount(), a statmount() per mount not known. */
static int gv_mntns_list_sm(struct gv_mnt_cache *c, struct gv_out *out)
{
	int err = 0;

	if (c->ids_only && !c->scan_done) {
		if (!c->ids)
			c->ids = gv_mnt_ids_take();
		err = !c->ids ? -ENOMEM :
		      gv_listmount_ids(c->ids, &c->smbuf, &c->arena, &c->ns);
		c->scan_done = !err;
	}
	while (!c->scan_done && !err)
		err = gv_mnt_scan_step(c, true);
	for (size_t i = 0; i < c->ns.n && !err; i++)
		err = gv_mntns_item(out, c->ns.v[i]);
	return err;
}

/* mounts in the last list: the size of call the next is learned as */
static size_t gv_mnt_list_size = 128;

/*
 * The bare list in auto mode, where statmount() works: from listmount()
 * and the IDs kept from the list before (some 0.1 us a mount), or, when
 * there are none, from listmount() or mountinfo's text, whichever costs
 * less per mount where it runs (cost.c, GV_COST_MNTLIST). A statmount()
 * per mount costs a system call each: 0.65 us a mount where one costs 120
 * ns, against 1.3 us for the text, but more than the text where one costs
 * 900 ns (bench/mounts under bench/syscost). Mountinfo unreadable:
 * listmount().
 */
static int gv_mntns_list_auto(struct gv_mnt_cache *c, struct gv_out *out)
{
	size_t n = __atomic_load_n(&gv_mnt_list_size, __ATOMIC_RELAXED);
	enum gv_mech m;
	uint64_t t0;
	int err = 1;

	/* with the IDs of a listing before: listmount(), and few statmount() */
	if (c->ids_only && !c->ids)
		c->ids = gv_mnt_ids_take();
	if (c->ids && c->ids->known.n)
		return gv_mntns_list_sm(c, out);
	m = gv_cost_decide(GV_COST_MNTLIST, n, GV_MECH_SYNC);
	t0 = gv_cost_now();
	if (m == GV_MECH_URING && !gv_mountinfo_text(c))
		err = gv_mntns_list_mi(c, out, &n);
	if (err > 0) {
		m = GV_MECH_SYNC;
		err = gv_mntns_list_sm(c, out);
		n = c->ns.n;
	}
	if (err)
		return err;
	__atomic_store_n(&gv_mnt_list_size, n, __ATOMIC_RELAXED);
	if (gv_cost_learning())
		gv_cost_record(GV_COST_MNTLIST, n, m, gv_cost_now() - t0);
	return 0;
}

/* "mntns": the 32-bit IDs of every mount reachable from our root. */
static int gv_mntns_list(struct gv_ctx *ctx, const struct gv_req *req,
			 struct gv_out *out)
{
	struct gv_mnt_cache *c = gv_mnt_cache(ctx);
	size_t n;
	int err = 0;

	(void)req;
	if (!c)
		return -ENOMEM;
	if (c->source == GV_MNT_BAD)
		return -ENOSYS;
	if (gv_mnt_statmount(c)) {
		if (c->source == GV_MNT_AUTO)
			err = gv_mntns_list_auto(c, out);
		else
			err = gv_mntns_list_sm(c, out);
		if (!err || !gv_mnt_fall_back(c, err))
			return err;
	}
	err = gv_mountinfo_text(c);
	if (err && gv_mnt_unbulk(c))
		return gv_mntns_list(ctx, req, out);
	return err ? err : gv_mntns_list_mi(c, out, &n);
}

/* "mntns:ID": the field names, once ID is known to exist. */
static int gv_mntns_id(struct gv_ctx *ctx, const struct gv_req *req,
		       struct gv_out *out)
{
	struct gv_mount *m;
	int err = gv_mnt_lookup(ctx, req, 0, &m);

	return err ? err : gv_put_field_names(out, gv_mnt_fields);
}

const struct gv_group gv_group_mnt = {
	.name = "mnt",
	.syntax = GV_SYNTAX_FIELD,
	.fields = gv_mnt_fields,
	.list = gv_list_fields,
	.release = gv_mnt_release,
};

const struct gv_group gv_group_mntns = {
	.name = "mntns",
	.syntax = GV_SYNTAX_ID_FIELD,
	.list = gv_mntns_list,
	.get = gv_mntns_id,
	.id_fields = gv_mnt_fields,
	.release = gv_mnt_release,
};
