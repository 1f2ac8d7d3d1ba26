"""Bytes LibCST's code generation loses, put back: a fix changes only what its edits meant to.

LibCST does not round-trip every file byte for byte: it drops a form feed at the start of an
indented statement line (`\\f    x = 1`) and the final `\\r` of a file that ends with a lone CR
(CR-only line endings), and where it inserts a line into a file that mixes lone CRs and LFs,
its line ending can merge with the one before into a CRLF. Every line of the fixed module that the edits left as LibCST wrote the
original is taken from the original instead; only lines the edits produced come from LibCST.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher


def exact_output(original: bytes, roundtrip: bytes, new: bytes) -> bytes:
    """`new` (LibCST's code for the edited module) with the bytes LibCST lost restored.

    `roundtrip` is LibCST's code for the unedited module: where it equals `original` (nearly
    always), `new` is exact already."""
    new = _unmerged_breaks(original, new)
    if roundtrip == original or not new:
        return new
    original, tail = _lost_final_cr(original, roundtrip)
    source = _source_lines(original.splitlines(keepends=True), roundtrip.splitlines(keepends=True))
    rt_lines, new_lines = roundtrip.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for tag, i1, i2, j1, j2 in _opcodes(rt_lines, new_lines):
        if tag == "equal":
            out.extend(source.get(i, rt_lines[i]) for i in range(i1, i2))
        else:
            out.extend(new_lines[j1:j2])
    return b"".join(out) + tail


def _unmerged_breaks(original: bytes, new: bytes) -> bytes:
    """In a file that mixes lone CRs and LFs but has no CRLF, a line LibCST inserts ends with
    the file's first line ending; one written next to a line ending of the other kind makes a
    CRLF, which reads as one line break where there were two. Keep both, in the style of the
    one that was there: the inserted breaks next to it take its kind."""
    if b"\r\n" not in new or b"\r\n" in original or b"\r" not in original:
        return new
    if re.search(rb"\r|\n", original).group() == b"\n":  # LFs inserted after a CR: "\r\n\n" -> "\r\r\r"
        return re.sub(rb"\r\n+", lambda run: b"\r" * len(run.group()), new)
    return re.sub(rb"\r+\n", lambda run: b"\n" * len(run.group()), new)  # CRs inserted before an LF


def _lost_final_cr(original: bytes, roundtrip: bytes) -> tuple:
    """(original without the final CR LibCST drops, that CR) for a file ending in a lone CR.

    LibCST takes such a file for one without a final newline and drops the `\\r` again from any
    module it writes, edited or not; exactly one CR less in `roundtrip` tells it happened."""
    if original.endswith(b"\r") and roundtrip.count(b"\r") == original.count(b"\r") - 1:
        return original[:-1], b"\r"
    return original, b""


def _source_lines(original: list, roundtrip: list) -> dict:
    """Index of a roundtrip line -> the original line it stands for. The two differ only in
    bytes lost inside lines, so changed runs of equal length pair up line by line."""
    source = {}
    for tag, i1, i2, j1, j2 in _opcodes(original, roundtrip):
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            source.update(zip(range(j1, j2), original[i1:i2]))
    return source


def _opcodes(a: list, b: list) -> list:
    """Line alignment of a and b; no autojunk, so blank lines in big files still align."""
    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
