"""Where a run's files are checked: in this process, or in the pool (run.pool) when there are
enough of them, after this process has read and screened them (or, for a big check, the pool
screens too). The screens and the gate finish most files without LibCST; only what is left for
the parser is worth a worker's start-up. A caller may pass `progress`, a function
`total -> context manager yielding advance()` (output/progress.py makes one).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from mcp_migrate.core.findings import FileResult
from mcp_migrate.project.regular import TooLarge, read_regular
from mcp_migrate.run.one_file import check_data, check_file, check_item
from mcp_migrate.run.pool import run_pool

#: Below this many files a pool costs more than it saves.
POOL_THRESHOLD = 64
#: A pool starts only when the files its screens leave for LibCST hold this many bytes (and are
#: at least two): below it the workers' start-up and the hand-over cost more wall time than the
#: second core saves (set on a 2-core machine; benchmarks/README.md, issue 21's section).
POOL_BYTES = 256 * 1024
#: A check of at least this many files is read and screened in the pool as well: on a big tree
#: that is most of the run, and one process did it at half the machine (a 5,055-file
#: site-packages tree 0.66x the wall time, repositories of 624-1,603 files 0.71-0.85x, at
#: 1.00-1.15x the CPU; below 500 files the gain varied, 0.76-1.01x). Below it the main process
#: screens and the pool gets only LibCST work (`POOL_BYTES`). Measured on 2 cores.
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
    with (progress or no_progress)(len(items)) as advance:
        if workers > 1 and func in (check_file, check_item):
            if len(items) >= SCREEN_POOL_FILES:
                return _screen_in_pool(func, items, workers, advance)
            return _screen_first(items, workers, advance)
        results = run_pool(func, items, workers, advance) if workers > 1 else None
        if results is None:
            results = []
            for item in items:
                results.append(func(item))
                advance()
    return results


def _screen_in_pool(func, items: list, workers: int, advance: Callable) -> list:
    """A big check (`SCREEN_POOL_FILES`): the pool reads and screens the files too. The main
    process first reads and screens files until one passes the screens, and loads the rules and
    LibCST for it (`api.load_engine`), so the workers, forked after, inherit them instead of
    each importing them (0.3 s a worker); the files before it are finished here, by the gate or
    the screens. The workers also start from this process's project view (run.pool). It reads
    at most `POOL_THRESHOLD` of them: where no file passes that early (a tree of other code),
    the pool starts without the rules, and a worker that needs them loads them itself; a tree
    no rule can report on never loads them, nor LibCST."""
    from mcp_migrate.api import load_engine

    results: list = []
    for item in items[:POOL_THRESHOLD]:
        decided = _decided_without_rules(item[0], item[1], _item_bytes(item))
        if decided is None:
            load_engine(item[1])
            break
        results.append(decided)
        advance()
    rest = items[len(results) :]
    done = run_pool(func, rest, workers, advance) if len(rest) > POOL_THRESHOLD else None
    if done is None:
        return (results + _screen_first(rest, workers, advance)) if rest else results
    SCREENED_WORKERS[0] = workers
    return results + done


#: How many processes the last screened check used (the `-v` line says so).
SCREENED_WORKERS: list = [None]


def _screen_first(items: list, workers: int, advance: Callable) -> list:
    """A check that could use a pool, of fewer than `SCREEN_POOL_FILES` files (or what a big
    check's pool could not take): every file is read and screened here first (the gate, the
    byte and the syntax screens: core.screening), and the files no rule can report on are
    finished here too. A pool starts only for what is left for LibCST, and only when that is
    enough work (`POOL_BYTES`) for the workers' start-up to pay; otherwise it runs here."""
    results: list = [None] * len(items)
    left, size = [], 0
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
    workers = workers if len(left) >= 2 and size >= POOL_BYTES else 1
    SCREENED_WORKERS[0] = workers
    if workers > 1:
        from mcp_migrate.api import load_engine

        load_engine(left[0][1][1])  # once here, not once in each worker
    done = run_pool(check_data, [item for _, item in left], min(workers, len(left)), advance) if workers > 1 else None
    if done is None:
        done = []
        for _, item in left:
            done.append(check_data(item))
            advance()
    for (index, _), result in zip(left, done):
        results[index] = result
    return results


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
