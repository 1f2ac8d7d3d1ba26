"""ruff's file-selection flags (issue 33 §1): `--exclude` replaces the config's `exclude`,
`--extend-exclude` adds to it, `--per-file-ignores GLOB:CODES` replaces the config's
`per-file-ignores`, `--extend-per-file-ignores` adds; for check and fix alike, over every config
file of the run, their globs relative to the current folder (ruff 0.17.6 does each the same,
measured on the same trees)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli

NOTIFY = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""
#: RT004, and the root config's keys these flags meet.
CONFIG = """\
[tool.mcp-migrate]
exclude = ["gen/"]
extend-exclude = ["vendor/"]

[tool.mcp-migrate.per-file-ignores]
"a/*" = ["RT004"]
"""
FOLDERS = ("a", "b", "gen", "vendor", "build", "pkg/sub")


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "n.py").write_text(NOTIFY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shown(*args) -> list:
    result = run("check", "--show-files", *args, ".")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def reported(*args, command="check") -> list:
    result = run(command, "--output-format", "json", *args, ".")
    assert result.exit_code in (0, 1), result.output
    return sorted({f["path"] for f in json.loads(result.stdout)["findings"]})


def test_the_config_alone(project):
    # `exclude` replaced the default list (build/ is checked), extend-exclude adds vendor/
    assert shown() == ["a/n.py", "b/n.py", "build/n.py", "pkg/sub/n.py"]
    assert reported() == ["b/n.py", "build/n.py", "pkg/sub/n.py"]  # a/ per-file ignored


def test_exclude_replaces_the_configs_exclude_and_keeps_extend_exclude(project):
    assert shown("--exclude", "b,pkg") == ["a/n.py", "build/n.py", "gen/n.py"]
    assert shown("--exclude", "b", "--exclude", "pkg/") == ["a/n.py", "build/n.py", "gen/n.py"]  # repeatable


def test_extend_exclude_adds_to_both(project):
    assert shown("--extend-exclude", "b", "--extend-exclude", "./build/") == ["a/n.py", "pkg/sub/n.py"]


def test_per_file_ignores_replaces_the_configs(project):
    assert reported("--per-file-ignores", "b/*:RT004") == ["a/n.py", "build/n.py", "pkg/sub/n.py"]
    # the brief's spelling (codes after one glob) and ruff's (a glob per code) mean the same
    both = ["build/n.py", "pkg/sub/n.py"]
    assert reported("--per-file-ignores", "b/*:RT004,RT005", "--per-file-ignores", "a/:RT0") == both
    assert reported("--per-file-ignores", "a/*:RT004,b/*:RT004") == both


def test_extend_per_file_ignores_adds_to_the_configs(project):
    assert reported("--extend-per-file-ignores", "b/*:RT004") == ["build/n.py", "pkg/sub/n.py"]


def test_the_flags_apply_to_fix_as_to_check(project):
    result = run("fix", "--exclude", "b", "--per-file-ignores", "build/*:RT004", ".")
    assert result.exit_code == 0, result.output
    changed = sorted(f for f in FOLDERS if (project / f / "n.py").read_text() != NOTIFY)
    # gen/ checked (--exclude replaced the config's list), b/ excluded; a/ fixed (the flag
    # replaced the config's per-file-ignores), build/ ignored; vendor/ still excluded
    assert changed == ["a", "gen", "pkg/sub"]


def test_the_flags_globs_are_relative_to_the_current_folder(project, monkeypatch):
    """From `pkg/` (whose config is the root's), `sub/*` names pkg/sub, as in ruff."""
    monkeypatch.chdir(project / "pkg")
    assert reported() == ["sub/n.py"]
    assert reported("--per-file-ignores", "sub/*:RT004") == []
    assert shown("--exclude", "sub") == []


def test_the_flags_lie_over_a_nested_config_too(project):
    (project / "b/.mcp-migrate.toml").write_text("extend-exclude = []\n[per-file-ignores]\n'n.py' = ['RT004']\n")
    assert reported() == ["build/n.py", "pkg/sub/n.py"]  # b/'s own config ignores its file
    assert reported("--per-file-ignores", "pkg/*:RT004") == ["a/n.py", "b/n.py", "build/n.py"]
    assert shown("--extend-exclude", "b/n.py") == ["a/n.py", "build/n.py", "pkg/sub/n.py"]


def test_config_shows_where_the_flags_values_came_from(project):
    result = run("config", "--output-format", "json", "--exclude", "b", "--extend-per-file-ignores", "b/*:RT004", ".")
    settings = json.loads(result.stdout)["settings"]
    assert settings["exclude"] == {"value": ["b"], "origin": "flag"}
    assert settings["extend-exclude"] == {"value": ["vendor/"], "origin": "pyproject"}
    assert settings["per-file-ignores"] == {"value": {"a/*": ["RT004"], "b/*": ["RT004"]}, "origin": "flag"}
    assert settings["include-templates"] == {"value": False, "origin": "default"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--per-file-ignores", "b/*"], "--per-file-ignores: expected GLOB:CODE[,CODE...], got 'b/*'"),
        (["--per-file-ignores", "b/*:"], "--per-file-ignores: expected GLOB:CODE[,CODE...], got 'b/*:'"),
        (["--extend-per-file-ignores", "b/*:XY9"], "--extend-per-file-ignores: unknown rule code: XY9"),
        (["--exclude", "gen/[a"], "--exclude: malformed glob 'gen/[a': '[' at position 5 is never closed"),
        (["--extend-exclude", "ok,[z"], "--extend-exclude: malformed glob '[z': '[' at position 1 is never closed"),
    ],
)
@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_bad_flag_value_is_one_line_and_exit_2(project, args, message, command):
    result = run(command, *args, ".")
    assert result.exit_code == 2
    assert result.stderr == f"mcp-migrate: error: {message}\n"
    assert all((project / f / "n.py").read_text() == NOTIFY for f in FOLDERS)


def test_every_new_flag_is_in_the_help(project):
    for command in ("check", "fix", "config"):
        text = run(command, "--help").stdout
        for flag in ("--exclude", "--extend-exclude", "--per-file-ignores", "--extend-per-file-ignores"):
            assert flag + " " in text, (command, flag)
        assert "--include-templates / --no-include-templates" in text
