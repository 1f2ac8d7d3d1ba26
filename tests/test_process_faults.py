"""Concurrency and process faults (issue 23 §4): a file changed or deleted while `fix` writes it,
a pool worker killed mid-run, a fix interrupted by a signal while it writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

from mcp_migrate.commands.cli import cli

TESTS = Path(__file__).resolve().parent
CHANGED = "a.py: error: write changed on disk during the run (after it was read): not overwritten"
EDITED = FIXABLE + "# saved by an editor while fix was writing\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(FIXABLE)
    return tmp_path


def temporaries(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".mcp-migrate"))


def during_the_write(monkeypatch, action) -> None:
    """Run `action` once while fix writes its replacement (after the new bytes reach the disk,
    before the rename): the moment an editor's save used to be lost. Only the replacement's
    own fsync counts (a `*.mcp-migrate` file in the project folder), not the results cache's."""
    real = os.fsync
    calls = []

    def fsync(fd):
        real(fd)
        mine = os.fstat(fd)
        if not calls and any(os.path.samestat(mine, p.stat()) for p in Path.cwd().glob("*.mcp-migrate")):
            calls.append(fd)
            action()

    monkeypatch.setattr(os, "fsync", fsync)


def _in_place(path: Path) -> None:
    path.write_text(EDITED)


def _by_rename(path: Path) -> None:
    other = path.with_name("editor.tmp")
    other.write_text(EDITED)
    os.replace(other, path)


def _same_size_and_mtime(path: Path) -> None:
    """A save that keeps the size and the mtime (a coarse clock): only the bytes differ."""
    st = path.stat()
    path.write_text(FIXABLE.replace("main", "mane"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("save", [_in_place, _by_rename, _same_size_and_mtime])
def test_an_editor_save_while_fix_writes_is_kept(project, monkeypatch, save):
    """10 of 10 such saves were lost, exit 0 and no message: the file was compared with what
    was read before the replacement was written, not at the last moment."""
    path = project / "a.py"
    expected = FIXABLE.replace("main", "mane") if save is _same_size_and_mtime else EDITED
    during_the_write(monkeypatch, lambda: save(path))
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert path.read_text() == expected
    assert result.exit_code == 2, result.output
    assert CHANGED in result.output.splitlines()
    assert temporaries(project) == []


def test_a_file_deleted_while_fix_writes_stays_deleted(project, monkeypatch):
    """4 of 5 deleted files came back, written by the rename."""
    path = project / "a.py"
    during_the_write(monkeypatch, path.unlink)
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert not path.exists()
    assert result.exit_code == 2, result.output
    assert "a.py: error: write deleted during the run (after it was read): not written back" in result.output
    assert temporaries(project) == []


def _swaps_here(folder: Path) -> bool:
    """Whether this system swaps two names in one step in `folder` (project.exchange)."""
    from mcp_migrate.project.exchange import exchange

    first, second = folder / ".probe-1", folder / ".probe-2"
    first.write_text("1")
    second.write_text("2")
    try:
        return bool(exchange(str(first), str(second)))
    finally:
        first.unlink()
        second.unlink()


def at_the_last_look(monkeypatch, action) -> None:
    """Run `action` right after fix's last comparison of the file with what it read before it
    replaces it (the second: one before the replacement is written, one after): between that
    look and the rename, where an editor's save was lost in 1 of 36 tries, and a deleted file
    came back in 1 of 19."""
    from mcp_migrate.project import writer

    real = writer.changed_since
    looks = []

    def changed_since(path, before):
        answer = real(path, before)
        looks.append(path)
        if len(looks) == 2:
            action()
        return answer

    monkeypatch.setattr(writer, "changed_since", changed_since)


@pytest.mark.parametrize("save", [_in_place, _by_rename, _same_size_and_mtime])
def test_an_editor_save_after_the_last_look_is_kept(project, monkeypatch, save):
    if not _swaps_here(project):
        pytest.skip("no atomic exchange of two names here: the rename keeps a window (writer.py)")
    path = project / "a.py"
    expected = FIXABLE.replace("main", "mane") if save is _same_size_and_mtime else EDITED
    at_the_last_look(monkeypatch, lambda: save(path))
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert path.read_text() == expected
    assert result.exit_code == 2, result.output
    assert CHANGED in result.output.splitlines()
    assert sorted(p.name for p in project.iterdir()) == ["a.py"]


def test_a_file_deleted_after_the_last_look_stays_deleted(project, monkeypatch):
    if not _swaps_here(project):
        pytest.skip("no atomic exchange of two names here: the rename keeps a window (writer.py)")
    path = project / "a.py"
    at_the_last_look(monkeypatch, path.unlink)
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert not path.exists()
    assert result.exit_code == 2, result.output
    assert "a.py: error: write deleted during the run (after it was read): not written back" in result.output
    assert list(project.iterdir()) == []


def _after_the_swap(monkeypatch, action) -> None:
    """Run `action` right after fix's replacement has been swapped in (the file read is out)."""
    from mcp_migrate.project import exchange

    real = exchange.exchange
    done = []

    def swapped(first, second):
        answer = real(first, second)
        if not done:
            done.append(second)
            action()
        return answer

    monkeypatch.setattr(exchange, "exchange", swapped)


@pytest.mark.parametrize("save", [_by_rename, Path.unlink])
def test_a_save_or_deletion_just_after_the_swap_stands(project, monkeypatch, save):
    """After the swap the file at the path is fix's: a save then replaces it (kept), a
    deletion removes it (stays deleted); the file that came out is the one read, removed."""
    if not _swaps_here(project):
        pytest.skip("no atomic exchange of two names here")
    path = project / "a.py"
    _after_the_swap(monkeypatch, lambda: save(path))
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert result.exit_code == 0, result.output
    assert (path.read_text() if path.exists() else None) == (EDITED if save is _by_rename else None)
    assert sorted(p.name for p in project.iterdir()) == (["a.py"] if save is _by_rename else [])


def test_where_names_cannot_be_swapped_the_file_is_renamed_over(project, monkeypatch):
    from mcp_migrate.project import exchange

    monkeypatch.setattr(exchange, "exchange", lambda first, second: None)
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert (project / "a.py").read_text() == FIXED
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in project.iterdir()) == ["a.py"]


def test_an_unchanged_file_is_still_fixed(project):
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert (project / "a.py").read_text() == FIXED
    assert result.exit_code == 0, result.output


# --- a killed pool worker --------------------------------------------------------------------
def _kill_on_marker(item):
    """A worker that dies as a parser crash kills it: always on crash.py, the first time only
    on once.py (the kernel's OOM killer picks a worker that is not to blame)."""
    from mcp_migrate.run.one_file import check_file

    path = item[0].path
    if path.endswith("crash.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    if path.endswith("once.py") and not os.path.exists(path + ".killed"):
        open(path + ".killed", "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return check_file(item)


def test_a_killed_worker_costs_a_fresh_pool_not_a_process_per_file(tmp_path):
    """Every file left unfinished by a dead worker used to run in a process of its own, one
    after the other (15 s became 9 1/2 minutes); and a file in a worker killed once for
    another reason (once.py) was reported as crashing. Now the unfinished files run again in
    a fresh pool, and only the file that kills a worker twice runs alone."""
    head = "from mcp import ClientSession\n\n\nasync def run(session: ClientSession) -> None:\n"
    source = head + "    await session.send_roots_list_changed()\n"
    for index in range(40):
        (tmp_path / f"client_{index:02}.py").write_text(source)
    (tmp_path / "crash.py").write_text(source)
    (tmp_path / "once.py").write_text(source)
    code = textwrap.dedent(
        """
        import os, sys
        from pathlib import Path
        sys.path.insert(0, sys.argv[2])
        from test_process_faults import _kill_on_marker
        from mcp_migrate.run import pool, schedule
        from mcp_migrate.api import default_settings
        from mcp_migrate.project.discovery import SourceFile

        isolated = []
        real = pool._run_isolated
        pool._run_isolated = lambda func, item, advance: isolated.append(item[0].display) or real(func, item, advance)
        schedule.POOL_THRESHOLD = 4
        paths = sorted(Path(sys.argv[1]).glob("*.py"))
        items = [(SourceFile(str(p), p.name), default_settings()) for p in paths]
        for result in schedule.run_items(items, jobs=2, func=_kill_on_marker):
            print(result.path, *[f"{f.code}:{f.message}" for f in result.findings], sep="|")
        print("isolated", *isolated, sep="|")
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), str(TESTS)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, (run.returncode, run.stderr[-500:])
    rows = dict(line.split("|", 1) for line in run.stdout.splitlines())
    assert rows.pop("isolated") == "crash.py"
    assert rows.pop("crash.py") == ("E998:not analysed: the process analysing this file crashed (signal SIGKILL)")
    assert len(rows) == 41
    assert all(found.startswith("RT004:") and "|" not in found for found in rows.values()), rows


# --- a signal while fix writes -----------------------------------------------------------------
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_while_fix_writes_leaves_no_temporary_file(tmp_path, signum, status, default_signals):
    """SIGTERM (and SIGHUP) killed the process mid-write, leaving `.a.py.XXXXXXXX.mcp-migrate`
    until the next write in that folder ten minutes later; Ctrl-C already cleaned up."""
    (tmp_path / "a.py").write_text(FIXABLE)
    marker = tmp_path / "writing"
    code = textwrap.dedent(
        """
        import os, sys, time
        real = os.fsync
        def slow_fsync(fd, marker=sys.argv[1]):
            mine = os.fstat(fd)  # the replacement's fsync, not the results cache's
            if not any(n.endswith(".mcp-migrate") and os.path.samestat(mine, os.stat(n)) for n in os.listdir()):
                return real(fd)
            open(marker, "w").close()
            time.sleep(60)
        os.fsync = slow_fsync
        from mcp_migrate.commands.cli import main
        main(["fix", "--output-format", "concise", "a.py"])
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(marker)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), child.communicate(timeout=5)
        assert len([p for p in tmp_path.iterdir() if p.name.endswith(".mcp-migrate")]) == 1
        child.send_signal(signum)
        _out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    name = signal.Signals(signum).name
    expected = "mcp-migrate: interrupted" if signum == signal.SIGINT else f"mcp-migrate: terminated ({name})"
    assert (child.returncode, err.decode().splitlines()) == (status, [expected])
    assert temporaries(tmp_path) == []
    assert (tmp_path / "a.py").read_text() == FIXABLE


# --- the main process killed outright ----------------------------------------------------------
def _children(pid: int) -> list:
    """The pids whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Running still (a zombie is dead: nobody has reaped it yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


#: The run with only the portable watch: the kernel's parent-death signal left out.
WITHOUT_PRCTL = "from mcp_migrate.run import lifeline; lifeline._ask_the_kernel = lambda: False\n"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@pytest.mark.parametrize("prelude", ["", WITHOUT_PRCTL], ids=["prctl", "watch"])
def test_workers_end_when_the_main_process_is_killed_so_a_pipe_reader_sees_the_end(tmp_path, prelude):
    """`mcp-migrate check | tee log`, the main process killed by the OOM killer: the pool's
    workers waited on their queue for ever, holding the pipe's write end, so `tee` never
    saw the end of its input and the CI step hung. Now they end with the main process."""
    body = FIXABLE + "".join(
        f"\n\nasync def f{i}(session: ClientSession) -> None:\n    await session.send_roots_list_changed()\n"
        for i in range(60)
    )
    for index in range(70):  # a pool: over 64 files, over 256 KiB left for LibCST
        (tmp_path / f"m{index:02d}.py").write_text(body)
    code = prelude + "from mcp_migrate.commands.process import run\nrun()\n"
    argv = [sys.executable, "-c", code, "check", "--no-cache", "-j", "2", "."]
    main = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    reader = subprocess.Popen(["cat"], stdin=main.stdout, stdout=subprocess.DEVNULL)
    main.stdout.close()  # the reader's and the run's ends only, as in a shell's pipe
    workers: list = []
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and main.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            workers = _children(main.pid)
        assert len(workers) == 2 and main.poll() is None, "the pool never started"
        main.kill()
        main.wait()
        reader.wait(timeout=30)  # a hang check: before, it never ended
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if _alive(pid)] == []
    finally:
        for process in (main, reader):
            if process.poll() is None:
                process.kill()
                process.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# --- a signal while fix's pool runs ------------------------------------------------------------
def _slow_item(item):
    time.sleep(0.2)
    return item[0].display


def test_an_interrupted_pool_leaves_no_manager_thread_and_no_worker(monkeypatch, tmp_path):
    """The pool stopped by Ctrl-C or SIGTERM left its manager thread running, and Python's exit
    raced it ("Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file
    descriptor" after "terminated (SIGTERM)", 1 of 10 fix runs): the thread has reaped the
    workers and ended before the interrupt leaves the pool."""
    import contextlib
    import multiprocessing
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    from mcp_migrate.project.discovery import SourceFile
    from mcp_migrate.run import schedule

    def interrupted(total):
        def advance():
            raise KeyboardInterrupt  # what Terminated is, arriving as the first batch ends

        return contextlib.nullcontext(advance)

    monkeypatch.setattr(schedule, "POOL_THRESHOLD", 4)
    items = [(SourceFile(str(tmp_path / f"{i}.py"), f"{i}.py"), None) for i in range(40)]
    with pytest.raises(KeyboardInterrupt):
        schedule.run_items(items, jobs=2, func=_slow_item, progress=interrupted)
    managers = [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]
    assert (managers, multiprocessing.active_children()) == ([], [])


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
def test_sigterm_while_fix_computes_in_its_pool_is_one_line_and_leaves_nothing(tmp_path, default_signals):
    """SIGTERM while `fix`'s workers compute: the one line, 143, no traceback, no file written or
    half-written, no temporary file, no worker left."""
    body = FIXABLE + "".join(
        f"\n\nasync def f{i}(session: ClientSession) -> None:\n    await session.send_roots_list_changed()\n"
        for i in range(60)
    )
    for index in range(70):
        (tmp_path / f"m{index:02d}.py").write_text(body)
    code = "from mcp_migrate.commands.process import run\nrun()\n"
    main = subprocess.Popen(
        [sys.executable, "-c", code, "fix", "-j", "2", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pools: list = []
    try:
        deadline = time.monotonic() + 300
        while len(pools) < 2 and main.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            workers = sorted(_children(main.pid))
            if len(workers) == 2 and workers not in pools:
                pools.append(workers)  # the plan's check, then the fixes
        assert len(pools) == 2 and main.poll() is None, "the fix pool never started"
        main.send_signal(signal.SIGTERM)
        _out, err = main.communicate(timeout=60)
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()
    assert (main.returncode, err.decode().splitlines()) == (143, ["mcp-migrate: terminated (SIGTERM)"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"m{index:02d}.py" for index in range(70)]
    assert {p.read_text() for p in tmp_path.iterdir()} == {body}
    assert [pid for pid in pools[1] if _alive(pid)] == []
