"""Wrong results and unclear messages (issue 23 §5), one section per item."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

import mcp_migrate
from mcp_migrate.commands.cli import cli

CLIENT = (
    "from mcp import ClientSession\n\n\n"
    "async def main(session: ClientSession) -> None:\n"
    "    await session.send_roots_list_changed()\n"
)
RT004 = "RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision"


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


# --- an output encoding that cannot show a file name -----------------------------------------
def test_fix_finishes_on_a_stream_that_cannot_show_a_file_name(project):
    """PYTHONIOENCODING=ascii and `café.py`: fix stopped at its first file name (2 of 4 files
    written, UnicodeEncodeError, exit 2). Names show as `\\xe9` now, and every file is fixed."""
    for name in ("café.py", "naïve.py", "plain.py"):
        (project / name).write_text(FIXABLE)
    result = run_cli(project, "fix", "--show-fixes", ".", env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("ascii").splitlines() == [
        "caf\\xe9.py:6: fixed RT004",
        "caf\\xe9.py:7: fixed RT004",
        "na\\xefve.py:6: fixed RT004",
        "na\\xefve.py:7: fixed RT004",
        "plain.py:6: fixed RT004",
        "plain.py:7: fixed RT004",
        "Fixed 6 findings.",
        "  caf\\xe9.py:",
        "    2 \\xd7 RT004 (roots-list-changed-send)",
        "  na\\xefve.py:",
        "    2 \\xd7 RT004 (roots-list-changed-send)",
        "  plain.py:",
        "    2 \\xd7 RT004 (roots-list-changed-send)",
        "Checked 3 files: no findings",
    ]
    assert [(project / name).read_text() for name in ("café.py", "naïve.py", "plain.py")] == [FIXED] * 3


@pytest.mark.parametrize("output_format", ["full", "concise"])
def test_check_reports_on_a_stream_that_cannot_show_the_source(project, output_format):
    (project / "café.py").write_text(CLIENT.replace("changed()", "changed()  # é"))
    result = run_cli(project, "check", "--output-format", output_format, ".", env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 1, result.stderr
    lines = result.stdout.decode("ascii").splitlines()
    assert lines[0] == f"caf\\xe9.py:5:11: {RT004}"
    assert ("5 |     await session.send_roots_list_changed()  # \\xe9" in lines) == (output_format == "full")


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
    expected = f"a.py:1:1: E902 cannot read file: its coding cookie names {encoding}, which is not ASCII-compatible"
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


# --- control characters from source text and file names ---------------------------------------
EVIL_NAME = "e\x1b[31mvil.py"
EVIL_LINE = "    await session.send_roots_list_changed()  # \x1b]0;owned\x07\x1b[2J \u202egnp.exe\n"


@pytest.mark.parametrize("output_format", ["full", "concise"])
@pytest.mark.parametrize("color", [False, True])
def test_control_characters_are_shown_not_sent(project, output_format, color):
    """An ESC sequence in a comment or a file name reached the terminal raw (it could clear the
    screen, retitle the window or hide a finding); shown now as ruff shows them."""
    (project / EVIL_NAME).write_text(CLIENT.replace("    await session.send_roots_list_changed()\n", EVIL_LINE))
    env = {"NO_COLOR": None, "FORCE_COLOR": "1"} if color else {}
    result = invoke("check", "--output-format", output_format, ".", env=env)
    assert result.exit_code == 1, result.output
    for raw in ("\x1b]", "\x1b[2J", "\x1b[31mvil", "\x07", "\u202e"):
        assert raw not in result.output
    plain = result.output if not color else None
    if plain is not None:
        lines = plain.splitlines()
        assert lines[0] == f"e\u241b[31mvil.py:5:11: {RT004}"
        shown = "5 |     await session.send_roots_list_changed()  # \u241b]0;owned\u2407\u241b[2J \\u202egnp.exe"
        assert (shown in lines) == (output_format == "full")


def test_a_newline_in_a_file_name_cannot_fake_a_line(project):
    (project / "a.py\nb.py:1:1: RT001 fake.py").write_text(CLIENT)
    result = invoke("check", "--output-format", "concise", ".")
    assert result.stdout.splitlines()[0] == f"a.py\u240ab.py:1:1: RT001 fake.py:5:11: {RT004}"
    result = invoke("fix", ".")
    assert result.stdout.splitlines()[0] == "a.py\u240ab.py:1:1: RT001 fake.py:5: fixed RT004"


# --- closed standard input --------------------------------------------------------------------
@pytest.mark.parametrize("args", [["check", "-"], ["fix", "--stdin-filename", "a.py", "-"]])
def test_closed_standard_input_is_one_line(project, args):
    result = run_cli(project, *args, preexec_fn=lambda: os.close(0))
    assert (result.returncode, result.stderr.decode()) == (
        2,
        "mcp-migrate: error: cannot read standard input: it is closed\n",
    )


# --- a baseline count of 1e400 ----------------------------------------------------------------
@pytest.mark.parametrize("count, shown", [("1e400", "inf"), ("true", "True"), ("0", "0"), ("2.5", "2.5")])
def test_a_baseline_count_that_is_not_a_whole_number_is_one_line(project, count, shown):
    (project / "a.py").write_text(CLIENT)
    assert invoke("check", "--write-baseline", "base.json", "a.py").exit_code == 0
    doc = json.loads((project / "base.json").read_text())
    text = json.dumps(doc).replace('"count": 1', f'"count": {count}')
    (project / "base.json").write_text(text)
    result = invoke("check", "--baseline", "base.json", "a.py")
    assert result.exit_code == 2
    assert result.output == (
        f"mcp-migrate: error: base.json: malformed baseline entry: count must be a whole number of at least 1, got {shown}\n"
    )


# --- --exit-zero with --diff ------------------------------------------------------------------
@pytest.mark.parametrize(
    "args", [["fix", "--diff"], ["check", "--diff"], ["fix", "--diff", "--stdin-filename", "a.py"]]
)
def test_exit_zero_is_honoured_with_diff(project, args):
    (project / "a.py").write_text(CLIENT)
    stdin = args[-1] == "a.py"
    target = ["-"] if stdin else ["a.py"]
    without = invoke(*args, *target, input=CLIENT if stdin else None)
    with_zero = invoke(*args, "--exit-zero", *target, input=CLIENT if stdin else None)
    assert (without.exit_code, with_zero.exit_code) == (1, 0)
    assert with_zero.stdout == without.stdout
    assert "-    await session.send_roots_list_changed()\n" in with_zero.stdout
    assert (project / "a.py").read_text() == CLIENT


# --- an unreadable .gitignore -----------------------------------------------------------------
def test_an_unreadable_gitignore_is_said_in_one_line(project, monkeypatch):
    """It was ignored silently, so the files it names were checked without a word."""
    from mcp_migrate.project import gitignore

    (project / ".gitignore").write_text("generated.py\n")
    (project / "generated.py").write_text(CLIENT)
    real = gitignore.read_regular

    def denied(path, *args, **kwargs):
        if path.endswith(".gitignore"):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(gitignore, "read_regular", denied)
    warning = "mcp-migrate: warning: cannot read .gitignore: Permission denied; its patterns are not applied"
    for args in (["check"], ["fix", "--diff"], ["fix"]):
        result = CliRunner().invoke(cli, [*args, "--output-format", "concise", "."], env={"NO_COLOR": "1"})
        assert result.stderr.splitlines()[0] == warning, result.output
        assert result.stderr.count("warning") == 1


def test_a_gitignore_that_is_a_folder_is_said_in_one_line(project):
    (project / ".gitignore").mkdir()
    (project / "a.py").write_text(CLIENT)
    result = CliRunner().invoke(cli, ["check", "--output-format", "concise", "."], env={"NO_COLOR": "1"})
    assert result.stderr == (
        "mcp-migrate: warning: cannot read .gitignore: not a regular file (a folder); its patterns are not applied\n"
    )
    assert result.stdout.splitlines()[0] == f"a.py:5:11: {RT004}"


def test_a_missing_gitignore_says_nothing(project):
    (project / "a.py").write_text(CLIENT)
    result = CliRunner().invoke(cli, ["check", "--output-format", "concise", "."], env={"NO_COLOR": "1"})
    assert result.stderr == ""
