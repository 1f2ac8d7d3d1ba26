"""A pool worker that has not loaded LibCST and the rules hands a file that needs them to the
worker that has, while the files handed over are few: one import of them costs a worker
0.22-0.28 s of CPU. The main process loads them before the fork only where its own screening
(a budget of CPU: run.schedule) met a file left to LibCST; on fast-agent (1,580 files, 14 of
them left to LibCST, about 270 KB) that was so in about half of the runs, and in the others both
workers imported them (issue 37). Past `HANDOVER_BYTES` the LibCST work is worth a second
import: the worker loads them itself (context-forge's 572 KB `main.py` is over it alone).

The pool (run.pool) sets, while a worker runs a batch, the question this module asks
(`asking`); the check (run.analysis) asks it for a file its screens leave to LibCST, and
answers HANDED instead of checking it. Nothing else asks: a check outside a pool, a fix, a
round of claims (checks again in the kept pool) and the files left over at a round's end are
never handed over.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from mcp_migrate.core.findings import FileResult

#: The most source, in bytes, the workers of one pool hand over in all: LibCST's work on it is
#: moved to one worker, which the other balances by taking more of the screening batches, and
#: it stays near a second: fast-agent's 14 files, about 270 KB, take the rules 0.44 s and
#: LibCST's parses about 0.6 s. Past it, the work is worth a second import.
HANDOVER_BYTES = 256 * 1024

#: What a check answers for a file it hands over (compared by identity: it never leaves the pool).
HANDED = FileResult("<handed over to the worker that holds LibCST>")

#: While a pool worker runs a batch: a file's size -> whether this worker hands it over.
_asker: list = [None]


@contextlib.contextmanager
def asking(asker: Callable[[int], bool] | None) -> Iterator[None]:
    """While the block runs, a file left to LibCST is handed over when `asker(size)` says so."""
    previous, _asker[0] = _asker[0], asker
    try:
        yield
    finally:
        _asker[0] = previous


def hands_over(size: int) -> bool:
    """Whether the check of a file of `size` bytes, which its screens leave to LibCST, is
    handed to another worker (run.pool), not checked here."""
    asker = _asker[0]
    return asker is not None and asker(size)
