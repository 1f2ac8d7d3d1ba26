"""Unified diffs of bytes, exact enough that `patch -p1` reproduces what fix would write
(CRLF kept, non-UTF-8 bytes kept, a missing final newline marked as patch expects).

Lines are split where patch splits them, at b"\\n" only. Python also ends a line at a lone
b"\\r", but patch does not: a lone CR stays inside its line (a CR-only file is one long
line, with "\\ No newline at end of file"), so the diff still applies byte for byte."""

from __future__ import annotations

import difflib

_NO_NEWLINE = b"\\ No newline at end of file\n"


def patch_lines(data: bytes) -> list:
    """`data` cut after every b"\\n", as patch reads a file (a last line may lack one)."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def unified_diff(old: bytes, new: bytes, path: str) -> bytes:
    """`--- a/path` / `+++ b/path` diff of two versions of one file; b"" when equal."""
    if old == new:
        return b""
    name = path.replace("\\", "/").lstrip("/").encode("utf-8", "surrogateescape")
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        patch_lines(old),
        patch_lines(new),
        fromfile=b"a/" + name,
        tofile=b"b/" + name,
        n=3,
    )
    out = []
    for index, line in enumerate(lines):
        if index < 2 or line.startswith(b"@@"):  # the two file headers and hunk headers
            out.append(line if line.endswith(b"\n") else line + b"\n")
        elif line.endswith(b"\n"):
            out.append(line)
        else:  # the file's last line, without a newline
            out.append(line + b"\n" + _NO_NEWLINE)
    return b"".join(out)
