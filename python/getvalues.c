// SPDX-License-Identifier: MIT
/*
 * getvalues.c - the Python module getvalues: readfile() and getvalues() of
 * libgetvalues for CPython 3, with the constants their flags take.
 *
 *   getvalues.readfile(path, *, dir_fd=None, size=None, flags=0) -> bytes
 *   getvalues.getvalues(path, names, *, dir_fd=None, flags=0) -> list
 *
 * Paths and names are str (encoded as os.fsencode() does), bytes or path-like
 * objects. The calls run without the GIL. A call that a signal interrupts
 * is made again once the signal's handler has run, unless the handler
 * raised (PEP 475). Errors of the call itself raise OSError (its
 * subclasses, as os.open() raises them); an entry of
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
#include <unistd.h>

#include <getvalues.h>

/* readfile() without a size: the first buffer, then four times as much. */
#define READ_FIRST	4096

/* The flags readfile(3) takes; any other bit is EINVAL. */
#define READFILE_FLAGS	(O_NOFOLLOW | O_NOATIME)

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
"readfile(path, *, dir_fd=None, size=None, flags=0) -> bytes\n\n"
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
 * call runs without the GIL changes nothing here.
 */
static PyObject *names_tuple(PyObject *names)
{
	PyObject *tuple = PySequence_Tuple(names);

	if (!tuple && PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "names must be a list of str or "
			     "bytes, not %.100s", Py_TYPE(names)->tp_name);
	}
	return tuple;
}

PyDoc_STRVAR(getvalues_doc,
"getvalues(path, names, *, dir_fd=None, flags=0) -> list\n\n"
"Fetch many named values about the object at path in one call\n"
"(getvalues(3)): names such as 'stat:size', 'data:status', ':cmdline'\n"
"(the previous entry's prefix), 'mnt:mountpoint', 'dir:'. Returns one\n"
"item per name: the value as bytes, or an OSError for that name (not\n"
"raised). flags may hold AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH and\n"
"AT_NO_AUTOMOUNT. Raises OSError when the call itself fails (path not\n"
"found, bad flags).");

static PyObject *gv_py_getvalues(PyObject *self, PyObject *args,
				 PyObject *kwargs)
{
	static char *kwlist[] = { "path", "names", "dir_fd", "flags", NULL };
	PyObject *path_arg, *path = NULL, *names_arg, *names = NULL;
	PyObject *bnames = NULL, *out = NULL;
	struct name_val *vec = NULL;
	int dfd = AT_FDCWD, got = 0;
	unsigned int flags = 0;
	void **bufs = NULL;
	Py_ssize_t n, start = 0, nbufs = 0;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O&O&", kwlist,
					 &path_arg, &names_arg,
					 dir_fd_converter, &dfd,
					 uint_flags_converter, &flags) ||
	    !PyUnicode_FSConverter(path_arg, &path))
		return NULL;
	names = names_tuple(names_arg);
	bnames = names ? names_as_bytes(names) : NULL;
	if (!bnames)
		goto out;
	n = PyTuple_GET_SIZE(bnames);
	vec = PyMem_Calloc(n ? n : 1, sizeof(*vec));
	bufs = PyMem_Calloc(n ? n : 1, sizeof(*bufs));
	if (!vec || !bufs) {
		PyErr_NoMemory();
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		vec[i].name = PyBytes_AS_STRING(PyTuple_GET_ITEM(bnames, i));
	/*
	 * One call normally. A value too large even for the library's limit
	 * fails alone (EOVERFLOW) and the names after it come from another
	 * call, as in getvalues(1).
	 */
	do {
		const char *p = PyBytes_AS_STRING(path);
		void *buf = NULL;

		Py_BEGIN_ALLOW_THREADS
		got = getvalues_alloc(dfd, p, vec + start, n - start, flags, 0,
				      &buf);
		Py_END_ALLOW_THREADS
		if (got < 0 && errno == EINTR && retry_after_signal())
			continue;
		if (got < 0) {
			if (!PyErr_Occurred())
				PyErr_SetFromErrnoWithFilenameObject(
					PyExc_OSError, path_arg);
			goto out;
		}
		bufs[nbufs++] = buf;
		start += got + (start + got < n);	/* past the overflow */
	} while (start < n);

	out = PyList_New(n);
	for (Py_ssize_t i = 0; out && i < n; i++) {
		PyObject *v;

		if (vec[i].error)
			v = os_error((int)vec[i].error,
				     PyTuple_GET_ITEM(names, i));
		else
			v = PyBytes_FromStringAndSize(
				vec[i].value_out.iov_base,
				(Py_ssize_t)vec[i].value_out.iov_len);
		if (!v) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, i, v);
	}
out:
	for (Py_ssize_t i = 0; bufs && i < nbufs; i++)
		free(bufs[i]);
	PyMem_Free(bufs);
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
