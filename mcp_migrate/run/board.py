"""What a pool's workers share while they run: the answers worth handing over that one of them
has worked out (a rule's keys for a helper module, as the module's own check published them or
an analysis found them), which file each of them is analysing right now, and the files handed
to the worker that holds LibCST (run.parser_handover).

One process checking a tree works out a helper module's answer once, and a module checked
before its callers (files come in path order) publishes its answer from its own check, so no
caller analyses it again. Two workers each worked them out: on context-forge a worker ran
RT001 alone over the 572 KB `mcpgateway/main.py` (LibCST parse included, 2.7 s of CPU) for a
test module's check while the other worker was checking `main.py` itself; `-j` cost 1.16x the
CPU of `-j 1` (issue 37). Here a worker that needs an answer first reads the board, and where
another worker is analysing that very module, waits for the analysis to end (idle, not
spinning), then reads the board again. A wait that would close a circle (two modules each
waiting on the other's analysis) is not begun: the worker works the answer out itself.

The board lives in shared memory made before the fork: an append-only log of pickled
(table, key, answer) records under the pool's lock, and one slot per worker (its pid, the hash
of the file it analyses, the hash of the file it waits for). A full log takes no more answers
(they are worked out as before); nothing on the board changes what a check reports, only who
works it out.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
import time
from collections.abc import Iterator
from hashlib import blake2b

from mcp_migrate.run.parser_handover import HANDOVER_BYTES

#: The log's size: an answer takes about 200 bytes, and a run posts a few hundred of them
#: (context-forge, 1,531 files: 617 records in 142 KB; fast-agent: 299 in 69 KB, most of them
#: the screens' may-do answers; 8fcb852).
BOARD_BYTES = 1024 * 1024
#: How often a waiting worker looks again (it sleeps in between).
POLL_SECONDS = 0.005
#: The longest a worker waits for another's analysis before working the answer out itself.
WAIT_SECONDS = 120.0
#: The log's name for a file handed over (run.parser_handover), not an answer.
_HANDED = "file handed over"
#: A slot: pid, hash of the file analysed, hash of the file waited for.
_SLOT = 3
_HEAD = struct.Struct("<I")


class Board:
    """The shared memory of one pool, made in the main process before its workers start: a
    forked worker inherits it, a spawned one is handed it as it starts (the pool's initializer
    arguments), as the pool's lock and progress array are; it cannot be sent later."""

    def __init__(self, lock, workers: int) -> None:
        import multiprocessing

        self._lock = lock
        self._log = multiprocessing.RawArray("B", BOARD_BYTES)
        self._used = multiprocessing.RawValue("q", 0)
        self._slots = multiprocessing.RawArray("q", _SLOT * workers)
        #: The pid of the worker that loads LibCST for the files the others hand over (0: none
        #: yet), and the bytes handed to it so far (run.parser_handover).
        self._parser = multiprocessing.RawValue("q", 0)
        self._handed_bytes = multiprocessing.RawValue("q", 0)

    def parser_worker(self) -> int:
        """The pid of the worker the others hand the files left to LibCST to, 0 for none."""
        return self._parser.value

    def for_worker(self) -> WorkerBoard | None:
        """This worker's side of the board, its slot claimed; None when every slot is taken."""
        pid = os.getpid()
        with self._lock:
            for start in range(0, len(self._slots), _SLOT):
                if self._slots[start] in (0, pid):
                    self._slots[start : start + _SLOT] = [pid, 0, 0]
                    return WorkerBoard(self, start)
        return None


class WorkerBoard:
    """One worker's side of its pool's board: the view's `exchange` (core.project_view)."""

    def __init__(self, board: Board, slot: int) -> None:
        self._board = board
        self._slot = slot
        #: How much of the log this worker has read, and what it read there.
        self._read = 0
        self._answers: dict = {}
        self._depth = 0
        #: Whether this worker holds LibCST and the rules (inherited from the fork, or loaded
        #: here), and the files handed to it that it has read on the log and not yet taken.
        self._parser_here = _holds_parser()
        self._handed: list = []
        self._pid = os.getpid()

    # ----- answers ------------------------------------------------------------------------------

    def post(self, name: str, key, answer) -> None:
        record = _pickled((name, key, answer))
        if record is not None:  # an answer that cannot cross: the others work it out
            self._append(record)

    def _append(self, record: bytes) -> bool:
        """Put `record` at the log's end; False where the log has no room for it."""
        board = self._board
        with board._lock:
            used = board._used.value
            end = used + _HEAD.size + len(record)
            if end > BOARD_BYTES:
                return False
            board._log[used : used + _HEAD.size] = _HEAD.pack(len(record))
            board._log[used + _HEAD.size : end] = record
            board._used.value = end
        return True

    def settled(self, name: str, key, source: str, wait: bool):
        found = self._looked_up(name, key)
        if found is None and wait and self._waited(_digest(source)):
            found = self._looked_up(name, key)
        return found

    def _looked_up(self, name: str, key):
        self._refresh()
        return self._answers.get((name, key))

    def _refresh(self) -> None:
        board = self._board
        with board._lock:
            used = board._used.value
            if used == self._read:
                return
            chunk = bytes(memoryview(board._log)[self._read : used])
        self._read = used
        offset = 0
        while offset < len(chunk):
            (size,) = _HEAD.unpack_from(chunk, offset)
            offset += _HEAD.size
            try:
                name, key, answer = pickle.loads(chunk[offset : offset + size])
            except Exception:  # noqa: BLE001 - an answer that cannot be read here is worked out here
                name = None
            offset += size
            if name == _HANDED:
                self._handed.append((key, answer))
            elif name is not None:
                self._answers.setdefault((name, key), answer)

    # ----- files handed to the worker that holds LibCST (run.parser_handover) ------------------

    def hands_over(self, size: int) -> bool:
        """Whether this worker, which has not loaded LibCST, hands a file of `size` bytes left to
        LibCST to the worker that has (the first to need it, which loads it), while the files
        handed over stay under HANDOVER_BYTES; when not, this worker loads LibCST itself."""
        if self._parser_here:
            return False
        board, pid = self._board, self._pid
        with board._lock:
            holder = board._parser.value
            if holder in (0, pid) or not _alive(holder):
                board._parser.value = pid
            elif board._handed_bytes.value + size <= HANDOVER_BYTES:
                board._handed_bytes.value += size
                return True
        self._parser_here = True
        return False

    def hand(self, index: int, item) -> bool:
        """Post the pool's item `index` for the worker that holds LibCST; False where it cannot
        cross (the log is full, the item does not pickle): this worker checks it itself."""
        crossed = _pickled(item)  # pickled apart: only the worker that takes it unpickles it
        record = _pickled((_HANDED, index, crossed)) if crossed is not None else None
        return record is not None and self._append(record)

    def handed_files(self) -> list:
        """(index, item) of each file handed to this worker since it last asked: only the worker
        that holds LibCST takes them."""
        if not self._parser_here or self._board._parser.value != self._pid:
            return []
        self._refresh()
        taken, self._handed = self._handed, []
        found = []
        for index, item in taken:
            try:
                found.append((index, pickle.loads(item)))
            except Exception:  # noqa: BLE001 - left over: the pool's round of claims at its end checks it
                continue
        return found

    # ----- who analyses what --------------------------------------------------------------------

    @contextlib.contextmanager
    def analysing(self, path: str) -> Iterator[None]:
        """This worker analyses `path` for the block (the outermost analysis only: a rule's
        analysis of a helper module alone is part of it)."""
        self._depth += 1
        if self._depth == 1:
            self._mark(1, _digest(path))
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._mark(1, 0)

    def _mark(self, field: int, value: int) -> None:
        board = self._board
        with board._lock:
            board._slots[self._slot + field] = value

    def _waited(self, digest: int) -> bool:
        """Wait while another worker analyses the file of `digest`, unless that worker waits,
        through others, for this one; whether this worker waited."""
        board = self._board
        with board._lock:
            other = self._analyser(digest)
            if other is None or self._circle(other):
                return False
            board._slots[self._slot + 2] = digest
        try:
            deadline = time.monotonic() + WAIT_SECONDS
            while time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
                if board._slots[other + 1] != digest or board._slots[other] == 0 or not _alive(board._slots[other]):
                    break
        finally:
            self._mark(2, 0)
        return True

    def _analyser(self, digest: int) -> int | None:
        """The slot of the other worker analysing the file of `digest`, if any (under the lock)."""
        slots = self._board._slots
        for start in range(0, len(slots), _SLOT):
            if start != self._slot and slots[start] and slots[start + 1] == digest:
                return start
        return None

    def _circle(self, other: int) -> bool:
        """Whether the worker in slot `other` waits, directly or through others, for a file this
        worker analyses (under the lock)."""
        slots = self._board._slots
        seen = set()
        while other not in seen:
            seen.add(other)
            waited = slots[other + 2]
            if not waited:
                return False
            if slots[self._slot + 1] == waited:
                return True
            found = self._analyser(waited)
            if found is None:
                return False
            other = found
        return False


def _digest(path: str) -> int:
    """A file's path as a nonzero signed 64-bit number, the same in every worker."""
    value = int.from_bytes(
        blake2b(os.path.abspath(path).encode("utf-8", "surrogateescape"), digest_size=8).digest(), "little", signed=True
    )
    return value or 1


def _pickled(value) -> bytes | None:
    """`value` as the log holds it, or None where it cannot cross (a function, a lock...)."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None


def _holds_parser() -> bool:
    """Whether this process has LibCST loaded (a worker forked after the main process loaded
    the engine for the files its screens left to LibCST: run.schedule)."""
    return "libcst" in sys.modules


def _alive(pid: int) -> bool:
    """Whether process `pid` exists (signal 0 on POSIX). Elsewhere it is taken as alive: on
    Windows `os.kill(pid, 0)` would send CTRL_C_EVENT; a dead worker breaks the pool there too,
    which ends the others, and a wait has its deadline."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
