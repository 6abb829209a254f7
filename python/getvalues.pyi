# SPDX-License-Identifier: MIT
"""getvalues.pyi - the types of the getvalues module (python/getvalues.c),
for type checkers and editors; python/tests check it against the module."""
import os
from typing import Iterable, Union

_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
_Name = Union[str, bytes]
# a value of getvalues(): bytes, a list of names (listings), an int or None
# (typed=True's numbers), or the OSError of an entry that failed
_Value = Union[bytes, list[str], list[bytes], int, None, OSError]

# ---- readfile/getvalues (newcomer) ----
__version__: str
O_NOFOLLOW: int
O_NOATIME: int
AT_SYMLINK_NOFOLLOW: int
AT_EMPTY_PATH: int
AT_NO_AUTOMOUNT: int
AT_FDCWD: int


def readfile(path: _Path, *, dir_fd: int | None = None,
             size: int | None = None, flags: int = 0) -> bytes: ...


def getvalues(path: _Path, names: Iterable[_Name], *,
              dir_fd: int | None = None, flags: int = 0,
              typed: bool = False,
              max_size: int | None = None) -> list[_Value]: ...
