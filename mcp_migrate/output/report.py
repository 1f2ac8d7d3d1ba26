"""Reporters: text (rich, coloured on a terminal), JSON, statistics, the rules table, `explain`.
SARIF and GitHub workflow commands live in sarif.py and github.py; `write_report` picks one.

rich is imported inside the functions so commands that do not print through it start
faster. All user text (paths, messages, docs) goes through `rich.markup.escape`, and
consoles never highlight, wrap or replace `:emoji:` codes, so output is exactly the data.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections import Counter
from typing import IO, Final, Literal, cast

from mcp_migrate import __version__
from mcp_migrate.core.catalog import SEVERITIES
from mcp_migrate.core.findings import FIXING_KINDS, MARKED
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.output.grouped import called_count, grouped_lines
from mcp_migrate.output.printable import PrintableStream, one_line, printable, printable_data

#: `full` (the default, as in ruff: each finding with its source and proposed fix), `concise`
#: (one line per finding; `text` is its older name), `grouped` (by file), and the machine formats.
FORMATS = ("full", "concise", "text", "grouped", "json", "json-lines", "junit", "sarif", "github", "gitlab")
#: Formats that print findings as text lines.
TEXT_FORMATS = ("full", "concise", "text", "grouped")
#: Machine formats whose document has no place for internal errors: those go to stderr.
ERRORS_ON_STDERR = ("json-lines", "gitlab")


#: `use_color`'s answer for `--color always`: colour even when piped (truthy, like True).
ALWAYS: Final = "always"
#: A colour choice: False (never), True (on a terminal) or ALWAYS.
ColorChoice = bool | Literal["always"]


def use_color(no_color: bool = False, when: str | None = None) -> ColorChoice:
    """`--color auto|always|never` as ruff has it. False for `never` (`--no-color`) or, in `auto`,
    a non-empty NO_COLOR (no-color.org); `ALWAYS` for `always` (which NO_COLOR does not turn
    off); True otherwise, and rich then colours only a terminal."""
    if no_color or when == "never":
        return False
    if when == ALWAYS:
        return ALWAYS
    return not os.environ.get("NO_COLOR")


def make_console(*, stderr: bool = False, color: ColorChoice = True, file=None):
    from rich.console import Console

    target = file if file is not None else sys.stderr if stderr else sys.stdout
    forced = color == ALWAYS and file is None
    # `always`: escape codes even into a pipe, and NO_COLOR (which rich reads itself) loses to the flag.
    system: Literal["standard", "auto"] | None = "standard" if forced else "auto" if color and file is None else None
    return Console(
        file=cast(IO[str], PrintableStream(target)),  # a text stream: it hands the rest to `target`
        highlight=False,
        soft_wrap=True,
        emoji=False,
        color_system=system,
        no_color=False if forced else None,
        _environ=_sized_environ(),
    )


def _sized_environ():
    """The environment rich reads, without a `COLUMNS` or `LINES` of 0: rich takes any digits
    as the size, and a console 0 wide printed nothing on a terminal (`COLUMNS=0 mcp-migrate
    check` showed no finding and exited 1). Without them rich asks the terminal (80 columns
    when it cannot tell), as Python's shutil.get_terminal_size does with 0. None (rich reads
    os.environ itself) when neither is 0."""
    zero = {name for name in ("COLUMNS", "LINES") if os.environ.get(name, "").isdigit() and not int(os.environ[name])}
    if not zero:
        return None
    return {key: value for key, value in os.environ.items() if key not in zero}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(run) -> str:
    """`Checked N files: M findings (RT001: 2, RT004: 1)` or `Checked N files: no findings`."""
    findings = run.findings
    head = f"Checked {_plural(run.files_checked, 'file')}: "
    if findings:
        counts = Counter(f.code for f in findings)
        detail = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
        head += f"{_plural(len(findings), 'finding')} ({detail})"
    else:
        head += "no findings"
    head += fix_hint(findings, getattr(run, "unsafe_fixes_for", None) or getattr(run, "unsafe_fixes", False))
    review = sum(1 for f in findings if f.fix == "marker")
    if review:
        head += f"; {review} need{'s' if review == 1 else ''} review by hand"
    head += passing_note(run, findings)
    if run.errors:
        head += f"; {_plural(len(run.errors), 'error')}"
    return head


def passing_note(run, findings) -> str:
    """`; 2 findings are info and do not fail the run`: findings reported below their file's
    `fail-on`, so that a run that lists findings and exits 0 says why."""
    failing = getattr(run, "failing", None)
    if failing is None or not findings:
        return ""

    failed = {id(f) for f in failing}
    below = [f for f in findings if id(f) not in failed]
    if not below:
        return ""
    severities = " or ".join(s for s in SEVERITIES if any(f.severity == s for f in below))
    verb = ("is", "does") if len(below) == 1 else ("are", "do")
    return f"; {_plural(len(below), 'finding')} {verb[0]} {severities} and {verb[1]} not fail the run"


def fix_hint(findings, unsafe_enabled) -> str:
    """`; N fixable with ...` that tells the truth: with `unsafe-fixes = true` (config or flag)
    plain `mcp-migrate fix` applies unsafe fixes too; "more" only follows a first count.
    `unsafe_enabled`: a bool for the run, or a function of a finding's path (each file's own
    config decides, per file configuration). A finding whose only action is a review marker
    is not fixable (summary_line counts it as needing review)."""
    enabled = unsafe_enabled if callable(unsafe_enabled) else (lambda _path: unsafe_enabled)
    plain = sum(1 for f in findings if f.fix == "safe" or (f.fix == "unsafe" and enabled(f.path)))
    unsafe = sum(1 for f in findings if f.fix == "unsafe" and not enabled(f.path))
    hint = f"; {plain} fixable with `mcp-migrate fix`" if plain else ""
    if unsafe:
        hint += f"; {unsafe} {'more' if plain else 'fixable'} with `mcp-migrate fix --unsafe-fixes`"
    return hint


def baseline_lines(run) -> list:
    """Plain lines about an applied baseline: how many findings it hid, which entries are stale."""
    outcome = run.baseline
    if outcome is None:
        return []
    lines = [f"{outcome.file}: {_plural(len(outcome.matched), 'finding')} already in the baseline"]
    for entry in outcome.stale:
        lines.append(
            f"{entry['path']}: stale baseline entry {entry['code']} x{entry['count']} "
            "(fixed? rewrite the baseline with --write-baseline)"
        )
    return lines


def print_errors(run, *, color: ColorChoice = True) -> None:
    if not run.errors:
        return
    from rich.markup import escape

    err = make_console(stderr=True, color=color)
    for e in run.errors:
        path, message = escape(one_line(e.path)), escape(one_line(e.message))
        err.print(f"[bold]{path}[/]: [red]error[/]: [bold red]{escape(e.code)}[/] {message}")


def print_text(
    run,
    *,
    color: ColorChoice = True,
    quiet: bool = False,
    file=None,
    summary: bool = True,
    full: bool = False,
    grouped: bool = False,
) -> None:
    """`path:line:col: CODE message` per finding (with `full`, followed by its source lines, a
    caret under the span and the proposed fix; with `grouped`, under a line naming the file),
    then (unless quiet) baseline notes and the summary."""
    print_errors(run, color=color)
    if grouped:
        lines = functools.partial(grouped_lines, run)
    else:
        lines = functools.partial(_finding_lines, run, full)
    plain = _plain_target(color, file)
    if plain is not None and _print_plain(plain, run, lines, quiet, summary, full or grouped):
        return
    from rich.markup import escape

    out = make_console(color=color, file=file)
    if _styled(out):
        for markup, style_name in lines():
            out.print(markup, style=style_name or None, highlight=False)
    else:
        # Nothing to colour: one print of every line (rich renders each line the same way
        # alone or joined: tabs expanded, control codes dropped), not one per line: rich's
        # per-call work dominated a report of thousands of findings.
        body = "\n".join(text for text, _ in lines(markup=False))
        if body:
            out.print(body, markup=False, highlight=False)
    if quiet:
        return
    notes = baseline_lines(run)
    if run.findings and (summary or notes) and not (full or grouped):  # both end with a blank line
        out.print()
    for line in notes:
        out.print(escape(line))
    if summary:
        out.print(summary_line(run))


#: Environment variables with which rich takes any stream for a terminal (and styles it).
_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
#: What rich would not pass through as it is: a tab (expanded by cell width) and the control
#: characters it strips.
_RICH_CHANGES = lazy_compile("[\t\x00-\x08\x0b-\x1f\x7f]")


def _plain_target(color, file):
    """The stream that gets unstyled text, written without rich (importing rich costs a
    one-file run a tenth of its time), or None where rich would style it: a terminal,
    `--color always`, FORCE_COLOR and the like."""
    if color == ALWAYS or any(os.environ.get(name) is not None for name in _TERMINAL_ENV):
        return None
    target = file if file is not None else sys.stdout
    try:
        return None if target.isatty() else target
    except (AttributeError, OSError, ValueError):
        return None


def _print_plain(target, run, lines, quiet: bool, summary: bool, blocks: bool) -> bool:
    """What the unstyled rich path prints, written directly: the lines of the findings, the
    baseline notes and the summary. False (nothing written) when some text holds what rich
    would change (tabs, control characters), so rich prints it as before."""
    out = [text for text, _ in lines(markup=False)]
    body = "\n".join(out)
    tail: list = []
    if not quiet:
        notes = baseline_lines(run)
        if run.findings and (summary or notes) and not blocks:
            tail.append("")
        tail += notes
        if summary:
            tail.append(summary_line(run))
    if _RICH_CHANGES.search(body) or any(_RICH_CHANGES.search(line) for line in tail):
        return False
    text = (body + "\n" if body else "") + "".join(line + "\n" for line in tail)
    if text:
        stream = PrintableStream(target)
        stream.write(text)
        stream.flush()
    return True


def _styled(console) -> bool:
    """Would `console` write styles (colour on, or a terminal)? Otherwise text is plain."""
    return console.color_system is not None or console.is_terminal


def _finding_lines(run, full: bool, markup: bool = True):
    """(text, style) lines of the findings: `path:line:col: CODE message` per finding, and
    with `full` its source lines, caret and proposed fix (output.full). As rich markup, or
    (`markup=False`) the plain text that markup renders to. Control characters from file
    names, messages and source lines are shown, never sent (output.printable)."""
    if markup:
        from rich.markup import escape

    lines_of: dict = {}
    for f in run.findings:
        path, message = one_line(f.path), one_line(f.message)
        if not full:  # the full format lists them under the snippet
            message += called_count(f)
        if markup:
            style = "red" if f.severity in ("breaks", "error") else "yellow"
            yield (
                f"[bold]{escape(path)}[/]:{f.line}:{f.column}: [bold {style}]{escape(f.code)}[/] {escape(message)}",
                "",
            )
        else:
            yield f"{path}:{f.line}:{f.column}: {f.code} {message}", ""
        if full:
            from mcp_migrate.output.full import finding_context

            for line, style_name in finding_context(run, f, lines_of):
                line = printable(line)
                yield (escape(line) if markup else line), style_name


def statistics(run) -> list:
    """One row per rule with findings: code, name, count, how many have a fix (a safe or unsafe
    one: not a suggestion, not a review marker); most first."""
    counts = Counter((f.code, f.name) for f in run.findings)
    fixable = Counter(f.code for f in run.findings if f.fix in FIXING_KINDS)
    rows = [{"code": code, "name": name, "count": n, "fixable": fixable[code]} for (code, name), n in counts.items()]
    return sorted(rows, key=lambda row: (-row["count"], row["code"]))


def statistics_marks(run) -> dict:
    """code -> ruff's mark: `[*]` some finding has a fix `mcp-migrate fix` applies (a safe one,
    or an unsafe one where the file's config turns unsafe fixes on), `[-]` only unsafe fixes
    (behind `--unsafe-fixes`), `[ ]` no fix."""
    enabled = getattr(run, "unsafe_fixes_for", None) or (lambda _path: getattr(run, "unsafe_fixes", False))
    marks: dict = {}
    for f in run.findings:
        if f.fix == "safe" or (f.fix == "unsafe" and enabled(f.path)):
            mark = "[*]"
        elif f.fix == "unsafe":
            mark = "[-]"
        else:
            mark = "[ ]"
        known = marks.get(f.code, "[ ]")
        marks[f.code] = "[*]" if "[*]" in (known, mark) else "[-]" if "[-]" in (known, mark) else "[ ]"
    return marks


def print_statistics(run, *, color: ColorChoice = True, quiet: bool = False, file=None) -> None:
    """`count  CODE  [*] name` per rule, as ruff prints them (`[*]` fixable by `mcp-migrate fix`,
    `[-]` by `--unsafe-fixes` only, `[ ]` not at all; no marks when no rule has a fix), then
    the summary."""
    from rich.markup import escape

    out = make_console(color=color, file=file)
    print_errors(run, color=color)
    rows = statistics(run)
    marks = statistics_marks(run)
    any_fix = any(mark != "[ ]" for mark in marks.values())
    width = max((len(str(row["count"])) for row in rows), default=1)
    code_width = max((len(row["code"]) for row in rows), default=1)
    for row in rows:
        mark = f"{marks[row['code']]} " if any_fix else ""
        out.print(escape(f"{row['count']:>{width}}  {row['code']:<{code_width}}  {mark}{row['name']}"))
    if not quiet:
        out.print(summary_line(run))


def json_document(run, *, with_statistics: bool = False) -> dict:
    """The `--format json` document; its schema ships as mcp_migrate/schemas/report.schema.json."""
    doc = {
        "version": __version__,
        "files_checked": run.files_checked,
        "findings": [f.to_json() for f in run.findings],
        "suppressed": [
            {**f.to_json(), "suppression": {"kind": kind, "reason": reason}} for f, kind, reason in run.suppressed
        ],
        "errors": [e.to_json() for e in run.errors],
    }
    if run.baseline is not None:
        doc["baseline"] = run.baseline.to_json()
    if getattr(run, "fix_run", False):
        doc.update(applied_document(run.results))
    if with_statistics:
        doc["statistics"] = statistics(run)
    return doc


def applied_document(results) -> dict:
    """A fix run's `fixed` and `marked_for_review` lists: each fix written, by file and line.
    A review marker is never a fix: its finding is still in `findings`."""
    written = sorted((r for r in results if r.fixed_source is not None), key=lambda r: r.path)
    entries: dict[str, list[dict]] = {"fixed": [], "marked_for_review": []}
    for result in written:
        for applied in sorted(result.applied, key=lambda a: (a.line, a.code)):
            key = "marked_for_review" if applied.kind == MARKED else "fixed"
            entries[key].append({"path": result.path, "code": applied.code, "line": applied.line})
    return entries


def render_document(run, output_format: str, *, with_statistics: bool = False) -> str:
    """A machine-readable format (json, json-lines, junit, sarif, github, gitlab) as one string."""
    if output_format == "json":
        return json.dumps(printable_data(json_document(run, with_statistics=with_statistics)), indent=2) + "\n"
    if output_format == "json-lines":  # ruff's json-lines: each finding of the json document, one per line
        return "".join(json.dumps(printable_data(f.to_json()), separators=(",", ":")) + "\n" for f in run.findings)
    if output_format == "junit":
        from mcp_migrate.output.junit import junit_xml

        return junit_xml(run)
    if output_format == "gitlab":
        from mcp_migrate.output.gitlab import code_quality

        return json.dumps(printable_data(code_quality(run)), indent=2) + "\n"
    if output_format == "sarif":
        from mcp_migrate.output.sarif import sarif_log

        return json.dumps(printable_data(sarif_log(run)), indent=2) + "\n"
    if output_format == "github":
        from mcp_migrate.output.github import workflow_commands

        return "".join(line + "\n" for line in workflow_commands(run))
    raise ValueError(f"unknown format: {output_format}")


def write_report(
    run,
    output_format: str = "text",
    *,
    output_file: str | None = None,
    color: ColorChoice = True,
    quiet: bool = False,
    with_statistics: bool = False,
) -> None:
    """Print (or write to `output_file`) the report in `output_format`. With an output file the
    terminal still gets the summary (unless quiet); a text report in a file is never coloured."""
    if output_format in TEXT_FORMATS:
        show = (
            print_statistics
            if with_statistics
            else functools.partial(print_text, full=output_format == "full", grouped=output_format == "grouped")
        )
        if output_file is None:
            show(run, color=color, quiet=quiet)
        else:
            with open(output_file, "w", encoding="utf-8") as fh:
                show(run, color=False, file=fh)
    else:
        text = render_document(run, output_format, with_statistics=with_statistics)
        if output_file is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            if output_format in ERRORS_ON_STDERR:
                print_errors(run, color=color)
        else:
            with open(output_file, "w", encoding="utf-8") as fh:
                fh.write(text)
            print_errors(run, color=color)
    if output_file is not None and not quiet:
        make_console(color=color).print(summary_line(run))


RULE_COLUMNS = ("code", "name", "fix", "severity", "summary")


def print_rules(catalog: dict, *, color: ColorChoice = True) -> None:
    """A table on a terminal; plain aligned columns, no header, when piped (grep-friendly)."""
    from rich.markup import escape

    console = make_console(color=color)
    rows = [tuple(getattr(info, col) for col in RULE_COLUMNS) for info in catalog.values()]
    if console.is_terminal:
        from rich.table import Table

        table = Table(*RULE_COLUMNS, highlight=False)
        for row in rows:
            table.add_row(*(escape(cell) for cell in row))
        console.print(table)
        return
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(len(RULE_COLUMNS) - 1)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths)] + [row[-1]]
        console.print(escape("  ".join(cells)))


def rules_document(catalog: dict) -> list:
    """`rules --output-format json`: the catalog as data, one object per rule."""
    return [
        {
            "code": info.code,
            "name": info.name,
            "severity": info.severity,
            "fix": info.fix,
            "summary": info.summary,
            **({"security_severity": info.security_severity} if info.security_severity else {}),
        }
        for info in catalog.values()
    ]


def print_explain(info, *, color: ColorChoice = True, file=None) -> None:
    """The rule page: rendered with rich's Markdown on a terminal, the plain Markdown when piped
    (so `explain RT001 > page.md` and grep get the page as written)."""
    from rich.markup import escape

    console = make_console(color=color, file=file)
    heading = f"{info.code} {info.name} ({info.severity}, fix: {info.fix})"
    if console.is_terminal:
        from rich.markdown import Markdown

        console.print(f"[bold]{escape(heading)}[/]")
        console.print()
        console.print(Markdown(info.doc))
        return
    console.print(escape(heading))
    console.print()
    console.print(escape(info.doc.rstrip("\n")))
