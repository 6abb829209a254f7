# SPDX-License-Identifier: MIT
"""test_proctable_obj.py - the Python objects of a process table
(proctable_obj.c): psutil's namedtuple types replaced in its modules by
what is not a tuple type (a Mock, a function, a list subclass, a plain
class), before and after the first listing, crash nothing and give values
with psutil's fields; ProcessInfo objects linked in reference cycles
through .info are freed by the cyclic garbage collector."""
import gc
import resource
import weakref

import pytest

import getvalues as gv
from conftest import run_python

pytest.importorskip("psutil", reason="psutil's types are what is replaced")

ATTRS = ["pid", "cpu_times", "memory_info", "uids", "num_ctx_switches"]

# in a new interpreter: psutil's types replaced by %(kind)s, then a listing
REPLACED = """
import sys
from unittest import mock
import psutil._pslinux as lin, psutil._common as com
import getvalues as gv

kind = %(kind)r
class Plain:                       # not a tuple subclass
    def __init__(self, *a):
        self.a = a
class AList(list):
    pass
class Tuple3(tuple):               # a tuple, with fields of its own
    _fields = ("a", "b", "c")
make = {"mock": lambda: mock.Mock(), "func": lambda: (lambda *a: a),
        "class": lambda: Plain, "list": lambda: AList,
        "fields": lambda: Tuple3}[kind]
orig = lin.pcputimes, lin.pmem, com.puids, com.pctxsw
if %(first)r:                      # a listing before the replacement
    gv.process_table(%(attrs)r)
patches = [mock.patch.object(lin, "pcputimes", make()),
           mock.patch.object(lin, "pmem", make()),
           mock.patch.object(com, "puids", make()),
           mock.patch.object(com, "pctxsw", make())]
for p in patches:
    p.start()
rows = gv.process_table(%(attrs)r)
items = list(gv.process_iter(%(attrs)r))
for p in patches:
    p.stop()
me = [r for r in rows if r["pid"] == __import__("os").getpid()][0]
ct, mi, ui, cs = (me["cpu_times"], me["memory_info"], me["uids"],
                  me["num_ctx_switches"])
assert isinstance(ct, tuple) and len(ct) == 5, ct
assert ct.user >= 0 and ct.system >= 0 and ct.iowait >= 0, ct
assert isinstance(mi, tuple) and mi.rss > 0 and mi.vms >= mi.rss, mi
assert ui.real == __import__("os").getuid(), ui
assert cs.voluntary >= 0 and cs.involuntary >= 0, cs
assert type(ct).__name__ == "pcputimes" and type(mi).__name__ == "pmem"
assert type(ui).__name__ == "puids" and type(cs).__name__ == "pctxsw"
assert all(hasattr(i.info["cpu_times"], "children_user") for i in items)
# before any listing, look-alikes; after one, psutil's own types, kept
same = [type(ct) is orig[0], type(mi) is orig[1], type(ui) is orig[2],
        type(cs) is orig[3]]
assert same == [%(first)r] * 4, (same, type(ct))
print("ok", ct, mi)
"""


@pytest.mark.parametrize("first", [False, True], ids=["before", "after"])
@pytest.mark.parametrize("kind", ["mock", "func", "class", "list", "fields"])
def test_replaced_psutil_types(kind, first):
    """psutil's namedtuples replaced before the first listing: look-alikes
    with its fields; after it: psutil's original types, still; never a
    crash nor an exception."""
    r = run_python(REPLACED % {"kind": kind, "first": first,
                               "attrs": ATTRS})
    assert r.returncode == 0, (r.returncode, r.stderr.decode()[-2000:])
    assert r.stdout.startswith(b"ok pcputimes(user="), r.stdout


def test_processinfo_is_gc_aware():
    """ProcessInfo is tracked by the collector, as a container must be."""
    q = next(iter(gv.process_iter(["pid"])))
    assert gc.is_tracked(q)
    assert gc.get_referents(q) and q.info in gc.get_referents(q)


class Token:
    """Something a weakref can watch, held in a cycle's .info."""


def test_processinfo_cycles_collected():
    """ProcessInfo objects in cycles through .info (itself, the next of its
    listing in a ring, a parent's children) over many listings: all freed
    by gc.collect()."""
    refs = []
    gc.collect()
    for _ in range(200):
        procs = list(gv.process_iter(["pid", "ppid", "name"]))
        assert procs
        by_pid = {q.pid: q for q in procs}
        for i, q in enumerate(procs):
            tok = Token()
            refs.append(weakref.ref(tok))
            q.info["self"] = q
            q.info["token"] = tok
            q.info["next"] = procs[(i + 1) % len(procs)]
            q.info["children"] = []
        for q in procs:
            parent = by_pid.get(q.info["ppid"])
            if parent is not None:
                parent.info["children"].append(q)
                q.info["parent"] = parent
        procs[0].info = procs[-1]       # a cycle through .info itself
        del procs, by_pid, q, parent, tok
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == 0, f"{alive} of {len(refs)} cycles not collected"
    assert not [o for o in gc.get_objects() if type(o) is gv.ProcessInfo]


def small_stack():
    """The child's main thread with a stack of 1 MiB, not 8."""
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    soft = 1 << 20 if hard == resource.RLIM_INFINITY else min(1 << 20, hard)
    resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


CHAIN = """
import getvalues as gv
objs = []
while len(objs) < 100000:
    objs.extend(gv.process_iter(["pid"]))
for a, b in zip(objs, objs[1:]):
    a.info = b
head = objs[0]
del objs, a, b
del head
print("ok")
"""


def test_processinfo_deep_chain():
    """A chain of 100,000 ProcessInfo, each the .info of the one before,
    freed from its head without overflowing a stack of 1 MiB (the
    trashcan of its dealloc), in a new interpreter."""
    r = run_python(CHAIN, timeout=300, preexec_fn=small_stack)
    assert r.returncode == 0 and r.stdout == b"ok\n", (r.returncode,
                                                         r.stderr[-500:])
