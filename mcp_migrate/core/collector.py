"""Parsing without Python's cyclic garbage collector.

A parser allocates a syntax tree's nodes by the hundred thousand, and every 700 allocations the
collector scans the youngest objects, then, more and more often as the tree grows, all of them:
on a 1.26 MB module it was a fifth of LibCST's parse (3.9 s with it, 3.1 s without). A freshly
built tree has no reference cycles, so those scans find nothing to free; reference counting
still frees everything as usual, and the collector runs again as soon as the parse is over.

Its first run would scan the whole tree all the same: the tree is the young generation, and a
block that made more young objects than the collector's threshold has it run at the next
allocation. On mcp-context-forge that was 8 scans of 200,000-340,000 objects, 0.5-0.8 s of a
21 s check, all of them the screens' and the engine's fresh trees (issue 37). So such a block
ends by moving every object the collector tracks to the oldest generation unscanned
(`gc.freeze()` then `gc.unfreeze()`: two list splices), as a scan that freed nothing would have;
a cycle made before the block is then left to a full collection (`gc.collect()` frees it).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block (left as it was: a caller that had turned it off keeps
    it off), and the objects the block made young no longer (see the module's docstring)."""
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            if gc.get_count()[0] > gc.get_threshold()[0]:
                gc.freeze()  # every tracked object, young ones included, out of the collector's scans
                gc.unfreeze()  # and back, into the oldest generation
            gc.enable()
