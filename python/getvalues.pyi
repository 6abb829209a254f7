# SPDX-License-Identifier: MIT
"""getvalues.pyi - the types of the getvalues module (python/getvalues.c),
for type checkers and editors; python/tests check it against the module."""
import os
from typing import Any, Iterable, Iterator, Union

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

# ---- the process table (psutil's attributes) ----
_Attr = str


class ProcessInfo:
    """What process_iter() yields: as psutil.Process after
    process_iter(attrs), .pid and .info."""
    @property
    def pid(self) -> int: ...
    info: dict[str, Any]


def process_table(attrs: Iterable[_Attr] | None = None,
                  ad_value: Any = None, *,
                  threads: int = 0) -> list[dict[str, Any]]: ...


def process_iter(attrs: Iterable[_Attr] | None = None,
                 ad_value: Any = None, *,
                 threads: int = 0) -> Iterator[ProcessInfo]: ...
