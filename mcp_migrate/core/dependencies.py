"""The other files a file's check read: a helper's module one import away, a project module read
for evidence. A cached result is only as fresh as they are, so the check records each one it
consults (path, size, mtime) and the results cache keeps them with the result: a changed or
removed helper module makes its callers be checked again.

Recording is per check and per process: `recording()` opens a set, `consulted(path)` adds to it
(the readers call it on every consultation, their own per-process caches included)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

#: The sets of the checks under way in this process, innermost last.
_OPEN: list = []


@contextlib.contextmanager
def recording() -> Iterator[set]:
    seen: set = set()
    _OPEN.append(seen)
    try:
        yield seen
    finally:
        _OPEN.pop()


def consulted(path: str, st: os.stat_result | None = None) -> None:
    """Note that the check under way read `path` (its stat, when the reader has taken it)."""
    if not _OPEN:
        return
    stamp = file_stamp(path, st)
    _OPEN[-1].add((os.path.abspath(path), *stamp) if stamp else (os.path.abspath(path), -1, -1))


def consulted_again(entries) -> None:
    """Note dependencies recorded earlier (a screen's answer served again) for the check under way."""
    if _OPEN and entries:
        _OPEN[-1].update(entries)


def file_stamp(path: str, st: os.stat_result | None = None) -> tuple | None:
    """(size, mtime in ns) of a file, or None when it cannot be read."""
    try:
        st = st or os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def unchanged(depends, stamps: dict | None = None) -> bool:
    """Whether every recorded dependency still has its recorded size and mtime. `stamps` keeps
    the stamps taken so far (a run's results share their helper modules: each is stat-ed once)."""
    for path, size, mtime in depends:
        if stamps is None:
            stamp = file_stamp(path)
        elif path in stamps:
            stamp = stamps[path]
        else:
            stamp = stamps[path] = file_stamp(path)
        if (stamp or (-1, -1)) != (size, mtime):
            return False
    return True
