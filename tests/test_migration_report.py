"""A migration ends with a report (issue 13 §3): `fix --report` / `check --report` write the
Markdown report for the pull request, and the review markers fix leaves are RT901 findings
until a human removes them."""

import dataclasses
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.api import check_bytes, check_source, default_settings
from mcp_migrate.commands.cli import cli

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
MIGRATE = REPO / "fixtures" / "migrate"
#: A fixture migration: a tool whose roots request is rewritten, a tool whose roots result is
#: used as a whole (rewritten with a review marker), and a client whose roots become arguments.
FILES = ("mcp1_fastmcp_loop.py", "opaque_use.py", "client_fastmcp_roots.py")


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.fixture
def migration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in FILES:
        shutil.copy(MIGRATE / name, tmp_path / name)
    return tmp_path


def test_fix_report_describes_the_migration(migration):
    result = run("fix", "--unsafe-fixes", "--report", "MIGRATION.md", ".")
    assert result.exit_code == 1  # review markers (RT901, warning) remain
    text = (migration / "MIGRATION.md").read_text()
    head = text.split("\n## ", 1)[0]
    assert head.splitlines() == [
        "# mcp-migrate migration report",
        "",
        "- Files checked: 3",
        "- Files with something to report: 3",
        "- Rewritten: 4",
        "- Review markers left: 2",
        "- Remaining for manual work: 0",
    ]
    assert "## `opaque_use.py`" in text and "## `mcp1_fastmcp_loop.py`" in text
    assert (
        '| RT002 | 4 | `client = Client("server.py", roots=["file:///home/user/project"])`'
        ' | `client = Client("server.py")` |'
    ) in text
    assert "| RT001 | 13 | `result = await ctx.session.list_roots()` | `async def find_files(" in text
    opaque = text.split("## `opaque_use.py`", 1)[1]
    assert "### Review markers" in opaque
    assert (
        "- line 21: RT001: the roots result is used as a whole (`scan(result)`); check that the value now"
        " rebuilt from `directories` is used the same way"
    ) in opaque


def test_fix_report_lists_what_remains_for_manual_work(migration):
    result = run("fix", "--report", "MIGRATION.md", ".")  # safe only: the unsafe rewrites remain
    assert result.exit_code == 1
    text = (migration / "MIGRATION.md").read_text()
    assert "- Rewritten: 0" in text
    assert "### Remaining for manual work" in text
    assert "- line 13: RT001 roots-request (breaks): `ctx.session.list_roots()` asks for roots" in text


def test_check_report_says_where_the_migration_stands(migration):
    assert run("fix", "-q", "--unsafe-fixes", ".").exit_code == 1
    result = run("check", "--report", "STATUS.md", ".")
    assert result.exit_code == 1
    text = (migration / "STATUS.md").read_text()
    assert "- Rewritten: 0 (a `check` run: nothing was rewritten)" in text
    assert "- Review markers left: 2" in text and "### Rewritten" not in text


# RT901 review-pending --------------------------------------------------------------------------
MARKED = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("s")
# mcp-migrate: RT001 review: the roots were filtered
ROOTS = []
# mcp-migrate: RT002 pass these directories as tool arguments now: '/srv'
DIRS = []
"""


def test_rt901_reports_each_marker_with_its_reason():
    findings = check_source(MARKED, "m.py")
    assert [(f.line, f.column, f.code, f.severity) for f in findings] == [
        (4, 1, "RT901", "warning"),
        (6, 1, "RT901", "warning"),
    ]
    assert findings[0].message == "review pending (RT001): the roots were filtered"
    assert findings[0].help.startswith("the roots were filtered; remove the marker")


def test_rt901_is_selectable_and_ignorable_like_any_rule():
    default = default_settings()
    ignored = dataclasses.replace(default, select=default.select - {"RT901"})
    assert check_bytes(MARKED.encode(), "m.py", ignored).findings == []
    only = dataclasses.replace(default, select=frozenset({"RT901"}))
    assert len(check_bytes(MARKED.encode(), "m.py", only).findings) == 2


def test_rt901_per_file_ignores_and_select_from_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(MARKED)
    assert run("check", "--ignore", "RT901", "m.py").exit_code == 0
    assert run("check", "--select", "RT901", "m.py").exit_code == 1
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-migrate.per-file-ignores]\n"m.py" = ["RT901"]\n')
    assert run("check", "m.py").exit_code == 0


def test_rt901_can_be_suppressed_and_ignore_comments_are_not_markers():
    noqa = MARKED.replace("the roots were filtered", "the roots were filtered  # noqa: RT901")
    assert [f.line for f in check_source(noqa, "m.py")] == [6]
    suppression = "from mcp import ClientSession\nx = 1  # mcp-migrate: ignore[RT001] -- reviewed\n"
    assert [f.code for f in check_source(suppression, "s.py")] == ["RT900"]


def test_the_gate_lets_a_marker_file_through():
    """A migrated file may keep nothing the rules' gates look for but the marker itself."""
    only_marker = b"def f():\n    # mcp-migrate: RT001 review: check the directories\n    return []\n"
    assert [f.code for f in check_bytes(only_marker, "f.py", default_settings()).findings] == ["RT901"]


def test_fix_output_markers_are_findings_until_removed():
    data = (MIGRATE / "opaque_use.py").read_bytes()
    from mcp_migrate.api import fix_bytes

    result = fix_bytes(data, "opaque_use.py", default_settings(), unsafe=True)
    assert [f.code for f in result.findings] == ["RT901"]
    cleaned = b"\n".join(
        line for line in result.fixed_source.split(b"\n") if b"# mcp-migrate: RT001 review" not in line
    )
    assert check_bytes(cleaned, "opaque_use.py", default_settings()).findings == []
