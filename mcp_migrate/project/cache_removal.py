"""What `mcp-migrate clean` may remove from a results cache: the files the cache wrote, each
recognised by its name and its format, and the folder itself only once that leaves it empty.

A cache folder can hold more than the cache: the user saved something there, or `cache-dir`
named a folder that had other uses. Removing the whole tree (`rm -rf`, as before issue 33) would
take those with it. So only these go: `.gitignore` and `CACHEDIR.TAG` with exactly the bytes the
cache writes, the owner mark, fingerprint folders (`<version>-<16 hex>`) and in them the tables
(`<24 hex>.json` starting `mcp-migrate-cache `) and the temporary files of an interrupted write
(project.writer's names). Anything else stays, with the folders holding it, and is reported;
CACHEDIR.TAG and the owner mark go even then, so a folder the user now uses is neither hidden
from backups nor taken for a cache again.
"""

from __future__ import annotations

import os
import re
import stat

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.record import record
from mcp_migrate.project.cache import CACHEDIR_TAG, GITIGNORE, OWNER_MARK, owned
from mcp_migrate.project.cache_codec import MAGIC
from mcp_migrate.project.regular import read_regular
from mcp_migrate.project.writer import TEMP_SUFFIX

_FINGERPRINT = lazy_compile(r"[0-9A-Za-z.+!_-]+-[0-9a-f]{16}\Z")
_TABLE = lazy_compile(r"[0-9a-f]{24}\.json\Z")
#: What the cache writes at the top of its folder, by name: the exact bytes (None: the owner mark).
_MARKERS = {".gitignore": GITIGNORE, "CACHEDIR.TAG": CACHEDIR_TAG, OWNER_MARK: None}
#: How many names of what was left a warning lists.
SHOWN = 3


@record(frozen=True)
class Removal:
    """What `remove_cache` did: whether the folder is gone, and what it left (paths relative to
    the folder, not written by the cache), or why it could not remove what was its own."""

    gone: bool
    left: tuple = ()
    problem: str | None = None

    def left_line(self, shown: str) -> str | None:
        """One line naming what was left in the folder `shown`, or None."""
        if not self.left:
            return None
        names = ", ".join(self.left[:SHOWN]) + (f" and {len(self.left) - SHOWN} more" if len(self.left) > SHOWN else "")
        return f"{shown} kept: {len(self.left)} entries mcp-migrate did not write ({names})"


def removal_refused(folder: str, key: bytes | None) -> str | None:
    """Why `mcp-migrate clean` may not touch `folder` (one line), or None when it may: only a
    real folder (not a symlink) whose owner mark this user's key signed is mcp-migrate's own
    cache; a folder committed with a repository, or any other folder, is left alone."""
    if os.path.islink(folder):
        return f"{folder} is a symlink: not removed"
    if not os.path.isdir(folder):
        return f"{folder} is not a folder: not removed"
    if key is None or not owned(folder, key):
        return f"{folder} carries no owner mark of mcp-migrate for this user (not a cache it made): not removed"
    return None


def remove_cache(folder: str, key: bytes | None) -> Removal:
    """Remove what the cache wrote in `folder` (see `removal_refused`), then the folder if that
    emptied it."""
    refused = removal_refused(folder, key)
    if refused is not None:
        return Removal(False, problem=refused)
    left: list = []
    try:
        for entry in _entries(folder):
            if entry.name == OWNER_MARK:
                continue  # last: until then the folder is still known to be ours
            if _is_fingerprint(entry):
                _empty_fingerprint(entry.path, left, entry.name)
            elif _own_top_file(entry):
                os.unlink(entry.path)
            else:
                left.append(entry.name)
        os.unlink(os.path.join(folder, OWNER_MARK))
        if not left:
            os.rmdir(folder)
    except OSError as exc:
        return Removal(False, tuple(left), f"{folder}: {exc.strerror or exc}")
    return Removal(not left, tuple(left))


def _entries(folder: str) -> list:
    with os.scandir(folder) as entries:
        return sorted(entries, key=lambda e: e.name)


def _is_fingerprint(entry: os.DirEntry) -> bool:
    return bool(_FINGERPRINT.match(entry.name)) and entry.is_dir(follow_symlinks=False)


def _empty_fingerprint(path: str, left: list, name: str) -> None:
    """Remove the tables and temporary files of one fingerprint folder, then the folder if empty."""
    kept = False
    for entry in _entries(path):
        if _regular(entry) and (_is_table(entry) or _is_temp(entry.name, _TABLE)):
            os.unlink(entry.path)
        else:
            left.append(f"{name}/{entry.name}")
            kept = True
    if not kept:
        os.rmdir(path)


def _own_top_file(entry: os.DirEntry) -> bool:
    """A marker file with the cache's exact bytes, or a temporary file of a marker's write."""
    if not _regular(entry):
        return False
    if entry.name in _MARKERS:
        expected = _MARKERS[entry.name]
        return expected is not None and _starts(entry.path, len(expected) + 1) == expected
    return _is_temp(entry.name, None)


def _is_table(entry: os.DirEntry) -> bool:
    return bool(_TABLE.match(entry.name)) and _starts(entry.path, len(MAGIC) + 1) == MAGIC + b" "


def _is_temp(name: str, inner: re.Pattern | None) -> bool:
    """project.writer's `.NAME.<8 characters>.mcp-migrate`, NAME a table's (`inner`) or a marker's."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return False
    body = name[1 : -len(TEMP_SUFFIX)]
    base, dot, random = body.rpartition(".")
    if not dot or not re.fullmatch(r"[a-z0-9_]{8}", random):
        return False
    return bool(inner.match(base)) if inner is not None else base in _MARKERS


def _regular(entry: os.DirEntry) -> bool:
    try:
        return stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return False


def _starts(path: str, size: int) -> bytes:
    """The first `size` bytes of a file (b"" when it cannot be read)."""
    try:
        return read_regular(path, size)[0]
    except OSError:
        return b""
