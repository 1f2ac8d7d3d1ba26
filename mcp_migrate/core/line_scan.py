"""Statements found by bytes at the start of a line, fast. A pattern written `(?m)^[ \t]*from ...`
makes Python's regex engine try every position of a file; the same pattern without the anchor
starts with a literal (`from`, `import`), which the engine finds by a fast scan, and a match
then counts only where nothing but blanks precede it on its line. The matches are those of the
anchored pattern: a match holds no line start but its own (its first character is no blank),
so a match rejected here hides no match the anchored pattern would have found: the search goes
on from its second character.

`token_lines` gives the numbers of the lines tokens are found on, as the parser numbers them."""

from __future__ import annotations

import re
from collections.abc import Iterator


def at_line_start(data: bytes, start: int) -> bool:
    """Only blanks (spaces, tabs) between the line's start and `start`."""
    line = data.rfind(b"\n", 0, start) + 1
    return not data[line:start].strip(b" \t")


def line_matches(pattern: re.Pattern, data: bytes) -> Iterator[re.Match]:
    """The matches of `pattern` (unanchored, starting with a literal) that begin a line after
    its indentation, in order and without overlap, as `finditer` of `(?m)^[ \\t]*` + pattern."""
    search, pos = pattern.search, 0
    while True:
        match = search(data, pos)
        if match is None:
            return
        if at_line_start(data, match.start()):
            yield match
            pos = max(match.end(), match.start() + 1)
        else:
            pos = match.start() + 1


def starts_a_line(pattern: re.Pattern, data: bytes) -> bool:
    """Whether some match of `pattern` begins a line (`(?m)^[ \\t]*` + pattern `.search`)."""
    return next(line_matches(pattern, data), None) is not None


def token_lines(data: bytes, tokens: tuple) -> set:
    """The numbers of the lines on which one of `tokens` starts, as the parser numbers them (a
    lone CR ends a line too)."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    found, line, counted = set(), 1, 0
    for start in sorted(m.start() for token in tokens for m in re.finditer(re.escape(token), data)):
        line += data.count(b"\n", counted, start)  # each byte counted once: `method` occurs hundreds of times
        counted = start
        found.add(line)
    return found
