# SPDX-License-Identifier: MIT
"""conftest.py - what the tests of the getvalues module share: a child
Python that imports the same module (for what could crash or hang the
interpreter), and a tree of real files."""
import os
import subprocess
import sys

import pytest

import getvalues as gv

MODULE_DIR = os.path.dirname(os.path.abspath(gv.__file__))


def run_python(code, timeout=60, **kwargs):
    """Runs @code in a new interpreter that imports this same module;
    returns the CompletedProcess (a crash is a negative returncode, a hang
    a subprocess.TimeoutExpired)."""
    env = dict(os.environ, PYTHONPATH=MODULE_DIR)
    env.update(kwargs.pop("env", {}))
    return subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, timeout=timeout, **kwargs)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "text").write_bytes(b"hello world\n")
    for n in (4095, 4096, 4097, 65536, (3 << 20) + 7):
        (tmp_path / f"size-{n}").write_bytes(os.urandom(n))
    (tmp_path / "sub").mkdir()
    for n in range(300):
        (tmp_path / "sub" / f"entry-{n:03d}").write_bytes(b"")
    os.symlink("text", tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    return tmp_path
