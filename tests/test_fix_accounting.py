"""Honest fix accounting (issue 22 §1, issue 20 §2): a review marker is not a fix, `check`'s full
output shows a finding's whole fix, and `--statistics` marks fixability as ruff does."""

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.api import fix_bytes
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.findings import FIXED, MARKED, Applied
from mcp_migrate.output import full

SCHEMA = json.loads((Path(mcp_migrate.__file__).parent / "schemas" / "report.schema.json").read_text())

#: RT001 no rewrite may touch (the request's awaitable goes to create_task: the fix only leaves
#: a review marker) and an RT004 whose removal is a real, safe fix.
MARKED_ONLY = """\
import asyncio

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("x")


@mcp.tool()
async def count(ctx: Context) -> int:
    task = asyncio.create_task(ctx.session.list_roots())
    roots = await task
    return len(roots.roots)
"""

#: One RT001 whose fix changes the imports, the signature and the body.
ONE_TOOL = """\
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("x")


@mcp.tool()
async def list_files(ctx: Context) -> list:
    roots = await ctx.session.list_roots()
    return [r.uri for r in roots.roots]
"""

TWO_TOOLS = (
    ONE_TOOL
    + """

@mcp.tool()
async def count(ctx: Context) -> int:
    roots = await ctx.session.list_roots()
    return len(roots.roots)
"""
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# A review marker is not a fix -------------------------------------------------------------
def test_the_fix_loop_records_a_marker_as_a_marker():
    result = fix_bytes(MARKED_ONLY.encode(), "m.py", unsafe=True)
    assert result.fixed_source is not None and b"# mcp-migrate: RT001 review:" in result.fixed_source
    assert result.applied == [Applied("RT001", 10, MARKED)]
    assert result.fixed == [] and result.marked == [("RT001", 10, "marker")]
    # The finding stays, and the marker above it is its note, not a second finding (issue 33 §3).
    assert [f.code for f in result.findings] == ["RT001"]


def test_a_real_rewrite_is_recorded_as_fixed():
    result = fix_bytes(ONE_TOOL.encode(), "t.py", unsafe=True)
    assert result.applied == [Applied("RT001", 8, FIXED)] and result.marked == []


def test_fix_prints_markers_apart_from_fixes(project):
    (project / "m.py").write_text(MARKED_ONLY)
    result = run("fix", "--unsafe-fixes", "--show-fixes", "--output-format", "concise", "m.py")
    assert result.exit_code == 1  # RT001 and its RT901 remain
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "m.py:10: marked RT001 for review",
        "No findings fixed; 1 marked for review (the findings remain).",
        "  m.py:",
        "    1 × RT001 (roots-request) marked for review",
    ]
    assert "fixed RT001" not in result.stdout and "Fixed 1" not in result.stdout
    assert "m.py:14:32: RT001" in result.stdout and "RT901" not in result.stdout
    assert lines[-1] == "Checked 1 file: 1 finding (RT001: 1)"  # as many as before the fix


def test_fix_counts_both_when_both_happen(project):
    (project / "m.py").write_text(MARKED_ONLY)
    (project / "t.py").write_text(ONE_TOOL)
    result = run("fix", "--unsafe-fixes", "--output-format", "concise", ".")
    assert "t.py:8: fixed RT001" in result.stdout and "m.py:10: marked RT001 for review" in result.stdout
    assert "Fixed 1 finding; 1 marked for review (the findings remain)." in result.stdout.splitlines()


def test_fix_json_lists_markers_apart(project):
    (project / "m.py").write_text(MARKED_ONLY)
    (project / "t.py").write_text(ONE_TOOL)
    result = run("fix", "--unsafe-fixes", "--output-format", "json", ".")
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["fixed"] == [{"path": "t.py", "code": "RT001", "line": 8}]
    assert doc["marked_for_review"] == [{"path": "m.py", "code": "RT001", "line": 10}]
    assert [f["code"] for f in doc["findings"] if f["path"] == "m.py"] == ["RT001"]
    checked = json.loads(run("check", "--output-format", "json", ".").stdout)
    assert "fixed" not in checked and "marked_for_review" not in checked  # a check fixes nothing


def test_diff_summary_counts_markers_apart(project):
    (project / "m.py").write_text(MARKED_ONLY)
    result = run("fix", "--unsafe-fixes", "--diff", "m.py")
    assert result.exit_code == 1
    assert result.stderr == "No fixes to apply; 1 would be marked for review (the findings remain).\n"
    assert (project / "m.py").read_text() == MARKED_ONLY


def test_fix_only_counts_markers_apart(project):
    (project / "m.py").write_text(MARKED_ONLY)
    result = run("fix", "--unsafe-fixes", "--fix-only", "m.py")
    assert result.stdout.splitlines()[-1] == "No findings fixed; 1 marked for review (the findings remain)."


# check's full output previews a finding's whole fix ----------------------------------------
def _blocks(stdout: str) -> dict:
    """`path:line:col` -> the lines printed under that finding."""
    out, key = {}, None
    for line in stdout.splitlines():
        head = line.split(": ", 1)[0]
        if head.count(":") == 2 and not line.startswith((" ", "|", "=", "+", "-", "@", ".")):
            key = head
            out[key] = []
        elif key is not None:
            out[key].append(line)
    return out


def test_the_preview_shows_imports_signature_and_body(project):
    (project / "t.py").write_text(ONE_TOOL)
    block = _blocks(run("check", "--no-cache", "t.py").stdout)["t.py:8:19"]
    assert "@@ line 1 @@" in block and "+ from pathlib import Path" in block  # the imports hunk
    assert "- async def list_files(ctx: Context) -> list:" in block
    assert "+     return [Path(r).resolve().as_uri() for r in directories]" in block


@pytest.mark.parametrize("cache", [False, True])
def test_each_finding_previews_its_own_fix(project, cache):
    (project / "t.py").write_text(TWO_TOOLS)
    args = ("check", "t.py") if cache else ("check", "--no-cache", "t.py")
    if cache:
        run(*args)  # the second run reads its previews from the cache
    blocks = _blocks(run(*args).stdout)
    first, second = blocks["t.py:8:19"], blocks["t.py:14:19"]
    assert "- async def list_files(ctx: Context) -> list:" in first
    assert not any("async def count" in line for line in first)
    assert "- async def count(ctx: Context) -> int:" in second
    assert not any("list_files" in line for line in second)
    assert any(line.startswith("+ from typing import Annotated") for line in first + second)
    assert not any(line.startswith("... ") for line in first + second)


def test_a_long_preview_names_the_command_that_shows_the_rest(project, monkeypatch):
    monkeypatch.setattr(full, "MAX_DIFF_LINES", 5)
    (project / "my t.py").write_text(ONE_TOOL)
    block = _blocks(run("check", "--no-cache", "my t.py").stdout)["my t.py:8:19"]
    tail = [line for line in block if line.startswith("... ")]
    assert tail == ["... +13 more lines: `mcp-migrate fix --diff --unsafe-fixes --select RT001 'my t.py'`"]


def test_a_shared_rule_diff_without_its_own_preview_says_where_the_rest_is():
    """Past the per-finding budget (or from `fix`'s remaining findings) a finding shows the
    hunks of its rule's diff near it and the command for the rest."""
    from types import SimpleNamespace

    old = TWO_TOOLS.encode()
    new = fix_bytes(old, "t.py", unsafe=True).fixed_source
    proposal = SimpleNamespace(old=old, new=new)
    finding = SimpleNamespace(line=14, end_line=14, fix="unsafe", code="RT001", path="t.py")
    block = [text for text, _ in full.fix_block(proposal, finding, {}, None, alone=False)]
    assert "- async def count(ctx: Context) -> int:" in block and not any("list_files" in t for t in block)
    assert (
        block[-1]
        == "... the rest of this file's RT001 fixes: `mcp-migrate fix --diff --unsafe-fixes --select RT001 t.py`"
    )


# --statistics marks as ruff's ---------------------------------------------------------------
def test_statistics_mark_safe_unsafe_and_none(project):
    (project / "m.py").write_text(
        MARKED_ONLY + "\n\nasync def notify(session):\n    await session.send_roots_list_changed()\n"
    )
    assert run("fix", "-q", "--unsafe-fixes", "--select", "RT001", "m.py").exit_code == 1  # RT001 marked: no fix left
    (project / "t.py").write_text(ONE_TOOL)
    lines = run("check", "--statistics", ".").stdout.splitlines()
    assert lines == [
        "2  RT001  [-] roots-request",
        "1  RT004  [ ] roots-list-changed-send",  # m.py's server still asks (a marker): withheld (issue 20 §1)
        "Checked 2 files: 3 findings (RT001: 2, RT004: 1); 1 fixable with `mcp-migrate fix --unsafe-fixes`",
    ]  # the marker above m.py's RT001 is that finding's note: no RT901 beside it
    unfixable = run("check", "--statistics", "--select", "RT901", ".").stdout.splitlines()
    assert unfixable[0] == "1  RT901  review-pending"  # no rule has a fix: no marks, as ruff


def test_statistics_count_unsafe_as_fixable_where_unsafe_fixes_are_on(project):
    (project / "t.py").write_text(ONE_TOOL)
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nunsafe-fixes = true\n")
    assert run("check", "--statistics", "t.py").stdout.splitlines()[0] == "1  RT001  [*] roots-request"


# A finding whose only action is a review marker is not fixable, in any output (issue 33 §3) --
def test_check_never_calls_a_marker_fixable(project):
    (project / "m.py").write_text(MARKED_ONLY)
    summary = "Checked 1 file: 1 finding (RT001: 1); 1 needs review by hand"
    for flags in ((), ("--unsafe-fixes",)):
        concise = run("check", *flags, "--output-format", "concise", "m.py").stdout.splitlines()
        assert concise[-1] == summary
        stats = run("check", *flags, "--statistics", "m.py").stdout.splitlines()
        assert stats == ["1  RT001  roots-request", summary]  # no rule has a fix: no marks, as ruff
    doc = json.loads(run("check", "--output-format", "json", "--statistics", "m.py").stdout)
    jsonschema.validate(doc, SCHEMA)
    assert [f["fix"] for f in doc["findings"]] == ["marker"]
    assert doc["statistics"] == [{"code": "RT001", "name": "roots-request", "count": 1, "fixable": 0}]
    sarif = json.loads(run("check", "--output-format", "sarif", "m.py").stdout)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["RT001"]
    assert "fixes" not in sarif["runs"][0]["results"][0]
    full = run("check", "m.py").stdout
    assert "= review marker, not a fix (`mcp-migrate fix --unsafe-fixes` leaves it; the finding stays):" in full
    assert "unsafe fix" not in full and "fixable" not in full


def test_fix_hints_at_no_marker_as_an_unsafe_fix(project):
    (project / "m.py").write_text(MARKED_ONLY)
    diff = run("fix", "--diff", "m.py")
    assert (diff.exit_code, diff.stdout, diff.stderr) == (0, "", "No fixes to apply.\n")
    only = run("fix", "--fix-only", "m.py")
    assert (only.exit_code, only.stdout) == (0, "")
    assert (project / "m.py").read_text() == MARKED_ONLY


def test_fix_unsafe_leaves_the_finding_count_as_it_was(project):
    (project / "m.py").write_text(MARKED_ONLY)
    before = json.loads(run("check", "--output-format", "json", "m.py").stdout)["findings"]
    run("fix", "--unsafe-fixes", "-q", "m.py")
    after = json.loads(run("check", "--output-format", "json", "m.py").stdout)["findings"]
    assert [f["code"] for f in before] == [f["code"] for f in after] == ["RT001"]
    assert after[0]["fix"] == "none"  # the marker is there: nothing more to do but a human's work
    again = run("fix", "--unsafe-fixes", "--output-format", "concise", "m.py").stdout.splitlines()
    assert again[-1] == "Checked 1 file: 1 finding (RT001: 1)"


def test_a_marker_whose_finding_is_gone_is_reported(project):
    (project / "m.py").write_text(MARKED_ONLY)
    run("fix", "--unsafe-fixes", "-q", "m.py")
    text = (project / "m.py").read_text().replace("asyncio.create_task(ctx.session.list_roots())", "make()")
    (project / "m.py").write_text(text)  # a human rewrote the call and forgot the marker
    doc = json.loads(run("check", "--output-format", "json", "m.py").stdout)
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("RT901", 10)]


def test_a_marker_finding_is_served_from_the_results_cache(project, monkeypatch):
    from mcp_migrate.core import engine

    (project / "m.py").write_text(MARKED_ONLY)
    first = run("check", "--output-format", "json", "m.py").stdout
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    assert run("check", "--output-format", "json", "m.py").stdout == first
    assert parses == []  # the cache's codec knows the `marker` kind


def test_json_statistics_count_no_suggestion_as_fixable(monkeypatch):
    """Display-only suggestions are never applied (core.fix.edits.Fix.display): the JSON
    statistics' `fixable` agrees with the text's marks, which never mark them."""
    monkeypatch.chdir(Path(mcp_migrate.__file__).resolve().parent.parent)
    doc = json.loads(
        run(
            "check", "--no-cache", "--output-format", "json", "--statistics", "fixtures/RT102/fix_path_to_uri.py"
        ).stdout
    )
    assert {f["fix"] for f in doc["findings"]} == {"display", "none"}
    assert doc["statistics"] == [{"code": "RT102", "name": "naive-file-uri", "count": 4, "fixable": 0}]
