"""A progress bar on stderr for long runs: only on a terminal and only past THRESHOLD files,
so piped output and small runs get nothing extra. Plugs into runner's `progress` argument."""

from __future__ import annotations

import contextlib
import os
import sys

from mcp_migrate.output.report import ColorChoice, make_console

#: Runs over more files than this show a bar (when stderr is a terminal).
THRESHOLD = 300


def _noop() -> None:
    return None


def bar(total: int, *, color: ColorChoice = True, label: str = "Checking"):
    """A context manager yielding `advance()`; a no-op below THRESHOLD or off a terminal."""
    if total <= THRESHOLD or not _may_be_terminal(sys.stderr):
        return contextlib.nullcontext(_noop)
    console = make_console(stderr=True, color=color)
    if not console.is_terminal:
        return contextlib.nullcontext(_noop)
    return _rich_bar(console, total, label)


def _may_be_terminal(stream) -> bool:
    """False only where rich's `Console.is_terminal` would say False too (no `TTY_COMPATIBLE` or
    `FORCE_COLOR` to override the stream, and the stream is no tty), so a piped run over a big
    tree never imports rich to learn it."""
    if os.environ.get("TTY_COMPATIBLE") or os.environ.get("FORCE_COLOR") is not None:
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


@contextlib.contextmanager
def _rich_bar(console, total: int, label: str):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task)


def factory(*, color: ColorChoice = True, label: str = "Checking", enabled: bool = True):
    """What run.runner.run_check / run_fix take as `progress` (None when disabled, e.g. --quiet)."""
    if not enabled:
        return None
    return lambda total: bar(total, color=color, label=label)
