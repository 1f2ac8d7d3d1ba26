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
    search = Spellings(candidates, tests)
    if search.wanted:
        for path, read in readers:
            search.feed(path, read_or_none(read))
    return search.result()


class Spellings:
    """The byte search of `removable`, fed one file at a time (run.coordination reads each file
    once for every search of the run's plan)."""

    def __init__(self, candidates: Iterable[tuple], tests: frozenset = frozenset()) -> None:
        self.wanted = sorted(set(candidates))
        self.tests = tests
        self.names = sorted({name for _, name in self.wanted})
        self.pattern = re.compile(
            rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(name.encode()) for name in self.names) + rb")(?![A-Za-z0-9_])"
        )
        self.spelled: dict = {}

    def feed(self, path: str, data: bytes | None) -> None:
        """A file of the run (None: it cannot be read, and counts as spelling every name)."""
        found = (
            set(self.names) if data is None else {m.decode("utf-8", "replace") for m in set(self.pattern.findall(data))}
        )
        for name in found:
            self.spelled.setdefault(name, set()).add(path)

    def result(self) -> tuple:
        alone = tuple((path, name) for path, name in self.wanted if self.spelled.get(name, set()) <= {path})
        with_tests = tuple(
            (path, name)
            for path, name in self.wanted
            if (path, name) not in alone and self.spelled.get(name, set()) <= {path} | self.tests
        )
        return alone, with_tests


def read_or_none(read: Callable[[], bytes]) -> bytes | None:
    """A file's bytes, or None where it cannot be read."""
    try:
        return read()
    except OSError:
        return None
