# SPDX-License-Identifier: MIT
"""test_bench_scripts.py - the Python benchmarks, bench/ps.py and
bench/psutil.py, run as make bench and make demo run them (tiny sizes), and
import the real psutil (Debian's python3-psutil): bench/psutil.py sits in
the scripts' own directory, where Python looks first, and once hid it from
bench/ps.py (`'psutil' is not a package`)."""
import os
import re
import subprocess
import sys

import pytest

from conftest import MODULE_DIR

psutil = pytest.importorskip("psutil", reason="python3-psutil is not "
                             "installed: the benchmarks compare against it")

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BENCH = os.path.join(TOP, "bench")
BUILD = os.path.dirname(MODULE_DIR)     # build/python's parent


def real_psutil_dir():
    return os.path.dirname(os.path.realpath(psutil.__file__))


@pytest.fixture(autouse=True)
def need_proc():
    if not os.path.exists("/proc/self/stat"):
        pytest.skip("/proc is not mounted: the benchmarks list processes")


@pytest.mark.parametrize("script", ["ps.py", "psutil.py"])
def test_imports_real_psutil(script):
    """The script's top, run as Python runs a script (its directory first
    in sys.path), imports psutil from where this test found it, not
    bench/psutil.py."""
    code = ("import runpy, sys\n"
            f"sys.path.insert(0, {BENCH!r})\n"
            f"runpy.run_path({os.path.join(BENCH, script)!r}, "
            "run_name='bench_script')\n"
            "print(sys.modules['psutil'].__file__)\n")
    env = dict(os.environ, GV_BUILD=BUILD, GV_PY_CHILD="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=BENCH,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    got = os.path.dirname(os.path.realpath(r.stdout.strip()))
    assert got == real_psutil_dir(), \
        f"{script} imported psutil from {got}, not {real_psutil_dir()}"


def run_bench(args):
    env = dict(os.environ, GV_BUILD=BUILD)
    env.pop("GV_PY_CHILD", None)
    r = subprocess.run([sys.executable] + args, env=env, cwd=TOP,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, \
        f"{' '.join(args)} exited {r.returncode}: {r.stderr[-2000:]}"
    assert f"psutil {psutil.__version__}" in r.stdout, r.stdout[:500]
    return r.stdout


def table(out, first):
    """The rows of the Markdown table whose header starts with @first."""
    rows, inside = [], False
    for line in out.splitlines():
        if line.startswith(f"| {first}"):
            inside = True
        elif inside and line.startswith("|---"):
            continue
        elif inside and line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif inside:
            break
    return rows


def positive(cell):
    return re.fullmatch(r"[0-9]+\.[0-9]+", cell) and float(cell) > 0


def test_ps_py_runs():
    """bench/ps.py from the top of the tree, as make bench runs it: psutil's
    rows and every method's, with wall and CPU ratios."""
    out = run_bench([os.path.join("bench", "ps.py"), "-r", "1"])
    rows = table(out, "method")
    assert [r[0] for r in rows][:1] == ["psutil.process_iter()"], out
    assert len(rows) == 5, out
    for r in rows:
        assert all(positive(c) for c in r[1:]), r


def test_psutil_py_runs():
    """bench/psutil.py at the machine's own process count (-n 1 starts no
    sleeper): getvalues.process_iter() against psutil, four rows."""
    out = run_bench([os.path.join("bench", "psutil.py"), "-r", "1",
                     "-n", "1"])
    rows = table(out, "processes, attributes")
    assert len(rows) == 4, out
    assert "the 12 of #2956" in rows[0][0], rows
    for r in rows:
        assert all(positive(c) for c in r[1:]), r
