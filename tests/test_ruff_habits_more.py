"""ruff's habits, round two (issue 22 §6): `--color`, `--fix-only`, `--exit-non-zero-on-fix` on
`check --fix`, `-v` timings, bare `# noqa`, and the fix-applicability keys `unfixable`,
`extend-safe-fixes` and `extend-unsafe-fixes`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

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


# check --fix --exit-non-zero-on-fix, --fix-only ---------------------------------------------
def test_check_fix_exit_non_zero_on_fix(project):
    (project / "a.py").write_text(FIXABLE)
    first = run("check", "--fix", "--exit-non-zero-on-fix", "--no-color", "a.py")
    assert first.exit_code == 1, first.output  # nothing remains, but it changed a file
    assert (project / "a.py").read_text() == FIXED
    assert first.stdout == (
        "a.py:6: fixed RT004\na.py:7: fixed RT004\nFixed 2 findings.\nChecked 1 file: no findings\n"
    )
    again = run("check", "--fix", "--exit-non-zero-on-fix", "a.py")
    assert again.exit_code == 0
    plain = run("check", "--exit-non-zero-on-fix", "a.py")  # accepted without --fix, as ruff: no effect
    assert plain.exit_code == 0


@pytest.mark.parametrize("command", [("check", "--fix-only"), ("fix", "--fix-only"), ("check", "--fix", "--fix-only")])
def test_fix_only_fixes_and_neither_reports_nor_fails_on_what_remains(project, command):
    (project / "a.py").write_text(FIXABLE)
    (project / "server.py").write_text(SERVER)
    result = run(*command, "--no-color", ".")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "a.py:6: fixed RT004\n"
        "a.py:7: fixed RT004\n"
        "Fixed 2 findings (1 additional fix available with `--unsafe-fixes`).\n"
    )
    assert result.stderr == ""
    assert (project / "a.py").read_text() == FIXED and (project / "server.py").read_text() == SERVER
    nothing = run(*command, "--no-color", ".")
    assert (nothing.exit_code, nothing.stdout) == (0, "No findings fixed (1 fix available with `--unsafe-fixes`).\n")
    clean = run(*command, "--no-color", "a.py")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_fix_only_with_exit_non_zero_on_fix_and_other_outputs(project):
    (project / "a.py").write_text(FIXABLE)
    assert run("check", "--fix-only", "--exit-non-zero-on-fix", "a.py").exit_code == 1
    (project / "a.py").write_text(FIXABLE)
    quiet_json = run("check", "--fix-only", "--output-format", "json", "a.py")
    assert (quiet_json.exit_code, quiet_json.stdout) == (0, "")  # as ruff: nothing to report
    assert (project / "a.py").read_text() == FIXED
    (project / "b.py").write_text(FIXABLE)
    diff = run("check", "--fix-only", "--diff", "b.py")  # --diff wins: show, write nothing, exit 1
    assert diff.exit_code == 1 and diff.stdout.startswith("--- a/b.py\n")
    assert (project / "b.py").read_text() == FIXABLE
    piped = run("check", "--fix-only", "--stdin-filename", "s.py", "-", input=SERVER + FIXABLE.split("\n\n\n")[1])
    assert piped.exit_code == 0 and piped.stderr == ""


# -v ----------------------------------------------------------------------------------------------
SECONDS = r"\d+\.\d{3} s"


def verbose_lines(stderr: str) -> list:
    lines = stderr.splitlines()
    assert all(line.startswith("mcp-migrate: verbose: ") for line in lines), stderr
    return [line[len("mcp-migrate: verbose: ") :] for line in lines]


def test_verbose_says_which_configs_apply_and_times_each_phase(project):
    import re

    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nignore = ['RT002']\n")
    (project / "sub").mkdir()
    (project / "sub" / ".mcp-migrate.toml").write_text("")
    (project / "a.py").write_text(FIXABLE)
    (project / "sub" / "server.py").write_text(SERVER)
    quiet = run("check", "--no-color", "--no-cache", ".")
    cold = run("check", "-v", "--no-color", ".")
    assert cold.stdout == quiet.stdout, "-v only adds to stderr"
    patterns = [
        rf"discover: 2 files in {SECONDS}",
        "config: pyproject.toml",
        r"config per file: pyproject.toml \(1 file\), sub/.mcp-migrate.toml \(1 file\)",
        rf"check: 2 files \(0 from the cache, 2 analysed; 1 process\) in {SECONDS}",
        rf"fix previews: {SECONDS}",
        rf"report: full in {SECONDS}",
        rf"total: {SECONDS}",
    ]
    lines = verbose_lines(cold.stderr)
    assert len(lines) == len(patterns) and all(re.fullmatch(p, line) for p, line in zip(patterns, lines)), lines
    warm = verbose_lines(run("check", "--verbose", ".").stderr)
    assert re.fullmatch(rf"check: 2 files \(2 from the cache, 0 analysed; 1 process\) in {SECONDS}", warm[3])
    as_json = verbose_lines(run("check", "--verbose", "--output-format", "json", ".").stderr)
    assert re.fullmatch(rf"report: json in {SECONDS}", as_json[4])  # json shows no fix: no previews phase
    isolated = verbose_lines(run("check", "-v", "--isolated", "--no-cache", ".").stderr)
    assert isolated[1] == "config: none found, defaults (--isolated)"
    assert re.fullmatch(rf"check: 2 files \(1 process\) in {SECONDS}", isolated[2])


def test_verbose_fix_times_fixing_and_writing(project):
    import re

    (project / "a.py").write_text(FIXABLE)
    result = run("fix", "-v", "--no-color", "a.py")
    assert result.exit_code == 0
    lines = verbose_lines(result.stderr)
    patterns = [
        rf"discover: 1 file in {SECONDS}",
        "config: none found, defaults",
        rf"fix: 1 file \(fixes computed, nothing written\) in {SECONDS}",
        rf"write: 1 file changed in {SECONDS}",
        rf"fix previews: {SECONDS}",
        rf"report: full in {SECONDS}",
        rf"total: {SECONDS}",
    ]
    assert len(lines) == len(patterns) and all(re.fullmatch(p, line) for p, line in zip(patterns, lines)), lines
    both = run("check", "-v", "-q", "a.py")
    assert (both.exit_code, both.stderr) == (2, "mcp-migrate: error: --verbose and --quiet cannot be combined\n")
