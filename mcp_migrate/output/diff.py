"""Unified diffs of bytes, exact enough that `patch -p1` reproduces what fix would write
(CRLF kept, non-UTF-8 bytes kept, a missing final newline marked as patch expects).

Lines are split where patch splits them, at b"\\n" only. Python also ends a line at a lone
b"\\r", but patch does not: a lone CR stays inside its line (a CR-only file is one long
line, with "\\ No newline at end of file"), so the diff still applies byte for byte."""

from __future__ import annotations

import difflib
import os

_NO_NEWLINE = b"\\ No newline at end of file\n"


def patch_lines(data: bytes) -> list:
    """`data` cut after every b"\\n", as patch reads a file (a last line may lack one)."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


_ESCAPES = {ord('"'): b'\\"', ord("\\"): b"\\\\", ord("\t"): b"\\t", ord("\n"): b"\\n", ord("\r"): b"\\r"}


def header_name(name: bytes) -> bytes:
    """A file name as GNU patch and git read it in `---`/`+++` lines (git's own quoting): a
    name with a quote, backslash, control or non-ASCII byte is C-quoted with octal escapes; a
    name with a space ends with a tab, or patch would stop reading it at the space."""
    if any(byte < 0x20 or byte >= 0x7F or byte in b'"\\' for byte in name):
        quoted = b"".join(
            _ESCAPES.get(byte) or (b"\\%03o" % byte if byte < 0x20 or byte >= 0x7F else bytes([byte])) for byte in name
        )
        return b'"' + quoted + b'"'
    return name + b"\t" if b" " in name else name


def unified_diff(old: bytes, new: bytes, path: str) -> bytes:
    """`--- a/path` / `+++ b/path` diff of two versions of one file; b"" when equal."""
    if old == new:
        return b""
    if os.sep != "/":  # a Windows path; on POSIX a backslash is part of the name
        path = path.replace(os.sep, "/")
    name = path.lstrip("/").encode("utf-8", "surrogateescape")
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        patch_lines(old),
        patch_lines(new),
        fromfile=header_name(b"a/" + name),
        tofile=header_name(b"b/" + name),
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
