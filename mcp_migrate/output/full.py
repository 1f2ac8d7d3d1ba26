"""`--output-format full`: under each finding's line, its source lines, a caret under the span,
and for a fixable finding the proposed change as a small diff (unsafe ones marked unsafe), the
way ruff's default format shows them. This is what a reviewer of an unsafe migration reads.

The fixes come from the run (`RunResult.fixes`, filled by the runner's `propose_fixes`): this
module only renders. A finding's diff is the hunks of its rule's fix in that file that touch
the finding's lines (else the nearest hunk), so each finding shows its own change.
"""

from __future__ import annotations

import difflib

#: Source lines shown per finding before the rest is elided.
MAX_SOURCE_LINES = 4
#: Diff lines shown per finding before the rest is elided.
MAX_DIFF_LINES = 12


def decode_lines(data: bytes) -> list:
    return data.decode("utf-8", errors="replace").splitlines()


def source_block(lines: list, finding) -> list:
    """`N | source` lines of the finding's span with a caret line under its first line."""
    if not lines or finding.line > len(lines):
        return []
    last = min(finding.end_line, len(lines), finding.line + MAX_SOURCE_LINES - 1)
    width = len(str(last))
    gutter = " " * width + " |"
    out = [(gutter, "blue")]
    for number in range(finding.line, last + 1):
        out.append((f"{number:>{width}} | {lines[number - 1]}", ""))
        if number == finding.line:
            text = lines[number - 1]
            start = max(finding.column - 1, 0)
            end = finding.end_column - 1 if finding.end_line == finding.line else len(text)
            carets = "^" * max(end - start, 1)
            out.append((f"{gutter} {' ' * start}{carets} {finding.code}", "red"))
    if last < finding.end_line:
        out.append((f"{gutter} ...", "blue"))
    out.append((gutter, "blue"))
    return out


def hunks(old: list, new: list) -> list:
    """(first old line, last old line, removed lines, added lines) per changed hunk, 1-based."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        (i1 + 1, max(i2, i1 + 1), old[i1:i2], new[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def own_hunks(changes: list, first: int, last: int) -> list:
    """The hunks touching lines `first`..`last`; else the one nearest to them."""
    touching = [h for h in changes if h[0] <= last and h[1] >= first]
    if touching or not changes:
        return touching
    return [min(changes, key=lambda h: min(abs(h[0] - first), abs(h[1] - last)))]


def fix_block(proposal, finding) -> list:
    """`= fix (...)` and the -/+ lines of the finding's part of its rule's proposed change."""
    if proposal is None:
        return []
    mine = own_hunks(hunks(decode_lines(proposal.old), decode_lines(proposal.new)), finding.line, finding.end_line)
    if not mine:
        return []
    if finding.fix == "unsafe":
        out = [("= unsafe fix (review it; applied by `mcp-migrate fix --unsafe-fixes`):", "yellow")]
    else:
        out = [("= fix (applied by `mcp-migrate fix`):", "green")]
    body = []
    for first, _last, removed, added in mine:
        body.append((f"@@ line {first} @@", "cyan"))
        body.extend((f"- {line}", "red") for line in removed)
        body.extend((f"+ {line}", "green") for line in added)
    if len(body) > MAX_DIFF_LINES:
        body = body[:MAX_DIFF_LINES] + [(f"... ({len(body) - MAX_DIFF_LINES} more diff lines)", "")]
    return out + body


def finding_context(run, finding, lines_of: dict) -> list:
    """(text, style) lines to print under one finding; `lines_of` caches each file's lines."""
    if finding.path not in lines_of:
        ref = run.files.get(finding.path)
        try:
            lines_of[finding.path] = decode_lines(ref.read()) if ref is not None else []
        except OSError:
            lines_of[finding.path] = []
    out = source_block(lines_of[finding.path], finding)
    if finding.fix != "none":
        proposal = run.fixes.get((finding.path, finding.code, finding.fix == "unsafe"))
        out.extend(fix_block(proposal, finding))
    if out:
        out.append(("", ""))
    return out
