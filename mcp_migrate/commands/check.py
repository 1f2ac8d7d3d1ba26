"""The `check` command's orchestration: run the check (files or standard input), then either
record a baseline, add noqa directives, or filter through a baseline and report."""

from __future__ import annotations

import sys

from mcp_migrate.core.codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.record import record
from mcp_migrate.output import progress, report
from mcp_migrate.output.printable import printable
from mcp_migrate.output.report import ColorChoice
from mcp_migrate.project.config import ConfigError
from mcp_migrate.project.writer import same_file_as_any
from mcp_migrate.run import proposals, runner
from mcp_migrate.run.records import RunResult
from mcp_migrate.run.stdin import check_stdin


@record(frozen=True)
class OutputOptions:
    """How a command reports: format, destination, verbosity, exit policy."""

    output_format: str = "full"
    output_file: str | None = None
    color: ColorChoice = True
    quiet: bool = False
    statistics: bool = False
    exit_zero: bool = False
    #: `--report FILE.md`: also write the Markdown migration report there.
    report: str | None = None


def exit_code(run, exit_zero: bool = False) -> int:
    """2 on errors; 1 when a finding at or above the run's `fail-on` severity remains."""
    if run.errors:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if run.failing else EXIT_CLEAN


def run_check_command(
    paths,
    options,
    output: OutputOptions,
    *,
    stdin: bytes | None = None,
    stdin_filename: str | None = None,
    baseline: str | None = None,
    write_baseline: str | None = None,
    add_noqa: bool = False,
) -> int:
    # Reporters that show fixes get them computed with the check, from the same parse.
    options.previews = output.output_format in ("full", "sarif") and not (write_baseline or add_noqa)
    if stdin is not None:
        run = check_stdin(stdin_filename, options, stdin)
    else:
        bar = progress.factory(color=output.color, enabled=not output.quiet)
        run = runner.run_check(paths, options, progress=bar)
    inputs = [ref.path for ref in run.files.values() if ref.path] + ([stdin_filename] if stdin_filename else [])
    refuse_overwriting_inputs(
        inputs,
        (("--output-file", output.output_file), ("--write-baseline", write_baseline), ("--report", output.report)),
    )
    for warning in run.warnings:
        sys.stderr.write(printable(f"mcp-migrate: warning: {warning}") + "\n")
    if write_baseline:
        return _write_baseline(run, write_baseline, output)
    if add_noqa:
        return _add_noqa(run, paths, output)
    if baseline:
        from mcp_migrate.project.baseline import apply_baseline

        apply_baseline(run, baseline)
    if output.report:
        from mcp_migrate.output import migration

        migration.write(output.report, migration.check_report(run))
    timer = options.timer
    if output.output_format in ("full", "sarif"):
        with timer.phase("fix previews"):
            proposals.propose_fixes(run)
    if output.output_format in report.TEXT_FORMATS and run.files_checked == 0 and not run.results:
        if run.skipped:  # everything named was excluded (pre-commit, editors): say nothing
            return EXIT_CLEAN
        if not output.quiet:
            sys.stderr.write("mcp-migrate: warning: no Python files found\n")
    with timer.phase("report", lambda: output.output_format):
        report.write_report(
            run,
            output.output_format,
            output_file=output.output_file,
            color=output.color,
            quiet=output.quiet,
            with_statistics=output.statistics,
        )
    return exit_code(run, output.exit_zero)


def refuse_overwriting_inputs(inputs, targets) -> None:
    """A ConfigError (one line, exit 2, nothing written) when an output option names one of
    the files being checked: `-o a.py` is a slip of the fingers that would replace code with a
    report. `targets`: (option, path or None) pairs."""
    for option, target in targets:
        if target and same_file_as_any(target, inputs):
            raise ConfigError(f"{option} {target}: is one of the files being checked: not overwritten")


def _write_baseline(run, path: str, output: OutputOptions) -> int:
    from mcp_migrate.project.baseline import write_baseline

    count = write_baseline(path, run)
    report.print_errors(run, color=output.color)
    if not output.quiet:
        noun = "finding" if count == 1 else "findings"
        sys.stdout.write(printable(f"Wrote {count} {noun} to the baseline {path}") + "\n")
    return EXIT_ERROR if run.errors else EXIT_CLEAN


def _add_noqa(run, paths, output: OutputOptions) -> int:
    """`check --add-noqa`: the run adds the directives (run.add_noqa); this prints what it did."""
    from mcp_migrate.run.add_noqa import add_noqa_to_files

    added, files, errors, unplaced = add_noqa_to_files(run, paths)
    for f in unplaced:
        where = printable(f"{f.path}:{f.line}")
        sys.stderr.write(f"{where}: warning: no place for `# noqa: {f.code}` (inside a string?)\n")
    failed = RunResult(results=[FileResult(e.path, errors=[e]) for e in errors])
    report.print_errors(failed, color=output.color)
    if not output.quiet:
        noun = "directive" if added == 1 else "directives"
        sys.stdout.write(f"Added {added} noqa {noun} to {files} file{'s' if files != 1 else ''}.\n")
    return EXIT_ERROR if errors else EXIT_CLEAN
