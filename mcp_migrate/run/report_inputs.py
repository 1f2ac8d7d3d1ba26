"""What the migration report of a fix run is made of (output.migration.FileInput): each file's
findings before the fix (the bytes read, checked again) and after, what its rewrites recorded,
and a helper's callers joined to its finding on each side apart (core.callers), as `check`
reports them. Computed here so the `fix` command only writes and prints.
"""

from __future__ import annotations

import os

from mcp_migrate.core import callers
from mcp_migrate.core.record import replace
from mcp_migrate.run.applicability import adjust


def report_inputs(outcomes) -> list:
    """The migration report's view of every file (`_report_input`), a helper's callers joined
    to its finding before and after the fix apart (core.callers), as `check` reports them."""
    pairs = [_report_input(outcome) for outcome in outcomes]
    real = {outcome.result.path: os.path.abspath(outcome.source.path) for outcome in outcomes}

    def real_path(result) -> str:
        return real.get(result.path) or os.path.abspath(result.path)

    befores = [replace(before, findings=list(before.findings)) for _, before in pairs]
    afters = [replace(outcome.result, findings=list(outcome.result.findings)) for outcome in outcomes]
    callers.join(befores, real_path)
    callers.join(afters, real_path)
    return [
        replace(file, before=before.findings, after=after.findings)
        for (file, _), before, after in zip(pairs, befores, afters)
    ]


def _report_input(outcome) -> tuple:
    """(FileInput, the FileResult before the fix) of one file: for a file written, its findings
    before the fix (a check of the bytes read, with the run's settings and the file's fix
    policy) and what its rewrites recorded there (core.coordination.FileNotes); otherwise what
    remains."""
    from mcp_migrate.output.migration import FileInput

    result = outcome.result
    if result.fixed_source is None or outcome.snapshot is None:
        return FileInput(result.path, result.findings, result.findings, notes=result.notes), result
    from mcp_migrate.run import analysis

    before = analysis.check(outcome.snapshot.data, result.path, outcome.settings)
    if outcome.policy is not None:
        adjust(before, outcome.policy)
    file = FileInput(
        result.path,
        before.findings,
        result.findings,
        list(result.applied),
        outcome.snapshot.data,
        result.fixed_source,
        before.notes,
    )
    return file, before
