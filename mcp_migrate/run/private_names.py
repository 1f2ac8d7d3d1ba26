"""Which private definitions may go with the fixes that leave them unread: those no other file
of the run spells (core.coordination.FileNotes.private_removals, RunPlan.removable).

A provider a client wires in twice (`list_roots_callback=self._list_roots_callback` for stdio
and for HTTP), or a `list_changed` handler registered in a table, is left unread once its
wiring goes; its own finding then has an edit too: its removal. Within the file the engine
knows every reference. A private name is no promise that other modules keep out: a corpus
project's tests call `session._handle_roots_list_changed()` directly (conduit). So the removal
is written only where no other file of the run spells the name, as a word: a plain byte search,
done once per run and only when some file has such a candidate. A file that cannot be read
counts as spelling every name (its calls are unknown). Files outside the run (not selected,
excluded) are not searched: `check one_file.py` decides for that file alone, as the run's other
plans do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable


def removable(candidates: Iterable[tuple], readers: Iterable[tuple], tests: frozenset = frozenset()) -> tuple:
    """(the (path, name) of `candidates` ((display path, name) each) that no other file spells,
    those that no other file but `tests` spells). `readers`: (display path, a callable returning
    the file's bytes) for every file of the run; `tests`: the test files with Roots findings,
    whose tests of the Roots behaviour may go with the code (RootsPlan.suggested_names)."""
    wanted = sorted(set(candidates))
    if not wanted:
        return (), ()
    names = sorted({name for _, name in wanted})
    pattern = re.compile(
        rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(name.encode()) for name in names) + rb")(?![A-Za-z0-9_])"
    )
    spelled: dict = {}
    for path, read in readers:
        found = _spelled(pattern, read, names)
        for name in found:
            spelled.setdefault(name, set()).add(path)
    alone = tuple((path, name) for path, name in wanted if spelled.get(name, set()) <= {path})
    with_tests = tuple(
        (path, name)
        for path, name in wanted
        if (path, name) not in alone and spelled.get(name, set()) <= {path} | tests
    )
    return alone, with_tests


def _spelled(pattern: re.Pattern, read: Callable[[], bytes], names: list) -> set:
    try:
        data = read()
    except OSError:
        return set(names)
    return {match.decode("utf-8", "replace") for match in set(pattern.findall(data))}
