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

/* psutil's namedtuple @name of module @mod, or one made like it. */
static PyObject *nt_type(PyObject *mod, const char *name, const char *fields)
{
	PyObject *t = mod ? PyObject_GetAttrString(mod, name) : NULL;
	PyObject *coll;

	if (t)
		return t;
	PyErr_Clear();
	coll = PyImport_ImportModule("collections");
	if (!coll)
		return NULL;
	t = PyObject_CallMethod(coll, "namedtuple", "ss", name, fields);
	Py_DECREF(coll);
	return t;
}

/* IOPriority(0..3) of psutil, or plain ints without it. */
static int load_ioclasses(PyObject *lin)
{
	PyObject *cls = lin ? PyObject_GetAttrString(lin, "IOPriority") : NULL;

	if (!cls)
		PyErr_Clear();
	for (int i = 0; i < 4; i++) {
		pt_types.ioclass[i] = cls ? PyObject_CallFunction(cls, "i", i)
					  : PyLong_FromLong(i);
		if (!pt_types.ioclass[i]) {
			PyErr_Clear();
			pt_types.ioclass[i] = PyLong_FromLong(i);
		}
	}
	pt_types.ioprio_cls = cls;
	return 0;
}

static int load_statuses(void)
{
	static const char *const st[][2] = {
		{ "R", "running" }, { "S", "sleeping" }, { "D", "disk-sleep" },
		{ "T", "stopped" }, { "t", "tracing-stop" }, { "Z", "zombie" },
		{ "X", "dead" }, { "x", "dead" }, { "K", "wake-kill" },
		{ "W", "waking" }, { "I", "idle" }, { "P", "parked" },
	};

	pt_types.status_unknown = PyUnicode_InternFromString("?");
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

/* The types, once: psutil's where it is importable (its module's own). */
int pt_types_load(void)
{
	PyObject *lin, *com;

	if (pt_types.loaded)
		return 0;
	lin = PyImport_ImportModule("psutil._pslinux");
	com = lin ? PyImport_ImportModule("psutil._common") : NULL;
	if (!lin || !com)
		PyErr_Clear();
	pt_types.cputimes = nt_type(lin, "pcputimes",
		"user system children_user children_system iowait");
	pt_types.mem = nt_type(lin, "pmem",
		"rss vms shared text lib data dirty");
	pt_types.fullmem = nt_type(lin, "pfullmem",
		"rss vms shared text lib data dirty uss pss swap");
	pt_types.io = nt_type(lin, "pio", "read_count write_count read_bytes "
			      "write_bytes read_chars write_chars");
	pt_types.openfile = nt_type(lin, "popenfile",
				    "path fd position mode flags");
	pt_types.uids = nt_type(com, "puids", "real effective saved");
	pt_types.gids = nt_type(com, "pgids", "real effective saved");
	pt_types.ctxsw = nt_type(com, "pctxsw", "voluntary involuntary");
	pt_types.ionice = nt_type(com, "pionice", "ioclass value");
	pt_types.thread = nt_type(com, "pthread", "id user_time system_time");
	load_ioclasses(lin);
	Py_XDECREF(lin);
	Py_XDECREF(com);
	if (!pt_types.cputimes || !pt_types.mem || !pt_types.fullmem ||
	    !pt_types.io || !pt_types.openfile || !pt_types.uids ||
	    !pt_types.gids || !pt_types.ctxsw || !pt_types.ionice ||
	    !pt_types.thread || load_statuses())
		return -1;
	pt_types.plain = plain_tuple(pt_types.cputimes) &&
		plain_tuple(pt_types.mem) && plain_tuple(pt_types.fullmem) &&
		plain_tuple(pt_types.io) && plain_tuple(pt_types.openfile) &&
		plain_tuple(pt_types.uids) && plain_tuple(pt_types.gids) &&
		plain_tuple(pt_types.ctxsw) && plain_tuple(pt_types.ionice) &&
		plain_tuple(pt_types.thread);
	pt_types.loaded = true;
	return 0;
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

static void info_dealloc(struct pt_info *self)
{
	Py_XDECREF(self->pid);
	Py_XDECREF(self->info);
	Py_TYPE(self)->tp_free((PyObject *)self);
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
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = info_doc,
	.tp_members = info_members,
};

/* A ProcessInfo of @pid and @info (a reference to which is stolen). */
PyObject *pt_info_new(int pid, PyObject *info)
{
	struct pt_info *o = PyObject_New(struct pt_info, &pt_info_type);

	if (!o) {
		Py_DECREF(info);
		return NULL;
	}
	o->info = info;
	o->pid = PyLong_FromLong(pid);
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
