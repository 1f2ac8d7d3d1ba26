"""A pool worker that has not loaded LibCST hands the files its screens leave to LibCST to the
worker that has (run.parser_handover, run.board, run.pool), while the files handed over stay small:
one import of LibCST and the rules instead of two (issue 37: fast-agent's `-j` cost 1.06-1.08x
the CPU of `-j 1`, the second import). Nothing handed over changes what a check reports, and a
file handed over after the other worker's last batch is still checked, in that worker."""

from __future__ import annotations

import multiprocessing
import os
import textwrap
import time
from pathlib import Path

import pytest

from mcp_migrate.api import default_settings
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.project.discovery import SourceFile
from mcp_migrate.run import analysis, parser_handover, pool
from mcp_migrate.run import board as board_module
from mcp_migrate.run.board import Board, WorkerBoard
from mcp_migrate.run.one_file import check_item

#: A server whose check needs LibCST (its screens leave it to the rules).
ASKS = """
from mcp.server.fastmcp import Context, FastMCP

app = FastMCP("files")


@app.tool()
async def where(ctx: Context) -> list:
    return [str(r.uri) for r in await ctx.list_roots()]
"""
ASKS_FINDING = "8:39 RT001 `ctx.list_roots()` asks for roots, deprecated by SEP-2577"
#: A file the screens finish without LibCST.
PLAIN = "import os\n\nprint(os.getcwd())\n"


def _two() -> tuple:
    """Two workers' sides of one board, neither holding LibCST (here: two objects of this
    process, told apart by the pid each takes for its own)."""
    shared = Board(multiprocessing.Lock(), 2)
    first, second = WorkerBoard(shared, 0), WorkerBoard(shared, 3)
    first._parser_here = second._parser_here = False
    second._pid = first._pid + 1  # another worker's pid, alive or not: only compared
    return first, second


def test_the_first_worker_to_need_libcst_loads_it_and_the_others_hand_over():
    first, second = _two()
    assert first.hands_over(1000) is False  # the first: it loads LibCST
    assert first._board.parser_worker() == first._pid
    assert second.hands_over(1000) is True
    assert first.hands_over(1000) is False  # the holder checks its own
    assert second.hands_over(parser_handover.HANDOVER_BYTES) is False  # past the bytes: it loads LibCST itself
    assert second.hands_over(1) is False  # and checks the rest itself
    assert first._board.parser_worker() == first._pid


def test_the_bytes_handed_over_are_counted_for_the_whole_pool():
    first, second = _two()
    first.hands_over(1)
    half = parser_handover.HANDOVER_BYTES // 2
    assert second.hands_over(half) is True
    assert second.hands_over(half) is True
    assert second.hands_over(1) is False


def test_a_worker_that_inherited_libcst_never_hands_over():
    first, second = _two()
    second.hands_over(1)  # the holder
    first._parser_here = True  # forked after the main process loaded the engine
    assert first.hands_over(1) is False
    assert first._board.parser_worker() == second._pid


@pytest.mark.skipif(os.name != "posix", reason="a process is probed with signal 0 on POSIX only")
def test_a_worker_whose_holder_died_loads_libcst_itself():
    import subprocess

    first, second = _two()
    dead = subprocess.Popen(["true"])
    dead.wait()
    first._board._parser.value = dead.pid
    assert second.hands_over(1) is False
    assert first._board.parser_worker() == second._pid


def test_only_the_worker_that_holds_libcst_takes_the_files_handed_over():
    first, second = _two()
    first.hands_over(1)
    assert second.hands_over(1)
    item = (SourceFile("/p/a.py", "a.py"), "settings")
    assert second.hand(7, item) is True
    assert second.handed_files() == []
    assert first.handed_files() == [(7, item)]
    assert first.handed_files() == []  # each once


def test_a_file_handed_over_that_cannot_be_read_is_left_over():
    """The holder skips it; the pool's round of claims at the round's end checks it from the
    pool's own item (`test_a_file_handed_over_after_the_holders_last_batch_is_checked_there`)."""
    import pickle

    first, second = _two()
    first.hands_over(1)
    second.hands_over(1)
    assert second._append(pickle.dumps((board_module._HANDED, 4, b"not a pickle")))
    assert second.hand(5, ("/p/a.py", "settings"))
    assert first.handed_files() == [(5, ("/p/a.py", "settings"))]


def test_a_file_that_cannot_cross_is_not_handed_over(monkeypatch):
    first, second = _two()
    first.hands_over(1)
    second.hands_over(1)
    assert second.hand(1, (lambda: None, "settings")) is False
    monkeypatch.setattr(board_module, "BOARD_BYTES", 10)
    assert second.hand(2, ("/p/a.py", "settings")) is False  # the log is full
    assert first.handed_files() == []


def _write(tmp_path: Path, files: dict) -> list:
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        paths.append(path)
    return paths


def _codes(result) -> list:
    return [f"{f.line}:{f.column} {f.code} {f.message}" for f in result.findings]


def test_a_check_hands_over_only_a_file_left_to_libcst(tmp_path):
    asks, plain = _write(tmp_path, {"asks.py": ASKS, "plain.py": PLAIN})
    settings = default_settings(view=ProjectView())
    sizes: list = []

    def asker(size: int) -> bool:
        sizes.append(size)
        return True

    with parser_handover.asking(asker):
        assert analysis.check(plain.read_bytes(), str(plain), settings) is not parser_handover.HANDED
        assert sizes == []  # the screens finished it: nothing to ask
        assert analysis.check(asks.read_bytes(), str(asks), settings) is parser_handover.HANDED
        assert sizes == [len(asks.read_bytes())]
    assert _codes(analysis.check(asks.read_bytes(), str(asks), settings)) == [ASKS_FINDING]  # outside a batch


@pytest.fixture
def worker(monkeypatch):
    """This process as a pool worker: the progress array, the lock, a view (run.pool's
    globals); `as_worker(side)` makes `side` its side of the board."""
    first, second = _two()
    shared = first._board
    monkeypatch.setattr(pool, "_state", multiprocessing.RawArray("q", 8))
    monkeypatch.setattr(pool, "_shared", pool._Shared(shared._lock, None, shared))
    monkeypatch.setattr(pool, "_view", ProjectView())

    def as_worker(side: WorkerBoard) -> None:
        monkeypatch.setattr(pool, "_exchange", side)

    return first, second, as_worker


def _items(paths: list) -> list:
    settings = default_settings(view=ProjectView())
    return [(SourceFile(str(path), path.name), settings) for path in paths]


def test_a_batch_hands_its_libcst_files_to_the_holder_which_takes_them_between_its_own(tmp_path, worker):
    first, second, as_worker = worker
    one, two, plain, three = _items(
        _write(tmp_path, {"one.py": ASKS, "two.py": ASKS, "plain.py": PLAIN, "three.py": ASKS})
    )
    as_worker(first)
    assert [(index, _codes(result)) for index, result in pool._run_batch(check_item, [(0, one)])] == [
        (0, [ASKS_FINDING])
    ]
    as_worker(second)
    done = pool._run_batch(check_item, [(1, two), (2, plain)])
    assert [index for index, _ in done] == [2]  # `two` is handed over, unmarked
    assert pool._state[1] == 0 and pool._state[2] == -os.getpid()
    as_worker(first)
    done = pool._run_batch(check_item, [(3, three)])
    assert [(index, _codes(result)) for index, result in done] == [(3, [ASKS_FINDING]), (1, [ASKS_FINDING])]
    assert pool._state[1] == -os.getpid()


def test_a_batch_that_hands_nothing_over_checks_every_file(tmp_path, worker):
    first, second, as_worker = worker
    one, two = _items(_write(tmp_path, {"one.py": ASKS, "two.py": ASKS}))
    as_worker(first)
    pool._run_batch(check_item, [(0, one)])
    as_worker(second)
    assert [index for index, _ in pool._run_unhanded(check_item, [(1, two)])] == [1]


def test_a_file_the_board_cannot_take_is_checked_where_it_is(tmp_path, worker, monkeypatch):
    first, second, as_worker = worker
    one, two = _items(_write(tmp_path, {"one.py": ASKS, "two.py": ASKS}))
    as_worker(first)
    pool._run_batch(check_item, [(0, one)])
    as_worker(second)
    monkeypatch.setattr(second, "hand", lambda index, item: False)
    assert [(index, _codes(result)) for index, result in pool._run_batch(check_item, [(1, two)])] == [
        (1, [ASKS_FINDING])
    ]


#: Whether this process (a pool worker, forked) has yet to meet the other at the barrier.
_FIRST = [True]


def _checked_by(item):
    """A pool item's check, with the pid of the worker that made it. Each worker takes one item
    (the barrier): item 0 is checked at once (its worker loads LibCST); item 1 once the other
    worker holds LibCST, so it is handed over."""
    index, entry = item
    if _FIRST[0]:
        _FIRST[0] = False
        pool._shared.barrier.wait(10)
    if index == 1:
        deadline = time.monotonic() + 10
        while pool._exchange._board.parser_worker() == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
    result = check_item(entry)
    return result if result is parser_handover.HANDED else (os.getpid(), _codes(result))


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the workers inherit this process's patch")
def test_a_file_handed_over_after_the_holders_last_batch_is_checked_there(tmp_path, monkeypatch):
    """The holder takes no file between its own here (it has none left), so the round's end
    hands it the file in a round of claims."""
    monkeypatch.setattr(board_module, "_holds_parser", lambda: False)  # workers as if LibCST were not loaded
    monkeypatch.setattr(pool, "_run_handed", lambda func, exchange, pid: [])
    items = _items(_write(tmp_path, {"one.py": ASKS, "two.py": ASKS}))
    got = pool.run_pool(_checked_by, list(enumerate(items)), 2, lambda: None, alone=2)
    assert got is not None
    (first_pid, first_codes), (second_pid, second_codes) = got
    assert first_codes == second_codes == [ASKS_FINDING]
    assert first_pid == second_pid  # the holder checked both
