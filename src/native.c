// SPDX-License-Identifier: MIT
/*
 * native.c - the native backend: readfile() and getvalues() passed straight
 * to the readfile(2) and getvalues(2) system calls of kernel/patches, where
 * the running kernel has them.
 *
 * The system call numbers are a little above the highest that mainline
 * Linux has assigned (kernel/README.md), but a later kernel may mean
 * something else by them: the probe never trusts -ENOSYS alone, nor a
 * success. It asks getvalues(AT_FDCWD, "/", { "" }, 1, 48, 0) for the list
 * of groups and accepts only the exact answer, byte for byte, into a
 * buffer that must show no other write. The arguments are harmless
 * whatever the number means: AT_FDCWD (-100) is neither a descriptor nor a
 * process, the other integers are 1, 48 (the size of an entry) and 0, and
 * every pointer is to scratch memory of the probe, far larger than
 * anything written.
 *
 * A seccomp filter may kill the process for a system call it does not know
 * (systemd's SystemCallFilter= does by default), so under one the probe is
 * not made, unless GETVALUES_BACKEND=native asks for this backend.
 *
 * readfile(2) is not probed on its own: it comes from the same patch as
 * getvalues(2), one number before it.
 *
 * The kernel call differs from getvalues(3) in three ways the library hides
 * (SPEC v3). Its vector is of struct getvalues_entry, fixed-width pointers
 * and lengths the same on every ABI, with the entry size as an argument:
 * the caller's struct name_val is copied into one and the outputs back. It
 * takes at most 1024 entries, and a pending signal ends it early with the
 * count handled so far: longer vectors are split into kernel calls that
 * carry the shorthand prefix and the current buffer across, and a
 * shortened call is continued. Nor does the kernel describe mounts
 * (statmount(2) and listmount(2) do): a vector that names mnt or mntns, or
 * asks for the list of groups, is the library's, whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/*
 * kernel/patches/0012: 490 and 491 while the series is out of tree (the
 * next free numbers at merge), shifted where an ABI shifts its table
 */
#if defined(__alpha__)
#define GV_NR_BASE	600
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI32
#define GV_NR_BASE	4490
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_ABI64
#define GV_NR_BASE	5490
#elif defined(__mips__) && _MIPS_SIM == _MIPS_SIM_NABI32
#define GV_NR_BASE	6490
#elif defined(__x86_64__) && defined(__ILP32__)
#define GV_NR_BASE	(0x40000000 + 490)	/* x32 */
#else
#define GV_NR_BASE	490
#endif
#define GV_NR_READFILE	(GV_NR_BASE + 0)
#define GV_NR_GETVALUES	(GV_NR_BASE + 1)

static long gv_native_sys(long nr, int dfd, const char *path,
			  struct gv_kentry *vec, size_t num,
			  unsigned int flags)
{
	return syscall(nr, dfd, path, vec, num, sizeof(*vec), flags);
}

/*
 * The kernel's top-level list, without the terminator of the literal. The
 * mounts (mnt, mntns) are not the kernel's: statmount(2) and listmount(2)
 * give them, and the library serves them on every backend.
 */
static const char gv_native_groups[] =
	"xattr\0data\0dir\0stat\0lstat\0fs\0";
#define GV_NATIVE_GROUPS_LEN	(sizeof(gv_native_groups) - 1)
#define GV_NATIVE_FILL		0x5a

/*
 * 1 if the thread's /proc status shows a seccomp filter, else 0; unknown
 * (no genuine procfs to ask) counts as yes. -EMFILE, -ENFILE or -ENOMEM:
 * cannot tell now (the probe is made again at the next call).
 */
static int gv_native_filtered(void)
{
	char buf[4096], *p;
	ssize_t n = 0, r;
	int fd = gv_proc_open("thread-self/status", O_RDONLY | O_NOCTTY);

	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM)
		return fd;
	if (fd < 0)
		return 1;
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	gv_fd_close(fd);
	buf[n] = '\0';
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return 0;	/* a kernel without seccomp */
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p != '0';
}

int gv_native_probe_nr(long nr, bool force)
{
	static const char empty[] = "";
	struct gv_kentry nv[2];
	char buf[512];
	long r;
	int filtered = force ? 0 : gv_native_filtered();

	if (filtered)
		return filtered < 0 ? filtered : -ENOSYS;
	memset(buf, GV_NATIVE_FILL, sizeof(buf));
	memset(nv, 0, sizeof(nv));
	nv[0].name = GV_U64(empty);
	nv[0].value_in = (struct gv_kbuf){ GV_U64(buf), sizeof(buf) };
	r = gv_native_sys(nr, AT_FDCWD, "/", nv, 1, 0);
	if (r == 1 && nv[0].error == 0 && nv[0].reserved == 0 &&
	    nv[0].name == GV_U64(empty) &&
	    nv[0].value_in.base == GV_U64(buf) &&
	    nv[0].value_in.len == sizeof(buf) &&
	    nv[0].value_out.base == GV_U64(buf) &&
	    nv[0].value_out.len == GV_NATIVE_GROUPS_LEN &&
	    !memcmp(buf, gv_native_groups, GV_NATIVE_GROUPS_LEN) &&
	    (unsigned char)buf[GV_NATIVE_GROUPS_LEN] == GV_NATIVE_FILL &&
	    !nv[1].name && !nv[1].value_in.base && !nv[1].value_in.len &&
	    !nv[1].value_out.base && !nv[1].value_out.len &&
	    !nv[1].error && !nv[1].reserved)
		return 0;
	return -ENOSYS;
}

static int gv_native_probe(bool forced)
{
	return gv_native_probe_nr(GV_NR_GETVALUES, forced);
}

/*
 * readfile(3) is a cancellation point, as open(2) and read(2) are; so is
 * the native call, which may wait as they do (a FIFO, a terminal). It is
 * made with asynchronous cancellation enabled: the kernel closes its file
 * before it returns to user space, whether it returns or is interrupted,
 * so a cancellation acted upon at any instant leaves nothing behind.
 */
static ssize_t gv_native_readfile(int dfd, const char *path, void *buf,
				  size_t size, int flags)
{
	int type, err;
	long r;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
	r = syscall(GV_NR_READFILE, dfd, path, buf, size, flags);
	err = errno;
	pthread_setcanceltype(type, NULL);
	return r < 0 ? -err : r;
}

/* SPEC v3: the most entries one getvalues(2) call takes */
#define GV_NATIVE_MAX	1024

/*
 * A walk of the caller's vector in kernel calls of at most GV_NATIVE_MAX
 * entries. Between two calls the library keeps what the kernel would have
 * carried from one entry to the next: the shorthand prefix and the current
 * buffer (where the next value goes and the room left there).
 */
struct gv_native_walk {
	int dfd;
	const char *path;
	unsigned int flags;
	int pin;			/* $ORIGIN held open (gv_native_pin()) */
	bool pin_tried;
	struct name_val *uvec;
	size_t num;
	size_t done;			/* entries handled */
	struct gv_prefix prefix;	/* what entry @done's shorthand takes */
	struct gv_prefix next;		/* the same after the entries read */
	gv_prefix_next_fn *prefix_next;	/* names.c's, passed down */
	char *pos;			/* NULL: no current buffer yet */
	size_t room;
	bool shorthand;			/* the first entry read is one */
	bool first_fits;		/* and its full name is in first[] */
	/* a call: the primer, then up to GV_NATIVE_MAX entries */
	struct name_val vec[GV_NATIVE_MAX + 1];
	struct gv_kentry kvec[GV_NATIVE_MAX + 1];	/* the same, the kernel's */
	uintptr_t src[GV_NATIVE_MAX];
	const char *names[GV_NATIVE_MAX];
	int lens[GV_NATIVE_MAX];
	char primer[GV_EXPANDED_MAX + 2];
	char first[GV_NAME_MAX + 1];
	char full[GV_FULL_SIZE];
};

/* mnt and mntns, and the list of groups, are the library's (see above) */
static bool gv_native_library_name(const char *name)
{
	size_t glen = strcspn(name, ":");

	return !*name || (glen == 3 && !memcmp(name, "mnt", 3)) ||
	       (glen == 5 && !memcmp(name, "mntns", 5));
}

/*
 * The first entry read, a shorthand, by its full name @name, if that fits
 * the kernel's limit on a name: a call that starts there then needs no
 * primer (see gv_native_call()).
 */
static void gv_native_first(struct gv_native_walk *w, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	w->first_fits = w->shorthand && name && len <= GV_NAME_MAX;
	if (w->first_fits)
		memcpy(w->first, name, len + 1);
}

/*
 * Entries @from to @from + @n - 1 into w->vec + 1, their outputs cleared,
 * and their names, the shorthand prefix carried through them from
 * w->prefix into w->next. 1 if one of them is the library's, 0 if not,
 * -errno if the vector cannot be read or a reserved field is set (the
 * library then gives the call's error, in the order it gives them).
 */
static int gv_native_read(struct gv_native_walk *w, size_t from, size_t n)
{
	struct name_val *vec = w->vec + 1;
	char *store = NULL;
	int ret, lib = 0;

	w->next = w->prefix;
	ret = gv_copy_from_user(vec, (uintptr_t)(w->uvec + from),
				n * sizeof(*vec));
	for (size_t i = 0; !ret && i < n; i++) {
		if (vec[i].reserved)
			ret = -EINVAL;
		w->src[i] = (uintptr_t)vec[i].name;
		vec[i].value_out = (struct iovec){ NULL, 0 };
		vec[i].error = 0;
	}
	if (!ret)
		ret = gv_strings_from_user(w->src, n, GV_NAME_MAX, w->names,
					   w->lens, &store, NULL);
	w->shorthand = !ret && n && w->lens[0] > 0 && *w->names[0] == ':';
	for (size_t i = 0; !ret && i < n; i++) {
		const char *name = w->lens[i] < 0 ? "" : w->names[i];

		name = w->prefix_next(&w->next, name, w->lens[i],
				       w->full);
		if (name && gv_native_library_name(name))
			lib = 1;
		if (!i)
			gv_native_first(w, name);
	}
	free(store);
	return ret ? ret : lib;
}

/* Does any entry of the whole vector need the library? */
static int gv_native_scan(struct gv_native_walk *w)
{
	int ret = 0;

	for (size_t from = 0; !ret && from < w->num; from += GV_NATIVE_MAX) {
		size_t n = w->num - from;

		ret = gv_native_read(w, from, n < GV_NATIVE_MAX ? n :
				     GV_NATIVE_MAX);
		w->prefix = w->next;
	}
	w->prefix = (struct gv_prefix){ 0 };
	return ret;
}

/*
 * The buffer after the @k entries of w->vec + 1 that the kernel handled:
 * each value went to the current position.
 */
static void gv_native_advance(struct gv_native_walk *w, size_t k)
{
	const struct name_val *e = w->vec + 1;

	for (size_t i = 0; i < k; i++, e++) {
		char *end = (char *)e->value_out.iov_base + e->value_out.iov_len;

		if (e->value_in.iov_base) {
			w->pos = e->value_in.iov_base;
			w->room = e->value_in.iov_len;
		}
		if (w->pos && !e->error) {
			w->room -= (size_t)(end - w->pos);
			w->pos = end;
		}
	}
}

/*
 * The kernel's entries for the @n of w->vec from @start: the same fields,
 * 64 bits wide; outputs cleared, as gv_native_read() left them.
 */
static void gv_native_to_kernel(struct gv_native_walk *w,
				const struct name_val *start, size_t n)
{
	struct gv_kentry *k = w->kvec + (start - w->vec);

	for (size_t i = 0; i < n; i++, start++, k++)
		*k = (struct gv_kentry){
			.name = GV_U64(start->name),
			.value_in = { GV_U64(start->value_in.iov_base),
				      start->value_in.iov_len },
		};
}

/* value_out and error of the @n entries from @start, back into w->vec */
static void gv_native_from_kernel(struct gv_native_walk *w,
				  struct name_val *start, size_t n)
{
	const struct gv_kentry *k = w->kvec + (start - w->vec);

	for (size_t i = 0; i < n; i++, start++, k++) {
		start->value_out.iov_base = (void *)(uintptr_t)k->value_out.base;
		start->value_out.iov_len = (size_t)k->value_out.len;
		start->error = k->error;
	}
}

/*
 * One kernel call for the next @n entries, read into w->vec + 1. A
 * shorthand first goes to the kernel by its full name, which gives the
 * entries after it the same prefix; one whose full name is too long for a
 * name is preceded by a primer: an entry named by the prefix, without a
 * buffer, which the kernel fails with EINVAL and which leaves that prefix
 * to the next one; the call then takes one entry less. (A signal does
 * not end a call after a primer, which has no buffer, but a wait of the
 * next entry that a signal interrupts does: the full name where it fits
 * keeps that rare.) The count of entries handled (0 when a signal came
 * first), or -errno.
 */
static int gv_native_call(struct gv_native_walk *w, size_t n)
{
	struct name_val *vec = w->vec + 1, *start = vec;
	long r;

	if (w->shorthand && w->prefix.len && !w->first_fits) {
		memcpy(w->primer, w->prefix.buf, w->prefix.len);
		w->primer[w->prefix.len] = '\0';
		start = w->vec;
		*start = (struct name_val){ .name = w->primer };
		/* the last one waits for the next call, as after a signal */
		n -= n == GV_NATIVE_MAX;
	}
	if (!vec[0].value_in.iov_base && w->pos)
		vec[0].value_in = (struct iovec){ w->pos, w->room };
	n += (size_t)(vec - start);
	gv_native_to_kernel(w, start, n);
	if (w->shorthand && w->prefix.len && w->first_fits)
		w->kvec[1].name = GV_U64(w->first);
	r = gv_native_sys(GV_NR_GETVALUES, w->dfd, w->path,
			  w->kvec + (start - w->vec), n, w->flags);
	if (r < 0)
		return -errno;
	gv_native_from_kernel(w, start, n);
	return (int)(r - (r && start != vec));
}

/*
 * $ORIGIN held by an O_PATH descriptor for a walk of more than one kernel
 * call, so that every call sees the object the first one did: a rename
 * between two calls would otherwise move the rest of the vector to another
 * directory. It is resolved as statx(2) resolves it: the last component
 * not followed with AT_SYMLINK_NOFOLLOW, and (O_DIRECTORY) an automount
 * point triggered unless AT_NO_AUTOMOUNT; then named by AT_EMPTY_PATH.
 * Where the open fails, the kernel calls resolve the name themselves and
 * say why.
 */
static void gv_native_pin(struct gv_native_walk *w)
{
	int oflags = O_PATH | O_CLOEXEC, fd = -1;

	if (w->pin_tried || !w->path || (!*w->path &&
					 (w->flags & AT_EMPTY_PATH)))
		return;
	w->pin_tried = true;
	if (w->flags & AT_SYMLINK_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	if (!(w->flags & AT_NO_AUTOMOUNT))
		fd = openat(w->dfd, w->path, oflags | O_DIRECTORY);
	if (fd < 0)
		fd = openat(w->dfd, w->path, oflags);
	if (fd < 0)
		return;
	w->pin = fd;
	w->dfd = fd;
	w->path = "";
	w->flags = (w->flags & ~AT_SYMLINK_NOFOLLOW) | AT_EMPTY_PATH;
}

/*
 * Kernel calls in a row that a signal ended before any entry (EINTR: a
 * handler without SA_RESTART, or a wait that a signal interrupts, such as
 * a FUSE lookup of $ORIGIN) after which the walk gives up with EINTR, as
 * the system call the entry stands for would have: a few are signals
 * that landed between two calls; more would keep going for ever.
 */
#define GV_NATIVE_EINTR_MAX	16

static int gv_native_walk(struct gv_native_walk *w)
{
	int r, eintr = 0;
	size_t n, k;
	bool stop;

	while (w->done < w->num) {
		n = w->num - w->done;
		n = n < GV_NATIVE_MAX ? n : GV_NATIVE_MAX;
		r = gv_native_read(w, w->done, n);
		if (r && !w->done)
			return -EGV_SYNC;	/* the library's, whole */
		if (r < 0)
			return w->done ? (int)w->done : r;
		if (w->done || eintr || n < w->num)
			gv_native_pin(w);
		r = gv_native_call(w, n);
		k = r > 0 ? (size_t)r : 0;
		/* the entry that overflowed is the caller's too */
		stop = r >= 0 && k < n && w->vec[1 + k].error == EOVERFLOW;
		/* no entry: a signal came first (after a primer: 0) */
		if ((r == -EINTR || (!r && !stop)) &&
		    ++eintr < GV_NATIVE_EINTR_MAX)
			continue;
		if (r == -EINTR || (!r && !stop))
			return w->done ? (int)w->done : -EINTR;
		if (r < 0)	/* after entries handled: those count */
			return w->done ? (int)w->done : r;
		eintr = 0;
		if (gv_results_to_user(w->uvec + w->done, w->vec + 1,
				       k + stop, NULL))
			return -EFAULT;
		gv_native_advance(w, k);
		/* a signal: the prefix at entry k, or the count done */
		r = k < n && !stop ? gv_native_read(w, w->done, k) : 0;
		w->prefix = w->next;
		w->done += k;
		if (stop || r < 0)
			break;
	}
	return (int)w->done;
}

/*
 * getvalues() on the native calls: vectors of any length, in kernel calls
 * of at most GV_NATIVE_MAX entries, each continued where a signal ended it
 * (SPEC v3). A vector that names mounts, or whose errors are the call's
 * own, is the library's: -EGV_SYNC.
 */
static int gv_native_getvalues(int dfd, const char *path,
			       struct name_val *vec, size_t num,
			       unsigned int flags, gv_prefix_next_fn *next)
{
	struct gv_native_walk *w = malloc(sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	*w = (struct gv_native_walk){ .dfd = dfd, .path = path,
				      .flags = flags, .uvec = vec,
				      .num = num, .prefix_next = next,
				      .pin = -1 };
	/* one kernel call's worth is looked at by gv_native_walk() itself */
	ret = num > GV_NATIVE_MAX ? gv_native_scan(w) : 0;
	if (ret)
		ret = -EGV_SYNC;
	else if (!num)
		ret = gv_native_sys(GV_NR_GETVALUES, dfd, path, w->kvec, 0,
				    flags) < 0 ? -errno : 0;
	else
		ret = gv_native_walk(w);
	gv_uaccess_end();
	if (w->pin >= 0)
		close(w->pin);
	free(w);
	return ret;
}

const struct gv_backend gv_backend_native = {
	.name = "native",
	.probe = gv_native_probe,
	.readfile = gv_native_readfile,
	.whole_call = gv_native_getvalues,
};
