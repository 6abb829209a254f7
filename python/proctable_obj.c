// SPDX-License-Identifier: MIT
/*
 * proctable_obj.c - the Python objects of a process table: one per value,
 * of psutil's types (its own namedtuples when psutil can be imported,
 * else namedtuples of the same names and fields), made from the numbers
 * proctable_fetch.c parsed, with the GIL held.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "proctable.h"
#include "proctable_py.h"

struct pt_types pt_types;

/*
 * Whether @t, what psutil's module holds under a type's name, is a type the
 * values can be made of: a type (not a Mock, a function, a list that a
 * program or unittest.mock.patch put there), a subtype of tuple, which
 * tuple.__new__() and a tuple's allocation need, whose _fields are @fields.
 */
static bool usable_type(PyObject *t, const char *fields)
{
	PyObject *have, *sep, *joined = NULL;
	bool eq;

	if (!PyType_Check(t) ||
	    !PyType_IsSubtype((PyTypeObject *)t, &PyTuple_Type))
		return false;
	have = PyObject_GetAttrString(t, "_fields");
	sep = have && PyTuple_CheckExact(have) ? PyUnicode_FromString(" ")
					      : NULL;
	if (sep)
		joined = PyUnicode_Join(sep, have);
	eq = joined && !PyUnicode_CompareWithASCIIString(joined, fields);
	Py_XDECREF(joined);
	Py_XDECREF(sep);
	Py_XDECREF(have);
	PyErr_Clear();
	return eq;
}

/*
 * psutil's namedtuple @name of module @mod where it is a usable type, else
 * one made like it (the same name and fields) by collections.namedtuple().
 */
static PyObject *nt_type(PyObject *mod, const char *name, const char *fields)
{
	PyObject *t = mod ? PyObject_GetAttrString(mod, name) : NULL;
	PyObject *coll;

	if (t && usable_type(t, fields))
		return t;
	Py_XDECREF(t);
	PyErr_Clear();
	coll = PyImport_ImportModule("collections");
	if (!coll)
		return NULL;
	t = PyObject_CallMethod(coll, "namedtuple", "ss", name, fields);
	Py_DECREF(coll);
	return t;
}

/*
 * psutil's IOPriority (an int enum), or NULL without a usable one, and
 * into @ioc IOPriority(0..3), or plain ints.
 */
static PyObject *load_ioclasses(PyObject *lin, PyObject **ioc)
{
	PyObject *cls = lin ? PyObject_GetAttrString(lin, "IOPriority") : NULL;

	if (cls && (!PyType_Check(cls) ||
		    !PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type)))
		Py_CLEAR(cls);
	PyErr_Clear();
	for (int i = 0; i < 4; i++) {
		ioc[i] = cls ? PyObject_CallFunction(cls, "i", i) : NULL;
		if (!ioc[i]) {
			PyErr_Clear();
			ioc[i] = PyLong_FromLong(i);
		}
	}
	return cls;
}

static int load_statuses(void)
{
	static const char *const st[][2] = {
		{ "R", "running" }, { "S", "sleeping" }, { "D", "disk-sleep" },
		{ "T", "stopped" }, { "t", "tracing-stop" }, { "Z", "zombie" },
		{ "X", "dead" }, { "x", "dead" }, { "K", "wake-kill" },
		{ "W", "waking" }, { "I", "idle" }, { "P", "parked" },
	};

	Py_XSETREF(pt_types.status_unknown, PyUnicode_InternFromString("?"));
	if (!pt_types.status_unknown)
		return -1;
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		PyObject *s = PyUnicode_InternFromString(st[i][1]);

		if (!s)
			return -1;
		Py_XSETREF(pt_types.status[(unsigned char)st[i][0][0]], s);
	}
	return 0;
}

/* A subclass of tuple with nothing of its own: a namedtuple's kind. */
static bool plain_tuple(PyObject *type)
{
	PyTypeObject *tp = (PyTypeObject *)type;

	return PyType_Check(type) && PyType_IsSubtype(tp, &PyTuple_Type) &&
	       tp->tp_basicsize == PyTuple_Type.tp_basicsize &&
	       tp->tp_itemsize == PyTuple_Type.tp_itemsize &&
	       !tp->tp_dictoffset && !tp->tp_weaklistoffset;
}

/* The namedtuples: in which of psutil's modules, and their fields. */
static const struct {
	size_t off;
	bool common;
	const char *name, *fields;
} nt_spec[] = {
#define NT(f, c, n, fl) { offsetof(struct pt_types, f), c, n, fl }
	NT(cputimes, false, "pcputimes",
	   "user system children_user children_system iowait"),
	NT(mem, false, "pmem", "rss vms shared text lib data dirty"),
	NT(fullmem, false, "pfullmem",
	   "rss vms shared text lib data dirty uss pss swap"),
	NT(io, false, "pio", "read_count write_count read_bytes "
	   "write_bytes read_chars write_chars"),
	NT(openfile, false, "popenfile", "path fd position mode flags"),
	NT(uids, true, "puids", "real effective saved"),
	NT(gids, true, "pgids", "real effective saved"),
	NT(ctxsw, true, "pctxsw", "voluntary involuntary"),
	NT(ionice, true, "pionice", "ioclass value"),
	NT(thread, true, "pthread", "id user_time system_time"),
#undef NT
};

#define NT_N (sizeof(nt_spec) / sizeof(nt_spec[0]))
#define NT_SLOT(i) ((PyObject **)((char *)&pt_types + nt_spec[i].off))

/* Into @t, the types of psutil's modules @lin and @com, or look-alikes. */
static int load_nt(PyObject *lin, PyObject *com, PyObject **t)
{
	for (size_t i = 0; i < NT_N; i++) {
		t[i] = nt_type(nt_spec[i].common ? com : lin, nt_spec[i].name,
			       nt_spec[i].fields);
		if (!t[i])
			return -1;
	}
	return 0;
}

/*
 * The types, once per process, at its first listing: psutil's where it is
 * importable and holds usable ones (its module's own, so that values are
 * instances of psutil's types), each else a look-alike. They are kept: a
 * type replaced in psutil's module after the first listing (a mock.patch
 * started later) changes nothing, as what is kept is a reference to the
 * type itself, still valid; one that was not usable at the first listing
 * stays a look-alike, with the same fields, after psutil's is put back.
 * Loading runs Python code, which may let another thread load too: they
 * are made aside and put in place at once, by the first to finish.
 */
int pt_types_load(void)
{
	PyObject *lin, *com, *t[NT_N] = { NULL }, *ioc[4] = { NULL }, *cls;
	bool plain = true;
	int err;

	if (pt_types.loaded)
		return 0;
	lin = PyImport_ImportModule("psutil._pslinux");
	com = lin ? PyImport_ImportModule("psutil._common") : NULL;
	if (!lin || !com)
		PyErr_Clear();
	err = load_nt(lin, com, t);
	cls = err ? NULL : load_ioclasses(lin, ioc);
	Py_XDECREF(lin);
	Py_XDECREF(com);
	if (!err)
		err = load_statuses();
	if (!err && !pt_types.loaded) {
		for (size_t i = 0; i < NT_N; i++) {
			plain = plain && plain_tuple(t[i]);
			*NT_SLOT(i) = t[i];
			t[i] = NULL;
		}
		memcpy(pt_types.ioclass, ioc, sizeof(ioc));
		memset(ioc, 0, sizeof(ioc));
		pt_types.ioprio_cls = cls;
		cls = NULL;
		pt_types.plain = plain;
		pt_types.loaded = true;
	}
	for (size_t i = 0; i < NT_N; i++)
		Py_XDECREF(t[i]);
	for (int i = 0; i < 4; i++)
		Py_XDECREF(ioc[i]);
	Py_XDECREF(cls);
	return err;
}

/* tuple.__new__(@type, (v...)): where a type is not a plain tuple's kind. */
static PyObject *ntuple_by_new(PyObject *type, PyObject **v, int n)
{
	PyObject *items = PyTuple_New(n), *args, *r = NULL;

	for (int i = 0; i < n; i++) {
		if (!v[i] || !items) {
			for (int k = i; k < n; k++)
				Py_XDECREF(v[k]);
			Py_XDECREF(items);
			return NULL;
		}
		PyTuple_SET_ITEM(items, i, v[i]);
	}
	args = PyTuple_Pack(1, items);
	Py_DECREF(items);
	if (args) {
		r = PyTuple_Type.tp_new((PyTypeObject *)type, args, NULL);
		Py_DECREF(args);
	}
	return r;
}

/*
 * An instance of the namedtuple @type from the @n new references of @v
 * (stolen, NULLs allowed: then NULL with the error set), made as its
 * __new__ makes it, tuple.__new__(type, (v...)), without Python code and
 * without the two tuples that call would make first: a namedtuple is a
 * tuple subclass with no slots of its own (__slots__ = ()), so the
 * instance is its type's allocation of @n items, filled in place.
 */
PyObject *pt_ntuple(PyObject *type, PyObject **v, int n)
{
	PyTypeObject *tp = (PyTypeObject *)type;
	PyObject *r = NULL;
	int i;

	if (!pt_types.plain)
		return ntuple_by_new(type, v, n);
	for (i = 0; i < n && v[i]; i++)
		;
	if (i == n)
		r = tp->tp_alloc(tp, n);
	for (i = 0; i < n; i++) {
		if (r)
			PyTuple_SET_ITEM(r, i, v[i]);
		else
			Py_XDECREF(v[i]);
	}
	return r;
}

/*
 * Text as psutil's open_text() reads it: "\r\n" and a lone "\r" become
 * "\n" (universal newlines), then decoded as os.fsdecode() decodes.
 */
PyObject *pt_text(const char *p, size_t len)
{
	char *q;
	size_t n = 0;
	PyObject *r;

	if (!memchr(p, '\r', len))
		return PyUnicode_DecodeFSDefaultAndSize(p, (Py_ssize_t)len);
	q = PyMem_Malloc(len ? len : 1);
	if (!q)
		return PyErr_NoMemory();
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\r') {
			q[n++] = '\n';
			if (i + 1 < len && p[i + 1] == '\n')
				i++;
		} else {
			q[n++] = p[i];
		}
	}
	r = PyUnicode_DecodeFSDefaultAndSize(q, (Py_ssize_t)n);
	PyMem_Free(q);
	return r;
}

/* @s split at the character @c. */
static PyObject *split_at(PyObject *s, Py_UCS4 c)
{
	PyObject *sep = PyUnicode_FromOrdinal((int)c), *r;

	if (!sep)
		return NULL;
	r = PyUnicode_Split(s, sep, -1);
	Py_DECREF(sep);
	return r;
}

/*
 * psutil's cmdline(): the text split at NULs, after the one that ends it;
 * split at spaces where it does not end with a NUL (a process that wrote
 * its title with spaces), or is one item with a NUL at its end only.
 */
PyObject *pt_cmdline(const struct pt_val *v)
{
	PyObject *text = pt_text(v->p, v->len), *sub, *list;
	Py_ssize_t n;
	Py_UCS4 sep;

	if (!text)
		return NULL;
	n = PyUnicode_GET_LENGTH(text);
	if (!n) {
		Py_DECREF(text);
		return PyList_New(0);
	}
	sep = PyUnicode_READ_CHAR(text, n - 1) == 0 ? 0 : ' ';
	if (PyUnicode_READ_CHAR(text, n - 1) == sep)
		n--;
	sub = PyUnicode_Substring(text, 0, n);
	Py_DECREF(text);
	if (!sub)
		return NULL;
	list = split_at(sub, sep);
	if (list && sep == 0 && PyList_GET_SIZE(list) == 1 &&
	    PyUnicode_FindChar(sub, ' ', 0, n, 1) >= 0)
		Py_SETREF(list, split_at(sub, ' '));
	Py_DECREF(sub);
	return list;
}

/* psutil's parse_environ_block() of the decoded text. */
PyObject *pt_environ(const struct pt_val *v)
{
	PyObject *text = pt_text(v->p, v->len), *d;
	Py_ssize_t pos = 0, n;

	if (!text)
		return NULL;
	d = PyDict_New();
	n = PyUnicode_GET_LENGTH(text);
	while (d) {
		Py_ssize_t next = PyUnicode_FindChar(text, 0, pos, n, 1), eq;
		PyObject *k, *val;

		if (next <= pos)
			break;
		eq = PyUnicode_FindChar(text, '=', pos, next, 1);
		if (eq > pos) {
			k = PyUnicode_Substring(text, pos, eq);
			val = PyUnicode_Substring(text, eq + 1, next);
			if (!k || !val || PyDict_SetItem(d, k, val))
				Py_CLEAR(d);
			Py_XDECREF(k);
			Py_XDECREF(val);
		}
		pos = next + 1;
	}
	Py_DECREF(text);
	return d;
}

/* ------------------------------------------------------------------ */
/* getvalues.ProcessInfo: what process_iter() yields.                  */

struct pt_info {
	PyObject_HEAD
	PyObject *pid;
	PyObject *info;
};

/*
 * A ProcessInfo takes part in the cyclic GC: a program that links them
 * (q.info["self"] = q, parents and children in each other's .info) makes
 * cycles that reference counting alone never frees.
 */
static int info_traverse(struct pt_info *self, visitproc visit, void *arg)
{
	Py_VISIT(self->pid);
	Py_VISIT(self->info);
	return 0;
}

/* Breaks a cycle: .info (the dict, or what a program put there). */
static int info_clear(struct pt_info *self)
{
	Py_CLEAR(self->info);
	return 0;
}

static void info_dealloc(struct pt_info *self)
{
	PyObject_GC_UnTrack(self);
	Py_TRASHCAN_BEGIN(self, info_dealloc)
	Py_CLEAR(self->pid);
	Py_CLEAR(self->info);
	Py_TYPE(self)->tp_free((PyObject *)self);
	Py_TRASHCAN_END
}

static PyObject *info_repr(struct pt_info *self)
{
	return PyUnicode_FromFormat("getvalues.ProcessInfo(pid=%R, info=%R)",
				    self->pid, self->info);
}

static PyMemberDef info_members[] = {
	{ "pid", T_OBJECT_EX, offsetof(struct pt_info, pid), READONLY,
	  "The process ID (int)." },
	{ "info", T_OBJECT_EX, offsetof(struct pt_info, info), 0,
	  "The attributes asked for, as psutil.Process.info holds them "
	  "(dict)." },
	{ NULL, 0, 0, 0, NULL },
};

PyDoc_STRVAR(info_doc,
"A process of getvalues.process_iter(): .pid, and .info, the dict of the\n"
"attributes asked for (as psutil.Process.info after process_iter(attrs)).");

static PyTypeObject pt_info_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "getvalues.ProcessInfo",
	.tp_basicsize = sizeof(struct pt_info),
	.tp_dealloc = (destructor)info_dealloc,
	.tp_repr = (reprfunc)info_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = info_doc,
	.tp_traverse = (traverseproc)info_traverse,
	.tp_clear = (inquiry)info_clear,
	.tp_members = info_members,
	.tp_free = PyObject_GC_Del,
};

/* A ProcessInfo of @pid and @info (a reference to which is stolen). */
PyObject *pt_info_new(int pid, PyObject *info)
{
	struct pt_info *o = PyObject_GC_New(struct pt_info, &pt_info_type);

	if (!o) {
		Py_DECREF(info);
		return NULL;
	}
	o->info = info;
	o->pid = PyLong_FromLong(pid);
	PyObject_GC_Track(o);
	if (!o->pid) {
		Py_DECREF(o);
		return NULL;
	}
	return (PyObject *)o;
}

int pt_info_ready(PyObject *m)
{
	if (PyType_Ready(&pt_info_type))
		return -1;
	Py_INCREF(&pt_info_type);
	if (PyModule_AddObject(m, "ProcessInfo", (PyObject *)&pt_info_type)) {
		Py_DECREF(&pt_info_type);
		return -1;
	}
	return 0;
}
