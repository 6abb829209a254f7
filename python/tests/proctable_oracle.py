# SPDX-License-Identifier: MIT
"""proctable_oracle.py - getvalues.process_table() against psutil, the
oracle, for the tests of test_proctable.py (imported there, and run as a
script by a child that is another user).

Values change while they are read: a listing of getvalues, then psutil's,
then getvalues again; a number of psutil's must lie between the two
getvalues readings (each field of a namedtuple, each thread's times), any
other value must be equal to one of them."""
import json
import numbers
import os
import sys

import psutil

import getvalues as gv

# every attribute but cpu_percent, which compares with a previous call
ATTRS = ["pid", "ppid", "name", "exe", "cmdline", "environ", "status",
         "username", "uids", "gids", "terminal", "create_time", "cpu_times",
         "cpu_num", "memory_info", "memory_full_info", "num_threads",
         "num_ctx_switches", "num_fds", "nice", "ionice", "io_counters",
         "cwd", "open_files", "threads", "memory_percent"]
# counters: psutil's reading lies between the two of getvalues
COUNTERS = {"cpu_times", "memory_info", "memory_full_info", "num_threads",
            "num_ctx_switches", "num_fds", "io_counters", "memory_percent",
            "threads", "cpu_num", "open_files"}
# gauges that go down as well as up (pss moves as other processes share
# or drop pages): psutil's may be this much outside the two readings
SLACK = {"memory_info": 0.05, "memory_full_info": 0.05,
         "memory_percent": 0.05}
AD = "<AccessDenied>"


def psutil_table(attrs=ATTRS, ad_value=AD):
    psutil._pmap.clear()        # no Process (and its cached exe) kept
    return {p.pid: p.info for p in psutil.process_iter(attrs, ad_value)}


def gv_table(attrs=ATTRS, ad_value=AD):
    return {r["pid"]: r for r in gv.process_table(attrs, ad_value)}


def between(v, a, b, slack=0.0):
    """v lies between a and b (widened by @slack of them): numbers, or
    element by element."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v == a or v == b
    if isinstance(v, numbers.Number):
        if not isinstance(a, numbers.Number) or \
           not isinstance(b, numbers.Number):
            return False
        lo, hi = min(a, b), max(a, b)
        return lo * (1 - slack) <= v <= hi * (1 + slack)
    if isinstance(v, (tuple, list)):
        if not isinstance(a, (tuple, list)) or \
           not isinstance(b, (tuple, list)):
            return False
        if len(v) == len(a) == len(b):
            return all(between(x, y, z, slack) for x, y, z in zip(v, a, b))
        return v == a or v == b
    return v == a or v == b


def between_keyed(v, a, b):
    """Lists of threads or open files (keyed by id or fd) of a process
    that opens, closes and writes while it is read: the entries of both of
    our readings, the same in both, are in psutil's and lie between them;
    where our readings are alike, psutil's has nothing else."""
    if not all(isinstance(x, list) for x in (v, a, b)):
        return v == a or v == b
    da, db, dv = ({x[:2] if hasattr(x, "path") else x[0]: x for x in lst}
                  for lst in (a, b, v))
    for k in da.keys() & db.keys():
        if k not in dv or not between(dv[k], da[k], db[k]):
            return False
    return a != b or dv.keys() == da.keys()


def same_type(v, g):
    """psutil's value and ours are of one type (a namedtuple of one name
    and fields, or a list of them)."""
    if type(v).__name__ != type(g).__name__:
        return False
    if hasattr(v, "_fields"):
        return v._fields == g._fields
    if isinstance(v, list) and v and g:
        return same_type(v[0], g[0])
    return True


def mismatches(pids=None, attrs=ATTRS, exact=()):
    """(pid, attr, ours, psutil's) for every value that does not agree;
    @exact: pids whose every value must equal the first reading. This
    process is left out: its descriptors and memory are those of the
    reading itself."""
    g1 = gv_table(attrs)
    ps = psutil_table(attrs)
    g2 = gv_table(attrs)
    bad = []
    for pid in sorted(set(g1) & set(ps) & set(g2)):
        if (pids is not None and pid not in pids) or pid == os.getpid():
            continue
        if g1[pid].get("create_time") != g2[pid].get("create_time"):
            continue            # the pid was used again in between
        for a in attrs:
            v, x, y = ps[pid][a], g1[pid][a], g2[pid][a]
            if pid in exact and a not in COUNTERS:
                ok = v == x
            elif a in ("open_files", "threads"):
                ok = between_keyed(v, x, y)
            elif a in COUNTERS:
                ok = between(v, x, y, SLACK.get(a, 0.0))
            else:
                ok = v == x or v == y
            ok = ok and (v == AD or same_type(v, x if v == x else y))
            if not ok:
                bad.append((pid, a, repr(x)[:300], repr(v)[:300]))
    return bad, len(g1)


def persistent_mismatches(rounds=5, **kw):
    """The mismatches found in every one of up to @rounds comparisons: a
    wrong value stays wrong, a value that changed while it was read does
    not change the same way every time."""
    keep = None
    for _ in range(rounds):
        bad, n = mismatches(**kw)
        now = {(b[0], b[1]): b for b in bad}
        keep = now if keep is None else \
            {k: now[k] for k in now if k in keep}
        if not keep:
            break
    return sorted(keep.values()), n


def denied(attrs=ATTRS):
    """(pid, attr) of the values psutil refuses, and which we refuse."""
    ps = psutil_table(attrs)
    ours = gv_table(attrs)
    return ({(p, a) for p, d in ps.items() for a in attrs if d[a] == AD},
            {(p, a) for p, d in ours.items() for a in attrs if d[a] == AD},
            set(ps) & set(ours))


if __name__ == "__main__":
    # the child of test_access_denied_as_another_user: its findings as JSON
    bad, n = persistent_mismatches()
    ps_ad, gv_ad, both = denied()
    print(json.dumps({
        "bad": bad, "n": n,
        "ps_only": sorted(x for x in ps_ad - gv_ad if x[0] in both),
        "gv_only": sorted(x for x in gv_ad - ps_ad if x[0] in both),
        "denied": len(ps_ad),
    }))
    sys.exit(0)
