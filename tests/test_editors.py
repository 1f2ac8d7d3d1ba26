"""Editors and scripts: `--stdin-filename PATH -` for check and fix, and the public Python API."""

import json

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

import mcp_migrate
from mcp_migrate.commands.cli import cli

REMAINS = (
    FIXABLE
    + """
async def tool(ctx) -> None:
    from mcp.server.fastmcp import Context
    c: Context = ctx
    await c.session.list_roots()
"""
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, stdin=b""):
    return CliRunner().invoke(cli, list(args), input=stdin, env={"NO_COLOR": "1"}, catch_exceptions=False)


def test_check_stdin_reports_under_the_given_path(project):
    result = run("check", "--stdin-filename", "src/app.py", "-", stdin=FIXABLE.encode())
    assert result.exit_code == 1
    assert result.stdout.startswith("src/app.py:6:11: RT004 ")
    assert not (project / "src").exists()  # nothing is read from or written to disk
    doc = json.loads(run("check", "--format", "json", "--stdin-filename", "a.py", "-", stdin=FIXABLE.encode()).stdout)
    assert [f["path"] for f in doc["findings"]] == ["a.py", "a.py"] and doc["files_checked"] == 1


def test_stdin_gets_the_config_and_per_file_ignores_of_its_path(project):
    (project / "pyproject.toml").write_text(
        '[tool.mcp-migrate]\nextend-exclude = ["gen/"]\n[tool.mcp-migrate.per-file-ignores]\n"tests/" = ["RT004"]\n'
    )
    assert run("check", "--stdin-filename", "tests/t.py", "-", stdin=FIXABLE.encode()).exit_code == 0
    assert run("check", "--stdin-filename", "src/t.py", "-", stdin=FIXABLE.encode()).exit_code == 1
    # excluded paths: checked only without force-exclude, as for a file named on the command line
    assert run("check", "--stdin-filename", "gen/t.py", "-", stdin=FIXABLE.encode()).exit_code == 1
    skipped = run("check", "--force-exclude", "--stdin-filename", "gen/t.py", "-", stdin=FIXABLE.encode())
    assert (skipped.exit_code, skipped.stdout) == (0, "")
    echoed = run("fix", "--force-exclude", "--stdin-filename", "gen/t.py", "-", stdin=FIXABLE.encode())
    assert (echoed.exit_code, echoed.stdout) == (0, FIXABLE)


def test_stdin_config_comes_from_the_path_not_the_cwd(project):
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text("[tool.mcp-migrate]\nignore = ['RT004']\n")
    assert run("check", "--stdin-filename", "sub/a.py", "-", stdin=FIXABLE.encode()).exit_code == 0
    assert run("check", "--stdin-filename", "a.py", "-", stdin=FIXABLE.encode()).exit_code == 1


def test_fix_stdin_prints_the_fixed_source(project):
    result = run("fix", "--stdin-filename", "a.py", "-", stdin=FIXABLE.encode())
    assert result.exit_code == 0
    assert result.stdout == FIXED
    left = run("fix", "--stdin-filename", "a.py", "-", stdin=REMAINS.encode())
    assert left.exit_code == 1
    # A server in the same run still asks: the client's list_changed send stays (issue 20 §1),
    # and its finding says that only `--unsafe-fixes`, which migrates that server, removes it.
    assert "RT001" in left.stderr and left.stdout == REMAINS
    shown = run("check", "--output-format", "json", "--stdin-filename", "a.py", "-", stdin=REMAINS.encode())
    helps = [f["help"] for f in json.loads(shown.stdout)["findings"] if f["code"] == "RT004"]
    assert helps and all(
        h.startswith("fixed only by `mcp-migrate fix --unsafe-fixes`, which also migrates the server in a.py")
        for h in helps
    )
    clean = run("fix", "--stdin-filename", "a.py", "-", stdin=FIXED.encode())
    assert (clean.exit_code, clean.stdout) == (0, FIXED)
    diff = run("fix", "--diff", "--stdin-filename", "a.py", "-", stdin=FIXABLE.encode())
    assert diff.exit_code == 1 and diff.stdout.startswith("--- a/a.py\n+++ b/a.py\n")


def test_fix_stdin_keeps_bytes(project):
    data = b"\xef\xbb\xbf" + FIXABLE.replace("\n", "\r\n").encode()
    result = run("fix", "--stdin-filename", "a.py", "-", stdin=data)
    assert result.stdout_bytes == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()


def test_stdin_usage_errors(project):
    mixed = run("check", "-", "a.py")
    assert mixed.exit_code == 2 and "cannot be combined" in mixed.stderr
    paths = run("check", "--stdin-filename", "x.py", "a.py")
    assert paths.exit_code == 2 and "pass `-`" in paths.stderr
    assert run("check", "--stdin-filename", "x.py", stdin=FIXABLE.encode()).exit_code == 1  # `-` is implied


def test_public_api():
    findings = mcp_migrate.check_source(FIXABLE, path="server.py")
    assert [(f.code, f.line, f.path) for f in findings] == [("RT004", 6, "server.py"), ("RT004", 7, "server.py")]
    assert isinstance(findings[0], mcp_migrate.Finding)
    assert mcp_migrate.fix_source(FIXABLE, path="server.py") == FIXED
    assert mcp_migrate.fix_source(FIXABLE.encode()) == FIXED.encode()
    only = mcp_migrate.Settings(select=frozenset({"RT001"}))
    assert mcp_migrate.check_source(FIXABLE, settings=only) == []
    assert mcp_migrate.fix_source(FIXABLE, settings=only) == FIXABLE


def test_cli_matches_the_public_api(project):
    (project / "a.py").write_text(FIXABLE)
    doc = json.loads(run("check", "--format", "json", "a.py").stdout)
    api = [f.to_json() for f in mcp_migrate.check_source(FIXABLE, path="a.py")]
    assert doc["findings"] == api
