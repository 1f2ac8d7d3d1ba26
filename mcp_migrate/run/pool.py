"""Worker processes for a run's files, and crash isolation: a pool whose dead worker loses no
file (the files it held run again, and one that was in a dying worker twice runs in a process of
its own, reported as E998 when that dies too), Ctrl-C and SIGTERM that end the workers at once,
and workers that end with the main process (run.lifeline). `func` is one file's work
(run.one_file): it never raises, so a broken pool means a dead process.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from mcp_migrate.core.codes import PARSER_LIMIT_CODE
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.messages import Message
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.run.lifeline import end_with_parent, parent_for_workers
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
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    global _parent_view
    kept = _take_kept(len(items))
    workers = kept.workers if kept is not None else workers
    batches = batched(pending, workers, alone)
    broken, processes = False, None
    _parent_view = _item_view(items[pending[0]]) if pending else None
    try:
        if kept is not None:
            state, pool = kept.state, kept.executor
        else:
            state = multiprocessing.RawArray("q", len(items))  # 0: not started, pid: running, -1: done
            parent = parent_for_workers(multiprocessing.get_start_method())
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(state, parent))
        with _ended_unless_kept(pool, state, workers, lambda: not broken):
            held = _hold_termination()  # the workers are forked as the batches are submitted
            try:
                futures = {
                    pool.submit(_run_batch, func, [(index, items[index]) for index in batch]): batch
                    for batch in batches
                }
            finally:
                _release_termination(held)
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
    finally:
        _parent_view = None  # the run's view lives no longer than the run
    if not broken:
        return []
    running = [index for index in pending if results[index] is None and state[index] > 0]
    dead = {pid for pid, process in dict(processes or {}).items() if process.exitcode not in (0, None, -signal.SIGTERM)}
    return [index for index in running if state[index] in dead] or running


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
    _ignore_interrupts()
    if hasattr(signal, "pthread_sigmask"):  # forked with them blocked (_hold_termination)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINATION)
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


class _Kept(NamedTuple):
    """A pool the run keeps for its checks again (`kept_pool`): the executor, the shared array
    its workers mark their files in, and how many workers it has."""

    executor: Any
    state: Any
    workers: int


#: [whether the run keeps its last pool, the pool kept or None] (`kept_pool`).
_KEEP: list = [False, None]


@contextlib.contextmanager
def kept_pool() -> Iterator[None]:
    """While the block runs, the last pool a check starts is kept alive, not ended with its
    round: the run's checks again under its plan (run.coordination) go to its workers, which
    hold LibCST, the rules and what their project views have worked out, where this process,
    alone and after the pool, would read the project's helper modules afresh (issue 37:
    context-forge's four test modules checked again cost it 7.4 s of CPU; the run's wall time
    went from 23.5 to 18.9 s). Ended with the block; at once where the block raises (Ctrl-C)."""
    _KEEP[0], _KEEP[1] = True, None
    raised = True
    try:
        yield
        raised = False
    finally:
        kept, _KEEP[0], _KEEP[1] = _KEEP[1], False, None
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
def _ended_unless_kept(pool, state, workers: int, whole: Callable[[], bool]) -> Iterator[None]:
    """The pool's end after its round, as `with ProcessPoolExecutor(...)` ends it, unless the
    run keeps its pool (`kept_pool`) and the round ended `whole` (no worker died, nothing
    raised): then it waits for the run's checks again."""
    keep = False
    try:
        yield
        keep = _KEEP[0] and whole()
    finally:
        if keep:
            _KEEP[1] = _Kept(pool, state, workers)
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


def _ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the main process, which stops the run (exit 130); a
    worker that took the signal itself would print a traceback and break the pool. SIGTERM
    and SIGHUP end a worker quietly (the main process's handlers, inherited by a fork, would
    raise in it), which is how the main process stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


#: The signals that end a run: blocked while the pool forks its workers, unblocked by each
#: worker once its own handlers are set (`_start_worker`).
_TERMINATION = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _hold_termination():
    """Block the run's ending signals while workers are forked; the mask to restore, or None
    where the platform has no signal masks. A worker forked with the main process's handlers
    would run them if a signal came before its start replaced them: a traceback from a worker
    bootstrapping when SIGTERM ended the run. Held here, the signal waits: the main process
    gets it on release, a worker once its own handlers are set."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINATION)


def _release_termination(previous) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


#: In a pool worker: the run's shared array, where the worker marks the file it works on; and
#: the worker's project view for the run (a view crosses the pipe empty: core.project_view).
_state = None
_view = None
#: The main process's view of the run, set while a pool forks its workers: a forked worker
#: starts from a copy of it (copy-on-write), so what the main process has already worked out
#: about the project (the import graph, the helper modules' effects, the typed doers) is not
#: worked out again in every worker (issue 37: fast-agent's workers each walked its whole import
#: graph again). A worker started another way (spawn, forkserver) imports this module afresh
#: and starts from an empty view.
_parent_view = None


def _start_worker(state, parent) -> None:
    """A pool worker's start: the shared array, signals left to the main process, and an end
    when the main process dies (run.lifeline: a killed run must not leave workers holding
    its output pipe)."""
    global _state, _view
    _state = state
    _view = _parent_view if _parent_view is not None else ProjectView()
    _ignore_interrupts()
    if hasattr(signal, "pthread_sigmask"):  # forked with them blocked (_hold_termination)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINATION)
    end_with_parent(parent)


def _crossed_view(batch: list):
    """The view (empty: it crossed the pipe) the batch's first item's Settings carry, if any."""
    return _item_view(batch[0][1]) if batch else None


def _item_view(item):
    """The view an item's Settings (its second member) carry, if any."""
    settings = item[1] if isinstance(item, tuple) and len(item) > 1 else None
    return getattr(settings, "view", None)


def _run_batch(func, batch: list) -> list:
    """Worker side of the pool: one batch of (index, item), so small files do not each cost a
    round trip; each file is marked with this worker's pid while it runs, -1 once done."""
    global _view
    pid = os.getpid()
    results = []
    crossed = _crossed_view(batch)
    if crossed is not None:
        if _view is None or crossed.stamps != _view.stamps:  # this run's kind of view
            _view = ProjectView(stamps=crossed.stamps)
        _view.take_handed(crossed)  # what another worker worked out for these checks again
    batch = list(zip([index for index, _ in batch], in_view([item for _, item in batch], _view)))
    for index, item in batch:
        _state[index] = pid
        results.append(func(item))
        _state[index] = -1
    return results
