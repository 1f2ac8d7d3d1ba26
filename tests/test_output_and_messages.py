"""Wrong results and unclear messages (issue 23 §5), one section per item; the RT001 rewrite's
names are tested with the rewrite."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli

CLIENT = (
    "from mcp import ClientSession\n\n\n"
    "async def main(session: ClientSession) -> None:\n"
    "    await session.send_roots_list_changed()\n"
)
RT004 = (
    "RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision (Roots is"
    " deprecated by SEP-2577): delete it; new directories travel with the next tool call"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args, input=None, env=None):
    env = {"NO_COLOR": "1", "FORCE_COLOR": None, **(env or {})}
    return CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=False)


def run_cli(cwd, *args, env=None, **kwargs) -> subprocess.CompletedProcess:
    code = "from mcp_migrate.commands.cli import main; main()"
    environ = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, env=environ, timeout=120, **kwargs
    )


# --- coding cookies that are not ASCII-compatible --------------------------------------------
COOKIES = {
    # the parser decoded a file of one line, and fix wrote it back as one
    "unicode_escape": b"# -*- coding: unicode_escape -*-\n" + CLIENT.encode(),
    # calls no gate could see: `+AF8-` is `_`
    "utf-7": b"# coding: utf-7\n" + CLIENT.replace("_roots_list_", "+AF8-roots+AF8-list+AF8-").encode(),
    "utf-16": b"# coding: utf-16\n" + CLIENT.encode(),
    "cp037": b"# coding: cp037\n" + CLIENT.encode(),  # EBCDIC
}


@pytest.mark.parametrize("encoding", sorted(COOKIES))
def test_a_cookie_that_is_not_ascii_compatible_is_refused(project, encoding):
    data = COOKIES[encoding]
    (project / "a.py").write_bytes(data)
    expected = (
        f"a.py:1:1: E902 cannot read file: its coding cookie names {encoding}, which is not ASCII-compatible"
        " (as Python source must be); not analysed"
    )
    for command in ("check", "fix"):
        result = invoke(command, "--output-format", "concise", "a.py")
        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines() == [expected, "", "Checked 1 file: 1 finding (E902: 1)"]
        assert (project / "a.py").read_bytes() == data
    assert [f.code for f in mcp_migrate.check_source(data, "a.py")] == ["E902"]


@pytest.mark.parametrize(
    "cookie",
    [b"# -*- coding: latin-1 -*-\n", b"# coding=cp1252\n", b"#!/usr/bin/python\n# vim: set fileencoding=utf-8 :\n"],
)
def test_ascii_compatible_cookies_are_read(cookie):
    assert [f.code for f in mcp_migrate.check_source(cookie + CLIENT.encode(), "a.py")] == ["RT004"]
