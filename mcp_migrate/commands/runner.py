"""The check pipeline without any printing: discover files, build each file's Settings, run
the engine (in a process pool for big trees), collect FileResults. Commands such as `check`
and `fix` share it; reporters live in output/report.py. A caller may pass `progress`, a function
`total -> context manager yielding advance()`, to show progress (see output/progress.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from mcp_migrate.commands.lifeline import end_with_parent, parent_for_workers
from mcp_migrate.core.catalog import DEFAULT_FAIL_ON, fails
from mcp_migrate.core.codes import IO_ERROR_CODE
from mcp_migrate.core.coordination import (
    TOOL_CALLER_CODE,
    RunPlan,
    coordinated,
    file_asks,
    for_file,
    plans,
    with_note,
)
from mcp_migrate.core.findings import FileError, FileResult, Finding
from mcp_migrate.core.messages import fit
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.project.config import ConfigResolver
from mcp_migrate.project.discovery import discover
from mcp_migrate.project.regular import TooLarge, read_regular
from mcp_migrate.project.selection import selection_for

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
#: The E902 message of a path named on the command line that does not exist (ruff's words).
MISSING_PATH = "No such file or directory"


@dataclass
class CheckOptions:
    """What the shared CLI options resolve to; codes are already split (`("RT", "RT004")`)."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    config: str | None = None
    jobs: int = 0
    #: `--strategy` (None: the config's); `--force-exclude` (None: the config's).
    strategy: str | None = None
    force_exclude: bool | None = None
    #: Read and write the results cache (project.cache); `check --no-cache` turns it off.
    cache: bool = False
    #: Compute fix previews with the check (full text and SARIF output show them).
    previews: bool = False
    #: `--extend-select` codes, `--unsafe-fixes/--no-unsafe-fixes` and `--severity` (None: the config's).
    extend_select: Sequence[str] | None = None
    unsafe: bool | None = None
    fail_on: str | None = None
    #: `--isolated`: read no config file; every file gets the defaults (and the flags).
    isolated: bool = False
    #: `-v`: phase timings on stderr (commands.timing.Timings); the default prints nothing.
    timings: object = None
    #: `--exclude`, `--extend-exclude`, `--per-file-ignores`, `--extend-per-file-ignores`,
    #: `--include-templates` (project.overrides.Overrides), laid over every config; None: none.
    overrides: object = None

    @property
    def timer(self):
        from mcp_migrate.commands.timing import QUIET

        return self.timings or QUIET


class FilePolicy(NamedTuple):
    """What a file's own config (and the flags) decide beyond its Settings: the lowest severity
    that fails the run for its findings, whether `fix` applies its unsafe fixes, and which
    fixes it may apply as what (commands.applicability.FixPolicy)."""

    fail_on: str = DEFAULT_FAIL_ON
    unsafe_fixes: bool = False
    fixes: object = None


@dataclass
class RunResult:
    results: list = field(default_factory=list)
    files_checked: int = 0
    #: Explicitly named files that force-exclude skipped.
    skipped: int = 0
    #: Set when a baseline was applied (baseline.BaselineOutcome): matched and stale entries.
    baseline: object = None
    #: display path -> FileRef, for reporters that need a file's bytes or Settings again.
    files: dict = field(default_factory=dict)
    #: Whether `mcp-migrate fix` applies unsafe fixes in this project (config or flag), so the
    #: summary's hints say what the command really does; the lowest failing severity; the
    #: rule pages' base URL (`docs-url`).
    unsafe_fixes: bool = False
    fail_on: str = DEFAULT_FAIL_ON
    docs_url: str | None = None
    #: (path, code, unsafe?) -> FixProposal, filled by `propose_fixes` for reporters that show
    #: fixes (SARIF, the full text format): reporters only report, they never run the fixer.
    fixes: dict = field(default_factory=dict)
    #: One-line warnings about the run itself (an unusable results cache), printed on stderr.
    warnings: list = field(default_factory=list)
    #: A `fix` run: results carry what was applied (FileResult.applied), which the JSON
    #: document reports as fixed and marked for review.
    fix_run: bool = False

    @property
    def failing(self) -> list:
        """The findings that make the run exit 1 (severity at or above their file's `fail-on`)."""
        return [f for f in self.findings if fails(f.severity, self.fail_on_for(f.path))]

    def _policy(self, path: str) -> FilePolicy | None:
        ref = self.files.get(path)
        return getattr(ref, "policy", None)

    def fail_on_for(self, path: str) -> str:
        """The `fail-on` of the file's own config (or the flag); the run's for other results."""
        policy = self._policy(path)
        return policy.fail_on if policy is not None else self.fail_on

    def unsafe_fixes_for(self, path: str) -> bool:
        """Whether `mcp-migrate fix` applies unsafe fixes to this file (its config, or the flag)."""
        policy = self._policy(path)
        return policy.unsafe_fixes if policy is not None else self.unsafe_fixes

    @property
    def findings(self) -> list:
        return sorted((f for r in self.results for f in r.findings), key=Finding.sort_key)

    @property
    def errors(self) -> list:
        return [e for r in self.results for e in r.errors]

    @property
    def suppressed(self) -> list:
        """Findings silenced by inline comments (core.findings.Suppressed), sorted by position."""
        return sorted((s for r in self.results for s in r.suppressed), key=lambda s: s.finding.sort_key())


class FileRef(NamedTuple):
    """Where a checked file's bytes come from (`data` for standard input), its Settings and
    its FilePolicy (None: the run's)."""

    path: str | None
    settings: object
    data: bytes | None = None
    policy: FilePolicy | None = None

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        return read_regular(self.path, max_size=getattr(self.settings, "max_file_size", 0))[0]


@dataclass(frozen=True)
class Plan:
    """The files of a run with their Settings: [(SourceFile, Settings)], plus unreadable dirs.
    `config` is the run's own (the first path's, or `--config`); `policies` maps each file's
    display path to the FilePolicy of its own config."""

    items: list
    unreadable: list
    config: object
    skipped: int = 0
    policies: dict = field(default_factory=dict)
    #: Every config file the run's files resolved to (display path -> number of files).
    config_files: dict = field(default_factory=dict)
    #: One-line warnings from discovery (an ignore file or a config file that cannot be read).
    warnings: tuple = ()
    #: Display paths of the template folders discovery skipped (`--show-files`, `-v` say them).
    templates: tuple = ()


def io_error(display: str, message: str) -> Finding:
    """A file that cannot be read, as a finding (the system's words fitted to MAX_MESSAGE, and
    given whole as the help when cut)."""
    short = fit(message)
    return Finding(
        display, 1, 1, 1, 1, IO_ERROR_CODE, "io-error", short, "error", "none", message if short != message else ""
    )


def selector_for(config, options: CheckOptions):
    return selection_for(config, options.select, options.ignore, options.strategy, options.extend_select)


def run_policy(config, options: CheckOptions) -> dict:
    """The RunResult fields that come from config and flags rather than from the files."""
    return {
        "unsafe_fixes": unsafe_fixes(config, options.unsafe),
        "fail_on": options.fail_on or config.fail_on or DEFAULT_FAIL_ON,
        "docs_url": config.docs_url,
    }


def file_policy(config, options: CheckOptions) -> FilePolicy:
    """The FilePolicy of a file whose own config is `config`."""
    from mcp_migrate.commands.applicability import fix_policy

    return FilePolicy(
        fail_on=options.fail_on or config.fail_on or DEFAULT_FAIL_ON,
        unsafe_fixes=unsafe_fixes(config, options.unsafe),
        fixes=fix_policy(config),
    )


def _fixes_of(policy: FilePolicy | None):
    from mcp_migrate.commands.applicability import NO_POLICY

    return policy.fixes if policy is not None and policy.fixes is not None else NO_POLICY


def _adjusted(results: list, policies: dict) -> list:
    """Each result with its file's fix applicability (after the cache: it keeps the engine's)."""
    from mcp_migrate.commands.applicability import adjust

    for result in results:
        policy = _fixes_of(policies.get(result.path))
        if policy.active:
            adjust(result, policy)
    return results


def force_exclude(config, options: CheckOptions) -> bool:
    return bool(options.force_exclude if options.force_exclude is not None else config.force_exclude)


def resolver_for(paths: Sequence[str], options: CheckOptions) -> ConfigResolver:
    return ConfigResolver.for_run(paths, options.config, options.isolated, options.overrides)


def _configure(paths: Sequence[str], options: CheckOptions):
    """The config, rule selector and config warnings of standard input's file (the closest
    config above `--stdin-filename`, as for a file on disk)."""
    resolver = resolver_for(paths, options)
    return resolver.base, selector_for(resolver.base, options), resolver.warnings


def plan(paths: Sequence[str], options: CheckOptions) -> Plan:
    """Resolve config and selection, then discover. Each file gets the Settings of its own
    closest config (ConfigResolver); `--config` and `--isolated` give all files one. A path
    that does not exist is an E902 result and the run goes on, as in ruff. Raises ConfigError."""
    from mcp_migrate.project.paths import display_path

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
    items = _in_view(items, ProjectView())  # the run's one view of the project (core.project_view)
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


def _in_view(items: list, view) -> list:
    """The same Settings objects, each once, reading the project through `view`; an item
    without Settings (source, Settings, ...) stays as it is."""
    turned: dict = {}
    out = []
    for item in items:
        settings = item[1] if isinstance(item, tuple) and len(item) > 1 else None
        if not hasattr(settings, "view"):
            out.append(item)
            continue
        if id(settings) not in turned:
            turned[id(settings)] = dataclasses.replace(settings, view=view)
        out.append((item[0], turned[id(settings)], *item[2:]))
    return out


def _with_previews(items: list) -> list:
    """The same Settings objects, each once, turned to compute fix previews."""
    turned: dict = {}
    out = []
    for source, settings in items:
        if id(settings) not in turned:
            turned[id(settings)] = dataclasses.replace(settings, fix_previews=True)
        out.append((source, turned[id(settings)]))
    return out


def check_file(item) -> FileResult:
    """Worker: read one file and check it. Never raises; problems become E902 / FileErrors."""
    source, settings = item
    try:
        data = read_regular(source.path, max_size=settings.max_file_size)[0]
    except TooLarge as exc:
        return FileResult(source.display, findings=[_too_large(source.display, exc)])
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return result
    return check_data((source, settings, data))


def _too_large(display: str, exc: TooLarge) -> Finding:
    """E997 for a file its stat showed over max-file-size (it was not read)."""
    from mcp_migrate.core.engine import too_large

    return too_large(display, exc.size, exc.limit)


def check_data(item) -> FileResult:
    """Worker: check bytes already read (the cache read them to look them up). Never raises."""
    from mcp_migrate.commands import analysis  # imported here: a run served from the cache never needs LibCST

    source, settings, data = item
    try:
        return analysis.check(data, source.display, settings)
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


#: Pools a run may start before the files still unfinished run one process each: a file
#: that kills its worker twice is isolated, so each pool after the first isolates one at least.
MAX_POOLS = 6


def _run_pool(func, items: list, workers: int, advance: Callable) -> list | None:
    """Results in order, or None when a pool cannot run here (then the caller runs in-process).
    A worker that dies (a native crash, the kernel's OOM killer) loses no file and costs little:
    the files left unfinished run again in a fresh pool, and only a file that was in a dying
    worker twice runs in a process of its own (`_run_isolated`), never in this process, where
    the same crash would end the run. (Re-running every unfinished file one process each, as
    before, made one crash cost 40 times the run.)"""
    results: list = [None] * len(items)
    kills = [0] * len(items)  # how often a file was in a worker as it died
    pending = list(range(len(items)))
    for pools in range(MAX_POOLS):
        try:
            killers = _pool_round(func, items, pending, workers, advance, results)
        except _NoPool:
            if pools == 0 and not any(result is not None for result in results):
                return None
            break
        for index in killers:
            kills[index] += 1
        for index in pending:
            if results[index] is None and kills[index] >= 2:
                results[index] = _run_isolated(func, items[index], advance)
        pending = [index for index in pending if results[index] is None]
        if not pending:
            break
    for index in pending:
        if results[index] is None:
            results[index] = _run_isolated(func, items[index], advance)
    return results


class _NoPool(Exception):
    """A process pool cannot run here (a platform without one, no processes left)."""


def _pool_round(func, items: list, pending: list, workers: int, advance: Callable, results: list) -> list:
    """Run the `pending` items in one pool, filling `results`; the indices of the files that
    were in a worker as it died (empty when none died). Each worker marks the file it works
    on in a shared array with its pid, so a dead worker names its file: the pool ends the other
    workers with SIGTERM, and their files are not suspects (when the dead worker cannot be told
    apart, every file in progress is)."""
    import multiprocessing
    import signal
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    chunk = max(1, min(64, len(pending) // (workers * 4)))
    batches = [pending[i : i + chunk] for i in range(0, len(pending), chunk)]
    broken, processes = False, None
    try:
        state = multiprocessing.RawArray("q", len(items))  # 0: not started, pid: running, -1: done
        parent = parent_for_workers(multiprocessing.get_start_method())
        with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(state, parent)) as pool:
            futures = {
                pool.submit(_run_batch, func, [(index, items[index]) for index in batch]): batch for batch in batches
            }
            processes = getattr(pool, "_processes", None)  # the pool's own dict of its workers
            try:
                # Progress moves as batches finish, whichever finishes first; results keep their order.
                for future in as_completed(futures):
                    try:
                        batch_results = future.result()
                    except BrokenProcessPool:
                        broken = True
                        continue  # these files run again in the next pool
                    for index, result in zip(futures[future], batch_results):
                        results[index] = result
                        advance()
            except KeyboardInterrupt:
                _stop_now(pool)
                raise
    except BrokenProcessPool:
        broken = True
    except (OSError, RuntimeError, ImportError) as exc:
        # RuntimeError covers a platform without process pools; workers themselves never
        # raise (check_file/fix_file turn every problem into a result).
        raise _NoPool() from exc
    if not broken:
        return []
    running = [index for index in pending if results[index] is None and state[index] > 0]
    dead = {pid for pid, process in dict(processes or {}).items() if process.exitcode not in (0, None, -signal.SIGTERM)}
    return [index for index in running if state[index] in dead] or running


def _run_isolated(func, item, advance: Callable):
    """`func(item)` in a child process of its own: when the child dies, only this file is lost,
    reported as E998 with the signal that ended it."""
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(func, item, send, parent_for_workers(method)), daemon=True)
    child.start()
    send.close()
    try:
        result = receive.recv()
    except (EOFError, OSError):
        result = None
    finally:
        receive.close()
    child.join()
    advance()
    if result is None:
        result = _crashed(func, item, child.exitcode)
    return result


def _isolated_child(func, item, send, parent) -> None:
    _ignore_interrupts()
    end_with_parent(parent)
    send.send(func(item))
    send.close()


def _crashed(func, item, exitcode: int | None):
    """The result of a file whose process died: E998 naming the signal (or exit status)."""
    import signal

    from mcp_migrate.core.codes import PARSER_LIMIT_CODE
    from mcp_migrate.core.engine import file_finding
    from mcp_migrate.core.messages import Message

    source, settings = item[0], item[1]
    if exitcode is not None and exitcode < 0:
        try:
            how = f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"signal {-exitcode}"
    else:
        how = f"exit status {exitcode}"
    result = FileResult(source.display)
    message = Message(f"not analysed: the process analysing this file crashed ({how})", "the parser cannot handle it")
    result.findings.append(file_finding(source.display, PARSER_LIMIT_CODE, message))
    return FixOutcome(source, result, settings=settings) if func is fix_file else result


#: How long an interrupted pool's manager thread may take to see its workers end (it takes
#: milliseconds; the bound only keeps a stuck thread from holding the exit).
STOP_SECONDS = 10


def _stop_now(pool) -> None:
    """Ctrl-C, SIGTERM: cancel the batches not started and end the workers at once (they ignore
    SIGINT, so they would finish every batch already queued first; SIGTERM ends them silently),
    then wait for the pool's manager thread to reap them. Left running, that thread raced
    Python's exit (concurrent.futures' `_python_exit` woke it through a pipe it was closing):
    "Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file descriptor"
    under "terminated (SIGTERM)" in about 1 of 10 fix runs stopped in their pool."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.terminate()
    if manager is not None:
        manager.join(STOP_SECONDS)


def _ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the main process, which stops the run (exit 130); a
    worker that took the signal itself would print a traceback and break the pool. SIGTERM
    and SIGHUP end a worker quietly (the main process's handlers, inherited by a fork, would
    raise in it), which is how the main process stops them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


#: In a pool worker: the run's shared array, where the worker marks the file it works on; and
#: the worker's project view for the run (a view crosses the pipe empty: core.project_view).
_state = None
_view = None


def _start_worker(state, parent) -> None:
    """A pool worker's start: the shared array, signals left to the main process, and an end
    when the main process dies (commands.lifeline: a killed run must not leave workers holding
    its output pipe)."""
    global _state, _view
    _state = state
    _view = ProjectView()
    _ignore_interrupts()
    end_with_parent(parent)


def _run_batch(func, batch: list) -> list:
    """Worker side of the pool: one batch of (index, item), so small files do not each cost a
    round trip; each file is marked with this worker's pid while it runs, -1 once done."""
    pid = os.getpid()
    results = []
    batch = list(zip([index for index, _ in batch], _in_view([item for _, item in batch], _view)))
    for index, item in batch:
        _state[index] = pid
        results.append(func(item))
        _state[index] = -1
    return results


def _no_progress(total: int):
    return contextlib.nullcontext(lambda: None)


def run_items(items: list, jobs: int = 0, func=check_file, progress: Callable | None = None) -> list:
    workers = worker_count(len(items), jobs)
    with (progress or _no_progress)(len(items)) as advance:
        if workers > 1 and func in (check_file, _check_item):
            if len(items) >= SCREEN_POOL_FILES:
                return _screen_in_pool(func, items, workers, advance)
            return _screen_first(items, workers, advance)
        results = _run_pool(func, items, workers, advance) if workers > 1 else None
        if results is None:
            results = []
            for item in items:
                results.append(func(item))
                advance()
    return results


def _screen_in_pool(func, items: list, workers: int, advance: Callable) -> list:
    """A big check (`SCREEN_POOL_FILES`): the pool reads and screens the files too. The main
    process first reads files until one opens the gate and loads the rules for it, so the
    workers, forked after, inherit LibCST and the rules instead of each importing them (0.2 s
    a worker); the files before it are finished here, by the gate. It reads at most
    `POOL_THRESHOLD` of them: where no gate opens that early (a tree of other code), the pool
    starts without the rules, and a worker that needs them loads them itself; a tree no rule
    can report on never loads them."""
    from mcp_migrate.api import with_rules

    results: list = []
    for item in items[:POOL_THRESHOLD]:
        decided = _decided_without_rules(item[0], item[1], _item_bytes(item))
        if decided is None:
            with_rules(item[1])
            break
        results.append(decided)
        advance()
    rest = items[len(results) :]
    done = _run_pool(func, rest, workers, advance) if len(rest) > POOL_THRESHOLD else None
    if done is None:
        return (results + _screen_first(rest, workers, advance)) if rest else results
    _SCREENED_WORKERS[0] = workers
    return results + done


#: How many processes the last screened check used (the `-v` line says so).
_SCREENED_WORKERS: list = [None]


def _screen_first(items: list, workers: int, advance: Callable) -> list:
    """A check that could use a pool, of fewer than `SCREEN_POOL_FILES` files (or what a big
    check's pool could not take): every file is read and screened here first (the gate, the
    byte and the syntax screens: core.engine.screens), and the files no rule can report on are
    finished here too. A pool starts only for what is left for LibCST, and only when that is
    enough work (`POOL_BYTES`) for the workers' start-up to pay; otherwise it runs here."""
    from mcp_migrate.api import with_rules
    from mcp_migrate.core.engine import screens

    results: list = [None] * len(items)
    left, size = [], 0
    for index, item in enumerate(items):
        source, settings = item[0], item[1]
        data = _item_bytes(item)
        decided = _decided_without_rules(source, settings, data)
        if decided is not None:
            results[index] = decided
            advance()
        elif not screens(data, source.display, with_rules(settings)).parses:
            # The screens need the rule classes (a run's Settings name them by code only until
            # a file opens a gate); the engine's own check then finds this screening done.
            results[index] = check_data((source, settings, data))  # no LibCST: decided by the screens
            advance()
        else:
            left.append((index, (source, settings, data)))
            size += len(data)
    workers = workers if len(left) >= 2 and size >= POOL_BYTES else 1
    _SCREENED_WORKERS[0] = workers
    done = _run_pool(check_data, [item for _, item in left], min(workers, len(left)), advance) if workers > 1 else None
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
    cannot be read (check_file's E902 / E997), or one the gate keeps out (its answer is the
    check's: the engine does not ask it again). None for a file that opens the gate."""
    from mcp_migrate.api import may_report
    from mcp_migrate.commands.analysis import unreported

    if data is None:
        return check_file((source, settings))
    return None if may_report(data, settings) else unreported(source.display, settings)


def unreadable_results(p: Plan) -> list:
    """E902 results for the folders discovery could not list."""
    out = []
    for display, message in p.unreadable:
        result = FileResult(display)
        result.findings.append(io_error(display, message))
        out.append(result)
    return out


def run_check(paths: Sequence[str], options: CheckOptions, progress: Callable | None = None) -> RunResult:
    """Check `paths`; prints nothing. Raises ConfigError for bad input."""
    p = plan(paths, options)
    warnings: list = list(p.warnings)
    counts: dict = {}

    def detail() -> str:
        n = len(p.items)
        workers = _SCREENED_WORKERS[0] or worker_count(n, options.jobs)
        how = [f"{counts['cached']} from the cache, {n - counts['cached']} analysed"] if "cached" in counts else []
        how.append(f"{workers} process{'es' if workers != 1 else ''}")
        return f"{n} file{'s' if n != 1 else ''} ({'; '.join(how)})"

    _SCREENED_WORKERS[0] = None
    with options.timer.phase("check", detail):
        if options.cache:
            results = _run_cached(p, options, progress, paths, warnings, counts) + unreadable_results(p)
        else:
            results = run_items(p.items, options.jobs, progress=progress) + unreadable_results(p)
    _adjusted(results, p.policies)
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
            return _run_cached(dataclasses.replace(p, items=items), options, None, paths, warnings)
        return run_items(items, options.jobs)

    return join_callers(coordinate_check(run, recheck))


def _run_cached(
    p: Plan, options: CheckOptions, progress: Callable | None, paths, warnings: list, counts: dict | None = None
) -> list:
    """Check the plan's files, reusing cached results for unchanged bytes; the rest run as
    usual (in the pool for big trees) and are stored. Results keep the plan's order; why the
    cache could not be used goes to `warnings`."""
    from mcp_migrate.project.cache import open_cache

    cache = open_cache(p.config, True, [path for path in paths if path != "-"])
    warnings.extend(cache.warnings)
    results: list = [None] * len(p.items)
    misses: list = []
    stats: dict = {}
    with (progress or _no_progress)(len(p.items)) as advance:
        for index, (source, settings) in enumerate(p.items):
            cached, data = _cached_result(cache, source, settings, stats, index)
            if cached is not None:
                results[index] = cached
                advance()
            elif data is None:
                misses.append((index, (source, settings)))  # check_file reports it (E902)
            else:
                misses.append((index, (source, settings, data)))
        work = [item for _, item in misses]
        if counts is not None:
            counts["cached"] = len(p.items) - len(misses)
        fresh = run_items(work, options.jobs, func=_check_item, progress=lambda total: contextlib.nullcontext(advance))
    for (index, item), result in zip(misses, fresh):
        results[index] = result
        if len(item) == 3:
            cache.put(item[0].display, item[2], item[1], result, stats.get(index))
    cache.save()
    return results


def _cached_result(cache, source, settings, stats: dict, index: int):
    """(cached FileResult or None, the bytes read or None). An unchanged stat answers without
    reading the file; otherwise the bytes are read and their digest decides. The stat taken
    before reading goes to `stats[index]`, to be recorded with a fresh result."""
    try:
        st = os.stat(source.path)
    except OSError:
        st = None
    if st is not None:
        stats[index] = st
        cached = cache.get_unchanged(source.display, st, settings)
        if cached is not None:
            return cached, None
    try:
        # never a FIFO, a device or a file over max-file-size (E902 / E997 from check_file)
        data = read_regular(source.path, max_size=settings.max_file_size)[0]
    except OSError:
        return None, None
    return cache.get(source.display, data, settings, st), data


def _check_item(item) -> FileResult:
    """Worker for a cached run: bytes already read, or a file that could not be read."""
    return check_data(item) if len(item) == 3 else check_file(item)


@dataclass
class FixOutcome:
    """One file of a fix run: its result (findings that remain, fixes applied, the new bytes)
    and the snapshot of what was read, so the writer can refuse to clobber concurrent edits."""

    source: object
    result: FileResult
    snapshot: object = None
    settings: object = None
    #: The file's FixPolicy (commands.applicability), for re-checking an unwritten file.
    policy: object = None


def fix_file(item) -> FixOutcome:
    """Worker: read one file and compute its fix. Never writes; never raises."""
    from mcp_migrate.commands import analysis
    from mcp_migrate.project.writer import snapshot

    source, settings, unsafe, policy = item
    try:
        snap = snapshot(source.path, settings.max_file_size)
    except TooLarge as exc:
        return FixOutcome(
            source, FileResult(source.display, findings=[_too_large(source.display, exc)]), settings=settings
        )
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return FixOutcome(source, result, settings=settings, policy=policy)
    try:
        result = analysis.fix(snap.data, source.display, settings, unsafe, policy)
    except Exception as exc:  # an engine bug must not lose the other files
        result = FileResult(source.display)
        result.errors.append(FileError(source.display, "internal", " ".join(f"{type(exc).__name__}: {exc}".split())))
        return FixOutcome(source, result, settings=settings, policy=policy)
    return FixOutcome(source, result, snap if result.fixed_source is not None else None, settings, policy)


def unsafe_fixes(config, unsafe: bool | None) -> bool:
    """`--unsafe-fixes/--no-unsafe-fixes` when given, else the config's `unsafe-fixes`."""
    return bool(unsafe if unsafe is not None else config.unsafe_fixes)


@dataclass
class FixRun:
    """What a fix run computed (nothing written yet): one FixOutcome per file, the E902 results
    of folders that could not be read, and the counts the summary needs."""

    outcomes: list = field(default_factory=list)
    files_checked: int = 0
    unreadable: list = field(default_factory=list)
    #: Explicitly named files that force-exclude skipped.
    skipped: int = 0
    #: run_policy(): unsafe_fixes, fail_on, docs_url.
    policy: dict = field(default_factory=dict)
    #: display path -> FilePolicy of the file's own config.
    policies: dict = field(default_factory=dict)
    #: One-line warnings about the run itself (an ignore file that cannot be read).
    warnings: list = field(default_factory=list)


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
        items.append((source, settings, unsafe_here, _fixes_of(policy)))
    n = len(items)
    with options.timer.phase("fix", lambda: f"{n} file{'s' if n != 1 else ''} (fixes computed, nothing written)"):
        items = _with_run_plan(items, options.jobs)
        outcomes = run_items(items, options.jobs, func=fix_file, progress=progress)
    policy = run_policy(p.config, options)
    if flag is not None:
        policy["unsafe_fixes"] = flag
        policies = {display: pol._replace(unsafe_fixes=flag) for display, pol in p.policies.items()}
    else:
        policies = p.policies
    return FixRun(outcomes, len(p.items), unreadable_results(p), p.skipped, policy, policies, list(p.warnings))


def _applies_rt001(unsafe: bool, fixes) -> bool:
    """Whether a file's fix run applies RT001's rewrite (an unsafe fix, unless the policy
    withholds it or makes it safe)."""
    kind = fixes.kind("RT001", "unsafe")
    return kind == "safe" or (kind == "unsafe" and unsafe)


def _with_run_plan(items: list, jobs: int) -> list:
    """Every file's settings with the run's plan (core.coordination.RunPlan: the tools that gain
    a directories parameter, whether a server still asks after this run), decided once from a
    check of every file before any is fixed, whatever the flags: plain `fix` and
    `fix --unsafe-fixes` see the same coordination, so the unsafe run only adds fixes. A server
    file whose RT001 rewrite this run does not apply (its config keeps unsafe fixes off, or
    RT001 unfixable) still asks for roots."""
    checks = run_items([(source, settings) for source, settings, _, _ in items], jobs)
    entries = [
        file_asks(result, _applies_rt001(unsafe, fixes), _applies_rt001(True, fixes))
        for (_source, _settings, unsafe, fixes), result in zip(items, checks)
    ]
    run_plan = plans(entries).fix
    if run_plan == RunPlan():
        return items
    return [
        (source, dataclasses.replace(settings, run=for_file(run_plan, unsafe)), unsafe, fixes)
        for source, settings, unsafe, fixes in items
    ]


def planned_settings(data: bytes, display: str, settings, unsafe: bool, fixes):
    """Standard input's settings with the plan of a run of that one file (`_with_run_plan`)."""
    from mcp_migrate.commands import analysis

    result = analysis.check(data, display, settings)
    run_plan = plans([file_asks(result, _applies_rt001(unsafe, fixes), _applies_rt001(True, fixes))]).fix
    return settings if run_plan == RunPlan() else dataclasses.replace(settings, run=for_file(run_plan, unsafe))


def coordinate_check(run: RunResult, recheck: Callable | None = None) -> RunResult:
    """A check's findings with the fix kinds the run's `fix` commands give them
    (core.coordination): a client-side fix that plain `fix` withholds while a server still asks
    is `unsafe` when `fix --unsafe-fixes` frees it, else `none`, its help saying why; so what
    `check` calls fixable is what each command changes. Where the plan of `fix --unsafe-fixes`
    changes a client's fix itself (a tool's call now passes the directories), the client's file
    is checked again under that plan: its findings and previews are that command's fixes."""
    entries = []
    for result in run.results:
        ref = run.files.get(result.path)
        if ref is None:
            continue
        fixes = _fixes_of(ref.policy)
        entries.append(
            file_asks(result, _applies_rt001(run.unsafe_fixes_for(result.path), fixes), _applies_rt001(True, fixes))
        )
    both = plans(entries)
    if both.unsafe.tools:
        _check_under(run, for_file(both.unsafe, True), recheck or run_items)
    run_plan = both.fix
    if not run_plan.server_still_asks:
        return run
    from mcp_migrate.api import client_side

    for result in run.results:
        ref = run.files.get(result.path)
        if ref is None:
            continue
        kept = client_side(ref.settings.select)  # no rule imported: a warm run may load none
        plan = for_file(run_plan, run.unsafe_fixes_for(result.path))

        def one(finding, kept=kept, plan=plan):
            if finding.code not in kept or finding.fix == "none":
                return finding
            kind, note = coordinated(finding.fix, plan)
            return dataclasses.replace(finding, fix=kind, help=with_note(finding.help, note))

        result.findings = [one(f) for f in result.findings]
    return run


def join_callers(run: RunResult) -> RunResult:
    """A helper's callers as related locations of the helper's finding (core.callers), once the
    run's plans have counted them (a caller's file still asks for roots while its helper does)."""
    from mcp_migrate.core import callers

    def real_path(result) -> str:
        ref = run.files.get(result.path)
        return os.path.abspath(ref.path if ref is not None and ref.path else result.path)

    callers.join(run.results, real_path)
    return run


def _check_under(run: RunResult, unsafe_plan: RunPlan, recheck: Callable) -> None:
    """Check again, with the plan of `fix --unsafe-fixes` (`unsafe_plan`), each file whose
    provider fix depends on it (core.coordination.TOOL_CALLER_CODE): that plan's migrated tools
    change the client's fix (its calls pass the directories instead of a review marker), so
    its findings' kinds and fix previews must come from that plan to be what
    `fix --unsafe-fixes` applies (issue 33 §3: the preview is the fix). `recheck` checks
    [(SourceFile or display path, Settings)] as the run did (its cache, its pool). The `fix`
    plan's kinds are then derived from these (coordinate_check)."""
    chosen = []
    for index, result in enumerate(run.results):
        ref = run.files.get(result.path)
        if ref is None or result.errors:
            continue
        if any(f.code == TOOL_CALLER_CODE and f.fix != "none" for f in result.findings):
            chosen.append((index, ref, dataclasses.replace(ref.settings, run=unsafe_plan)))
    if not chosen:
        return
    from mcp_migrate.project.discovery import SourceFile

    sources = [ref.path if ref.data is None else None for _, ref, _ in chosen]
    if all(path is not None for path in sources):
        items = [(SourceFile(ref.path, run.results[i].path), s) for i, ref, s in chosen]
        again = recheck(items)
    else:
        again = _recheck_here([(run.results[i].path, ref, s) for i, ref, s in chosen])
    for (index, ref, settings), result in zip(chosen, again):
        if result.errors:
            continue  # the first check's result stands
        run.results[index] = _adjusted([result], {result.path: ref.policy})[0]
        run.files[result.path] = ref._replace(settings=settings)  # what propose_fixes runs


def _recheck_here(items: list) -> list:
    """[(display, FileRef, Settings)] checked in this process (standard input's bytes)."""
    from mcp_migrate.project.discovery import SourceFile

    out = []
    for display, ref, settings in items:
        try:
            out.append(check_data((SourceFile(ref.path or display, display), settings, ref.read())))
        except OSError as exc:
            out.append(FileResult(display, errors=[FileError(display, "internal", str(exc))]))
    return out


@dataclass(frozen=True)
class StdinTarget:
    """`--stdin-filename PATH -`: the source comes from standard input but gets PATH's config,
    per-file ignores and force-exclude verdict. `settings` is None when PATH is excluded."""

    display: str
    settings: object
    config: object
    #: One-line warnings: config files below the current folder that cannot be read.
    warnings: tuple = ()


def stdin_target(filename: str | None, options: CheckOptions) -> StdinTarget:
    from mcp_migrate.project.discovery import force_excluded
    from mcp_migrate.project.paths import display_path

    config, selector, warnings = _configure([filename or "."], options)
    if filename and force_exclude(config, options) and force_excluded(filename, config):
        return StdinTarget(display_path(filename), None, config, tuple(warnings))
    settings = dataclasses.replace(
        selector.settings_for(filename or os.path.join(os.getcwd(), "-")), view=ProjectView()
    )
    return StdinTarget(display_path(filename) if filename else "-", settings, config, tuple(warnings))


def check_stdin(filename: str | None, options: CheckOptions, data: bytes) -> RunResult:
    """`check --stdin-filename PATH -`: check `data` as if it were PATH."""
    target = stdin_target(filename, options)
    policy = run_policy(target.config, options)
    warnings = list(target.warnings)
    if target.settings is None:
        return RunResult(skipped=1, warnings=warnings, **policy)
    from mcp_migrate.commands import analysis

    result = analysis.check(data, target.display, target.settings)
    own = file_policy(target.config, options)
    _adjusted([result], {target.display: own})
    files = {target.display: FileRef(None, target.settings, data, own)}
    return join_callers(
        coordinate_check(RunResult(results=[result], files_checked=1, files=files, warnings=warnings, **policy))
    )


class FixProposal(NamedTuple):
    """One rule's fixes in one file, computed but not written: the bytes before and after."""

    old: bytes
    new: bytes


def propose_fixes(run: RunResult) -> RunResult:
    """Fill `run.fixes` with each fixable finding's rule fix, for SARIF and the full text
    format, so reporters show fixes without running the fixer themselves. A check run with
    `previews` already computed them from its own parse (FileResult.fix_previews, cached with
    the findings); otherwise one fixer run per (file, rule, safety) computes them here."""
    previews = {r.path: r.fix_previews for r in run.results if r.fix_previews}
    for finding in run.findings:
        if finding.fix == "none":
            continue
        key = (finding.path, finding.code, finding.fix != "safe")
        if key not in run.fixes:
            ref = run.files.get(finding.path)
            known = previews.get(finding.path)
            if _fixes_of(getattr(ref, "policy", None)).adjusted(finding.code):
                # The config made this rule's fixes all one kind: its preview is all of them.
                run.fixes[key] = _propose(ref, finding.path, finding.code, True)
            elif known is not None:
                # A safe fix the run plan leaves to `--unsafe-fixes` (core.coordination) was
                # previewed with the safe ones.
                new = known.get(key[1:]) or (known.get((finding.code, False)) if finding.fix == "unsafe" else None)
                run.fixes[key] = _from_preview(ref, new)
            else:
                run.fixes[key] = _propose(ref, *key, display=finding.fix == "display")
    run.fixes = {key: proposal for key, proposal in run.fixes.items() if proposal is not None}
    return run


def _from_preview(ref: FileRef | None, new: bytes | None) -> FixProposal | None:
    if ref is None or new is None:
        return None
    try:
        return FixProposal(ref.read(), new)
    except OSError:
        return None


def _propose(ref: FileRef | None, path: str, code: str, unsafe: bool, display: bool = False) -> FixProposal | None:
    from mcp_migrate.commands import analysis

    if ref is None:
        return None
    try:
        data = ref.read()
    except OSError:
        return None
    settings = dataclasses.replace(
        ref.settings,
        select=frozenset({code}),
        extend_apis=tuple(api for api in ref.settings.extend_apis if api[0] == code),
    )
    if display:  # never applied by fix: the preview pass shows it
        from mcp_migrate import api

        new = api.rule_previews(data, path, settings).get((code, True))
        return FixProposal(data, new) if new is not None else None
    result = analysis.fix(data, path, settings, unsafe)
    if result.fixed_source is None or result.errors:
        return None
    return FixProposal(data, result.fixed_source)
