"""A helper's callers as related locations of the helper's own finding, not findings of their own.

A rule that sees a helper of the project do what it reports (ask for roots) also reports each
call of that helper, one call away, in the same file or a module that imports it: the caller
must be migrated with the helper. On real servers most such findings were callers, each at
`info` under the same code as the request itself, so a run listed findings that could not be
told apart, ignored apart, or fail the run. Each caller's finding carries a `Via` (the helper it
stands for, core.findings); once every file of a run is checked, `join` moves it into the
helper's finding as a `Related` location ("called from here"), and the caller's finding goes.

A caller's finding stays a finding of its own only when its helper's finding is not in the run
to hold it: the helper's file was not checked (`check one_file.py`, another module left out of
the selection or excluded), or its rule is off there (per-file ignores). A helper's finding an
inline comment suppresses takes its callers with it (they were reported only because of it: they
are listed in the suppressed finding); a caller's own suppression removes just that caller (its
finding is suppressed before the join).

Joining happens after the results cache, on every run: a cached result holds its callers'
Vias, so a warm run joins exactly as a cold one, and a caller's related location is as fresh as
the caller's own cached result (invalidated when the caller's file, or the helper module it
read, changes: core.dependencies).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from mcp_migrate.core.findings import FileResult, Finding, Related
from mcp_migrate.core.record import replace

#: The message of a caller's related location.
CALLED_FROM = "called from here"


def join(
    results: Iterable[FileResult],
    real_path: Callable[[FileResult], str] | None = None,
    rewritten: frozenset = frozenset(),
) -> None:
    """Fold every caller's finding whose helper finding is among `results` into that finding
    (in place: the results' finding lists are replaced). `real_path`: a result's file as an
    absolute path (a Via names the helper's module so); by default its path made absolute.
    `rewritten`: after a fix, the files it rewrote (real paths): a caller whose helper's finding
    is gone from such a file goes too, since the fix migrated the helper (dmx's tests were still
    listed as callers of a helper that no longer asked)."""
    results = list(results)
    where = real_path or (lambda result: os.path.abspath(result.path))
    by_path: dict = {}
    for result in results:
        if result.helpers or where(result) in rewritten:
            by_path.setdefault(where(result), result)
    if not by_path:
        return
    related: dict = {}  # (id of the helper's result, line, column, code) -> [Related]
    gone: set = set()  # ids of the callers' findings joined or dropped
    for result in results:
        for finding in result.findings:
            if finding.via is None:
                continue
            helper = result if not finding.via.path else by_path.get(finding.via.path)
            target = _target(helper, finding) if helper is not None else None
            if target is None:
                if helper is not None and where(helper) in rewritten:
                    gone.add(id(finding))  # the fix migrated its helper: it asks no more
                continue  # no helper finding in this run to hold it: the caller's stays
            gone.add(id(finding))
            entry = Related(finding.path, finding.line, finding.column, CALLED_FROM)
            related.setdefault((id(helper), *target), []).append(entry)
    if not gone:
        return
    for result in results:
        result.findings = [
            _with(f, related.get((id(result), f.line, f.column, f.code))) for f in result.findings if id(f) not in gone
        ]
        if result.suppressed:
            result.suppressed = [
                s._replace(
                    finding=_with(
                        s.finding, related.get((id(result), s.finding.line, s.finding.column, s.finding.code))
                    )
                )
                for s in result.suppressed
            ]


def _with(finding: Finding, extra: list | None) -> Finding:
    """`finding` with the related locations `extra` added, sorted."""
    if not extra:
        return finding
    return replace(finding, related=tuple(sorted(set(finding.related).union(extra))))


def _target(helper: FileResult, caller: Finding) -> tuple | None:
    """(line, column, code) of the helper's finding `caller` stands for (reported, or silenced
    by an inline comment: the callers go with it, listed in the suppressed finding), or None
    when the helper's result holds no such finding."""
    via = caller.via
    if via is None:
        return None
    site = next((s for s in helper.helpers if (s.code, s.owner, s.name) == (via.code, via.owner, via.name)), None)
    if site is None:
        return None
    at = (site.line, site.column, site.code)
    findings = [f for f in helper.findings if f.via is None] + [s.finding for s in helper.suppressed]
    return at if any((f.line, f.column, f.code) == at for f in findings) else None
