"""Inline suppressions, read from real comment tokens (a `#` inside a string never counts).

Recognised, on the finding's first or last line:
  `# noqa: RT001, RT004`                      (ruff-compatible)
  `# mcp-migrate: ignore[RT001] -- reason`    (the reason is kept and reported)
  `# noqa`                                    (bare: every finding on the line, see BLANKET)
and, as in Fixit, `# lint-fixme: RT001` / `# lint-ignore: RT001` on the line itself or on a
comment-only line directly above it. A suppression that matches no finding is stale (RT900),
except a bare `# noqa`: it is usually there for another linter.

A bare `# noqa` is ruff's blanket directive (issue 22 §6): `noqa` right after a `#` (`# noqa`,
`#noqa`, `# NOQA`, `# noqa because ...`, `# type: ignore # noqa`, `# noqa# more`) unless a colon
follows (`# noqa: RT001` names codes; `# noqa:` alone names none and suppresses nothing);
`# noqab` or `# noqa-x` is no directive at all. It is honoured after the code-naming comments
(which keep their kind and reason), on what they leave, and never on the engine's file codes
(E999, E902, ...). The engine drops what it covers before fixing, so its fixes are never applied
nor previewed, in the one analysis of the file.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from mcp_migrate.core.codes import UNFILTERED_CODES
from mcp_migrate.core.lazy_regex import lazy_compile

_CODE = r"[A-Z]+[0-9]+"
#: noqa comments (`noqa: CODE[, CODE...]`), shared with `--add-noqa`, which extends such a comment.
NOQA = lazy_compile(rf"#\s*noqa\s*:\s*({_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE})*)", re.IGNORECASE)
_IGNORE = lazy_compile(rf"#\s*mcp-migrate\s*:\s*ignore\[\s*({_CODE}(?:\s*,\s*{_CODE})*)\s*\](?:\s*--\s*(.*))?")
_LINT_SUPPRESS = lazy_compile(rf"#\s*lint-(?:fixme|ignore)\s*:\s*({_CODE}(?:\s*,\s*{_CODE})*)")
_SPLIT = lazy_compile(r"[\s,]+")
#: A blanket directive inside one comment token (ruff's reading, see the module docstring).
BLANKET = lazy_compile(r"#\s*noqa(?!\s*:)(?=[\s#]|$)", re.IGNORECASE)
#: Bytes whose presence means a file may hold a suppression comment of ours.
MARKERS = (b"noqa", b"mcp-migrate:", b"lint-fixme", b"lint-ignore")


@dataclass
class Suppression:
    """One suppression comment: where it is, which codes it names, which lines it covers."""

    line: int
    column: int  # 1-based column of the comment's `#`
    end_column: int
    codes: tuple
    lines: tuple
    kind: str  # "noqa" | "ignore" | "lint-fixme"
    reason: str = ""
    used: set = field(default_factory=set)


def _codes(match) -> tuple:
    return tuple(c.upper() for c in _SPLIT.split(match.group(1)) if c)


def comments(text: str):
    """(line, 0-based column, comment text, comment-only line?) for every comment token;
    a regex fallback when the tokenizer disagrees with the parser (newer syntax)."""
    try:
        found = []
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if tok.type == tokenize.COMMENT:
                found.append((tok.start[0], tok.start[1], tok.string, tok.line[: tok.start[1]].strip() == ""))
        return found
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = []
        for no, line in enumerate(text.splitlines(), 1):
            idx = line.find("#")
            if idx >= 0:
                found.append((no, idx, line[idx:], line[:idx].strip() == ""))
        return found


def parse_suppressions(text: str) -> list:
    return _parse(comments(text))[0]


def _parse(tokens) -> tuple:
    """(the code-naming suppressions, the lines of bare `# noqa` comments) of comment tokens."""
    result, blanket = [], set()
    for line, col, comment, only in tokens:
        if BLANKET.search(comment):
            blanket.add(line)
        end = col + len(comment) + 1
        for m in NOQA.finditer(comment):
            result.append(Suppression(line, col + 1, end, _codes(m), (line,), "noqa"))
        for m in _IGNORE.finditer(comment):
            reason = (m.group(2) or "").strip()
            result.append(Suppression(line, col + 1, end, _codes(m), (line,), "ignore", reason))
        for m in _LINT_SUPPRESS.finditer(comment):
            covered = (line, line + 1) if only else (line,)
            result.append(Suppression(line, col + 1, end, _codes(m), covered, "lint-fixme"))
    return result, frozenset(blanket)


class SuppressionIndex:
    """Looks up the suppression covering a finding and remembers which ones were used; knows
    the lines a bare `# noqa` covers (`blanket`), which are never stale."""

    def __init__(self, suppressions: list, blanket: frozenset = frozenset()):
        self.suppressions = suppressions
        self.blanket = blanket
        self.by_line: dict = {}
        for s in suppressions:
            for line in s.lines:
                self.by_line.setdefault(line, []).append(s)

    @classmethod
    def from_text(cls, text: str) -> SuppressionIndex:
        return cls(*_parse(comments(text)))

    def blanket_covers(self, finding) -> bool:
        """Whether a bare `# noqa` on the finding's first or last line covers it (never one of
        the engine's file codes: a file we could not look at is always reported)."""
        return finding.code not in UNFILTERED_CODES and not self.blanket.isdisjoint((finding.line, finding.end_line))

    def match(self, finding):
        for line in dict.fromkeys((finding.line, finding.end_line)):
            for s in self.by_line.get(line, ()):
                if finding.code in s.codes:
                    s.used.add(finding.code)
                    return s
        return None

    def stale(self, selected) -> list:
        """(suppression, code) pairs naming a selected rule of ours that matched nothing."""
        return [(s, code) for s in self.suppressions for code in s.codes if code in selected and code not in s.used]


#: A review marker that `fix` leaves where a human must decide (RT901): `# mcp-migrate: RT001
#: review: why` and the older `# mcp-migrate: RT002 what to do`. An `ignore[...]` suppression
#: does not match: its text after the colon starts with `ignore`, never with a rule code.
_REVIEW = lazy_compile(rf"#\s*mcp-migrate\s*:\s*({_CODE})\b(?:\s+review\s*:)?\s*(.*)")


@dataclass(frozen=True)
class ReviewMarker:
    """One `# mcp-migrate: CODE ...` review comment: where it is, the rule, the reason."""

    line: int
    column: int  # 1-based column of the comment's `#`
    end_column: int
    code: str
    reason: str
    #: The comment's last line (a wrapped marker continues on `#   ...` lines below).
    last_line: int = 0


def review_markers(text: str, codes) -> list:
    """The review markers among `text`'s comment tokens whose code is one of `codes` (ours),
    so another tool's `# mcp-migrate: X1 ...`-shaped text is never taken for one."""
    found = []
    tokens = list(comments(text))
    for index, (line, col, comment, _only) in enumerate(tokens):
        match = _REVIEW.match(comment)
        if match is not None and match.group(1) in codes:
            more = _continuation(tokens, index)
            reason = " ".join([match.group(2).strip(), *more]).strip()
            found.append(ReviewMarker(line, col + 1, col + len(comment) + 1, match.group(1), reason, line + len(more)))
    return found


def _continuation(tokens: list, index: int) -> list:
    """The `#   ...` lines that continue a wrapped marker: same column, the lines right below."""
    line, col = tokens[index][0], tokens[index][1]
    out = []
    for next_line, next_col, comment, _only in tokens[index + 1 :]:
        if next_line != line + 1 or next_col != col or not comment.startswith("#   "):
            break
        out.append(comment[1:].strip())
        line = next_line
    return out
