"""Reading only regular files: a FIFO blocks its reader forever and /dev/zero never ends, so
every file the tool reads (sources, config, baseline, .gitignore) goes through here."""

from __future__ import annotations

import os
import stat

#: What a path that is not a regular file is, for the one-line E902 message.
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _require_regular(st: os.stat_result) -> None:
    """Raise an OSError (E902 material) unless `st` is a regular file's: a FIFO blocks its
    reader forever and /dev/zero never ends, so only regular files are ever read."""
    if stat.S_ISREG(st.st_mode):
        return
    kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
    raise OSError(0, f"not a regular file ({kind})")


def read_regular(path: str, limit: int = -1) -> tuple:
    """(bytes, stat) of the regular file at `path` (at most `limit` bytes when >= 0), or an
    OSError. Stat first so a special file is never even opened; open non-blocking and stat
    the open file again, so a file swapped for a FIFO in between cannot block the run."""
    _require_regular(os.stat(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        _require_regular(st)
        return handle.read(limit), st
