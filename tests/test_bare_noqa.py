"""A bare `# noqa` honoured by the engine itself, in one analysis (issue 34 §2): the public API
suppresses what it covers, the fix loop never applies their fixes, previews leave them out, and
the CLI parses a file with one no more often than a file with `# noqa: CODE`. Before, a layer in
`commands/` spelled the directive out as `# noqa: CODES` in a copy of the bytes and ran the
engine again, and the API did not honour it at all."""

from __future__ import annotations

import json

import libcst
import pytest
from click.testing import CliRunner
from test_ruff_habits_more import DIRECTIVES  # (comment, suppressed?) as ruff reads it, checked against ruff

from mcp_migrate import api
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.fix.loop import previews

HEAD = "import mcp.types as types\nfrom mcp import ClientSession\n\n\nasync def main(s: ClientSession) -> None:\n"
SEND = "    await s.send_roots_list_changed()"
FIRST = 6  # the line of the first statement after HEAD


def _source(*lines: str) -> bytes:
    return (HEAD + "".join(line + "\n" for line in lines)).encode()


def _findings(result) -> list:
    return [(f.code, f.line, f.end_line) for f in result.findings]


def _suppressed(result) -> list:
    return [(s.finding.code, s.finding.line, s.finding.end_line, s.kind, s.reason) for s in result.suppressed]


def test_the_api_reads_each_directive_as_ruff_does():
    data = _source(*(f"{SEND}  {comment}" for comment, _ in DIRECTIVES), f'{SEND}; x = "# noqa"')
    result = api.check_bytes(data, "a.py")
    covered = [FIRST + i for i, (_, suppressed) in enumerate(DIRECTIVES) if suppressed]
    left = [FIRST + i for i, (_, suppressed) in enumerate(DIRECTIVES) if not suppressed]
    assert _findings(result) == [("RT004", line, line) for line in [*left, FIRST + len(DIRECTIVES)]]
    assert _suppressed(result) == [("RT004", line, line, "noqa", "") for line in covered]
    assert [f.line for f in api.check_source(data, "a.py")] == [*left, FIRST + len(DIRECTIVES)]


@pytest.mark.parametrize("where", ["first", "last"])
def test_the_first_or_the_last_line_of_a_finding_counts(where):
    lines = [
        "    await s.send_notification(",
        "        types.ClientNotification(types.RootsListChangedNotification())",
        "    )",
    ]
    index = 0 if where == "first" else 2
    lines[index] += "  # noqa"
    result = api.check_bytes(_source(*lines), "a.py")
    assert (_findings(result), _suppressed(result)) == ([], [("RT004", FIRST, FIRST + 2, "noqa", "")])
    middle = lines[:]
    middle[index] = middle[index].removesuffix("  # noqa")
    middle[1] += "  # noqa"  # inside the finding, but neither its first nor its last line
    assert _findings(api.check_bytes(_source(*middle), "a.py")) == [("RT004", FIRST, FIRST + 2)]


def test_a_code_naming_comment_is_honoured_first_and_keeps_its_kind():
    data = _source("    # lint-fixme: RT004", f"{SEND}  # noqa", f"{SEND}  # mcp-migrate: ignore[RT004] -- kept # noqa")
    result = api.check_bytes(data, "a.py")
    assert _findings(result) == []
    assert _suppressed(result) == [
        ("RT004", FIRST + 1, FIRST + 1, "lint-fixme", ""),
        ("RT004", FIRST + 2, FIRST + 2, "ignore", "kept # noqa"),
    ]


def test_an_unmatched_bare_noqa_is_never_stale_and_covers_a_stale_code():
    data = _source(f"{SEND}", "    x = 1  # noqa", "    y = 2  # noqa: RT001", "    z = 3  # noqa: RT001  # noqa")
    result = api.check_bytes(data, "a.py")
    assert _findings(result) == [("RT004", FIRST, FIRST), ("RT900", FIRST + 2, FIRST + 2)]
    assert _suppressed(result) == [("RT900", FIRST + 3, FIRST + 3, "noqa", "")]


def test_a_file_code_is_never_suppressed():
    result = api.check_bytes(b"from mcp.types import ListRootsResult\nx = (  # noqa\n", "bad.py")
    assert [(f.code, f.line) for f in result.findings] == [("E999", 2)] and result.suppressed == []


def test_fix_and_previews_leave_a_bare_noqa_line_alone():
    data = _source(f"{SEND}  # noqa", SEND, f"{SEND}  # noqa: E501")
    kept = _source(f"{SEND}  # noqa")
    fixed = api.fix_bytes(data, "a.py")
    assert (fixed.fixed_source, fixed.errors) == (kept, [])
    assert [(a.code, a.line) for a in fixed.applied] == [("RT004", FIRST + 1), ("RT004", FIRST + 2)]
    assert _suppressed(fixed) == [("RT004", FIRST, FIRST, "noqa", "")] and fixed.findings == []
    assert api.fix_source(data.decode(), "a.py") == kept.decode()
    analysis = api.analyze(data, "a.py")
    rules, findings = previews(analysis, data, "a.py")
    assert rules == {("RT004", False): kept}
    assert findings == {
        ("RT004", FIRST + 1, 11, False): _source(f"{SEND}  # noqa", f"{SEND}  # noqa: E501"),
        ("RT004", FIRST + 2, 11, False): _source(f"{SEND}  # noqa", SEND),
    }


def _run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def parses(tmp_path, monkeypatch):
    """The number of LibCST parses so far (every parse goes through libcst.parse_module)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    count = [0]
    real = libcst.parse_module

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    return count


@pytest.mark.parametrize(
    "command",
    [
        ("check", "--no-cache", "--no-color", "a.py"),  # with the fix previews
        ("check", "--no-cache", "--output-format", "json", "a.py"),
        ("fix", "a.py"),
        ("fix", "--stdin-filename", "a.py", "-"),
    ],
    ids=" ".join,
)
def test_a_bare_noqa_costs_no_parse_a_code_naming_one_does_not(parses, tmp_path, command):
    """One analysis per step: the file with `# noqa` is parsed as often as with `# noqa: RT004`
    (before, every check with previews and every fix analysed a spelled-out copy again)."""
    counts, outputs = [], []
    for comment in ("# noqa: RT004", "# noqa"):
        source = _source(f"{SEND}  {comment}", SEND).decode()
        (tmp_path / "a.py").write_text(source)
        parses[0] = 0
        result = _run(*command, input=source if command[-1] == "-" else None)
        counts.append(parses[0])
        outputs.append(result.stdout.replace(comment, "<comment>"))
    assert counts[0] == counts[1] and counts[0] > 0
    assert outputs[0] == outputs[1]
    if command[1] == "--no-cache" and "json" in command:
        assert [f["line"] for f in json.loads(outputs[1])["findings"]] == [FIRST + 1]


def test_a_rule_preview_is_continued_as_fix_continues_in_a_file_with_a_bare_noqa(tmp_path, monkeypatch):
    """Two requests in one tool (fixes that overlap): the rule's preview is continued pass by pass
    as `fix` applies them (issue 33 §3), also where a bare `# noqa` covers another request.
    Before, the previews of such a file came from a spelled-out copy, one pass only."""
    from test_preview_is_the_fix import FIXTURES, laid_together, previews_and_fixes

    tool = b'async def a(path: str = ".", ctx: Context = None) -> int:\n    result = await ctx.session.list_roots()\n'
    data = (FIXTURES / "migrate" / "signature_shapes.py").read_bytes()
    assert data.count(tool) == 1
    (tmp_path / "shapes.py").write_bytes(data.replace(tool, tool[:-1] + b"  # noqa\n"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    previews, fixed = previews_and_fixes("shapes.py")
    assert [(code, unsafe) for code, unsafe, _ in previews["shapes.py"]] == [("RT001", True)]
    (_, _, proposal), new = previews["shapes.py"][0], fixed["shapes.py"]
    assert new is not None and laid_together(proposal.old, [proposal.new]) == new
    assert new.count(b"ctx.session.list_roots()  # noqa") == 1 and new.count(b"ctx.session.list_roots()") == 1
