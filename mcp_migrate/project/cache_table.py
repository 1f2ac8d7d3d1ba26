"""A results-cache table on disk, read entry by entry (issue 37: a warm run's memory).

Decoding a whole table at once held every file's entry for the whole run, about 2 KB a file:
16 copies of a 1,151-file tree peaked at 95 MiB against 26 MiB for one. Opening a table here
reads it once, line by line, to check its MAC (project.cache_codec's layout) and to note where
each line lies: a hash of the line's path key, its offset and length, in three flat arrays
(24 bytes a file). A lookup reads back the one line (`os.pread` on the handle kept open),
checks that it names the path, and hands its JSON to the codec. Nothing is decoded before the
whole table's MAC holds.

The handle is the inode that was checked: the cache replaces its tables (`os.replace`), never
writes into one, so a table rewritten by a parallel run leaves this one's bytes as they were.
A line that no longer reads back as it was indexed (the file cut short) is a miss.
"""

from __future__ import annotations

import hmac
import os
from array import array
from bisect import bisect_left

from mcp_migrate.project.cache_codec import header_mac, path_key, table_signer
from mcp_migrate.project.regular import TooLarge, open_regular


class StoredTable:
    """One table's lines, found by path (`entry_text`) without holding their bytes."""

    def __init__(self, handle, hashes: array, offsets: array, lengths: array) -> None:
        self._handle = handle
        self._hashes = hashes
        self._offsets = offsets
        self._lengths = lengths

    @classmethod
    def open(cls, key: bytes, name: str, path: str, limit: int) -> StoredTable | None:
        """The table at `path` when it is this key's table `name` (no larger than `limit`
        bytes), else None: a missing, foreign, malformed or tampered table is a miss."""
        try:
            handle, _ = open_regular(path, limit)
        except (OSError, TooLarge):
            return None
        try:
            index = _index(handle, key, name)
        except OSError:
            index = None
        if index is None:
            handle.close()
            return None
        return cls(handle, *index)

    def entry_text(self, path: str) -> bytes | None:
        """The entry JSON of `path`'s line, or None: no line names it, two do, or the line no
        longer reads back."""
        if self._handle is None:
            return None
        start = path_key(path) + b"\t"
        found, key = None, hash(start)
        at = bisect_left(self._hashes, key)
        while at < len(self._hashes) and self._hashes[at] == key:
            try:
                line = os.pread(self._handle.fileno(), self._lengths[at], self._offsets[at])
            except OSError:
                return None
            if len(line) != self._lengths[at] or not line.endswith(b"\n"):
                return None
            if line.startswith(start):
                if found is not None:
                    return None  # two lines for one path: no writer of ours makes that
                found = line[len(start) : -1]
            at += 1
        return found

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __del__(self) -> None:
        self.close()


def _index(handle, key: bytes, name: str) -> tuple | None:
    """(hashes, offsets, lengths) of the table's lines, sorted by hash, when its header and MAC
    are this key's for `name`; else None."""
    first = handle.readline()
    mac = header_mac(first)
    if mac is None:
        return None
    signer = table_signer(key, name)
    hashes, offsets, lengths = array("q"), array("q"), array("q")
    offset = len(first)
    for line in handle:
        signer.update(line)
        tab = line.find(b"\t")
        if tab < 0 or not line.endswith(b"\n"):
            return None
        hashes.append(hash(line[: tab + 1]))
        offsets.append(offset)
        lengths.append(len(line))
        offset += len(line)
    if not hmac.compare_digest(signer.hexdigest(), mac):
        return None
    order = sorted(range(len(hashes)), key=hashes.__getitem__)
    return (
        array("q", (hashes[i] for i in order)),
        array("q", (offsets[i] for i in order)),
        array("q", (lengths[i] for i in order)),
    )
