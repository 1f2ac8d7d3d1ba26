"""The results cache in a check run (project.cache holds the cache itself): unchanged files
answered from it, by their stat or their bytes' digest, the rest checked as usual (run.schedule)
and stored.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from mcp_migrate.project.regular import read_regular
from mcp_migrate.run.one_file import check_item
from mcp_migrate.run.records import CheckOptions, Plan
from mcp_migrate.run.schedule import no_progress, run_items


def run_cached(
    p: Plan,
    options: CheckOptions,
    progress: Callable | None,
    paths,
    warnings: list,
    counts: dict | None = None,
    keep_blank: bool = True,
) -> list:
    """Check the plan's files, reusing cached results for unchanged bytes; the rest run as
    usual (in the pool for big trees) and are stored. Results keep the plan's order; why the
    cache could not be used goes to `warnings`. Without `keep_blank`, a result that says
    nothing (FileResult.says_nothing) is left out as soon as it is known, so a warm run holds
    only the files with something to say (the list then no longer lines up with the plan)."""
    from mcp_migrate.project.cache import cache_for

    cache = cache_for(p.config, [path for path in paths if path != "-"])
    warnings.extend(cache.warnings)
    results: list = [None] * len(p.items)
    misses: list = []
    stats: dict = {}
    with (progress or no_progress)(len(p.items)) as advance:
        for index, (source, settings) in enumerate(p.items):
            cached, data, st = _cached_result(cache, source, settings)
            if st is not None and cached is None:
                stats[index] = st  # (kept for a miss only: 18,416 stats held 11 MB in a warm run)
            if cached is not None:
                results[index] = cached if keep_blank or not cached.says_nothing() else None
                advance()
            elif data is None:
                misses.append((index, (source, settings)))  # check_file reports it (E902)
            else:
                misses.append((index, (source, settings, data)))
        work = [item for _, item in misses]
        if counts is not None:
            counts["cached"] = len(p.items) - len(misses)
        fresh = run_items(work, options.jobs, func=check_item, progress=lambda total: contextlib.nullcontext(advance))
    for (index, item), result in zip(misses, fresh):
        results[index] = result if keep_blank or not result.says_nothing() else None
        if len(item) == 3:
            cache.put(item[0].display, item[2], item[1], result, stats.get(index))
    cache.save()
    cache.close()
    return results if keep_blank else [result for result in results if result is not None]


def _cached_result(cache, source, settings):
    """(cached FileResult or None, the bytes read or None, the stat or None). An unchanged
    stat answers without reading the file; otherwise the bytes are read and their digest
    decides. The stat is taken before reading, to be recorded with a fresh result."""
    try:
        st = os.stat(source.path)
    except OSError:
        st = None
    if st is not None:
        cached = cache.get_unchanged(source.display, st, settings)
        if cached is not None:
            return cached, None, st
    try:
        # never a FIFO, a device or a file over max-file-size (E902 / E997 from check_file)
        data = read_regular(source.path, max_size=settings.max_file_size)[0]
    except OSError:
        return None, None, st
    return cache.get(source.display, data, settings, st), data, st
