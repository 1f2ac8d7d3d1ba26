"""The process around one command: the console script's and `python -m mcp_migrate`'s entry.

When a command is done, nothing is left to do but exit, and the interpreter's own shutdown
is not free: it collects and frees every object still alive (LibCST's and our modules, the
caches, the last file's trees) one by one. That was 0.08-0.14 s of CPU on a 200-600 file
repository (a sixth of the run) and about 2 s after one 1.26 MB module. So the process ends
the way mypy's does (`hard_exit`): the exit functions run, both output streams are flushed,
and `os._exit` ends it with the command's status. Where that could lose anything (a stream
that cannot be flushed, a child process or a thread still running) it exits the usual way.

The process also asks the cyclic garbage collector to look less often, as mypy does: a run
allocates millions of objects that reference counting frees, and the collector's scans of them
found little (2.1-2.3% of the instructions of a check of xiaozhi-esp32-server or Dev10x-Claude).

`commands.cli.main` stays an ordinary function that raises SystemExit, for callers that go on
after it, and leaves the collector as it is.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import NoReturn

#: The collector's thresholds for the process (Python's are 700, 10, 10): mypy's.
COLLECTOR_THRESHOLDS = (200_000, 30, 30)


def run() -> NoReturn:
    """Run the command line, then end the process (see the module's docstring)."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    from mcp_migrate.commands.cli import main

    try:
        main()
    except SystemExit as exc:
        end(exc.code)
    end(0)


def end(code) -> NoReturn:
    """Exit with `code` as `sys.exit(code)` does (None is 0; text is printed and gives 1),
    without the interpreter's teardown when nothing can be lost by skipping it."""
    if _still_running():
        sys.exit(code)
    status = _status(code)
    atexit._run_exitfuncs()  # what the interpreter runs first on its way out (our temp-file sweep)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed or broken stream: the interpreter says what it says
        sys.exit(code)
    os._exit(status)


def _status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code % 256  # the status a parent sees, as for any exit
    print(code, file=sys.stderr)  # what the interpreter does with `sys.exit("message")`
    return 1


def _still_running() -> bool:
    """A child process or a non-daemon thread the interpreter's shutdown would wait for."""
    threading = sys.modules.get("threading")
    if threading is not None:
        main = threading.main_thread()
        if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
            return True
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is not None and bool(multiprocessing.active_children())
