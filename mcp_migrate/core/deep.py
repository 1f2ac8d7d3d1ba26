"""Run the work on one file where deep syntax cannot crash or stop it: a thread with a large
stack and a high recursion limit.

LibCST's parser is native code that recurses once per nesting level, and its visitors,
code generation and our rewrites recurse in Python: a 400-branch `elif` chain or 500 lines of
implicit string concatenation exceed Python's default limit of 1,000 frames, and raising the
limit on an ordinary 8 MB stack only trades a RecursionError for a segmentation fault. On a
512 MB stack (reserved, not used: the memory is touched only as deep as the work goes) the
limit can safely be 100,000. One such thread per process serves every call, so the cost is
a queue hand-off (tens of microseconds), not a thread start per file.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable

#: The worker thread's stack, and the recursion limit while it works.
STACK_SIZE = 512 * 1024 * 1024
RECURSION_LIMIT = 100_000


class _Worker:
    """The process's deep-stack thread (a forked child makes its own: threads do not fork)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        previous = threading.stack_size(STACK_SIZE)
        try:
            self.thread = threading.Thread(target=self._serve, name="mcp-migrate-deep", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            func, args, box, done = self.jobs.get()
            try:
                box.append((True, _with_limit(func, args)))
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller, raised there
                box.append((False, exc))
            done.set()

    def call(self, func: Callable, args: tuple):
        box: list = []
        done = threading.Event()
        self.jobs.put((func, args, box, done))
        done.wait()
        ok, value = box[0]
        if ok:
            return value
        raise value


def _with_limit(func: Callable, args: tuple):
    limit = sys.getrecursionlimit()
    if limit >= RECURSION_LIMIT:
        return func(*args)
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        return func(*args)
    finally:
        sys.setrecursionlimit(limit)


_WORKER: _Worker | None = None
_LOCK = threading.Lock()


def _worker() -> _Worker | None:
    global _WORKER
    worker = _WORKER
    if worker is not None and worker.pid == os.getpid():
        return worker
    with _LOCK:
        if _WORKER is None or _WORKER.pid != os.getpid():
            try:
                _WORKER = _Worker()
            except (RuntimeError, ValueError, MemoryError):  # no threads, or no stack this size
                return None
        return _WORKER


def call_deep(func: Callable, *args):
    """`func(*args)` on the deep-stack thread (directly when already there, or when this
    platform cannot start it); its exception, if any, is raised here."""
    worker = _worker()
    if worker is None or threading.current_thread() is worker.thread:
        return func(*args)
    return worker.call(func, args)
