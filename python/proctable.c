// SPDX-License-Identifier: MIT
/*
 * proctable.c - getvalues.process_iter() and getvalues.process_table():
 * every process's attributes, with psutil's names, types and values, from
 * a few getvalues() calls for all processes at once (proctable_fetch.c,
 * run without the GIL), one Python object per value (proctable_obj.c).
 *
 * A value psutil would not give, raising AccessDenied or ZombieProcess,
 * is ad_value; a process psutil would find gone (NoSuchProcess) is left
 * out. cpu_percent compares with the previous listing that asked for it,
 * as psutil.process_iter() does with the Process objects it keeps.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "getvalues.h"
#include "proctable.h"
#include "proctable_py.h"

static const char *const attr_names[PT_NATTR] = {
	[A_PID] = "pid", [A_PPID] = "ppid", [A_NAME] = "name",
	[A_EXE] = "exe", [A_CMDLINE] = "cmdline", [A_ENVIRON] = "environ",
	[A_STATUS] = "status", [A_USERNAME] = "username", [A_UIDS] = "uids",
	[A_GIDS] = "gids", [A_TERMINAL] = "terminal",
	[A_CREATE_TIME] = "create_time", [A_CPU_TIMES] = "cpu_times",
	[A_CPU_NUM] = "cpu_num", [A_MEMORY_INFO] = "memory_info",
	[A_MEMORY_FULL_INFO] = "memory_full_info",
	[A_NUM_THREADS] = "num_threads",
	[A_NUM_CTX_SWITCHES] = "num_ctx_switches", [A_NUM_FDS] = "num_fds",
	[A_NICE] = "nice", [A_IONICE] = "ionice",
	[A_IO_COUNTERS] = "io_counters", [A_CWD] = "cwd",
	[A_OPEN_FILES] = "open_files", [A_THREADS] = "threads",
	[A_CPU_PERCENT] = "cpu_percent",
	[A_MEMORY_PERCENT] = "memory_percent",
};

static PyObject *attr_keys[PT_NATTR];	/* interned */

/* What psutil caches on first use: boot time and physical memory. */
static double boot_time, total_mem;

/* The cpu_times of the previous listing with cpu_percent, by pid. */
struct cpu_seen {
	int pid;
	unsigned long long start;
	double timer, user, sys;
};

static struct cpu_seen *cpu_prev;
static size_t cpu_nprev;

/* What making the values of one listing needs. */
struct ctx {
	struct pt_table *t;
	PyObject *ad;
	double ticks;
	long page;
	PyObject **users, **ttys;	/* made once each */
	struct cpu_seen *cpu_next;
	size_t cpu_n;
};

typedef PyObject *(*maker)(struct ctx *c, struct pt_proc *p);

static PyObject *ad(struct ctx *c)
{
	Py_INCREF(c->ad);
	return c->ad;
}

static PyObject *v_pid(struct ctx *c, struct pt_proc *p)
{
	(void)c;
	return PyLong_FromLong(p->pid);
}

static PyObject *v_ppid(struct ctx *c, struct pt_proc *p)
{
	(void)c;
	return PyLong_FromLongLong(p->st.ppid);
}

/* The first item of the command line, decoded, or NULL (no error set). */
static PyObject *cmdline0(struct pt_proc *p)
{
	PyObject *list, *first = NULL;

	if (p->f[F_CMDLINE].err)
		return NULL;
	list = pt_cmdline(&p->f[F_CMDLINE]);
	if (list && PyList_GET_SIZE(list)) {
		first = PyList_GET_ITEM(list, 0);
		Py_INCREF(first);
	}
	Py_XDECREF(list);
	PyErr_Clear();
	return first;
}

/*
 * The name of stat; where it has 15 characters or more (the kernel cuts
 * it there), the base name of cmdline[0] when that starts with it.
 */
static PyObject *v_name(struct ctx *c, struct pt_proc *p)
{
	PyObject *name = PyUnicode_DecodeFSDefaultAndSize(p->st.name,
							  p->st.name_len);
	PyObject *first, *base;
	Py_ssize_t n, slash;

	(void)c;
	if (!name || PyUnicode_GET_LENGTH(name) < 15)
		return name;
	first = cmdline0(p);
	if (!first)
		return name;
	n = PyUnicode_GET_LENGTH(first);
	slash = PyUnicode_FindChar(first, '/', 0, n, -1);
	base = PyUnicode_Substring(first, slash + 1, n);
	Py_DECREF(first);
	if (base && PyUnicode_Tailmatch(base, name, 0, PY_SSIZE_T_MAX, -1) > 0)
		Py_SETREF(name, base);
	else
		Py_XDECREF(base);
	PyErr_Clear();
	return name;
}

static PyObject *path_value(struct ctx *c, const struct pt_path *x)
{
	if (x->kind == P_PATH)
		return PyUnicode_DecodeFSDefaultAndSize(x->p, (Py_ssize_t)x->len);
	return x->kind == P_EMPTY ? PyUnicode_FromString("") : ad(c);
}

static PyObject *v_exe(struct ctx *c, struct pt_proc *p)
{
	return path_value(c, &p->exe);
}

static PyObject *v_cwd(struct ctx *c, struct pt_proc *p)
{
	return path_value(c, &p->cwd);
}

static PyObject *v_cmdline(struct ctx *c, struct pt_proc *p)
{
	return p->f[F_CMDLINE].err ? ad(c) : pt_cmdline(&p->f[F_CMDLINE]);
}

static PyObject *v_environ(struct ctx *c, struct pt_proc *p)
{
	return p->f[F_ENVIRON].err ? ad(c) : pt_environ(&p->f[F_ENVIRON]);
}

static PyObject *v_status(struct ctx *c, struct pt_proc *p)
{
	PyObject *s = pt_types.status[(unsigned char)p->st.state];

	(void)c;
	s = s ? s : pt_types.status_unknown;
	Py_INCREF(s);
	return s;
}

static PyObject *v_username(struct ctx *c, struct pt_proc *p)
{
	const struct pt_user *u;

	if (p->user < 0)
		return ad(c);
	if (!c->users[p->user]) {
		u = &c->t->users[p->user];
		c->users[p->user] = u->name ?
			PyUnicode_DecodeFSDefault(u->name) :
			PyUnicode_FromFormat("%lu", (unsigned long)u->uid);
	}
	Py_XINCREF(c->users[p->user]);
	return c->users[p->user];
}

static PyObject *ids_value(struct ctx *c, PyObject *type, bool ok,
			   const long long id[3])
{
	PyObject *v[3];

	if (!ok)
		return ad(c);
	for (int i = 0; i < 3; i++)
		v[i] = PyLong_FromLongLong(id[i]);
	return pt_ntuple(type, v, 3);
}

static PyObject *v_uids(struct ctx *c, struct pt_proc *p)
{
	return ids_value(c, pt_types.uids, p->uid_ok, p->uid);
}

static PyObject *v_gids(struct ctx *c, struct pt_proc *p)
{
	return ids_value(c, pt_types.gids, p->gid_ok, p->gid);
}

static PyObject *v_terminal(struct ctx *c, struct pt_proc *p)
{
	if (p->tty < 0)
		Py_RETURN_NONE;
	if (!c->ttys[p->tty])
		c->ttys[p->tty] = PyUnicode_DecodeFSDefault(
			c->t->ttys[p->tty].path);
	Py_XINCREF(c->ttys[p->tty]);
	return c->ttys[p->tty];
}

/* The whole of a /proc file (readfile() into a buffer grown to fit). */
static char *read_whole(const char *path, size_t *len)
{
	for (size_t size = 16384;; size *= 4) {
		char *buf = PyMem_Malloc(size);
		ssize_t n;

		if (!buf) {
			PyErr_NoMemory();
			return NULL;
		}
		n = getvalues_readfile(AT_FDCWD, path, buf, size, 0);
		if (n >= 0 && (size_t)n < size) {
			*len = (size_t)n;
			return buf;
		}
		PyMem_Free(buf);
		if (n < 0) {
			PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
			return NULL;
		}
	}
}

/*
 * What psutil reads once and keeps: btime of /proc/stat (create_time),
 * MemTotal of /proc/meminfo (memory_percent).
 */
static int load_once(double *to, const char *path,
		     bool (*parse)(const char *, size_t, unsigned long long *))
{
	unsigned long long v;
	size_t len;
	char *buf;
	bool ok;

	if (*to > 0)
		return 0;
	buf = read_whole(path, &len);
	if (!buf)
		return -1;
	ok = parse(buf, len, &v) && v > 0;
	PyMem_Free(buf);
	if (!ok) {
		PyErr_Format(PyExc_RuntimeError, "%s: not the format psutil "
			     "reads", path);
		return -1;
	}
	*to = (double)v;
	return 0;
}

static PyObject *v_create_time(struct ctx *c, struct pt_proc *p)
{
	return PyFloat_FromDouble((double)p->st.start / c->ticks + boot_time);
}

static PyObject *v_cpu_times(struct ctx *c, struct pt_proc *p)
{
	PyObject *v[5] = {
		PyFloat_FromDouble((double)p->st.utime / c->ticks),
		PyFloat_FromDouble((double)p->st.stime / c->ticks),
		PyFloat_FromDouble((double)p->st.cutime / c->ticks),
		PyFloat_FromDouble((double)p->st.cstime / c->ticks),
		PyFloat_FromDouble((double)p->st.blkio / c->ticks),
	};

	return pt_ntuple(pt_types.cputimes, v, 5);
}

static PyObject *v_cpu_num(struct ctx *c, struct pt_proc *p)
{
	(void)c;
	return PyLong_FromLongLong(p->st.cpu);
}

/* As psutil asks it, getpriority(2), where stat was refused. */
static PyObject *v_nice(struct ctx *c, struct pt_proc *p)
{
	int nice;

	if (p->stat_ok)
		return PyLong_FromLongLong(p->st.nice);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)p->pid);
	return errno ? ad(c) : PyLong_FromLong(nice);
}

/* rss vms shared text lib data dirty: statm's vms rss ... in bytes. */
static void mem_objects(struct ctx *c, struct pt_proc *p, PyObject **v)
{
	static const int order[7] = { 1, 0, 2, 3, 4, 5, 6 };

	for (int i = 0; i < 7; i++)
		v[i] = PyLong_FromUnsignedLongLong(p->statm[order[i]] *
						   (unsigned long long)c->page);
}

static PyObject *v_memory_info(struct ctx *c, struct pt_proc *p)
{
	PyObject *v[7];

	if (!p->statm_ok)
		return ad(c);
	mem_objects(c, p, v);
	return pt_ntuple(pt_types.mem, v, 7);
}

static PyObject *v_memory_full_info(struct ctx *c, struct pt_proc *p)
{
	PyObject *v[10];

	if (!p->statm_ok || !p->smaps_ok)
		return ad(c);
	mem_objects(c, p, v);
	for (int i = 0; i < 3; i++)
		v[7 + i] = PyLong_FromUnsignedLongLong(p->smaps[i]);
	return pt_ntuple(pt_types.fullmem, v, 10);
}

static PyObject *v_memory_percent(struct ctx *c, struct pt_proc *p)
{
	double rss = (double)(p->statm[1] * (unsigned long long)c->page);

	if (!p->statm_ok)
		return ad(c);
	return PyFloat_FromDouble(rss / total_mem * 100);
}

/* From stat unless status is read for every process (files_for()). */
static PyObject *v_num_threads(struct ctx *c, struct pt_proc *p)
{
	if (!(c->t->files & PT_BIT(F_STATUS)))
		return PyLong_FromLongLong(p->st.threads);
	if (!p->status_ok || !p->status.has_threads)
		return ad(c);
	return PyLong_FromLongLong(p->status.threads);
}

static PyObject *v_num_ctx_switches(struct ctx *c, struct pt_proc *p)
{
	PyObject *v[2];

	if (!p->status_ok || !p->status.has_ctx)
		return ad(c);
	v[0] = PyLong_FromLongLong(p->status.ctx[0]);
	v[1] = PyLong_FromLongLong(p->status.ctx[1]);
	return pt_ntuple(pt_types.ctxsw, v, 2);
}

static PyObject *v_num_fds(struct ctx *c, struct pt_proc *p)
{
	if (p->f[F_FD].err)
		return ad(c);
	return PyLong_FromSize_t(pt_list_count(&p->f[F_FD]));
}

static PyObject *v_ionice(struct ctx *c, struct pt_proc *p)
{
	int cls = p->ioprio >> 13;
	PyObject *v[2];

	if (p->ioprio_err)
		return ad(c);
	if (cls >= 0 && cls < 4) {
		v[0] = pt_types.ioclass[cls];
		Py_INCREF(v[0]);
	} else {
		v[0] = pt_types.ioprio_cls ?
		       PyObject_CallFunction(pt_types.ioprio_cls, "i", cls) :
		       PyLong_FromLong(cls);
	}
	v[1] = PyLong_FromLong(p->ioprio & ((1 << 13) - 1));
	return pt_ntuple(pt_types.ionice, v, 2);
}

static PyObject *v_io_counters(struct ctx *c, struct pt_proc *p)
{
	PyObject *v[6];

	if (!p->io_ok)
		return ad(c);
	for (int i = 0; i < 6; i++)
		v[i] = PyLong_FromUnsignedLongLong(p->io[i]);
	return pt_ntuple(pt_types.io, v, 6);
}

/* psutil's file_flags_to_mode(). */
static const char *flags_mode(unsigned long long flags)
{
	switch (flags & 3) {
	case 1:
		return flags & 02000 ? "a" : "w";
	case 2:
		return flags & 02000 ? "a+" : "r+";
	default:
		return "r";
	}
}

static PyObject *open_file(const struct pt_extra *x, PyObject *type)
{
	PyObject *v[5] = {
		PyUnicode_DecodeFSDefaultAndSize(x->v.p, x->path_len),
		PyLong_FromLongLong(x->id),
		PyLong_FromUnsignedLongLong(x->a),
		PyUnicode_FromString(flags_mode(x->b)),
		PyLong_FromUnsignedLongLong(x->b),
	};

	return pt_ntuple(type, v, 5);
}

static PyObject *thread_obj(const struct pt_extra *x, struct ctx *c)
{
	PyObject *v[3] = {
		PyLong_FromLongLong(x->id),
		PyFloat_FromDouble((double)x->a / c->ticks),
		PyFloat_FromDouble((double)x->b / c->ticks),
	};

	return pt_ntuple(pt_types.thread, v, 3);
}

/* The extras of a process whose state is XS_OK, each made by @one. */
static PyObject *extras_list(struct ctx *c, size_t first, size_t n,
			     bool files)
{
	PyObject *list = PyList_New(0);

	for (size_t i = first; list && i < first + n; i++) {
		const struct pt_extra *x = &c->t->extra[i];
		PyObject *o;

		if (x->state != XS_OK)
			continue;
		o = files ? open_file(x, pt_types.openfile) : thread_obj(x, c);
		if (!o || PyList_Append(list, o))
			Py_CLEAR(list);
		Py_XDECREF(o);
	}
	return list;
}

static PyObject *v_open_files(struct ctx *c, struct pt_proc *p)
{
	if (p->f[F_FD].err || p->files_denied)
		return ad(c);
	return extras_list(c, p->fd_first, p->fd_n, true);
}

static PyObject *v_threads(struct ctx *c, struct pt_proc *p)
{
	if (p->f[F_TASK].err)
		return ad(c);
	return extras_list(c, p->task_first, p->task_n, false);
}

static const struct cpu_seen *cpu_find(int pid)
{
	size_t lo = 0, hi = cpu_nprev;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cpu_prev[mid].pid == pid)
			return &cpu_prev[mid];
		if (cpu_prev[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* psutil's Process.cpu_percent(interval=None) over the previous listing. */
static PyObject *v_cpu_percent(struct ctx *c, struct pt_proc *p)
{
	const struct cpu_seen *old = cpu_find(p->pid);
	struct cpu_seen *now = &c->cpu_next[c->cpu_n++];
	double dp, dt;

	*now = (struct cpu_seen){
		.pid = p->pid, .start = p->st.start, .timer = c->t->timer,
		.user = (double)p->st.utime / c->ticks,
		.sys = (double)p->st.stime / c->ticks,
	};
	if (!old || old->start != p->st.start)
		return PyFloat_FromDouble(0.0);
	dp = (now->user - old->user) + (now->sys - old->sys);
	dt = now->timer - old->timer;
	if (dt == 0)
		return PyFloat_FromDouble(0.0);
	return PyFloat_FromDouble(round(dp / dt * 100 * (double)c->t->ncpus *
					10) / 10);
}

static const maker makers[PT_NATTR] = {
	[A_PID] = v_pid, [A_PPID] = v_ppid, [A_NAME] = v_name,
	[A_EXE] = v_exe, [A_CMDLINE] = v_cmdline, [A_ENVIRON] = v_environ,
	[A_STATUS] = v_status, [A_USERNAME] = v_username, [A_UIDS] = v_uids,
	[A_GIDS] = v_gids, [A_TERMINAL] = v_terminal,
	[A_CREATE_TIME] = v_create_time, [A_CPU_TIMES] = v_cpu_times,
	[A_CPU_NUM] = v_cpu_num, [A_MEMORY_INFO] = v_memory_info,
	[A_MEMORY_FULL_INFO] = v_memory_full_info,
	[A_NUM_THREADS] = v_num_threads,
	[A_NUM_CTX_SWITCHES] = v_num_ctx_switches, [A_NUM_FDS] = v_num_fds,
	[A_NICE] = v_nice, [A_IONICE] = v_ionice,
	[A_IO_COUNTERS] = v_io_counters, [A_CWD] = v_cwd,
	[A_OPEN_FILES] = v_open_files, [A_THREADS] = v_threads,
	[A_CPU_PERCENT] = v_cpu_percent,
	[A_MEMORY_PERCENT] = v_memory_percent,
};

/*
 * @attrs as psutil's as_dict() takes it: None or empty for all of them,
 * else a list, tuple, set or frozenset of names. The order to make them
 * in goes into @order (each name once), the set into *@mask.
 */
static int parse_attrs(PyObject *attrs, int *order, int *n, uint64_t *mask)
{
	PyObject *seq, *item;
	Py_ssize_t len;

	*n = 0;
	*mask = 0;
	if (attrs && attrs != Py_None &&
	    !PyList_Check(attrs) && !PyTuple_Check(attrs) &&
	    !PyAnySet_Check(attrs)) {
		PyErr_Format(PyExc_TypeError, "invalid attrs type %s",
			     Py_TYPE(attrs)->tp_name);
		return -1;
	}
	seq = attrs && attrs != Py_None ? PySequence_Fast(attrs, "attrs") : NULL;
	if (attrs && attrs != Py_None && !seq)
		return -1;
	len = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
	for (Py_ssize_t i = 0; i < len; i++) {
		int a;

		item = PySequence_Fast_GET_ITEM(seq, i);
		for (a = 0; a < PT_NATTR; a++)
			if (PyUnicode_Check(item) &&
			    PyUnicode_CompareWithASCIIString(item,
							     attr_names[a]) == 0)
				break;
		if (a == PT_NATTR) {
			PyErr_Format(PyExc_ValueError, "invalid attr name %R",
				     item);
			Py_DECREF(seq);
			return -1;
		}
		if (!(*mask & PT_BIT(a)))
			order[(*n)++] = a;
		*mask |= PT_BIT(a);
	}
	Py_XDECREF(seq);
	for (int a = 0; !len && a < PT_NATTR; a++) {
		order[(*n)++] = a;
		*mask |= PT_BIT(a);
	}
	return 0;
}

/*
 * What psutil reads from /proc/PID/stat: AccessDenied, so ad_value, where
 * stat was refused (hidepid=1).
 */
#define FROM_STAT (PT_BIT(A_PPID) | PT_BIT(A_NAME) | PT_BIT(A_STATUS) | \
		   PT_BIT(A_TERMINAL) | PT_BIT(A_CREATE_TIME) | \
		   PT_BIT(A_CPU_TIMES) | PT_BIT(A_CPU_NUM) | \
		   PT_BIT(A_NUM_THREADS) | PT_BIT(A_CPU_PERCENT))

/* One process's dict of the attributes of @order. */
static PyObject *row(struct ctx *c, struct pt_proc *p, const int *order,
		     int n)
{
	PyObject *d = PyDict_New();

	for (int i = 0; d && i < n; i++) {
		PyObject *v = !p->stat_ok && (PT_BIT(order[i]) & FROM_STAT) ?
			      ad(c) : makers[order[i]](c, p);

		if (!v || PyDict_SetItem(d, attr_keys[order[i]], v))
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; c->users && i < c->t->nusers; i++)
		Py_XDECREF(c->users[i]);
	for (size_t i = 0; c->ttys && i < c->t->nttys; i++)
		Py_XDECREF(c->ttys[i]);
	PyMem_Free(c->users);
	PyMem_Free(c->ttys);
	PyMem_Free(c->cpu_next);
}

/* The cpu_times of this listing, for the next one's cpu_percent. */
static void cpu_keep(struct ctx *c)
{
	PyMem_Free(cpu_prev);
	cpu_prev = c->cpu_next;
	cpu_nprev = c->cpu_n;
	c->cpu_next = NULL;
}

static int ctx_init(struct ctx *c, struct pt_table *t, PyObject *ad_value)
{
	*c = (struct ctx){ .t = t, .ad = ad_value,
			   .ticks = (double)pt_clock_ticks(),
			   .page = pt_page_size() };
	c->users = PyMem_Calloc(t->nusers + 1, sizeof(PyObject *));
	c->ttys = PyMem_Calloc(t->nttys + 1, sizeof(PyObject *));
	if (t->attrs & PT_BIT(A_CPU_PERCENT))
		c->cpu_next = PyMem_Calloc(t->n + 1, sizeof(*c->cpu_next));
	if (!c->users || !c->ttys ||
	    ((t->attrs & PT_BIT(A_CPU_PERCENT)) && !c->cpu_next)) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

/* Every process's dict, or @wrap of its pid and dict (process_iter). */
static PyObject *rows(struct pt_table *t, PyObject *ad_value,
		      const int *order, int n, PyObject *(*wrap)(int, PyObject *))
{
	PyObject *list = NULL;
	struct ctx c;

	if (!ctx_init(&c, t, ad_value))
		list = PyList_New(0);
	for (size_t i = 0; list && i < t->n; i++) {
		PyObject *d;

		if (t->procs[i].gone)
			continue;
		d = row(&c, &t->procs[i], order, n);
		if (d && wrap)
			d = wrap(t->procs[i].pid, d);	/* it takes d */
		if (!d || PyList_Append(list, d))
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	if (list && c.cpu_next)
		cpu_keep(&c);
	ctx_free(&c);
	return list;
}

/*
 * GETVALUES_PT_PIDFD=0 in the environment: the credentials from status
 * even where a pidfd could give them, for the tests that compare both
 * ways (python/tests/test_proctable.py). Read with the GIL held.
 */
static bool pidfd_refused(void)
{
	const char *v = getenv("GETVALUES_PT_PIDFD");

	return v && !strcmp(v, "0");
}

/* The listing behind both calls: the fetch without the GIL, then rows. */
static PyObject *listing(PyObject *args, PyObject *kw,
			 PyObject *(*wrap)(int, PyObject *))
{
	static char *kwlist[] = { "attrs", "ad_value", "threads", NULL };
	PyObject *attrs = Py_None, *ad_value = Py_None, *out;
	struct pt_table t = { 0 };
	int order[PT_NATTR], n, err, threads = 0;
	/* the function's own name in messages about its arguments */
	const char *format = wrap ? "|OO$i:process_iter" :
				    "|OO$i:process_table";

	if (!PyArg_ParseTupleAndKeywords(args, kw, format,
					 kwlist, &attrs, &ad_value, &threads) ||
	    parse_attrs(attrs, order, &n, &t.attrs) || pt_types_load())
		return NULL;
	if (threads < 0) {
		PyErr_SetString(PyExc_ValueError,
				"threads must be 0 (one per CPU) or more");
		return NULL;
	}
	t.threads = threads;
	t.no_pidfd = pidfd_refused();
	if (((t.attrs & PT_BIT(A_CREATE_TIME)) &&
	     load_once(&boot_time, "/proc/stat", pt_parse_btime)) ||
	    ((t.attrs & PT_BIT(A_MEMORY_PERCENT)) &&
	     load_once(&total_mem, "/proc/meminfo", pt_parse_meminfo_total)))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = pt_fetch(&t);
	Py_END_ALLOW_THREADS
	if (err) {
		pt_table_free(&t);
		errno = err;
		return PyErr_SetFromErrnoWithFilename(PyExc_OSError, "/proc");
	}
	out = rows(&t, ad_value, order, n, wrap);
	pt_table_free(&t);
	return out;
}

const char gv_process_table_doc[] =
"process_table($module, /, attrs=None, ad_value=None, *, threads=0)\n--\n\n"
"Every process's attributes at once: a list of one dict per process, in\n"
"pid order, with the keys and values psutil.Process.as_dict(attrs,\n"
"ad_value) gives.\n"
"attrs: a list, tuple or set of names (None or empty: all of them):\n"
"pid ppid name exe cmdline environ status username uids gids terminal\n"
"create_time cpu_times cpu_num memory_info memory_full_info num_threads\n"
"num_ctx_switches num_fds nice ionice io_counters cwd open_files threads\n"
"cpu_percent memory_percent. Namedtuples are psutil's own when psutil\n"
"can be imported. A value psutil would refuse (AccessDenied,\n"
"ZombieProcess) is ad_value; a process that exits during the listing is\n"
"left out. cpu_percent compares with the previous listing that asked for\n"
"it (0.0 the first time), as psutil.process_iter() does. The files of all\n"
"processes are read in a few getvalues() calls, without the GIL, by\n"
"one thread per CPU the process may run on (up to 4): less wall time\n"
"for a little more CPU time. threads: at most that many (1: the calling\n"
"thread alone; 0: one per CPU).\n"
"Raises ValueError for an unknown name or threads below 0, TypeError for\n"
"attrs of another type, OSError when /proc cannot be read.";

const char gv_process_iter_doc[] =
"process_iter($module, /, attrs=None, ad_value=None, *, threads=0)\n"
"--\n\n"
"psutil.process_iter(attrs, ad_value) in one line: an iterator of the\n"
"processes in pid order, each a ProcessInfo with .pid and .info, the dict\n"
"psutil's Process.info holds (the dicts of process_table()).\n"
"The whole table is read when it is called; iterating costs nothing.";

PyObject *gv_py_process_table(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	return listing(args, kw, NULL);
}

PyObject *gv_py_process_iter(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *list = listing(args, kw, pt_info_new), *it;

	(void)self;
	if (!list)
		return NULL;
	it = PyObject_GetIter(list);
	Py_DECREF(list);
	return it;
}

/* The interned keys and the ProcessInfo type, when the module is made. */
int gv_proctable_exec(PyObject *m)
{
	for (int a = 0; a < PT_NATTR; a++)
		if (!attr_keys[a] &&
		    !(attr_keys[a] = PyUnicode_InternFromString(attr_names[a])))
			return -1;
	return pt_info_ready(m);
}
