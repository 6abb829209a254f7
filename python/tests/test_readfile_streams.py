# SPDX-License-Identifier: MIT
"""test_readfile_streams.py - getvalues.readfile() on what can be read only
once (pipes, FIFOs), on /proc files longer than a first buffer, and when a
signal interrupts it, against Python's own open().read()."""
import errno
import os
import signal
import threading
import time

import pytest

import getvalues as gv
from conftest import run_python

# More than a pipe holds (64 KiB): the writer waits for the reader.
BIG = 200000


def writer(path_or_fd, data):
    """A thread that writes @data to a pipe's end or a FIFO's path and
    closes it. A reader that went away ends it (EPIPE)."""
    def work():
        fd = path_or_fd if isinstance(path_or_fd, int) else \
            os.open(path_or_fd, os.O_WRONLY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)

    t = threading.Thread(target=work)
    t.start()
    return t


def join_writer(t, fifo):
    """Joins a writer() of @fifo whose reader may have failed: a reader of
    our own lets a writer still waiting in open() go on, and read on."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while t.is_alive():
            try:
                os.read(fd, 1 << 16)
            except BlockingIOError:
                pass
            t.join(0.01)
    finally:
        os.close(fd)


@pytest.mark.parametrize("n", [0, 10, 4096, 10000, BIG])
def test_pipe_whole(n):
    data = os.urandom(n)
    r, w = os.pipe()
    t = writer(w, data)
    try:
        got = gv.readfile(f"/proc/self/fd/{r}")
    finally:
        t.join()
        os.close(r)
    assert got == data


def test_pipe_with_size_reads_the_first_bytes():
    data = os.urandom(10000)
    r, w = os.pipe()
    t = writer(w, data)
    try:
        assert gv.readfile(f"/proc/self/fd/{r}", size=100) == data[:100]
        assert os.read(r, 100) == data[100:200]   # the rest is not read
    finally:
        os.close(r)
        t.join()


def test_stdin_pipe_as_in_the_report():
    """head -c 10000 /dev/urandom | python3 -c '...readfile("/dev/stdin")'"""
    data = os.urandom(10000)
    r = run_python("import sys, getvalues as gv; "
                   "sys.stdout.buffer.write(gv.readfile('/dev/stdin'))",
                   input=data)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == data


@pytest.mark.parametrize("n", [0, 10000, BIG])
def test_fifo_whole(tmp_path, n):
    """The writer writes and closes: every byte, and no wait for a second
    writer (the FIFO used to be opened again after a full first buffer)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = os.urandom(n)
    code = f"import sys, getvalues as gv; " \
           f"sys.stdout.buffer.write(gv.readfile({str(fifo)!r}))"
    t = writer(fifo, data)
    try:
        r = run_python(code, timeout=30)
    finally:
        join_writer(t, fifo)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == data


def test_proc_file_longer_than_a_buffer():
    """/proc/self/environ and cmdline of a child with 20,000-byte ones."""
    code = "import sys, getvalues as gv\n" \
           "for p in ('/proc/self/environ', '/proc/self/cmdline'):\n" \
           "    with open(p, 'rb') as f:\n" \
           "        want = f.read()\n" \
           "    got = gv.readfile(p)\n" \
           "    assert len(want) > 20000, len(want)\n" \
           "    assert got == want, (p, len(got), len(want))\n" \
           "print('ok')"
    r = run_python(code + "\n#" + "x" * 20000, env={"GV_BIG": "y" * 20000})
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == b"ok\n"


@pytest.mark.parametrize("n", [4096, 4097, 123457])
def test_regular_file_past_the_first_buffer(tmp_path, n):
    data = os.urandom(n)
    (tmp_path / "f").write_bytes(data)
    assert gv.readfile(tmp_path / "f") == data
    assert gv.readfile(tmp_path / "f", size=n) == data
    assert gv.readfile(tmp_path / "f", size=n - 1) == data[:-1]


def wait_in_syscall(tid, nr, timeout=20):
    """Until thread @tid of this process is blocked in system call @nr."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/self/task/{tid}/syscall") as f:
                if f.read().split()[0] == str(nr):
                    return True
        except OSError:
            return False    # no /proc/PID/syscall here: just wait
        time.sleep(0.01)
    return False


SYS_openat, SYS_read = 257, 0


class Interrupted(Exception):
    pass


@pytest.fixture
def usr1():
    """SIGUSR1 with a Python handler that counts; the old one after."""
    calls = []
    old = signal.signal(signal.SIGUSR1, lambda *a: calls.append(a))
    yield calls
    signal.signal(signal.SIGUSR1, old)


@pytest.mark.skipif(os.uname().machine != "x86_64",
                    reason="system call numbers of x86_64")
@pytest.mark.parametrize("size", [None, 50000])
@pytest.mark.parametrize("where", ["open", "read"])
def test_signal_is_handled_and_the_call_goes_on(tmp_path, usr1, size, where):
    """PEP 475: a handler that returns lets readfile() carry on; it used to
    raise InterruptedError."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = os.urandom(30000)
    main = threading.get_native_id()
    writers = []

    def kick():
        wfd = None
        if where == "read":     # the reader's open returns, read waits
            wfd = os.open(fifo, os.O_WRONLY)
        wait_in_syscall(main, SYS_openat if where == "open" else SYS_read)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)
        time.sleep(0.2)
        writers.append(writer(wfd if wfd is not None else fifo, data))

    t = threading.Thread(target=kick)
    t.start()
    try:
        got = gv.readfile(fifo, size=size)
    finally:
        t.join()
        join_writer(writers[0], fifo)
    assert len(usr1) == 1
    assert got == data


@pytest.mark.skipif(os.uname().machine != "x86_64",
                    reason="system call numbers of x86_64")
@pytest.mark.parametrize("size", [None, 50000])
def test_signal_handler_that_raises_ends_the_call(tmp_path, size):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    main = threading.get_native_id()

    def handler(*a):
        raise Interrupted()

    def kick():
        wait_in_syscall(main, SYS_openat)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)

    old = signal.signal(signal.SIGUSR1, handler)
    t = threading.Thread(target=kick)
    t.start()
    try:
        with pytest.raises(Interrupted):
            gv.readfile(fifo, size=size)
    finally:
        t.join()
        signal.signal(signal.SIGUSR1, old)


def test_flags_out_of_range(tree):
    for flags in (2**32, 2**31, -2**31 - 1, 2**64):
        with pytest.raises(OverflowError):
            gv.readfile(tree / "text", flags=flags)
    for flags in (2**32, 2**32 + gv.AT_EMPTY_PATH, 2**64, -1):
        with pytest.raises(OverflowError):
            gv.getvalues(tree, ["stat:size"], flags=flags)
    with pytest.raises(TypeError):
        gv.getvalues(tree, ["stat:size"], flags=1.0)
    # in range, but not a flag of theirs: the call's own EINVAL
    for flags in (2**31 - 1, -1):
        with pytest.raises(OSError) as e:
            gv.readfile(tree / "text", flags=flags)
        assert e.value.errno == errno.EINVAL
    for flags in (2**31, 2**32 - 1):
        with pytest.raises(OSError) as e:
            gv.getvalues(tree, ["stat:size"], flags=flags)
        assert e.value.errno == errno.EINVAL
