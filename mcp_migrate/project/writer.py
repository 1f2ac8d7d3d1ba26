"""Writing fixed files safely: atomically, only if unchanged since read, modes preserved,
symlinks followed only to targets inside the paths being fixed."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class Snapshot:
    """What a file looked like when it was read."""

    data: bytes
    mtime_ns: int
    size: int


def snapshot(path: Path) -> Snapshot:
    """Read a regular file (anything else is an OSError: a FIFO would block the run)."""
    from mcp_migrate.project.discovery import read_regular

    data, st = read_regular(str(path))
    return Snapshot(data, st.st_mtime_ns, st.st_size)


def write_target(path: Path, roots: Iterable[Path]) -> tuple:
    """(real file to write, None) or (None, reason to skip) for a discovered path."""
    if not path.is_symlink():
        return path, None
    target = path.resolve()
    for root in roots:
        root = root.resolve()
        if target == root or root in target.parents:
            return target, None
    return None, f"symlink to {target}, outside the paths being fixed: skipped"


def write_atomic(path: Path, new: bytes, before: Snapshot) -> Optional[str]:
    """Replace `path` with `new` unless it changed since `before`; None on success, else why not.

    A temporary file in the same folder is written, flushed, given the original's permission
    bits, then renamed over the original, so a reader never sees half a file."""
    try:
        st = os.stat(path)
        if st.st_mtime_ns != before.mtime_ns or st.st_size != before.size or path.read_bytes() != before.data:
            return "changed on disk since it was read: not overwritten"
        fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.", suffix=".mcp-migrate")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(new)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except (PermissionError, AttributeError, OSError):
                pass
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    return None
