"""A helper's callers are related locations of the helper's finding, not findings of their own
(issue 33 §3, core.callers): one RT001 finding at the request, its callers in the same module and
in a module one import away listed under it in every format; a caller stays a finding of its
own only when its helper's file is not part of the run; the summary says when findings do not
fail the run; the results cache keeps what the join needs, so a warm run reports the same bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SARIF_SCHEMA = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
SERVER = """\
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("demo")


async def _roots(ctx):
    return await ctx.session.list_roots()


@mcp.tool()
async def list_files(ctx: Context) -> list:
    return [str(r.uri) for r in (await _roots(ctx)).roots]


@mcp.tool()
async def count_roots(ctx: Context) -> int:
    return len((await _roots(ctx)).roots)
"""
OTHER = """\
from mcp.server.fastmcp import Context

from pkg.server import _roots, mcp


@mcp.tool()
async def first_root(ctx: Context) -> str:
    return str((await _roots(ctx)).roots[0].uri)
"""
HELP = (
    "on a 2026-07-28 connection it raises NoBackChannelError; take the directories as a tool parameter, "
    "a resource URI, or server configuration (no automatic rewrite: the roots result is used as a whole "
    "(`return await ctx.session.list_roots()`); give that code the directories by hand; the fix leaves a "
    "review marker)"
)
REQUEST = "`ctx.session.list_roots()` asks for roots, deprecated by SEP-2577"
#: The three calls of `_roots`: the other module's, then the two tools of its own module.
CALLERS = [("pkg/other.py", 8, 23), ("pkg/server.py", 12, 40), ("pkg/server.py", 17, 23)]
RELATED = [{"path": p, "line": line, "column": col, "message": "called from here"} for p, line, col in CALLERS]
FINDING = {
    "code": "RT001",
    "name": "roots-request",
    "path": "pkg/server.py",
    "line": 7,
    "column": 18,
    "end_line": 7,
    "end_column": 42,
    "message": REQUEST,
    "help": HELP,
    "severity": "breaks",
    "fix": "marker",
    "related": RELATED,
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "server.py").write_text(SERVER)
    (tmp_path / "pkg" / "other.py").write_text(OTHER)
    return tmp_path


def run(*args, cache: bool = False, input=None):
    flags = [] if cache else ["--no-cache"]
    env = {"NO_COLOR": "1", "FORCE_COLOR": None}
    return CliRunner().invoke(cli, ["check", *flags, *args], env=env, input=input, catch_exceptions=False)


def test_json_one_finding_at_the_request_with_its_three_callers(project):
    result = run("--format", "json", "pkg")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["findings"] == [FINDING]
    assert doc["suppressed"] == [] and doc["errors"] == []
    schema = json.loads((REPO / "mcp_migrate" / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(doc, schema)
    broken = {**doc, "findings": [{**FINDING, "related": [{**RELATED[0], "line": 0}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_sarif_related_locations(project):
    result = run("--format", "sarif", "pkg")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    (found,) = log["runs"][0]["results"]
    assert found["ruleId"] == "RT001"
    assert found["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert found["relatedLocations"] == [
        {
            "id": number,
            "physicalLocation": {
                "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": line, "startColumn": column},
            },
            "message": {"text": "called from here"},
        }
        for number, (path, line, column) in enumerate(CALLERS)
    ]
    if SARIF_SCHEMA.is_file():
        jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))


def test_full_output_says_where_it_is_called_from(project):
    result = run("--format", "full", "pkg")
    assert result.exit_code == 1
    assert result.stdout == (
        f"pkg/server.py:7:18: RT001 {REQUEST}\n"
        "  |\n"
        "7 |     return await ctx.session.list_roots()\n"
        "  |                  ^^^^^^^^^^^^^^^^^^^^^^^^ RT001\n"
        "  |\n"
        f"help: {HELP}\n"
        "called from pkg/other.py:8:23\n"
        "called from pkg/server.py:12:40\n"
        "called from pkg/server.py:17:23\n"
        "= review marker, not a fix (`mcp-migrate fix --unsafe-fixes` leaves it; the finding stays):\n"
        "@@ line 7 @@\n"
        "+     # mcp-migrate: RT001 review: the roots result is used as a whole (`return await\n"
        "+     #   ctx.session.list_roots()`); give that code the directories by hand\n"
        "\n"
        "Checked 3 files: 1 finding (RT001: 1); 1 needs review by hand\n"
    )


def test_concise_output_counts_the_callers(project):
    result = run("--format", "concise", "pkg")
    assert result.exit_code == 1
    assert result.stdout == (
        f"pkg/server.py:7:18: RT001 {REQUEST} (called from 3 places)\n"
        "\n"
        "Checked 3 files: 1 finding (RT001: 1); 1 needs review by hand\n"
    )


def test_grouped_output_counts_the_callers(project):
    result = run("--format", "grouped", "pkg")
    assert result.stdout.splitlines()[:2] == ["pkg/server.py:", f"  7:18 RT001 {REQUEST} (called from 3 places)"]


def test_a_frameworks_own_list_roots_holds_its_callers_in_other_modules(tmp_path, monkeypatch):
    """`await list_roots()` imported from the project's own framework module: reported under the
    framework function's finding when that module is checked too, else at the call (info)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acme_mcp").mkdir()
    (tmp_path / "acme_mcp" / "__init__.py").write_text("")
    (tmp_path / "acme_mcp" / "context.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n\n_ask = None\n\n\nasync def list_roots():\n    return await _ask()\n"
    )
    (tmp_path / "tools.py").write_text(
        "from acme_mcp.context import list_roots\n\n\nasync def tool() -> list:\n    return await list_roots()\n"
    )
    both = run("--format", "concise", ".")
    assert both.stdout.splitlines()[0] == (
        "acme_mcp/context.py:6:11: RT001 `list_roots` is an MCP framework's own function that asks for roots"
        " (called from 1 place)"
    )
    assert len(both.stdout.splitlines()) == 3
    alone = run("--format", "concise", "tools.py")
    assert alone.exit_code == 0
    assert alone.stdout.splitlines()[0] == (
        "tools.py:5:18: RT001 runs `acme_mcp.context.list_roots`, an MCP framework's own function that asks for roots"
    )


def test_a_caller_whose_helper_is_not_in_the_run_stays_a_finding_and_the_summary_says_it_does_not_fail(project):
    """`check pkg/other.py`: the helper's module is read (one import away) but not checked, so
    no finding of the run can hold the call: it is reported at the call, at info, and the
    summary says why the run passes."""
    result = run("--format", "concise", "pkg/other.py")
    assert result.exit_code == 0
    assert result.stdout == (
        "pkg/other.py:8:23: RT001 runs `pkg.server._roots`, a helper of this project that asks for roots\n"
        "\n"
        "Checked 1 file: 1 finding (RT001: 1); 1 finding is info and does not fail the run\n"
    )
    # The helper's module left out by the configuration: the same.
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\nextend-exclude = ["pkg/server.py"]\n')
    excluded = run("--format", "concise", "pkg")
    assert excluded.exit_code == 0
    assert excluded.stdout.splitlines()[0] == result.stdout.splitlines()[0]
    assert excluded.stdout.splitlines()[-1] == (
        "Checked 2 files: 1 finding (RT001: 1); 1 finding is info and does not fail the run"
    )


def test_the_helpers_module_alone_holds_its_own_callers(project):
    result = run("--format", "json", "pkg/server.py")
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["related"] == RELATED[1:]
    piped = run("--format", "json", "--stdin-filename", "pkg/server.py", "-", input=SERVER)
    assert json.loads(piped.stdout)["findings"] == [finding]


def test_noqa_on_a_caller_removes_that_location_and_on_the_request_the_finding(project):
    server = project / "pkg" / "server.py"
    lines = SERVER.splitlines(keepends=True)
    lines[16] = lines[16].rstrip("\n") + "  # noqa: RT001\n"
    server.write_text("".join(lines))
    doc = json.loads(run("--format", "json", "pkg").stdout)
    assert doc["findings"] == [{**FINDING, "related": RELATED[:2]}]
    assert [(s["line"], s["message"]) for s in doc["suppressed"]] == [
        (17, "runs `_roots`, a helper in this file that asks for roots")
    ]
    lines[6] = lines[6].rstrip("\n") + "  # noqa: RT001\n"
    server.write_text("".join(lines))
    result = run("--format", "json", "pkg")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["findings"] == []
    # The request's suppression takes its callers with it; they are listed in it.
    assert [(s["line"], s.get("related")) for s in doc["suppressed"]] == [(7, RELATED[:2]), (17, None)]


def test_a_warm_run_reports_what_a_cold_one_does_and_a_changed_caller_is_seen(project, monkeypatch):
    from mcp_migrate.core import engine

    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(project / "cache"))
    cold = run("--format", "json", "--jobs", "1", "pkg", cache=True)
    analysed, real = [], engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: analysed.append(a[1]) or real(*a, **k))
    warm = run("--format", "json", "--jobs", "1", "pkg", cache=True)
    assert analysed == []  # every file from the cache
    assert warm.stdout == cold.stdout
    full = [run("--format", fmt, "--jobs", "1", "pkg", cache=True).stdout for fmt in ("full", "full", "sarif")]
    assert full[0] == full[1] and "called from pkg/other.py:8:23" in full[0]
    assert json.loads(full[2])["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]["region"] == {
        "startLine": 8,
        "startColumn": 23,
    }
    analysed.clear()  # (the first full run checked the helper's module again for its fix previews)
    assert json.loads(warm.stdout)["findings"] == [FINDING]
    # The other module's call moves down two lines: its related location follows, from a warm run.
    other = project / "pkg" / "other.py"
    other.write_text(OTHER.replace("@mcp.tool()", "# a tool\n\n@mcp.tool()"))
    stat = os.stat(other)
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    moved = json.loads(run("--format", "json", "--jobs", "1", "pkg", cache=True).stdout)["findings"]
    assert analysed == ["pkg/other.py"]  # the caller's file alone is checked again
    assert moved == [{**FINDING, "related": [{**RELATED[0], "line": 10}, *RELATED[1:]]}]
    # No call left: no related location.
    other.write_text("from pkg.server import mcp\n")
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2 * 10**9))
    gone = json.loads(run("--format", "json", "--jobs", "1", "pkg", cache=True).stdout)["findings"]
    assert gone == [{**FINDING, "related": RELATED[1:]}]
    # The helper's module moves down two lines: its finding and its own callers follow.
    server = project / "pkg" / "server.py"
    server.write_text('"""Tools."""\n\n' + SERVER)
    os.utime(server, ns=(stat.st_atime_ns, stat.st_mtime_ns + 3 * 10**9))
    shifted = json.loads(run("--format", "json", "--jobs", "1", "pkg", cache=True).stdout)["findings"]
    assert shifted == [
        {**FINDING, "line": 9, "end_line": 9, "related": [{**r, "line": r["line"] + 2} for r in RELATED[1:]]}
    ]


def test_the_migration_report_lists_the_callers_under_the_helper(project):
    result = run("--format", "concise", "--report", "report.md", "pkg")
    assert result.exit_code == 1
    text = (project / "report.md").read_text()
    assert (
        f"- line 7: [RT001](https://github.com/OWNER/mcp-migrate/blob/main/rules/RT001-roots-request.md)"
        f" roots-request (breaks): {REQUEST}. Help: {HELP}\n"
        "  - called from `pkg/other.py:8:23`\n"
        "  - called from `pkg/server.py:12:40`\n"
        "  - called from `pkg/server.py:17:23`\n"
    ) in text
    assert "runs `_roots`" not in text and "runs `pkg.server._roots`" not in text


def test_what_fix_leaves_holds_its_callers_too(project):
    """The request is only marked for review (its roots result is used whole): the finding that
    remains holds the calls, at their positions after the marker went in."""
    result = CliRunner().invoke(
        cli,
        ["fix", "--unsafe-fixes", "--format", "json", "--report", "report.md", "pkg"],
        env={"NO_COLOR": "1"},
        catch_exceptions=False,
    )
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [(f["code"], f["line"], f.get("related")) for f in doc["findings"]] == [
        ("RT001", 9, [RELATED[0], *({**r, "line": r["line"] + 2} for r in RELATED[1:])]),
    ]
    assert doc["marked_for_review"] == [{"path": "pkg/server.py", "code": "RT001", "line": 7}]
    report = (project / "report.md").read_text()
    assert "- Found: 1\n" in report  # the request; its callers were never findings of their own
    assert report.endswith(
        "  - called from `pkg/other.py:8:23`\n"
        "  - called from `pkg/server.py:14:40`\n"
        "  - called from `pkg/server.py:19:23`\n"
    )


#: A helper whose roots are a second attempt after its explicit argument (the fix removes it).
HELPER = REPO / "fixtures" / "migrate" / "explicit_then_roots.py"
CALLER_TEST = """\
from mcp.server.fastmcp import Context

from pkg.helpers import resolve_workspace


async def test_explicit_wins(ctx: Context):
    assert await resolve_workspace(ctx, "/srv") is not None


async def test_roots_win(ctx: Context):
    workspace = await resolve_workspace(ctx, None)
    assert workspace is not None
"""


def test_after_a_fix_the_callers_of_a_migrated_helper_are_not_reported(tmp_path, monkeypatch):
    """The fix removes the helper's request (its attempt after the explicit argument): what it
    reports afterwards holds no finding for the test that calls the helper (dmx, session 48: six
    callers were listed as still asking, while a fresh `check` found nothing)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_bytes(HELPER.read_bytes())
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_helpers.py").write_text(CALLER_TEST)
    monkeypatch.chdir(tmp_path)

    def findings(*command):
        result = CliRunner().invoke(
            cli, [*command, "--exit-zero", "--output-format", "json", "."], env={"NO_COLOR": "1"}
        )
        return json.loads(result.stdout)["findings"]

    before = findings("check", "--no-cache")
    request = [f for f in before if f["code"] == "RT001"]
    assert [(f["path"], f["line"]) for f in request] == [("pkg/helpers.py", 19)]
    assert [(r["path"], r["line"]) for r in request[0]["related"]] == [
        ("pkg/helpers.py", 31),
        ("tests/test_helpers.py", 7),
        ("tests/test_helpers.py", 11),
    ]
    assert findings("fix", "--unsafe-fixes") == []
    assert findings("check", "--no-cache") == []
