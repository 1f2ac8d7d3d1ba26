"""The secret that makes a results cache this user's own: tables and the folder's owner mark are
signed with it, so a cache that arrived with a repository (a fork's pull request, a cloned
project) can never be taken for one this user's runs wrote.

The key is 32 random bytes in the user's cache folder (`$XDG_CACHE_HOME/mcp-migrate/key`, else
`%LOCALAPPDATA%` on Windows, else `~/.cache`), created once with mode 0600, never inside a checked
tree. No key (no home, a read-only home) means no results cache: every run is cold.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from functools import lru_cache

KEY_BYTES = 32
#: Where the key lives, below the user's cache folder.
KEY_NAME = os.path.join("mcp-migrate", "key")


def key_path() -> str | None:
    """The key file's path, or None when this user has no cache folder to keep it in."""
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
    if not base:
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, KEY_NAME)


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


@lru_cache(maxsize=1)
def user_key() -> bytes | None:
    """This user's key: read, or created the first time; None when it cannot be had safely."""
    path = key_path()
    if path is None:
        return None
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        return _create_key(path)
    except FileExistsError:  # another run created it first
        try:
            return _read_key(path)
        except OSError:
            return None
    except OSError:
        return None


def _read_key(path: str) -> bytes | None:
    """The key in `path` when it is a regular file of ours of the right size, else None."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
            return None
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def _create_key(path: str) -> bytes:
    """Write a fresh key to `path` (exclusive create, owner-only), return it."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    key = os.urandom(KEY_BYTES)  # secrets.token_bytes, without importing random
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def sign(key: bytes, data: bytes) -> str:
    """The hex MAC of `data` under `key`."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def verify(key: bytes, data: bytes, mac: str) -> bool:
    """Whether `mac` is `data`'s MAC under `key` (in constant time)."""
    return hmac.compare_digest(sign(key, data), mac)
