"""Standard input as one file of the run (`--stdin-filename PATH -`): PATH's config, per-file
ignores and force-exclude verdict, the same checks, fix applicability and coordination as a file
on disk.
"""

from __future__ import annotations

import os

from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.record import replace
from mcp_migrate.project.discovery import force_excluded
from mcp_migrate.project.paths import display_path
from mcp_migrate.run.coordination import coordinate_check, join_callers
from mcp_migrate.run.plan import adjusted, configure, file_policy, force_exclude, run_policy
from mcp_migrate.run.records import CheckOptions, FileRef, RunResult, StdinTarget


def stdin_target(filename: str | None, options: CheckOptions) -> StdinTarget:
    config, selector, warnings = configure([filename or "."], options)
    if filename and force_exclude(config, options) and force_excluded(filename, config):
        return StdinTarget(display_path(filename), None, config, tuple(warnings))
    settings = replace(selector.settings_for(filename or os.path.join(os.getcwd(), "-")), view=ProjectView())
    return StdinTarget(display_path(filename) if filename else "-", settings, config, tuple(warnings))


def check_stdin(filename: str | None, options: CheckOptions, data: bytes) -> RunResult:
    """`check --stdin-filename PATH -`: check `data` as if it were PATH."""
    target = stdin_target(filename, options)
    policy = run_policy(target.config, options)
    warnings = list(target.warnings)
    if target.settings is None:
        return RunResult(skipped=1, warnings=warnings, **policy)
    from mcp_migrate.run import analysis

    result = analysis.check(data, target.display, target.settings)
    own = file_policy(target.config, options)
    adjusted([result], {target.display: own})
    files = {target.display: FileRef(None, target.settings, data, own)}
    return join_callers(
        coordinate_check(RunResult(results=[result], files_checked=1, files=files, warnings=warnings, **policy))
    )
