"""Check results cached by file content, like ruff's cache: a second run over an unchanged tree
reads each file, hashes it and reuses what the first run found, without parsing anything.

Layout: `<cache dir>/<tool fingerprint>/<settings digest>.json`, one table per combination of
tool and settings, mapping a file's display path to (content digest, stat key, FileResult). A
table is signed JSON lines (project.cache_codec): data only, never unpickled or evaluated,
every field checked, and a table this user's key did not sign is a miss. A run reads each
file's entry when it looks the file up (project.cache_table), never the whole table at once.

The cache folder must be one mcp-migrate made for itself: it holds `.gitignore` (`*`, as ruff
writes, so it is never committed by accident), `CACHEDIR.TAG`, and `.mcp-migrate-owner`, a mark
signed with this user's key (project.cache_key). Those are written only into a folder this run
created (`mkdir`, never an existing one), or an empty one the user named in
MCP_MIGRATE_CACHE_DIR. A folder without a valid mark (one committed with a repository, any
other folder `cache-dir` names), a symlink, the project root, `/` or an ancestor of a checked
path is never read or written: the run goes on cold, with a one-line warning. Where the folder
may be, and where the key may not, is project.cache_place's; what `clean` removes,
project.cache_removal's.

A warm run first compares each file's stat (size, mtime, ctime, inode, device) with the one
recorded: equal means unchanged, without reading the file. A stat is recorded only when the
file's mtime and ctime were already older than the run by TRUST_MARGIN_NS, so a later edit
always moves one of them (ctime cannot be set back by tools that restore mtimes, and an edit
within the same clock tick as the recorded one is ruled out by the margin, as git does for
"racily clean" entries). Otherwise the content digest decides. The default cache dir is
`.mcp_migrate_cache/` at the project root (the config's folder); `cache-dir` in the config (inside
the project) or `MCP_MIGRATE_CACHE_DIR` move it; `--no-cache` bypasses it.

Never trusted across versions or settings: the tool fingerprint covers the version, the
package's own files (size and mtime), LibCST's version and native parser, and the Python running
it; the settings digest the whole Settings value but for
whether fix previews are wanted (one table for every output format; a result stored without
previews is checked again by a run that shows them, and stored with them). Writes are
atomic (a temporary file, then `os.replace`) and merge with what is on disk at that moment, so
parallel runs never corrupt a table; at worst one run's new entries are lost. Results with
internal errors are never stored: they are run again.
"""

from __future__ import annotations

import hashlib
import importlib.util  # loaded by the interpreter's start-up anyway
import os
import stat as stat_module
import sys
import time
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import mcp_migrate  # (its __version__ read when used: a test stands in another version)
from mcp_migrate.core.dependencies import unchanged
from mcp_migrate.project import cache_key
from mcp_migrate.project.cache_codec import (
    SCHEMA,
    decode_entry,
    encode_lines,
    entry_line,
    line_path,
    path_key,
    table_lines,
)
from mcp_migrate.project.cache_place import cache_place, key_in_tree
from mcp_migrate.project.cache_table import StoredTable
from mcp_migrate.project.regular import read_regular
from mcp_migrate.project.writer import replace_file

#: A file's stat is trusted only when its mtime and ctime are this much older than the run.
TRUST_MARGIN_NS = 2_000_000_000
#: The mark that says "mcp-migrate made this folder for this user" (signed with the user's key).
OWNER_MARK = ".mcp-migrate-owner"
#: A table larger than this is not read (a cache is a hint; a huge file is a miss, not a load).
MAX_TABLE_BYTES = 256 * 1024 * 1024
GITIGNORE = b"# Created by mcp-migrate automatically.\n*\n"
CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n"


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """The version plus the size and mtime of every file of the package: a development
    checkout that changes a rule without a version bump gets a fresh cache too. What else
    decides a file's findings is in it too: LibCST (its version and native parser), and the
    Python that runs it (its `ast` screens the files first)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256(f"{mcp_migrate.__version__}:{SCHEMA}:{python_stamp()}:{package_stamp('libcst')}".encode())
    for folder, dirs, files in sorted(os.walk(package)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".py", ".md", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return f"{mcp_migrate.__version__}-{digest.hexdigest()[:16]}"


def python_stamp() -> str:
    """The interpreter: its implementation and full version."""
    return f"{sys.implementation.cache_tag}:{sys.version}"


def package_stamp(name: str) -> str:
    """An installed package as its results depend on it, found without importing it (a warm
    run never loads LibCST; `importlib.metadata` alone costs 35 ms to import): its version
    file's bytes and the size and mtime of its top-level files (its native parser among them).
    An upgrade, a downgrade or a rebuilt extension changes it; "missing" when it is not there."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:
        return "missing"
    digest = hashlib.sha256()
    try:
        digest.update(read_regular(os.path.join(folders[0], "_version.py"), 64 * 1024)[0])
    except OSError:
        digest.update(b"no version file")
    try:
        with os.scandir(folders[0]) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    digest.update(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    except OSError:
        digest.update(b"unlisted")
    return digest.hexdigest()[:16]


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ResultCache:
    """One run's view of the cache: lookups against the tables on disk (each file's entry read
    when it is looked up), stores collected and written once at the end. An unusable cache
    (see `refusal`) answers every lookup with a miss and writes nothing; `warnings` says why,
    in one line (and what else the run should know: a `cache-dir` not followed)."""

    def __init__(
        self,
        root: str,
        key: bytes | None,
        warning: str | None = None,
        notes: tuple = (),
        adopt_empty: bool = False,
    ) -> None:
        self.folder = os.path.join(root, tool_fingerprint())
        self.root = root
        self.key = key
        self.refused = warning
        #: An existing empty folder may become the cache (the user named it in the environment).
        self.adopt_empty = adopt_empty
        self.warnings: list = [*notes, *([warning] if warning else [])]
        self._tables: dict = {}
        self._new: dict = {}
        #: id(settings) -> (settings, table name): the digest of a Settings value, once.
        self._names: dict = {}
        self._trusted_before = time.time_ns() - TRUST_MARGIN_NS
        #: path -> (size, mtime) of the dependencies checked so far: one stat per module a run.
        self._stamps: dict = {}
        #: (table name, path, entry or None) of the last lookup: a file whose stat changed is
        #: looked up twice (`get_unchanged`, then `get` with its bytes), its line read once.
        self._last: tuple | None = None

    @property
    def usable(self) -> bool:
        return self.key is not None and self.refused is None

    def _table_name(self, settings) -> str:
        known = self._names.get(id(settings))
        if known is not None and known[0] is settings:
            return known[1]
        digest = hashlib.sha256(repr(_settings_key(settings)).encode()).hexdigest()[:24]
        name = f"{tool_fingerprint()}/{digest}.json"
        self._names[id(settings)] = (settings, name)
        return name

    def _entry(self, path: str, settings) -> tuple | None:
        """(digest, stat key, FileResult) stored for `path` under `settings`, or None: no table,
        no line, or an entry that fails the codec's checks."""
        name = self._table_name(settings)
        last = self._last
        if last is not None and last[0] == name and last[1] == path:
            return last[2]
        if name not in self._tables:
            self._tables[name] = self._load(name) if self.usable else None
        table = self._tables[name]
        text = table.entry_text(path) if table is not None else None
        entry = None
        if text is not None:
            try:
                entry = decode_entry(path, text)
            except (ValueError, RecursionError):  # (Malformed, a JSON or an ASCII error)
                entry = None
        self._last = (name, path, entry)
        return entry

    def stat_key(self, st: os.stat_result) -> tuple | None:
        """The key a file's stat may be recorded under, or None while it is too recent to trust."""
        if st.st_mtime_ns >= self._trusted_before or st.st_ctime_ns >= self._trusted_before:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)

    def get_unchanged(self, path: str, st: os.stat_result, settings):
        """The cached FileResult of `path` when its stat is the recorded one, else None (then
        read the file and ask `get`)."""
        entry = self._entry(path, settings)
        if (
            entry is not None
            and entry[1] is not None
            and entry[1] == self.stat_key(st)
            and not wants(entry[2], settings)
            and unchanged(entry[2].depends, self._stamps)
        ):
            return entry[2]
        return None

    def get(self, path: str, data: bytes, settings, st: os.stat_result | None = None):
        """The cached FileResult of `path` with exactly these bytes and settings, or None. A hit
        whose stat changed (a checkout that rewrote the same bytes) records the new stat."""
        entry = self._entry(path, settings)
        if entry is None or entry[0] != content_digest(data) or wants(entry[2], settings):
            return None
        if not unchanged(entry[2].depends, self._stamps):  # a helper module it read one import away changed
            return None
        if st is not None:
            key = self.stat_key(st)
            if key is not None and key != entry[1]:
                self._new.setdefault(self._table_name(settings), {})[path] = (entry[0], key, entry[2])
        return entry[2]

    def put(self, path: str, data: bytes, settings, result, st: os.stat_result | None = None) -> None:
        if result.errors or not self.usable:
            return
        key = self.stat_key(st) if st is not None else None
        self._new.setdefault(self._table_name(settings), {})[path] = (content_digest(data), key, result)

    def save(self) -> None:
        """Write every table that gained entries; a cache that cannot be written is skipped
        (a read-only checkout must still be checked)."""
        key = self.key
        if not self._new or key is None or self.refused is not None:  # (not usable)
            return
        self.close()  # (a table still open could not be replaced where files are locked)
        try:
            _claim(self.root, key, self.adopt_empty)
            _make_own_folder(self.folder)
            for name, entries in self._new.items():
                written = {path_key(path) for path in entries}
                kept = [line for line in self._lines(name) if line_path(line) not in written]
                lines = kept + [entry_line(path, *entry) for path, entry in entries.items()]
                replace_file(Path(self.root, name), encode_lines(key, name, lines))
        except OSError:
            pass
        self._new.clear()

    def close(self) -> None:
        """Close the tables this run has open (a later lookup opens them again)."""
        for table in self._tables.values():
            if table is not None:
                table.close()
        self._tables.clear()
        self._last = None

    def _path(self, name: str) -> str | None:
        """Where table `name` is, or None when it may not be read (an unusable cache, a symlink)."""
        path = os.path.join(self.root, name)
        if self.key is None or os.path.islink(self.folder) or os.path.islink(path):
            return None
        return path

    def _load(self, name: str) -> StoredTable | None:
        """Table `name` opened for lookups, or None when it is missing, too large, not ours or
        malformed."""
        key, path = self.key, self._path(name)
        return StoredTable.open(key, name, path, MAX_TABLE_BYTES) if key is not None and path is not None else None

    def _lines(self, name: str) -> list:
        """The entry lines of table `name` as it is on disk now, [] when it is missing, too
        large, not ours or malformed: what a save keeps of it (no entry is decoded)."""
        key, path = self.key, self._path(name)
        if key is None or path is None:
            return []
        try:
            data = read_regular(path, MAX_TABLE_BYTES + 1)[0]
        except OSError:
            return []
        if len(data) > MAX_TABLE_BYTES:
            return []
        return table_lines(key, name, data) or []


#: Settings fields that change what a run shows, not what a file's check finds: one table
#: serves every output format (a SARIF run, then a GitHub one, checks cold once). A result
#: stored without the previews a later run shows is checked again for them (`wants`). The
#: project view is the run's way to the other files (core.project_view), not a setting.
_NOT_IN_KEY = ("fix_previews", "view")


class _FixKey:
    """The key of the table of a fix run's unchanged outcomes: the file's settings (without
    previews: a fix computes none), whether unsafe fixes apply, and the fix policy; never the
    key of a check's table."""

    def __init__(self, settings, unsafe: bool, policy) -> None:
        self.__dict__.update(vars(settings))
        self.fix_previews = False
        self.fix_outcome = (bool(unsafe), repr(policy))


def fix_key(settings, unsafe: bool, policy):
    """The settings-like key `ResultCache.get`/`put` take for a `fix` outcome (one object per
    (settings, unsafe, policy), so the table's name is worked out once)."""
    view = getattr(settings, "view", None)
    known = view.table("fix keys") if view is not None else {}
    found = known.get((id(settings), unsafe, policy))
    if found is None or found[0] is not settings:
        found = known[(id(settings), unsafe, policy)] = (settings, _FixKey(settings, unsafe, policy))
    return found[1]


def wants(result, settings) -> bool:
    """Whether a cached `result` lacks what a run with `settings` shows: its fix previews
    (a result without a fixable finding has none to lack)."""
    if not getattr(settings, "fix_previews", False) or result.previewed:
        return False
    return any(f.fix != "none" for f in result.findings)


def _settings_key(settings) -> tuple:
    """Settings as a stable value (frozensets sorted), for the table's name."""
    out = []
    for name, value in sorted(vars(settings).items()):
        if name in _NOT_IN_KEY:
            continue
        if isinstance(value, frozenset):
            value = tuple(sorted(value))
        out.append((name, value))
    return tuple(out)


# --------------------------------------------------------------------------- the folder


def refusal(
    folder: str, key: bytes | None, project_root: str, checked: Iterable[str], adopt_empty: bool = False
) -> str | None:
    """Why `folder` may not be this run's cache (one line), or None when it may: a missing
    folder (this run makes it), ours, or with `adopt_empty` an empty one."""
    if key is None:
        return "results cache off: no private key could be kept in the user's cache folder"
    shown = folder
    if os.path.islink(folder):
        return f"results cache off: {shown} is a symlink (the cache folder must be mcp-migrate's own)"
    real = os.path.realpath(folder)
    for other in (project_root, *checked):
        other = os.path.realpath(other)
        if real == other or other.startswith(real.rstrip(os.sep) + os.sep):
            return f"results cache off: {shown} holds the checked files (choose a folder of its own for cache-dir)"
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"results cache off: {shown}: {exc.strerror or exc}"
    if not stat_module.S_ISDIR(st.st_mode):
        return f"results cache off: {shown} is not a folder"
    if owned(folder, key):
        return None
    try:
        empty = not os.listdir(folder)
    except OSError as exc:
        return f"results cache off: {shown}: {exc.strerror or exc}"
    if empty and adopt_empty:
        return None
    return (
        f"ignoring the results cache in {shown}: mcp-migrate did not create it for this user on this "
        "machine (committed with the repository?); delete it to let mcp-migrate make its own"
    )


def owned(folder: str, key: bytes) -> bool:
    """Whether `folder` carries an owner mark signed with `key`."""
    try:
        text = read_regular(os.path.join(folder, OWNER_MARK), 200)[0].decode("ascii")
        nonce, mac = text.split()
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return cache_key.verify(key, _owner_text(nonce), mac)


def _owner_text(nonce: str) -> bytes:
    return b"owner\n" + nonce.encode("ascii")


def _owner_mac(key: bytes, nonce: str) -> str:
    return cache_key.sign(key, _owner_text(nonce))


def _claim(folder: str, key: bytes, adopt_empty: bool = False) -> None:
    """Create the cache folder and its marker files. A folder that already exists is used only
    when it is ours (its owner mark), or empty with `adopt_empty`: never a folder someone else
    made, which `refusal` may have seen missing and which appeared since."""
    os.makedirs(os.path.dirname(os.path.abspath(folder)), exist_ok=True)
    try:
        os.mkdir(folder)
        created = True
    except FileExistsError:
        created = False
    if os.path.islink(folder) or not os.path.isdir(folder):
        raise OSError(0, "the cache folder became a symlink")
    if not created and not owned(folder, key) and not (adopt_empty and not os.listdir(folder)):
        raise OSError(0, "the cache folder appeared during the run and is not ours")
    if created or not owned(folder, key):
        nonce = os.urandom(16).hex()  # secrets.token_hex, without importing random
        mark = f"{nonce} {_owner_mac(key, nonce)}\n"
        replace_file(Path(folder, OWNER_MARK), mark.encode("ascii"))
    for name, data in ((".gitignore", GITIGNORE), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            replace_file(Path(path), data)


def _make_own_folder(folder: str) -> None:
    """The fingerprint folder inside the cache: created if missing, never a symlink."""
    os.makedirs(folder, exist_ok=True)
    if os.path.islink(folder) or not os.path.isdir(folder):
        raise OSError(0, "the fingerprint folder is not a folder of ours")


def cache_for(config, checked: Iterable[str] = ()) -> ResultCache:
    """The results cache of a run with the cache on: usable, or unusable with a warning. The
    key is never taken from inside a tree being checked (the project's, when a config file
    says where it is, and every checked path)."""
    checked = list(checked)
    place = cache_place(config)
    key = None
    problem = key_in_tree(([config.root] if config.path else []) + checked)
    if problem is None:
        key = cache_key.user_key()
        if key is None:
            problem = cache_key.load_key().problem or "results cache off: no private key could be kept"
    if problem is None:
        problem = refusal(place.folder, key, config.root, checked, place.users_choice)
    notes = (place.warning,) if place.warning else ()
    return ResultCache(place.folder, key, problem, notes, place.users_choice)
