// SPDX-License-Identifier: MIT
/*
 * explain.c - messages a person reads: what went wrong with an entry or
 * with the whole call, in words that fit the name, the names of file
 * systems, and the command's own warnings (cmd_warnx()).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "cmd.h"

/* A message of the command's own: "getvalues: " and a line. */
void __attribute__((format(printf, 1, 2))) cmd_warnx(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The names of a group, as getvalues(3) lists them ("" for the groups),
 * asked of the library once, when a message needs them: the list is the
 * library's own, so it is never out of date. NULL if even that fails.
 */
static const struct entry *group_list(const char *group)
{
	static const char *const asked[] = { "", "mnt", "stat", "fs" };
	static struct entry lists[4];
	static char bufs[4][1024];
	static bool tried[4];
	size_t i;

	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++)
		if (!strcmp(group, asked[i]))
			break;
	if (i == sizeof(asked) / sizeof(asked[0]))
		return NULL;
	if (!tried[i]) {
		struct name_val nv = {
			.name = asked[i],
			.value_in = { .iov_base = bufs[i],
				      .iov_len = sizeof(bufs[i]) },
		};

		tried[i] = true;
		if (getvalues(AT_FDCWD, "/", &nv, 1, 0) == 1 && !nv.error) {
			lists[i].val = nv.value_out.iov_base;
			lists[i].len = nv.value_out.iov_len;
		}
	}
	return lists[i].val ? &lists[i] : NULL;
}

/* Whether @list has the item @s (@n bytes); true when there is no list. */
static bool list_has(const struct entry *list, const char *s, size_t n)
{
	const char *item;
	size_t pos = 0, ilen;

	if (!list)
		return true;
	while (next_item(list, &pos, &item, &ilen))
		if (ilen == n && !memcmp(item, s, n))
			return true;
	return false;
}

/* "mnt, mntns, ..." from a list, for a message. */
static void list_join(const struct entry *list, char *out, size_t size)
{
	const char *item;
	size_t pos = 0, ilen, len = 0;

	out[0] = 0;
	while (list && next_item(list, &pos, &item, &ilen) && len < size) {
		int n = snprintf(out + len, size - len, "%s%.*s",
				 len ? ", " : "", (int)ilen, item);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/* A name taken apart: "GROUP:FIELD:REST", "mntns:ID:FIELD". */
struct parts {
	const char *name, *rest, *rcolon;
	size_t glen, flen;
	bool colon;
	char group[16];
	bool subpath_group;
};

static void name_parts(const char *name, struct parts *p)
{
	const char *colon = strchr(name, ':');

	p->name = name;
	p->colon = colon;
	p->glen = colon ? (size_t)(colon - name) : strlen(name);
	p->rest = colon ? colon + 1 : "";
	p->rcolon = strchr(p->rest, ':');
	p->flen = p->rcolon ? (size_t)(p->rcolon - p->rest) : strlen(p->rest);
	p->group[0] = 0;
	if (p->glen < sizeof(p->group))
		memcpy(p->group, name, p->glen), p->group[p->glen] = 0;
	p->subpath_group = !strcmp(p->group, "data") ||
			   !strcmp(p->group, "dir") ||
			   !strcmp(p->group, "stat") ||
			   !strcmp(p->group, "lstat");
}

/* ENOENT: an unknown group, an unknown field, a mount ID not here. */
static const char *explain_enoent(const struct parts *p, char *msg,
				  size_t size)
{
	const char *group = p->group, *fgroup, *f = p->rest;
	size_t fl = p->flen;
	bool mntns = !strcmp(group, "mntns");
	char names[160];

	if (!list_has(group_list(""), p->name, p->glen)) {
		list_join(group_list(""), names, sizeof(names));
		snprintf(msg, size, "no such group '%.*s' (the groups: %s)",
			 (int)p->glen, p->name, names);
		return msg;
	}
	if (strcmp(group, "mnt") && strcmp(group, "fs") &&
	    strcmp(group, "stat") && strcmp(group, "lstat") && !mntns)
		return NULL;
	fgroup = group[0] == 'l' ? group + 1 : mntns ? "mnt" : group;
	if (mntns) {
		if (!p->rcolon)
			goto no_mount;
		f = p->rcolon + 1;
		fl = strlen(f);
	}
	if (p->colon && !list_has(group_list(fgroup), f, fl)) {
		const char *g = fgroup[0] == 's' ? group : fgroup;

		snprintf(msg, size, "no such field '%.*s' in group %s "
			 "(getvalues PATH %s lists them)", (int)fl, f, g, g);
		return msg;
	}
	if (!mntns)
		return NULL;
no_mount:
	snprintf(msg, size, "no mount with ID %.*s here", (int)p->flen,
		 p->rest);
	return msg;
}

/* What is at /proc, for the entries that need a genuine procfs there. */
enum proc_state { PROC_OK, PROC_NOT_MOUNTED, PROC_NOT_PROCFS };

/*
 * Nothing mounted at /proc (a bare chroot, where /proc is a directory of
 * the root's own file system, or none at all), or something other than
 * procfs mounted there. PROC_OK: the errno is then the file system's own
 * answer.
 */
static enum proc_state proc_state(void)
{
	struct stat root, proc;
	struct statfs sfs;

	if (stat("/proc", &proc) || stat("/", &root) ||
	    proc.st_dev == root.st_dev)
		return PROC_NOT_MOUNTED;
	if (statfs("/proc", &sfs) || sfs.f_type != PROC_SUPER_MAGIC)
		return PROC_NOT_PROCFS;
	return PROC_OK;
}

/*
 * EOPNOTSUPP: xattr: names its file through /proc/thread-self/fd, and the
 * subpath groups reopen a file through it; they say so when /proc is not
 * procfs ("Operation not supported" hid it).
 */
static const char *explain_eopnotsupp(const struct parts *p)
{
	static const char *const xattr[] = {
		[PROC_NOT_MOUNTED] = "/proc is not mounted (xattr: reads the "
			"attributes through /proc/thread-self/fd)",
		[PROC_NOT_PROCFS] = "/proc is not procfs (xattr: reads the "
			"attributes through /proc/thread-self/fd)",
	};
	static const char *const reopen[] = {
		[PROC_OK] = "needs a genuine procfs at /proc (or the "
			"capability CAP_DAC_READ_SEARCH)",
		[PROC_NOT_MOUNTED] = "/proc is not mounted (the file is "
			"reopened through /proc/thread-self/fd, or needs "
			"CAP_DAC_READ_SEARCH)",
		[PROC_NOT_PROCFS] = "/proc is not procfs (the file is "
			"reopened through /proc/thread-self/fd, or needs "
			"CAP_DAC_READ_SEARCH)",
	};

	if (!strcmp(p->group, "xattr"))
		return xattr[proc_state()];
	return p->subpath_group ? reopen[proc_state()] : NULL;
}

/* Every other errno a name can get, where its group gives it a meaning. */
static const char *explain_errno(const struct entry *e, const struct parts *p)
{
	const char *group = p->group;

	switch (e->err) {
	case EINVAL:
		if (p->name[0] == ':')
			return "a shorthand :REST needs a previous name with "
			       "a group (as in stat:mode :size)";
		if (!strcmp(group, "xattr") && !*p->rest)
			return "xattr: needs the name of an attribute";
		if (p->subpath_group)
			return "bad SUBPATH: it may not start or end with '/', "
			       "hold '//', or have a '.' or '..' component";
		break;
	case ENODATA:
		if (!strcmp(group, "data"))
			return "not a regular file or symbolic link (data: "
			       "reads only those, never a device, FIFO or "
			       "socket)";
		if (!strcmp(group, "xattr"))
			return "no such extended attribute";
		break;
	case EXDEV:
		if (p->subpath_group)
			return "SUBPATH leaves the mount of PATH (or passes a "
			       "/proc magic link on the way)";
		break;
	case ENAMETOOLONG:
		if (strlen(e->written) > NAME_MAX_BYTES)
			return "name longer than 255 bytes";
		break;
	case EOPNOTSUPP:
		return explain_eopnotsupp(p);
	case ENOSYS:
		if (p->subpath_group)
			return "SUBPATH lookups need openat2(2), Linux 5.6 or "
			       "later";
		break;
	}
	return NULL;
}

/*
 * What went wrong with entry @e, in words that fit the name: an unknown
 * group or field is not "No such file or directory", and a data: entry
 * that is a device is not "No data available". Falls back on strerror().
 */
const char *explain(const struct gv_cmd *cmd, const struct entry *e,
		    char *msg, size_t size)
{
	const char *why;
	struct parts p;

	if (e->too_big) {
		snprintf(msg, size, "value does not fit in %zu bytes "
			 "(see --max-size)", cmd->max_size);
		return msg;
	}
	name_parts(e->shown, &p);
	why = e->err == ENOENT ? explain_enoent(&p, msg, size) :
				 explain_errno(e, &p);
	return why ? why : strerror(e->err);
}

void report_error(const struct gv_cmd *cmd, const struct entry *e)
{
	char msg[256];

	fputs(PROG ": ", stderr);
	put_escaped(stderr, e->shown, strlen(e->shown));
	fprintf(stderr, ": %s\n", explain(cmd, e, msg, sizeof(msg)));
}

/*
 * The name of a file-system magic number as fs:type gives it ("0x9fa0"),
 * for people: the name stat -f (coreutils) gives it, so that the two tools
 * agree (ext2, ext3 and ext4 share one magic). NULL if unknown.
 */
static const char *fs_type_name(const char *val, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ AUTOFS_SUPER_MAGIC, "autofs" },
		{ BINFMTFS_MAGIC, "binfmt_misc" },
		{ BPF_FS_MAGIC, "bpf_fs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" },
		{ CEPH_SUPER_MAGIC, "ceph" },
		{ CGROUP_SUPER_MAGIC, "cgroupfs" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2fs" },
		{ CIFS_SUPER_MAGIC, "cifs" },
		{ CODA_SUPER_MAGIC, "coda" },
		{ CRAMFS_MAGIC, "cramfs" },
		{ DEBUGFS_MAGIC, "debugfs" },
		{ DEVPTS_SUPER_MAGIC, "devpts" },
		{ ECRYPTFS_SUPER_MAGIC, "ecryptfs" },
		{ EFIVARFS_MAGIC, "efivarfs" },
		{ EROFS_SUPER_MAGIC_V1, "erofs" },
		{ EXFAT_SUPER_MAGIC, "exfat" },
		{ EXT4_SUPER_MAGIC, "ext2/ext3" },
		{ F2FS_SUPER_MAGIC, "f2fs" },
		{ FUSE_SUPER_MAGIC, "fuseblk" },
		{ HUGETLBFS_MAGIC, "hugetlbfs" },
		{ ISOFS_SUPER_MAGIC, "isofs" },
		{ MSDOS_SUPER_MAGIC, "msdos" },
		{ NFS_SUPER_MAGIC, "nfs" },
		{ NILFS_SUPER_MAGIC, "nilfs" },
		{ NSFS_MAGIC, "nsfs" },
		{ OCFS2_SUPER_MAGIC, "ocfs2" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ PROC_SUPER_MAGIC, "proc" },
		{ PSTOREFS_MAGIC, "pstorefs" },
		{ RAMFS_MAGIC, "ramfs" },
		{ SECURITYFS_MAGIC, "securityfs" },
		{ SELINUX_MAGIC, "selinux" },
		{ SMB2_SUPER_MAGIC, "smb2" },
		{ SQUASHFS_MAGIC, "squashfs" },
		{ SYSFS_MAGIC, "sysfs" },
		{ TMPFS_MAGIC, "tmpfs" },
		{ TRACEFS_MAGIC, "tracefs" },
		{ UDF_SUPER_MAGIC, "udf" },
		{ V9FS_MAGIC, "v9fs" },
		{ XFS_SUPER_MAGIC, "xfs" },
		{ ZONEFS_MAGIC, "zonefs" },
	};
	char hex[24], *end;
	unsigned long magic;

	if (len < 3 || len >= sizeof(hex) || memcmp(val, "0x", 2))
		return NULL;
	memcpy(hex, val, len);
	hex[len] = 0;
	errno = 0;
	magic = strtoul(hex + 2, &end, 16);
	if (errno || *end)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].magic == magic)
			return types[i].name;
	return NULL;
}

/* The name of the file system, for fs:type; NULL for any other entry. */
const char *entry_fs_name(const struct entry *e)
{
	if (e->err || strcmp(e->shown, "fs:type"))
		return NULL;
	return fs_type_name(e->val, e->len);
}


/* What made a call fail as a whole (out of memory: no more said). */
void report_call_error(const struct gv_cmd *cmd, int err)
{
	const char *env = getenv("GETVALUES_BACKEND");

	if (err == ENOMEM) {
		cmd_warnx("%s", strerror(ENOMEM));
		return;
	}

	if (err == ENOSYS && env && !strcmp(env, "native")) {
		cmd_warnx("backend native: this kernel has no readfile(2) and "
		      "getvalues(2) system calls (see getvalues(7))");
		return;
	}
	if (err == ENOSYS && env && !strcmp(env, "uring")) {
		cmd_warnx("backend uring: io_uring cannot be used here (not in "
		      "this kernel, disabled by /proc/sys/kernel/"
		      "io_uring_disabled, or blocked by seccomp)");
		return;
	}
	if (err == ENOSYS && env && *env && strcmp(env, "auto")) {
		cmd_warnx("backend %s: %s", env, strerror(err));
		return;
	}
	fputs(PROG ": ", stderr);
	if (cmd->path && *cmd->path) {
		put_escaped(stderr, cmd->path, strlen(cmd->path));
		if (cmd->have_fd)
			fprintf(stderr, " (relative to fd %d)", cmd->dfd);
	} else if (cmd->have_fd) {
		fprintf(stderr, "fd %d", cmd->dfd);
	} else {
		fputs(cmd->path ? "\"\"" : ".", stderr);
	}
	fprintf(stderr, ": %s\n", strerror(err));
}
