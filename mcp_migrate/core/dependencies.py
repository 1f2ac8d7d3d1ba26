"""The other files a file's check read: a helper's module one import away, a project module read
for evidence. A cached result is only as fresh as they are, so the check records each one it
consults (path, size, mtime) through its project view (core.project_view: `recording()`,
`consulted(path)`), and the results cache keeps them with the result: a changed or removed
helper module makes its callers be checked again. This module holds the stamps and their
comparison; no state."""

from __future__ import annotations

import os


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
