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
#: A fixture migration: a tool whose roots request is rewritten, a client whose computed roots
#: go with a review marker, and a client whose roots become arguments. (A server whose request
#: only gets a marker would keep both clients' roots: issue 20 §1.)
FILES = ("mcp1_fastmcp_loop.py", "client_computed_callback.py", "client_fastmcp_roots.py")


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.fixture
def migration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in FILES:
        shutil.copy(MIGRATE / name, tmp_path / name)
    return tmp_path


DOCS = "https://github.com/OWNER/mcp-migrate/blob/main/rules"


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
        "- Found: 8",
        "- Rewritten: 5",
        "- Marked for review: 0 (a marker fixes nothing: its finding stays until a human decides)",
        "- Review markers to resolve: 2",
        "- Left for manual work: 0",
        "- Caused by the fix: 0",
    ]
    by_rule = text.split("## Summary by rule\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert by_rule == [
        "| Rule | Found | Rewritten | Gone with another fix | Marked for review | Left |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| [RT001]({DOCS}/RT001-roots-request.md) roots-request | 1 | 1 | 0 | 0 | 0 |",
        f"| [RT002]({DOCS}/RT002-roots-provider.md) roots-provider | 4 | 3 | 1 | 0 | 0 |",
        f"| [RT003]({DOCS}/RT003-roots-capability.md) roots-capability | 1 | 1 | 0 | 0 | 0 |",
        f"| [RT006]({DOCS}/RT006-roots-list-changed-flag.md) roots-list-changed-flag | 1 | 0 | 1 | 0 | 0 |",
        f"| [RT101]({DOCS}/RT101-root-uri-scheme.md) root-uri-scheme | 1 | 0 | 1 | 0 | 0 |",
        "| **Total** | 8 | 5 | 3 | 0 | 0 |",
    ]
    by_file = text.split("## Summary by file\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert by_file[2:] == [
        "| `client_computed_callback.py` | 4 | 2 | 2 | 0 | 0 |",
        "| `client_fastmcp_roots.py` | 3 | 2 | 1 | 0 | 0 |",
        "| `mcp1_fastmcp_loop.py` | 1 | 1 | 0 | 0 | 0 |",
    ]
    assert "## `client_computed_callback.py`" in text and "## `mcp1_fastmcp_loop.py`" in text
    loop = text.split("## `mcp1_fastmcp_loop.py`", 1)[1].split("\n## ", 1)[0]
    assert f"- line 13: [RT001]({DOCS}/RT001-roots-request.md) rewritten" in loop
    assert (
        "@@ -10,9 +10,14 @@ RT001 line 13\n \n @mcp.tool()\n-async def find_files(pattern: str, ctx: Context)" in loop
    )
    review = text.split("## Needs review\n\n", 1)[1].split("\n## ", 1)[0]
    assert (
        f"- [ ] `client_computed_callback.py` line 10 ([RT002]({DOCS}/RT002-roots-provider.md)): pass these"
        " directories to the server as tool arguments or in its configuration (env/args): str(Path.cwd())"
    ) in review
    assert review.count("- [ ] ") == 2


def test_the_report_lists_the_interface_changes(migration):
    run("fix", "-q", "--unsafe-fixes", "--report", "MIGRATION.md", ".")
    text = (migration / "MIGRATION.md").read_text()
    changes = text.split("## Interface changes\n\n", 1)[1].split("\n## ", 1)[0]
    assert (
        "| `find_files` | `mcp1_fastmcp_loop.py` | `directories` | **required**: every caller must pass it |" in changes
    )
    assert "- `client_fastmcp_roots.py`: `call_tool('find_files', ...)` passes `directories`" in changes


def test_the_report_names_the_environment_a_server_now_reads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("mcp1_fastmcp_loop.py", "client_literal_roots.py"):
        shutil.copy(MIGRATE / name, tmp_path / name)
    run("fix", "-q", "--unsafe-fixes", "--strategy", "server-config", "--report", "R.md", ".")
    changes = (tmp_path / "R.md").read_text().split("## Interface changes\n\n", 1)[1].split("\n## ", 1)[0]
    assert "- `MCP_ROOTS`, read by `mcp1_fastmcp_loop.py`: the directories, separated by `os.pathsep`" in changes
    assert "- `client_literal_roots.py`: the stdio server is started with `MCP_ROOTS` in its environment" in changes


def test_the_report_lists_public_plumbing_a_suggested_removal_would_leave_dead(tmp_path, monkeypatch):
    """Issue 20 §3, issue 36 §4: a `list_roots_callback=` parameter passed through to the SDK is
    the project's public plumbing: removing the argument would leave it silently dead, so the
    removal is only suggested (`fix` leaves the file alone, `--apply-suggestions` takes it, with
    a comment saying what to decide) and the report lists it among the interface changes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wrapper.py").write_text(
        "from mcp import ClientSession\n\n\nclass Workspace:\n"
        "    def __init__(self, read, write, list_roots_callback=None):\n"
        "        self.session = ClientSession(read, write, list_roots_callback=list_roots_callback)\n"
    )
    before = (tmp_path / "wrapper.py").read_text()
    run("fix", "-q", "--unsafe-fixes", "--report", "R.md", ".")
    text = (tmp_path / "R.md").read_text()
    assert (tmp_path / "wrapper.py").read_text() == before
    kept = text.split("### Public plumbing the client-side removal leaves without effect\n\n", 1)[1].split("\n\n")[0]
    assert kept == (
        "- `wrapper.py`: parameter `list_roots_callback` of `Workspace.__init__` still hands roots to the SDK;"
        " its callers pass them: remove or deprecate it with them (the removal is suggested there)"
    )
    assert "is no longer used" not in text
    run("fix", "-q", "--unsafe-fixes", "--apply-suggestions", ".")
    assert (tmp_path / "wrapper.py").read_text() == (
        "from mcp import ClientSession\n\n\nclass Workspace:\n"
        "    def __init__(self, read, write, list_roots_callback=None):\n"
        "        # mcp-migrate: RT002 review: `list_roots_callback`, a parameter of `__init__`,\n"
        "        #   is no longer passed on here: its callers still hand roots to it; remove or\n"
        "        #   deprecate the parameter with them\n"
        "        self.session = ClientSession(read, write)\n"
    )


def test_a_marker_is_counted_as_marked_and_left_never_as_rewritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(
        "import asyncio\n\nfrom mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('x')\n\n\n"
        "@mcp.tool()\nasync def count(ctx: Context) -> int:\n"
        "    task = asyncio.create_task(ctx.session.list_roots())\n    roots = await task\n"
        "    return len(roots.roots)\n"
    )
    run("fix", "-q", "--unsafe-fixes", "--report", "R.md", ".")
    text = (tmp_path / "R.md").read_text()
    assert "- Rewritten: 0" in text and "- Marked for review: 1 (" in text and "- Left for manual work: 1" in text
    assert f"| [RT001]({DOCS}/RT001-roots-request.md) roots-request | 1 | 0 | 0 | 1 | 1 |" in text
    assert f"- line 10: [RT001]({DOCS}/RT001-roots-request.md) marked for review (not rewritten)" in text
    assert "rewritten\n" not in text.split("## `m.py`", 1)[1]
    assert "- [ ] `m.py` line 10 (" in text


def test_hunks_carry_both_line_numbers_and_apply_back():
    from mcp_migrate.output.migration import diff_hunks

    old = "".join(f"line {n}\n" for n in range(1, 21)).encode()
    new = old.replace(b"line 5\n", b"line 5a\nline 5b\n").replace(b"line 15\n", b"")
    hunks = diff_hunks(old, new)
    assert [h.header for h in hunks] == ["@@ -3,5 +3,6 @@", "@@ -13,5 +14,4 @@"]
    rebuilt = old.decode().splitlines()
    for hunk in reversed(hunks):  # apply each hunk at its old line: the new file comes out
        minus = [line[1:] for line in hunk.lines if not line.startswith("+")]
        plus = [line[1:] for line in hunk.lines if not line.startswith("-")]
        assert rebuilt[hunk.old_start - 1 : hunk.old_start - 1 + hunk.old_count] == minus
        rebuilt[hunk.old_start - 1 : hunk.old_start - 1 + hunk.old_count] = plus
    assert rebuilt == new.decode().splitlines()
    assert new.decode().splitlines()[hunks[1].new_start - 1 : hunks[1].new_start - 1 + hunks[1].new_count] == [
        line[1:] for line in hunks[1].lines if not line.startswith("-")
    ]


def test_findings_the_fix_caused_are_listed_apart():
    from mcp_migrate.core.findings import Applied, Finding
    from mcp_migrate.output.migration import FileInput, fix_report

    old = b"import os\nx = 1\ny = 2\n"
    new = b"import os\n\nx = 1\ny = 2\nz = 3\n"
    before = [Finding("a.py", 2, 1, 2, 2, "RT004", "roots-list-changed-send", "there before", "breaks")]
    after = [
        Finding("a.py", 3, 1, 3, 2, "RT004", "roots-list-changed-send", "there before", "breaks"),  # moved down
        Finding("a.py", 5, 1, 5, 2, "RT102", "naive-file-uri", "new one", "warning", help="undo it"),
    ]
    text = fix_report([FileInput("a.py", before, after, [Applied("RT001", 3)], old, new)], 1)
    assert "- Caused by the fix: 1" in text and "- Left for manual work: 1" in text
    left = text.split("### Left for manual work\n\n", 1)[1].split("\n\n", 1)[0]
    caused = text.split("### Caused by the fix\n\n", 1)[1]
    assert "there before" in left and "new one" not in left
    assert "- line 5: [RT102](" in caused and "new one. Help: undo it" in caused


def test_fix_report_lists_what_remains_for_manual_work(migration):
    result = run("fix", "--report", "MIGRATION.md", ".")  # safe only: the unsafe rewrites remain
    assert result.exit_code == 1
    text = (migration / "MIGRATION.md").read_text()
    assert "- Rewritten: 0" in text
    assert "### Left for manual work" in text
    assert (
        f"- line 13: [RT001]({DOCS}/RT001-roots-request.md) roots-request (breaks): `ctx.session.list_roots()`"
        " asks for roots, deprecated by SEP-2577. Help: on a 2026-07-28 connection" in text
    )


def test_check_report_says_where_the_migration_stands(migration):
    assert run("fix", "-q", "--unsafe-fixes", ".").exit_code == 1
    result = run("check", "--report", "STATUS.md", ".")
    assert result.exit_code == 1
    text = (migration / "STATUS.md").read_text()
    assert "- Rewritten: 0 (a `check` run: nothing was rewritten)" in text
    assert "- Review markers to resolve: 2" in text and "### Fixes applied" not in text
    assert "None: a `check` run changes nothing." in text


def test_the_report_links_to_the_configured_docs(migration):
    (migration / "pyproject.toml").write_text('[tool.mcp-migrate]\ndocs-url = "https://docs.example.org/mm"\n')
    run("fix", "-q", "--report", "R.md", ".")
    assert "[RT001](https://docs.example.org/mm/rules/RT001-roots-request.md)" in (migration / "R.md").read_text()


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
    data = (MIGRATE / "client_computed_callback.py").read_bytes()
    from mcp_migrate.api import fix_bytes

    result = fix_bytes(data, "client_computed_callback.py", default_settings(), unsafe=True)
    assert [f.code for f in result.findings] == ["RT901"]
    cleaned = b"\n".join(
        line for line in result.fixed_source.split(b"\n") if b"# mcp-migrate: RT002 review" not in line
    )
    assert check_bytes(cleaned, "client_computed_callback.py", default_settings()).findings == []


def test_a_setting_nothing_reads_any_more_is_left_without_effect():
    from mcp_migrate.output.interface import LeftWithoutEffect, left_without_effect

    old = (
        b"class Settings:\n    roots: list = []\n    name: str = ''\n\n\n"
        b"def serve(settings, extra):\n    use(settings.roots, settings.name, extra)\n"
    )
    new = b"class Settings:\n    roots: list = []\n    name: str = ''\n\n\ndef serve(settings, extra):\n    use(settings.name)\n"
    assert left_without_effect(old, new) == [
        LeftWithoutEffect("setting", "roots", "Settings", 2),
        LeftWithoutEffect("parameter", "extra", "serve", 6),
    ]
    assert left_without_effect(old, old) == [] and left_without_effect(b"x = (", new) == []


def test_the_report_lists_a_removed_callback_whose_roots_came_from_the_projects_plumbing(tmp_path, monkeypatch):
    """Issue 20 §3: a `_handle_list_roots` method fed by a constructor's `roots` parameter, a
    closure over a `roots:` setting: removing the callback leaves what fed it without effect, so
    the removal is only suggested (issue 36 §4) and the report's interface changes list it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "host.py").write_text(
        "from mcp import ClientSession\nfrom mcp.types import ListRootsResult, Root\n\n\nclass Host:\n"
        "    def __init__(self, read, write, roots: list[str]):\n        self.roots = roots\n"
        "        self.session = ClientSession(read, write, list_roots_callback=self._handle_list_roots)\n\n"
        "    async def _handle_list_roots(self, context) -> ListRootsResult:\n"
        '        return ListRootsResult(roots=[Root(uri=f"file://{r}") for r in self.roots])\n'
    )
    (tmp_path / "served.py").write_text(
        "from pydantic import BaseModel\nfrom mcp import ClientSession\nfrom mcp.types import ListRootsResult, Root\n\n\n"
        "class Settings(BaseModel):\n    roots: list[str] = []\n\n\nasync def serve(read, write, settings: Settings):\n"
        "    async def provide(context) -> ListRootsResult:\n"
        '        return ListRootsResult(roots=[Root(uri=f"file://{r}") for r in settings.roots])\n\n'
        "    async with ClientSession(read, write, list_roots_callback=provide) as s:\n        await s.initialize()\n"
    )
    before = {p.name: p.read_text() for p in tmp_path.glob("*.py")}
    run("fix", "-q", "--unsafe-fixes", "--report", "R.md", ".")
    text = (tmp_path / "R.md").read_text()
    assert {p.name: p.read_text() for p in tmp_path.glob("*.py")} == before
    kept = text.split("### Public plumbing the client-side removal leaves without effect\n\n", 1)[1]
    assert kept.split("\n\n", 1)[0].splitlines() == [
        "- `host.py`: the roots `self._handle_list_roots` computed in `Host.__init__` reach no server once removed;"
        " what fed them (a parameter, a setting) then does nothing: carry those directories to the server or"
        " deprecate it (the removal is suggested there)",
        "- `served.py`: the roots `provide` computed in `serve` reach no server once removed; what fed them (a"
        " parameter, a setting) then does nothing: carry those directories to the server or deprecate it (the"
        " removal is suggested there)",
    ]
    run("fix", "-q", "--unsafe-fixes", "--apply-suggestions", ".")
    assert (
        "# mcp-migrate: RT002 review: the roots came from `self._handle_list_roots`"
        in (tmp_path / "host.py").read_text()
    )
