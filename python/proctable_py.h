/* SPDX-License-Identifier: MIT */
/*
 * proctable_py.h - the Python side of the process table: the types its
 * values take (proctable_obj.c) and what getvalues.c registers
 * (proctable.c). Include after Python.h.
 */
#ifndef GV_PROCTABLE_PY_H
#define GV_PROCTABLE_PY_H

#include <stdbool.h>

struct pt_val;

/* psutil's namedtuple types (or look-alikes), and the interned strings. */
struct pt_types {
	bool loaded;
	bool plain;			/* all of them plain tuple subclasses */
	PyObject *cputimes, *mem, *fullmem, *io, *openfile;
	PyObject *uids, *gids, *ctxsw, *ionice, *thread;
	PyObject *ioprio_cls;		/* psutil's IOPriority, or NULL */
	PyObject *ioclass[4];		/* IOPriority(0..3), or ints */
	PyObject *status[256];		/* by the letter of stat */
	PyObject *status_unknown;
};

extern struct pt_types pt_types;

int pt_types_load(void);
PyObject *pt_ntuple(PyObject *type, PyObject **v, int n);
PyObject *pt_text(const char *p, size_t len);
PyObject *pt_cmdline(const struct pt_val *v);
PyObject *pt_environ(const struct pt_val *v);
PyObject *pt_info_new(int pid, PyObject *info);
int pt_info_ready(PyObject *m);

/* Registered by getvalues.c. */
PyObject *gv_py_process_table(PyObject *self, PyObject *args, PyObject *kw);
PyObject *gv_py_process_iter(PyObject *self, PyObject *args, PyObject *kw);
int gv_proctable_exec(PyObject *m);
extern const char gv_process_table_doc[];
extern const char gv_process_iter_doc[];

#endif /* GV_PROCTABLE_PY_H */
