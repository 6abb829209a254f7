#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""psutil.py - getvalues.process_iter() against psutil.process_iter(),
side by side in one run: the 12 attributes of psutil issue #2956 and every
attribute getvalues has, at several process counts, and psutil's no-I/O
floor (its parsing alone, of the same files read beforehand). Prints a
Markdown section for bench/RESULTS.md: medians of interleaved repeats,
wall and CPU time, ratios.

    bench/psutil.py [-r REPEATS] [-n COUNT,COUNT...]

For each COUNT, idle `sleep` processes are started until the machine has
that many processes (at most 20,000 extra; all killed at the end). The
module comes from $GV_BUILD/python (default build/)."""
import argparse
import io
import os
import platform
import statistics
import sys
import time

# the module has libgetvalues linked in: only its directory is needed
build = os.path.abspath(os.environ.get("GV_BUILD", "build"))
# this file is psutil.py: its own directory must not hide the real psutil
here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]
sys.path.insert(0, os.path.join(build, "python"))

import getvalues as gv          # noqa: E402
import psutil                   # noqa: E402
import psutil._pslinux as pslinux  # noqa: E402

# psutil #2956's attributes, and every attribute of process_table()
A12 = ["pid", "name", "username", "cpu_percent", "memory_percent",
       "cpu_times", "memory_info", "status", "nice", "num_threads",
       "create_time", "cmdline"]
ALL = ["pid", "ppid", "name", "exe", "cmdline", "environ", "status",
       "username", "uids", "gids", "terminal", "create_time", "cpu_times",
       "cpu_num", "memory_info", "memory_full_info", "num_threads",
       "num_ctx_switches", "num_fds", "nice", "ionice", "io_counters", "cwd",
       "open_files", "threads", "cpu_percent", "memory_percent"]
MAX_EXTRA = 20000
SLEEP = "/bin/sleep"


def nprocs():
    return sum(1 for d in os.listdir("/proc") if d.isdigit())


def start_sleepers(target, running):
    """Idle processes until the machine has @target (posix_spawn: vfork
    and exec, a fraction of a millisecond each)."""
    want = min(target - nprocs(), MAX_EXTRA - len(running))
    for _ in range(max(0, want)):
        running.append(os.posix_spawn(SLEEP, [SLEEP, "900"], os.environ))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(
            not exec_done(p) for p in running[-10:]):
        time.sleep(0.05)


def exec_done(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe") == SLEEP or \
            os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(SLEEP)
    except OSError:
        return True


def stop_sleepers(running):
    for pid in running:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    for pid in running:
        os.waitpid(pid, 0)
    running.clear()


def by_getvalues(attrs, threads=0):
    return [p.info for p in gv.process_iter(attrs, threads=threads)]


def by_psutil(attrs):
    return [p.info for p in psutil.process_iter(attrs)]


class Preread:
    """psutil with its /proc files read beforehand: its open functions
    and getpriority() answer from memory, so that timing it measures its
    parsing and object making alone (the floor of #2956)."""
    FILES = ("stat", "status", "statm", "cmdline")

    def __init__(self):
        self.data = {}
        self.pids = psutil.pids()
        for pid in self.pids:
            for f in self.FILES:
                path = f"/proc/{pid}/{f}"
                try:
                    with open(path, "rb") as fh:
                        self.data[path] = fh.read()
                except OSError:
                    pass
        self.nice = {p: os.getpriority(os.PRIO_PROCESS, p)
                     for p in self.pids if self._alive(p)}
        self.pids = [p for p in self.pids if p in self.nice and
                     f"/proc/{p}/stat" in self.data]

    @staticmethod
    def _alive(pid):
        try:
            os.getpriority(os.PRIO_PROCESS, pid)
            return True
        except OSError:
            return False

    def _get(self, path):
        try:
            return self.data[path]
        except KeyError:        # a file that could not be read before
            raise PermissionError(13, "not read beforehand", path) from None

    def __enter__(self):
        self.saved = (pslinux.bcat, pslinux.open_binary, pslinux.open_text,
                      pslinux.cext_posix.getpriority, pslinux.pids)
        pslinux.pids = lambda: list(self.pids)
        pslinux.bcat = lambda path, *a, **k: self._get(path)
        pslinux.open_binary = lambda path: io.BytesIO(self._get(path))
        pslinux.open_text = lambda path: io.StringIO(
            self._get(path).decode("utf-8", "surrogateescape"))
        pslinux.cext_posix.getpriority = lambda pid: self.nice[pid]
        return self

    def __exit__(self, *exc):
        (pslinux.bcat, pslinux.open_binary, pslinux.open_text,
         pslinux.cext_posix.getpriority, pslinux.pids) = self.saved


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def run_count(target, repeats, running):
    """The medians at @target processes: {label: (wall, cpu)}."""
    start_sleepers(target, running)
    pre = Preread()
    cases = [
        ("gv12", lambda: by_getvalues(A12)),
        ("gv12t1", lambda: by_getvalues(A12, threads=1)),
        ("ps12", lambda: by_psutil(A12)),
        ("gvall", lambda: by_getvalues(ALL)),
        ("psall", lambda: by_psutil(ALL)),
    ]

    def floor():
        with pre:
            by_psutil(A12)
    cases.append(("floor12", floor))
    for _, fn in cases:         # warm: psutil keeps its Process objects
        fn()
    res = {label: ([], []) for label, _ in cases}
    for _ in range(repeats):    # interleaved: a noisy moment hits all
        for label, fn in cases:
            w, c = timed(fn)
            res[label][0].append(w)
            res[label][1].append(c)
    return nprocs(), {k: (statistics.median(v[0]), statistics.median(v[1]))
                      for k, v in res.items()}


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        with open("/sys/devices/system/cpu/vulnerabilities/meltdown") as f:
            pti = f.read().strip()
    except OSError:
        pti = "unknown"
    n = 200000
    t = time.perf_counter()
    for _ in range(n):
        os.getppid()
    sc = (time.perf_counter() - t) / n * 1e9
    return (f"{model}; meltdown: {pti}; os.getppid() from Python "
            f"{sc:.0f} ns a call (system call and interpreter)")


def row(label, g, p):
    return (f"| {label} | {g[0] * 1e3:.1f} | {g[1] * 1e3:.1f} | "
            f"{p[0] * 1e3:.1f} | {p[1] * 1e3:.1f} | "
            f"{p[0] / g[0]:.2f} | {p[1] / g[1]:.2f} |")


def report(results, repeats):
    print(f"{repeats} interleaved rounds, medians; Python "
          f"{platform.python_version()}, psutil {psutil.__version__}, "
          f"GETVALUES_BACKEND={os.environ.get('GETVALUES_BACKEND', 'auto')}"
          f". {machine()}.")
    print()
    print("Both sides are called the way a monitor calls them, again and "
          "again (psutil keeps its Process objects between calls), and "
          "every process's `.info` dict is built. getvalues shares a "
          "listing out between threads, one per CPU; \"threads=1\" keeps "
          "it in the calling thread. CPU is the process's "
          "own (every thread, io_uring's workers included). Ratios: "
          "psutil's time / getvalues' (above 1: getvalues is faster). "
          "\"psutil, files read beforehand\" is psutil's no-I/O floor: "
          "the 12 attributes with its /proc reads and getpriority() "
          "answered from memory.")
    print()
    print("| processes, attributes | getvalues wall ms | getvalues CPU ms "
          "| psutil wall ms | psutil CPU ms | ratio wall | ratio CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n, med in results:
        print(row(f"{n}, the 12 of #2956", med["gv12"], med["ps12"]))
        print(row(f"{n}, the 12, threads=1", med["gv12t1"], med["ps12"]))
        print(row(f"{n}, all {len(ALL)}", med["gvall"], med["psall"]))
        print(row(f"{n}, 12 vs psutil, files read beforehand",
                  med["gv12"], med["floor12"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--repeats", type=int, default=11)
    ap.add_argument("-n", "--counts", default="300,2000")
    args = ap.parse_args()
    running, results = [], []
    try:
        for target in sorted(int(x) for x in args.counts.split(",")):
            results.append(run_count(target, args.repeats, running))
    finally:
        stop_sleepers(running)
    report(results, args.repeats)


if __name__ == "__main__":
    main()
