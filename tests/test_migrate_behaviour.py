"""Behavioural equivalence of the RT001 rewrite, with the real SDK (mcp 2.x).

For each server in fixtures/behaviour/ and each strategy:
  * the original runs in-process under `Client(server, mode="legacy", list_roots_callback=cb)`,
    with the client's roots R = two real directories (one named "my project", so the URIs carry
    percent-encoding);
  * the output of `fix_bytes(..., unsafe=True)` runs under `Client(server)`, i.e. on the
    2026-07-28 protocol, with the same directories passed the new way: a `directories`
    argument (tool-parameter), a `uris` argument (resource-uri), or `MCP_ROOTS` in the
    environment before the module is loaded (server-config);
  * the tool results must be equal.
The original must fail on 2026-07-28 (NoBackChannelError: it has no back-channel for
`roots/list`); the migrated one must not, and must not warn. The migrated sources must also
parse, fix idempotently, add no pyflakes problem and leave no RT001-RT006 finding above "info".
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

import libcst as cst
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the behavioural tests need the MCP SDK (mcp==2.3.0, test extra)")

from behaviour_support import load as _load  # noqa: E402
from behaviour_support import outcome as _outcome  # noqa: E402
from behaviour_support import run as _run  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError, NoBackChannelError  # noqa: E402
from mcp.types import ListRootsResult, Root  # noqa: E402

from mcp_migrate.api import (
    check_bytes,
    default_settings,
    fix_bytes,  # noqa: E402
)
from mcp_migrate.core.settings import (
    STRATEGIES,
    Settings,  # noqa: E402
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "behaviour"

SERVERS = sorted(p.name for p in FIXTURES.glob("*.py"))

# ----- the cases ---------------------------------------------------------------------------------
#: Directory layouts the client shares, in the order it lists them.
LAYOUTS = {
    "spaced": ("alpha", "my project"),  # the default: percent-encoded URIs
    "plain": ("alpha", "beta"),
    "empty": (),
}

#: Intended difference: the original's `str(root.uri).removeprefix('file://')` keeps the
#: percent-encoding (`my%20project` does not exist, so the original tool errors); the rewrite uses
#: the real path and works. For these cases the test asserts exactly that.
ORIGINAL_BROKEN = "original-broken"
ALL = STRATEGIES
#: The original guards the request with the roots capability: on 2026-07-28 it does not fail,
#: it silently takes the no-roots branch (issue 12, defect 4). The test asserts exactly that, and
#: that the migrated tool answers like the original did with roots.
ORIGINAL_SILENT = "original-silent"
#: The strategy refuses this site (the tool already binds `directories`): see test_name_clash_is_refused.
REFUSED = "refused"

#: (server file, tool, extra arguments, layout, {strategy: ORIGINAL_BROKEN or REFUSED})
CASES = [
    ("file_index.py", "list_files", {}, "spaced", {}),
    ("file_index.py", "list_files", {"pattern": "*.py"}, "spaced", {}),
    ("file_index.py", "count_by_suffix", {}, "spaced", {}),
    ("workspace_config.py", "read_setting", {"key": "name"}, "spaced", {}),
    ("workspace_config.py", "workspace_files", {}, "spaced", {}),
    ("workspace_catalog.py", "describe_workspaces", {}, "spaced", dict.fromkeys(ALL, ORIGINAL_BROKEN)),
    ("workspace_catalog.py", "describe_workspaces", {}, "plain", {}),
    ("workspace_catalog.py", "workspace_names", {}, "spaced", {}),
    ("text_search.py", "search", {"needle": "TODO"}, "spaced", {}),
    ("text_search.py", "search", {"needle": "TODO", "limit": 2}, "spaced", {}),
    ("text_search.py", "search", {"needle": "TODO"}, "empty", {}),
    ("tree_stats.py", "summary", {}, "spaced", {}),
    ("tree_stats.py", "summary", {}, "empty", {}),
    ("tree_stats.py", "deepest", {}, "spaced", {}),
    # Roots read whole (their names too): no rebuilt value of made-up Roots (issue 20), a marker.
    ("root_report.py", "root_report", {}, "spaced", dict.fromkeys(ALL, REFUSED)),
    ("project_finder.py", "find_project", {}, "spaced", {}),
    ("project_finder.py", "find_project", {"marker": "nowhere.txt"}, "spaced", {}),
    ("subdirs.py", "list_subdirectories", {}, "spaced", dict.fromkeys(("tool-parameter", "resource-uri"), REFUSED)),
    # Issue 12: timeouts, negative guards, truth tests, a first-root local, scheme/host filters.
    ("reviewed_shapes.py", "with_timeout", {}, "spaced", {}),
    ("reviewed_shapes.py", "guarded_names", {}, "spaced", dict.fromkeys(ALL, ORIGINAL_SILENT)),
    ("reviewed_shapes.py", "first_readme", {}, "spaced", {}),
    ("reviewed_shapes.py", "first_readme", {}, "empty", {}),
    ("reviewed_shapes.py", "local_files", {}, "spaced", {}),
]


def _params():
    out = []
    for server, tool, args, layout, xfails in CASES:
        for strategy in STRATEGIES:
            expectation = xfails.get(strategy)
            if expectation == REFUSED:
                continue
            extra = "-" + "-".join(f"{k}={v}" for k, v in args.items()) if args else ""
            ident = f"{server[:-3]}.{tool}{extra}-{layout}-{strategy}"
            out.append(pytest.param(server, tool, args, layout, strategy, expectation, id=ident))
    return out


# ----- helpers -----------------------------------------------------------------------------------
def _make_tree(base: Path, layout: str) -> list:
    """The shared directories, each holding a small tree with different contents."""
    dirs = []
    for index, name in enumerate(LAYOUTS[layout]):
        d = base / name
        (d / "src" / "pkg").mkdir(parents=True)
        (d / "docs").mkdir()
        (d / "settings.ini").write_text(f"name = {name}\nversion = {index + 1}.0\n", encoding="utf-8")
        (d / "README.txt").write_text(f"{name}\nTODO: write the readme\n", encoding="utf-8")
        (d / "src" / "main.py").write_text("print('hi')\n" * (index + 1), encoding="utf-8")
        (d / "src" / "pkg" / "util.py").write_text("# TODO: tidy\n", encoding="utf-8")
        (d / "docs" / "notes.txt").write_text("nothing\n" + "TODO: more\n" * index, encoding="utf-8")
        (d / "Makefile").write_text("all:\n", encoding="utf-8")
        for extra in range(index):
            (d / "src" / "pkg" / f"mod{extra}.py").write_text("x = 1\n", encoding="utf-8")
        dirs.append(d)
    return dirs


def _settings(strategy: str) -> Settings:
    return dataclasses.replace(default_settings(), strategy=strategy)


@functools.cache
def _migrated(server: str, strategy: str) -> bytes:
    path = FIXTURES / server
    result = fix_bytes(path.read_bytes(), str(path), _settings(strategy), unsafe=True)
    assert not result.errors, result.errors
    assert result.fixed_source is not None, f"{server}: nothing was rewritten with {strategy}"
    return result.fixed_source


def _roots_callback(dirs: list):
    async def list_roots(context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=d.as_uri(), name=d.name) for d in dirs])

    return list_roots


async def _call(server, tool: str, args: dict, **client_kwargs):
    async with Client(server, **client_kwargs) as client:
        return await client.call_tool(tool, args)


def _leaves(exc: BaseException):
    """The exception itself, the members of (nested) exception groups, and their causes."""
    seen, stack = set(), [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(getattr(current, "exceptions", ()) or ())
        stack.extend([current.__cause__, current.__context__])


def _assert_no_back_channel(call) -> None:
    """`call()` must fail because the server asked for roots on a connection without a back-channel."""
    try:
        result, _ = _run(call())
    except BaseException as exc:  # noqa: BLE001 - ExceptionGroup from the task group, or MCPError
        leaves = list(_leaves(exc))
        assert any(
            isinstance(e, NoBackChannelError) or (isinstance(e, MCPError) and "no back-channel" in str(e))
            for e in leaves
        ), f"failed, but not for want of a back-channel: {exc!r}"
        return
    # Should it ever come back as a tool error instead of a JSON-RPC error, accept that too.
    is_error, _, texts = _outcome(result)
    assert is_error and any("no back-channel" in t for t in texts), f"the original did not fail: {texts}"


# ----- behaviour ---------------------------------------------------------------------------------
@pytest.mark.parametrize("server, tool, args, layout, strategy, expectation", _params())
def test_migrated_server_behaves_like_the_original(
    server, tool, args, layout, strategy, expectation, tmp_path, monkeypatch
):
    dirs = _make_tree(tmp_path / "shared", layout)
    monkeypatch.delenv("MCP_ROOTS", raising=False)

    # The original, on the handshake era, with the directories as the client's roots.
    original = _load(FIXTURES / server)
    before, _ = _run(_call(original.mcp, tool, args, mode="legacy", list_roots_callback=_roots_callback(dirs)))

    # The original on 2026-07-28: there is no back-channel to ask for roots.
    if expectation == ORIGINAL_SILENT:
        silent, _ = _run(_call(original.mcp, tool, args))
        assert _outcome(silent) != _outcome(before), "the guard was expected to hide the roots on 2026-07-28"
    else:
        _assert_no_back_channel(lambda: _call(original.mcp, tool, args))

    # The migrated server, on 2026-07-28, with the directories passed the new way.
    migrated_file = tmp_path / "migrated" / server
    migrated_file.parent.mkdir()
    migrated_file.write_bytes(_migrated(server, strategy))
    new_args = dict(args)
    if strategy == "tool-parameter":
        new_args["directories"] = [str(d) for d in dirs]
    elif strategy == "resource-uri":
        new_args["uris"] = [d.as_uri() for d in dirs]
    else:
        monkeypatch.setenv("MCP_ROOTS", os.pathsep.join(str(d) for d in dirs))
    migrated = _load(migrated_file)
    after, deprecations = _run(_call(migrated.mcp, tool, new_args), record=True)

    assert not _outcome(after)[0], f"the migrated tool failed: {_outcome(after)}"
    # (`ctx.info` is the deprecated logging capability: only the roots warnings must be gone.)
    roots_warnings = [str(w.message) for w in deprecations if "roots" in str(w.message)]
    assert roots_warnings == []
    if expectation == ORIGINAL_BROKEN:
        assert _outcome(before)[0], "the original was expected to fail on a percent-encoded root"
        return
    assert _outcome(after) == _outcome(before)
    # Only meaningful when the original worked.
    assert not _outcome(before)[0], f"the original tool failed: {_outcome(before)}"


@pytest.mark.parametrize("strategy", ["tool-parameter", "resource-uri"])
def test_name_clash_is_refused(strategy):
    """A tool that binds `directories` itself is not given a parameter of that name."""
    path = FIXTURES / "subdirs.py"
    result = fix_bytes(path.read_bytes(), str(path), _settings(strategy), unsafe=True)
    assert result.fixed_source is None
    (finding,) = [f for f in result.findings if f.code == "RT001"]
    assert finding.fix == "none"
    assert "already uses the name `directories`" in finding.help


def test_cases_cover_every_server_and_tool():
    covered = {(server, tool) for server, tool, *_ in CASES}
    for server in SERVERS:
        module = _load(FIXTURES / server)
        tools = {t.name for t in _run(_list_tools(module.mcp))[0]}
        assert tools, server
        assert {(server, t) for t in tools} <= covered, f"{server}: a tool has no behavioural case"
    assert len(SERVERS) >= 4


async def _list_tools(server):
    async with Client(server) as client:
        return (await client.list_tools()).tools


# ----- the migrated sources, statically ----------------------------------------------------------
def _pyflakes(source: bytes, filename: str) -> set:
    pytest.importorskip("pyflakes", reason="pyflakes is a test extra")
    from pyflakes.api import check
    from pyflakes.reporter import Reporter

    class Collect(Reporter):
        def __init__(self):
            self.found = []

        def unexpectedError(self, filename, message):
            self.found.append(("unexpected", str(message)))

        def syntaxError(self, filename, message, lineno, offset, text):
            self.found.append(("syntax", str(message)))

        def flake(self, message):
            self.found.append((type(message).__name__, tuple(map(str, message.message_args))))

    reporter = Collect()
    check(source.decode("utf-8"), filename, reporter)
    return set(reporter.found)


@pytest.mark.parametrize(
    "server, strategy",
    [
        (server, strategy)
        for server in SERVERS
        for strategy in STRATEGIES
        if not (server == "subdirs.py" and strategy != "server-config")
        and server != "root_report.py"  # refused: a marker, the request stays (issue 20)
    ],
)
def test_migrated_source_is_clean(server, strategy):
    path = FIXTURES / server
    original = path.read_bytes()
    out = _migrated(server, strategy)

    cst.parse_module(out)
    compile(out, str(path), "exec", dont_inherit=True)

    again = fix_bytes(out, str(path), _settings(strategy), unsafe=True)
    assert again.fixed_source is None, "fixing the migrated source changes it again"
    assert again.applied == []

    new_problems = _pyflakes(out, server) - _pyflakes(original, server)
    assert not new_problems, new_problems

    findings = check_bytes(out, str(path), _settings(strategy)).findings
    left = [f for f in findings if f.code in {f"RT00{i}" for i in range(1, 7)} and f.severity != "info"]
    assert not left, [(f.line, f.code, f.severity, f.message) for f in left]
    # And the original did have something to migrate.
    assert any(f.code == "RT001" for f in check_bytes(original, str(path), _settings(strategy)).findings)
