"""A run's files and what they are checked with: config resolved per file (its closest config,
or `--config`, or `--isolated`), the rule selection and each file's Settings, the policy its
config decides (fail-on, unsafe-fixes, fix applicability: run.applicability), and the folders
that could not be listed. Discovery itself is project.discovery's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mcp_migrate.core.catalog import DEFAULT_FAIL_ON
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.record import replace
from mcp_migrate.project.config import ConfigResolver
from mcp_migrate.project.discovery import discover
from mcp_migrate.project.paths import display_path
from mcp_migrate.project.selection import selection_for
from mcp_migrate.run.one_file import in_view, io_error
from mcp_migrate.run.records import CheckOptions, FilePolicy, Plan

#: The E902 message of a path named on the command line that does not exist (ruff's words).
MISSING_PATH = "No such file or directory"


def selector_for(config, options: CheckOptions):
    return selection_for(
        config, options.select, options.ignore, options.strategy, options.extend_select, options.apply_suggestions
    )


def run_policy(config, options: CheckOptions) -> dict:
    """The RunResult fields that come from config and flags rather than from the files."""
    return {
        "unsafe_fixes": unsafe_fixes(config, options.unsafe),
        "fail_on": options.fail_on or config.fail_on or DEFAULT_FAIL_ON,
        "docs_url": config.docs_url,
    }


def file_policy(config, options: CheckOptions) -> FilePolicy:
    """The FilePolicy of a file whose own config is `config`."""
    from mcp_migrate.run.applicability import fix_policy

    return FilePolicy(
        fail_on=options.fail_on or config.fail_on or DEFAULT_FAIL_ON,
        unsafe_fixes=unsafe_fixes(config, options.unsafe),
        fixes=fix_policy(config),
    )


def fixes_of(policy: FilePolicy | None):
    from mcp_migrate.run.applicability import NO_POLICY

    return policy.fixes if policy is not None and policy.fixes is not None else NO_POLICY


def adjusted(results: list, policies: dict) -> list:
    """Each result with its file's fix applicability (after the cache: it keeps the engine's)."""
    from mcp_migrate.run.applicability import adjust

    for result in results:
        policy = fixes_of(policies.get(result.path))
        if policy.active:
            adjust(result, policy)
    return results


def force_exclude(config, options: CheckOptions) -> bool:
    return bool(options.force_exclude if options.force_exclude is not None else config.force_exclude)


def resolver_for(paths: Sequence[str], options: CheckOptions) -> ConfigResolver:
    return ConfigResolver.for_run(paths, options.config, options.isolated, options.overrides)


def configure(paths: Sequence[str], options: CheckOptions):
    """The config, rule selector and config warnings of standard input's file (the closest
    config above `--stdin-filename`, as for a file on disk)."""
    resolver = resolver_for(paths, options)
    return resolver.base, selector_for(resolver.base, options), resolver.warnings


def plan(paths: Sequence[str], options: CheckOptions) -> Plan:
    """Resolve config and selection, then discover. Each file gets the Settings of its own
    closest config (ConfigResolver); `--config` and `--isolated` give all files one. A path
    that does not exist is an E902 result and the run goes on, as in ruff. Raises ConfigError."""
    present = [path for path in paths if os.path.lexists(path)]
    missing = [(display_path(path), MISSING_PATH) for path in paths if not os.path.lexists(path)]
    timer = options.timer
    with timer.phase("discover", lambda: f"{len(found.files)} file{'s' if len(found.files) != 1 else ''}"):
        resolver = resolver_for(paths, options)
        found = discover(present, resolver, lambda config: force_exclude(config, options))
    selectors: dict = {}
    items, policies, config_files = [], {}, {}
    for f in found.files:
        config = resolver.for_file(f.path)
        known = selectors.get(id(config))
        if known is None:
            known = selectors[id(config)] = (config, selector_for(config, options), file_policy(config, options))
        items.append((f, known[1].settings_for(f.path)))
        policies[f.display] = known[2]
        shown = display_path(config.path) if config.path else "(defaults)"
        config_files[shown] = config_files.get(shown, 0) + 1
    # The run's one view of the project (core.project_view); it records the files each check
    # consults only for the results cache.
    items = in_view(items, ProjectView(stamps=options.cache))
    if options.previews:
        items = _with_previews(items)
    if timer.enabled:
        base = display_path(resolver.base.path) if resolver.base.path else "(defaults)"
        how = " (--isolated)" if options.isolated else " (--config)" if options.config else ""
        timer.note(f"config: {base}{how}" if resolver.base.path else f"config: none found, defaults{how}")
        if set(config_files) - {base}:
            used = ", ".join(f"{shown} ({n} file{'s' if n != 1 else ''})" for shown, n in sorted(config_files.items()))
            timer.note(f"config per file: {used}")
        if found.templates:
            timer.note(f"skipped template folders (--include-templates checks them): {', '.join(found.templates)}")
    return Plan(
        items,
        missing + found.unreadable,
        resolver.base,
        found.skipped,
        policies,
        config_files,
        tuple(resolver.warnings + found.warnings),
        tuple(found.templates),
    )


def _with_previews(items: list) -> list:
    """The same Settings objects, each once, turned to compute fix previews."""
    turned: dict = {}
    out = []
    for source, settings in items:
        if id(settings) not in turned:
            turned[id(settings)] = replace(settings, fix_previews=True)
        out.append((source, turned[id(settings)]))
    return out


def unreadable_results(p: Plan) -> list:
    """E902 results for the folders discovery could not list."""
    out = []
    for display, message in p.unreadable:
        result = FileResult(display)
        result.findings.append(io_error(display, message))
        out.append(result)
    return out


def unsafe_fixes(config, unsafe: bool | None) -> bool:
    """`--unsafe-fixes/--no-unsafe-fixes` when given, else the config's `unsafe-fixes`."""
    return bool(unsafe if unsafe is not None else config.unsafe_fixes)
