"""The two runs, without any printing: `run_check` (plan, the results cache or the
schedule, fix applicability, coordination, callers joined) and `run_fix` (plan, the run's fix
plan, every file's fix computed; nothing written). Commands such as `check` and `fix` call them;
reporters live in output/.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

from mcp_migrate.run.cached import run_cached
from mcp_migrate.run.coordination import coordinate_check, join_callers, with_run_plan
from mcp_migrate.run.one_file import fix_file
from mcp_migrate.run.plan import adjusted, fixes_of, plan, run_policy, unreadable_results
from mcp_migrate.run.records import CheckOptions, FileRef, FixRun, RunResult
from mcp_migrate.run.schedule import SCREENED_WORKERS, run_items, worker_count


def run_check(paths: Sequence[str], options: CheckOptions, progress: Callable | None = None) -> RunResult:
    """Check `paths`; prints nothing. Raises ConfigError for bad input."""
    p = plan(paths, options)
    warnings: list = list(p.warnings)
    counts: dict = {}

    def detail() -> str:
        n = len(p.items)
        workers = SCREENED_WORKERS[0] or worker_count(n, options.jobs)
        how = [f"{counts['cached']} from the cache, {n - counts['cached']} analysed"] if "cached" in counts else []
        how.append(f"{workers} process{'es' if workers != 1 else ''}")
        return f"{n} file{'s' if n != 1 else ''} ({'; '.join(how)})"

    SCREENED_WORKERS[0] = None
    with options.timer.phase("check", detail):
        if options.cache:
            results = run_cached(p, options, progress, paths, warnings, counts) + unreadable_results(p)
        else:
            results = run_items(p.items, options.jobs, progress=progress) + unreadable_results(p)
    adjusted(results, p.policies)
    files = {
        source.display: FileRef(source.path, settings, None, p.policies.get(source.display))
        for source, settings in p.items
    }
    run = RunResult(
        results=results,
        files_checked=len(p.items),
        skipped=p.skipped,
        files=files,
        warnings=warnings,
        **run_policy(p.config, options),
    )

    def recheck(items: list) -> list:
        """The files of `items` checked as the first time (the cache, the pool)."""
        if options.cache:
            return run_cached(dataclasses.replace(p, items=items), options, None, paths, warnings)
        return run_items(items, options.jobs)

    return join_callers(coordinate_check(run, recheck))


def run_fix(
    paths: Sequence[str], options: CheckOptions, unsafe: bool | None, progress: Callable | None = None
) -> FixRun:
    """Compute fixes for `paths` (nothing is written here). `unsafe=None` takes each file's
    config's `unsafe-fixes`."""
    p = plan(paths, options)
    flag = unsafe if unsafe is not None else options.unsafe
    # A file reached twice (through a symlink and directly) is fixed once, at its real path.
    seen, items = set(), []
    for source, settings in p.items:
        key = os.path.realpath(source.path)
        if key in seen:
            continue
        seen.add(key)
        policy = p.policies.get(source.display)
        unsafe_here = flag if flag is not None else bool(policy and policy.unsafe_fixes)
        items.append((source, settings, unsafe_here, fixes_of(policy)))
    n = len(items)
    with options.timer.phase("fix", lambda: f"{n} file{'s' if n != 1 else ''} (fixes computed, nothing written)"):
        items = with_run_plan(items, options.jobs)
        outcomes = run_items(items, options.jobs, func=fix_file, progress=progress)
    policy = run_policy(p.config, options)
    if flag is not None:
        policy["unsafe_fixes"] = flag
        policies = {display: pol._replace(unsafe_fixes=flag) for display, pol in p.policies.items()}
    else:
        policies = p.policies
    return FixRun(outcomes, len(p.items), unreadable_results(p), p.skipped, policy, policies, list(p.warnings))
