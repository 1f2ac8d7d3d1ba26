"""A worker process ends when the process that started it dies, and only as the run ends it
(its signals: `worker_signals`).

The pool's workers (and a file's isolated process) are forked with the main process's
standard output and error. When the main process is killed outright (`kill -9`, the kernel's
out-of-memory killer), nothing tells them: they wait on the pool's queue for ever, and they
still hold the write end of the pipe the main process wrote to, so `mcp-migrate check | tee
log` never saw the end of its input and the CI step hung until its timeout. A worker has
nothing to finish for a dead main process (it never writes a file: the main process does),
so it ends too:

- on Linux the kernel kills it the moment its parent dies (`prctl(PR_SET_PDEATHSIG,
  SIGKILL)`), even while it is deep in the parser;
- everywhere, a daemon thread notices the parent is gone (`os.getppid()` changes when the
  orphan is adopted) within `POLL_SECONDS` and ends the process.

The parent may die before either is set up: the worker compares its parent with the pid the
main process gave it (`expected`) once both are in place.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

#: How often the watching thread asks whether the parent is still there.
POLL_SECONDS = 0.5
#: The status of a worker that ended because its parent was gone (nobody is left to read it).
ORPHANED = 70
#: prctl's option to get a signal when the parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


#: The signals that end a run: blocked while the pool forks its workers, unblocked by each
#: worker once its own handlers are set (`worker_signals`).
TERMINATION = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def worker_signals() -> None:
    """A worker's signals, set first thing in it. Workers leave Ctrl-C to the main process,
    which stops the run (exit 130); a worker that took the signal itself would print a
    traceback and break the pool. SIGTERM and SIGHUP end a worker quietly (the main process's
    handlers, inherited by a fork, would raise in it), which is how the main process stops
    them. Then the ending signals, blocked while it was forked (`hold_termination`), reach it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, TERMINATION)


def hold_termination():
    """Block the run's ending signals while workers are forked; the mask to restore, or None
    where the platform has no signal masks. A worker forked with the main process's handlers
    would run them if a signal came before its start replaced them: a traceback from a worker
    bootstrapping when SIGTERM ended the run. Held here, the signal waits: the main process
    gets it on release, a worker once its own handlers are set."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, TERMINATION)


def release_termination(previous) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def parent_for_workers(start_method: str) -> int | None:
    """The pid a worker started with `start_method` should see as its parent: this process,
    except under `forkserver`, where the server is the parent (and ends with this process)."""
    return None if start_method == "forkserver" else os.getpid()


def end_with_parent(expected: int | None = None) -> None:
    """Called first thing in a worker: end this process when its parent dies. `expected` is the
    parent it should have (None: whichever it has now)."""
    parent = os.getppid() if expected is None else expected
    _ask_the_kernel()
    if os.getppid() != parent:  # the parent died before the worker got here
        os._exit(ORPHANED)
    threading.Thread(target=_watch, args=(parent,), name="mcp-migrate-lifeline", daemon=True).start()


def _ask_the_kernel() -> bool:
    """PR_SET_PDEATHSIG on Linux: SIGKILL when the parent dies. False where it is not there."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError, ImportError):  # no libc to load, no prctl in it
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(ORPHANED)
