"""`--output-format full`: under each finding's line, its source lines, a caret under the span,
its help (what to do), and for a fixable finding the proposed change as a small diff (unsafe ones marked unsafe), the
way ruff's default format shows them. This is what a reviewer of an unsafe migration reads.

The fixes come from the run: each finding's own fix where the check computed it
(`FileResult.finding_fixes`), else its rule's fix in that file (`RunResult.fixes`, filled by the
runner's `propose_fixes`). A finding that is its rule's only fix in the file shows that whole
diff: signature, body and imports alike. A finding that shares its rule's diff with others and
has no preview of its own shows the hunks touching its lines (else the nearest), and the
command that prints the rest. Past MAX_DIFF_LINES the diff stops with `+N more lines` and that
command. This module only renders.
"""

from __future__ import annotations

import difflib
import shlex

from mcp_migrate.output.printable import one_line

#: The key under which finding_context's cache keeps proposal hunks beside file lines.
_HUNKS = ("hunks",)
#: Source lines shown per finding before the rest is elided.
MAX_SOURCE_LINES = 4
#: Diff lines shown per finding before the rest is elided (with the command that shows them).
MAX_DIFF_LINES = 40


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


#: Above this many differing lines a diff may drop lines that repeat often (difflib's
#: autojunk) to stay linear: a fix of 2,000 findings in one module must not take minutes.
LARGE_DIFF = 2000


def hunks(old: list, new: list) -> list:
    """(first old line, last old line, removed lines, added lines) per changed hunk, 1-based.
    The common head and tail are skipped before diffing: fixes change a few places."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=max(len(a), len(b)) > LARGE_DIFF)
    return [
        (head + i1 + 1, head + max(i2, i1 + 1), a[i1:i2], b[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def proposal_hunks(proposal, memo: dict) -> list:
    """The hunks of one proposed change, computed once however many findings it serves."""
    key = id(proposal)
    if key not in memo:
        memo[key] = (proposal, hunks(decode_lines(proposal.old), decode_lines(proposal.new)))
    return memo[key][1]


def own_hunks(changes: list, first: int, last: int) -> list:
    """The hunks touching lines `first`..`last`; else the one nearest to them."""
    touching = [h for h in changes if h[0] <= last and h[1] >= first]
    if touching or not changes:
        return touching
    return [min(changes, key=lambda h: min(abs(h[0] - first), abs(h[1] - last)))]


def diff_command(finding) -> str:
    """The command that prints the whole diff of the finding's rule's fixes in its file."""
    unsafe = " --unsafe-fixes" if finding.fix in ("unsafe", "marker") else ""
    return f"mcp-migrate fix --diff{unsafe} --select {finding.code} {shlex.quote(one_line(finding.path))}"


def fix_block(proposal, finding, memo: dict | None = None, own: list | None = None, alone: bool = True) -> list:
    """`= fix (...)` and the -/+ lines of the finding's fix: `own` (its own hunks, computed by
    the check) when given; else its rule's proposed change in the file, whole when the finding
    is that rule's only fix there (`alone`), otherwise the hunks near it."""
    partial = False
    if own is not None:
        mine = own
    else:
        if proposal is None:
            return []
        changes = proposal_hunks(proposal, memo if memo is not None else {})
        if alone:
            mine = changes
        else:
            mine = own_hunks(changes, finding.line, finding.end_line)
            partial = len(mine) < len(changes)
    if not mine:
        return []
    if finding.fix == "display":
        out = [("= suggestion (applied only by `mcp-migrate fix --apply-suggestions`, if it is right here):", "yellow")]
    elif finding.fix == "marker":
        out = [
            ("= review marker, not a fix (`mcp-migrate fix --unsafe-fixes` leaves it; the finding stays):", "yellow")
        ]
    elif finding.fix == "unsafe":
        out = [("= unsafe fix (review it; applied by `mcp-migrate fix --unsafe-fixes`):", "yellow")]
    else:
        out = [("= fix (applied by `mcp-migrate fix`):", "green")]
    body = []
    for first, _last, removed, added in mine:
        body.append((f"@@ line {first} @@", "cyan"))
        body.extend((f"- {line}", "red") for line in removed)
        body.extend((f"+ {line}", "green") for line in added)
    if len(body) > MAX_DIFF_LINES:
        more = len(body) - MAX_DIFF_LINES
        body = body[:MAX_DIFF_LINES] + [
            (f"... +{more} more line{'s' if more != 1 else ''}: `{diff_command(finding)}`", "")
        ]
    elif partial:
        body.append((f"... the rest of this file's {finding.code} fixes: `{diff_command(finding)}`", ""))
    return out + body


#: The key under which finding_context's cache keeps, per file, its fixable findings per
#: (code, unsafe?) and the per-finding fixes the check computed.
_SHARED = ("shared",)


def _file_fixes(run, path: str, memo: dict) -> tuple:
    """({(code, unsafe?): fixable findings}, {finding key: own hunks}) of one file, once."""
    known = memo.setdefault(_SHARED, {})
    if path not in known:
        counts: dict = {}
        own: dict = {}
        for result in run.results:
            if result.path != path:
                continue
            own.update(result.finding_fixes or {})
            for f in result.findings:
                if f.fix != "none":
                    key = (f.code, f.fix != "safe")
                    counts[key] = counts.get(key, 0) + 1
        known[path] = (counts, own)
    return known[path]


def called_from(finding) -> list:
    """`called from path:line:col` per related location of the finding (a helper's callers,
    core.callers), as (text, style) lines."""
    return [(f"called from {one_line(r.path)}:{r.line}:{r.column}", "cyan") for r in finding.related]


def finding_context(run, finding, lines_of: dict) -> list:
    """(text, style) lines to print under one finding; `lines_of` caches the lines of the file
    whose findings print (and, under keys no path can have, each proposal's hunks and each
    file's fixes). The report prints findings sorted by path, so a file's lines go when the
    next file's come: holding every file's held 5 MB more at the end of a run over 16 copies of
    a tree (issue 37)."""
    if finding.path not in lines_of:
        for path in [key for key in lines_of if type(key) is str]:
            del lines_of[path]
        ref = run.files.get(finding.path)
        try:
            lines_of[finding.path] = decode_lines(ref.read()) if ref is not None else []
        except OSError:
            lines_of[finding.path] = []
    out = source_block(lines_of[finding.path], finding)
    if getattr(finding, "help", ""):  # what to do, as ruff shows it under the snippet
        out.append((f"help: {one_line(finding.help)}", "cyan"))
    out.extend(called_from(finding))
    if finding.fix != "none":
        unsafe = finding.fix != "safe"
        counts, own = _file_fixes(run, finding.path, lines_of)
        hunks_of = own.get((finding.code, finding.line, finding.column, unsafe))
        proposal = run.fixes.get((finding.path, finding.code, unsafe))
        alone = counts.get((finding.code, unsafe), 0) <= 1
        out.extend(fix_block(proposal, finding, lines_of.setdefault(_HUNKS, {}), hunks_of, alone))
    if out:
        out.append(("", ""))
    return out
