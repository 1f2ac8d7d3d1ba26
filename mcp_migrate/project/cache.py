"""Check results cached by file content, like ruff's cache: a second run over an unchanged tree
reads each file, hashes it and reuses what the first run found, without parsing anything.

Layout: `<cache dir>/<tool fingerprint>/<settings digest>.pickle`, one table per combination of
tool and settings, mapping a file's display path to (content digest, stat key, FileResult).

A warm run first compares each file's stat (size, mtime, ctime, inode, device) with the one
recorded: equal means unchanged, without reading the file. A stat is recorded only when the
file's mtime and ctime were already older than the run by TRUST_MARGIN_NS, so a later edit
always moves one of them (ctime cannot be set back by tools that restore mtimes, and an edit
within the same clock tick as the recorded one is ruled out by the margin, as git does for
"racily clean" entries). Otherwise the content digest decides, as before. The default
cache dir is `.mcp_migrate_cache/` at the project root (the config's folder), created with a
`.gitignore` holding `*` (as ruff does) so it never shows up in a repository. `cache-dir` in the
config or `MCP_MIGRATE_CACHE_DIR` move it; `--no-cache` bypasses it.

Never trusted across versions or settings: the tool fingerprint covers the version and the
package's own files (size and mtime), the settings digest the whole Settings value. Writes are
atomic (a temporary file, then `os.replace`) and merge with what is on disk at that moment, so
parallel runs never corrupt a table; at worst one run's new entries are lost. Results with
internal errors are never stored: they are run again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from functools import lru_cache
from pathlib import Path
from typing import Optional

from mcp_migrate.project.writer import replace_file

DEFAULT_DIR = ".mcp_migrate_cache"
ENV_VAR = "MCP_MIGRATE_CACHE_DIR"
#: Bumped when the table's layout changes.
_FORMAT = 2
#: A file's stat is trusted only when its mtime and ctime are this much older than the run.
TRUST_MARGIN_NS = 2_000_000_000


def cache_dir(config) -> str:
    """Where this run's cache lives: the environment, then the config, then the project root."""
    chosen = os.environ.get(ENV_VAR) or getattr(config, "cache_dir", None)
    if chosen:
        return chosen if os.path.isabs(chosen) else os.path.join(config.root, chosen)
    return os.path.join(config.root, DEFAULT_DIR)


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """The version plus the size and mtime of every file of the package: a development
    checkout that changes a rule without a version bump gets a fresh cache too."""
    from mcp_migrate import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256(f"{__version__}:{_FORMAT}".encode())
    for folder, dirs, files in sorted(os.walk(package)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".py", ".md", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return f"{__version__}-{digest.hexdigest()[:16]}"


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ResultCache:
    """One run's view of the cache: lookups against the tables loaded at start, stores
    collected and written once at the end."""

    def __init__(self, root: str) -> None:
        self.folder = os.path.join(root, tool_fingerprint())
        self.root = root
        self._tables: dict = {}
        self._new: dict = {}
        #: id(settings) -> (settings, table path): the digest of a Settings value, once.
        self._paths: dict = {}
        self._trusted_before = time.time_ns() - TRUST_MARGIN_NS

    def _table_path(self, settings) -> str:
        known = self._paths.get(id(settings))
        if known is not None and known[0] is settings:
            return known[1]
        digest = hashlib.sha256(repr(_settings_key(settings)).encode()).hexdigest()[:24]
        path = os.path.join(self.folder, f"{digest}.pickle")
        self._paths[id(settings)] = (settings, path)
        return path

    def _table(self, settings) -> dict:
        path = self._table_path(settings)
        table = self._tables.get(path)
        if table is None:
            table = self._tables[path] = _load(path)
        return table

    def stat_key(self, st: os.stat_result) -> Optional[tuple]:
        """The key a file's stat may be recorded under, or None while it is too recent to trust."""
        if st.st_mtime_ns >= self._trusted_before or st.st_ctime_ns >= self._trusted_before:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)

    def get_unchanged(self, path: str, st: os.stat_result, settings):
        """The cached FileResult of `path` when its stat is the recorded one, else None (then
        read the file and ask `get`)."""
        entry = self._table(settings).get(path)
        if entry is not None and entry[1] is not None and entry[1] == self.stat_key(st):
            return entry[2]
        return None

    def get(self, path: str, data: bytes, settings, st: Optional[os.stat_result] = None):
        """The cached FileResult of `path` with exactly these bytes and settings, or None. A hit
        whose stat changed (a checkout that rewrote the same bytes) records the new stat."""
        entry = self._table(settings).get(path)
        if entry is None or entry[0] != content_digest(data):
            return None
        if st is not None:
            key = self.stat_key(st)
            if key is not None and key != entry[1]:
                self._new.setdefault(self._table_path(settings), {})[path] = (entry[0], key, entry[2])
        return entry[2]

    def put(self, path: str, data: bytes, settings, result, st: Optional[os.stat_result] = None) -> None:
        if result.errors:
            return
        key = self.stat_key(st) if st is not None else None
        self._new.setdefault(self._table_path(settings), {})[path] = (content_digest(data), key, result)

    def save(self) -> None:
        """Write every table that gained entries; a cache that cannot be written is skipped
        (a read-only checkout must still be checked)."""
        if not self._new:
            return
        try:
            _prepare(self.root, self.folder)
            for table_path, entries in self._new.items():
                table = _load(table_path)
                table.update(entries)
                replace_file(Path(table_path), pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass
        self._new.clear()


def _settings_key(settings) -> tuple:
    """Settings as a stable value (frozensets sorted), for the table's name."""
    out = []
    for name, value in sorted(vars(settings).items()):
        if isinstance(value, frozenset):
            value = tuple(sorted(value))
        out.append((name, value))
    return tuple(out)


def _load(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            table = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def _prepare(root: str, folder: str) -> None:
    """Create the cache folder with its `.gitignore` (and a CACHEDIR.TAG for backup tools)."""
    os.makedirs(folder, exist_ok=True)
    ignore = os.path.join(root, ".gitignore")
    if not os.path.exists(ignore):
        replace_file(Path(ignore), b"# Created by mcp-migrate automatically.\n*\n")
    tag = os.path.join(root, "CACHEDIR.TAG")
    if not os.path.exists(tag):
        replace_file(Path(tag), b"Signature: 8a477f597d28d172789f06886806bc55\n")


def open_cache(config, enabled: bool) -> Optional[ResultCache]:
    return ResultCache(cache_dir(config)) if enabled else None
