#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ps.py - a ps-like listing of every process (pid, name, state, rss,
cmdline) from Python: the getvalues module against open().read() loops and
psutil, side by side in one run. Prints a Markdown section for
bench/RESULTS.md: medians of the repeats, wall and CPU time, and ratios.

    bench/ps.py [-r REPEATS] [-n EXTRA_PROCESSES]

-n starts that many extra idle processes first (sleep), so that the
listing has enough rows to measure. The module and libgetvalues.so come
from $GV_BUILD (default build/), as in make check."""
import argparse
import os
import statistics
import subprocess
import sys
import time

build = os.path.abspath(os.environ.get("GV_BUILD", "build"))
if os.environ.get("GV_PY_CHILD") != "1":
    env = dict(os.environ, GV_PY_CHILD="1")
    env["LD_LIBRARY_PATH"] = build + (":" + env["LD_LIBRARY_PATH"]
                                      if env.get("LD_LIBRARY_PATH") else "")
    os.execve(sys.executable, [sys.executable, __file__] + sys.argv[1:], env)
# this file's directory holds bench/psutil.py, which would hide the real
# psutil (Debian's python3-psutil) from `import psutil`: drop it first
here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]
sys.path.insert(0, os.path.join(build, "python"))

import getvalues as gv  # noqa: E402
import psutil           # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")
STATES = {"R": "running", "S": "sleeping", "D": "disk-sleep", "T": "stopped",
          "t": "tracing-stop", "Z": "zombie", "X": "dead", "I": "idle",
          "P": "parked", "W": "waking", "K": "wake-kill"}


def parse(pid, stat, statm, cmdline):
    """One row from the three files, as psutil reports them."""
    lpar, rpar = stat.index(b"("), stat.rindex(b")")
    name = stat[lpar + 1:rpar].decode("utf-8", "surrogateescape")
    state = STATES.get(chr(stat[rpar + 2]), "?")
    rss = int(statm.split()[1]) * PAGE
    args = [a.decode("utf-8", "surrogateescape")
            for a in cmdline.split(b"\0")]
    if args and args[-1] == "":
        args.pop()
    # psutil: a 15-byte comm is cut short; the command line has it whole
    if len(name) >= 15 and args:
        base = os.path.basename(args[0])
        if base.startswith(name):
            name = base
    return (pid, name, state, rss, args)


def pids():
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def by_open_read():
    rows = []
    for pid in pids():
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{pid}/statm", "rb") as f:
                statm = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue                    # the process is gone
        rows.append(parse(pid, stat, statm, cmdline))
    return rows


def by_readfile():
    rows = []
    for pid in pids():
        try:
            stat = gv.readfile(f"/proc/{pid}/stat")
            statm = gv.readfile(f"/proc/{pid}/statm")
            cmdline = gv.readfile(f"/proc/{pid}/cmdline")
        except (FileNotFoundError, ProcessLookupError):
            continue
        rows.append(parse(pid, stat, statm, cmdline))
    return rows


def by_getvalues_per_process():
    rows = []
    for pid in pids():
        try:
            stat, statm, cmdline = gv.getvalues(
                f"/proc/{pid}", ["data:stat", ":statm", ":cmdline"])
        except (FileNotFoundError, ProcessLookupError):
            continue
        if isinstance(stat, bytes) and isinstance(statm, bytes) and \
           isinstance(cmdline, bytes):
            rows.append(parse(pid, stat, statm, cmdline))
    return rows


def by_getvalues_batch():
    """The listing of /proc and every file of every process: two calls."""
    listing = gv.getvalues("/proc", ["dir:"])[0]
    ps = [int(d) for d in listing if d.isdigit()]      # a list of str
    names = []
    for pid in ps:
        names += [f"data:{pid}/stat", f":{pid}/statm", f":{pid}/cmdline"]
    vals = gv.getvalues("/proc", names)
    rows = []
    for i, pid in enumerate(ps):
        stat, statm, cmdline = vals[3 * i:3 * i + 3]
        if isinstance(stat, bytes) and isinstance(statm, bytes) and \
           isinstance(cmdline, bytes):
            rows.append(parse(pid, stat, statm, cmdline))
    return rows


def by_psutil():
    rows = []
    for p in psutil.process_iter(["pid", "name", "status", "memory_info",
                                  "cmdline"]):
        i = p.info
        if i["memory_info"] is None:    # gone, or access denied
            continue
        rows.append((i["pid"], i["name"], i["status"], i["memory_info"].rss,
                     i["cmdline"]))
    return rows


METHODS = [
    ("psutil.process_iter()", by_psutil),
    ("open().read(), 3 files per process", by_open_read),
    ("getvalues.readfile(), 3 files per process", by_readfile),
    ("getvalues.getvalues(), 1 call per process", by_getvalues_per_process),
    ("getvalues.getvalues(), 2 calls in all", by_getvalues_batch),
]


def measure(fn, repeats):
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def same_rows(a, b):
    """Rows of processes in both listings agree on pid, name and cmdline
    (state and rss may change between the two)."""
    ra = {r[0]: (r[1], r[4]) for r in a}
    rb = {r[0]: (r[1], r[4]) for r in b}
    common = ra.keys() & rb.keys()
    return len(common), sum(ra[p] != rb[p] for p in common)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--repeats", type=int, default=21)
    ap.add_argument("-n", "--extra", type=int, default=0)
    args = ap.parse_args()

    extra = [subprocess.Popen(["sleep", "600"]) for _ in range(args.extra)]
    try:
        ref = by_psutil()
        for label, fn in METHODS[1:]:
            # a process may exec or exit between two listings: a few may
            # differ on a busy machine, not more
            n, bad = same_rows(ref, fn())
            if bad > max(3, n // 50) or n < len(ref) * 0.9:
                sys.exit(f"ps.py: {label} disagrees with psutil on {bad} "
                         f"of {n} processes")
        # interleaved rounds, so that a noisy moment hits every method
        results = {label: ([], []) for label, _ in METHODS}
        for _ in range(args.repeats):
            for label, fn in METHODS:
                w, c = measure(fn, 1)
                results[label][0].append(w)
                results[label][1].append(c)
        nproc = len(ref)
    finally:
        for p in extra:
            p.kill()
            p.wait()

    med = {k: (statistics.median(v[0]), statistics.median(v[1]))
           for k, v in results.items()}
    base = med[METHODS[0][0]]
    print(f"{nproc} processes ({args.extra} of them extra `sleep`s); "
          f"{args.repeats} interleaved rounds, medians; Python "
          f"{sys.version.split()[0]}, psutil {psutil.__version__}. Every "
          "method lists pid, name, state, rss and cmdline as psutil does, "
          "checked against psutil's rows before timing. Ratios: psutil's "
          "time / the method's (above 1: faster than psutil).")
    print()
    print("| method | wall ms | CPU ms | vs psutil (wall) | vs psutil (CPU) |")
    print("|---|---:|---:|---:|---:|")
    for label, _ in METHODS:
        w, c = med[label]
        print(f"| {label} | {w * 1e3:.2f} | {c * 1e3:.2f} | "
              f"{base[0] / w:.2f} | {base[1] / c:.2f} |")
    print()
    print("Python's open() costs more than the file: an io object, an "
          "fstat, an ioctl and an lseek around the read, where readfile() "
          "is one C call that opens, reads and closes. One getvalues() "
          "call per process pays on this kernel a fixed cost that three "
          "small files do not repay: its own open and check of the "
          "process's directory, the names copied in and the values out "
          "(getvalues(7)). The two calls for every process make the "
          "fewest system calls (about three per file), and auto reads "
          "their hundreds of files through io_uring; run with "
          "GETVALUES_BACKEND=sync or =uring to see what each backend "
          "gives them here. With the native system call each getvalues() "
          "is one system call.")


if __name__ == "__main__":
    main()
