"""Configuration per file (issue 22 §3): each file gets the settings of the closest config file
above it (`.mcp-migrate.toml`, `mcp-migrate.toml`, or a pyproject.toml with `[tool.mcp-migrate]`),
as ruff resolves them, so pre-commit handing one run the files of two sub-projects applies each
sub-project's own config to its files. `--config` applies one file to all; `--isolated` none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core import engine

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
SERVER = (EXAMPLE / "server.py").read_text()
NOTIFY = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""
PROVIDER = """\
from mcp import ClientSession


async def main(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=lambda context: None) as session:
        await session.initialize()
"""


def write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def mono(tmp_path, monkeypatch):
    """A monorepo: sub-project `a` configured in its pyproject.toml, `b` in `.mcp-migrate.toml`
    (which ignores RT001, excludes `generated/` and ignores RT004 under its own `tests/`)."""
    root = tmp_path / "mono"
    write(
        root,
        {
            "pyproject.toml": "[project]\nname = 'mono'\n",  # no table: not a config file
            "packages/a/pyproject.toml": "[tool.mcp-migrate]\nunsafe-fixes = true\nfail-on = 'breaks'\n",
            "packages/a/server.py": SERVER,
            "packages/a/provider.py": PROVIDER,
            "packages/a/generated/server.py": SERVER,
            "packages/a/tests/notify.py": NOTIFY,
            "packages/b/.mcp-migrate.toml": (
                "ignore = ['RT001']\nextend-exclude = ['generated/']\n\n[per-file-ignores]\n'tests/' = ['RT004']\n"
            ),
            "packages/b/server.py": SERVER,
            "packages/b/provider.py": PROVIDER,
            "packages/b/generated/server.py": SERVER,
            "packages/b/tests/notify.py": NOTIFY,
        },
    )
    monkeypatch.chdir(root)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    return root


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def found(result) -> list:
    return [(f["path"], f["code"]) for f in json.loads(result.stdout)["findings"]]


A_SERVER = ("packages/a/server.py", "RT001")
A_PROVIDER = ("packages/a/provider.py", "RT002")
A_GENERATED = ("packages/a/generated/server.py", "RT001")
A_NOTIFY = ("packages/a/tests/notify.py", "RT004")
B_PROVIDER = ("packages/b/provider.py", "RT002")


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_files_of_two_sub_projects_named_in_one_run_get_their_own_config(mono, order):
    """What pre-commit does: one run, files of both sub-projects, in either order."""
    names = [f"packages/{sub}/{name}" for sub in order for name in ("server.py", "provider.py", "tests/notify.py")]
    result = run("check", "--no-cache", "--output-format", "json", *names)
    assert result.exit_code == 1, result.output
    assert found(result) == [A_PROVIDER, A_SERVER, A_NOTIFY, B_PROVIDER]


def test_walking_the_monorepo_applies_each_sub_projects_excludes_and_ignores(mono):
    result = run("check", "--no-cache", "--output-format", "json", ".")
    assert found(result) == [A_GENERATED, A_PROVIDER, A_SERVER, A_NOTIFY, B_PROVIDER]
    assert json.loads(result.stdout)["files_checked"] == 7  # b's generated/ is excluded by b's own config
    shown = run("check", "--show-files", "packages")
    assert "packages/b/generated/server.py" not in shown.stdout
    assert "packages/a/generated/server.py" in shown.stdout


def test_config_flag_overrides_every_files_config(mono):
    result = run(
        "check", "--no-cache", "--output-format", "json", "--config", "packages/b/.mcp-migrate.toml", "packages"
    )
    # b's file for every file: RT001 ignored in a too, and its `tests/` ignore matches a's tests/
    assert found(result) == [A_PROVIDER, B_PROVIDER]


def test_isolated_reads_no_config_file(mono):
    result = run("check", "--no-cache", "--isolated", "--output-format", "json", "packages")
    assert found(result) == [
        A_GENERATED,
        A_PROVIDER,
        A_SERVER,
        A_NOTIFY,
        ("packages/b/generated/server.py", "RT001"),
        B_PROVIDER,
        ("packages/b/server.py", "RT001"),
        ("packages/b/tests/notify.py", "RT004"),
    ]
    both = run("check", "--isolated", "--config", "packages/b/.mcp-migrate.toml", "packages")
    assert both.exit_code == 2
    assert both.stderr == (
        "mcp-migrate: error: --config packages/b/.mcp-migrate.toml cannot be used with --isolated,"
        " which reads no config file\n"
    )


def test_fail_on_and_unsafe_fixes_follow_each_files_config(mono):
    """a: fail-on = breaks (its RT002, deprecated, does not fail) and unsafe-fixes = true (its
    unsafe fixes count as fixable with plain `fix`); b: the defaults."""
    a_only = run("check", "--no-cache", "--output-format", "concise", "packages/a/provider.py")
    assert a_only.exit_code == 0, a_only.output
    b_only = run("check", "--no-cache", "--output-format", "concise", "packages/b/provider.py")
    assert b_only.exit_code == 1, b_only.output
    both = run("check", "--no-cache", "--output-format", "concise", "packages/a/provider.py", "packages/b/provider.py")
    assert both.exit_code == 1
    assert both.stdout.splitlines()[-1] == (
        "Checked 2 files: 2 findings (RT002: 2); 1 fixable with `mcp-migrate fix`;"
        " 1 more with `mcp-migrate fix --unsafe-fixes`; 1 finding is deprecated and does not fail the run"
    )
    fixed = run("fix", "packages/a/provider.py", "packages/b/provider.py")
    assert "packages/a/provider.py:5: fixed RT002" in fixed.stdout
    assert "packages/b/provider.py" not in fixed.stdout.split("Fixed")[0]
    assert "list_roots_callback" not in (mono / "packages/a/provider.py").read_text()
    assert (mono / "packages/b/provider.py").read_text() == PROVIDER


def test_standard_input_gets_the_config_of_its_stdin_filename(mono):
    result = CliRunner().invoke(
        cli, ["check", "--output-format", "json", "--stdin-filename", "packages/b/server.py", "-"], input=SERVER
    )
    assert result.exit_code == 0 and found(result) == []
    result = CliRunner().invoke(
        cli, ["check", "--output-format", "json", "--stdin-filename", "packages/a/server.py", "-"], input=SERVER
    )
    assert found(result) == [A_SERVER]


def test_the_cache_keeps_each_sub_projects_results_apart(mono, monkeypatch):
    """Warm runs serve each file from the table of its own settings: same findings, no parse."""
    names = ["packages/a/server.py", "packages/b/server.py", "packages/a/provider.py", "packages/b/provider.py"]
    cold = run("check", "--output-format", "json", *names)
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    warm = run("check", "--output-format", "json", *names)
    assert found(cold) == found(warm) == [A_PROVIDER, A_SERVER, B_PROVIDER]
    assert parses == []
    reversed_order = run("check", "--output-format", "json", *reversed(names))
    assert found(reversed_order) == found(cold) and parses == []


def test_a_config_file_in_each_form_is_found_closest_first(tmp_path, monkeypatch):
    """In one folder `.mcp-migrate.toml` wins over `mcp-migrate.toml`, which wins over
    pyproject.toml (as `.ruff.toml`, `ruff.toml`, pyproject.toml for ruff); the closest folder wins."""
    from mcp_migrate.project.config import ConfigResolver, find_config

    write(
        tmp_path,
        {
            "pyproject.toml": "[tool.mcp-migrate]\nignore = ['RT004']\n",
            "x/mcp-migrate.toml": "ignore = ['RT002']\n",
            "x/pyproject.toml": "[tool.mcp-migrate]\nignore = ['RT003']\n",
            "x/y/.mcp-migrate.toml": "",
            "x/y/mcp-migrate.toml": "ignore = ['RT005']\n",
            "x/y/z/a.py": "",
        },
    )
    monkeypatch.chdir(tmp_path)
    assert find_config("x/y/z/a.py") == str(tmp_path / "x/y/.mcp-migrate.toml")
    assert find_config("x/a.py") == str(tmp_path / "x/mcp-migrate.toml")
    assert find_config("a.py") == str(tmp_path / "pyproject.toml")
    resolver = ConfigResolver.for_run(["a.py"])
    assert resolver.for_path("x/y/z/a.py").ignore == ()
    assert resolver.for_path("x/a.py").ignore == ("RT002",)
    assert resolver.for_path("a.py").ignore == ("RT004",)
    assert resolver.for_path("x/y/z/a.py") is resolver.for_path("x/y/a.py")  # loaded once


def test_a_sub_project_that_keeps_unsafe_fixes_off_keeps_its_server_asking(tmp_path, monkeypatch):
    """Per-file `unsafe-fixes`: the server's sub-project leaves RT001 alone, so the client's
    sub-project (unsafe fixes on) keeps its roots in the same run: its server still asks."""
    client = (EXAMPLE / "client.py").read_text()
    write(
        tmp_path,
        {
            "srv/pyproject.toml": "[tool.mcp-migrate]\nunsafe-fixes = false\n",
            "srv/server.py": SERVER,
            "cli/pyproject.toml": "[tool.mcp-migrate]\nunsafe-fixes = true\n",
            "cli/client.py": client,
        },
    )
    monkeypatch.chdir(tmp_path)
    result = run("fix", "--no-color", "srv/server.py", "cli/client.py")
    assert ": fixed " not in result.stdout, result.stdout
    assert "a suggestion while a server in this run still asks for roots, in srv/server.py" in result.stdout
    assert (tmp_path / "srv/server.py").read_text() == SERVER
    assert (tmp_path / "cli/client.py").read_text() == client
    (tmp_path / "srv/pyproject.toml").write_text("[tool.mcp-migrate]\nunsafe-fixes = true\n")
    both = run("fix", "--no-color", "srv/server.py", "cli/client.py")
    assert "srv/server.py:14: fixed RT001" in both.stdout and "cli/client.py:17: fixed RT004" in both.stdout
