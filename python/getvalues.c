// SPDX-License-Identifier: MIT
/*
 * getvalues.c - the Python module getvalues: readfile() and getvalues() of
 * libgetvalues for CPython 3, with the constants their flags take.
 *
 *   getvalues.readfile(path, *, dir_fd=None, size=None, flags=0) -> bytes
 *   getvalues.getvalues(path, names, *, dir_fd=None, flags=0, typed=False,
 *                       max_size=None) -> list
 *   getvalues.process_table(attrs=None, ad_value=None, *, threads=0)
 *       -> list of dict
 *   getvalues.process_iter(attrs=None, ad_value=None, *, threads=0)
 *       -> iterator
 *
 * The last two, psutil's process table from a few getvalues() calls, are
 * in proctable*.c.
 *
 * Paths are str (encoded as os.fsencode() does), bytes or path-like
 * objects; names are str or bytes. The calls run without the GIL. A call
 * that a signal interrupts is made again once the signal's handler has
 * run, unless the handler raised (PEP 475). Errors of the call itself
 * raise OSError (its subclasses, as os.open() raises them); an entry of
 * getvalues() that fails is an OSError instance in the list, not raised, so
 * that one missing file does not hide the other values.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <getvalues.h>

#include "proctable_py.h"

/* readfile() without a size: the first buffer, then four times as much. */
#define READ_FIRST	4096

/* The flags readfile(3) takes; any other bit is EINVAL. */
#define READFILE_FLAGS	(O_NOFOLLOW | O_NOATIME)

/* The longest name with its shorthand written out: prefix and name. */
#define EXPANDED_MAX	(2 * 255 + 32)

/* dir_fd=None or an int, as the os module takes it. */
static int dir_fd_converter(PyObject *o, void *p)
{
	int *fd = p;
	long v;

	if (o == Py_None) {
		*fd = AT_FDCWD;
		return 1;
	}
	v = PyLong_AsLong(o);
	if (v == -1 && PyErr_Occurred())
		return 0;
	if (v < INT_MIN || v > INT_MAX) {
		PyErr_SetString(PyExc_OverflowError, "dir_fd out of range");
		return 0;
	}
	*fd = (int)v;
	return 1;
}

/* getvalues()'s flags: an int that fits an unsigned int, never truncated. */
static int uint_flags_converter(PyObject *o, void *p)
{
	unsigned int *flags = p;
	unsigned long v;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "flags must be an int, not %.100s",
			     Py_TYPE(o)->tp_name);
		return 0;
	}
	v = PyLong_AsUnsignedLong(o);
	if (v == (unsigned long)-1 && PyErr_Occurred())
		return 0;
	if (v > UINT_MAX) {
		PyErr_SetString(PyExc_OverflowError,
				"flags is greater than the largest unsigned int");
		return 0;
	}
	*flags = (unsigned int)v;
	return 1;
}

/* max_size=None (the library's limit) or a positive int of bytes. */
static int max_size_converter(PyObject *o, void *p)
{
	size_t *size = p;
	Py_ssize_t v;

	if (o == Py_None)
		return 1;
	v = PyLong_AsSsize_t(o);
	if (v == -1 && PyErr_Occurred())
		return 0;
	if (v <= 0) {
		PyErr_SetString(PyExc_ValueError, "max_size must be positive");
		return 0;
	}
	*size = (size_t)v;
	return 1;
}

/* An OSError (or the subclass for @err) for @filename, not raised. */
static PyObject *os_error(int err, PyObject *filename)
{
	return PyObject_CallFunction(PyExc_OSError, "isO", err, strerror(err),
				     filename);
}

/*
 * After a system call failed with errno EINTR: run the signal handlers.
 * True when the call is to be made again, false when a handler raised.
 */
static bool retry_after_signal(void)
{
	return PyErr_CheckSignals() == 0;
}

/*
 * The next size of the buffer of read_whole(), which @got bytes filled: the
 * size of a regular file, plus one byte to see its end, else four times as
 * much. 0 when that would not fit in a Py_ssize_t.
 */
static Py_ssize_t next_size(int fd, Py_ssize_t got)
{
	struct stat st;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size >= got &&
	    st.st_size < PY_SSIZE_T_MAX)
		return (Py_ssize_t)st.st_size + 1;
	return got > PY_SSIZE_T_MAX / 4 ? 0 : got * 4;
}

/*
 * Read the whole file at @path through one open file, as open().read()
 * does: a pipe or a FIFO cannot be read a second time, so a full first
 * buffer is grown and the same file read on, until end of file. The
 * library's readfile() reads one buffer and closes the file; until the
 * library has a call that reads a whole file, this is readfile()'s open,
 * read and close, with its flags, here.
 */
static PyObject *read_whole(int dfd, const char *path, int flags)
{
	Py_ssize_t size = READ_FIRST, got = 0, n = 0;
	PyObject *bytes = NULL;
	int fd, err = 0;

	if (flags & ~READFILE_FLAGS) {
		errno = EINVAL;
		return NULL;
	}
	do {
		Py_BEGIN_ALLOW_THREADS
		fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
		Py_END_ALLOW_THREADS
	} while (fd < 0 && errno == EINTR && retry_after_signal());
	if (fd < 0)
		return NULL;
	bytes = PyBytes_FromStringAndSize(NULL, size);
	while (bytes) {
		if (got == size) {
			size = next_size(fd, got);
			if (!size || _PyBytes_Resize(&bytes, size)) {
				if (!size)
					PyErr_NoMemory();
				break;	/* _PyBytes_Resize() freed it */
			}
		}
		Py_BEGIN_ALLOW_THREADS
		n = read(fd, PyBytes_AS_STRING(bytes) + got, size - got);
		err = errno;
		Py_END_ALLOW_THREADS
		if (n > 0) {
			got += n;
		} else if (!n) {
			if (_PyBytes_Resize(&bytes, got))
				bytes = NULL;
			break;
		} else if (err != EINTR || !retry_after_signal()) {
			Py_CLEAR(bytes);
			break;
		}
	}
	close(fd);
	errno = err;
	return bytes;
}

/*
 * At most @size bytes of the file at @path: one readfile(3), made again
 * when a signal interrupted it before it read anything.
 */
static PyObject *read_sized(int dfd, const char *path, Py_ssize_t size,
			    int flags)
{
	PyObject *bytes = PyBytes_FromStringAndSize(NULL, size);
	ssize_t n;

	if (!bytes)
		return NULL;
	do {
		Py_BEGIN_ALLOW_THREADS
		n = getvalues_readfile(dfd, path, PyBytes_AS_STRING(bytes),
				       (size_t)size, flags);
		Py_END_ALLOW_THREADS
	} while (n < 0 && errno == EINTR && retry_after_signal());
	if (n < 0) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (n < size && _PyBytes_Resize(&bytes, n))
		return NULL;
	return bytes;
}

PyDoc_STRVAR(readfile_doc,
"readfile($module, /, path, *, dir_fd=None, size=None, flags=0)\n--\n\n"
"Open, read and close the file at path in one call (readfile(3)).\n\n"
"path is relative to dir_fd as for os.open(). Without size the whole\n"
"file is read through one open file, as open(path, 'rb').read() reads\n"
"it: pipes, FIFOs and /proc files too. With size, at most size bytes\n"
"(one readfile(3); the rest of a pipe is not read). flags may hold\n"
"O_NOFOLLOW and O_NOATIME. Raises OSError as open() and read() would.\n"
"Opening a FIFO waits for a writer, as open() does.");

static PyObject *gv_py_readfile(PyObject *self, PyObject *args,
				PyObject *kwargs)
{
	static char *kwlist[] = { "path", "dir_fd", "size", "flags", NULL };
	PyObject *path_arg, *path = NULL, *size_obj = Py_None, *bytes;
	int dfd = AT_FDCWD, flags = 0;
	Py_ssize_t size = 0;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$O&Oi", kwlist,
					 &path_arg, dir_fd_converter, &dfd,
					 &size_obj, &flags) ||
	    !PyUnicode_FSConverter(path_arg, &path))
		return NULL;
	if (size_obj != Py_None) {
		size = PyLong_AsSsize_t(size_obj);
		if (size == -1 && PyErr_Occurred())
			goto fail;
		if (size < 0) {
			PyErr_SetString(PyExc_ValueError,
					"size must not be negative");
			goto fail;
		}
	}
	if (size_obj == Py_None)
		bytes = read_whole(dfd, PyBytes_AS_STRING(path), flags);
	else
		bytes = read_sized(dfd, PyBytes_AS_STRING(path), size, flags);
	if (!bytes && !PyErr_Occurred())
		PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_arg);
	Py_DECREF(path);
	return bytes;
fail:
	Py_DECREF(path);
	return NULL;
}

/*
 * @names (a tuple, the caller's copy of what it was given) as a tuple of
 * bytes objects, one per name.
 */
static PyObject *names_as_bytes(PyObject *names)
{
	Py_ssize_t n = PyTuple_GET_SIZE(names);
	PyObject *out = PyTuple_New(n);

	for (Py_ssize_t i = 0; out && i < n; i++) {
		PyObject *item = PyTuple_GET_ITEM(names, i), *b = NULL;

		if (PyUnicode_Check(item) || PyBytes_Check(item)) {
			if (!PyUnicode_FSConverter(item, &b))
				b = NULL;
		} else {
			PyErr_Format(PyExc_TypeError, "names[%zd] must be str "
				     "or bytes, not %.100s", i,
				     Py_TYPE(item)->tp_name);
		}
		if (!b) {
			Py_CLEAR(out);
			break;
		}
		PyTuple_SET_ITEM(out, i, b);
	}
	return out;
}

/*
 * A tuple of the names the caller gave: a copy that holds a reference to
 * each, so that another thread that changes the caller's list while the
 * call runs without the GIL changes nothing here. A str or bytes object is
 * one name, not a list of them: TypeError.
 */
static PyObject *names_tuple(PyObject *names)
{
	PyObject *tuple;

	if (PyUnicode_Check(names) || PyBytes_Check(names) ||
	    PyByteArray_Check(names)) {
		PyErr_Format(PyExc_TypeError, "names must be a list of str or "
			     "bytes, not a single %.100s", Py_TYPE(names)->tp_name);
		return NULL;
	}
	tuple = PySequence_Tuple(names);
	if (!tuple && PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "names must be a list of str or "
			     "bytes, not %.100s", Py_TYPE(names)->tp_name);
	}
	return tuple;
}

/* What a value is, from the group and field of its name. */
enum value_kind {
	V_BYTES,	/* raw bytes: contents, strings, words */
	V_LIST,		/* items each followed by a NUL byte */
	V_DEC,		/* decimal */
	V_OCT,		/* octal (stat:mode) */
	V_HEX,		/* 0x... (fs:type) */
	V_DEV,		/* major:minor */
	V_TIME,		/* seconds.nanoseconds */
};

static const struct field_kind {
	const char *name;
	enum value_kind kind;
} stat_kinds[] = {
	{ "mode", V_OCT }, { "nlink", V_DEC }, { "uid", V_DEC },
	{ "gid", V_DEC }, { "size", V_DEC }, { "blocks", V_DEC },
	{ "blksize", V_DEC }, { "ino", V_DEC }, { "dev", V_DEV },
	{ "rdev", V_DEV }, { "atime", V_TIME }, { "mtime", V_TIME },
	{ "ctime", V_TIME }, { "btime", V_TIME }, { "mntid", V_DEC },
	{ NULL, V_BYTES },
}, fs_kinds[] = {
	{ "type", V_HEX }, { "bsize", V_DEC }, { "frsize", V_DEC },
	{ "blocks", V_DEC }, { "bfree", V_DEC }, { "bavail", V_DEC },
	{ "files", V_DEC }, { "ffree", V_DEC }, { "namelen", V_DEC },
	{ NULL, V_BYTES },
};

static enum value_kind field_kind(const struct field_kind *t, const char *f,
				  size_t len)
{
	for (; t->name; t++)
		if (strlen(t->name) == len && !memcmp(t->name, f, len))
			return t->kind;
	return V_BYTES;
}

/* The kind of the value of @name, written out (no shorthand). */
static enum value_kind expanded_kind(const char *name)
{
	const char *colon = strchr(name, ':'), *rest;
	size_t glen;

	if (!colon)
		return V_LIST;		/* "": the groups; GROUP: its names */
	glen = colon - name;
	rest = colon + 1;
	if (glen == 5 && !memcmp(name, "mntns", 5))
		return *rest && !strchr(rest, ':') ? V_LIST : V_BYTES;
	if (glen == 3 && !memcmp(name, "dir", 3))
		return V_LIST;
	if ((glen == 4 && !memcmp(name, "stat", 4)) ||
	    (glen == 5 && !memcmp(name, "lstat", 5)))
		return field_kind(stat_kinds, rest, strcspn(rest, ":"));
	if (glen == 2 && !memcmp(name, "fs", 2))
		return field_kind(fs_kinds, rest, strlen(rest));
	return V_BYTES;
}

/*
 * The kind of the value of each entry of @vec, into @kinds: from its name
 * with the shorthand written out by the library's own grammar.
 */
static void value_kinds(const struct name_val *vec, Py_ssize_t n,
			enum value_kind *kinds)
{
	char names[2][EXPANDED_MAX];
	const char *prev = NULL;
	ssize_t len;

	for (Py_ssize_t i = 0; i < n; i++) {
		char *full = names[i & 1];

		len = getvalues_expand_name(prev, vec[i].name, full,
					    sizeof(names[0]));
		if (len < 0 || (size_t)len >= sizeof(names[0])) {
			kinds[i] = V_BYTES;	/* an error for that entry */
			prev = NULL;
			continue;
		}
		kinds[i] = expanded_kind(full);
		prev = full;
	}
}

/* A list value as a list of names: str (os.fsdecode()) if @as_str. */
static PyObject *list_object(const char *p, size_t len, bool as_str)
{
	PyObject *list = PyList_New(0), *item;
	const char *end = p + len, *nul;

	for (; list && p < end; p = nul + 1) {
		nul = memchr(p, '\0', end - p);
		if (!nul)
			nul = end;	/* never: every item ends with a NUL */
		item = as_str ? PyUnicode_DecodeFSDefaultAndSize(p, nul - p) :
				PyBytes_FromStringAndSize(p, nul - p);
		if (!item || PyList_Append(list, item))
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	return list;
}

/* seconds.nanoseconds as an int of nanoseconds, as os.stat()'s st_*_ns. */
static PyObject *time_ns_object(char *text)
{
	PyObject *sec, *ns, *scaled, *billion, *total = NULL;
	char *dot = strchr(text, '.');

	if (!dot)
		return NULL;
	*dot = '\0';
	sec = PyLong_FromString(text, NULL, 10);
	ns = sec ? PyLong_FromString(dot + 1, NULL, 10) : NULL;
	billion = ns ? PyLong_FromLong(1000000000L) : NULL;
	scaled = billion ? PyNumber_Multiply(sec, billion) : NULL;
	if (scaled)
		total = PyNumber_Add(scaled, ns);
	Py_XDECREF(scaled);
	Py_XDECREF(billion);
	Py_XDECREF(ns);
	Py_XDECREF(sec);
	return total;
}

/* A number value as an int, or None when empty (not applicable). */
static PyObject *number_object(const char *p, size_t len, enum value_kind k)
{
	unsigned int major, minor;
	char text[64], end;

	if (!len)
		Py_RETURN_NONE;
	if (len >= sizeof(text) || memchr(p, '\0', len))
		return NULL;
	memcpy(text, p, len);
	text[len] = '\0';
	switch (k) {
	case V_DEC:
		return PyLong_FromString(text, NULL, 10);
	case V_OCT:
		return PyLong_FromString(text, NULL, 8);
	case V_HEX:
		return PyLong_FromString(text, NULL, 16);
	case V_DEV:
		if (sscanf(text, "%u:%u%c", &major, &minor, &end) != 2)
			return NULL;
		return PyLong_FromUnsignedLongLong(makedev(major, minor));
	case V_TIME:
		return time_ns_object(text);
	default:
		return NULL;
	}
}

/* What getvalues() returns for the value of one entry. */
static PyObject *value_object(const struct iovec *v, enum value_kind k,
			      bool typed, bool str_names)
{
	PyObject *o;

	if (k == V_LIST)
		return list_object(v->iov_base, v->iov_len, str_names);
	if (typed && k != V_BYTES) {
		o = number_object(v->iov_base, v->iov_len, k);
		if (o)
			return o;
		/* not a number after all: the bytes, as without typed */
		if (PyErr_Occurred() &&
		    !PyErr_ExceptionMatches(PyExc_ValueError))
			return NULL;
		PyErr_Clear();
	}
	return PyBytes_FromStringAndSize(v->iov_base, (Py_ssize_t)v->iov_len);
}

/*
 * The list getvalues() returns: one object per entry of @vec, in the order
 * of @names (the caller's names, for the errors' filename).
 */
static PyObject *values_list(const struct name_val *vec, PyObject *names,
			     bool typed, bool str_names)
{
	Py_ssize_t n = PyTuple_GET_SIZE(names);
	enum value_kind *kinds = PyMem_Calloc(n ? n : 1, sizeof(*kinds));
	PyObject *out = kinds ? PyList_New(n) : PyErr_NoMemory();

	if (out)
		value_kinds(vec, n, kinds);
	for (Py_ssize_t i = 0; out && i < n; i++) {
		PyObject *v;

		if (vec[i].error)
			v = os_error((int)vec[i].error,
				     PyTuple_GET_ITEM(names, i));
		else
			v = value_object(&vec[i].value_out, kinds[i], typed,
					 str_names);
		if (!v) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, i, v);
	}
	PyMem_Free(kinds);
	return out;
}

/*
 * Every entry of @vec, its value in *@buf (to be freed by the caller): a
 * value too large even for @max_size bytes fails alone (EOVERFLOW) and the
 * call goes on (getvalues_alloc_each(3)). -1 with errno when the call
 * itself fails, and when a signal's handler raised.
 */
static int fetch_all(int dfd, const char *path, struct name_val *vec,
		     Py_ssize_t n, unsigned int flags, size_t max_size,
		     void **buf)
{
	int got;

	do {
		Py_BEGIN_ALLOW_THREADS
		got = getvalues_alloc_each(dfd, path, vec, n, flags, max_size,
					   buf);
		Py_END_ALLOW_THREADS
	} while (got < 0 && errno == EINTR && retry_after_signal());
	return got < 0 ? -1 : 0;
}

PyDoc_STRVAR(getvalues_doc,
"getvalues($module, /, path, names, *, dir_fd=None, flags=0, typed=False,\n"
"          max_size=None)\n--\n\n"
"Fetch many named values about the object at path in one call.\n\n"
"names is a list (any iterable) of str or bytes, such as 'stat:size',\n"
"'data:status', ':cmdline' (the previous entry's prefix),\n"
"'mnt:mountpoint', 'dir:' (getvalues(3)); a single str is a TypeError.\n"
"Returns one item per name, in order: an OSError for a name that failed\n"
"(not raised), else its value:\n"
"- a list of names for a listing: 'dir:...', 'xattr', 'mntns',\n"
"  'mntns:ID', a group's fields ('stat') and the groups (''). Each name is\n"
"  str (decoded as os.fsdecode() does) when path is a str or a str path\n"
"  object, bytes when path is bytes, as os.listdir() gives them;\n"
"- an int with typed=True for the numeric fields of stat:, lstat: and\n"
"  fs: (None when the value is empty, as btime of a file system without\n"
"  one): nlink uid gid size blocks blksize ino mntid as they are, mode as\n"
"  stat.S_IMODE() gives it (from octal), dev and rdev as os.makedev(),\n"
"  atime mtime ctime btime in nanoseconds as os.stat()'s st_mtime_ns,\n"
"  fs:type (from hex) bsize frsize blocks bfree bavail files ffree\n"
"  namelen;\n"
"- bytes for everything else (file contents, strings, stat:type,\n"
"  fs:flags, and the numbers without typed: b'4096').\n"
"A value that needs max_size bytes or more (default: the library's\n"
"limit, 256 MiB) is an OSError(EOVERFLOW) for its name alone.\n"
"flags may hold AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH and AT_NO_AUTOMOUNT.\n"
"Raises OSError when the call itself fails (path not found, bad flags).");

static PyObject *gv_py_getvalues(PyObject *self, PyObject *args,
				 PyObject *kwargs)
{
	static char *kwlist[] = { "path", "names", "dir_fd", "flags", "typed",
				  "max_size", NULL };
	PyObject *path_arg, *path = NULL, *names_arg, *names = NULL;
	PyObject *bnames = NULL, *fspath, *out = NULL;
	struct name_val *vec = NULL;
	int dfd = AT_FDCWD, typed = 0;
	unsigned int flags = 0;
	size_t max_size = 0;
	void *buf = NULL;
	Py_ssize_t n;
	bool str_names;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O&O&pO&", kwlist,
					 &path_arg, &names_arg,
					 dir_fd_converter, &dfd,
					 uint_flags_converter, &flags, &typed,
					 max_size_converter, &max_size))
		return NULL;
	fspath = PyOS_FSPath(path_arg);
	if (!fspath)
		return NULL;
	str_names = PyUnicode_Check(fspath);
	Py_DECREF(fspath);
	if (!PyUnicode_FSConverter(path_arg, &path))
		return NULL;
	names = names_tuple(names_arg);
	bnames = names ? names_as_bytes(names) : NULL;
	if (!bnames)
		goto out;
	n = PyTuple_GET_SIZE(bnames);
	vec = PyMem_Calloc(n ? n : 1, sizeof(*vec));
	if (!vec) {
		PyErr_NoMemory();
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		vec[i].name = PyBytes_AS_STRING(PyTuple_GET_ITEM(bnames, i));
	if (fetch_all(dfd, PyBytes_AS_STRING(path), vec, n, flags, max_size,
		      &buf)) {
		if (!PyErr_Occurred())
			PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError,
							     path_arg);
		goto out;
	}
	out = values_list(vec, names, typed, str_names);
out:
	free(buf);
	PyMem_Free(vec);
	Py_XDECREF(bnames);
	Py_XDECREF(names);
	Py_DECREF(path);
	return out;
}

static PyMethodDef gv_py_methods[] = {
	{ "readfile", (PyCFunction)(void (*)(void))gv_py_readfile,
	  METH_VARARGS | METH_KEYWORDS, readfile_doc },
	{ "getvalues", (PyCFunction)(void (*)(void))gv_py_getvalues,
	  METH_VARARGS | METH_KEYWORDS, getvalues_doc },
	{ "process_table", (PyCFunction)(void (*)(void))gv_py_process_table,
	  METH_VARARGS | METH_KEYWORDS, gv_process_table_doc },
	{ "process_iter", (PyCFunction)(void (*)(void))gv_py_process_iter,
	  METH_VARARGS | METH_KEYWORDS, gv_process_iter_doc },
	{ NULL, NULL, 0, NULL },
};

static int gv_py_exec(PyObject *m)
{
	static const struct {
		const char *name;
		long value;
	} consts[] = {
		{ "O_NOFOLLOW", O_NOFOLLOW },
		{ "O_NOATIME", O_NOATIME },
		{ "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW },
		{ "AT_EMPTY_PATH", AT_EMPTY_PATH },
		{ "AT_NO_AUTOMOUNT", AT_NO_AUTOMOUNT },
		{ "AT_FDCWD", AT_FDCWD },
	};
	char version[32];

	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value))
			return -1;
	if (gv_proctable_exec(m))
		return -1;
	snprintf(version, sizeof(version), "%d.%d.%d", GETVALUES_VERSION_MAJOR,
		 GETVALUES_VERSION_MINOR, GETVALUES_VERSION_PATCH);
	return PyModule_AddStringConstant(m, "__version__", version);
}

static PyModuleDef_Slot gv_py_slots[] = {
	{ Py_mod_exec, (void *)gv_py_exec },
	{ 0, NULL },
};

PyDoc_STRVAR(module_doc,
"readfile() and getvalues(): many small values about files and mounts in\n"
"one call, from libgetvalues (see readfile(3), getvalues(3)).");

static struct PyModuleDef gv_py_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "getvalues",
	.m_doc = module_doc,
	.m_size = 0,
	.m_methods = gv_py_methods,
	.m_slots = gv_py_slots,
};

PyMODINIT_FUNC PyInit_getvalues(void);
PyMODINIT_FUNC PyInit_getvalues(void)
{
	return PyModuleDef_Init(&gv_py_module);
}
