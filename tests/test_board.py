"""The board a pool's workers share (run.board): a worker that needs an answer another worker
has worked out reads it there, and where the other worker is analysing that very module, waits
for its analysis rather than working the module out a second time (issue 37: context-forge's
572 KB `main.py` analysed by both workers, `-j` at 1.16x the CPU of `-j 1`). Nothing on the
board changes what a check reports: a wait that would close a circle is not begun, a full board
takes no more answers, and an answer that cannot cross is worked out where it is needed."""

from __future__ import annotations

import multiprocessing
import os
import textwrap
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_project_view import HELPER_CALL, HELPERS, SERVER  # a server calling a helper that asks for roots

from mcp_migrate.api import check_source, default_settings
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.run import board as board_module
from mcp_migrate.run import pool
from mcp_migrate.run.board import Board, WorkerBoard

KEYS = "imported helpers: keys"


def _two(workers: int = 2) -> tuple:
    """Two workers' sides of one board, as two pool workers hold them (slots 0 and 1; here two
    threads of this process)."""
    shared = Board(multiprocessing.Lock(), workers)
    shared._slots[0] = shared._slots[3] = os.getpid()  # alive: a wait for a dead worker ends
    return WorkerBoard(shared, 0), WorkerBoard(shared, 3)


def test_an_answer_one_worker_posts_the_other_reads():
    first, second = _two()
    assert second.settled("table", ("/p/helper.py", 1, 2, ("tokens",)), "/p/helper.py", False) is None
    first.post("table", ("/p/helper.py", 1, 2, ("tokens",)), {(None, "get_dirs")})
    first.post("table", ("/p/other.py", 1, 2, ("tokens",)), set())
    assert second.settled("table", ("/p/helper.py", 1, 2, ("tokens",)), "/p/helper.py", False) == {(None, "get_dirs")}
    assert second.settled("table", ("/p/other.py", 1, 2, ("tokens",)), "/p/other.py", False) == set()
    assert second.settled("other table", ("/p/helper.py", 1, 2, ("tokens",)), "/p/helper.py", False) is None


def _until(holds) -> None:
    """Wait (at most 10 s) until `holds()`: another thread's mark on the board."""
    deadline = time.monotonic() + 10
    while not holds() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert holds()


def test_a_worker_waits_for_the_analysis_of_the_module_it_needs(tmp_path):
    """The answer arrives as the other worker's analysis of the module ends: the waiting worker
    takes it instead of working the module out itself."""
    first, second = _two()
    helper = str(tmp_path / "helper.py")
    ended = threading.Event()

    release = threading.Event()

    def analyse():
        with first.analysing(helper):
            release.wait(10)
            first.post("table", "key", "the keys")
        ended.set()

    thread = threading.Thread(target=analyse)
    thread.start()
    _until(lambda: first._board._slots[1] != 0)
    assert second.settled("table", "key", helper, False) is None  # not an answer its check publishes
    timer = threading.Timer(0.2, release.set)
    timer.start()
    assert second.settled("table", "key", helper, True) == "the keys"  # posted after it asked
    assert release.is_set() and first._board._slots[1] == 0  # its wait ended with the analysis
    thread.join()
    assert ended.is_set()


def test_a_worker_does_not_wait_for_a_module_nobody_analyses(tmp_path):
    first, second = _two()
    with first.analysing(str(tmp_path / "other.py")):
        started = time.monotonic()  # a wait here would last until the block's end: WAIT_SECONDS
        assert second.settled("table", "key", str(tmp_path / "helper.py"), True) is None
        assert time.monotonic() - started < 5
    assert first._board._slots[1] == 0  # the analysis's end is marked


def test_a_wait_that_would_close_a_circle_is_not_begun(tmp_path):
    """Two modules importing each other, each analysed by one worker that needs the other's
    answer: the second to ask works its answer out itself, and the first's wait ends with it."""
    first, second = _two()
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    got: list = []
    with second.analysing(b):
        with first.analysing(a):
            waiting = threading.Thread(target=lambda: got.append(first.settled("table", "b's key", b, True)))
            waiting.start()
            _until(lambda: first._board._slots[2] != 0)  # the first worker waits for b's analysis
            started = time.monotonic()  # a wait here would last WAIT_SECONDS: the first's analysis waits for it
            assert second.settled("table", "a's key", a, True) is None  # b's worker would wait for a: it does not
            assert time.monotonic() - started < 5
            assert first._board._slots[2] != 0  # (it returned while the first still waits)
            second.post("table", "b's key", "b's keys")
    waiting.join()
    assert got == ["b's keys"]
    assert first._board._slots[2] == 0


def test_a_full_board_takes_no_more_answers(monkeypatch):
    monkeypatch.setattr(board_module, "BOARD_BYTES", 200)
    first, second = _two()
    first.post("table", "small", "x")
    first.post("table", "large", "y" * 300)
    first.post("table", "small too", "z")
    assert second.settled("table", "small", "/p/a.py", False) == "x"
    assert second.settled("table", "large", "/p/a.py", False) is None
    assert second.settled("table", "small too", "/p/a.py", False) == "z"


def test_an_answer_that_cannot_cross_is_not_posted():
    first, second = _two()
    first.post("table", "key", lambda: None)
    assert first._board._used.value == 0
    assert second.settled("table", "key", "/p/a.py", False) is None


def _post_from_a_spawned_worker(shared: Board) -> None:
    shared.for_worker().post("table", "key", "from the spawned worker")


def test_a_spawned_worker_is_handed_the_board_as_it_starts():
    """Where workers are not forked (macOS's and Windows' default), the board goes with the
    pool's initializer arguments, as the lock and the progress array do."""
    spawn = multiprocessing.get_context("spawn")
    shared = Board(spawn.Lock(), 2)
    worker = spawn.Process(target=_post_from_a_spawned_worker, args=(shared,))
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    mine = shared.for_worker()
    assert mine is not None and mine.settled("table", "key", "/p/a.py", False) == "from the spawned worker"


def test_a_board_cannot_be_sent_to_a_running_worker():
    import pickle

    with pytest.raises(RuntimeError):
        pickle.dumps(Board(multiprocessing.Lock(), 2))


def test_each_worker_claims_a_slot_of_its_own():
    shared = Board(multiprocessing.Lock(), 1)
    mine = shared.for_worker()
    assert mine is not None and shared._slots[0] == os.getpid()
    assert shared.for_worker() is not None  # the same process again: its own slot
    shared._slots[0] = os.getpid() + 1
    assert shared.for_worker() is None  # every slot taken: the worker works alone


class _Exchange:
    """A view's exchange that gives `answers` and records what the engine tells it."""

    def __init__(self, answers: dict) -> None:
        self.answers = answers
        self.asked: list = []
        self.posted: list = []
        self.analysed: list = []

    def settled(self, name, key, source, wait):
        self.asked.append((name, Path(source).name, wait))
        return self.answers.get(name)

    def post(self, name, key, answer):
        self.posted.append((name, Path(key[0]).name, answer))

    @contextmanager
    def analysing(self, path):
        self.analysed.append(Path(path).name)
        yield


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project" / "app"
    root.mkdir(parents=True)
    for name, text in {"__init__.py": "", "server.py": SERVER, "helpers.py": HELPERS}.items():
        (root / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def _findings(path: Path, exchange) -> list:
    view = ProjectView()
    view.exchange = exchange
    settings = default_settings(view=view)
    return [
        f"{f.line}:{f.column} {f.code} {f.message}"
        for f in check_source(path.read_text(), str(path), settings=settings)
    ]


def test_a_check_asks_the_exchange_before_analysing_a_helper_and_posts_what_it_found(tmp_path):
    root = _project(tmp_path)
    exchange = _Exchange({})
    assert _findings(root / "server.py", exchange) == [HELPER_CALL]
    assert (KEYS, "helpers.py", True) in exchange.asked  # the helper's own check publishes them
    assert (KEYS, "helpers.py", {(None, "get_dirs")}) in exchange.posted
    assert exchange.analysed == ["server.py"]


def test_a_helpers_answer_on_the_exchange_is_the_one_the_check_uses(tmp_path):
    """The exchange's answer (here: the helper asks for nothing) stands for the helper's
    analysis, which does not run."""
    root = _project(tmp_path)
    exchange = _Exchange({KEYS: set()})
    assert _findings(root / "server.py", exchange) == []
    assert [posted for posted in exchange.posted if posted[0] == KEYS] == [(KEYS, "server.py", set())]  # its own


MAY_DO = "imported asks: may do"


def test_a_screens_answer_about_a_helper_module_goes_through_the_exchange(tmp_path):
    """The syntax screen's answer whether a module may hold a helper (vocabulary.helper_screens)
    is read of the other workers' answers first and posted when worked out here."""
    root = _project(tmp_path)
    exchange = _Exchange({})
    assert _findings(root / "server.py", exchange) == [HELPER_CALL]
    assert (MAY_DO, "helpers.py", False) in exchange.asked
    assert [file for name, file, _ in exchange.posted if name == MAY_DO] == ["__init__.py", "helpers.py"]


def test_a_screens_answer_on_the_exchange_is_the_one_the_screen_uses(tmp_path):
    """Here the exchange says the helper module cannot hold a helper: the screen lets no rule
    through for the call, and the helper is never analysed."""
    root = _project(tmp_path)
    exchange = _Exchange({MAY_DO: False})
    assert _findings(root / "server.py", exchange) == []
    assert not any(name == KEYS for name, _, _ in exchange.asked)


def test_a_module_checked_publishes_its_keys_to_the_exchange(tmp_path):
    root = _project(tmp_path)
    exchange = _Exchange({})
    _findings(root / "helpers.py", exchange)
    assert (KEYS, "helpers.py", {(None, "get_dirs")}) in exchange.posted
    assert exchange.analysed == ["helpers.py"]


def _analysed_or_waited(item):
    """A pool item's work, in one of two workers that both reach it (the barrier): the helper's
    analysis (0), or a check that needs the helper's answer while the analysis runs (1)."""
    index, helper = item
    pool._shared.barrier.wait(10)
    exchange = pool._exchange
    if index == 0:
        with exchange.analysing(helper):
            time.sleep(0.4)
            exchange.post(KEYS, "key", {(None, "get_dirs")})
        return "posted"
    time.sleep(0.1)
    return exchange.settled(KEYS, "key", helper, True)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the board is inherited by a fork")
def test_two_workers_of_a_pool_share_the_board(tmp_path):
    helper = str(tmp_path / "helpers.py")
    got = pool.run_pool(_analysed_or_waited, [(0, helper), (1, helper)], 2, lambda: None, alone=2)
    assert got == ["posted", {(None, "get_dirs")}]


@pytest.mark.skipif(os.name != "posix", reason="a process is probed with signal 0 on POSIX only")
def test_a_wait_for_a_worker_that_died_ends(tmp_path):
    """A worker killed in the middle of an analysis leaves its mark: the one waiting for it
    stops waiting once that process is gone (the pool then runs the dead worker's files again)."""
    import subprocess

    first, second = _two()
    helper = str(tmp_path / "helper.py")
    with first.analysing(helper):
        dead = subprocess.Popen(["true"])
        dead.wait()
        first._board._slots[0] = dead.pid  # the analysing worker, as it died
        started = time.monotonic()
        assert second.settled("table", "key", helper, True) is None
        assert time.monotonic() - started < 5
