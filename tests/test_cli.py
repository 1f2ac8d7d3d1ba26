"""The command line end to end: exit codes, output formats, config and discovery wiring."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli
from mcp_migrate.core import engine
from mcp_migrate.core.findings import Finding

RT004_SOURCE = """\
from mcp import ClientSession

async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""
CLEAN_SOURCE = "def add(a: int, b: int) -> int:\n    return a + b\n"
REPO = Path(mcp_migrate.__file__).resolve().parent.parent
PLAIN_ENV = {"NO_COLOR": None, "FORCE_COLOR": None}


def make(root, tree):
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), env={**PLAIN_ENV, **(env or {})}, catch_exceptions=False)


FINDING_LINE = re.compile(r"^\S.*:\d+:\d+: [A-Z]+\d+ ")


def rows(result):
    """The finding lines (`path:line:col: CODE message`) of either text format."""
    return [line for line in result.stdout.splitlines() if FINDING_LINE.match(line)]


# exit codes ---------------------------------------------------------------------------------
def test_clean_exit_0(project):
    make(project, {"a.py": CLEAN_SOURCE})
    result = run("check")
    assert result.exit_code == 0
    assert result.stdout == "Checked 1 file: no findings\n"


def test_finding_exit_1(project):
    make(project, {"pkg/a.py": RT004_SOURCE, "b.py": CLEAN_SOURCE})
    result = run("check", "--output-format", "concise", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("pkg/a.py:4:11: RT004 ")
    assert lines[1:] == ["", "Checked 2 files: 1 finding (RT004: 1); 1 fixable with `mcp-migrate fix`"]


def test_a_missing_path_is_e902_and_the_run_goes_on(project):
    """As ruff: `nope:1:1: E902 ...`, the other paths are still checked, exit 1."""
    make(project, {"pkg/a.py": RT004_SOURCE})
    result = run("check", "--output-format", "concise", "nope", "pkg/a.py", "gone/b.py")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        "gone/b.py:1:1: E902 No such file or directory",
        "nope:1:1: E902 No such file or directory",
        "pkg/a.py:4:11: RT004 " + result.stdout.splitlines()[2].split(" RT004 ", 1)[1],
        "",
        "Checked 1 file: 3 findings (E902: 2, RT004: 1); 1 fixable with `mcp-migrate fix`",
    ]
    assert result.stderr == ""
    alone = run("check", "--output-format", "json", "nope")
    assert alone.exit_code == 1
    doc = json.loads(alone.stdout)
    assert doc["files_checked"] == 0
    assert doc["findings"] == [
        {
            "code": "E902",
            "name": "io-error",
            "path": "nope",
            "line": 1,
            "column": 1,
            "end_line": 1,
            "end_column": 1,
            "message": "No such file or directory",
            "help": "",
            "severity": "error",
            "fix": "none",
        }
    ]
    fixed = run("fix", "nope", "pkg/a.py")
    assert fixed.exit_code == 1
    assert "nope:1:1: E902 No such file or directory" in fixed.stdout
    assert "pkg/a.py:4: fixed RT004" in fixed.stdout
    assert run("check", "--show-files", "nope", "pkg/a.py").stdout == "pkg/a.py\n"  # as ruff: skipped


def test_no_python_files_is_clean_with_a_warning(project):
    result = run("check")
    assert result.exit_code == 0 and "no Python files found" in result.stderr


def test_broken_toml_exit_2(project):
    make(project, {"pyproject.toml": "[tool.mcp-migrate]\nselect = [\n", "a.py": ""})
    result = run("check")
    assert result.exit_code == 2
    assert result.stderr.startswith("mcp-migrate: error: pyproject.toml: invalid TOML: ")
    assert result.stderr.count("\n") == 1


def test_unknown_config_key_exit_2(project):
    make(project, {"pyproject.toml": "[tool.mcp-migrate]\nfoo = 1\n", "a.py": ""})
    result = run("check")
    assert result.exit_code == 2
    assert result.stderr == "mcp-migrate: error: pyproject.toml: unknown key 'foo' in [tool.mcp-migrate]\n"


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_cli_code_exit_2(project, option):
    make(project, {"a.py": ""})
    result = run("check", option, "RT001,XX1")
    assert result.exit_code == 2
    assert result.stderr == f"mcp-migrate: error: {option}: unknown rule code: XX1\n"


def test_file_error_exit_2(project, monkeypatch):
    make(project, {"a.py": RT004_SOURCE, "b.py": RT004_SOURCE})

    def explode(data, path, settings=None):
        if path == "a.py":
            raise RuntimeError("boom\nsecond line")
        return original(data, path, settings)

    original = engine.analyze
    monkeypatch.setattr(engine, "analyze", explode)
    result = run("check")
    assert result.exit_code == 2
    assert result.stderr == "a.py: error: internal RuntimeError: boom second line\n"
    assert "b.py:4:11: RT004" in result.stdout  # the other file still reported


def test_unreadable_file_is_e902_and_does_not_stop_the_run(project):
    make(project, {"b.py": RT004_SOURCE})
    os.symlink(project / "missing.py", project / "a.py")  # broken link, named explicitly
    result = run("check", "a.py", "b.py", "--select", "RT001")
    assert result.exit_code == 1
    assert rows(result) == ["a.py:1:1: E902 cannot read file: No such file or directory"]


# selection ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, code",
    [
        (["--select", "RT004"], 1),
        (["--select", "RT00"], 1),
        (["--select", "RT001,RT002"], 0),
        (["--ignore", "RT"], 0),
        (["--ignore", "RT00"], 0),
        (["--ignore", "RT001"], 1),
    ],
)
def test_select_ignore_prefixes(project, args, code):
    make(project, {"a.py": RT004_SOURCE})
    assert run("check", *args).exit_code == code


def test_cli_select_overrides_config(project):
    make(project, {"pyproject.toml": "[tool.mcp-migrate]\nignore = ['RT004']\n", "a.py": RT004_SOURCE})
    assert run("check").exit_code == 0
    assert run("check", "--select", "RT").exit_code == 1  # CLI select replaces config ignore too


def test_per_file_ignores(project):
    make(
        project,
        {
            "pyproject.toml": '[tool.mcp-migrate.per-file-ignores]\n"tests/" = ["RT004"]\n',
            "tests/test_a.py": RT004_SOURCE,
            "src/a.py": RT004_SOURCE,
        },
    )
    result = run("check")
    assert [r.split(":")[0] for r in rows(result)] == ["src/a.py"]


def test_explicit_config_option(project):
    make(project, {"conf/mcp.toml": "ignore = ['RT']\n", "a.py": RT004_SOURCE})
    assert run("check", "--config", "conf/mcp.toml").exit_code == 0
    result = run("check", "--config", "conf/none.toml")
    assert result.exit_code == 2 and "config file not found" in result.stderr


# discovery ----------------------------------------------------------------------------------
def test_exclude_and_extend_exclude(project):
    make(project, {"build/a.py": RT004_SOURCE, "gen/b.py": RT004_SOURCE, "src/c.py": RT004_SOURCE})
    make(project, {"pyproject.toml": "[tool.mcp-migrate]\nextend-exclude = ['gen/']\n"})
    assert [r.split(":")[0] for r in rows(run("check"))] == ["src/c.py"]
    make(project, {"pyproject.toml": "[tool.mcp-migrate]\nexclude = ['gen/']\n"})
    assert [r.split(":")[0] for r in rows(run("check"))] == ["build/a.py", "src/c.py"]


def test_gitignore_negation_and_nesting(project):
    make(
        project,
        {
            ".git/HEAD": "",
            ".gitignore": "gen_*.py\n",
            "gen_a.py": RT004_SOURCE,
            "sub/.gitignore": "!gen_keep.py\n",
            "sub/gen_keep.py": RT004_SOURCE,
            "sub/gen_drop.py": RT004_SOURCE,
        },
    )
    assert [r.split(":")[0] for r in rows(run("check"))] == ["sub/gen_keep.py"]


def test_venv_with_pyvenv_cfg_is_skipped(project):
    make(project, {"env/pyvenv.cfg": "home = /usr/bin\n", "env/lib/m.py": RT004_SOURCE, "a.py": CLEAN_SOURCE})
    result = run("check")
    assert result.exit_code == 0 and "Checked 1 file:" in result.stdout


def test_explicit_file_is_always_checked(project):
    make(project, {".gitignore": "a.py\n", "a.py": RT004_SOURCE, "build/tool": RT004_SOURCE})
    assert run("check").exit_code == 0
    result = run("check", "a.py", "build/tool")
    assert [r.split(":")[0] for r in rows(result)] == ["a.py", "build/tool"]


# output -------------------------------------------------------------------------------------
def test_json_shape(project):
    make(project, {"a.py": RT004_SOURCE, "b.py": CLEAN_SOURCE})
    result = run("check", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert set(doc) == {"version", "files_checked", "findings", "suppressed", "errors"}
    assert doc["version"] == mcp_migrate.__version__ and doc["files_checked"] == 2 and doc["errors"] == []
    (finding,) = doc["findings"]
    assert {k: finding[k] for k in ("path", "line", "column", "code")} == {
        "path": "a.py", "line": 4, "column": 11, "code": "RT004",
    }  # fmt: skip
    assert set(finding) == set(Finding("p", 1, 1, 1, 1, "C", "n", "m", "s").to_json())


def test_markup_in_paths_is_printed_literally(project):
    make(project, {"list[str]/[bold]x.py": RT004_SOURCE})
    result = run("check")
    assert rows(result)[0].startswith("list[str]/[bold]x.py:4:11: RT004 ")


def test_markup_and_emoji_in_messages_are_printed_literally(project, monkeypatch):
    make(project, {"a.py": "session.list_roots()\n"})  # RT001's screens keep it: the (fake) engine runs

    def fake(data, path, settings=None):
        result = mcp_migrate.FileResult(path)
        message = "returns list[str] [red]not red[/] :smile: \\"
        result.findings.append(Finding(path, 1, 1, 1, 2, "RT001", "roots-request", message, "breaks"))
        return engine.Analysis(None, [], result)

    monkeypatch.setattr(engine, "analyze", fake)
    result = run("check", env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
    assert "list[str] [red]not red[/] :smile: \\" in result.stdout
    assert "\x1b[" in result.stdout  # coloured on a (forced) terminal


@pytest.mark.parametrize("env, args", [({"NO_COLOR": "1"}, []), ({}, ["--no-color"])])
def test_no_color(project, env, args):
    make(project, {"a.py": RT004_SOURCE})
    result = run("check", *args, env={"FORCE_COLOR": "1", "TERM": "xterm-256color", **env})
    assert result.exit_code == 1 and "\x1b[" not in result.stdout and "a.py:4:11: RT004" in result.stdout


def test_rules_and_explain(project):
    result = run("rules")
    assert result.exit_code == 0
    first = next(line.split() for line in result.stdout.splitlines() if line.startswith("RT001"))
    assert first[2] in ("none", "safe", "unsafe")
    result = run("explain", "rt004")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "RT004 roots-list-changed-send (breaks, fix: safe)"
    result = run("explain", "RT999")
    assert result.exit_code == 2 and result.stderr.startswith("mcp-migrate: error: unknown rule code or name: RT999")


def test_process_pool_matches_in_process(project):
    make(project, {f"m{i:03}.py": RT004_SOURCE if i % 7 == 0 else CLEAN_SOURCE for i in range(70)})
    serial = run("check", "--format", "json", "--jobs", "1")
    pooled = run("check", "--format", "json", "--jobs", "2")
    assert serial.exit_code == pooled.exit_code == 1
    assert json.loads(serial.stdout) == json.loads(pooled.stdout)
    assert json.loads(serial.stdout)["files_checked"] == 70


# a real process: entry point, piped output -------------------------------------------------
def test_module_entry_point_piped(project):
    make(project, {"a.py": RT004_SOURCE})
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_migrate", "check"], capture_output=True, text=True, env=env, cwd=project
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("a.py:4:11: RT004 ") and "\x1b[" not in proc.stdout
    assert proc.stderr == ""
