"""Inline suppressions, read from real comment tokens (a `#` inside a string never counts).

Recognised, on the finding's first or last line:
  `# noqa: RT001, RT004`            (ruff-compatible; a bare `# noqa` suppresses nothing)
  `# mcp-migrate: ignore[RT001]`    (optionally followed by ` -- reason`)
and, as in Fixit, `# lint-fixme: RT001` / `# lint-ignore: RT001` on the line itself or on a
comment-only line directly above it.
"""
from __future__ import annotations

import io
import re
import tokenize

_CODE = r"[A-Z]+[0-9]+"
_NOQA = re.compile(rf"#\s*noqa\s*:\s*({_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE})*)", re.IGNORECASE)
_IGNORE = re.compile(rf"#\s*mcp-migrate\s*:\s*ignore\[\s*({_CODE}(?:\s*,\s*{_CODE})*)\s*\]")
_FIXME = re.compile(rf"#\s*lint-(?:fixme|ignore)\s*:\s*({_CODE}(?:\s*,\s*{_CODE})*)")
_SPLIT = re.compile(r"[\s,]+")


def _codes(match) -> set:
    return {c.upper() for c in _SPLIT.split(match.group(1)) if c}


def comments_by_line(text: str) -> dict:
    """line -> (comment text, comment-only line?) using the tokenizer; a regex fallback when
    the tokenizer disagrees with the parser (newer syntax)."""
    found = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                only = tok.line[: tok.start[1]].strip() == ""
                found[tok.start[0]] = (tok.string, only)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = {}
        for no, line in enumerate(text.splitlines(), 1):
            idx = line.find("#")
            if idx >= 0:
                found[no] = (line[idx:], line[:idx].strip() == "")
    return found


def suppressions_by_line(text: str) -> dict:
    """line -> set of codes suppressed on that line."""
    result: dict = {}
    for line, (comment, only) in comments_by_line(text).items():
        codes = set()
        for pattern in (_NOQA, _IGNORE):
            for m in pattern.finditer(comment):
                codes |= _codes(m)
        fixme = set()
        for m in _FIXME.finditer(comment):
            fixme |= _codes(m)
        if codes or fixme:
            result.setdefault(line, set()).update(codes | fixme)
        if fixme and only:
            result.setdefault(line + 1, set()).update(fixme)
    return result


def is_suppressed(finding, suppressions: dict) -> bool:
    for line in {finding.line, finding.end_line}:
        if finding.code in suppressions.get(line, ()):
            return True
    return False
