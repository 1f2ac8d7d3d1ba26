"""The pool a check keeps for its checks again under the run's plan (run.pool.kept_pool): the
files checked again go to the workers that checked the tree, which have LibCST and their
project views, not to a main process that would import and read everything afresh (issue 37).
The pool still loses no file to a dead worker, and ends with the run, at once on Ctrl-C."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import pickle
import signal
import threading
from concurrent.futures.process import _ExecutorManagerThread

import pytest

from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.project.discovery import SourceFile
from mcp_migrate.run import pool, schedule
from mcp_migrate.run.one_file import check_file


def _pid_of(item):
    """A worker's answer: which process checked the item (crash.py kills its worker)."""
    if item[0].display == "crash.py":
        os.kill(os.getpid(), signal.SIGKILL)
    return item[0].display, os.getpid()


def _items(tmp_path, names) -> list:
    return [(SourceFile(str(tmp_path / name), name), None) for name in names]


def _no_pool_left() -> tuple:
    managers = [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]
    return managers, multiprocessing.active_children()


def _round(tmp_path, names) -> list:
    return pool.run_pool(_pid_of, _items(tmp_path, names), 2, lambda: None)


def test_the_checks_again_go_to_the_workers_of_the_first_check(tmp_path):
    first_names = [f"{i}.py" for i in range(40)]
    with pool.kept_pool():
        first = _round(tmp_path, first_names)
        assert pool.kept_workers() == 2
        workers = set(pool._KEEP[1].executor._processes)  # (under load one worker may take every batch)
        again = _round(tmp_path, ["3.py", "7.py", "9.py"])
        assert pool.kept_workers() == 2
    assert [name for name, _ in first] == first_names and {pid for _, pid in first} <= workers
    assert os.getpid() not in workers
    assert [name for name, _ in again] == ["3.py", "7.py", "9.py"]
    assert {pid for _, pid in again} <= workers
    assert pool.kept_workers() == 0 and _no_pool_left() == ([], [])


def test_a_check_again_goes_to_the_worker_that_checked_the_file(tmp_path):
    """That worker's view holds the file's tree and its helper modules' answers (issue 37: with
    `-j`, context-forge's four test modules checked again were parsed again in the other
    worker); a file no worker of the pool checked goes to either."""
    names = [f"{i}.py" for i in range(40)]
    again_names = ["3.py", "new.py", "7.py", "20.py", "30.py", "39.py"]
    with pool.kept_pool():
        first = dict(_round(tmp_path, names))
        workers = set(pool._KEEP[1].executor._processes)
        again = _round(tmp_path, again_names)
        assert pool._CHECKED_BY  # the owners of the files of the run so far
    assert [name for name, _ in again] == again_names
    assert {name: pid for name, pid in again if name != "new.py"} == {
        name: first[name] for name in again_names if name != "new.py"
    }
    assert dict(again)["new.py"] in workers
    assert pool._CHECKED_BY == {} and _no_pool_left() == ([], [])


def test_without_it_each_round_starts_and_ends_its_own_pool(tmp_path):
    first = _round(tmp_path, [f"{i}.py" for i in range(40)])
    assert _no_pool_left() == ([], []) and pool.kept_workers() == 0
    again = _round(tmp_path, ["3.py", "7.py"])
    assert not {pid for _, pid in again} & {pid for _, pid in first}


def test_a_round_larger_than_the_kept_pool_marks_starts_a_fresh_pool(tmp_path):
    with pool.kept_pool():
        first = _round(tmp_path, ["a.py", "b.py"])
        again = _round(tmp_path, [f"{i}.py" for i in range(10)])
    assert not {pid for _, pid in again} & {pid for _, pid in first}
    assert _no_pool_left() == ([], [])


def test_a_worker_dying_in_the_kept_pool_loses_no_file(tmp_path):
    """The kept pool breaks: the files it held run again in a fresh pool, and the one that
    kills a worker twice runs alone (E998), as in any pool. (Which pool is kept at the end
    depends on which files the dying workers held: a last round without a death is kept.)"""
    with pool.kept_pool():
        _round(tmp_path, [f"{i}.py" for i in range(40)])
        again = _round(tmp_path, ["1.py", "crash.py", "2.py"])
    assert [getattr(result, "path", None) or result[0] for result in again] == ["1.py", "crash.py", "2.py"]
    assert [f.code for f in again[1].findings] == ["E998"]
    assert _no_pool_left() == ([], [])


def test_ctrl_c_ends_the_kept_pool_at_once(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with pool.kept_pool():
            _round(tmp_path, [f"{i}.py" for i in range(40)])
            raise KeyboardInterrupt
    assert pool.kept_workers() == 0 and _no_pool_left() == ([], [])


def test_the_schedule_sends_a_check_again_to_the_kept_pool_unless_told_one_process(tmp_path, monkeypatch):
    sent: list = []
    monkeypatch.setattr(schedule, "run_pool", lambda func, items, workers, advance: sent.append(workers) or [1, 2])
    monkeypatch.setattr(schedule, "kept_workers", lambda: 2)
    items = _items(tmp_path, ["a.py", "b.py"])
    assert schedule.run_items(items, jobs=0, func=check_file) == [1, 2]
    assert sent == [2]
    monkeypatch.setattr(schedule, "_here", lambda func, items, advance: ["here"] * len(items))
    assert schedule.run_items(items, jobs=1, func=check_file) == ["here", "here"]
    assert sent == [2]


@dataclasses.dataclass(frozen=True)
class _Settings:
    view: object


def _answers_of(item):
    """A worker's answer: which process checked the item, and the answers its view holds."""
    return os.getpid(), dict(pool._view.table("answers"))


def test_answers_a_view_hands_over_reach_whichever_worker_checks_again(tmp_path):
    """A check's answer worked out in one worker (a huge test module's partial source) goes with
    the check again to whichever worker takes it (run.coordination hands it over); the view
    hands nothing outside the block, and the main process keeps the answer too."""
    view = ProjectView(stamps=False)
    items = [(SourceFile(str(tmp_path / f"{i}.py"), f"{i}.py"), _Settings(view)) for i in range(40)]
    held = ("the partial source", frozenset({("/p/helper.py", 10, 1)}))
    with pool.kept_pool():
        first = pool.run_pool(_answers_of, items, 2, lambda: None)
        with view.handing((("answers", "key", held),)):
            again = pool.run_pool(_answers_of, items[:4], 2, lambda: None)
    assert [answers for _, answers in first] == [{}] * 40
    assert [answers for _, answers in again] == [{"key": held}] * 4
    assert view.table("answers") == {"key": held}
    assert pickle.loads(pickle.dumps(view))._handed == ()
    assert _no_pool_left() == ([], [])


def _reading_kept(item):
    return pool._view.kept_reading(b"x = 1\n") is not None


def test_a_pool_starts_without_the_readings_the_main_process_kept(tmp_path):
    """The workers start as copies of the main process: the `ast` readings its screens kept
    (core.project_view.kept_reading) are dropped first, or each worker's memory holds them too
    (issue 37: context-forge's peak 360 -> 463 MB)."""
    from mcp_migrate.core.screen import read

    view = ProjectView(stamps=False)
    read(b"x = 1\n", "", view)
    assert view.kept_reading(b"x = 1\n") is not None
    items = [(SourceFile(str(tmp_path / f"{i}.py"), f"{i}.py"), _Settings(view)) for i in range(40)]
    assert pool.run_pool(_reading_kept, items, 2, lambda: None) == [False] * 40
    assert view.kept_reading(b"x = 1\n") is None


def test_the_files_left_for_libcst_go_to_the_workers_one_by_one():
    """A file left for LibCST costs as much as a batch of screened files: each is a batch of its
    own, sent first, and the rest keep their order in batches (of up to 64, four a worker)."""
    assert pool.batched(list(range(20)), 2, alone=3) == [
        [0],
        [1],
        [2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
        [11, 12],
        [13, 14],
        [15, 16],
        [17, 18],
        [19],
    ]
    assert pool.batched(list(range(1000)), 2)[0] == list(range(64))
    assert pool.batched([1, 5, 7], 2, alone=2) == [[1], [5], [7]]  # a later round: what is still pending
