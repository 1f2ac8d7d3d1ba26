"""Adopting on a large codebase: baselines, `check --add-noqa`, force-exclude, `mcp-migrate
config`, --strategy, and the progress bar."""

import json
import os

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core import engine
from mcp_migrate.output import progress
from mcp_migrate.project.baseline import line_hash
from mcp_migrate.run.add_noqa import add_noqa

RT004 = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""
TWICE = RT004 + "    await session.send_roots_list_changed()\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, env=None):
    base = {"NO_COLOR": "1", "FORCE_COLOR": None}
    return CliRunner().invoke(cli, list(args), env={**base, **(env or {})}, catch_exceptions=False)


def findings(result):
    return [line.split(" ")[0] for line in result.stdout.splitlines() if ": RT" in line or ": E9" in line]


# baseline ------------------------------------------------------------------------------------
def test_line_hash_ignores_whitespace_changes():
    assert line_hash(b"    await x()  \r\n") == line_hash(b"await   x()")
    assert line_hash(b"await x()") != line_hash(b"await y()")


def test_baseline_hides_recorded_findings_and_survives_inserted_lines(project):
    (project / "a.py").write_text(TWICE)
    written = run("check", "--write-baseline", "mcp-baseline.json")
    assert written.exit_code == 0 and "Wrote 2 findings" in written.stdout
    doc = json.loads((project / "mcp-baseline.json").read_text())
    assert [(e["code"], e["path"], e["count"]) for e in doc["findings"]] == [("RT004", "a.py", 2)]
    (project / "a.py").write_text("# a new first line\n\n" + TWICE)  # every finding moves down
    result = run("check", "--baseline", "mcp-baseline.json")
    assert result.exit_code == 0, result.stdout
    assert "2 findings already in the baseline" in result.stdout


def test_baseline_fails_only_on_new_findings(project):
    (project / "a.py").write_text(RT004)
    run("check", "--write-baseline", "b.json")
    (project / "a.py").write_text(TWICE + "    await session.send_roots_list_changed()  # third\n")
    result = run("check", "--baseline", "b.json")
    assert result.exit_code == 1
    # identical lines: one is recorded, the other is new; the edited line is new
    assert findings(result) == ["a.py:6:11:", "a.py:7:11:"]


def test_stale_baseline_entries_are_reported(project):
    (project / "a.py").write_text(RT004)
    (project / "b.py").write_text(RT004)
    run("check", "--write-baseline", "b.json")
    (project / "a.py").write_text(RT004.replace("    await session.send_roots_list_changed()", "    pass"))
    result = run("check", "--baseline", "b.json")
    assert result.exit_code == 0
    assert "a.py: stale baseline entry RT004 x1" in result.stdout
    only_b = run("check", "--baseline", "b.json", "b.py")  # a.py not checked: not stale
    assert "stale" not in only_b.stdout
    github = run("check", "--baseline", "b.json", "--format", "github")
    assert github.stdout.startswith("::notice file=a.py,title=mcp-migrate baseline::stale baseline entry RT004")


def test_baseline_paths_are_relative_to_the_baseline_file(project, monkeypatch):
    (project / "src").mkdir()
    (project / "ci").mkdir()
    (project / "src" / "a.py").write_text(RT004)
    run("check", "--write-baseline", "ci/baseline.json")
    entry = json.loads((project / "ci" / "baseline.json").read_text())["findings"][0]
    assert entry["path"] == "../src/a.py"
    monkeypatch.chdir(project / "src")  # another working folder, same findings
    assert run("check", "--baseline", "../ci/baseline.json").exit_code == 0


def test_bad_baseline_is_exit_2(project):
    (project / "a.py").write_text(RT004)
    missing = run("check", "--baseline", "nope.json")
    assert missing.exit_code == 2 and "baseline file not found" in missing.stderr
    (project / "x.json").write_text('{"version": 99}')
    assert "not an mcp-migrate baseline" in run("check", "--baseline", "x.json").stderr
    both = run("check", "--baseline", "x.json", "--write-baseline", "y.json")
    assert both.exit_code == 2 and "cannot be combined" in both.stderr


# --add-noqa ----------------------------------------------------------------------------------
def test_add_noqa_is_idempotent_and_silences(project):
    (project / "a.py").write_text(TWICE)
    first = run("check", "--add-noqa")
    assert first.exit_code == 0 and first.stdout == "Added 2 noqa directives to 1 file.\n"
    text = (project / "a.py").read_text()
    assert text.count("send_roots_list_changed()  # noqa: RT004\n") == 2
    again = run("check", "--add-noqa")
    assert again.stdout == "Added 0 noqa directives to 0 files.\n"
    assert (project / "a.py").read_text() == text
    assert run("check").exit_code == 0


def findings_at(source: bytes, *positions):
    """Fake findings (code, line, end_line) for add_noqa."""
    from mcp_migrate.core.findings import Finding

    return [Finding("a.py", line, 1, end, 2, code, "n", "m", "breaks") for code, line, end in positions]


def test_add_noqa_merges_into_an_existing_directive():
    source = b"x = f()  # noqa: F401\ny = g()  # type: ignore\n"
    new, added, unplaced = add_noqa(source, findings_at(source, ("RT001", 1, 1), ("RT004", 2, 2), ("RT002", 2, 2)))
    assert new == b"x = f()  # noqa: F401, RT001\ny = g()  # type: ignore  # noqa: RT002, RT004\n"
    assert added == 3 and unplaced == []


def test_add_noqa_never_writes_inside_a_string_and_keeps_bytes():
    source = b'\xef\xbb\xbfx = f("""a\r\nb""")\r\ny = 1 + \\\r\n    g()\r\n'
    new, added, _ = add_noqa(source, findings_at(source, ("RT001", 1, 2), ("RT004", 3, 4)))
    assert new == b'\xef\xbb\xbfx = f("""a\r\nb""")  # noqa: RT001\r\ny = 1 + \\\r\n    g()  # noqa: RT004\r\n'
    latin = b"# -*- coding: latin-1 -*-\nx = '\xe9'\n"
    new, _, _ = add_noqa(latin, findings_at(latin, ("RT001", 2, 2)))
    assert new == b"# -*- coding: latin-1 -*-\nx = '\xe9'  # noqa: RT001\n"


def test_add_noqa_skips_syntax_errors_and_stale_suppressions():
    source = b"x = 1  # noqa: RT001\n"
    new, added, _ = add_noqa(source, findings_at(source, ("E999", 1, 1), ("RT900", 1, 1)))
    assert new is None and added == 0


def test_add_noqa_goes_through_the_safe_writer(project, monkeypatch):
    (project / "a.py").write_text(RT004)
    os.chmod(project / "a.py", 0o640)
    assert run("check", "--add-noqa").exit_code == 0
    assert oct(os.stat(project / "a.py").st_mode & 0o777) == "0o640"
    assert not [p for p in project.iterdir() if p.name.endswith(".mcp-migrate")]
    assert run("check", "--add-noqa", "--stdin-filename", "a.py", "-").exit_code == 2


# per-file-ignores / exclude everywhere, force-exclude ---------------------------------------
def test_force_exclude_skips_named_excluded_and_non_python_files_quietly(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nextend-exclude = ["gen/"]\n')
    (project / "gen").mkdir()
    (project / "gen" / "a.py").write_text(RT004)
    (project / "notes.md").write_text("send_roots_list_changed()\n")
    assert run("check", "gen/a.py").exit_code == 1  # named files are checked by default
    quiet = run("check", "--force-exclude", "gen/a.py", "notes.md")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    fix = run("fix", "--force-exclude", "gen/a.py")
    assert (fix.exit_code, fix.stdout) == (0, "")
    assert (project / "gen" / "a.py").read_text() == RT004
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nextend-exclude = ["gen/"]\nforce-exclude = true\n')
    assert run("check", "gen/a.py").exit_code == 0
    assert run("check", "--no-force-exclude", "gen/a.py").exit_code == 1


def test_force_exclude_keeps_python_scripts_without_extension(project):
    (project / "tool").write_text("#!/usr/bin/env python3\n" + RT004)
    assert run("check", "--force-exclude", "tool").exit_code == 1


def test_per_file_ignores_apply_to_fix_and_add_noqa(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate.per-file-ignores]\n"tests/" = ["RT004"]\n')
    (project / "tests").mkdir()
    (project / "tests" / "a.py").write_text(RT004)
    assert run("fix", ".").exit_code == 0
    assert run("check", "--add-noqa").stdout.startswith("Added 0 ")
    assert (project / "tests" / "a.py").read_text() == RT004


# mcp-migrate config ----------------------------------------------------------------------------
def test_config_command_shows_values_and_origins(project):
    (project / "pyproject.toml").write_text(
        "[tool.mcp-migrate]\nignore = ['RT003']\nstrategy = 'resource-uri'\n"
        "[tool.mcp-migrate.per-file-ignores]\n'tests/' = ['RT002']\n"
    )
    result = run("config", "--select", "RT00", "--unsafe-fixes")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "# config file: pyproject.toml"
    assert 'select = ["RT00"]  # flag' in lines
    assert 'ignore = ["RT003"]  # pyproject' in lines
    assert 'per-file-ignores = { "tests/" = ["RT002"] }  # pyproject' in lines
    assert 'strategy = "resource-uri"  # pyproject' in lines
    assert "unsafe-fixes = true  # flag" in lines
    assert 'parameter = "directories"  # default' in lines
    # a CLI --select replaces the config's select and ignore (ruff's layering)
    assert '# effective rules = ["RT001", "RT002", "RT003", "RT004", "RT005", "RT006"]  # flag' in lines
    doc = json.loads(run("config", "--format", "json", "--strategy", "server-config").stdout)
    assert doc["settings"]["strategy"] == {"value": "server-config", "origin": "flag"}
    assert doc["settings"]["exclude"]["origin"] == "default"


# --strategy ------------------------------------------------------------------------------------
def test_strategy_flag_overrides_config_and_reaches_the_engine(project, monkeypatch):
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nstrategy = 'resource-uri'\nparameter = 'paths'\n")
    (project / "a.py").write_text(RT004)
    seen = []
    real = engine.analyze

    def spy(data, path, settings=None):
        seen.append((settings.strategy, settings.parameter))
        return real(data, path, settings)

    monkeypatch.setattr(engine, "analyze", spy)
    run("check", "--jobs", "1")
    run("check", "--jobs", "1", "--strategy", "server-config")
    assert seen == [("resource-uri", "paths"), ("server-config", "paths")]
    bad = run("fix", "--strategy", "nope")
    assert bad.exit_code == 2 and "unknown strategy 'nope'" in bad.stderr


# progress --------------------------------------------------------------------------------------
def test_progress_bar_only_on_a_terminal_for_big_runs(project, monkeypatch):
    monkeypatch.setattr(progress, "THRESHOLD", 5)
    for i in range(8):
        (project / f"m{i}.py").write_text("x = 1\n")
    piped = run("check", "--jobs", "1")
    assert piped.stderr == "" and piped.stdout == "Checked 8 files: no findings\n"
    tty = run("check", "--jobs", "1", env={"FORCE_COLOR": "1", "TERM": "xterm"})
    assert "Checking" in tty.stderr and "8/8" in tty.stderr
    assert run("check", "--jobs", "1", "--quiet", env={"FORCE_COLOR": "1"}).stderr == ""
    monkeypatch.setattr(progress, "THRESHOLD", 300)
    assert run("check", "--jobs", "1", env={"FORCE_COLOR": "1"}).stderr == ""


# fix exit policy (pre-commit, CI opening a pull request) -----------------------------------------
def test_fix_exit_policies(project):
    remains = RT004 + (
        "\n\nasync def tool(ctx) -> None:\n"
        "    from mcp.server.fastmcp import Context\n"
        "    c: Context = ctx\n"
        "    await c.session.list_roots()\n"
    )
    (project / "a.py").write_text(RT004)
    assert run("fix", "--exit-non-zero-on-fix", "a.py").exit_code == 1
    assert run("fix", "--exit-non-zero-on-fix", "a.py").exit_code == 0  # nothing left to change
    (project / "b.py").write_text(remains)
    assert run("fix", "b.py").exit_code == 1
    quiet = run("fix", "--exit-zero", "--quiet", "b.py")
    assert quiet.exit_code == 0 and quiet.stdout.startswith("b.py:") and "Checked" not in quiet.stdout
