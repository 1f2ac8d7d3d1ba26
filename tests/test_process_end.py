"""The end of an mcp-migrate process (commands/process.py): the command's status and every byte
of its output, its exit functions run, and the interpreter's teardown skipped only where
nothing can be lost by it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sources import FIXABLE, FIXED

#: A child that makes an object whose finaliser speaks at the interpreter's teardown, then runs
#: `BODY` with the command line given to the child.
PRELUDE = """
import atexit, sys, threading, time
class Loud:
    def __del__(self):
        sys.stderr.write("teardown\\n")
kept = Loud()
atexit.register(lambda: sys.stderr.write("exit function\\n"))
sys.argv = ["mcp-migrate", *sys.argv[1:]]
"""


def child(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess:
    code = PRELUDE + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )


def test_a_check_ends_with_its_status_its_whole_output_and_its_exit_functions_but_no_teardown(tmp_path):
    for index in range(40):  # more than a pipe's buffer of output
        (tmp_path / f"a{index:02d}.py").write_text(FIXABLE)
    ran = child(tmp_path, "from mcp_migrate.commands.process import run\nrun()\n", "check", "--no-cache", ".")
    assert ran.returncode == 1
    lines = ran.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if ": RT004 " in line] == [f"a{i // 2:02d}.py" for i in range(80)]
    assert lines[-1].startswith("Checked 40 files: 80 findings")
    assert ran.stderr == "exit function\n"  # the finaliser never ran: no teardown


def test_fix_writes_every_file_and_leaves_no_temporary(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE)
    ran = child(tmp_path, "from mcp_migrate.commands.process import run\nrun()\n", "fix", "a.py")
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "a.py").read_text() == FIXED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


@pytest.mark.parametrize(
    ("args", "status"),
    [(("--version",), 0), (("check", "--bogus"), 2), (("check", "--select", "NOPE", "."), 2)],
)
def test_click_and_bad_input_statuses_are_kept(tmp_path, args, status):
    ran = child(tmp_path, "from mcp_migrate.commands.process import run\nrun()\n", *args)
    assert ran.returncode == status
    assert "Traceback" not in ran.stderr and "teardown" not in ran.stderr


def test_a_thread_still_running_gets_the_usual_exit_which_waits_for_it(tmp_path):
    body = """
    def late():
        time.sleep(0.3)
        open("late.txt", "w").close()
    threading.Thread(target=late).start()
    from mcp_migrate.commands.process import end
    end(3)
    """
    ran = child(tmp_path, body)
    assert ran.returncode == 3
    assert (tmp_path / "late.txt").exists()
    assert ran.stderr == "exit function\nteardown\n"


@pytest.mark.parametrize(("code", "status", "said"), [(None, 0, ""), (7, 7, ""), (258, 2, ""), ("boom", 1, "boom\n")])
def test_an_exit_code_gives_the_status_sys_exit_gives(tmp_path, code, status, said):
    ran = child(tmp_path, f"from mcp_migrate.commands.process import end\nend({code!r})\n")
    plain = subprocess.run([sys.executable, "-c", f"import sys; sys.exit({code!r})"], capture_output=True, text=True)
    assert ran.returncode == plain.returncode == status
    assert ran.stderr == said + "exit function\n" and plain.stderr == said


def test_an_output_stream_that_cannot_be_flushed_gets_the_usual_exit(tmp_path):
    body = """
    class Broken:
        def write(self, text):
            return len(text)
        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")
    sys.stdout = Broken()
    from mcp_migrate.commands.process import end
    end(0)
    """
    ran = child(tmp_path, body)
    assert "teardown" in ran.stderr  # the interpreter's own way out, whatever it makes of the stream


def test_the_process_asks_the_collector_to_look_less_often_and_main_leaves_it_alone(tmp_path):
    from mcp_migrate.commands.process import COLLECTOR_THRESHOLDS

    body = """
    import gc
    atexit.register(lambda: sys.stderr.write(str(gc.get_threshold()) + "\\n"))
    from mcp_migrate.commands.MODULE import FUNCTION
    FUNCTION()
    """
    ran = child(tmp_path, body.replace("MODULE", "process").replace("FUNCTION", "run"), "--version")
    assert ran.returncode == 0
    assert ran.stderr.splitlines()[0] == str(COLLECTOR_THRESHOLDS)
    plain = child(tmp_path, body.replace("MODULE", "cli").replace("FUNCTION", "main"), "--version")
    python = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold())"], capture_output=True)
    assert plain.stderr.splitlines()[0] == python.stdout.decode().strip() != str(COLLECTOR_THRESHOLDS)


def without_stdout(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m mcp_migrate ARGS` started with its standard output closed (`>&-`)."""
    return subprocess.run(
        [sys.executable, "-m", "mcp_migrate", *args],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
        timeout=120,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="closes a file descriptor before the child starts")
def test_a_run_without_standard_output_says_so_in_one_line(tmp_path):
    """Started with its standard output closed (`mcp-migrate check x.py >&-`), a run said
    "internal error, please report it: AttributeError: 'NoneType' object has no attribute
    'write'"; it is the environment, not a bug, and no report can be given there."""
    (tmp_path / "a.py").write_text(FIXABLE)
    ran = without_stdout(tmp_path, "check", "--no-cache", "a.py")
    assert ran.returncode == 2
    assert ran.stderr == "mcp-migrate: error: standard output is closed: nowhere to report\n"
    quiet = without_stdout(tmp_path, "check", "--no-cache", "-q", "-o", "report.txt", "a.py")
    assert quiet.returncode == 1 and quiet.stderr == ""  # nothing for standard output: it works
    assert "RT004" in (tmp_path / "report.txt").read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="closes a file descriptor before the child starts")
@pytest.mark.parametrize("args", [("fix", "--diff", "a.py"), ("fix", "--stdin-filename", "a.py", "-")])
def test_fix_writing_to_standard_output_without_one_says_so_as_check_does(tmp_path, args):
    """`fix --diff x.py >&-` said "internal error, please report it: AttributeError:
    '_ClosedOutput' object has no attribute 'buffer'": the diff (and standard input's fixed
    source) is written as bytes. Same line and exit as `check`; no file is written."""
    (tmp_path / "a.py").write_text(FIXABLE)
    ran = without_stdout(tmp_path, *args)
    assert ran.returncode == 2
    assert ran.stderr == "mcp-migrate: error: standard output is closed: nowhere to report\n"
    assert (tmp_path / "a.py").read_text() == FIXABLE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]
