#!/usr/bin/env python3
"""Where one `check` spends its CPU, phase by phase: the first check of every file against the
checks the run's coordination makes again under its plan (run.coordination).

    PYTHONPATH=SNAPSHOT python benchmarks/phases.py [CHECK OPTIONS] PATH ...
    PYTHONPATH=SNAPSHOT python benchmarks/phases.py --no-cache -j 1 ../corpus/IBM+mcp-context-forge

Runs `check` in this process (its report thrown away), on the deep-stack thread's terms but in one
thread (so every phase is counted where it runs), and prints per stage (`first`, `again`) each
timed function's summed CPU and calls: the screens, LibCST's parse, the rules' walk, the fix
decisions, the positions, the previews, the nesting guard and the suppression comments; then
the whole run and the checks again as a whole. Give `-j 1`: a pool's workers are not counted.
The figures are CPU seconds from `time.process_time`, summed over nested calls only once per
function (a phase inside another is counted in both). It reports; it does not assert.
"""

from __future__ import annotations

import collections
import contextlib
import io
import sys
import threading
import time

#: (module, function name) of each phase, imported when the run starts.
PHASES = (
    ("mcp_migrate.core.screening", "_screens"),
    ("libcst", "parse_module"),
    ("mcp_migrate.core.engine", "run_rules"),
    ("mcp_migrate.core.engine", "_decide_fixes"),
    ("mcp_migrate.core.engine", "_position"),
    ("mcp_migrate.run.analysis", "_with_previews"),
    ("mcp_migrate.core.engine", "nesting_problem"),
)

SPENT: collections.defaultdict = collections.defaultdict(float)
CALLS: collections.Counter = collections.Counter()
STAGE = ["first"]


def _timed(owner, name: str) -> None:
    real = getattr(owner, name)

    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            SPENT[(STAGE[0], name)] += time.process_time() - started
            CALLS[(STAGE[0], name)] += 1

    setattr(owner, name, timed)


def main(argv: list) -> None:
    import importlib

    import mcp_migrate.core.deep as deep
    from mcp_migrate.core import suppress
    from mcp_migrate.run import coordination, runner

    deep._worker = lambda: None  # every phase in this thread, whose stack and limit are the deep one's
    for module, name in PHASES:
        _timed(importlib.import_module(module), name)
    _timed(suppress.SuppressionIndex, "from_text")
    coordinate = coordination.coordinate_check

    def again(*args, **kwargs):
        STAGE[0] = "again"
        started = time.process_time()
        try:
            return coordinate(*args, **kwargs)
        finally:
            SPENT[("again", "(all)")] += time.process_time() - started

    runner.coordinate_check = again
    from mcp_migrate.commands.cli import main as cli

    started = time.process_time()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the report itself is not the point
            cli(["check", *argv])
    except SystemExit:
        pass
    SPENT[("run", "(all)")] = time.process_time() - started
    for (stage, name), seconds in sorted(SPENT.items()):
        calls = CALLS.get((stage, name))
        print(f"{stage:6} {name:16} {seconds:8.2f} s" + (f"  {calls} calls" if calls else ""))


if __name__ == "__main__":
    from mcp_migrate.core.deep import RECURSION_LIMIT, STACK_SIZE

    threading.stack_size(STACK_SIZE)
    sys.setrecursionlimit(RECURSION_LIMIT)
    worker = threading.Thread(target=main, args=(sys.argv[1:],))
    worker.start()
    worker.join()
