# SPDX-License-Identifier: MIT
"""test_getvalues.py - the getvalues Python module against Python's own
open().read(), os.stat() and os.listdir() on real files, /proc and /sys."""
import errno
import os
import pathlib
import stat
import subprocess
import sys
import threading

import pytest

import getvalues as gv
from conftest import MODULE_DIR, run_python


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- readfile ----

@pytest.mark.parametrize("name", ["empty", "text", "size-4095", "size-4096",
                                  "size-4097", "size-65536",
                                  "size-3145735"])
def test_readfile_whole_file(tree, name):
    assert gv.readfile(tree / name) == read(tree / name)


@pytest.mark.parametrize("path", ["/proc/self/cmdline", "/proc/version",
                                  "/sys/kernel/mm/transparent_hugepage/enabled",
                                  "/proc/self/maps"])
def test_readfile_pseudo_files(path):
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist on this kernel")
    got = gv.readfile(path)
    if path.endswith("maps"):      # changes as the process runs: same shape
        assert got.count(b"\n") > 5 and got.endswith(b"\n")
    else:
        assert got == read(path)


def test_readfile_size_truncates(tree):
    want = read(tree / "size-4097")
    assert gv.readfile(tree / "size-4097", size=100) == want[:100]
    assert gv.readfile(tree / "size-4097", size=0) == b""
    assert gv.readfile(tree / "text", size=1 << 20) == b"hello world\n"
    with pytest.raises(ValueError):
        gv.readfile(tree / "text", size=-1)


def test_readfile_path_types_and_dir_fd(tree):
    want = b"hello world\n"
    assert gv.readfile(str(tree / "text")) == want
    assert gv.readfile(os.fsencode(tree / "text")) == want
    assert gv.readfile(pathlib.Path(tree, "text")) == want
    fd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert gv.readfile("text", dir_fd=fd) == want
        assert gv.readfile("sub/../text", dir_fd=fd) == want
    finally:
        os.close(fd)
    with pytest.raises(TypeError):
        gv.readfile(42)
    with pytest.raises(TypeError):
        gv.readfile(tree / "text", 0)      # dir_fd is keyword-only


def test_readfile_errors(tree):
    with pytest.raises(FileNotFoundError) as e:
        gv.readfile(tree / "missing")
    assert e.value.filename == tree / "missing"
    with pytest.raises(IsADirectoryError):
        gv.readfile(tree / "sub")
    with pytest.raises(OSError) as e:
        gv.readfile(tree / "link", flags=gv.O_NOFOLLOW)
    assert e.value.errno == errno.ELOOP
    with pytest.raises(OSError) as e:
        gv.readfile(tree / "text", flags=os.O_APPEND)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OSError) as e:
        gv.readfile("text", dir_fd=9999)
    assert e.value.errno == errno.EBADF


def test_readfile_permission(tree):
    if os.geteuid() == 0:
        pytest.skip("root reads files of mode 0000: needs an unprivileged user")
    os.chmod(tree / "text", 0)
    with pytest.raises(PermissionError):
        gv.readfile(tree / "text")


def test_readfile_noatime(tree):
    assert gv.readfile(tree / "text", flags=gv.O_NOATIME) == b"hello world\n"


# ---- getvalues ----

def test_getvalues_against_stat(tree):
    st = os.stat(tree / "size-4097")
    got = gv.getvalues(tree, ["stat:size:size-4097", ":ino:size-4097",
                              ":mode:size-4097", "lstat:type:link",
                              "stat:type:link", "stat:nlink"])
    assert got[0] == str(st.st_size).encode()
    assert got[1] == str(st.st_ino).encode()
    assert got[2] == b"%04o" % stat.S_IMODE(st.st_mode)
    assert got[3] == b"lnk" and got[4] == b"reg"
    assert got[5] == str(os.stat(tree).st_nlink).encode()


def test_getvalues_data_and_dir(tree):
    got = gv.getvalues(tree, ["data:text", ":size-3145735", "dir:sub",
                              "data:link"])
    assert got[0] == b"hello world\n"
    assert got[1] == read(tree / "size-3145735")   # past the first buffer
    assert sorted(got[2]) == sorted(os.listdir(tree / "sub"))
    assert got[3] == b"text"                        # a symlink's target


def test_getvalues_entry_errors_are_not_raised(tree):
    got = gv.getvalues(tree, ["data:missing", "data:fifo", "stat:sise",
                              ":size", "data:text"])
    assert isinstance(got[0], FileNotFoundError)
    assert got[0].errno == errno.ENOENT and got[0].filename == "data:missing"
    assert isinstance(got[1], OSError) and got[1].errno == errno.ENODATA
    assert got[2].errno == errno.ENOENT           # unknown field
    assert isinstance(got[3], bytes)              # :size after stat:sise
    assert got[4] == b"hello world\n"


def test_getvalues_shorthand_without_prefix(tree):
    got = gv.getvalues(tree, [":size"])
    assert isinstance(got[0], OSError) and got[0].errno == errno.EINVAL


def test_getvalues_lists():
    groups = gv.getvalues("/", [""])[0]
    assert groups == ["mnt", "mntns", "xattr", "data", "dir", "stat",
                      "lstat", "fs"]


def test_getvalues_mount_of_proc():
    got = gv.getvalues("/proc", ["mnt:fstype", ":mountpoint", "fs:type"])
    assert got[0] == b"proc" and got[1] == b"/proc" and got[2] == b"0x9fa0"


def test_getvalues_xattr(tree):
    try:
        os.setxattr(tree / "text", "user.gv", b"\x00\x01v")
    except OSError as e:
        pytest.skip(f"no user xattrs on {tree}: {e.strerror}")
    got = gv.getvalues(tree / "text", ["xattr:user.gv", "xattr:user.none"])
    assert got[0] == b"\x00\x01v"
    assert got[1].errno == errno.ENODATA


def test_getvalues_call_errors(tree):
    with pytest.raises(FileNotFoundError) as e:
        gv.getvalues(tree / "missing", ["stat:size"])
    assert e.value.filename == tree / "missing"
    with pytest.raises(OSError) as e:
        gv.getvalues(tree, ["stat:size"], flags=0x40000000)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        gv.getvalues(tree, ["stat:size", 3])
    with pytest.raises(TypeError):
        gv.getvalues(tree, 3)
    assert gv.getvalues(tree, []) == []


def test_getvalues_empty_path_and_dir_fd(tree):
    fd = os.open(tree / "text", os.O_RDONLY)
    try:
        got = gv.getvalues("", ["stat:size", "stat:ino"], dir_fd=fd,
                           flags=gv.AT_EMPTY_PATH)
    finally:
        os.close(fd)
    st = os.stat(tree / "text")
    assert got == [b"12", str(st.st_ino).encode()]


def test_getvalues_names_as_bytes(tree):
    assert gv.getvalues(os.fsencode(tree), [b"data:text"]) == [
        b"hello world\n"]


def test_threads_run_at_once(tree):
    want = read(tree / "size-65536")
    errors = []

    def work():
        for _ in range(200):
            if gv.readfile(tree / "size-65536") != want or \
               gv.getvalues(tree, ["data:size-65536"])[0] != want:
                errors.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


CLEAR_DURING_CALL = """
import threading
import getvalues as gv
N = 50000
for _ in range(3):
    names = ["stat:nosuch"] * N
    calling = threading.Event()

    def clear():
        calling.wait()
        names.clear()   # runs once the call lets go of the GIL

    t = threading.Thread(target=clear)
    t.start()
    calling.set()
    got = gv.getvalues("/", names)
    t.join()
    assert names == [] and len(got) in (0, N), len(got)
    assert all(isinstance(v, FileNotFoundError) and
               v.filename == "stat:nosuch" for v in got)
print("ok")
"""


def test_names_changed_by_another_thread_meanwhile():
    """Another thread empties the list of names while the call runs
    without the GIL: the call works on the names as they were when it
    started (it used to read the emptied list afterwards, and crash)."""
    r = run_python(CLEAR_DURING_CALL)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert r.stdout == b"ok\n"


def test_module_needs_no_library_path():
    """libgetvalues is linked into the module: it imports with no
    LD_LIBRARY_PATH (as from a user's site-packages), and loads no
    libgetvalues.so."""
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    code = "import getvalues as gv\n" \
           "with open('/proc/self/maps') as f:\n" \
           "    assert 'libgetvalues.so' not in f.read()\n" \
           "with open('/proc/self/cmdline', 'rb') as f:\n" \
           "    assert gv.readfile('/proc/self/cmdline') == f.read()\n" \
           "print('ok')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       env=dict(env, PYTHONPATH=MODULE_DIR))
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == b"ok\n"


def test_constants():
    assert gv.O_NOFOLLOW == os.O_NOFOLLOW
    assert gv.O_NOATIME == os.O_NOATIME
    assert gv.AT_SYMLINK_NOFOLLOW == 0x100
    assert gv.AT_EMPTY_PATH == 0x1000 and gv.AT_NO_AUTOMOUNT == 0x800
    assert gv.__version__.count(".") == 2
