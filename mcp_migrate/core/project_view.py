"""The project as one run sees it: which files are one import away (folder listings, module
files), their stamps, and the answers worked out from their bytes, kept for as long as the view
lives and no longer. A check is
"bytes and a project view in, findings and the files consulted out": everything the engine and
the rules learn from other files of the project goes through the view `Settings.view` carries,
never through a process-wide cache, so two projects checked in one process (an editor, a test
suite, the API called twice on a tree that changed) each get their own answers.

The runner makes one view per run (one per worker process, which a forked worker starts as a
copy of the main process's: run.pool); `mcp_migrate.api` gives a check or fix of bytes without
one a fresh view. The view also records, per check, the other files it consulted (path, size,
mtime): the results cache keeps them with the result, and a changed or removed helper module
makes its callers be checked again (core.dependencies compares them)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Protocol

from mcp_migrate.core.codes import DEFAULT_MAX_FILE_SIZE
from mcp_migrate.core.dependencies import file_stamp

#: The largest other module of the project a rule reads (its definitions, its effects): the
#: largest file the engine checks by default, so a module too large to check is not read either.
MODULE_LIMIT = DEFAULT_MAX_FILE_SIZE

#: The most source bytes whose LibCST trees a view keeps (`keep_parsed`). A file with findings
#: is checked again under the run's plan (run.coordination), and a helper module a rule reads
#: is usually checked itself: their kept trees spare those parses (issue 37: 2-3 parses per file
#: with findings). A kept tree takes about 22 times its source (python-sdk's modules, measured
#: with tracemalloc), so this holds at most about 45 MB.
PARSED_BYTES = 2 * 1024 * 1024

#: The most source bytes whose `ast` readings (core.screen.Syntax) a view keeps (`kept_reading`).
#: A project's big helper module is read by each of its readers in turn: the effects summary,
#: its own screens, the helper screens' `doing_words` (issue 37: a gateway's 897 KB and 572 KB
#: modules, three readings each, 0.31 s of its 0.9 s of `ast` parses in the screens). A reading
#: takes about 28 times its source, so this holds at most about 60 MB, and none is alive while a
#: module is parsed in part (core.partial: that check's peak is watched); a pool's workers start
#: without them.
READ_BYTES = 2 * 1024 * 1024


class _TreesKept:
    """Trees kept by the bytes they were read from, for as long as their sources hold under a
    bound (given with each tree, so a test may lower it). Once full, nothing is evicted: a run's
    readers come again in the order of the first ones, so a least-recently-used policy would
    evict each tree just before it is wanted."""

    __slots__ = ("trees", "size")

    def __init__(self) -> None:
        self.trees: dict = {}
        self.size = 0

    def offer(self, data: bytes, tree, bound: int) -> None:
        if data not in self.trees and self.size + len(data) <= bound:
            self.trees[data] = tree
            self.size += len(data)


class Exchange(Protocol):
    """The answers a pool's workers share while they run (run.board implements it)."""

    def settled(self, name: str, key, source: str, wait: bool):
        """The answer another worker posted for (`name`, `key`), or None; with `wait`, where
        another worker is analysing `source` itself, after waiting for that analysis to end
        (the answer its check publishes is what this worker would work out again)."""

    def post(self, name: str, key, answer) -> None:
        """Offer an answer worked out here to the other workers."""

    def analysing(self, path: str) -> contextlib.AbstractContextManager:
        """The block analyses `path`: another worker needing its answers waits for them."""


class ProjectView:
    """One run's view of the project's other files: the consultations of the checks under way
    (`recording`, `consulted`), answers per module file kept by its stamp (`per_file`, over
    `read`), and named tables of answers that hold for the view's life (`table`)."""

    def __init__(self, stamps: bool = True, handed: tuple = ()) -> None:
        #: Whether the checks record the files they consult: only the results cache reads them
        #: (a changed helper module makes its callers be checked again), so a run without the
        #: cache makes a view without (issue 37: a `--no-cache` run stat-ed 83,000 times for them).
        self.stamps = stamps
        #: The sets of the checks under way with this view, innermost last.
        self._open: list = []
        #: name -> {key: answer}: what this view has worked out (core.modules' folder listings
        #: and module files, vocabulary.imported_asks' doers, a rule's analysed helper modules...).
        self._tables: dict = {}
        #: (table name, key, held answer) of the answers the view hands to the worker processes
        #: it crosses to (`handing`).
        self._handed = tuple(handed)
        #: Per check under way (`using`): (table name, key) -> answer of the answers worth handing
        #: over that it asked for.
        self._using: list = []
        #: What the other workers of a pool have worked out, while they work (run.board, set by a
        #: pool's worker; None in a process of its own): answers worth handing over, and which
        #: file each of them is analysing (`analysing`, `per_file`).
        self.exchange: Exchange | None = None
        #: The LibCST trees (`keep_parsed`) and the `ast` readings (`kept_reading`) kept, by the
        #: bytes they were read from; how many analyses are under way (`analysing`).
        self._parsed = _TreesKept()
        self._readings = _TreesKept()
        self._analyses = 0

    def __reduce__(self):
        """A view crosses to a worker process empty, but for what it hands over (`handing`): the
        worker keeps its own (run.pool), a copy of the main process's where it was forked."""
        return (ProjectView, (self.stamps, self._handed))

    @contextlib.contextmanager
    def handing(self, entries: tuple) -> Iterator[None]:
        """While the block runs, the view crosses to a worker with `entries`, (table name, key,
        held answer as `remembered` keeps it) each, which the worker keeps (`take_handed`);
        they are kept here too. For answers a worker worked out that the run's check again of
        the same file, in whichever worker takes it, would work out again (issue 37: the partial
        source of a 1.26 MB test module, 1.5 s)."""
        for name, key, held in entries:
            self.table(name).setdefault(key, held)
        self._handed = tuple(entries)
        try:
            yield
        finally:
            self._handed = ()

    @contextlib.contextmanager
    def using(self) -> Iterator[dict]:
        """(table name, key) -> answer as the table holds it, of each answer worth handing over
        (`per_file` or `remembered` with `handed`: a helper module's analysis by a rule, a huge
        test module's partial source) that the block's check asks for, worked out or kept: the
        check again of the same file in another worker is handed them (`handing`), where it
        would work them out again (issue 37: context-forge's 572 KB `mcpgateway/main.py` parsed
        and analysed again, 1.15 s for the parse alone)."""
        used: dict = {}
        self._using.append(used)
        try:
            yield used
        finally:
            self._using.pop()

    def take_handed(self, crossed: ProjectView) -> None:
        """Keep the answers `crossed`, a view that came over the pipe, hands over (`handing`)."""
        for name, key, held in crossed._handed:
            self.table(name).setdefault(key, held)

    def __repr__(self) -> str:
        return f"ProjectView({len(self._tables)} tables)"

    # ----- what the check under way consulted ---------------------------------------------------

    @contextlib.contextmanager
    def recording(self) -> Iterator[set]:
        """A set of (path, size, mtime) for the files one check consults (nested checks: the
        innermost records)."""
        seen: set = set()
        self._open.append(seen)
        try:
            yield seen
        finally:
            self._open.pop()

    def consulted(self, path: str, st: os.stat_result | None = None) -> None:
        """Note that the check under way read `path` (its stat, when the reader has taken it)."""
        if not self._open or not self.stamps:
            return
        self._open[-1].add(self.entry(path, st))

    def entry(self, path: str, st=None) -> tuple:
        """(absolute path, size, mtime) of a consulted file, taken once per view (issue 37: the
        checks of a large tree consult the same helper modules thousands of times). The first
        stamp is the one kept: a file changed during the run then reads as changed to the
        results cache, which checks its callers again."""
        known = self.table("stamps")
        entry = known.get(path)
        if entry is None:
            stamp = file_stamp(path, st) if st is not None else self.stamp(path)
            entry = known[path] = (os.path.abspath(path), *stamp) if stamp else (os.path.abspath(path), -1, -1)
        return entry

    def consulted_again(self, entries) -> None:
        """Note dependencies recorded earlier (a screen's answer served again) for the check
        under way."""
        if self._open and entries:
            self._open[-1].update(entries)

    # ----- answers ------------------------------------------------------------------------------

    def table(self, name: str) -> dict:
        """The view's table of answers called `name` (made empty on first use)."""
        found = self._tables.get(name)
        if found is None:
            found = self._tables[name] = {}
        return found

    def remembered(self, name: str, key, compute: Callable, handed: bool = False):
        """`compute()` kept in table `name` under `key` for the view's life, with the files it
        read: every later check asking the same question is noted as reading them too (the
        results cache then checks it again when one of them changes). `handed`: as `per_file`'s."""
        known = self.table(name)
        held = known.get(key)
        if held is None:
            with self.recording() as seen:
                answer = compute()
            held = known[key] = (answer, frozenset(seen))
        self.consulted_again(held[1])
        if handed:
            self._used(name, key, held)
        return held[0]

    def _used(self, name: str, key, held) -> None:
        """Note an answer worth handing over for every check under way (`using`)."""
        for used in self._using:
            used[name, key] = held

    def of_last(self, name: str, data: bytes, key, compute: Callable):
        """`compute()` for the file whose bytes are `data` (and `key`, what else the answer
        depends on), kept in table `name` until another file's is asked for: the screens of one
        file ask the same questions of it one after the other (RT001's and RT004's followers)."""
        last = self.table(name)
        if last.get("data") is not data or last.get("key") != key:
            last["data"], last["key"], last["answer"] = data, key, compute()
        return last["answer"]

    def parsed(self, data: bytes):
        """The LibCST tree kept for these bytes (`keep_parsed`), or None. A tree is immutable,
        so every check of the same bytes can walk the same one."""
        return self._parsed.trees.get(data)

    def keep_parsed(self, data: bytes, module) -> None:
        """Keep the tree of `data` for the view's life while the trees kept hold under
        PARSED_BYTES of source (`_TreesKept`: the checks again come in the order of the first
        ones)."""
        self._parsed.offer(data, module, PARSED_BYTES)

    def kept_reading(self, data: bytes, compute: Callable | None = None, keep: bool = True):
        """`compute()`, the standard library's reading of `data` (core.screen.read), kept while
        the readings kept hold under READ_BYTES of source, so each reader of a module asks the
        parser once. None is added while a file is analysed (`analysing`): its LibCST trees are
        the run's peak. A reading is never changed by its readers (`_TreesKept`: the readers
        of a helper module come in the order the first files' screens asked for it). Without
        `compute`, the reading kept or None; without `keep`, a reading made now is not kept."""
        kept = self._readings.trees
        found = kept.get(data, kept)
        if found is not kept:
            return found
        if compute is None:
            return None
        found = compute()
        if keep and not self._analyses:
            self._readings.offer(data, found, READ_BYTES)
        return found

    def drop_readings(self) -> None:
        """Forget the readings kept (`kept_reading`): before a module is parsed in part
        (core.partial), so no other module's `ast` tree is alive beside its parse (issue 37: a
        1.26 MB test module's check <= 200 MB), and before a pool forks, so no worker starts
        with them (context-forge's peak, default `-j`: 360 MB, 463 MB with the readings)."""
        self._readings = _TreesKept()

    def stat(self, path: str) -> os.stat_result | None:
        """`os.stat(path)` (None when it fails), taken once per view: the checks of a run ask
        about the same helper modules thousands of times (issue 37: 175,000 stat calls for a
        1,580-file tree), and a view lives for one run."""
        known = self.table("stat")
        if path in known:
            return known[path]
        try:
            found = os.stat(path)
        except OSError:
            found = None
        known[path] = found
        return found

    def stamp(self, path: str) -> tuple | None:
        """(size, mtime in ns) of `path` as `stat` saw it, or None."""
        found = self.stat(path)
        return None if found is None else (found.st_size, found.st_mtime_ns)

    def per_file(
        self,
        name: str,
        source: str,
        extra,
        compute: Callable,
        missing=None,
        handed: bool = False,
        published: bool = False,
    ):
        """`compute(stat)` for one module file, kept in table `name` by the file's size and
        mtime (and `extra`: the asking rule's tokens), the file noted as consulted by the check
        under way; `missing` when it cannot be stat'ed. `handed`: an answer worth handing to a
        check again in another process (`using`) and to the other workers of a pool
        (`exchange`), small and costly to work out; `published`: one the module's own check
        publishes (`publish`), worth waiting for while another worker analyses the module."""
        stat = self.stat(source)
        if stat is None:
            return missing
        self.consulted(source, stat)
        cache = self.table(name)
        key = (source, stat.st_mtime_ns, stat.st_size, extra)
        found = cache.get(key)
        if found is None and handed and self.exchange is not None:
            found = self.exchange.settled(name, key, source, published)
            if found is not None:
                cache[key] = found
        if found is None:
            found = cache[key] = compute(stat)
            if handed and self.exchange is not None:
                self.exchange.post(name, key, found)
        if handed:
            self._used(name, key, found)
        return found

    def publish(self, name: str, key, answer) -> None:
        """Keep `answer` in table `name` under `key` as `per_file` keys it, worked out some other
        way than its `compute` (a rule's answer for a module from that module's own check), and
        offer it to the other workers (`exchange`): the one asking for it next need not work it
        out (issue 37: a worker analysed context-forge's 572 KB `main.py` for a test module's
        check while the other worker was checking `main.py` itself, 2.7 s of CPU)."""
        self.table(name)[key] = answer
        if self.exchange is not None:
            self.exchange.post(name, key, answer)

    @contextlib.contextmanager
    def analysing(self, path: str) -> Iterator[None]:
        """The block analyses the file `path` with the rules (the other workers are told, when
        the view has an `exchange`); no `ast` reading is kept meanwhile (`kept_reading`)."""
        self._analyses += 1
        try:
            with self.exchange.analysing(path) if self.exchange is not None else contextlib.nullcontext():
                yield
        finally:
            self._analyses -= 1


def read(source: str, stat, limit: int, prefix: int = 0) -> bytes | None:
    """A module's bytes, or None when over `limit` (0: no limit) or unreadable; with `prefix`,
    only its first `prefix` bytes, whatever its size."""
    if limit and stat.st_size > limit and not prefix:
        return None
    want = prefix or (limit + 1 if limit else -1)
    try:
        fd = os.open(source, _READ_FLAGS)
    except OSError:
        return None
    try:
        return read_upto(fd, want, stat.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)


#: How a file is opened to be read whole by `read_upto`: no buffered file object over it (its
#: `isatty` and `tell` are two system calls more per file read, issue 37).
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)

#: How much more a file that grew after its stat is read at a time.
_CHUNK = 1 << 20


def read_upto(fd: int, want: int, size: int) -> bytes:
    """At most `want` bytes (all of it when `want` < 0) of the open file `fd`, a file `size` bytes
    long at its stat, read with `os.read`: a run reads every file once, and a buffered file
    object over it cost an `isatty` and a `tell` each (issue 37). A read allocates its whole
    count first, so the first asks for no more than the file holds (plus one, to see it grow):
    a limit of 2**63 - 1 (max-file-size's largest) is a limit, not an allocation. A read may
    return less than asked (over 2 GB on Linux), so it reads on until `want` or the file's end.
    Shared by this view's reads of helper modules and project.regular's of the checked files."""
    first = size + 1 if want < 0 else min(want, size + 1)
    data = os.read(fd, first)
    if len(data) == want or (len(data) < first and (not data or len(data) == size)):
        return data  # all that is wanted, or the whole file (the common case: one read)
    grown = bytearray(data)
    while want < 0 or len(grown) < want:  # short, or it grew after its stat: read on, never past `want`
        more = os.read(fd, _CHUNK if want < 0 else min(want - len(grown), _CHUNK))
        if not more:
            break
        grown += more
    return bytes(grown)


def view_of(settings) -> ProjectView:
    """The view `settings` carries (a fresh one when it carries none: nothing is kept)."""
    view = getattr(settings, "view", None)
    return view if view is not None else ProjectView()
