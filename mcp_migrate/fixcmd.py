"""The `fix` command's orchestration: compute fixes (in workers), then either print diffs or
write each changed file safely, then report what was fixed and what remains."""
from __future__ import annotations

import sys
from pathlib import Path

from mcp_migrate.findings import FileError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def run_fix_command(paths, options, unsafe, show_diff: bool, no_color: bool) -> int:
    from mcp_migrate import report
    from mcp_migrate.runner import RunResult, run_fix

    outcomes, files_checked, extra = run_fix(paths, options, unsafe)
    roots = [Path(p) for p in paths]
    if show_diff:
        return _print_diffs(outcomes)
    color = report.use_color(no_color)
    console = report.make_console(color=color)
    fixed_count = 0
    for outcome in outcomes:
        result = outcome.result
        if result.fixed_source is None:
            continue
        problem, skipped = _write(outcome, roots)
        if problem is not None:
            _report_unwritten(outcome, problem, skipped)
            continue
        fixed_count += len(result.applied)
        from rich.markup import escape

        for code, line in result.applied:
            console.print(f"[bold]{escape(result.path)}[/]:{line}: fixed [green]{escape(code)}[/]")
    run = RunResult(results=[o.result for o in outcomes] + extra, files_checked=files_checked)
    if fixed_count:
        console.print(f"Fixed {fixed_count} finding{'s' if fixed_count != 1 else ''}.")
    report.print_text(run, color=color)
    if run.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.findings else EXIT_CLEAN


def _write(outcome, roots):
    """(problem or None, skipped by policy?) after trying to write one fixed file."""
    from mcp_migrate.writer import write_atomic, write_target

    target, reason = write_target(Path(outcome.source.path), roots)
    if target is None:
        return reason, True
    return write_atomic(target, outcome.result.fixed_source, outcome.snapshot), False


def _report_unwritten(outcome, problem: str, skipped: bool) -> None:
    """The file keeps its original content, so its original findings are what remains.
    A policy skip (symlink leaving the tree) is a warning; a failed write is an error."""
    from mcp_migrate.engine import check_bytes

    result = outcome.result
    settings = outcome.settings
    original = check_bytes(outcome.snapshot.data, result.path, settings)
    result.findings = original.findings
    result.applied = []
    result.fixed_source = None
    if skipped:
        sys.stderr.write(f"{result.path}: warning: {problem}\n")
    else:
        result.errors.append(FileError(result.path, "write", problem))


def _print_diffs(outcomes) -> int:
    from mcp_migrate.diff import unified_diff

    out = sys.stdout.buffer
    changed = False
    errors = False
    for outcome in sorted(outcomes, key=lambda o: o.result.path):
        result = outcome.result
        errors = errors or bool(result.errors)
        for err in result.errors:
            sys.stderr.write(f"{err.path}: error: {err.code} {err.message}\n")
        if result.fixed_source is None:
            continue
        text = unified_diff(outcome.snapshot.data, result.fixed_source, result.path)
        if text:
            out.write(text)
            changed = True
    out.flush()
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if changed else EXIT_CLEAN
