"""Where a run's files are checked: in this process, or in the pool (run.pool) when there are
enough of them, after this process has read and screened them (or, for a big check whose
screening costs more than a budget, the pool screens the rest). The screens and the gate finish
most files without LibCST; only what is left for the parser is worth a worker's start-up. A
caller may pass `progress`, a function `total -> context manager yielding advance()`
(output/progress.py makes one).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable

from mcp_migrate.core.findings import FileResult
from mcp_migrate.project.regular import TooLarge, read_regular
from mcp_migrate.run.one_file import check_data, check_file, check_item
from mcp_migrate.run.pool import kept_workers, run_pool

#: Below this many files a pool costs more than it saves.
POOL_THRESHOLD = 64
#: A pool starts only when the files its screens leave for LibCST hold this many bytes (and are
#: at least two): below it the workers' start-up and the hand-over cost more wall time than the
#: second core saves (set on a 2-core machine; benchmarks/README.md, issue 21's section).
POOL_BYTES = 256 * 1024
#: A check of at least this many files is read and screened in the pool as well, once the main
#: process has spent `SCREEN_BUDGET` on it: on a big tree that is most of the run, and one
#: process did it at half the machine (a 5,055-file site-packages tree 0.66x the wall time,
#: repositories of 624-1,603 files 0.71-0.85x, at 1.00-1.15x the CPU; below 500 files the gain
#: varied, 0.76-1.01x). Below it the main process screens and the pool gets only LibCST work
#: (`POOL_BYTES`). Measured on 2 cores.
SCREEN_POOL_FILES = 500


def worker_count(n_files: int, jobs: int) -> int:
    if jobs == 1 or n_files <= POOL_THRESHOLD:
        return 1
    cpus = os.cpu_count() or 1
    return max(1, min(cpus, jobs or cpus))


def no_progress(total: int):
    return contextlib.nullcontext(lambda: None)


def run_items(items: list, jobs: int = 0, func=check_file, progress: Callable | None = None) -> list:
    workers = worker_count(len(items), jobs)
    checks = func in (check_file, check_item)
    # The run's checks again (run.coordination) go to the pool it keeps, whose workers have
    # LibCST and the project's helper modules worked out already (run.pool.kept_pool).
    kept = kept_workers() if checks and jobs != 1 else 0
    with (progress or no_progress)(len(items)) as advance:
        if workers > 1 and checks and not kept:
            budget = SCREEN_BUDGET if len(items) >= SCREEN_POOL_FILES else None
            return _screen_first(items, workers, advance, budget)
        workers = kept or workers
        results = run_pool(func, items, workers, advance) if workers > 1 else None
        return results if results is not None else _here(func, items, advance)


def _here(func, items: list, advance: Callable) -> list:
    """`func` of each item in this process, in order (no pool, or none could start)."""
    results = []
    for item in items:
        results.append(func(item))
        advance()
    return results


#: How many processes the last screened check used (the `-v` line says so).
SCREENED_WORKERS: list = [None]

#: The CPU seconds a big check's main process spends screening before the pool takes the rest.
#: A pool's two workers cost about 0.05 s of CPU more than one process (fork, start-up and
#: hand-over: the standard library's 597 files, 0.34 against 0.28 s), so a tree whose screening
#: takes less than this is screened here alone, at no more wall time than the budget spent
#: before the fork, and so is one whose rest would cost less than it again (`_pool_now`).
#: Measured on 2 cores (benchmarks/README.md, issue 37).
SCREEN_BUDGET = 0.25
#: The clock of the budget: the main process's own CPU time, which another process's load does
#: not move (tests give one that counts the files).
_clock = time.process_time


def _screen_first(items: list, workers: int, advance: Callable, budget: float | None = None) -> list:
    """Every file is read and screened here first (the gate, the byte and the syntax screens:
    core.screening), and the files no rule can report on are finished here too. A pool starts
    only for what is left for LibCST, and only when that is enough work (`POOL_BYTES`) for the
    workers' start-up to pay; otherwise it runs here.

    With a `budget` (a big check's, `SCREEN_POOL_FILES`), once screening here has cost that much
    and the files still unread are worth a pool (`_pool_now`: a tree whose screening fits in the
    budget, or little more, starts none), the pool reads and screens those as well, with the
    files left for LibCST so far. Before the fork the main process loads the rules and LibCST
    where a file is left for LibCST (`api.load_engine`), so the workers inherit them instead of
    each importing them (0.3 s a worker), as they inherit the project view the main process has
    worked out (run.pool); a tree no rule can report on never loads them, nor LibCST."""
    results: list = [None] * len(items)
    left, size, cut = [], 0, len(items)
    start = _clock() if budget is not None else 0.0
    for index, item in enumerate(items):
        source, settings = item[0], item[1]
        data = _item_bytes(item)
        decided = _decided_without_rules(source, settings, data)
        if decided is not None:
            results[index] = decided
            advance()
        else:
            left.append((index, (source, settings, data)))
            size += len(data)
        if budget is not None and _pool_now(_clock() - start, index + 1, len(items) - index - 1, budget):
            cut = index + 1
            break
    if cut < len(items):
        return _pool_the_rest(items, cut, left, results, workers, advance)
    workers = workers if len(left) >= 2 and size >= POOL_BYTES else 1
    SCREENED_WORKERS[0] = workers
    if workers > 1:
        from mcp_migrate.api import load_engine

        load_engine(left[0][1][1])  # once here, not once in each worker
    _scattered(check_data, left, min(workers, len(left)), advance, results)
    return results


def _pool_now(spent: float, done: int, unread: int, budget: float) -> bool:
    """Whether a big check hands its `unread` files to the pool, having spent `spent` on `done`:
    once the budget is spent, where more than `POOL_THRESHOLD` files are left and they would
    cost as much again at the rate so far (the rate errs high: the first files pay the screens'
    imports and the first walks). A rest that costs less is checked here: a pool would save at
    most half of it in wall time, for about 0.05 s of CPU (Dev10x-Claude's 624 files screen in
    0.35-0.40 s: pooled after 0.25 s, `-j` cost 1.10x the CPU of `-j 1`; checked here alone,
    1.04x, at 1.10x the wall time)."""
    return unread > POOL_THRESHOLD and spent >= budget and spent * unread >= budget * done


def _pool_the_rest(items: list, cut: int, left: list, results: list, workers: int, advance: Callable) -> list:
    """The pool's share of a big check whose budget ran out at `items[cut]`: the files left for
    LibCST so far (with their bytes) and every file from `cut` on, read and screened there."""
    if left:
        from mcp_migrate.api import load_engine

        load_engine(left[0][1][1])  # before the fork: the workers inherit the rules and LibCST
    pending = left + [(index, items[index]) for index in range(cut, len(items))]
    pooled = _scattered(check_item, pending, workers, advance, results, alone=len(left))
    SCREENED_WORKERS[0] = workers if pooled else 1
    return results


def _scattered(func, indexed: list, workers: int, advance: Callable, results: list, alone: int = 0) -> bool:
    """`func` of each item of the (index, item) pairs `indexed`, in the pool of `workers` (here
    when it is one, or when no pool can start), each result put at its index of `results`;
    whether a pool ran. The first `alone` go to the workers one by one (run.pool.run_pool)."""
    items = [item for _, item in indexed]
    done = run_pool(func, items, workers, advance, alone) if workers > 1 else None
    pooled = done is not None
    if done is None:
        done = _here(func, items, advance)
    for (index, _), result in zip(indexed, done):
        results[index] = result
    return pooled


def _item_bytes(item) -> bytes | None:
    """The bytes of a check's item: read already (a cached run's), else read now; None for a
    file that cannot be read or is too large (check_file reports it)."""
    if len(item) == 3:
        return item[2]
    try:
        return read_regular(item[0].path, max_size=item[1].max_file_size)[0]
    except (TooLarge, OSError):
        return None


def _decided_without_rules(source, settings, data: bytes | None) -> FileResult | None:
    """The result of a file the screening loops finish before any rule is loaded: one that
    cannot be read (check_file's E902 / E997), one the gate keeps out (its answer is the
    check's: the engine does not ask it again), or one whose screens leave no rule to run
    (api.screened_out, with the rules' screens: its check finds the answer in the view). None
    for a file the screens leave to LibCST."""
    from mcp_migrate.api import may_report, screened_out
    from mcp_migrate.run.analysis import unreported

    if data is None:
        return check_file((source, settings))
    if not may_report(data, settings):
        return unreported(source.display, settings)
    try:
        if screened_out(data, source.display, settings) is None:
            return None
    except Exception:  # noqa: BLE001 - a screen's bug: the file's own check reports it, the run goes on
        return None
    return check_data((source, settings, data))  # decided by the screens: no rule, no LibCST
