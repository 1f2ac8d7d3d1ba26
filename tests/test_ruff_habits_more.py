"""ruff's habits, round two (issue 22 §6): `--color`, `--fix-only`, `--exit-non-zero-on-fix` on
`check --fix`, `-v` timings, bare `# noqa`, and the fix-applicability keys `unfixable`,
`extend-safe-fixes` and `extend-unsafe-fixes`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE

import mcp_migrate
from mcp_migrate.commands.cli import cli

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
CLIENT = (REPO / "fixtures" / "example" / "client.py").read_text()
ESC = "\x1b["


def run(*args, input=None, env=None):
    return CliRunner().invoke(cli, list(args), input=input, env=env, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("MCP_MIGRATE_OUTPUT_FORMAT", raising=False)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    return tmp_path


# --color ---------------------------------------------------------------------------------------
def test_color_always_colours_a_pipe_even_with_no_color_set(project):
    (project / "server.py").write_text(SERVER)
    for env in ({}, {"NO_COLOR": "1"}):
        result = run("check", "--output-format", "concise", "--color", "always", "server.py", env=env)
        assert result.stdout.startswith(f"{ESC}1mserver.py{ESC}0m:14:20: {ESC}1;31mRT001{ESC}0m "), result.stdout


@pytest.mark.parametrize("args", [("--color", "never"), ("--color", "auto"), ("--no-color",), ()])
def test_color_auto_and_never_leave_a_pipe_plain(project, args):
    (project / "server.py").write_text(SERVER)
    result = run("check", "--output-format", "concise", *args, "server.py")
    assert result.stdout.startswith("server.py:14:20: RT001 ") and ESC not in result.stdout


def test_color_on_every_command_that_prints(project):
    (project / "a.py").write_text(FIXABLE)
    fixed = run("fix", "--color", "always", "a.py")
    assert f"{ESC}1ma.py{ESC}0m:6: fixed {ESC}32mRT004{ESC}0m" in fixed.stdout
    page = run("explain", "--color", "always", "RT001")  # piped: the page's Markdown, as written
    assert page.exit_code == 0 and page.stdout.startswith("RT001 roots-request (breaks, fix: unsafe)\n")
    assert run("rules", "--color", "never").exit_code == 0
    both = run("check", "--no-color", "--color", "always", "a.py")
    assert both.exit_code == 2
    assert both.stderr == "mcp-migrate: error: --no-color and --color always cannot be combined\n"
    bad = run("check", "--color", "sometimes", "a.py")
    assert bad.exit_code == 2 and "'sometimes' is not one of 'auto', 'always', 'never'" in bad.stderr
