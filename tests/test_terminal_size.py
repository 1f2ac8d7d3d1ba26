"""Output on a terminal whatever size the environment claims: `COLUMNS=0` (or `LINES=0`) is no
size at all, and the report takes the terminal's own width (80 when it cannot tell)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sources import FIXABLE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")

EXPECTED = [
    "a.py:6:11: RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision",
    "a.py:7:11: RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision",
    "",
    "Checked 1 file: 2 findings (RT004: 2); 2 fixable with `mcp-migrate fix`",
]


def on_a_terminal(tmp_path, env: dict, *args: str) -> tuple:
    """(exit status, lines) of `python -m mcp_migrate ARGS` whose standard output and error are
    a pseudo-terminal (openpty's is 0 by 0, as a terminal that cannot tell its size)."""
    master, slave = os.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "LINES")}
    child = subprocess.Popen(
        [sys.executable, "-m", "mcp_migrate", *args],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env={**environ, "NO_COLOR": "1", **env},
    )
    os.close(slave)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        child.wait(timeout=120)
    return child.returncode, out.decode().replace("\r\n", "\n").splitlines()


@pytest.mark.parametrize("env", [{"COLUMNS": "0"}, {"COLUMNS": "0", "LINES": "0"}, {"COLUMNS": "00"}, {}])
def test_a_terminal_of_no_size_still_gets_the_report(tmp_path, env):
    """`COLUMNS=0 mcp-migrate check` on a terminal printed nothing and exited 1: rich took the
    0 as the console's width."""
    (tmp_path / "a.py").write_text(FIXABLE)
    status, lines = on_a_terminal(tmp_path, env, "check", "--no-cache", "--output-format", "concise", "a.py")
    assert (status, lines) == (1, EXPECTED)


def test_the_full_format_on_a_terminal_of_no_size_shows_each_finding(tmp_path):
    (tmp_path / "a.py").write_text(FIXABLE)
    status, lines = on_a_terminal(tmp_path, {"COLUMNS": "0"}, "check", "--no-cache", "a.py")
    assert status == 1
    assert [line for line in lines if line.startswith("a.py:")] == EXPECTED[:2]
    assert lines[-1] == EXPECTED[-1]
