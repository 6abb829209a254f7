// SPDX-License-Identifier: MIT
/*
 * getvalues_write.c - how getvalues() writes into the caller's memory (SPEC
 * v2, section 2.2). A value is written from the current position, at most
 * the space left: if a byte of that write faults the entry gets EFAULT,
 * otherwise a value as long as the space left or longer gets EOVERFLOW -
 * decided by the write alone. And only value_out and error are written
 * back: the vector is laid across pages so that name and value_in of an
 * entry, or its reserved field, lie in a read-only page (a write of an
 * unchanged value there would fault), and every input byte is compared
 * afterwards. Every backend.
 *
 * Written for SPEC version 2 as spec2_write.c; the case of an unwritable
 * buffer of an entry's own was harden_review.c's second (a review's proof
 * of concept).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getvalues.h>

#include "lib/backends.h"
#include "lib/tap.h"
#include "lib/util.h"

#define PAGE	4096u
#define BIG	5000		/* bytes of "big" */

static int dir_fd = -1;
static char *pages;		/* 4 pages: the buffer cases' playground */
static char big[BIG];		/* the bytes of "big"; the others begin so */

/* ---- EFAULT or EOVERFLOW ---- */

enum tail { T_NONE = PROT_NONE, T_RO = PROT_READ };

struct wcase {
	const char *what;
	const char *first;	/* an entry before, in the same buffer */
	const char *name;
	size_t good;		/* writable bytes, then a page of @tail */
	size_t len;		/* the declared length */
	enum tail tail;
	int want;		/* 0: the value; else the error */
};

static const struct wcase wcases[] = {
	{ "5000 bytes, 100 declared, 100 writable", NULL, "data:big", 100,
	  100, T_NONE, EOVERFLOW },
	{ "5000 bytes, 200 declared, 100 writable", NULL, "data:big", 100,
	  200, T_NONE, EFAULT },
	{ "150 bytes, 200 declared, 100 writable", NULL, "data:mid", 100, 200,
	  T_NONE, EFAULT },
	{ "50 bytes, 200 declared, 100 writable", NULL, "data:small", 100,
	  200, T_NONE, 0 },
	{ "100 bytes, 100 declared, 100 writable", NULL, "data:hundred", 100,
	  100, T_NONE, EOVERFLOW },
	{ "5000 bytes into 100 read-only bytes", NULL, "data:big", 0, 100,
	  T_RO, EFAULT },
	{ "5000 bytes into 100 inaccessible bytes", NULL, "data:big", 0, 100,
	  T_NONE, EFAULT },
	{ "stat:size (4 bytes) into 3 read-only bytes", NULL, "stat:size:big",
	  0, 3, T_RO, EFAULT },
	{ "stat:size (4 bytes) into 2 writable bytes", NULL, "stat:size:big",
	  2, 2, T_RO, EOVERFLOW },
	{ "a value into 0 read-only bytes: nothing to write", NULL,
	  "data:small", 0, 0, T_RO, EOVERFLOW },
	{ "after 50 bytes, 5000 more: 200 declared, 100 writable",
	  "data:small", ":big", 100, 200, T_NONE, EFAULT },
	{ "after 50 bytes, 5000 more: 100 declared, 100 writable",
	  "data:small", ":big", 100, 100, T_NONE, EOVERFLOW },
};

static void test_write(const struct t_backend *b)
{
	gv_backend_force(b->id);
	for (size_t i = 0; i < GV_ARRAY_SIZE(wcases); i++) {
		const struct wcase *c = &wcases[i];
		struct name_val v[2], *e;
		char *buf, *pos;
		int n = 0, ret, err;
		bool ok;

		/* [good bytes][a page of c->tail] */
		mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
		memset(pages, 0, 4 * PAGE);
		mprotect(pages + 2 * PAGE, PAGE, c->tail);
		buf = pages + 2 * PAGE - c->good;
		if (c->first)
			v[n++] = (struct name_val){ .name = c->first };
		v[n++] = (struct name_val){ .name = c->name };
		v[0].value_in = (struct iovec){ buf, c->len };
		errno = 0;
		ret = getvalues(dir_fd, "", v, n, AT_EMPTY_PATH);
		err = errno;
		e = &v[n - 1];
		pos = buf + (c->first ? 50 : 0);
		if (c->want == 0)
			ok = ret == n && !e->error && e->value_out.iov_base ==
			     pos && e->value_out.iov_len == 50;
		else
			ok = ret == (c->want == EOVERFLOW ? n - 1 : n) &&
			     e->error == (uint32_t)c->want &&
			     e->value_out.iov_base == pos &&
			     e->value_out.iov_len == 0;
		if (c->first && ok)
			ok = !v[0].error && v[0].value_out.iov_len == 50;
		if (!tap_ok(ok, "%s: %s: %s", b->name, c->what,
			    c->want ? strerrorname_np(c->want) : "the value"))
			tap_diag("   returned %d (%s), the entry: %s", ret,
				 ret < 0 ? strerrorname_np(err) : "-",
				 t_got(ret < 0 ? ret : 1, err, e));
	}
	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
}

/*
 * Five entries with buffers of their own; entry 2's is 8 read-only bytes,
 * and its value is longer: it overflows a buffer that cannot be written,
 * which is EFAULT on every backend, and the other entries hold their
 * values. (A review found io_uring saying EOVERFLOW without the write
 * that decides; fixed by 8a390bc.)
 */
static void test_own_buffers(const struct t_backend *b)
{
	static const char *const names[5] = {
		"data:small", "data:mid", "data:big", "data:hundred",
		"data:small",
	};
	static const size_t lens[5] = { 50, 150, BIG, 100, 50 };
	static char ok[5][BIG];
	struct name_val v[5];
	bool others = true;
	int r, err;

	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
	for (int i = 0; i < 5; i++)
		v[i] = (struct name_val){
			.name = names[i],
			.value_in = { ok[i], sizeof(ok[i]) },
		};
	v[2].value_in = (struct iovec){ pages + 3 * PAGE, 8 };
	mprotect(pages + 3 * PAGE, PAGE, PROT_READ);
	gv_backend_force(b->id);
	errno = 0;
	r = getvalues(dir_fd, "", v, 5, AT_EMPTY_PATH);
	err = errno;
	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
	if (!tap_ok(r == 5 && v[2].error == EFAULT, "%s: a value that "
		    "overflows a buffer of its own that cannot be written is "
		    "EFAULT", b->name))
		tap_diag("   returned %d; entry 2: %s", r, t_got(r, err, &v[2]));
	for (int i = 0; i < 5; i++)
		if (i != 2 && !t_is(r > i, &v[i], big, lens[i]))
			others = false;
	tap_ok(others, "%s: the other entries hold their values", b->name);
}

/* ---- only value_out and error are written ---- */

#define NE 5

struct snap {
	struct name_val v[NE];
};

static const char *const wb_names[NE] = {
	"data:small", ":mid", "stat:size:big", "data:nope", "data:small",
};

/* Every input field of @v is what @s holds. */
static bool inputs_intact(const struct name_val *v, const struct snap *s,
			  int n)
{
	for (int i = 0; i < n; i++)
		if (v[i].name != s->v[i].name ||
		    v[i].value_in.iov_base != s->v[i].value_in.iov_base ||
		    v[i].value_in.iov_len != s->v[i].value_in.iov_len ||
		    v[i].reserved != s->v[i].reserved)
			return false;
	return true;
}

/*
 * The wb_names entries with entry 0's name and value_in alone in a
 * read-only page (the rest of the vector in the next, writable one):
 * entry 0 has a buffer of @len0 bytes, entry 3 one of its own. A copy of
 * every entry as it was goes to @s.
 */
static struct name_val *lay_vector(char buf[2][4096], size_t len0,
				   struct snap *s)
{
	struct name_val *v = (struct name_val *)(pages + PAGE -
				offsetof(struct name_val, value_out));

	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
	memset(pages, 0, 4 * PAGE);
	for (int i = 0; i < NE; i++)
		v[i] = (struct name_val){ .name = wb_names[i],
					  .value_out = { (void *)9, 9 },
					  .error = 9 };
	v[0].value_in = (struct iovec){ buf[0], len0 };
	v[3].value_in = (struct iovec){ buf[1], 4096 };
	memcpy(s->v, v, sizeof(s->v));
	mprotect(pages, PAGE, PROT_READ);
	return v;
}

static void test_writeback(const struct t_backend *b)
{
	static char buf[2][4096];
	struct name_val *v;
	struct snap s;
	int ret, err;

	gv_backend_force(b->id);

	/* vec[0].name and .value_in in a read-only page, the rest not */
	v = lay_vector(buf, sizeof(buf[0]), &s);
	errno = 0;
	ret = getvalues(dir_fd, "", v, NE, AT_EMPTY_PATH);
	err = errno;
	if (!tap_ok(ret == NE,
		    "%s: name and value_in of entry 0 in a read-only page: the "
		    "call succeeds", b->name))
		tap_diag("   returned %d (%s)", ret,
			 ret < 0 ? strerrorname_np(err) : "-");
	tap_ok(ret == NE && !v[0].error && v[0].value_out.iov_len == 50 &&
	       !v[1].error && v[1].value_out.iov_len == 150 && !v[2].error &&
	       v[3].error == ENOENT && !v[4].error,
	       "%s: ... with every value and error in place", b->name);
	tap_ok(inputs_intact(v, &s, NE), "%s: ... and every name, value_in "
	       "and reserved as it was", b->name);

	/*
	 * vec[0].reserved alone in a read-only page. A page boundary is 8
	 * bytes aligned and reserved is at 44, so this entry is not: it is
	 * built and read back with memcpy(), never through the struct, as
	 * a system call would take it (the kernel asks no alignment).
	 */
	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
	memset(pages, 0, 4 * PAGE);
	{
		char *at = pages + 2 * PAGE - offsetof(struct name_val, reserved);
		struct name_val e = {
			.name = "data:small",
			.value_in = { buf[0], sizeof(buf[0]) },
			.value_out = { (void *)9, 9 }, .error = 9,
		};

		memcpy(at, &e, sizeof(e));
		s.v[0] = e;
		mprotect(pages + 2 * PAGE, PAGE, PROT_READ);
		errno = 0;
		ret = getvalues(dir_fd, "", (struct name_val *)(void *)at, 1,
				AT_EMPTY_PATH);
		err = errno;
		memcpy(&e, at, sizeof(e));
		if (!tap_ok(ret == 1 && !e.error && e.value_out.iov_base ==
			    buf[0] && e.value_out.iov_len == 50 &&
			    inputs_intact(&e, &s, 1), "%s: reserved of the "
			    "entry in a read-only page: the value, and the "
			    "inputs intact", b->name))
			tap_diag("   returned %d (%s)", ret,
				 ret < 0 ? strerrorname_np(err) : "-");
	}

	/* an overflow stops the call: the entries after it untouched */
	v = lay_vector(buf, 100, &s);	/* :mid overflows */
	errno = 0;
	ret = getvalues(dir_fd, "", v, NE, AT_EMPTY_PATH);
	err = errno;
	if (!tap_ok(ret == 1 && !v[0].error && v[1].error == EOVERFLOW &&
		    inputs_intact(v, &s, NE) &&
		    !memcmp(&v[2], &s.v[2], 3 * sizeof(v[0])),
		    "%s: an overflow at entry 1, entry 0's inputs read-only: "
		    "returns 1, entries 2.. untouched, inputs intact", b->name))
		tap_diag("   returned %d (%s)", ret,
			 ret < 0 ? strerrorname_np(err) : "-");
	mprotect(pages, 4 * PAGE, PROT_READ | PROT_WRITE);
}

int main(void)
{
	struct t_backend bs[4];
	int n;

	alarm(300);
	dir_fd = t_tmpdir_fd("write2");
	t_fill_pattern(big, sizeof(big), 5);
	if (t_write_file(dir_fd, "big", big, BIG, 0644) ||
	    t_write_file(dir_fd, "mid", big, 150, 0644) ||
	    t_write_file(dir_fd, "hundred", big, 100, 0644) ||
	    t_write_file(dir_fd, "small", big, 50, 0644))
		tap_bail("setup: %s", strerror(errno));
	pages = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));

	n = t_backends(bs, GV_ARRAY_SIZE(wcases) + 2 + 5);
	for (int i = 0; i < n; i++) {
		test_write(&bs[i]);
		test_own_buffers(&bs[i]);
		test_writeback(&bs[i]);
	}
	munmap(pages, 4 * PAGE);
	close(dir_fd);
	return tap_done();
}
