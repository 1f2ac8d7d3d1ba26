"""Bytes LibCST's code generation loses, put back: a fix changes only what its edits meant to.

LibCST does not round-trip every file byte for byte: it drops a form feed at the start of an
indented statement line (`\\f    x = 1`) and the final `\\r` of a file that ends with a lone CR
(CR-only line endings), and where it inserts a line into a file that mixes lone CRs and LFs,
its line ending can merge with the one before into a CRLF. Every line of the fixed module that
the edits left as LibCST wrote the original is taken from the original instead; only lines the
edits produced come from LibCST.
"""

from __future__ import annotations

import bisect
import re
from difflib import SequenceMatcher

#: Below this many lines between two anchors, difflib aligns them exactly; above, the run
#: is left unaligned (its lines come from LibCST), so the cost stays linear in big files.
_SMALL_GAP = 400


def exact_output(original: bytes, roundtrip: bytes, new: bytes) -> bytes:
    """`new` (LibCST's code for the edited module) with the bytes LibCST lost restored.

    `roundtrip` is LibCST's code for the unedited module: where it equals `original` (nearly
    always), `new` is exact already."""
    new = _unmerged_breaks(original, new)
    new = _unmerged_after_lone_cr(original, new)
    if roundtrip == original or not new:
        return new
    original, tail = _lost_final_cr(original, roundtrip)
    source = _source_lines(original.splitlines(keepends=True), roundtrip.splitlines(keepends=True))
    rt_lines, new_lines = roundtrip.splitlines(keepends=True), new.splitlines(keepends=True)
    kept = {j: i for i, j in align(rt_lines, new_lines)}
    out = [source.get(kept[j], line) if j in kept else line for j, line in enumerate(new_lines)]
    return b"".join(out) + tail


def _unmerged_breaks(original: bytes, new: bytes) -> bytes:
    """In a file that mixes lone CRs and LFs but has no CRLF, a line LibCST inserts ends with
    the file's first line ending; one written next to a line ending of the other kind makes a
    CRLF, which reads as one line break where there were two. Keep both, in the style of the
    one that was there: the inserted breaks next to it take its kind."""
    if b"\r\n" not in new or b"\r\n" in original or b"\r" not in original:
        return new
    first = re.search(rb"\r|\n", original)
    assert first is not None  # the original holds a CR (tested above)
    if first.group() == b"\n":  # LFs inserted after a CR: "\r\n\n" -> "\r\r\r"
        return re.sub(rb"\r\n+", lambda run: b"\r" * len(run.group()), new)
    return re.sub(rb"\r+\n", lambda run: b"\n" * len(run.group()), new)  # CRs inserted before an LF


def _unmerged_after_lone_cr(original: bytes, new: bytes) -> bytes:
    """`_unmerged_breaks` for a file that also has CRLFs: an empty line LibCST inserts right
    after a line ending in a lone CR merges with that CR into a CRLF (`X\r` + `\n` reads as one
    break where there were two: a fuzz case, `mcp = FastMCP(...)\r\r\n` before a helper
    resource-uri inserts). Such a line of the edited region, ending in CRLF where the original
    ended the same text with a lone CR (and never with a CRLF), keeps its CR and the inserted
    empty line gets one too."""
    if b"\r\n" not in original or b"\r\n" not in new:
        return new
    old_lines = original.splitlines(keepends=True)
    lone = {line[:-1] for line in old_lines if line.endswith(b"\r")}
    if not lone:
        return new
    crlf = {line[:-2] for line in old_lines if line.endswith(b"\r\n")}
    new_lines = new.splitlines(keepends=True)
    out: list = []
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        for line in new_lines[j1:j2]:
            text = line[:-2]
            if tag != "equal" and line.endswith(b"\r\n") and text in lone and text not in crlf:
                out.append(text + b"\r\r")
            elif tag != "equal" and line == b"\n" and out and out[-1].endswith(b"\r"):
                out.append(b"\r")  # an inserted blank line after a CR: a CR too, or it merges
            else:
                out.append(line)
    return b"".join(out)


def _lost_final_cr(original: bytes, roundtrip: bytes) -> tuple:
    """(original without the final CR LibCST drops, that CR) for a file ending in a lone CR.

    LibCST takes such a file for one without a final newline and drops the `\\r` again from any
    module it writes, edited or not; exactly one CR less in `roundtrip` tells it happened."""
    if original.endswith(b"\r") and roundtrip.count(b"\r") == original.count(b"\r") - 1:
        return original[:-1], b"\r"
    return original, b""


def _source_lines(original: list, roundtrip: list) -> dict:
    """Index of a roundtrip line -> the original line it stands for. The two differ only in
    bytes lost inside lines, so they pair up line by line; were a line lost whole, the lines
    between aligned ones pair up where the runs are of equal length."""
    if len(original) == len(roundtrip):
        return dict(enumerate(original))
    pairs = align(original, roundtrip)
    source = {j: original[i] for i, j in pairs}
    for (i1, j1), (i2, j2) in zip([(-1, -1), *pairs], [*pairs, (len(original), len(roundtrip))]):
        if i2 - i1 == j2 - j1:
            source.update(zip(range(j1 + 1, j2), original[i1 + 1 : i2]))
    return source


def align(a: list, b: list) -> list:
    """Increasing (i, j) pairs of equal lines a[i] == b[j], as a patience diff finds them: the
    common start and end, then lines that occur once in each side as anchors, recursively; a
    small run without anchors is aligned by difflib. Near-linear on long files full of repeated
    lines (blank lines, `return`), where difflib alone is quadratic."""
    pairs = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            pairs.append((ahi - 1, bhi - 1))
            ahi, bhi = ahi - 1, bhi - 1
        if alo == ahi or blo == bhi:
            continue
        anchors = _unique_anchors(a, alo, ahi, b, blo, bhi)
        if anchors:
            pairs.extend(anchors)
            bounds = [(alo - 1, blo - 1), *anchors, (ahi, bhi)]
            stack.extend((i1 + 1, i2, j1 + 1, j2) for (i1, j1), (i2, j2) in zip(bounds, bounds[1:]))
        elif ahi - alo <= _SMALL_GAP and bhi - blo <= _SMALL_GAP:
            matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for i, j, size in matcher.get_matching_blocks():
                pairs.extend((alo + i + k, blo + j + k) for k in range(size))
    return sorted(pairs)


def _unique_anchors(a, alo, ahi, b, blo, bhi) -> list:
    """Lines occurring exactly once in a[alo:ahi] and in b[blo:bhi], the longest run of them
    in the same order on both sides (patience sorting)."""
    counts: dict = {}
    for i in range(alo, ahi):
        counts[a[i]] = (i, -1) if a[i] not in counts else (None, -1)
    for j in range(blo, bhi):
        entry = counts.get(b[j])
        if entry is not None and entry[0] is not None:
            counts[b[j]] = (entry[0], j if entry[1] == -1 else None)
    candidates = sorted((i, j) for i, j in counts.values() if i is not None and j is not None and j >= 0)
    return _longest_increasing(candidates)


def _longest_increasing(pairs: list) -> list:
    """The longest subsequence of `pairs` (sorted by i) whose j increases too."""
    tails: list[int] = []
    tail_at: list[int] = []
    previous: list[int | None] = [None] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[at], tail_at[at] = j, index
        previous[index] = tail_at[at - 1] if at else None
    out = []
    cursor = tail_at[-1] if tail_at else None
    while cursor is not None:
        out.append(pairs[cursor])
        cursor = previous[cursor]
    return out[::-1]
