"""A ruff user is at home (issue 13 §2, §5): ruff's option names and behaviours, the full and
concise text formats, honest fix hints, explain/rules as ruff's, and the small things."""

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

import mcp_migrate
from mcp_migrate.api import check_source
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.output import report

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
#: An era-portable bridge: an RT001 finding of severity info.
BRIDGE = (REPO / "fixtures" / "RT001" / "listroots_marker.py").read_text()
FINDING_LINE = re.compile(r"^\S.*:\d+:\d+: [A-Z]+\d+ ")


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, input=input, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# check --fix / --diff / --unsafe-fixes ------------------------------------------------------
def test_check_fix_writes_like_the_fix_command(project):
    (project / "a.py").write_text(FIXABLE)
    result = run("check", "--fix", "a.py")
    assert result.exit_code == 0, result.output
    assert (project / "a.py").read_text() == FIXED
    assert "Fixed 2 findings." in result.stdout


def test_check_diff_prints_the_fix_and_writes_nothing(project):
    (project / "a.py").write_text(FIXABLE)
    result = run("check", "--diff", "a.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
    assert (project / "a.py").read_text() == FIXABLE
    assert result.stderr == "Would fix 2 findings.\n"


def test_check_unsafe_fixes_counts_unsafe_fixes_as_fixable(project):
    (project / "server.py").write_text(SERVER)
    plain = run("check", "--output-format", "concise", "server.py")
    assert plain.stdout.splitlines()[-1].endswith("; 1 fixable with `mcp-migrate fix --unsafe-fixes`")
    unsafe = run("check", "--output-format", "concise", "--unsafe-fixes", "server.py")
    assert unsafe.stdout.splitlines()[-1].endswith("; 1 fixable with `mcp-migrate fix`")
    fixed = run("check", "--fix", "--unsafe-fixes", "server.py")
    assert "fixed RT001" in fixed.stdout and "list_roots" not in (project / "server.py").read_text()


def test_fix_modes_do_not_combine(project):
    (project / "a.py").write_text(FIXABLE)
    result = run("check", "--fix", "--add-noqa", "a.py")
    assert result.exit_code == 2 and "--fix and --add-noqa cannot be combined" in result.stderr


# fix --diff with nothing safe, hints that tell the truth -------------------------------------
def test_fix_diff_with_nothing_safe_says_so_and_counts_unsafe(project):
    (project / "server.py").write_text(SERVER)
    result = run("fix", "--diff", "server.py")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == "No safe fixes to apply (1 unsafe fix available with `--unsafe-fixes`).\n"
    clean = run("fix", "--diff", "--select", "RT004", "server.py")
    assert clean.stderr == "No fixes to apply.\n"


#: A file whose one finding has an unsafe fix, and no server asking for roots in it (a server
#: that still asks would keep every client's list_changed send in the run: issue 20 §1).
UNSAFE_ONLY = (
    "from mcp.types import ClientCapabilities, RootsCapability\n\nCAPS = ClientCapabilities(roots=RootsCapability())\n"
)


def test_summary_hints_follow_unsafe_fixes_in_config(project):
    (project / "server.py").write_text(UNSAFE_ONLY)
    (project / "a.py").write_text(FIXABLE)
    mixed = run("check", "--output-format", "concise", "server.py", "a.py")
    assert mixed.stdout.splitlines()[-1].endswith(
        "; 2 fixable with `mcp-migrate fix`; 1 more with `mcp-migrate fix --unsafe-fixes`"
    )
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nunsafe-fixes = true\n")
    configured = run("check", "--output-format", "concise", "server.py", "a.py")
    assert configured.stdout.splitlines()[-1].endswith("; 3 fixable with `mcp-migrate fix`")
    assert "--unsafe-fixes" not in configured.stdout.splitlines()[-1]


def test_fix_hint_never_says_more_without_a_first_count():
    from mcp_migrate.core.findings import Finding

    unsafe = Finding("a.py", 1, 1, 1, 2, "RT001", "roots-request", "m", "breaks", "unsafe")
    assert report.fix_hint([unsafe], False) == "; 1 fixable with `mcp-migrate fix --unsafe-fixes`"
    assert report.fix_hint([unsafe], True) == "; 1 fixable with `mcp-migrate fix`"
    assert report.fix_hint([], False) == ""


# output formats ------------------------------------------------------------------------------
def test_full_is_the_default_with_source_caret_and_unsafe_diff(project):
    (project / "server.py").write_text(SERVER)
    result = run("check", "server.py")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("server.py:14:20: RT001 ")
    assert lines[2] == "14 |     result = await ctx.session.list_roots()"
    assert lines[3] == "   |                    " + "^" * 24 + " RT001"
    assert "= unsafe fix (review it; applied by `mcp-migrate fix --unsafe-fixes`):" in lines
    assert "-     result = await ctx.session.list_roots()" in lines
    assert run("check", "--output-format", "full", "server.py").stdout == result.stdout


def test_full_shows_a_safe_fix_as_a_diff(project):
    (project / "a.py").write_text(FIXABLE)
    lines = run("check", "a.py").stdout.splitlines()
    assert "= fix (applied by `mcp-migrate fix`):" in lines
    assert "-     await session.send_roots_list_changed()" in lines


def test_concise_and_the_old_format_name_are_one_line_per_finding(project):
    (project / "server.py").write_text(SERVER)
    concise = run("check", "--output-format", "concise", "server.py")
    old = run("check", "--format", "text", "server.py")
    assert concise.stdout == old.stdout
    assert [line for line in concise.stdout.splitlines() if line and not line.startswith("Checked")] == [
        line for line in concise.stdout.splitlines() if FINDING_LINE.match(line)
    ]


def test_format_stays_an_alias_of_output_format(project):
    (project / "server.py").write_text(SERVER)
    assert json.loads(run("check", "--format", "json", "server.py").stdout) == json.loads(
        run("check", "--output-format", "json", "server.py").stdout
    )


# selection and discovery -------------------------------------------------------------------
def test_extend_select_adds_to_the_configured_selection(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nselect = ["RT004"]\n')
    (project / "server.py").write_text(SERVER)
    assert run("check", "--output-format", "concise", "server.py").exit_code == 0
    result = run("check", "--output-format", "concise", "--extend-select", "RT001", "server.py")
    assert result.exit_code == 1 and "RT001" in result.stdout
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nselect = ["RT004"]\nextend-select = ["RT001"]\n')
    assert run("check", "server.py").exit_code == 1


def test_show_files_lists_what_would_be_checked(project):
    (project / "b.py").write_text("x = 1\n")
    (project / "pkg").mkdir()
    (project / "pkg" / "a.py").write_text("y = 2\n")
    (project / "notes.txt").write_text("not python\n")
    result = run("check", "--show-files")
    assert result.exit_code == 0 and result.stdout.splitlines() == ["b.py", "pkg/a.py"]


def test_git_info_exclude_is_honoured_like_gitignore(project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "exclude").write_text("scratch/\n")
    (project / "scratch").mkdir()
    (project / "scratch" / "s.py").write_text(SERVER)
    (project / "kept.py").write_text("x = 1\n")
    assert run("check", "--show-files").stdout.splitlines() == ["kept.py"]
    assert run("check").exit_code == 0


def test_per_file_ignores_key_with_dot_slash_matches_like_without(project):
    (project / "tests").mkdir()
    (project / "tests" / "t.py").write_text(SERVER)
    for key in ('"tests/"', '"./tests/"'):
        (project / "pyproject.toml").write_text(f'[tool.mcp-migrate.per-file-ignores]\n{key} = ["RT001"]\n')
        result = run("check", "--output-format", "concise")
        assert result.exit_code == 0, (key, result.stdout)


def test_show_fixes_enumerates_what_was_fixed(project):
    (project / "a.py").write_text(FIXABLE)
    result = run("fix", "--show-fixes", "a.py")
    assert "  a.py:\n    2 × RT004 (roots-list-changed-send)\n" in result.stdout


# did you mean ------------------------------------------------------------------------------
def test_unknown_option_gets_a_did_you_mean(project):
    result = run("check", "--extend-selct", "RT001")
    assert result.exit_code == 2 and "Did you mean" in result.stderr and "'--extend-select'" in result.stderr


def test_unknown_config_key_gets_a_did_you_mean(project):
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nper-file-ignore = {}\n")
    result = run("check")
    assert result.exit_code == 2
    assert "unknown key 'per-file-ignore' in [tool.mcp-migrate] (did you mean 'per-file-ignores'?)" in result.stderr


# --severity / fail-on --------------------------------------------------------------------------
def test_info_findings_do_not_fail_by_default(project):
    (project / "bridge.py").write_text(BRIDGE)
    result = run("check", "--output-format", "concise", "bridge.py")
    assert "RT001" in result.stdout and result.exit_code == 0
    assert run("check", "--severity", "info", "bridge.py").exit_code == 1
    assert run("check", "--fail-on", "info", "bridge.py").exit_code == 1
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nfail-on = "info"\n')
    assert run("check", "bridge.py").exit_code == 1
    assert run("check", "--severity", "warning", "bridge.py").exit_code == 0


def test_severity_threshold_above_the_findings_passes(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nfail-on = "breaks"\n')
    (project / "server.py").write_text(SERVER)
    assert run("check", "server.py").exit_code == 1  # RT001 breaks
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nfail-on = "urgent"\n')
    bad = run("check", "server.py")
    assert bad.exit_code == 2 and "unknown severity 'urgent'" in bad.stderr


# explain and rules -----------------------------------------------------------------------------
def test_explain_accepts_the_rule_name(project):
    by_code = run("explain", "RT001")
    by_name = run("explain", "roots-request")
    assert by_code.exit_code == by_name.exit_code == 0
    assert by_code.stdout == by_name.stdout
    assert "## What it finds" in by_code.stdout  # piped: the page as written
    typo = run("explain", "roots-requst")
    assert typo.exit_code == 2 and "(did you mean 'roots-request'?)" in typo.stderr


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_explain_renders_markdown_on_a_terminal():
    out = _Terminal()
    report.print_explain(load_catalog()["RT001"], color=False, file=out)
    text = out.getvalue()
    assert "What it finds" in text and "## What it finds" not in text and "```" not in text


def test_rules_json_lists_the_catalog(project):
    result = run("rules", "--output-format", "json")
    doc = json.loads(result.stdout)
    assert [row["code"] for row in doc] == list(load_catalog())
    rt103 = next(row for row in doc if row["code"] == "RT103")
    assert rt103["security_severity"] == "7.5" and rt103["fix"] == "display"
    assert set(doc[0]) >= {"code", "name", "severity", "fix", "summary"}


def test_readme_documents_completion_and_the_default_format():
    readme = (REPO / "README.md").read_text()
    assert "_MCP_MIGRATE_COMPLETE=bash_source" in readme
    assert "--output-format full" in readme and "concise" in readme


# the small things (§5) -----------------------------------------------------------------------
def test_e999_message_and_position_agree(project):
    source = "from mcp import ClientSession\n\nx = (ctx.session.list_roots(),\n\ny = 2\n"
    (finding,) = check_source(source, "bad.py")
    assert (finding.code, finding.line, finding.column) == ("E999", 3, 5)
    assert finding.message == "cannot parse: '(' was never closed"
    assert not re.search(r"\d+:\d+", finding.message)


def test_add_noqa_leaves_a_bare_noqa_alone_it_already_suppresses(project):
    """A bare `# noqa` suppresses every finding on its line, as in ruff (issue 22 §6), so
    `--add-noqa` has nothing to add there (ruff's --add-noqa neither), and nothing is stale."""
    source = SERVER.replace("await ctx.session.list_roots()", "await ctx.session.list_roots()  # noqa")
    (project / "server.py").write_text(source)
    result = run("check", "--add-noqa", "server.py")
    assert result.exit_code == 0 and result.stdout == "Added 0 noqa directives to 0 files.\n"
    assert (project / "server.py").read_text() == source
    again = run("check", "--output-format", "concise", "--severity", "info", "server.py")
    assert again.exit_code == 0 and "RT900" not in again.stdout


def test_extend_apis_message_reads_well(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate.extend-apis]\nRT001 = ["myapp.mcp.get_client_roots"]\n')
    (project / "a.py").write_text("from myapp.mcp import get_client_roots\n\nroots = get_client_roots()\n")
    result = run("check", "--output-format", "concise", "a.py")
    assert (
        "a.py:3:9: RT001 `myapp.mcp.get_client_roots` wraps roots-request, configured in extend-apis"
    ) in result.stdout
    assert "is a wrapper around a server" not in result.stdout


def test_rt001_page_follows_the_readme_on_the_default_strategy():
    page = (REPO / "rules" / "RT001-roots-request.md").read_text()
    assert "`tool-parameter` (the default)" not in page
    assert "a tool function (`@mcp.tool()`, `add_tool`)\ngets `tool-parameter`" in page
