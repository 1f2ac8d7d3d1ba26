"""Worker processes for a run's files, and crash isolation: a pool whose dead worker loses no
file (the files it held run again, and one that was in a dying worker twice runs in a process of
its own, reported as E998 when that dies too), Ctrl-C and SIGTERM that end the workers at once,
and workers that end with the main process (run.lifeline). `func` is one file's work
(run.one_file): it never raises, so a broken pool means a dead process. A pool the run keeps
for its checks again sends each file to the worker that checked it first (`_run_claims`). A
worker that has not loaded LibCST hands the files left to it to the worker that has, which takes
them between its own files, or at the round's end (run.parser_handover).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from mcp_migrate.core.codes import PARSER_LIMIT_CODE
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.messages import Message
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.run import parser_handover
from mcp_migrate.run.lifeline import (
    end_with_parent,
    hold_termination,
    parent_for_workers,
    release_termination,
    worker_signals,
)
from mcp_migrate.run.one_file import fix_file, in_view
from mcp_migrate.run.records import FixOutcome

#: Pools a run may start before the files still unfinished run one process each: a file
#: that kills its worker twice is isolated, so each pool after the first isolates one at least.
MAX_POOLS = 6


def run_pool(func, items: list, workers: int, advance: Callable, alone: int = 0) -> list | None:
    """Results in order, or None when a pool cannot run here (then the caller runs in-process).
    The first `alone` items go in batches of their own, before the others: files the caller
    knows LibCST will parse, which cost as much as a whole batch of screened files (issue 37:
    agent-framework's one such file, first in a batch of 64 files its import followers read,
    kept one worker busy 0.35 s after the other had finished).
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
            killers = _pool_round(func, items, pending, workers, advance, results, alone)
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


def _pool_round(
    func, items: list, pending: list, workers: int, advance: Callable, results: list, alone: int = 0
) -> list:
    """Run the `pending` items in one pool, filling `results` (items before `alone` in batches
    of their own, first); the indices of the files that
    were in a worker as it died (empty when none died). Each worker marks the file it works
    on in a shared array with its pid, so a dead worker names its file: the pool ends the other
    workers with SIGTERM, and their files are not suspects (when the dead worker cannot be told
    apart, every file in progress is)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from mcp_migrate.run.board import Board

    global _parent_view
    kept = _take_kept(len(items))
    workers = kept.workers if kept is not None else workers
    broken, processes = False, None
    _parent_view = _item_view(items[pending[0]]) if pending else None
    if _parent_view is not None and kept is None:  # forked workers would each hold its `ast` readings
        _parent_view.drop_readings()
    try:
        if kept is not None:
            state, pool, shared = kept.state, kept.executor, kept.shared
        else:
            state = multiprocessing.RawArray("q", len(items))  # 0: not started, pid: running, -pid: done
            lock = multiprocessing.Lock()
            shared = _Shared(lock, multiprocessing.Barrier(workers), Board(lock, workers))
            parent = parent_for_workers(multiprocessing.get_start_method())
            initargs = (state, parent, shared)
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=initargs)
        with _ended_unless_kept(pool, state, workers, shared, lambda: not broken):
            owners = _owners(items, pending, pool) if kept is not None else None
            tasks: list
            if owners:  # checks again: each file to the worker that checked it (`_run_claims`)
                shared.barrier.reset()
                tasks = [(_run_claims, [(index, items[index], owners[index]) for index in pending])] * workers
            else:
                tasks = [
                    (_run_batch, [(index, items[index]) for index in batch])
                    for batch in batched(pending, workers, alone)
                ]
            broken, processes = _run_tasks(pool, func, tasks, results, advance)
            left = [index for index in pending if results[index] is None]
            if left and not owners and not broken:  # handed over after the LibCST worker's last batch
                holder = shared.board.parser_worker() if shared.board is not None else 0
                shared.barrier.reset()
                tasks = [(_run_claims, [(index, items[index], holder) for index in left])] * workers
                broken, processes = _run_tasks(pool, func, tasks, results, advance)
                left = [index for index in pending if results[index] is None]
            if left and not broken:  # a worker that came late to a round of claims leaves its files over
                tasks = [
                    (_run_unhanded, [(index, items[index]) for index in batch]) for batch in batched(left, workers)
                ]
                broken, processes = _run_tasks(pool, func, tasks, results, advance)
            if not broken and _KEEP[0]:
                _note_owners(items, pending, state)
    except BrokenProcessPool:
        broken = True
    except (OSError, RuntimeError, ImportError) as exc:
        # RuntimeError covers a platform without process pools; workers themselves never
        # raise (check_file/fix_file turn every problem into a result).
        raise _NoPool() from exc
    finally:
        _parent_view = None  # the run's view lives no longer than the run
    if not broken:
        return []
    running = [index for index in pending if results[index] is None and state[index] > 0]
    dead = {pid for pid, process in dict(processes or {}).items() if process.exitcode not in (0, None, -signal.SIGTERM)}
    return [index for index in running if state[index] in dead] or running


def _run_tasks(pool, func, tasks: list, results: list, advance: Callable) -> tuple:
    """Submit `tasks` ((worker function, its entries) each) to `pool` and put each (index,
    result) a task returns in `results`, advancing as each task finishes, whichever first;
    (whether the pool broke, the pool's own dict of its workers)."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    held = hold_termination()  # the workers are forked as the batches are submitted
    try:
        futures = [pool.submit(worker, func, entries) for worker, entries in tasks]
    finally:
        release_termination(held)
    processes = getattr(pool, "_processes", None)
    broken = False
    try:
        for future in as_completed(futures):
            try:
                done = future.result()
            except BrokenProcessPool:
                broken = True
                continue  # these files run again in the next pool
            for index, result in done:
                results[index] = result
                advance()
    except KeyboardInterrupt:
        _stop_now(pool)
        raise
    return broken, processes


def _owners(items: list, pending: list, pool) -> dict:
    """index -> the pid of the worker of `pool` that checked the file in an earlier round of
    the run (`_CHECKED_BY`), 0 for a file none of them checked; {} where no file has one."""
    workers = set(getattr(pool, "_processes", None) or ())
    owners = {index: _CHECKED_BY.get(_item_path(items[index]), 0) for index in pending}
    owners = {index: pid if pid in workers else 0 for index, pid in owners.items()}
    return owners if any(owners.values()) else {}


def _note_owners(items: list, pending: list, state) -> None:
    """Remember which worker checked each file of a round (its mark, -pid once done)."""
    for index in pending:
        if state[index] < 0:
            _CHECKED_BY[_item_path(items[index])] = -state[index]


def _item_path(item) -> str | None:
    return getattr(item[0], "path", None) if isinstance(item, tuple) and item else None


def batched(pending: list, workers: int, alone: int = 0) -> list:
    """The batches `pending` (indices of items) is sent to the workers in: each index under
    `alone` in one of its own, first; the others in order, in batches of up to 64, at least
    four per worker, so small files do not each cost a round trip."""
    batches = [[index] for index in pending if index < alone]
    rest = [index for index in pending if index >= alone]
    chunk = max(1, min(64, len(rest) // (workers * 4)))
    return batches + [rest[i : i + chunk] for i in range(0, len(rest), chunk)]


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
    worker_signals()
    end_with_parent(parent)
    send.send(func(item))
    send.close()


def _crashed(func, item, exitcode: int | None):
    """The result of a file whose process died: E998 naming the signal (or exit status)."""
    from mcp_migrate.core.engine import file_finding

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


class _Shared(NamedTuple):
    """What a pool's workers share besides the array they mark their files in: the lock a
    worker takes to claim a file, the barrier every worker of a round of claims passes
    before it claims one (`_run_claims`), and the board of the answers they work out
    (run.board)."""

    lock: Any
    barrier: Any
    board: Any = None


class _Kept(NamedTuple):
    """A pool the run keeps for its checks again (`kept_pool`): the executor, the shared array
    its workers mark their files in, how many workers it has, and its lock and barrier."""

    executor: Any
    state: Any
    workers: int
    shared: Any


#: [whether the run keeps its last pool, the pool kept or None] (`kept_pool`).
_KEEP: list = [False, None]
#: While the run keeps its pool: the pid of the worker that checked each file, by path: its
#: check again goes there (`_run_claims`).
_CHECKED_BY: dict = {}


@contextlib.contextmanager
def kept_pool() -> Iterator[None]:
    """While the block runs, the last pool a check starts is kept alive, not ended with its
    round: the run's checks again under its plan (run.coordination) go to its workers, which
    hold LibCST, the rules and what their project views have worked out, where this process,
    alone and after the pool, would read the project's helper modules afresh (issue 37:
    context-forge's four test modules checked again cost it 7.4 s of CPU; the run's wall time
    went from 23.5 to 18.9 s). Ended with the block; at once where the block raises (Ctrl-C)."""
    _KEEP[0], _KEEP[1] = True, None
    _CHECKED_BY.clear()
    raised = True
    try:
        yield
        raised = False
    finally:
        kept, _KEEP[0], _KEEP[1] = _KEEP[1], False, None
        _CHECKED_BY.clear()
        if kept is not None:
            if raised:
                _stop_now(kept.executor)
            kept.executor.shutdown(wait=True)


def kept_workers() -> int:
    """How many workers the pool the run keeps has (0: it keeps none)."""
    return _KEEP[1].workers if _KEEP[1] is not None else 0


def _take_kept(n_items: int) -> _Kept | None:
    """The pool the run keeps, for a round of `n_items` files (its array marks that many: the
    files of a check again are a few of the first check's), its marks cleared; None (and the
    pool ended) where there is none or it is too small."""
    kept, _KEEP[1] = _KEEP[1], None
    if kept is None:
        return None
    if n_items > len(kept.state):
        kept.executor.shutdown(wait=True)
        return None
    for index in range(n_items):
        kept.state[index] = 0
    return kept


@contextlib.contextmanager
def _ended_unless_kept(pool, state, workers: int, shared, whole: Callable[[], bool]) -> Iterator[None]:
    """The pool's end after its round, as `with ProcessPoolExecutor(...)` ends it, unless the
    run keeps its pool (`kept_pool`) and the round ended `whole` (no worker died, nothing
    raised): then it waits for the run's checks again."""
    keep = False
    try:
        yield
        keep = _KEEP[0] and whole()
    finally:
        if keep:
            _KEEP[1] = _Kept(pool, state, workers, shared)
        else:
            pool.shutdown(wait=True)


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


#: In a pool worker: the run's shared array, where the worker marks the file it works on; and
#: the worker's project view for the run (a view crosses the pipe empty: core.project_view).
_state = None
_view = None
_shared = None
#: the worker's side of its pool's board (run.board), which its view reads and posts to.
_exchange = None
#: The main process's view of the run, set while a pool forks its workers: a forked worker
#: starts from a copy of it (copy-on-write), so what the main process has already worked out
#: about the project (the import graph, the helper modules' effects, the typed doers) is not
#: worked out again in every worker (issue 37: fast-agent's workers each walked its whole import
#: graph again). A worker started another way (spawn, forkserver) imports this module afresh
#: and starts from an empty view.
_parent_view = None


def _start_worker(state, parent, shared=None) -> None:
    """A pool worker's start: the shared array (and lock and barrier), signals left to the
    main process, and an end when the main process dies (run.lifeline: a killed run must not
    leave workers holding its output pipe)."""
    global _state, _view, _shared, _exchange
    _state, _shared = state, shared
    _view = _parent_view if _parent_view is not None else ProjectView()
    _exchange = shared.board.for_worker() if shared is not None and shared.board is not None else None
    _view.exchange = _exchange
    worker_signals()
    end_with_parent(parent)


def _crossed_view(batch: list):
    """The view (empty: it crossed the pipe) the batch's first item's Settings carry, if any."""
    return _item_view(batch[0][1]) if batch else None


def _item_view(item):
    """The view an item's Settings (its second member) carry, if any."""
    settings = item[1] if isinstance(item, tuple) and len(item) > 1 else None
    return getattr(settings, "view", None)


def _run_batch(func, batch: list, hand: bool = True) -> list:
    """Worker side of the pool: one batch of (index, item), so small files do not each cost a
    round trip; each file is marked with this worker's pid while it runs, -pid once done.
    Returns (index, result) pairs. With `hand`, a worker that has not loaded LibCST hands the
    files its screens leave to it to the worker that has (run.parser_handover), which takes them
    between its own files (and their results are in its batch's)."""
    state, pid = _state, os.getpid()
    assert state is not None  # set by the worker's start
    results = []
    exchange = _exchange if hand else None
    with parser_handover.asking(exchange.hands_over if exchange is not None else None):
        for (index, item), (_, crossed) in zip(_in_worker_view(batch), batch):
            state[index] = pid
            result = func(item)
            if result is parser_handover.HANDED:
                state[index] = 0  # claimed under the lock by the worker that takes it
                if exchange is not None and exchange.hand(index, crossed):
                    continue
                state[index] = pid
                with parser_handover.asking(None):
                    result = func(item)
            results.append((index, result))
            state[index] = -pid
            if exchange is not None:
                results.extend(_run_handed(func, exchange, pid))
    return results


def _run_unhanded(func, batch: list) -> list:
    """`_run_batch` handing nothing over: the files left over at a round's end."""
    return _run_batch(func, batch, hand=False)


def _run_handed(func, exchange, pid: int) -> list:
    """The files the other workers have handed to this one (only the worker that holds LibCST
    takes them: run.parser_handover), each claimed under the lock; (index, result) pairs."""
    shared, state = _shared, _state
    assert shared is not None and state is not None  # set by the worker's start
    results = []
    for index, crossed in exchange.handed_files():
        with shared.lock:
            if state[index] != 0:
                continue
            state[index] = pid
        for _, item in _in_worker_view([(index, crossed)]):
            results.append((index, func(item)))
        state[index] = -pid
    return results


#: How long a worker of a round of claims waits for the others to come (they are idle in the
#: kept pool: milliseconds); past it, it claims alone, and what is left over runs after.
BARRIER_SECONDS = 5


def _run_claims(func, entries: list) -> list:
    """Worker side of a round of checks again in the kept pool: (index, item, owner) entries,
    the owner the pid of the worker that checked the file first (0: none of this pool). Every
    worker takes one such task at once (the barrier) and runs its own files, whose trees and
    helper modules' answers its view holds (core.project_view.keep_parsed: a check again in
    another worker parsed them again; issue 37: context-forge's four test modules with -j), and
    the files no worker owns, each claimed under the lock. Returns (index, result) pairs."""
    shared, state = _shared, _state
    assert shared is not None and state is not None  # set by the worker's start
    try:
        shared.barrier.wait(BARRIER_SECONDS)
    except threading.BrokenBarrierError:
        pass  # a worker slow to come: the files it owns are left over, and run after (`_pool_round`)
    pid = os.getpid()
    results = []
    for index, item in _in_worker_view([(index, item) for index, item, owner in entries if owner in (pid, 0)]):
        with shared.lock:
            if state[index] != 0:
                continue
            state[index] = pid
        results.append((index, func(item)))
        state[index] = -pid
    return results


def _in_worker_view(batch: list) -> list:
    """The (index, item) pairs of a batch with their settings in this worker's view (handed
    what another worker worked out for these checks again, when the items carry it)."""
    global _view
    crossed = _crossed_view(batch)
    if crossed is not None:
        if _view is None or crossed.stamps != _view.stamps:  # this run's kind of view
            _view = ProjectView(stamps=crossed.stamps)
            _view.exchange = _exchange
        _view.take_handed(crossed)  # what another worker worked out for these checks again
    return list(zip([index for index, _ in batch], in_view([item for _, item in batch], _view)))
