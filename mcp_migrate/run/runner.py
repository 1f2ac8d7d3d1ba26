"""The two runs, without any printing: `run_check` (plan, the results cache or the
schedule, fix applicability, coordination, callers joined) and `run_fix` (plan, the run's fix
plan, every file's fix computed; nothing written). Commands such as `check` and `fix` call them;
reporters live in output/.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from mcp_migrate.core.gates import roots_migration
from mcp_migrate.core.record import replace
from mcp_migrate.run.cached import run_cached
from mcp_migrate.run.coordination import coordinate_check, join_callers, with_run_plan
from mcp_migrate.run.one_file import fix_file
from mcp_migrate.run.plan import adjusted, fixes_of, plan, run_policy, unreadable_results
from mcp_migrate.run.pool import kept_pool
from mcp_migrate.run.records import CheckOptions, FileRefs, FixOutcome, FixRun, RunResult
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
    with kept_pool():  # its workers take the checks again under the run's plan (`recheck`)
        with options.timer.phase("check", detail):
            # A result that says nothing is not kept (FileResult.says_nothing): most of a tree.
            if options.cache:
                results = run_cached(p, options, progress, paths, warnings, counts, keep_blank=False)
            else:
                results = [r for r in run_items(p.items, options.jobs, progress=progress) if not r.says_nothing()]
            results += unreadable_results(p)
        adjusted(results, p.policies)
        files = FileRefs(p.items, p.policies)
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
                return run_cached(replace(p, items=items), options, None, paths, warnings)
            return run_items(items, options.jobs)

        checked = coordinate_check(run, recheck)
    return join_callers(checked)


def run_fix(
    paths: Sequence[str], options: CheckOptions, unsafe: bool | None, progress: Callable | None = None
) -> FixRun:
    """Compute fixes for `paths` (nothing is written here). `unsafe=None` takes each file's
    config's `unsafe-fixes`."""
    p = plan(paths, options)
    warnings: list = list(p.warnings)
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
        planned = with_run_plan(items, options.jobs, check=_planning_check(p, options, paths, warnings))
        kept: list = []
        outcomes = _fix_outcomes(planned, options.jobs, progress, _fix_cache(p, options, paths), kept)
    policy = run_policy(p.config, options)
    if flag is not None:
        policy["unsafe_fixes"] = flag
        policies = {display: pol._replace(unsafe_fixes=flag) for display, pol in p.policies.items()}
    else:
        policies = p.policies
    keep = (lambda proposals: _keep_unchanged(kept, proposals)) if kept else None
    return FixRun(outcomes, len(p.items), unreadable_results(p), p.skipped, policy, policies, warnings, keep)


def _planning_check(p, options: CheckOptions, paths: Sequence[str], warnings: list) -> Callable:
    """How a fix run checks its files before planning: through the results cache as `check`
    does (an unchanged file is answered without analysis; issue 37: `fix` uses the cache for
    the files it does not change), or in the pool with the cache off."""

    def check(pairs: list) -> list:
        if options.cache:
            return run_cached(replace(p, items=pairs), options, None, paths, warnings)
        return run_items(pairs, options.jobs)

    return check


def _fix_cache(p, options: CheckOptions, paths: Sequence[str]):
    """The results cache that keeps the outcomes of files `fix` leaves unchanged (None without
    the cache)."""
    if not options.cache:
        return None
    from mcp_migrate.project.cache import cache_for

    cache = cache_for(p.config, [path for path in paths if path != "-"])
    return cache if cache.usable else None


def _fix_outcomes(planned, jobs: int, progress: Callable | None, cache=None, kept: list | None = None) -> list:
    """Each file's FixOutcome. A file whose check (the plan's, before any fix) gives no finding
    an edit and failed nowhere has nothing to fix: that check is its outcome, and it is neither
    read nor analysed again (issue 37: a `fix` that changes nothing analysed every file twice).
    Findings come from the rules alone, so no plan gives a file without one an edit; a finding
    without an edit keeps none unless it is a Roots migration finding in a run that decided
    something beyond each file (its plan may hand a client's roots over to a tool, or let a test
    go with its code): a pending review marker (RT901) stays as it is."""
    planned_codes = roots_migration() if planned.coordinated else frozenset()
    items, checks = planned.items, planned.checks
    outcomes: list = [None] * len(items)
    todo = []
    for index, (item, result) in enumerate(zip(items, checks)):
        editless = all(finding.fix == "none" and finding.code not in planned_codes for finding in result.findings)
        if result.errors or not editless:
            todo.append(index)
        else:
            source, settings, _unsafe, policy = item
            outcomes[index] = FixOutcome(source, result, settings=settings, policy=policy)
    if cache is not None:
        todo = _unchanged_from_cache(cache, items, checks, todo, outcomes)
    fixed = run_items([items[index] for index in todo], jobs, func=fix_file, progress=progress)
    for index, outcome in zip(todo, fixed):
        outcomes[index] = outcome
    if cache is not None and kept is not None:
        kept.extend((cache, outcome, checks[index], items[index]) for index, outcome in zip(todo, fixed))
    return outcomes


def _unchanged_from_cache(cache, items: list, checks: list, todo: list, outcomes: list) -> list:
    """The files of `todo` the cache does not answer: a file this `fix` left unchanged before,
    with the same bytes, settings (the run's plan among them), unsafe flag and fix policy, and
    the helper modules its check read unchanged, gets that outcome without being analysed
    (issue 37: a warm `fix` analysed every file with an edit it does not apply, 2.7-8.4 times
    the warm `check`)."""
    from mcp_migrate.project.cache import fix_key

    left = []
    for index in todo:
        source, settings, unsafe, policy = items[index]
        key = fix_key(settings, unsafe, policy)
        try:
            st = os.stat(source.path)
        except OSError:
            left.append(index)
            continue
        result = cache.get_unchanged(source.display, st, key)
        if result is None:
            try:
                with open(source.path, "rb") as handle:
                    result = cache.get(source.display, handle.read(), key, st)
            except OSError:
                result = None
        if result is None or checks[index].errors:
            left.append(index)
        else:
            outcomes[index] = FixOutcome(source, result, settings=settings, policy=policy)
    return left


def _keep_unchanged(kept: list, proposals: dict) -> None:
    """Keep in the cache the outcome of each file the fix left unchanged (read from the bytes it
    read), with the helper modules its check depends on and the fix proposals the report made
    for its findings (run.proposals: a warm full report then shows them without analysing the
    file again). `proposals`: (path, code, unsafe) -> FixProposal, {} when none were made."""
    from mcp_migrate.project.cache import fix_key

    caches = []
    for cache, outcome, check, item in kept:
        result, snap = outcome.result, outcome.snapshot
        if snap is not None or result.fixed_source is not None or result.applied or result.errors or check.errors:
            continue
        source, settings, unsafe, policy = item
        try:
            st = os.stat(source.path)
            with open(source.path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        previews = {
            (code, unsafe_kind): proposal.new
            for (path, code, unsafe_kind), proposal in proposals.items()
            if path == result.path and proposal.old == data
        }
        stored = replace(result, depends=check.depends, fix_previews=previews)
        cache.put(source.display, data, fix_key(settings, unsafe, policy), stored, st)
        if cache not in caches:
            caches.append(cache)
    for cache in caches:
        cache.save()
