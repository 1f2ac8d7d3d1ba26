"""Issue 14, the input/output half: special files, file names that are not UTF-8, files an
editor would not overwrite, outputs that would replace inputs, temporary files, selection and
config input that must be refused in one clear line, interrupts."""

from __future__ import annotations

import contextlib
import errno
import json
import os
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
def fifo_watchdog(path, after: float = 5.0):
    """A writer that opens and closes the FIFO after `after` seconds, so code that wrongly opens
    it for reading gets EOF and the test fails instead of hanging the suite."""
    done = threading.Event()

    def unblock():
        if done.wait(after):
            return
        while not done.is_set():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
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
