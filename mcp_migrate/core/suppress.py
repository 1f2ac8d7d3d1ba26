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

from mcp_migrate.core.ast_nodes import DEFINITIONS, first_line
from mcp_migrate.core.codes import UNFILTERED_CODES
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.record import field, record

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


@record
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


def comments_strict(text: str) -> list:
    """(line, 0-based column, comment text, comment-only line?) for every comment token; the
    tokenizer's error where it cannot read the text."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
        if tok.type == tokenize.COMMENT:
            found.append((tok.start[0], tok.start[1], tok.string, tok.line[: tok.start[1]].strip() == ""))
    return found


def comments(text: str):
    """(line, 0-based column, comment text, comment-only line?) for every comment token;
    a regex fallback when the tokenizer disagrees with the parser (newer syntax)."""
    try:
        return comments_strict(text)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = []
        for no, line in enumerate(text.splitlines(), 1):
            idx = line.find("#")
            if idx >= 0:
                found.append((no, idx, line[idx:], line[:idx].strip() == ""))
        return found


#: The markers, in any case and with no colon, as the suppression regexes may spell them: a
#: line without one holds no suppression (`marked_comments`).
_MARKED = lazy_compile("|".join(re.escape(marker.decode().rstrip(":")) for marker in MARKERS), re.IGNORECASE)


def marked_comments(text: str, tree=None) -> list:
    """`comments(text)` of the lines a suppression can be on (`_MARKED`), with comments of other
    lines around them: where `tree` (the file's `ast` tree) shows the statements, only each
    statement holding such a line is tokenized (a method's, in a class or a function; a comment
    line between statements, alone), as the tokenizer would read it in the file: a statement
    starts where no bracket or string is open (issue 37: a gateway's 572 KB main module, with
    findings and one `# noqa`, was tokenized whole, 0.3 s). Without a tree, with a `\r` (a line
    end for the tokenizer the split below does not count), or where a piece does not tokenize:
    `comments(text)`."""
    if tree is None or "\r" in text:
        return comments(text)
    marked: list = []
    line, previous = 1, 0
    for match in _MARKED.finditer(text):
        line += text.count("\n", previous, match.start())
        previous = match.start()
        if not marked or marked[-1] != line:
            marked.append(line)
    if not marked:
        return []
    lines = text.split("\n")
    pieces: list = []
    for first, last in sorted({_piece(tree.body, at) for at in marked}):
        if pieces and first <= pieces[-1][1]:  # statements on one line: a piece from the first one
            pieces[-1] = (pieces[-1][0], max(last, pieces[-1][1]))
        else:
            pieces.append((first, last))
    found: list = []
    try:
        for first, last in pieces:
            for no, col, comment, only in comments_strict("\n".join(lines[first - 1 : last]) + "\n"):
                found.append((no + first - 1, col, comment, only))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return comments(text)
    return found


def _piece(statements: list, line: int) -> tuple:
    """(first line, last line) of the statement among `statements` (a block's) that holds
    `line`, or of a body statement of it (a class's or a function's, below its header); a line
    between statements is a piece of its own."""
    for stmt in statements:
        start = first_line(stmt)
        if start <= line <= stmt.end_lineno:
            body = stmt.body if isinstance(stmt, DEFINITIONS) else None
            if body and body[0].lineno > stmt.lineno and line >= first_line(body[0]):
                return _piece(body, line)
            return start, stmt.end_lineno
    return line, line


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
    def from_text(cls, text: str, tree=None) -> SuppressionIndex:
        """The suppressions of `text` (`tree`: its `ast` tree, as `marked_comments` takes it)."""
        return cls(*_parse(marked_comments(text, tree)))

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


@record(frozen=True)
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
    so another tool's `# mcp-migrate: X1 ...`-shaped text is never taken for one. A text that
    never spells `mcp-migrate` holds none, and is not tokenized."""
    if "mcp-migrate" not in text:
        return []
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
