#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
layers.py - the calls and data references between the files of src/, as the
linker sees them (nm of the objects), and a check that they form no cycle.

    scripts/layers.py [--quiet] build/src/*.o   (make layers; make check)

Each line "a -> b: sym ..." says that a.o uses symbols b.o defines. The
files are then listed level by level, lowest first: a file calls only
files of lower levels. A cycle, a set of files that reach each other, fails
the check (exit 1), each named with the edges inside it, and so does an
edge from a file to one of a higher layer (LAYERS below), unless the edge
is in ALLOWED below. --quiet prints only a failure and the
last line.

src/internal.h describes the layers the files are meant to keep.
"""
import os
import subprocess
import sys

# Edges that still close a cycle, each with the change that removes it.
# They are left out of the cycle check (and listed as allowed); any other
# edge that closes a cycle fails. Remove a line once its change is made.
ALLOWED = {}

# The layers of src/internal.h, lowest first: a file may use files of its
# own layer or lower ones; an edge up fails as a cycle does. A file that
# is in no layer here is named in a note, and only kept out of cycles.
LAYERS = [
    "fds scratch uaccess ustrings proc",
    "walk sink",
    "lookup reopen data_open",
    "mnt_table mountinfo statmount uring uring_batch uring_backend native "
    "sync backend",
    "cost data_policy",
    "stat fs xattr data dir mnt",
    "names",
    "getvalues readfile alloc version",
]
LAYER = {f: n for n, files in enumerate(LAYERS) for f in files.split()}

DEFINED = set("TDBRVWGCSi")


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            uses.add(name)
        elif kind in DEFINED:
            defs.add(name)
    return defs, uses


def edges_of(objs):
    """The objects of the library, as make lists them: a directory would
    hold the objects of files since renamed too."""
    if not objs:
        sys.exit("layers.py: no objects given (make layers)")
    owner, uses = {}, {}
    for o in objs:
        f = os.path.basename(o)[:-2]
        defs, uses[f] = symbols(o)
        for s in defs:
            owner[s] = f
    edges = {f: {} for f in uses}
    for f, used in uses.items():
        for s in used:
            g = owner.get(s)
            if g and g != f:
                edges[f].setdefault(g, []).append(s)
    return edges


def components(nodes, succ):
    """Tarjan's strongly connected components, without recursion."""
    index, low, onstack, stack, sccs = {}, {}, set(), [], []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                elif w in onstack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                sccs.append(sorted(scc))
    return sccs


def levels(nodes, succ):
    """Each file's level: 0 for a file that calls none, else one above the
    highest it calls (the graph has no cycle)."""
    level = {}

    def of(v):
        if v not in level:
            stack = [v]
            while stack:
                u = stack[-1]
                todo = [w for w in succ[u] if w not in level]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                level[u] = 1 + max((level[w] for w in succ[u]), default=-1)
        return level[v]

    for v in nodes:
        of(v)
    return level


def main():
    args = sys.argv[1:]
    quiet = "--quiet" in args
    args = [a for a in args if a != "--quiet"]
    edges = edges_of(args)
    if not quiet:
        print(f"# cross-file edges of {len(args)} objects: file -> file it "
              "uses: symbols")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                tag = "  (allowed, see ALLOWED)" if (a, b) in ALLOWED else ""
                print(f"{a} -> {b}: {' '.join(sorted(edges[a][b]))}{tag}")

    nodes = set(edges)
    succ = {a: {b for b in edges[a] if (a, b) not in ALLOWED} for a in nodes}
    cycles = [c for c in components(nodes, succ) if len(c) > 1]
    for f in sorted(nodes - set(LAYER)):
        print(f"note: {f} is in no layer: add it to LAYERS in "
              "scripts/layers.py")
    up = sorted((a, b) for a in nodes for b in succ[a]
                if a in LAYER and b in LAYER and LAYER[b] > LAYER[a])
    for a, b in up:
        print(f"FAIL: {a} (layer {LAYER[a] + 1}) uses {b} (layer "
              f"{LAYER[b] + 1}), a layer above it: "
              f"{' '.join(sorted(edges[a][b]))}")
    stale = sorted(e for e in ALLOWED if e[1] not in edges.get(e[0], {}))
    for a, b in stale:
        print(f"note: allowed edge {a} -> {b} is gone: take it out of "
              "ALLOWED in scripts/layers.py")
    if cycles or up:
        for c in cycles:
            print(f"FAIL: a cycle of {len(c)} files: {' '.join(c)}")
            for a in c:
                for b in sorted(edges[a]):
                    if b in c and (a, b) not in ALLOWED:
                        print(f"    {a} -> {b}: "
                              f"{' '.join(sorted(edges[a][b]))}")
        return 1

    level = levels(nodes, succ)
    if not quiet:
        print("# levels, lowest first (without the allowed edges)")
        for n in range(max(level.values()) + 1):
            files = sorted(v for v in nodes if level[v] == n)
            print(f"{n}: {' '.join(files)}")
    print(f"layers: ok: {sum(len(e) for e in edges.values())} edges between "
          f"{len(nodes)} files, no cycle, none up a layer "
          f"({len(ALLOWED) - len(stale)} allowed edges)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
