"""A bare `# noqa` suppresses every finding on its line, as ruff honours it (issue 22 §6).

ruff's rule: a comment holding `noqa` right after a `#` (`# noqa`, `#noqa`, `# NOQA`,
`# noqa because ...`, `# type: ignore # noqa`, `# noqa# more`) is a blanket directive unless a
colon follows it (`# noqa: RT001` names codes; `# noqa:` alone names none and suppresses nothing);
`# noqab` or `# noqa-x` is no directive at all. As for `# noqa: CODE`, the finding's first or last
line counts. Files that cannot be read or parsed (E999, E902, ...) are never suppressed. A bare
`# noqa` that matches no finding is not reported as unused (RT900): it is usually there for
another linter.

This layer wraps the engine from `commands/` because the engine's suppressions live in
`core/suppress.py`, which this change could not touch; it belongs there (see the report of
issue 22). It works on bytes and comment tokens:

- checking: findings on a blanket line move to the result's `suppressed` (kind `noqa`);
- fixing and fix previews: each blanket comment holding findings is first spelled out as
  `# noqa: <their codes> <mcp-migrate-blanket-N>`, which the engine honours (so their fixes are
  never applied), and the inserted text is taken out of the output again, byte for byte.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from typing import NamedTuple

from mcp_migrate.core.codes import UNFILTERED_CODES
from mcp_migrate.core.findings import Suppressed

#: A blanket directive inside one comment token (ruff's reading, see the module docstring).
BLANKET = re.compile(r"#\s*noqa(?!\s*:)(?=[\s#]|$)", re.IGNORECASE)
_MAY_HOLD = re.compile(rb"noqa", re.IGNORECASE)
_SENTINEL = b"<mcp-migrate-blanket-"
_BOM = b"\xef\xbb\xbf"


class Directive(NamedTuple):
    """One blanket `# noqa`: its line and the byte offset just after its `noqa`."""

    line: int
    offset: int


def directives(data: bytes) -> list:
    """The blanket directives of a file's comment tokens (never text inside a string)."""
    if not _MAY_HOLD.search(data):
        return []
    from mcp_migrate.core.suppress import comments

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return []
    plain = "utf-8" if encoding == "utf-8-sig" else encoding
    lines = data.splitlines(keepends=True)  # \n, \r\n and \r: the lines tokenize counts
    starts = [0]
    for raw in lines:
        starts.append(starts[-1] + len(raw))
    found = []
    for line, column, comment, _only in comments(text):
        if line > len(lines):
            continue
        for match in BLANKET.finditer(comment):
            raw = lines[line - 1]
            bom = len(_BOM) if line == 1 and raw.startswith(_BOM) else 0
            try:
                decoded = raw[bom:].decode(plain)
            except (UnicodeError, LookupError):
                continue
            found.append(Directive(line, starts[line - 1] + bom + len(decoded[: column + match.end()].encode(plain))))
    return found


def _covered(finding, lines: set) -> bool:
    return finding.code not in UNFILTERED_CODES and (finding.line in lines or finding.end_line in lines)


def suppress(result, data: bytes, found: list | None = None):
    """Move the findings a blanket `# noqa` covers to `result.suppressed`; returns `result`."""
    if not result.findings:
        return result
    found = directives(data) if found is None else found
    if not found:
        return result
    lines = {d.line for d in found}
    kept = []
    for finding in result.findings:
        if _covered(finding, lines):
            result.suppressed.append(Suppressed(finding, "noqa", ""))
        else:
            kept.append(finding)
    if len(kept) != len(result.findings):
        result.findings = kept
        result.suppressed.sort(key=lambda s: s.finding.sort_key())
    return result


class Spelled(NamedTuple):
    """`data` with each blanket directive that covers findings spelled out, and the inserted
    byte strings (to take out again)."""

    data: bytes
    inserted: tuple

    def restore(self, new: bytes | None) -> bytes | None:
        if new is None:
            return None
        for text in self.inserted:
            new = new.replace(text, b"", 1)
        return new


def spell_out(data: bytes, findings, found: list) -> Spelled | None:
    """Each blanket directive on a line with findings becomes `# noqa: CODES <sentinel>`; None
    when none covers a finding (or the file already holds our sentinel)."""
    if _SENTINEL in data:
        return None
    by_line: dict = {}
    for finding in findings:
        if finding.code in UNFILTERED_CODES:
            continue
        for line in {finding.line, finding.end_line}:
            by_line.setdefault(line, set()).add(finding.code)
    pieces, inserted, last = [], [], 0
    for index, directive in enumerate(sorted(found, key=lambda d: d.offset)):
        codes = by_line.get(directive.line)
        if not codes:
            continue
        text = b": " + ", ".join(sorted(codes)).encode("ascii") + b" " + _SENTINEL + str(index).encode() + b">"
        pieces.append(data[last : directive.offset])
        pieces.append(text)
        last = directive.offset
        inserted.append(text)
    if not inserted:
        return None
    pieces.append(data[last:])
    return Spelled(b"".join(pieces), tuple(inserted))


def check(data: bytes, display: str, settings, run: Callable):
    """`run(data)` (the engine's check, with or without previews) honouring blanket directives:
    their findings are suppressed, and fix previews leave them alone."""
    result = run(data)
    if not result.findings:
        return result
    found = directives(data)
    if not found:
        return result
    spelled = spell_out(data, result.findings, found) if result.fix_previews else None
    suppress(result, data, found)
    if spelled is not None:
        result.fix_previews, result.finding_fixes = _previews(spelled, display, settings)
    return result


def _previews(spelled: Spelled, display: str, settings) -> tuple:
    """(rule previews, finding previews) of the spelled-out bytes, restored."""
    from mcp_migrate import api
    from mcp_migrate.core.fix.loop import previews

    analysis = api.analyze(spelled.data, display, settings)
    rules, findings = previews(analysis, spelled.data, display)
    return (
        {key: spelled.restore(new) for key, new in rules.items()},
        {key: spelled.restore(new) for key, new in findings.items()},
    )


def fix(data: bytes, display: str, settings, run_fix: Callable, run_check: Callable):
    """`run_fix(data)` (a FileResult with `fixed_source`) honouring blanket directives: the
    findings they cover are not fixed, and what remains is checked on the restored output."""
    found = directives(data)
    if not found:
        return run_fix(data)
    before = run_check(data)
    spelled = spell_out(data, before.findings, found)
    if spelled is None:
        return run_fix(data)
    fixed = run_fix(spelled.data)
    new = spelled.restore(fixed.fixed_source)
    final = new if new is not None and new != data else data
    result = suppress(run_check(final), final)
    result.fixed_source = final if final != data else None
    result.applied = fixed.applied if result.fixed_source is not None else []
    result.errors = list(fixed.errors) + [e for e in result.errors if e not in fixed.errors]
    return result
