"""The `fix` command's orchestration: compute fixes (in workers), then either print diffs or
write each changed file safely, then report what was fixed and what remains. With standard
input (`--stdin-filename PATH -`) the fixed source goes to standard output instead."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UNFILTERED_CODES
from mcp_migrate.core.findings import MARKED, FileError
from mcp_migrate.core.record import record
from mcp_migrate.output import report
from mcp_migrate.output.printable import one_line, printable
from mcp_migrate.output.report import TEXT_FORMATS, make_console
from mcp_migrate.run.applicability import adjust
from mcp_migrate.run.coordination import join_callers, planned_settings
from mcp_migrate.run.plan import file_policy, fixes_of, run_policy, unsafe_fixes
from mcp_migrate.run.records import FileRef, RunResult
from mcp_migrate.run.stdin import stdin_target


@record(frozen=True)
class FixOptions:
    unsafe: bool | None = None
    show_diff: bool = False
    color: bool = True
    quiet: bool = False
    #: Exit 1 when anything was fixed (pre-commit's convention; pre-commit also notices changes).
    exit_non_zero_on_fix: bool = False
    #: Exit 0 although findings remain (CI that opens a pull request); errors still exit 2.
    exit_zero: bool = False
    #: How remaining findings are shown (any `--output-format`; a machine format gets stdout to
    #: itself: no "fixed" lines there), `--output-file` (where they are written instead),
    #: `--show-fixes` (an enumeration of what was fixed), `--report FILE.md` (the Markdown
    #: migration report).
    output_format: str = "full"
    show_fixes: bool = False
    report: str | None = None
    output_file: str | None = None
    #: `--fix-only`: apply fixes, then neither report what remains nor exit 1 for it (ruff's).
    fix_only: bool = False

    @property
    def chatty(self) -> bool:
        """Whether "fixed" lines and the count go to stdout: not when quiet, nor when stdout
        carries a machine-readable document."""
        return not self.quiet and (self.output_format in TEXT_FORMATS or self.output_file is not None)


def _exit(run, changed: int, flags: FixOptions) -> int:
    """`changed`: fixes and review markers written (either changes a file)."""
    if run.errors:
        return EXIT_ERROR
    if changed and flags.exit_non_zero_on_fix:
        return EXIT_FINDINGS
    if run.failing and not (flags.exit_zero or flags.fix_only):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _findings(n: int) -> str:
    return f"{n} finding{'s' if n != 1 else ''}"


def marked_note(marked: int) -> str:
    """`; 3 marked for review (the findings remain)`: review markers are never fixes."""
    return f"; {marked} marked for review (the findings remain)" if marked else ""


def fix_summary(fixed: int, marked: int) -> str | None:
    """`Fixed 4 findings.`, `Fixed 4 findings; 3 marked for review (the findings remain).`, or
    `No findings fixed; 3 marked ...` when only markers were written; None for nothing."""
    if not (fixed or marked):
        return None
    head = f"Fixed {_findings(fixed)}" if fixed else "No findings fixed"
    return f"{head}{marked_note(marked)}."


def fix_only_summary(fixed: int, waiting: int, marked: int = 0) -> str | None:
    """ruff's `--fix-only` line: what was fixed (and marked for review) and how many unsafe
    fixes wait; None when there is nothing to say."""
    extra = (
        f"{waiting} {'additional ' if fixed else ''}fix{'es' if waiting != 1 else ''} available with `--unsafe-fixes`"
    )
    if fixed:
        head = f"Fixed {_findings(fixed)}"
    elif waiting or marked:
        head = "No findings fixed"
    else:
        return None
    return f"{head} ({extra}){marked_note(marked)}." if waiting else f"{head}{marked_note(marked)}."


def run_fix_command(paths, options, flags: FixOptions) -> int:
    from mcp_migrate.commands.check import refuse_overwriting_inputs
    from mcp_migrate.output import progress
    from mcp_migrate.run import runner
    from mcp_migrate.run.proposals import propose_fixes
    from mcp_migrate.run.report_inputs import report_inputs

    bar = progress.factory(color=flags.color, label="Fixing", enabled=not flags.quiet)
    fix_run = runner.run_fix(paths, options, flags.unsafe, progress=bar)
    for warning in fix_run.warnings:
        sys.stderr.write(printable(f"mcp-migrate: warning: {warning}") + "\n")
    roots = [Path(p) for p in paths]
    refuse_overwriting_inputs(
        [o.source.path for o in fix_run.outcomes], [("--report", flags.report), ("--output-file", flags.output_file)]
    )
    if flags.show_diff:
        return _diff_exit(_print_diffs(fix_run, flags.quiet), flags)
    console = _LazyConsole(flags.color)  # rich is imported only when there is something to print
    fixed_count = marked_count = 0
    timer = options.timer
    written = 0
    with timer.phase("write", lambda: f"{written} file{'s' if written != 1 else ''} changed"):
        for outcome in fix_run.outcomes:
            result = outcome.result
            if result.fixed_source is None:
                continue
            problem, left_alone = _write(outcome, roots)
            if problem is not None:
                _report_unwritten(outcome, problem, left_alone)
                continue
            fixed_count += len(result.fixed)
            marked_count += len(result.marked)
            written += 1
            if not flags.chatty:
                continue
            from rich.markup import escape

            for code, line, kind in result.applied:
                where = f"[bold]{escape(one_line(result.path))}[/]:{line}:"
                if kind == MARKED:  # the finding stays: a human decides
                    console.print(f"{where} marked [yellow]{escape(code)}[/] for review")
                else:
                    console.print(f"{where} fixed [green]{escape(code)}[/]")
    run = RunResult(
        results=[o.result for o in fix_run.outcomes] + fix_run.unreadable,
        files_checked=fix_run.files_checked,
        files={
            o.result.path: FileRef(o.source.path, o.settings, None, fix_run.policies.get(o.result.path))
            for o in fix_run.outcomes
        },
        fix_run=True,
        **fix_run.policy,
    )
    changed = fixed_count + marked_count
    if flags.fix_only:
        line = fix_only_summary(fixed_count, _waiting_unsafe(fix_run), marked_count)
        if line is not None and flags.chatty:
            console.print(line)
    elif changed and flags.chatty:
        console.print(fix_summary(fixed_count, marked_count))
    if changed and flags.chatty and flags.show_fixes:
        _print_fix_enumeration(console, fix_run.outcomes)
    if flags.report:
        from mcp_migrate.output import migration

        files = report_inputs(fix_run.outcomes)
        text = migration.fix_report(files, fix_run.files_checked, run.errors, fix_run.policy.get("docs_url"))
        migration.write(flags.report, text)
    join_callers(run)
    if flags.fix_only:  # what remains is not reported; errors are
        if fix_run.keep is not None:
            fix_run.keep({})
        report.print_errors(run, color=flags.color)
        return _exit(run, changed, flags)
    if flags.output_format in ("full", "sarif"):
        with timer.phase("fix previews"):
            propose_fixes(run)
    if fix_run.keep is not None:
        fix_run.keep(run.fixes)
    if fix_run.files_checked or run.results or not fix_run.skipped:  # all named files excluded: say nothing
        with timer.phase("report", lambda: flags.output_format):
            report.write_report(
                run, flags.output_format, output_file=flags.output_file, color=flags.color, quiet=flags.quiet
            )
    return _exit(run, changed, flags)


class _LazyConsole:
    """The rich console, made on the first print: a run that fixes nothing prints nothing here."""

    def __init__(self, color) -> None:
        self._color = color
        self._console = None

    def print(self, *args, **kwargs) -> None:
        if self._console is None:
            self._console = make_console(color=self._color)
        self._console.print(*args, **kwargs)


def _print_fix_enumeration(console, outcomes) -> None:
    """`--show-fixes`: per file, how many findings of each rule were fixed (as ruff's list),
    then how many were only marked for review (their findings remain)."""
    from rich.markup import escape

    catalog = load_catalog()
    for outcome in sorted(outcomes, key=lambda o: o.result.path):
        result = outcome.result
        if result.fixed_source is None or not result.applied:
            continue
        console.print(f"  [bold]{escape(one_line(result.path))}[/]:")
        for records, suffix in ((result.fixed, ""), (result.marked, " marked for review")):
            for code, count in sorted(Counter(a.code for a in records).items()):
                name = catalog[code].name if code in catalog else ""
                console.print(f"    {count} × {escape(code)} ({escape(name)}){suffix}")


def run_fix_stdin(filename: str | None, options, flags: FixOptions, data: bytes) -> int:
    """Fix `data` as if it were PATH: the fixed source (or the input, unchanged) on stdout, what
    remains on stderr. An excluded PATH echoes the input. With --diff, the diff instead."""
    from mcp_migrate.run import analysis

    target = stdin_target(filename, options)
    for warning in target.warnings:
        sys.stderr.write(printable(f"mcp-migrate: warning: {warning}") + "\n")
    out = sys.stdout.buffer
    if target.settings is None:
        if not flags.show_diff:
            out.write(data)
        out.flush()
        return EXIT_CLEAN
    own = file_policy(target.config, options)
    unsafe = unsafe_fixes(target.config, flags.unsafe)
    settings = planned_settings(data, target.display, target.settings, unsafe, fixes_of(own))
    result = analysis.fix(data, target.display, settings, unsafe, fixes_of(own))
    fixed = result.fixed_source if result.fixed_source is not None else data
    if flags.show_diff:
        from mcp_migrate.output.diff import unified_diff

        out.write(unified_diff(data, fixed, target.display))
    else:
        out.write(fixed)
    out.flush()
    run = RunResult(
        results=[result],
        files_checked=1,
        files={target.display: FileRef(None, target.settings, data, own)},
        fix_run=True,
        **run_policy(target.config, options),
    )
    if flags.fix_only:
        report.print_errors(run, color=False)
    elif flags.output_file is not None:
        report.write_report(run, flags.output_format, output_file=flags.output_file, color=False, quiet=True)
    elif flags.output_format in report.TEXT_FORMATS:
        report.print_text(run, color=False, quiet=flags.quiet, file=sys.stderr, summary=False)
    else:  # stdout carries the fixed source: the document goes to stderr
        sys.stderr.write(report.render_document(run, flags.output_format))
    if flags.show_diff and not result.errors:
        unseen = any(f.code in UNFILTERED_CODES for f in result.findings)  # E999: reported above, as check does
        return _diff_exit(EXIT_FINDINGS if fixed != data or unseen else EXIT_CLEAN, flags)
    return _exit(run, len(result.applied), flags)


def _diff_exit(code: int, flags: FixOptions) -> int:
    """`--diff`'s exit: 1 when it would change something, unless `--exit-zero` (errors stay 2)."""
    return EXIT_CLEAN if code == EXIT_FINDINGS and flags.exit_zero else code


def _write(outcome, roots):
    """(problem or None, skipped by policy?) after trying to write one fixed file."""
    from mcp_migrate.project.writer import write_atomic, write_target

    target, reason = write_target(Path(outcome.source.path), roots)
    if target is None:
        return reason, True
    return write_atomic(target, outcome.result.fixed_source, outcome.snapshot), False


def _report_unwritten(outcome, problem: str, skipped: bool) -> None:
    """The file keeps its original content, so its original findings are what remains.
    A policy skip (symlink leaving the tree) is a warning; a failed write is an error."""
    from mcp_migrate.run import analysis

    result = outcome.result
    settings = outcome.settings
    original = analysis.check(outcome.snapshot.data, result.path, settings)
    if outcome.policy is not None:
        adjust(original, outcome.policy)
    result.findings = original.findings
    result.applied = []
    result.fixed_source = None
    if skipped:
        sys.stderr.write(one_line(f"{result.path}: warning: {problem}") + "\n")
    else:
        result.errors.append(FileError(result.path, "write", problem))


def _print_diffs(fix_run, quiet: bool = False) -> int:
    """The diffs on stdout; on stderr, errors and the files that could not be read or parsed
    (E999/E902: no diff does not mean nothing to fix there), which make the exit 1 as in check."""
    from mcp_migrate.output.diff import unified_diff

    outcomes = fix_run.outcomes
    out = sys.stdout.buffer
    changed = False
    errors = False
    unseen = _report_unseen([o.result for o in outcomes] + list(fix_run.unreadable))
    fixes = sum(len(o.result.fixed) for o in outcomes if o.result.fixed_source is not None)
    marked = sum(len(o.result.marked) for o in outcomes if o.result.fixed_source is not None)
    waiting = _waiting_unsafe(fix_run)
    for outcome in sorted(outcomes, key=lambda o: o.result.path):
        result = outcome.result
        errors = errors or bool(result.errors)
        for err in result.errors:
            sys.stderr.write(one_line(f"{err.path}: error: {err.code} {err.message}") + "\n")
        if result.fixed_source is None:
            continue
        text = unified_diff(outcome.snapshot.data, result.fixed_source, result.path)
        if text:
            out.write(text)
            changed = True
    out.flush()
    if not quiet:
        sys.stderr.write(diff_summary(fixes if changed else 0, waiting, marked if changed else 0) + "\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if changed or unseen else EXIT_CLEAN


def _waiting_unsafe(fix_run) -> int:
    """Unsafe fixes left in files where `fix` does not apply them (their config and the flag)."""
    default = fix_run.policy.get("unsafe_fixes", False)
    count = 0
    for outcome in fix_run.outcomes:
        policy = fix_run.policies.get(outcome.result.path)
        if not (policy.unsafe_fixes if policy is not None else default):
            count += sum(1 for f in outcome.result.findings if f.fix == "unsafe")
    return count


def _report_unseen(results) -> int:
    """Print `path:line:col: E999 message` for each file fix could not look at; how many."""
    unseen = [f for r in results for f in r.findings if f.code in UNFILTERED_CODES]
    for f in sorted(unseen, key=lambda f: f.sort_key()):
        sys.stderr.write(one_line(f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}") + "\n")
    return len(unseen)


def diff_summary(fixes: int, waiting: int, marked: int = 0) -> str:
    """What `--diff` would do, as ruff says it: nothing safe to apply is said plainly, with the
    count of unsafe fixes that wait behind `--unsafe-fixes`; review markers the diff adds are
    counted apart (they fix nothing)."""
    head = (
        f"Would fix {_findings(fixes)}"
        if fixes
        else "No fixes to apply"
        if marked or not waiting
        else "No safe fixes to apply"
    )
    if waiting:
        head += f" ({waiting} unsafe fix{'es' if waiting != 1 else ''} available with `--unsafe-fixes`)"
    if marked:
        head += f"; {marked} would be marked for review (the findings remain)"
    return head + "."
