"""Unified diffs of bytes, exact enough that `patch -p1` reproduces what fix would write
(CRLF kept, non-UTF-8 bytes kept, a missing final newline marked as patch expects)."""

from __future__ import annotations

import difflib

_NO_NEWLINE = b"\\ No newline at end of file\n"


def unified_diff(old: bytes, new: bytes, path: str) -> bytes:
    """`--- a/path` / `+++ b/path` diff of two versions of one file; b"" when equal."""
    if old == new:
        return b""
    name = path.replace("\\", "/").lstrip("/").encode("utf-8", "surrogateescape")
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=b"a/" + name,
        tofile=b"b/" + name,
        n=3,
    )
    out = []
    for line in lines:
        if line.startswith((b"---", b"+++")) and not line.endswith(b"\n"):
            line += b"\n"
        if not line.endswith((b"\n", b"\r")) and not line.startswith(b"@@"):
            out.append(line + b"\n" + _NO_NEWLINE)
        elif line.startswith(b"@@") and not line.endswith(b"\n"):
            out.append(line + b"\n")
        else:
            out.append(line)
    return b"".join(out)
