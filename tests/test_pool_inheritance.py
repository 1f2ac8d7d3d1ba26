"""What a pool's forked workers inherit from the main process (run.pool, run.schedule): the
run's project view as the main process has worked it out, and LibCST with the engine where the
main process knows, before forking, that a file is left for LibCST. Without them every worker
worked out the project's import graph and imported LibCST again (issue 37: the pool cost
1.2-1.5x the CPU of `-j 1` on fast-agent). What is counted is work (what a worker holds as it
starts), never time."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_migrate
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.settings import Settings
from mcp_migrate.run import pool

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
ONE_FINDING = (REPO / "fixtures" / "example" / "server.py").read_text()
CLEAN = "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n"

forked = pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="only a forked worker inherits the main process's memory"
)


def _answer_in_view(item):
    """A pool item's work: what the worker's view holds under the main process's probe."""
    return item[1].view.table("probe").get("answer")


@forked
def test_a_forked_worker_starts_from_the_main_processs_view():
    view = ProjectView(stamps=False)
    view.table("probe")["answer"] = 42
    settings = Settings(select=frozenset(), view=view)
    got = pool.run_pool(_answer_in_view, [(index, settings) for index in range(6)], 2, lambda: None)
    assert got == [42] * 6
    assert pool._parent_view is None  # the run's view is not held after its pool


PROBE = """
import json, os, sys
from mcp_migrate.run import pool, schedule
RULE = "mcp_migrate.rules.rt001_roots_request"
schedule.SCREEN_POOL_FILES = int(sys.argv[1])
schedule.SCREEN_BUDGET = 0  # the pool takes over after the first file
schedule.POOL_BYTES = 0
started = pool._start_worker

def start(*args):
    with open(os.environ["STARTS"], "a") as out:
        out.write(json.dumps(["libcst" in sys.modules, RULE in sys.modules]) + "\\n")
    started(*args)

pool._start_worker = start
from mcp_migrate.commands.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
print(json.dumps("libcst" in sys.modules))
"""


def _workers_start(tmp_path: Path, screen_pool_files: int, files: dict) -> tuple:
    """Whether each pool worker of `check -j 2` held LibCST and a rule module as it started
    (a pair per worker), and whether the main process loaded LibCST, over a tree of `files`."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    starts = tmp_path / "starts.jsonl"
    env = dict(os.environ, STARTS=str(starts))
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(screen_pool_files), "check", "--no-cache", "-q", "-j", "2", "."],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    held = [json.loads(line) for line in starts.read_text().splitlines()] if starts.exists() else []
    return held, json.loads(out.splitlines()[-1])


def _tree(findings: int, clean: int) -> dict:
    files = {f"a{i}.py": ONE_FINDING for i in range(findings)}
    files.update({f"s{i:03}.py": CLEAN for i in range(clean)})
    return files


@forked
def test_workers_that_screen_inherit_libcst_where_a_file_passed_before_the_fork(tmp_path):
    """A big check (screened in the pool) whose first file passes the screens."""
    from mcp_migrate.run.schedule import POOL_THRESHOLD

    held, main = _workers_start(tmp_path, POOL_THRESHOLD + 1, _tree(2, POOL_THRESHOLD + 8))
    assert held == [[True, True], [True, True]]
    assert main is True


@forked
def test_workers_that_only_parse_inherit_libcst(tmp_path):
    """A check screened here first hands the pool only files left for LibCST."""
    from mcp_migrate.run.schedule import POOL_THRESHOLD

    held, main = _workers_start(tmp_path, 10**6, _tree(2, POOL_THRESHOLD + 8))
    assert held == [[True, True], [True, True]]
    assert main is True


@forked
def test_workers_of_a_big_check_where_no_file_passes_early_hold_no_libcst(tmp_path):
    """No file passes before the fork: LibCST is not loaded on a guess (a tree without findings
    must not pay for it); a worker that needs it loads it itself."""
    from mcp_migrate.run.schedule import POOL_THRESHOLD

    held, main = _workers_start(tmp_path, POOL_THRESHOLD + 1, _tree(0, 2 * POOL_THRESHOLD + 10))
    assert held == [[False, False], [False, False]]
    assert main is False


@forked
def test_a_file_that_passes_only_the_byte_screens_loads_no_libcst(tmp_path):
    """Roots vocabulary that no syntax screen keeps (a comment naming `list_roots` in MCP code,
    as a migrated project may leave) is no reason to load LibCST: a tree of such files and no
    finding loads it in no process."""
    from mcp_migrate.run.schedule import POOL_THRESHOLD

    files = _tree(0, 2 * POOL_THRESHOLD + 10)
    files["a_words.py"] = CLEAN + "# list_roots is not called here\n"
    held, main = _workers_start(tmp_path, POOL_THRESHOLD + 1, files)
    assert held == [[False, False], [False, False]]
    assert main is False
