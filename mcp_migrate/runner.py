"""The check pipeline without any printing: discover files, build each file's Settings, run
the engine (in a process pool for big trees), collect FileResults. Commands such as `check`
(and later `fix`) share it; reporters live in report.py.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional, Sequence

from mcp_migrate import engine
from mcp_migrate.config import resolve_config
from mcp_migrate.discovery import check_paths_exist, discover
from mcp_migrate.findings import FileError, FileResult, Finding
from mcp_migrate.selection import IO_ERROR_CODE, selection_for

#: Below this many files a pool costs more than it saves.
POOL_THRESHOLD = 64


@dataclass
class CheckOptions:
    """What the shared CLI options resolve to; codes are already split (`("RT", "RT004")`)."""

    select: Optional[Sequence[str]] = None
    ignore: Optional[Sequence[str]] = None
    config: Optional[str] = None
    jobs: int = 0


@dataclass
class RunResult:
    results: list = field(default_factory=list)
    files_checked: int = 0

    @property
    def findings(self) -> list:
        return sorted((f for r in self.results for f in r.findings), key=Finding.sort_key)

    @property
    def errors(self) -> list:
        return [e for r in self.results for e in r.errors]


@dataclass(frozen=True)
class Plan:
    """The files of a run with their Settings: [(SourceFile, Settings)], plus unreadable dirs."""

    items: list
    unreadable: list
    config: object


def io_error(display: str, message: str) -> Finding:
    return Finding(display, 1, 1, 1, 1, IO_ERROR_CODE, "io-error", message, "error", "none")


def plan(paths: Sequence[str], options: CheckOptions) -> Plan:
    """Resolve config and selection, then discover. Raises ConfigError / PathNotFoundError."""
    check_paths_exist(paths)
    config = resolve_config(paths, options.config)
    selector = selection_for(config, options.select, options.ignore)
    found = discover(paths, config)
    items = [(f, selector.settings_for(f.path)) for f in found.files]
    return Plan(items, found.unreadable, config)


def check_file(item) -> FileResult:
    """Worker: read one file and check it. Never raises; problems become E902 / FileErrors."""
    source, settings = item
    try:
        with open(source.path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return result
    try:
        return engine.check_bytes(data, source.display, settings)
    except Exception as exc:  # an engine bug must not lose the other files
        result = FileResult(source.display)
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        result.errors.append(FileError(source.display, "internal", message))
        return result


def worker_count(n_files: int, jobs: int) -> int:
    if jobs == 1 or n_files <= POOL_THRESHOLD:
        return 1
    cpus = os.cpu_count() or 1
    return max(1, min(cpus, jobs or cpus))


def _run_pool(func, items: list, workers: int) -> Optional[list]:
    """Results in order, or None when a pool cannot run here (then the caller runs in-process)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunk = max(1, len(items) // (workers * 4))
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(func, items, chunksize=chunk))
    except (OSError, BrokenProcessPool, NotImplementedError, ImportError):
        return None


def run_items(items: list, jobs: int = 0, func=check_file) -> list:
    workers = worker_count(len(items), jobs)
    results = _run_pool(func, items, workers) if workers > 1 else None
    return results if results is not None else [func(item) for item in items]


def run_check(paths: Sequence[str], options: CheckOptions) -> RunResult:
    """Check `paths`; prints nothing. Raises ConfigError / PathNotFoundError for bad input."""
    p = plan(paths, options)
    results = run_items(p.items, options.jobs)
    for display, message in p.unreadable:
        result = FileResult(display)
        result.findings.append(io_error(display, message))
        results.append(result)
    return RunResult(results=results, files_checked=len(p.items))


@dataclass
class FixOutcome:
    """One file of a fix run: its result (findings that remain, fixes applied, the new bytes)
    and the snapshot of what was read, so the writer can refuse to clobber concurrent edits."""

    source: object
    result: FileResult
    snapshot: object = None
    settings: object = None


def fix_file(item) -> FixOutcome:
    """Worker: read one file and compute its fix. Never writes; never raises."""
    from mcp_migrate.fixer import fix_bytes
    from mcp_migrate.writer import snapshot

    source, settings, unsafe = item
    try:
        snap = snapshot(source.path)
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return FixOutcome(source, result, settings=settings)
    try:
        result = fix_bytes(snap.data, source.display, settings, unsafe=unsafe)
    except Exception as exc:  # an engine bug must not lose the other files
        result = FileResult(source.display)
        result.errors.append(FileError(source.display, "internal", " ".join(f"{type(exc).__name__}: {exc}".split())))
        return FixOutcome(source, result, settings=settings)
    return FixOutcome(source, result, snap if result.fixed_source is not None else None, settings)


def run_fix(paths: Sequence[str], options: CheckOptions, unsafe: Optional[bool]):
    """Compute fixes for `paths` (nothing is written here). `unsafe=None` takes the config's
    `unsafe-fixes`. Returns (outcomes, files_checked, unreadable results)."""
    p = plan(paths, options)
    if unsafe is None:
        unsafe = bool(getattr(p.config, "unsafe_fixes", False))
    # A file reached twice (through a symlink and directly) is fixed once, at its real path.
    seen, items = set(), []
    for source, settings in p.items:
        key = os.path.realpath(source.path)
        if key in seen:
            continue
        seen.add(key)
        items.append((source, settings, unsafe))
    outcomes = run_items(items, options.jobs, func=fix_file)
    extra = []
    for display, message in p.unreadable:
        result = FileResult(display)
        result.findings.append(io_error(display, message))
        extra.append(result)
    return outcomes, len(p.items), extra
