# SPDX-License-Identifier: MIT
"""test_getvalues_values.py - what getvalues.getvalues() gives back:
listings as lists of names (as os.listdir() gives them), typed=True's ints
against os.stat(), os.statvfs(), /proc/self/fdinfo and stat(1); what it
refuses as names; the signatures inspect and python/getvalues.pyi see."""
import ast
import errno
import inspect
import os
import stat
import subprocess

import pytest

import getvalues as gv

HERE = os.path.dirname(os.path.abspath(__file__))
PYI = os.path.join(HERE, "..", "getvalues.pyi")


@pytest.mark.parametrize("names", ["stat:uid", b"stat:uid",
                                   bytearray(b"stat:uid")])
def test_one_name_alone_is_a_type_error(tree, names):
    with pytest.raises(TypeError, match="names must be a list"):
        gv.getvalues(tree, names)


def test_names_from_any_iterable(tree):
    want = [b"12"]
    assert gv.getvalues(tree / "text", ("stat:size",)) == want
    assert gv.getvalues(tree / "text", (n for n in ["stat:size"])) == want
    assert gv.getvalues(tree / "text", {"stat:size": 1}) == want
    with pytest.raises(TypeError, match="names must be a list"):
        gv.getvalues(tree, 3)
    with pytest.raises(TypeError, match=r"names\[1\] must be str"):
        gv.getvalues(tree, ["stat:size", 3])


def test_dir_as_os_listdir_gives_it(tree):
    odd = b"caf\xe9-not-utf8"
    (tree / "sub" / os.fsdecode(odd)).write_bytes(b"")
    by_str = gv.getvalues(str(tree), ["dir:sub", "dir:"])
    by_path = gv.getvalues(tree, ["dir:sub"])
    by_bytes = gv.getvalues(os.fsencode(tree), ["dir:sub", b"dir:"])
    assert sorted(by_str[0]) == sorted(os.listdir(str(tree / "sub")))
    assert sorted(by_str[1]) == sorted(os.listdir(str(tree)))
    assert by_path[0] == by_str[0]
    assert sorted(by_bytes[0]) == sorted(os.listdir(os.fsencode(tree /
                                                                "sub")))
    assert sorted(by_bytes[1]) == sorted(os.listdir(os.fsencode(tree)))
    assert os.fsdecode(odd) in by_str[0] and odd in by_bytes[0]
    (tree / "none").mkdir()
    assert gv.getvalues(tree, ["dir:none"]) == [[]]


def mount_ids():
    with open("/proc/self/mountinfo") as f:
        return {line.split()[0] for line in f}


def test_other_lists(tree):
    before = mount_ids()
    got = gv.getvalues(tree / "text", ["stat", "mntns", "xattr", ":"])
    after = mount_ids()
    fields = got[0]
    assert {"size", "mode", "ino", "mtime"} <= set(fields)
    assert all(isinstance(f, str) for f in fields)
    assert before & after <= set(got[1]) <= before | after
    assert got[2] == os.listxattr(tree / "text")
    assert isinstance(got[3], OSError)                 # "xattr:": EINVAL
    mnt = gv.getvalues(b"/", [b"mntns:" + got[1][0].encode(), b"mnt"])
    assert b"mountpoint" in mnt[0] and b"fstype" in mnt[1]


def test_xattr_list(tree):
    try:
        os.setxattr(tree / "text", "user.gv.one", b"1")
        os.setxattr(tree / "text", "user.gv.two", b"2")
    except OSError as e:
        pytest.skip(f"no user xattrs on {tree}: {e.strerror}")
    got = gv.getvalues(tree / "text", ["xattr"])[0]
    assert sorted(got) == sorted(os.listxattr(tree / "text"))
    assert {"user.gv.one", "user.gv.two"} <= set(got)


def test_numbers_are_bytes_without_typed(tree):
    got = gv.getvalues(tree / "text", ["stat:size", ":mode", "fs:bsize"])
    assert got[0] == b"12"
    assert all(isinstance(v, bytes) for v in got)


def stat_fields(st):
    return {"size": st.st_size, "ino": st.st_ino, "nlink": st.st_nlink,
            "uid": st.st_uid, "gid": st.st_gid,
            "mode": stat.S_IMODE(st.st_mode), "dev": st.st_dev,
            "rdev": st.st_rdev, "blocks": st.st_blocks,
            "blksize": st.st_blksize, "mtime": st.st_mtime_ns,
            "ctime": st.st_ctime_ns}


@pytest.mark.parametrize("path,group", [("text", "stat"), ("link", "lstat"),
                                        ("link", "stat"),
                                        ("/dev/null", "stat")])
def test_typed_stat_against_os_stat(tree, path, group):
    full = tree / path
    want = stat_fields(os.lstat(full) if group == "lstat" else os.stat(full))
    names = list(want)
    got = gv.getvalues(full, [f"{group}:{names[0]}"] +
                       [f":{n}" for n in names[1:]] + [":type", ":atime"],
                       flags=gv.AT_SYMLINK_NOFOLLOW if group == "lstat"
                       else 0, typed=True)
    assert dict(zip(names, got)) == want
    assert isinstance(got[-2], bytes)      # stat:type is a word
    assert isinstance(got[-1], int)


def test_typed_subpath_and_shorthand(tree):
    st = os.lstat(tree / "link")
    got = gv.getvalues(tree, ["lstat:mode:link", ":ino:link", "data:text",
                              ":link", "stat:nosuch", ":size:text",
                              "dir:sub"], typed=True)
    assert got[:2] == [stat.S_IMODE(st.st_mode), st.st_ino]
    assert got[2:4] == [b"hello world\n", b"text"]
    assert isinstance(got[4], FileNotFoundError)
    assert got[5] == 12
    assert isinstance(got[6], list) and len(got[6]) == 300


def test_typed_btime_against_stat_1(tree):
    r = subprocess.run(["stat", "-c", "%W", tree / "text"],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"stat(1) cannot tell a birth time: {r.stderr}")
    got = gv.getvalues(tree / "text", ["stat:btime"], typed=True)[0]
    if r.stdout.strip() in ("0", "-"):
        assert got is None          # the file system has none
    else:
        assert got // 10**9 == int(r.stdout)


def test_typed_mntid_against_fdinfo(tree):
    fd = os.open(tree / "text", os.O_RDONLY)
    try:
        with open(f"/proc/self/fdinfo/{fd}") as f:
            mnt_id = int(dict(line.split(":", 1) for line in f)["mnt_id"])
    finally:
        os.close(fd)
    assert gv.getvalues(tree / "text", ["stat:mntid"], typed=True) == [
        mnt_id]


def test_typed_fs_against_statvfs_and_stat_1():
    for path in ("/proc", "/"):
        sv = os.statvfs(path)
        got = gv.getvalues(path, ["fs:bsize", ":frsize", ":blocks",
                                  ":files", ":namelen", ":type", ":flags",
                                  ":bfree"], typed=True)
        assert got[:5] == [sv.f_bsize, sv.f_frsize, sv.f_blocks,
                           sv.f_files, sv.f_namemax]
        magic = subprocess.run(["stat", "-f", "-c", "%t", path],
                               capture_output=True, text=True, check=True)
        assert got[5] == int(magic.stdout, 16)
        assert isinstance(got[6], bytes) and isinstance(got[7], int)


def test_signatures():
    sig = inspect.signature(gv.readfile)
    assert list(sig.parameters) == ["path", "dir_fd", "size", "flags"]
    assert sig.parameters["size"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["size"].default is None
    sig = inspect.signature(gv.getvalues)
    assert list(sig.parameters) == ["path", "names", "dir_fd", "flags",
                                    "typed", "max_size"]
    assert sig.parameters["typed"].default is False
    assert sig.parameters["max_size"].default is None
    # the signature is the one the functions take
    assert gv.readfile(path="/proc/self/comm", size=1) == b"p"
    with pytest.raises(TypeError):
        gv.getvalues("/", ["stat:size"], 0)


def test_stub_file_matches_the_module():
    """python/getvalues.pyi: every public name of the module, and every
    function with the module's own parameters."""
    with open(PYI) as f:
        tree = ast.parse(f.read())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    names = set(funcs)
    for n in tree.body:
        if isinstance(n, ast.AnnAssign):
            names.add(n.target.id)
        elif isinstance(n, ast.ClassDef):
            names.add(n.name)
    names = {n for n in names if not n.startswith("_")}
    public = {n for n in dir(gv) if not n.startswith("_")}
    assert public - names == set(), "missing from getvalues.pyi"
    assert names - public == set(), "in getvalues.pyi, not in the module"
    for name, node in funcs.items():
        try:
            sig = inspect.signature(getattr(gv, name))
        except ValueError:
            continue
        a = node.args
        stub = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
        assert stub == list(sig.parameters), name
        assert [p.arg for p in a.kwonlyargs] == [
            p.name for p in sig.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY], name


def test_entry_errors_keep_their_name(tree):
    got = gv.getvalues(str(tree), ["dir:missing", b"stat:size:missing"],
                       typed=True)
    assert got[0].errno == errno.ENOENT and got[0].filename == "dir:missing"
    assert got[1].filename == b"stat:size:missing"
