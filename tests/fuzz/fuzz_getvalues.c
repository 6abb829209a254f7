// SPDX-License-Identifier: MIT
/*
 * fuzz_getvalues.c - libFuzzer target for getvalues(): the name grammar and
 * the vector walk, against a scratch tree as $ORIGIN.
 *
 * An input is lines. The first byte of the first line picks $ORIGIN and the
 * flags; every further line is one entry: an operation byte, then the name.
 *
 *   +SIZE NAME   a new buffer of SIZE bytes (decimal, at most 65535)
 *   .NAME        continue the current buffer
 *   rSIZE NAME   a read-only buffer          xSIZE NAME  an inaccessible one
 *   eGOOD NAME   GOOD writable bytes, then an inaccessible page
 *   1SIZE NAME   the buffer (void *)1
 *   N            a NULL name          F  a name in an inaccessible page
 *   UNAME        NAME with no NUL before an inaccessible page
 *   !NAME        reserved != 0 (the call must fail with EINVAL)
 *   anything else: continue the current buffer, the whole line is the name
 *
 * Checked on every input: the call fails only as it may, and then leaves
 * the vector alone; otherwise the walk matches a model of SPEC 2.2 (buffer
 * positions, value_out on success and error, the strict overflow rule, the
 * stop, untouched entries, EFAULT and ENAMETOOLONG where they belong); the
 * same vector with every ":REST" expanded by an independent model of the
 * shorthand (DECISIONS E3) gives the same errors and values; and no
 * descriptor is left behind. Any mismatch aborts.
 *
 * Nothing outside the scratch tree is written; names are confined by the
 * library itself, and stat: of a symlink leading out only stats.
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); the
 * TAP test tests/getvalues_fuzz.c replays the corpus and regressions.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <getvalues.h>

#define FZ_MAX_ENTRIES	32
#define FZ_MAX_NAME	600	/* longer than 255, to reach ENAMETOOLONG */
#define FZ_SLOT		65536	/* bytes per '+' buffer */
#define FZ_PAGE		4096
#define FZ_BAD_PAGES	16	/* size of the read-only / inaccessible areas */
#define FZ_POISON	0xa5

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum fz_buf { B_CONT, B_NEW, B_RO, B_NONE, B_EDGE, B_ONE };
enum fz_name { N_OK, N_NULL, N_FAULT, N_UNTERM };

struct fz_entry {
	enum fz_buf buf;
	size_t size;		/* iov_len */
	size_t good;		/* B_EDGE: writable bytes */
	enum fz_name kind;
	bool reserved;
	char name[FZ_MAX_NAME + 1];
	size_t len;
};

static char fz_root[256];
static int fz_rootfd = -1;
static char *fz_pool;			/* FZ_MAX_ENTRIES slots */
static char *fz_ro, *fz_none;		/* FZ_BAD_PAGES each */
static char *fz_edge;			/* one page, then FZ_BAD_PAGES none */
static char *fz_names;			/* FZ_MAX_ENTRIES name pages + guards */

static void fz_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_getvalues: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void *fz_map(size_t pages, int prot)
{
	void *p = mmap(NULL, pages * FZ_PAGE, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fz_fail("mmap: %s", strerror(errno));
	return p;
}

static void fz_put(const char *rel, const char *data)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fz_root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, strlen(data)) < 0)
		fz_fail("create %s: %s", path, strerror(errno));
	close(fd);
}

static void fz_cleanup(void)
{
	char cmd[300];

	if (!fz_root[0])
		return;
	umount2(fz_root, MNT_DETACH);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fz_root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_getvalues: could not remove %s\n",
			fz_root);
}

/* The symlinks of the scratch tree: where they point, some out of it. */
static const struct {
	const char *name, *target;
} fz_links[] = {
	{ "link", "file" }, { "dirlink", "dir" }, { "up", ".." },
	{ "root", "/" }, { "etc", "../../../../../../etc" },
	{ "proc", "/proc/self" }, { "dangling", "nowhere" },
	{ "loop", "loop" }, { "tomnt", "mnt" },
};

/*
 * The scratch tree: regular files, directories, symlinks that climb out or
 * point at "/", a FIFO, device nodes and another mount where permitted.
 * Mounted as a private noatime tmpfs when we may, so that values do not
 * change between the two calls of one input.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[512], big[5000];
	bool mounted = false;

	(void)argc;
	(void)argv;
	snprintf(fz_root, sizeof(fz_root), "%s/gv-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fz_root))
		fz_fail("mkdtemp: %s", strerror(errno));
	atexit(fz_cleanup);
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("gvfuzz", fz_root, "tmpfs", MS_NOATIME, "size=8m") == 0)
		mounted = true;

	memset(big, 'B', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	fz_put("file", "file contents\n");
	fz_put("empty", "");
	fz_put("a:b", "colon");
	fz_put("big", big);
	snprintf(path, sizeof(path), "%s/dir", fz_root);
	mkdir(path, 0755);
	fz_put("dir/inner", "inner");
	snprintf(path, sizeof(path), "%s/dir/sub", fz_root);
	mkdir(path, 0700);
	fz_put("dir/sub/leaf", "leaf");
	snprintf(path, sizeof(path), "%s/fifo", fz_root);
	mkfifo(path, 0644);
	snprintf(path, sizeof(path), "%s/mnt", fz_root);
	mkdir(path, 0755);
	if (mounted) {
		mknod(strcat(strcpy(path, fz_root), "/null"),
		      S_IFCHR | 0666, makedev(1, 3));
		mknod(strcat(strcpy(path, fz_root), "/nodev"),
		      S_IFCHR | 0666, makedev(511, 0));
		snprintf(path, sizeof(path), "%s/mnt", fz_root);
		mount("gvfuzz", path, "tmpfs", MS_NOATIME, "size=1m");
		fz_put("mnt/inside", "inside");
	}
	fz_rootfd = open(fz_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fz_rootfd < 0)
		fz_fail("open %s: %s", fz_root, strerror(errno));
	for (size_t i = 0; i < sizeof(fz_links) / sizeof(fz_links[0]); i++)
		if (symlinkat(fz_links[i].target, fz_rootfd, fz_links[i].name))
			fz_fail("symlink %s: %s", fz_links[i].name,
				strerror(errno));
	snprintf(path, sizeof(path), "%s/file", fz_root);
	setxattr(path, "user.a", "value a", 7, 0);
	setxattr(path, "user.b:c", "", 0, 0);
	setxattr(fz_root, "user.root", "root value", 10, 0);

	fz_pool = fz_map((size_t)FZ_MAX_ENTRIES * FZ_SLOT / FZ_PAGE,
			 PROT_READ | PROT_WRITE);
	fz_ro = fz_map(FZ_BAD_PAGES, PROT_READ);
	fz_none = fz_map(FZ_BAD_PAGES, PROT_NONE);
	fz_edge = fz_map(1 + FZ_BAD_PAGES, PROT_READ | PROT_WRITE);
	mprotect(fz_edge + FZ_PAGE, FZ_BAD_PAGES * FZ_PAGE, PROT_NONE);
	/* each name in its own page, followed by an inaccessible one */
	fz_names = fz_map(2 * FZ_MAX_ENTRIES, PROT_READ | PROT_WRITE);
	for (int i = 0; i < FZ_MAX_ENTRIES; i++)
		mprotect(fz_names + (2 * i + 1) * FZ_PAGE, FZ_PAGE, PROT_NONE);
	return 0;
}

static size_t fz_number(const char **p, const char *end, size_t max)
{
	size_t v = 0;

	while (*p < end && **p >= '0' && **p <= '9') {
		v = v * 10 + (size_t)(**p - '0');
		if (v > max)
			v = max;
		(*p)++;
	}
	if (*p < end && **p == ' ')
		(*p)++;
	return v;
}

/* Split the input into entries; returns how many. */
static size_t fz_parse(const uint8_t *data, size_t size, uint8_t *head,
		       struct fz_entry *ent)
{
	const char *p = (const char *)data, *end = p + size, *nl;
	size_t n = 0;

	*head = size ? data[0] : 0;
	nl = memchr(p, '\n', size);
	p = nl ? nl + 1 : end;
	while (p < end && n < FZ_MAX_ENTRIES) {
		struct fz_entry *e = &ent[n++];
		const char *line = p, *stop;
		size_t len;

		nl = memchr(p, '\n', end - p);
		stop = nl ? nl : end;
		*e = (struct fz_entry){ .buf = B_CONT, .kind = N_OK };
		p = line + 1;
		switch (*line) {
		case '+':
			e->buf = B_NEW;
			e->size = fz_number(&p, stop, FZ_SLOT - 1);
			break;
		case 'r':
		case 'x':
			e->buf = *line == 'r' ? B_RO : B_NONE;
			e->size = fz_number(&p, stop, FZ_BAD_PAGES * FZ_PAGE);
			break;
		case 'e':
			e->buf = B_EDGE;
			e->good = fz_number(&p, stop, FZ_PAGE);
			e->size = e->good + 64;
			break;
		case '1':
			e->buf = B_ONE;
			e->size = fz_number(&p, stop, 60000);
			break;
		case 'N':
			e->kind = N_NULL;
			break;
		case 'F':
			e->kind = N_FAULT;
			break;
		case 'U':
			e->kind = N_UNTERM;
			break;
		case '!':
			e->reserved = true;
			break;
		case '.':
			break;
		default:
			p = line;
			break;
		}
		len = stop - p;
		if (len > FZ_MAX_NAME)
			len = FZ_MAX_NAME;
		memcpy(e->name, p, len);
		e->name[len] = 0;
		e->len = strlen(e->name);	/* a NUL in the line ends it */
		p = nl ? nl + 1 : end;
	}
	return n;
}

/* Where entry @i's name goes: its NUL is the last byte of its page. */
static const char *fz_name_ptr(const struct fz_entry *e, int i)
{
	char *page = fz_names + 2 * i * FZ_PAGE;

	switch (e->kind) {
	case N_NULL:
		return NULL;
	case N_FAULT:
		return page + FZ_PAGE;
	case N_UNTERM:
		memcpy(page + FZ_PAGE - e->len, e->name, e->len);
		if (!e->len)
			return page + FZ_PAGE;
		return page + FZ_PAGE - e->len;
	default:
		memcpy(page + FZ_PAGE - e->len - 1, e->name, e->len + 1);
		return page + FZ_PAGE - e->len - 1;
	}
}

static void fz_buffer(const struct fz_entry *e, int i, struct iovec *iov)
{
	switch (e->buf) {
	case B_NEW:
		iov->iov_base = fz_pool + (size_t)i * FZ_SLOT;
		break;
	case B_RO:
		iov->iov_base = fz_ro;
		break;
	case B_NONE:
		iov->iov_base = fz_none;
		break;
	case B_EDGE:
		iov->iov_base = fz_edge + FZ_PAGE - e->good;
		break;
	case B_ONE:
		iov->iov_base = (void *)1;
		break;
	default:
		iov->iov_base = NULL;
		iov->iov_len = 0;
		return;
	}
	iov->iov_len = e->size;
}

static bool fz_readable(const struct fz_entry *e)
{
	return e->kind == N_OK && e->len <= 255;
}

/*
 * The shorthand, modelled from DECISIONS E3 without looking at the
 * library: the prefix is the group of the previous expanded name, or
 * "mntns:ID:" after "mntns:ID" or "mntns:ID:FIELD". Returns false when an
 * expansion is too long to be written out as a name.
 */
static bool fz_expand(const struct fz_entry *ent, size_t n,
		      char names[][FZ_MAX_NAME + 300], bool *same)
{
	char prefix[FZ_MAX_NAME + 300] = "";
	bool have = false;

	for (size_t i = 0; i < n; i++) {
		const struct fz_entry *e = &ent[i];
		char *x = names[i];
		const char *colon, *c2;

		same[i] = false;
		if (!fz_readable(e)) {
			same[i] = true;	/* the same bad pointer again */
			have = false;
			continue;
		}
		if (e->name[0] == ':') {
			if (!have) {
				strcpy(x, "xattr:");	/* EINVAL, no room */
				continue;
			}
			snprintf(x, sizeof(names[0]), "%s%s", prefix,
				 e->name + 1);
		} else {
			strcpy(x, e->name);
		}
		if (strlen(x) > 255)
			return false;
		have = *x != 0;
		if (!have)
			continue;
		colon = strchr(x, ':');
		if (!colon) {
			snprintf(prefix, sizeof(prefix), "%s:", x);
			continue;
		}
		c2 = strchr(colon + 1, ':');
		if (!strncmp(x, "mntns:", 6) && (c2 || colon[1]))
			snprintf(prefix, sizeof(prefix), "%.*s:",
				 (int)((c2 ? c2 : x + strlen(x)) - x), x);
		else
			snprintf(prefix, sizeof(prefix), "%.*s:",
				 (int)(colon - x), x);
	}
	return true;
}

static int fz_lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static bool fz_poisoned(const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		if (s[i] != FZ_POISON)
			return false;
	return true;
}

struct fz_result {
	uint32_t error;
	size_t len;
	size_t off;		/* into a copy of the values */
};

/*
 * Check one call's vector against the model of the walk. Copies the
 * values into @vals, so that a second call can be compared with them.
 */
static void fz_check_walk(const struct fz_entry *ent, struct name_val *v,
			  size_t n, int ret, struct fz_result *res,
			  char *vals, size_t vals_cap)
{
	uintptr_t base = 0;
	size_t size = 0, pos = 0, good = SIZE_MAX, used = 0;
	bool valid = false, bad_buf = false;

	if (ret < 0 || (size_t)ret > n)
		fz_fail("return %d out of range for %zu entries", ret, n);
	for (size_t i = 0; i < n; i++) {
		const struct fz_entry *e = &ent[i];
		struct name_val *x = &v[i];
		uintptr_t at = valid ? base + pos : 0;

		if (i > (size_t)ret) {
			if (!fz_poisoned(&x->value_out, sizeof(x->value_out)) ||
			    !fz_poisoned(&x->error, sizeof(x->error)))
				fz_fail("entry %zu after the stop was written",
					i);
			continue;
		}
		if (x->value_in.iov_base) {
			base = (uintptr_t)x->value_in.iov_base;
			size = x->value_in.iov_len;
			pos = 0;
			valid = true;
			bad_buf = e->buf == B_RO || e->buf == B_NONE ||
				  e->buf == B_ONE;
			good = e->buf == B_EDGE ? e->good : SIZE_MAX;
			at = base;
		}
		if (x->error >= 4096)
			fz_fail("entry %zu: error %u", i, x->error);
		if (i == (size_t)ret && x->error != EOVERFLOW)
			fz_fail("entry %zu stopped the walk with error %u", i,
				x->error);
		if (i < (size_t)ret && x->error == EOVERFLOW)
			fz_fail("entry %zu: EOVERFLOW but the walk went on", i);
		if (!valid && x->error != EINVAL)
			fz_fail("entry %zu: no buffer, error %u", i, x->error);
		/* 256 readable bytes without a NUL are too long, not a fault */
		if (valid && e->kind == N_UNTERM && e->len > 255 &&
		    x->error != ENAMETOOLONG)
			fz_fail("entry %zu: unterminated %zu bytes, error %u",
				i, e->len, x->error);
		else if (valid && e->kind != N_OK &&
			 !(e->kind == N_UNTERM && e->len > 255) &&
			 x->error != EFAULT)
			fz_fail("entry %zu: bad name pointer, error %u", i,
				x->error);
		if (valid && e->kind == N_OK && e->len > 255 &&
		    x->error != ENAMETOOLONG)
			fz_fail("entry %zu: %zu-byte name, error %u", i,
				e->len, x->error);
		if (x->error) {
			if ((uintptr_t)x->value_out.iov_base != at ||
			    x->value_out.iov_len)
				fz_fail("entry %zu: error %u with value_out "
					"{%p, %zu}, want {%p, 0}", i, x->error,
					x->value_out.iov_base,
					x->value_out.iov_len, (void *)at);
		} else {
			size_t len = x->value_out.iov_len;

			if ((uintptr_t)x->value_out.iov_base != at)
				fz_fail("entry %zu: value at %p, want %p", i,
					x->value_out.iov_base, (void *)at);
			if (len >= size - pos)
				fz_fail("entry %zu: %zu bytes in %zu of room",
					i, len, size - pos);
			if (len && bad_buf)
				fz_fail("entry %zu: %zu bytes landed in a bad "
					"buffer", i, len);
			if (len && pos + len > good)
				fz_fail("entry %zu: value crosses into the "
					"inaccessible page", i);
			pos += len;
		}
		if (res && i < (size_t)ret) {
			res[i].error = x->error;
			res[i].len = x->value_out.iov_len;
			res[i].off = used;
			if (!x->error && used + res[i].len <= vals_cap) {
				memcpy(vals + used, x->value_out.iov_base,
				       res[i].len);
				used += res[i].len;
			}
		}
	}
}

static void fz_poison_out(struct name_val *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memset(&v[i].value_out, FZ_POISON, sizeof(v[i].value_out));
		memset(&v[i].error, FZ_POISON, sizeof(v[i].error));
	}
}

static const char *const fz_origins[] = {
	".", "dir", "file", "link", "fifo", "dangling", "dirlink", "null",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_entry ent[FZ_MAX_ENTRIES];
	static char expanded[FZ_MAX_ENTRIES][FZ_MAX_NAME + 300];
	static char vals[(size_t)FZ_MAX_ENTRIES * FZ_SLOT];
	struct name_val v[FZ_MAX_ENTRIES], before[FZ_MAX_ENTRIES];
	struct fz_result res[FZ_MAX_ENTRIES];
	bool same[FZ_MAX_ENTRIES], any_reserved = false;
	unsigned int flags = 0;
	const char *origin;
	uint8_t head;
	size_t n;
	int ret, ret2, err, fd_before;

	n = fz_parse(data, size, &head, ent);
	origin = fz_origins[head % 8];
	if (head & 0x08)
		flags |= AT_SYMLINK_NOFOLLOW;
	if (head & 0x10)
		flags |= AT_NO_AUTOMOUNT;
	if ((head & 0xe0) == 0xe0)
		flags |= 1u << 20;	/* unknown */

	for (size_t i = 0; i < n; i++) {
		v[i] = (struct name_val){ .name = fz_name_ptr(&ent[i], i) };
		fz_buffer(&ent[i], i, &v[i].value_in);
		if (ent[i].reserved) {
			v[i].reserved = 1;
			any_reserved = true;
		}
	}
	fz_poison_out(v, n);
	memcpy(before, v, n * sizeof(v[0]));

	fd_before = fz_lowest_free_fd();
	errno = 0;
	ret = getvalues(fz_rootfd, origin, v, n, flags);
	err = errno;
	if (fz_lowest_free_fd() != fd_before)
		fz_fail("a descriptor was left open");

	if (ret < 0) {
		if (memcmp(before, v, n * sizeof(v[0])))
			fz_fail("failed call (errno %d) wrote the vector", err);
		if (flags & (1u << 20) || any_reserved) {
			if (err != EINVAL)
				fz_fail("unknown flag or reserved: errno %d",
					err);
		} else if (err != ENOENT && err != ENOTDIR && err != ELOOP) {
			fz_fail("call failed with errno %d", err);
		}
		return 0;
	}
	if (flags & (1u << 20) || any_reserved)
		fz_fail("unknown flag or reserved accepted");
	fz_check_walk(ent, v, n, ret, res, vals, sizeof(vals));

	/* the same vector, every shorthand written out */
	if (!fz_expand(ent, n, expanded, same))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!same[i])
			v[i].name = expanded[i];
		else
			v[i].name = before[i].name;
	for (size_t i = 0; i < n; i++)
		v[i].value_in = before[i].value_in;
	fz_poison_out(v, n);
	ret2 = getvalues(fz_rootfd, origin, v, n, flags);
	if (ret2 != ret)
		fz_fail("expanded names: return %d, with shorthand %d", ret2,
			ret);
	fz_check_walk(ent, v, n, ret2, NULL, NULL, 0);
	for (size_t i = 0; i < (size_t)ret; i++) {
		const char *x = same[i] ? "" : expanded[i];

		/*
		 * A lookup through ".." fails with EAGAIN when mounts or
		 * renames anywhere on the system kept racing with it 256
		 * times in a row (getvalues(2), ERRORS): a busy machine can
		 * give it to one call and not to the next.
		 */
		if (v[i].error == EAGAIN || res[i].error == EAGAIN)
			continue;
		if (v[i].error != res[i].error)
			fz_fail("entry %zu \"%s\": error %u, with shorthand %u",
				i, x, v[i].error, res[i].error);
		/*
		 * Times, and the free space of a file system that others
		 * write to (the scratch tree is on the shared /tmp when no
		 * private tmpfs can be mounted), may change between calls.
		 */
		if (v[i].error || strstr(x, "time") || strstr(x, "fs:bfree") ||
		    strstr(x, "fs:bavail") || strstr(x, "fs:ffree"))
			continue;
		if (v[i].value_out.iov_len != res[i].len ||
		    (res[i].off + res[i].len <= sizeof(vals) &&
		     memcmp(v[i].value_out.iov_base, vals + res[i].off,
			    res[i].len)))
			fz_fail("entry %zu \"%s\": value differs from the "
				"shorthand's", i, x);
	}
	return 0;
}
