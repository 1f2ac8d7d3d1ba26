"""Reading only regular files: a FIFO blocks its reader forever and /dev/zero never ends, so
every file the tool reads (sources, config, baseline, .gitignore) goes through here. Source
files are read with their `max-file-size`: a 6 GB file is refused by its size, never read."""

from __future__ import annotations

import errno
import os
import stat

from mcp_migrate.core.project_view import read_upto

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


class TooLarge(OSError):
    """A file over `max-file-size`, found by its size before it was read (E997 material):
    `size` is what stat said (or, for a file that grew while being read, what it grew to)."""

    def __init__(self, size: int, limit: int):
        super().__init__(errno.EFBIG, f"{size} bytes is over max-file-size ({limit} bytes)")
        self.size = size
        self.limit = limit


def read_regular(path: str, limit: int = -1, max_size: int = 0) -> tuple:
    """(bytes, stat) of the regular file at `path` (at most `limit` bytes when >= 0), or an
    OSError. Stat first so a special file is never even opened; open non-blocking and stat
    the open file again, so a file swapped for a FIFO in between cannot block the run.
    With `max_size` (max-file-size), a larger file is TooLarge by its stat, before any byte is
    read, and never more than `max_size` + 1 bytes are read (a file growing meanwhile). Read
    from the descriptor itself (core.project_view.read_upto): every file of a run is read here
    once, whole, and a buffered file object over it cost two system calls more (issue 37)."""
    fd, st = _open_regular(path, max_size)
    try:
        if not max_size:
            return read_upto(fd, limit, st.st_size), st
        want = max_size + 1 if limit < 0 else min(limit, max_size + 1)
        data = read_upto(fd, want, st.st_size)
        if len(data) > max_size:
            raise TooLarge(max(os.fstat(fd).st_size, len(data)), max_size)
        return data, st
    finally:
        os.close(fd)


def open_regular(path: str, max_size: int = 0) -> tuple:
    """(binary file object, stat) of the regular file at `path`, or an OSError: the checks of
    `read_regular`, for a reader that reads on after opening (the results cache reads its
    tables entry by entry)."""
    fd, st = _open_regular(path, max_size)
    return os.fdopen(fd, "rb"), st


def _open_regular(path: str, max_size: int) -> tuple:
    """(descriptor, stat) of the regular file at `path`, no larger than `max_size` (when set),
    or an OSError: stat first, open non-blocking, stat the open file again."""
    st = os.stat(path)
    _require_regular(st)
    _require_size(st.st_size, max_size)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        _require_regular(st)
        _require_size(st.st_size, max_size)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _require_size(size: int, max_size: int) -> None:
    if max_size and size > max_size:
        raise TooLarge(size, max_size)
