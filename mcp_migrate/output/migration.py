"""`--report FILE.md`: a Markdown migration report for the pull request.

Totals at the top, then per file: what was rewritten (rule, line, one line before and after),
every `# mcp-migrate:` review marker left behind with its reason (the RT901 findings), and what
remains for manual work (every other finding). `fix --report` describes what it wrote; `check
--report` describes where a migration stands (nothing rewritten, markers and findings left).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Optional

from mcp_migrate.core.codes import REVIEW_PENDING_CODE
from mcp_migrate.output.full import decode_lines, hunks, own_hunks


@dataclass(frozen=True)
class Rewrite:
    """One applied fix: the rule, the line it was found on, a line before and after."""

    code: str
    line: int
    before: str
    after: str


@dataclass
class FileSection:
    path: str
    rewrites: list = field(default_factory=list)
    #: RT901 findings: the review markers left for a human.
    markers: list = field(default_factory=list)
    #: Every other finding that remains.
    remaining: list = field(default_factory=list)


def rewrites(applied: list, old: Optional[bytes], new: Optional[bytes]) -> list:
    """A Rewrite per applied fix that rewrote code (a review marker is not one: its finding
    stays and its RT901 lists it under the review markers): the finding's line before, and the
    first line of the change that touches it (or the nearest change) after."""
    from mcp_migrate.core.findings import MARKED

    applied = [(a[0], a[1]) for a in applied if len(a) < 3 or a[2] != MARKED]
    if old is None or new is None:
        return [Rewrite(code, line, "", "") for code, line in applied]
    before, after = decode_lines(old), decode_lines(new)
    changes = hunks(before, after)
    return [Rewrite(code, line, *_before_after(before, changes, line)) for code, line in applied]


def _before_after(before: list, changes: list, line: int) -> tuple:
    """(before, after) one-liners for a fix found on `line`: that line, and the line of the
    change touching it that reads most like it (a line replaced in place), else the change's
    first added line (a marker, a new signature) or `(removed)`."""
    text = before[line - 1].strip() if 0 < line <= len(before) else ""
    mine = own_hunks(changes, line, line)
    if not mine:
        return text, text
    first, last, removed, added = mine[0]
    if not first <= line <= last:
        text = removed[0].strip() if removed else text
    if not added:
        return text, "(removed)"
    best = max(added, key=lambda new: difflib.SequenceMatcher(None, text, new.strip()).ratio())
    if difflib.SequenceMatcher(None, text, best.strip()).ratio() < 0.5:
        best = added[0]
    return text, best.strip()


def section(path: str, findings: list, applied=(), old: Optional[bytes] = None, new: Optional[bytes] = None):
    """The report's part for one file (None when the file has nothing to say)."""
    sec = FileSection(path, rewrites=rewrites(list(applied), old, new))
    for finding in sorted(findings, key=lambda f: f.sort_key()):
        (sec.markers if finding.code == REVIEW_PENDING_CODE else sec.remaining).append(finding)
    if not (sec.rewrites or sec.markers or sec.remaining):
        return None
    return sec


def _code(text: str) -> str:
    """Inline code that survives backticks inside the text."""
    text = text or " "
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    """A table cell: a `|` would end it, a newline would end the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def render(sections: list, *, files_checked: int, fixed: bool, errors: list = ()) -> str:
    """The whole Markdown document."""
    rewritten = sum(len(s.rewrites) for s in sections)
    markers = sum(len(s.markers) for s in sections)
    remaining = sum(len(s.remaining) for s in sections)
    lines = [
        "# mcp-migrate migration report",
        "",
        f"- Files checked: {files_checked}",
        f"- Files with something to report: {len(sections)}",
        f"- Rewritten: {rewritten}" + ("" if fixed else " (a `check` run: nothing was rewritten)"),
        f"- Review markers left: {markers}",
        f"- Remaining for manual work: {remaining}",
    ]
    if errors:
        lines.append(f"- Errors: {len(errors)}")
    for sec in sections:
        lines += ["", f"## {_code(sec.path)}"]
        if sec.rewrites:
            lines += ["", "### Rewritten", "", "| Rule | Line | Before | After |", "| --- | --- | --- | --- |"]
            lines += [
                f"| {r.code} | {r.line} | {_cell(_code(r.before))} | {_cell(_code(r.after))} |" for r in sec.rewrites
            ]
        if sec.markers:
            lines += ["", "### Review markers", ""]
            lines += [f"- line {f.line}: {_marker_reason(f)}" for f in sec.markers]
        if sec.remaining:
            lines += ["", "### Remaining for manual work", ""]
            lines += [f"- line {f.line}: {f.code} {f.name} ({f.severity}): {f.message}" for f in sec.remaining]
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {_code(e.path)}: {e.code} {e.message}" for e in errors]
    return "\n".join(lines) + "\n"


def _marker_reason(finding) -> str:
    """`RT001: why` from an RT901 finding (message `review pending (RT001): ...`, help `why;
    remove the marker ...`)."""
    _head, _, rest = finding.message.partition("(")
    code = rest.partition(")")[0]
    reason = finding.help.rsplit("; remove the marker", 1)[0]
    return f"{code}: {reason}" if code and reason else finding.message


def write(path: str, text: str) -> None:
    """Write the report as UTF-8 (Markdown viewers and pull-request bodies expect it)."""
    from mcp_migrate.output.printable import printable

    with open(path, "w", encoding="utf-8") as fh:
        fh.write(printable(text))  # a file name that is not UTF-8 shows as `\xff`


def check_report(run) -> str:
    """The report of a `check` run: where the migration stands."""
    by_path = sorted(run.results, key=lambda r: r.path)
    sections = [s for s in (section(r.path, r.findings) for r in by_path) if s is not None]
    return render(sections, files_checked=run.files_checked, fixed=False, errors=run.errors)


def fix_report(outcomes: list, files_checked: int, errors: list = ()) -> str:
    """The report of a `fix` run: what was written, what was left. `outcomes` are FixOutcomes
    after writing (an unwritten file's result already holds its original findings)."""
    sections = []
    for outcome in sorted(outcomes, key=lambda o: o.result.path):
        result = outcome.result
        old = outcome.snapshot.data if outcome.snapshot is not None else None
        found = section(result.path, result.findings, result.applied, old, result.fixed_source)
        if found is not None:
            sections.append(found)
    return render(sections, files_checked=files_checked, fixed=True, errors=list(errors))
