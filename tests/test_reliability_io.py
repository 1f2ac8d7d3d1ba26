"""Issue 14, the input/output half: special files, file names that are not UTF-8, files an
editor would not overwrite, outputs that would replace inputs, temporary files, selection and
config input that must be refused in one clear line, interrupts."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import threading
import time

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

from mcp_migrate.commands.cli import cli

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args, input=None):
    env = {"NO_COLOR": "1", "FORCE_COLOR": None}
    return CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=False)


@contextlib.contextmanager
def fifo_watchdog(path, after: float = 5.0, payload: bytes = b""):
    """A writer that opens and closes the FIFO after `after` seconds, so code that wrongly opens
    it for reading gets EOF and the test fails instead of hanging the suite. `payload` is
    written first, so a wrong read also shows in what it read."""
    done = threading.Event()

    def unblock():
        if done.wait(after):
            return
        while not done.is_set():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.write(fd, payload)
                os.close(fd)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: nobody is reading yet
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


# 4. special files ---------------------------------------------------------------------------
@needs_fifo
@pytest.mark.parametrize("args", [("check",), ("check", "--force-exclude"), ("fix",)])
def test_a_named_fifo_is_reported_not_read(project, args):
    os.mkfifo(project / "pipe.py")
    with fifo_watchdog(str(project / "pipe.py")):
        result = invoke(*args, "pipe.py")
    assert "pipe.py:1:1: E902 cannot read file: not a regular file (a named pipe)" in result.output
    assert result.exit_code == 1


def test_a_named_character_device_is_reported_not_read(project):
    """/dev/zero was read until MemoryError; /dev/null shows the same path without the risk."""
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    result = invoke("check", "--output-format", "concise", "/dev/null")
    assert "/dev/null:1:1: E902 cannot read file: not a regular file (a character device)" in result.output
    assert result.exit_code == 1


@needs_fifo
def test_special_files_met_while_walking_are_not_read(project):
    (project / "a.py").write_text(FIXABLE)
    os.mkfifo(project / "pipe.py")
    if os.path.exists("/dev/zero"):
        (project / "zero.py").symlink_to("/dev/zero")
    with fifo_watchdog(str(project / "pipe.py")):
        result = invoke("check", "--output-format", "concise", ".")
    assert "Checked 1 file" in result.output


@needs_fifo
def test_a_gitignore_that_is_a_fifo_is_skipped_not_read(project):
    """Discovery reads every folder's .gitignore: a FIFO there blocked the walk forever."""
    (project / "a.py").write_text(FIXABLE)
    os.mkfifo(project / ".gitignore")
    with fifo_watchdog(str(project / ".gitignore"), after=0.0, payload=b"*.py\n"):
        result = invoke("check", "--output-format", "concise", ".")
    assert "Checked 1 file" in result.output
    assert "E902" not in result.output


@needs_fifo
def test_a_fifo_given_as_config_is_refused(project):
    os.mkfifo(project / "conf.toml")
    (project / "a.py").write_text("x = 1\n")
    with fifo_watchdog(str(project / "conf.toml")):
        result = invoke("check", "--config", "conf.toml", "a.py")
    assert result.exit_code == 2
    assert "conf.toml: cannot read: not a regular file (a named pipe)" in result.output


def test_standard_input_still_works(project):
    result = invoke("check", "--output-format", "concise", "--stdin-filename", "a.py", "-", input=FIXABLE)
    assert "a.py:6:11: RT004" in result.output
    assert result.exit_code == 1


# 9. files an editor would not overwrite -----------------------------------------------------
def test_fix_refuses_a_read_only_file(project):
    path = project / "a.py"
    path.write_text(FIXABLE)
    os.chmod(path, 0o444)
    result = invoke("fix", "--output-format", "concise", "a.py")
    assert path.read_text() == FIXABLE
    assert "a.py: error: write read-only file: not overwritten (make it writable to change it)" in result.output
    assert "a.py:6:11: RT004" in result.output  # what remains is the original's findings
    assert result.exit_code == 2


def test_fix_refuses_to_replace_another_users_file(project, monkeypatch):
    """Replacing another user's file in a writable folder gives the new file to the runner;
    pretend to be a user other than the file's owner (and not root)."""
    path = project / "a.py"
    path.write_text(FIXABLE)
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(path).st_uid + 4242, raising=False)
    result = invoke("fix", "a.py")
    assert path.read_text() == FIXABLE
    assert "owned by another user" in result.output and "not replaced" in result.output
    assert result.exit_code == 2


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_root_fixes_another_users_file_and_keeps_its_owner(project):
    path = project / "a.py"
    path.write_text(FIXABLE)
    os.chown(path, 4242, 4242)
    assert invoke("fix", "a.py").exit_code == 0
    assert path.read_text() == FIXED
    assert (os.stat(path).st_uid, os.stat(path).st_gid) == (4242, 4242)


# 10. outputs that would replace inputs, temporary files -------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("check", "-o", "a.py", "."),
        ("check", "--write-baseline", "a.py", "."),
        ("check", "--report", "./a.py", "a.py"),
        ("fix", "--report", "a.py", "a.py"),
        ("check", "-o", "link.py", "a.py"),
    ],
)
def test_an_output_option_never_overwrites_an_input(project, args):
    path = project / "a.py"
    path.write_text(FIXABLE)
    (project / "link.py").symlink_to(path)
    result = invoke(*args)
    assert result.exit_code == 2
    assert "is one of the files being checked: not overwritten" in result.output
    assert path.read_text() == FIXABLE


def _temporary_files(folder) -> list:
    return sorted(p.name for p in folder.iterdir() if "mcp-migrate" in p.name)


def test_a_failed_baseline_write_leaves_no_temporary_file(project, monkeypatch):
    (project / "a.py").write_text(FIXABLE)
    (project / "folder").mkdir()
    assert invoke("check", "--write-baseline", "folder", "a.py").exit_code == 2
    assert _temporary_files(project) == []

    def refuse(src, dst):
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = invoke("check", "--write-baseline", "baseline.json", "a.py")
    assert result.exit_code == 2
    assert "baseline.json: cannot write baseline: Permission denied" in result.output
    assert _temporary_files(project) == []


def test_stale_temporary_files_of_ours_are_swept_on_the_next_write(project):
    """A SIGKILL between writing and renaming leaves `.NAME.XXXXXXXX.mcp-migrate`: the next
    write into that folder removes it once stale, and leaves fresh ones and others' files."""
    from mcp_migrate.project import writer

    (project / "a.py").write_text(FIXABLE)
    old = time.time() - writer.STALE_SECONDS - 60
    names = {
        ".a.py.k3x9q_ab.mcp-migrate": old,  # ours, stale
        "b.json.tmp-mcp-migrate": old,  # the baseline's older temporary name, stale
        ".b.py.zz99yy00.mcp-migrate": time.time(),  # ours, but a concurrent run may be writing it
        "notes.mcp-migrate.txt": old,  # not our pattern
    }
    for name, mtime in names.items():
        (project / name).write_text("x")
        os.utime(project / name, (mtime, mtime))
    writer._swept.clear()
    assert invoke("fix", "a.py").exit_code == 0
    assert _temporary_files(project) == [".b.py.zz99yy00.mcp-migrate", "notes.mcp-migrate.txt"]


def test_baseline_keeps_the_mode_of_the_file_it_replaces(project):
    (project / "a.py").write_text(FIXABLE)
    (project / "baseline.json").write_text("{}")
    os.chmod(project / "baseline.json", 0o640)
    assert invoke("check", "--write-baseline", "baseline.json", "a.py").exit_code == 0
    assert stat.S_IMODE(os.stat(project / "baseline.json").st_mode) == 0o640
    assert json.loads((project / "baseline.json").read_text())["findings"]


# 8. file names that are not UTF-8 -----------------------------------------------------------
ROOTS_REQUEST = """\
from mcp.server.fastmcp import Context


async def tool(ctx: Context):
    return await ctx.session.list_roots()
"""


@pytest.fixture
def odd_name(project):
    """`bad\\xff.py`: a name os.fsdecode turns into a lone surrogate (`bad\\udcff.py`)."""
    try:
        with open(os.path.join(os.fsencode(str(project)), b"bad\xff.py"), "wb") as fh:
            fh.write(ROOTS_REQUEST.encode())
    except OSError:
        pytest.skip("this file system only takes UTF-8 names")
    return project


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "sarif", "github", "gitlab"])
def test_every_format_reports_a_file_name_that_is_not_utf8(odd_name, output_format):
    """gitlab failed with "internal error: UnicodeEncodeError" (its fingerprint encoded the path)."""
    for args in (
        ("check", "--output-format", output_format, "."),
        ("check", "-o", "out.txt", "--format", output_format, "."),
    ):
        result = invoke(*args)
        assert result.exit_code == 1, result.output
    text = (odd_name / "out.txt").read_text(encoding="utf-8")
    if output_format == "sarif":
        uris = {
            loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(text)["runs"][0]["results"]
            for loc in r["locations"]
        }
        assert uris == {"bad%FF.py"}
    elif output_format == "json":
        assert [f["path"] for f in json.loads(text)["findings"]] == ["bad\\xff.py"]
    elif output_format == "gitlab":
        assert [f["location"]["path"] for f in json.loads(text)] == ["bad\\xff.py"]
    else:
        assert "bad\\xff.py" in text


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--show-files", "."),
        ("check", "--statistics", "--report", "report.md", "."),
        ("fix", "--diff", "--unsafe-fixes", "."),
        ("fix", "--unsafe-fixes", "--show-fixes", "."),
    ],
)
def test_other_outputs_survive_a_file_name_that_is_not_utf8(odd_name, args):
    result = invoke(*args)
    assert result.exit_code in (0, 1), result.output
    # A traceback's `...Error`, never a message's `NoBackChannelError`.
    assert re.search(r"(?<![A-Za-z])Error", result.output) is None and "error:" not in result.output


# 11. selection, fix --diff on an unparsable file, interrupts --------------------------------
@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_an_empty_code_list_on_the_command_line_is_an_error_as_in_the_config(project, option):
    (project / "a.py").write_text(FIXABLE)
    result = invoke("check", option, "", "a.py")
    assert result.exit_code == 2
    assert (
        result.output
        == f"mcp-migrate: error: {option}: empty rule code (name codes or prefixes, such as RT001 or RT)\n"
    )
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nselect = [""]\n')
    config = invoke("check", "a.py")
    assert config.exit_code == 2
    assert (
        config.output
        == "mcp-migrate: error: pyproject.toml: 'select': empty rule code (name codes or prefixes, such as RT001 or RT)\n"
    )


UNPARSABLE = "from mcp import ClientSession\nawait s.send_roots_list_changed(\ndef f(:\n"


@pytest.mark.parametrize(
    "command",
    [("fix", "--diff", "bad.py"), ("check", "--diff", "bad.py"), ("fix", "--diff", "--stdin-filename", "bad.py", "-")],
)
def test_fix_diff_reports_a_file_it_cannot_parse(project, command):
    (project / "bad.py").write_text(UNPARSABLE)
    result = invoke(*command, input=UNPARSABLE)
    assert "bad.py:3:1: E999" in result.stderr
    assert result.stdout == ""
    assert result.exit_code == 1
    assert invoke("check", "bad.py").exit_code == 1  # as check says


def test_an_interrupted_run_exits_130_without_a_traceback(project, monkeypatch):
    from mcp_migrate.run import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    (project / "a.py").write_text(FIXABLE)
    monkeypatch.setattr(runner, "run_check", interrupted)
    monkeypatch.setattr(runner, "run_fix", interrupted)
    for command in ("check", "fix"):
        result = CliRunner().invoke(cli, [command, "a.py"])
        assert result.exit_code == 130, result.output
        assert result.output == "mcp-migrate: interrupted\n"


def _slow_item(log, item):
    """One pool item: 50 ms of work, then its number appended to `log` (one line per item run)."""
    time.sleep(0.05)
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"{item}\n")
    return item


def test_ctrl_c_stops_the_pool_at_once(capfd, default_signals, tmp_path):
    """Workers ignore SIGINT (no traceback from each) and the main process ends them: without
    that, every batch already queued ran to its end first (200 items x 50 ms on 2 workers). The
    work done is counted, not timed: Ctrl-C comes after 0.5 s, when some 20 items have run;
    every item queued would be all 200."""
    import functools
    import signal

    from mcp_migrate.run import pool

    log = tmp_path / "items.log"
    with pytest.raises(KeyboardInterrupt):
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        pool.run_pool(functools.partial(_slow_item, str(log)), list(range(200)), 2, lambda: None)
    ran = log.read_text(encoding="utf-8").split() if log.exists() else []
    assert len(ran) < 100, f"{len(ran)} of 200 items ran after Ctrl-C"
    assert "Traceback" not in capfd.readouterr().err


# 13. config and messages: one clear line each -----------------------------------------------
@pytest.mark.parametrize(
    "setting, message",
    [
        ("parameter = 'class'", "'parameter' must not be a Python keyword, got 'class'"),
        ("parameter = '__debug__'", "'parameter' must not be a Python keyword, got '__debug__'"),
        ("exclude = ['[']", "'exclude': malformed glob '[': '[' at position 1 is never closed"),
        (
            "extend-exclude = ['src/[ab']",
            "'extend-exclude': malformed glob 'src/[ab': '[' at position 5 is never closed",
        ),
        ("extend-exclude = ['[z-a]']", "'extend-exclude': malformed glob '[z-a]': bad character range z-a"),
        ("extend-exclude = ['']", "'extend-exclude': malformed glob '': empty pattern"),
        (
            "per-file-ignores = {'tests/[' = ['RT001']}",
            "'per-file-ignores': malformed glob 'tests/[': '[' at position 7 is never closed",
        ),
    ],
)
def test_config_refuses_keywords_and_malformed_globs(project, setting, message):
    (project / "a.py").write_text(FIXABLE)
    (project / "pyproject.toml").write_text(f"[tool.mcp-migrate]\n{setting}\n")
    result = invoke("check", "a.py")
    assert result.exit_code == 2
    assert result.output == f"mcp-migrate: error: pyproject.toml: {message}\n"


@pytest.mark.parametrize("glob", ["[]]", "[!]]", "\\[literal\\]", "x[\\]]", "!keep.py", "./tests/", "**/build/"])
def test_well_formed_globs_stay_accepted(glob):
    from mcp_migrate.project.gitignore import glob_problem

    assert glob_problem(glob) is None


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            ("check", "-o", "missing/out.txt", "a.py"),
            "mcp-migrate: error: missing/out.txt: No such file or directory\n",
        ),
        (("check", "-o", ".", "a.py"), "mcp-migrate: error: .: Is a directory\n"),
        (
            ("check", "--baseline", "garbage.json", "a.py"),
            "mcp-migrate: error: garbage.json: not a baseline: invalid JSON at line 1, column 1\n",
        ),
        (
            ("check", "--baseline", ".", "a.py"),
            "mcp-migrate: error: .: cannot read baseline: not a regular file (a folder)\n",
        ),
        (
            ("check", "--config", "latin1.toml", "a.py"),
            "mcp-migrate: error: latin1.toml: invalid TOML: not UTF-8 text (at byte 0)\n",
        ),
    ],
)
def test_errors_read_as_one_clear_line_without_exception_names(project, args, expected):
    (project / "a.py").write_text(FIXABLE)
    (project / "garbage.json").write_text("garbage\n")
    (project / "latin1.toml").write_bytes(b"\xe9 = 1\n")
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.output == expected


def test_an_unexpected_exception_says_it_is_a_bug(project, monkeypatch):
    from mcp_migrate.run import runner

    def broken(*args, **kwargs):
        raise ValueError("boom")

    (project / "a.py").write_text(FIXABLE)
    monkeypatch.setattr(runner, "run_check", broken)
    result = invoke("check", "a.py")
    assert result.exit_code == 2
    assert result.output == "mcp-migrate: error: internal error, please report it: ValueError: boom\n"
