"""The secret that makes a results cache this user's own: tables and the folder's owner mark are
signed with it, so a cache that arrived with a repository (a fork's pull request, a cloned
project) can never be taken for one this user's runs wrote.

The key is 32 random bytes in the user's cache folder (`$XDG_CACHE_HOME/mcp-migrate/key`, else
`%LOCALAPPDATA%` on Windows, else `~/.cache`), created once with mode 0600. A key only this user
could have written is trusted: the file and its `mcp-migrate` folder this user's and writable by
no one else (another user who can replace the key can forge "no findings"). A key inside a tree
being checked (`XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache`) could have come with the repository:
project.cache never reads one there. No trusted key (no home, a read-only home, a key others can
write) means no results cache: every run is cold, with the reason in one line.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from functools import lru_cache

from mcp_migrate.core.record import record

KEY_BYTES = 32
#: Where the key lives, below the user's cache folder.
KEY_NAME = os.path.join("mcp-migrate", "key")


def user_cache_home() -> str | None:
    """This user's cache folder (XDG_CACHE_HOME, else LOCALAPPDATA, else ~/.cache), or None."""
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
    if not base:
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return base


def key_path() -> str | None:
    """The key file's path, or None when this user has no cache folder to keep it in."""
    base = user_cache_home()
    return os.path.join(base, KEY_NAME) if base else None


class Untrusted(OSError):
    """A key file (or its folder) that someone other than this user could have written."""


@record(frozen=True)
class KeyAnswer:
    """This user's key, or None and why not (one line)."""

    key: bytes | None
    problem: str | None = None


def existing_key() -> bytes | None:
    """This user's key when it exists (never created: `mcp-migrate clean` asks whether a folder
    is this user's cache, and without a key none is)."""
    path = key_path()
    if path is None:
        return None
    try:
        return _read_key(path)
    except OSError:
        return None


def user_key() -> bytes | None:
    """This user's key: read, or created the first time; None when it cannot be had safely."""
    return load_key().key


@lru_cache(maxsize=1)
def load_key() -> KeyAnswer:
    """This user's key, read or created the first time, or why it cannot be had safely."""
    path = key_path()
    if path is None:
        return KeyAnswer(None, "results cache off: no home folder to keep the cache's private key in")
    try:
        return _answer(path, _read_key(path))
    except FileNotFoundError:
        pass
    except Untrusted as exc:
        return KeyAnswer(None, f"results cache off: {exc.strerror}")
    except OSError as exc:
        return KeyAnswer(None, f"results cache off: cannot read the cache's private key {path}: {exc.strerror or exc}")
    try:
        return _answer(path, _create_key(path))
    except FileExistsError:  # another run created it first
        try:
            return _answer(path, _read_key(path))
        except OSError as exc:
            return KeyAnswer(None, f"results cache off: {exc.strerror or exc}")
    except OSError as exc:
        return KeyAnswer(None, f"results cache off: no private key could be kept in {path}: {exc.strerror or exc}")


def _answer(path: str, key: bytes | None) -> KeyAnswer:
    if key is None:
        return KeyAnswer(
            None, f"results cache off: {path} is not a key mcp-migrate wrote (delete it to make a new one)"
        )
    return KeyAnswer(key)


def _read_key(path: str) -> bytes | None:
    """The key in `path` when it is a regular file of ours of the right size, else None; an
    Untrusted error when this user is not the only one who could have written it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        _require_private(st, path, "the cache's private key")
        _require_private(os.lstat(os.path.dirname(path)), os.path.dirname(path), "the folder of the cache's key")
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def _require_private(st: os.stat_result, path: str, what: str) -> None:
    """Raise Untrusted unless `st` is this user's and writable by no group or other user
    (where the system has owners: not on Windows)."""
    if not hasattr(os, "geteuid"):
        return
    if st.st_uid != os.geteuid():
        raise Untrusted(0, f"{what} {path} belongs to another user (uid {st.st_uid}): not trusted")
    if stat.S_ISLNK(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Untrusted(0, f"{what} {path} can be written by other users: not trusted (make it private: chmod go-w)")


def _create_key(path: str) -> bytes:
    """Write a fresh key to `path` (exclusive create, owner-only), return it."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    _require_private(os.lstat(os.path.dirname(path)), os.path.dirname(path), "the folder of the cache's key")
    key = os.urandom(KEY_BYTES)  # secrets.token_bytes, without importing random
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def signer(key: bytes, data: bytes = b""):
    """The MAC (HMAC-SHA256) under `key` of `data`, to be fed more (`update`) and read
    (`hexdigest`): a results-cache table is signed as it is read, line by line."""
    return hmac.new(key, data, hashlib.sha256)


def sign(key: bytes, data: bytes) -> str:
    """The hex MAC of `data` under `key`."""
    return signer(key, data).hexdigest()


def verify(key: bytes, data: bytes, mac: str) -> bool:
    """Whether `mac` is `data`'s MAC under `key` (in constant time)."""
    return hmac.compare_digest(sign(key, data), mac)
