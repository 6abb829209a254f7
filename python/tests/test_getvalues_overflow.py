# SPDX-License-Identifier: MIT
"""test_getvalues_overflow.py - a value too large for any buffer fails
alone (EOVERFLOW) and every other entry of the call, shorthand included,
has its value, as getvalues(1) gives them."""
import errno
import os
import stat

import pytest

import getvalues as gv

SMALL = b"hi\n"


@pytest.fixture
def sparse(tmp_path):
    """A directory with a 300 MB sparse file "big" (more than the library's
    largest buffer, 256 MiB), a 100 kB one "mid" and a file "small"."""
    with open(tmp_path / "big", "wb") as f:
        f.truncate(300 << 20)
    (tmp_path / "mid").write_bytes(os.urandom(100000))
    (tmp_path / "small").write_bytes(SMALL)
    os.chmod(tmp_path, 0o700)
    return tmp_path


def overflowed(v, name=None):
    return isinstance(v, OSError) and v.errno == errno.EOVERFLOW and \
        (name is None or v.filename == name)


def test_the_report(sparse):
    """The report's case, at the library's own limit: it restarted at
    ':small' without its prefix (EINVAL)."""
    got = gv.getvalues(sparse, ["data:big", ":small", "stat:size", ":mode"])
    st = os.stat(sparse)
    assert overflowed(got[0], "data:big")
    assert got[1:] == [SMALL, str(st.st_size).encode(),
                       b"%04o" % stat.S_IMODE(st.st_mode)]


@pytest.mark.parametrize("where", range(5))
def test_overflow_anywhere_in_shorthand(sparse, where):
    """data:small, :small, ..., with :mid (over max_size) at @where: the
    shorthand after it keeps its prefix, the values before stay."""
    names = ["data:small", ":small", ":small", ":small", ":small"]
    names[where] = "data:mid" if where == 0 else ":mid"
    got = gv.getvalues(sparse, names + ["stat:size:small", ":mode:small"],
                       typed=True, max_size=65536)
    for i, v in enumerate(got[:5]):
        assert overflowed(v, names[i]) if i == where else v == SMALL, (i, v)
    assert got[5:] == [len(SMALL),
                       stat.S_IMODE(os.stat(sparse / "small").st_mode)]


def test_max_size(sparse):
    mid = (sparse / "mid").read_bytes()
    # a value fits when it is shorter than max_size (getvalues(3))
    assert gv.getvalues(sparse, ["data:mid"], max_size=len(mid) + 1) == [mid]
    assert overflowed(gv.getvalues(sparse, ["data:mid"],
                                   max_size=len(mid))[0])
    got = gv.getvalues(sparse, ["data:mid", ":mid", ":small", ":mid"],
                       max_size=1000)
    assert [overflowed(v) for v in got] == [True, True, False, True]
    assert got[2] == SMALL
    for bad in (0, -1):
        with pytest.raises(ValueError):
            gv.getvalues(sparse, ["data:small"], max_size=bad)
    with pytest.raises(TypeError):
        gv.getvalues(sparse, ["data:small"], max_size="1")
