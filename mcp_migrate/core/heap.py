"""Memory freed by a huge module's parse, given back to the system before the run reads on.

The parsers' native code (CPython's `ast` arena, LibCST's parser) allocates with the C
library's malloc, and glibc keeps what they free for the process: after context-forge's
1.26 MB test module was checked in part, the process held 146 MB of which Python objects were
15 MB, and the run's second reading of the module (its check under the run's plan) took 70 MB
more instead of reusing them (peak 216 MB; issue 37's target is 200). `malloc_trim` hands the
free pages back (the check's peak 178 MB). Only around the partial parse of a module this
large (core.engine: once its whole `ast` tree is dropped, and once its check is done), and only
where glibc is the C library: elsewhere it does nothing.
"""

from __future__ import annotations

import sys
from typing import Any

#: A module at least this large has the heap trimmed after its parse.
HUGE_BYTES = 256 * 1024

#: glibc's malloc_trim once looked up (None: not yet; False: not there).
_trim: Any = None


def release_freed(size: int) -> None:
    """Give the heap's free pages back after a module of `size` bytes was parsed, where it is
    huge and glibc's malloc_trim exists."""
    global _trim
    if size < HUGE_BYTES or not sys.platform.startswith("linux"):
        return
    if _trim is None:
        try:
            import ctypes  # (only for a huge module: ctypes costs a small run 10 ms)

            _trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError, ImportError):  # musl, a static interpreter
            _trim = False
    if _trim:
        _trim(0)
