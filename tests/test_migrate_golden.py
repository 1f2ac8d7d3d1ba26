"""Golden migration rewrites: fixtures/migrate/<name>.py with the expected output for each
strategy beside it (`<name>.py.<strategy>.fixed`), under --unsafe-fixes."""

import dataclasses
from pathlib import Path

import libcst as cst
import pytest
from pyflakes import api as pyflakes_api
from pyflakes import messages as pyflakes_messages

from mcp_migrate.api import check_bytes, default_settings, fix_bytes
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.settings import STRATEGIES, Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "migrate"

INPUTS = sorted(FIXTURES.glob("*.py"))
#: Sites where a strategy cannot apply (reported with the reason, never forced).
NOT_APPLICABLE = {
    ("lowlevel_call_tool.py", "tool-parameter"),
    ("lowlevel_call_tool.py", "resource-uri"),
    ("annotated_result.py", "tool-parameter"),
    ("annotated_result.py", "resource-uri"),
    # The tool already has a `directories` parameter: refused with the reason, never a crash.
    ("existing_parameter.py", "tool-parameter"),
    ("existing_parameter.py", "resource-uri"),
    # The request sits in a helper, not a tool: a forced tool strategy cannot apply there.
    ("explicit_then_roots.py", "tool-parameter"),
    ("explicit_then_roots.py", "resource-uri"),
    ("setting_then_roots.py", "tool-parameter"),
    ("setting_then_roots.py", "resource-uri"),
    ("roots_beside_setting.py", "tool-parameter"),
    ("roots_beside_setting.py", "resource-uri"),
}
#: Inputs named keep_*.py hold sites no rewrite may touch (issue 12): the fix only adds review
#: markers that say what a human must decide, and the findings stay.
KEEP_PREFIX = "keep_"
MARKER = "# mcp-migrate: RT001 review:"
#: The Roots migration rules (RT001-RT006): tagged `roots` alone on their pages.
ROOTS_CODES = {code for code, info in load_catalog().items() if info.tags == ("roots",)}


def settings_for(strategy: str) -> Settings:
    return dataclasses.replace(default_settings(), strategy=strategy)


class _Collect:
    def __init__(self):
        self.messages = []

    def flake(self, message):
        self.messages.append(message)

    def unexpectedError(self, filename, msg):  # noqa: N802 - pyflakes' reporter API
        raise AssertionError(msg)

    def syntaxError(self, filename, msg, lineno, offset, text):  # noqa: N802
        raise AssertionError(msg)


def flakes(source: bytes) -> set:
    """(kind, name) of undefined names and unused imports pyflakes sees."""
    reporter = _Collect()
    pyflakes_api.check(source.decode("utf-8"), "x.py", reporter)
    out = set()
    for m in reporter.messages:
        if isinstance(m, (pyflakes_messages.UndefinedName, pyflakes_messages.UnusedImport)):
            out.add((type(m).__name__, m.message_args[0]))
    return out


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_migration_golden(path: Path, strategy: str):
    data = path.read_bytes()
    settings = settings_for(strategy)
    result = fix_bytes(data, str(path), settings, unsafe=True)
    assert not result.errors, result.errors
    out = result.fixed_source if result.fixed_source is not None else data
    expected = path.with_name(f"{path.name}.{strategy}.fixed").read_bytes()
    assert out == expected
    if path.name.startswith(KEEP_PREFIX):
        _assert_only_markers_added(data, out, path, settings)
    # The fix-engine guarantees: parses, idempotent.
    cst.parse_module(out)
    compile(out, str(path), "exec", dont_inherit=True)
    again = fix_bytes(out, str(path), settings, unsafe=True)
    assert again.fixed_source is None and again.applied == []
    # No undefined name and no unused import that the input did not already have.
    assert flakes(out) - flakes(data) == set()
    # check on the migrated code: nothing left of Roots but the info bridges.
    if (path.name, strategy) not in NOT_APPLICABLE and not path.name.startswith(KEEP_PREFIX):
        left = [f for f in check_bytes(out, str(path), settings).findings if f.code in ROOTS_CODES]
        assert [f for f in left if f.severity != "info"] == []


def _assert_only_markers_added(data: bytes, out: bytes, path: Path, settings: Settings) -> None:
    """No code changed: every added line is a comment, one marker per RT001 site, and every
    RT001 is still reported (with no fix left once its marker is there)."""
    added = out.decode().splitlines()
    for line in data.decode().splitlines():
        added.remove(line)
    assert added and all(line.lstrip().startswith("#") for line in added), added
    before = [f for f in check_bytes(data, str(path), settings).findings if f.code == "RT001"]
    after = [f for f in check_bytes(out, str(path), settings).findings if f.code == "RT001"]
    assert sum(line.lstrip().startswith(MARKER) for line in added) == len(before)
    assert [f.message.split(" (")[0] for f in after] == [f.message.split(" (")[0] for f in before]
    # A review marker is not a fix (issue 33 §3): "marker" before, nothing left once it is there.
    assert all(f.fix == "marker" for f in before) and all(f.fix == "none" for f in after)


def test_side_channel_message_says_what_to_decide():
    """Issue 12, defect 3: roots that carry data are not directories; the finding must not say
    "take the directories as ..." but what a human must decide."""
    path = FIXTURES / "keep_side_channel.py"
    findings = [f for f in check_bytes(path.read_bytes(), str(path), settings_for("tool-parameter")).findings]
    assert [f.line for f in findings if f.code == "RT001"] == [12, 21, 27]
    for finding in findings:
        assert "these roots carry data, not directories: decide how a client passes that value now" in finding.help
        assert "take the directories" not in finding.help
        assert finding.help.endswith("the fix leaves a review marker)")


def test_not_applicable_strategy_is_reported_with_reason():
    path = FIXTURES / "lowlevel_call_tool.py"
    findings = check_bytes(path.read_bytes(), str(path), settings_for("tool-parameter")).findings
    rt001 = [f for f in findings if f.code == "RT001"]
    assert len(rt001) == 1 and rt001[0].fix == "none"
    assert (
        "rewrites: server-config; not with this strategy: tool-parameter applies only to tool functions"
        in rt001[0].help
    )


def test_default_strategy_per_site():
    """tool-parameter inside a tool function, server-config elsewhere."""
    tool = (FIXTURES / "mcp1_fastmcp_loop.py").read_bytes()
    assert (
        fix_bytes(tool, "t.py", default_settings(), unsafe=True).fixed_source
        == (FIXTURES / "mcp1_fastmcp_loop.py.tool-parameter.fixed").read_bytes()
    )
    handler = (FIXTURES / "lowlevel_call_tool.py").read_bytes()
    assert (
        fix_bytes(handler, "h.py", default_settings(), unsafe=True).fixed_source
        == (FIXTURES / "lowlevel_call_tool.py.server-config.fixed").read_bytes()
    )


def test_rewrites_are_unsafe_only():
    data = (FIXTURES / "mcp1_fastmcp_loop.py").read_bytes()
    assert fix_bytes(data, "t.py", default_settings(), unsafe=False).fixed_source is None


def test_check_names_the_strategies():
    data = (FIXTURES / "mcp1_fastmcp_loop.py").read_bytes()
    (finding,) = [f for f in check_bytes(data, "t.py", default_settings()).findings if f.code == "RT001"]
    assert finding.fix == "unsafe"
    assert "(rewrites: tool-parameter, resource-uri, server-config)" in finding.help
