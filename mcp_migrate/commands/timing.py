"""`-v` / `--verbose`: what a run did and how long each phase took, one line each on stderr
(ruff's `-v` logs its phases with timings too). Off, every call is a no-op.

    mcp-migrate: verbose: config: packages/a/pyproject.toml (3 files), packages/b/.mcp-migrate.toml (3 files)
    mcp-migrate: verbose: discover: 6 files in 0.004 s
    mcp-migrate: verbose: check: 6 files (4 from the cache, 2 analysed) in 0.412 s
    mcp-migrate: verbose: report: 0.010 s
    mcp-migrate: verbose: total: 0.431 s
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable

from mcp_migrate.output.printable import printable

PREFIX = "mcp-migrate: verbose: "


class Timings:
    def __init__(self, enabled: bool = False, stream=None) -> None:
        self.enabled = enabled
        self.stream = stream
        self.started = time.perf_counter()
        self.phases: list = []

    def note(self, text: str) -> None:
        if self.enabled:
            (self.stream or sys.stderr).write(printable(PREFIX + text) + "\n")

    @contextlib.contextmanager
    def phase(self, name: str, detail: Callable[[], str] | None = None):
        """Time the block; on leaving it, `name: <detail> in N s` (`detail()` is asked then)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - start
            self.phases.append((name, seconds))
            if self.enabled:
                what = detail() if detail is not None else ""
                self.note(f"{name}: {what} in {seconds:.3f} s" if what else f"{name}: {seconds:.3f} s")

    def total(self) -> None:
        self.note(f"total: {time.perf_counter() - self.started:.3f} s")
