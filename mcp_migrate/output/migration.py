"""`--report FILE.md`: the Markdown migration report, what a reviewer of the pull request opens
first.

- Totals, then a summary table per rule and per file: found (before the fix), rewritten, gone
  with another fix (a line another rewrite deleted), marked for review (a marker fixes nothing:
  its finding is still left), left.
- **Interface changes**, which no single file's diff shows: every tool whose signature changed
  (name, new parameter, required or optional), every environment variable the server now
  reads, every client call that now passes directories (all from the rewrites' own records,
  core.coordination.FileNotes), and every public parameter or setting left without effect
  (output.interface).
- **Needs review**: a checkbox per `# mcp-migrate: CODE review:` marker in the code (RT901).
- Per file: what was rewritten, the changes as whole unified-diff hunks (both line numbers
  right, each labelled with the fixes in it), what is left for manual work with its help, and
  apart from it the findings the fix itself caused.

Rule codes link to the rule pages (`docs-url`). `fix --report` describes what it wrote; `check
--report` where a migration stands (nothing rewritten; markers and findings left).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import REVIEW_PENDING_CODE
from mcp_migrate.core.coordination import FileNotes
from mcp_migrate.core.findings import MARKED, FileError
from mcp_migrate.core.record import field, record
from mcp_migrate.core.suppress import review_markers
from mcp_migrate.output.full import decode_lines
from mcp_migrate.output.interface import left_without_effect
from mcp_migrate.output.printable import printable
from mcp_migrate.output.sarif import DOCS_URL

#: Unchanged lines shown around each change.
CONTEXT_LINES = 2


@record
class FileInput:
    """One file as the report sees it: its findings before and after the fix (the same list
    for a file nothing was written to), the fixes applied (core.findings.Applied), its bytes
    before and after (None: not changed), and what its rewrites recorded (FileNotes of the
    check of the bytes before)."""

    path: str
    before: list
    after: list
    applied: list = field(default_factory=list)
    old: bytes | None = None
    new: bytes | None = None
    notes: FileNotes = field(default_factory=FileNotes)


@record
class Hunk:
    """A unified-diff hunk: its header's ranges, its lines (` `, `-`, `+` prefixed), and the
    applied fixes whose finding line falls in it."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list
    fixes: list = field(default_factory=list)

    @property
    def header(self) -> str:
        return f"@@ -{_range(self.old_start, self.old_count)} +{_range(self.new_start, self.new_count)} @@"


def _range(start: int, count: int) -> str:
    """A hunk range as `diff -u` writes it (an empty side starts at the line before it)."""
    if count == 0:
        return f"{start - 1},0"
    return str(start) if count == 1 else f"{start},{count}"


def diff_hunks(old: bytes, new: bytes, applied=()) -> list:
    """The change from `old` to `new` as Hunks with CONTEXT_LINES of context, each applied fix
    given to the hunk holding its line (else the nearest)."""
    before, after = decode_lines(old), decode_lines(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=max(len(before), len(after)) > 2000)
    hunks = []
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in before[a1:a2]]
                continue
            lines += ["-" + line for line in before[a1:a2]]
            lines += ["+" + line for line in after[b1:b2]]
        hunks.append(Hunk(i1 + 1, i2 - i1, j1 + 1, j2 - j1, lines))
    for fix in applied:
        if not hunks:
            break
        inside = [h for h in hunks if h.old_start <= fix.line < h.old_start + max(h.old_count, 1)]
        target = (
            inside[0]
            if inside
            else min(hunks, key=lambda h: min(abs(h.old_start - fix.line), abs(h.old_start + h.old_count - fix.line)))
        )
        target.fixes.append(fix)
    return hunks


def line_map(old: bytes, new: bytes) -> dict:
    """Old line number -> new line number, for the lines the change kept."""
    before, after = decode_lines(old), decode_lines(new)
    kept: dict = {}
    for a, b, size in difflib.SequenceMatcher(None, before, after, autojunk=False).get_matching_blocks():
        for offset in range(size):
            kept[a + offset + 1] = b + offset + 1
    return kept


def split_after(file: FileInput) -> tuple:
    """(left: findings there before, caused: findings the fix itself caused) of what remains;
    an RT901 is in neither (the review list holds them). A finding is the one it was before
    when its rule matches on the line the change moved it to, else on the same message."""
    remaining = [f for f in file.after if f.code != REVIEW_PENDING_CODE]
    if file.old is None or file.new is None:
        return remaining, []
    moved = line_map(file.old, file.new)
    unmatched = [f for f in file.before if f.code != REVIEW_PENDING_CODE]
    left, caused = [], []
    for finding in remaining:
        match = next((b for b in unmatched if b.code == finding.code and moved.get(b.line) == finding.line), None)
        if match is None:
            match = next((b for b in unmatched if b.code == finding.code and b.message == finding.message), None)
        if match is None:
            caused.append(finding)
        else:
            unmatched.remove(match)
            left.append(finding)
    return left, caused


# --------------------------------------------------------------------------- Markdown pieces
def _code(text: str) -> str:
    """Inline code that survives backticks inside the text."""
    text = text or " "
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    """A table cell: a `|` would end it, a newline would end the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(lines: list) -> str:
    """A code fence longer than any run of backticks in `lines`."""
    longest = run = 0
    for line in lines:
        for char in line:
            run = run + 1 if char == "`" else 0
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


class Links:
    """Rule codes as links to their pages (`<docs-url>/rules/CODE-name.md`); the engine's own
    file codes (E999, ...) have no page and stay plain."""

    def __init__(self, docs_url: str | None) -> None:
        self.base = (docs_url or DOCS_URL).rstrip("/")
        self.catalog = load_catalog()

    def code(self, code: str) -> str:
        info = self.catalog.get(code)
        return f"[{code}]({self.base}/rules/{code}-{info.name}.md)" if info is not None else code


@record
class Counts:
    found: int = 0
    rewritten: int = 0
    marked: int = 0
    left: int = 0

    @property
    def gone(self) -> int:
        """Findings no fix of theirs rewrote that went with another one (a line it deleted)."""
        return max(self.found - self.rewritten - self.left, 0)

    def row(self, head: str) -> str:
        return f"| {head} | {self.found} | {self.rewritten} | {self.gone} | {self.marked} | {self.left} |"

    def add(self, other: Counts) -> None:
        self.found += other.found
        self.rewritten += other.rewritten
        self.marked += other.marked
        self.left += other.left


TABLE_HEAD = [
    "| {} | Found | Rewritten | Gone with another fix | Marked for review | Left |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
]


def _counts(file: FileInput, left: list) -> dict:
    """code -> Counts of one file (RT901 aside: it is the review list)."""
    out: dict = {}

    def at(code: str) -> Counts:
        return out.setdefault(code, Counts())

    for finding in file.before:
        if finding.code != REVIEW_PENDING_CODE:
            at(finding.code).found += 1
    for applied in file.applied:
        if applied.code != REVIEW_PENDING_CODE:
            if applied.kind == MARKED:
                at(applied.code).marked += 1
            else:
                at(applied.code).rewritten += 1
    for finding in left:
        at(finding.code).left += 1
    return out


def _interface(files: list, fixed: bool) -> list:
    """The interface-changes section (lines)."""
    tools, env, calls, dead, kept = [], [], [], [], []
    for file in files:
        # A removal that would leave public plumbing without effect is a suggestion (issue 36
        # §4): listed whether or not this run applied it, since `fix` alone never does.
        kept += [(item, file.path) for item in sorted(file.notes.kept)]
        done = {a.code for a in file.applied if a.kind != MARKED}
        if file.new is None:
            continue
        if "RT001" in done:
            tools += [(tool, file.path) for tool in sorted(file.notes.tools)]
            env += [(name, file.path) for name in file.notes.env_vars]
        if "RT002" in done:
            calls += [(call, file.path) for call in sorted(file.notes.client_calls)]
        dead += [(item, file.path) for item in left_without_effect(file.old, file.new)]
    lines = ["", "## Interface changes", ""]
    if not fixed:
        return lines + ["None: a `check` run changes nothing."]
    if not (tools or env or calls or dead or kept):
        return lines + ["None: no tool signature, environment variable, client call or public parameter changed."]
    lines += ["What callers of this code see change; no single file's diff shows it."]
    lines += ["", "### Tools whose signature changed", ""]
    if tools:
        lines += ["| Tool | Defined in | New parameter | Callers |", "| --- | --- | --- | --- |"]
        for tool, path in tools:
            how = "optional: callers may pass it" if tool.optional else "**required**: every caller must pass it"
            lines.append(
                f"| {_cell(_code(tool.tool))} | {_cell(_code(path))} | {_cell(_code(tool.parameter))} | {how} |"
            )
    else:
        lines.append("None.")
    lines += ["", "### Environment variables the server now reads", ""]
    lines += [
        f"- {_code(name)}, read by {_code(path)}: the directories, separated by `os.pathsep`" for name, path in env
    ]
    lines += [] if env else ["None."]
    lines += ["", "### Client calls that now pass directories", ""]
    for call, path in calls:
        if call.kind == "env":
            lines.append(f"- {_code(path)}: {call.target} is started with {_code(call.passes)} in its environment")
        else:
            lines.append(f"- {_code(path)}: `call_tool({call.target!r}, ...)` passes {_code(call.passes)}")
    lines += [] if calls else ["None."]
    lines += ["", "### Parameters and settings left without effect", ""]
    for item, path in dead:
        what = (
            f"parameter {_code(item.name)} of {_code(item.owner)}"
            if item.kind == "parameter"
            else (f"setting {_code(item.owner + '.' + item.name)}")
        )
        tail = "is no longer used" if item.kind == "parameter" else "is no longer read in this file"
        lines.append(f"- {_code(path)} line {item.line}: {what} {tail}; callers that pass it get nothing")
    lines += [] if dead else ["None."]
    lines += ["", "### Public plumbing the client-side removal leaves without effect", ""]
    for item, path in kept:
        if item.kind == "parameter":
            lines.append(
                f"- {_code(path)}: parameter {_code(item.name)} of {_code(item.owner)} still hands roots to the SDK;"
                " its callers pass them: remove or deprecate it with them (the removal is suggested there)"
            )
        else:
            where = f" in {_code(item.owner)}" if item.owner else ""
            lines.append(
                f"- {_code(path)}: the roots {_code(item.name)} computed{where} reach no server once removed; what"
                " fed them (a parameter, a setting) then does nothing: carry those directories to the server or"
                " deprecate it (the removal is suggested there)"
            )
    lines += [] if kept else ["None."]
    return lines


def _review(files: list, links: Links) -> list:
    """A checkbox per review marker left in the code: each RT901, and each marker this fix
    wrote above a finding that stays (no RT901 repeats that finding, core.engine._reviews)."""
    lines = ["", "## Needs review", ""]
    markers = []
    for file in files:
        listed = {f.line for f in file.after if f.code == REVIEW_PENDING_CODE}
        markers += [(file.path, f.line, *_marker_reason(f)) for f in file.after if f.code == REVIEW_PENDING_CODE]
        markers += [(file.path, *m) for m in _written_markers(file) if m[0] not in listed]
    if not markers:
        return lines + ["No review marker is left in the code."]
    lines.append("Each box is a `# mcp-migrate: CODE review:` comment; remove it once you have decided.")
    lines.append("")
    for path, line, code, reason in sorted(markers, key=lambda item: (item[0], item[1])):
        lines.append(f"- [ ] {_code(path)} line {line} ({links.code(code) if code else 'review'}): {reason}")
    return lines


def _written_markers(file: FileInput) -> list:
    """(line, code, reason) of the review markers in the fixed file of the rules this fix only
    marked for review."""
    codes = {a.code for a in file.applied if a.kind == MARKED}
    if not codes or file.new is None:
        return []

    text = "\n".join(decode_lines(file.new))
    return [(m.line, m.code, m.reason) for m in review_markers(text, load_catalog()) if m.code in codes]


def _marker_reason(finding) -> tuple:
    """(rule code, why) of an RT901 finding (message `review pending (RT001): ...`, help `why;
    remove the marker ...`)."""
    _head, _, rest = finding.message.partition("(")
    code = rest.partition(")")[0]
    reason = finding.help.rsplit("; remove the marker", 1)[0] or finding.message
    return code, reason


def _finding_line(finding, links: Links) -> str:
    text = f"- line {finding.line}: {links.code(finding.code)} {finding.name} ({finding.severity}): {finding.message}"
    text += f". Help: {finding.help}" if finding.help else ""
    if finding.fix == "display":  # RT102, RT103: a suggestion `fix` never applies
        text += " (suggested rewrite, applied only by `fix --apply-suggestions`: `mcp-migrate check --output-format full` shows it)"
    for related in finding.related:  # the helper's callers (core.callers): migrated with it
        text += f"\n  - called from {_code(f'{related.path}:{related.line}:{related.column}')}"
    return text


def render(
    files: list, *, files_checked: int, fixed: bool, errors: Sequence[FileError] = (), docs_url: str | None = None
) -> str:
    """The whole Markdown document."""
    links = Links(docs_url)
    files = sorted(files, key=lambda f: f.path)
    sections, totals, by_file = [], Counts(), []
    by_rule: dict[str, Counts] = {}
    caused_total = markers = 0
    for file in files:
        left, caused = split_after(file)
        counts = _counts(file, left)
        mine = Counts()
        for code, count in counts.items():
            by_rule.setdefault(code, Counts()).add(count)
            mine.add(count)
        totals.add(mine)
        caused_total += len(caused)
        markers += sum(1 for f in file.after if f.code == REVIEW_PENDING_CODE)
        section = _file_section(file, left, caused, links)
        if section:
            by_file.append(mine.row(_cell(_code(file.path))))
            sections += section
    lines = [
        "# mcp-migrate migration report",
        "",
        f"- Files checked: {files_checked}",
        f"- Files with something to report: {len(by_file)}",
        f"- Found: {totals.found}",
        f"- Rewritten: {totals.rewritten}" + ("" if fixed else " (a `check` run: nothing was rewritten)"),
        f"- Marked for review: {totals.marked} (a marker fixes nothing: its finding stays until a human decides)",
        f"- Review markers to resolve: {markers}",
        f"- Left for manual work: {totals.left}",
        f"- Caused by the fix: {caused_total}",
    ]
    if errors:
        lines.append(f"- Errors: {len(errors)}")
    if by_rule:
        lines += ["", "## Summary by rule", "", TABLE_HEAD[0].format("Rule"), TABLE_HEAD[1]]
        catalog = links.catalog
        for code in sorted(by_rule):
            name = catalog[code].name if code in catalog else ""
            lines.append(by_rule[code].row(f"{links.code(code)} {name}".strip()))
        lines.append(totals.row("**Total**"))
        lines += ["", "## Summary by file", "", TABLE_HEAD[0].format("File"), TABLE_HEAD[1], *by_file]
    lines += _interface(files, fixed)
    lines += _review(files, links)
    lines += sections
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {_code(e.path)}: {e.code} {e.message}" for e in errors]
    return "\n".join(lines) + "\n"


def _file_section(file: FileInput, left: list, caused: list, links: Links) -> list:
    rewritten = [a for a in file.applied if a.kind != MARKED]
    marked = [a for a in file.applied if a.kind == MARKED]
    hunks = diff_hunks(file.old, file.new, file.applied) if file.old is not None and file.new is not None else []
    if not (hunks or left or caused or marked):
        return []
    lines = ["", f"## {_code(file.path)}"]
    if rewritten or marked:
        lines += ["", "### Fixes applied", ""]
        lines += [f"- line {a.line}: {links.code(a.code)} rewritten" for a in sorted(rewritten)]
        lines += [f"- line {a.line}: {links.code(a.code)} marked for review (not rewritten)" for a in sorted(marked)]
    if hunks:
        lines += ["", "### Changes", ""]
        for hunk in hunks:
            label = ", ".join(f"{a.code} line {a.line}{' (marker)' if a.kind == MARKED else ''}" for a in hunk.fixes)
            fence = _fence(hunk.lines)
            lines += [fence + "diff", hunk.header + (f" {label}" if label else ""), *hunk.lines, fence]
    if left:
        lines += ["", "### Left for manual work", ""]
        lines += [_finding_line(f, links) for f in sorted(left, key=lambda f: f.sort_key())]
    if caused:
        lines += [
            "",
            "### Caused by the fix",
            "",
            "Findings the rewrite itself introduced; they were not there before.",
            "",
        ]
        lines += [_finding_line(f, links) for f in sorted(caused, key=lambda f: f.sort_key())]
    return lines


def write(path: str, text: str) -> None:
    """Write the report as UTF-8 (Markdown viewers and pull-request bodies expect it)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(printable(text))  # a file name that is not UTF-8 shows as `\xff`


def check_report(run) -> str:
    """The report of a `check` run: where the migration stands."""
    files = [FileInput(r.path, r.findings, r.findings) for r in run.results]
    return render(files, files_checked=run.files_checked, fixed=False, errors=run.errors, docs_url=run.docs_url)


def fix_report(files: list, files_checked: int, errors: Sequence[FileError] = (), docs_url: str | None = None) -> str:
    """The report of a `fix` run: `files` are FileInputs (commands.fix builds them after writing:
    an unwritten file's result already holds its original findings)."""
    return render(files, files_checked=files_checked, fixed=True, errors=list(errors), docs_url=docs_url)
