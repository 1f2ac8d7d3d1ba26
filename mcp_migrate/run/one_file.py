"""One file read and checked, or read and its fix computed, as a worker runs it (in the pool,
in a process of its own, or here): never raises, never writes; a file that cannot be read is an
E902 finding, one over max-file-size E997, an engine bug an internal error of that file only.
Below the pool (run.pool), which hands these functions to its workers.
"""

from __future__ import annotations

from mcp_migrate.core.codes import IO_ERROR_CODE
from mcp_migrate.core.findings import FileError, FileResult, Finding
from mcp_migrate.core.messages import fit
from mcp_migrate.core.record import replace
from mcp_migrate.project.regular import TooLarge, read_regular
from mcp_migrate.run.records import FixOutcome


def in_view(items: list, view) -> list:
    """The same Settings objects, each once, reading the project through `view` (the run's one
    view, or a worker's: core.project_view); an item without Settings stays as it is."""
    turned: dict = {}
    out = []
    for item in items:
        settings = item[1] if isinstance(item, tuple) and len(item) > 1 else None
        if not hasattr(settings, "view"):
            out.append(item)
            continue
        if id(settings) not in turned:
            turned[id(settings)] = replace(settings, view=view)
        out.append((item[0], turned[id(settings)], *item[2:]))
    return out


def io_error(display: str, message: str) -> Finding:
    """A file that cannot be read, as a finding (the system's words fitted to MAX_MESSAGE, and
    given whole as the help when cut)."""
    short = fit(message)
    return Finding(
        display, 1, 1, 1, 1, IO_ERROR_CODE, "io-error", short, "error", "none", message if short != message else ""
    )


def check_file(item) -> FileResult:
    """Worker: read one file and check it. Never raises; problems become E902 / FileErrors."""
    source, settings = item
    try:
        data = read_regular(source.path, max_size=settings.max_file_size)[0]
    except TooLarge as exc:
        return FileResult(source.display, findings=[too_large(source.display, exc)])
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return result
    return check_data((source, settings, data))


def too_large(display: str, exc: TooLarge) -> Finding:
    """E997 for a file its stat showed over max-file-size (it was not read)."""
    from mcp_migrate.core.engine import too_large

    return too_large(display, exc.size, exc.limit)


def check_data(item) -> FileResult:
    """Worker: check bytes already read (the cache read them to look them up). Never raises."""
    from mcp_migrate.run import analysis  # here: a run that checks no file never loads it (tests/test_lazy_imports.py)

    source, settings, data = item
    try:
        return analysis.check(data, source.display, settings)
    except Exception as exc:  # an engine bug must not lose the other files
        result = FileResult(source.display)
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        result.errors.append(FileError(source.display, "internal", message))
        return result


def check_item(item) -> FileResult:
    """Worker for a cached run: bytes already read, or a file that could not be read."""
    return check_data(item) if len(item) == 3 else check_file(item)


def fix_file(item) -> FixOutcome:
    """Worker: read one file and compute its fix. Never writes; never raises."""
    from mcp_migrate.project.writer import snapshot
    from mcp_migrate.run import analysis

    source, settings, unsafe, policy = item
    try:
        snap = snapshot(source.path, settings.max_file_size)
    except TooLarge as exc:
        return FixOutcome(
            source, FileResult(source.display, findings=[too_large(source.display, exc)]), settings=settings
        )
    except OSError as exc:
        result = FileResult(source.display)
        result.findings.append(io_error(source.display, f"cannot read file: {exc.strerror or exc}"))
        return FixOutcome(source, result, settings=settings, policy=policy)
    try:
        result = analysis.fix(snap.data, source.display, settings, unsafe, policy)
    except Exception as exc:  # an engine bug must not lose the other files
        result = FileResult(source.display)
        result.errors.append(FileError(source.display, "internal", " ".join(f"{type(exc).__name__}: {exc}".split())))
        return FixOutcome(source, result, settings=settings, policy=policy)
    return FixOutcome(source, result, snap if result.fixed_source is not None else None, settings, policy)
