"""Behavioural equivalence of the client-side migration (RT002 with RT001 in the same run).

Each folder of fixtures/behaviour/clients/ holds a client and the server it talks to, both my
own code in the shapes of corpus projects that provide roots. For every strategy:
  * the original pair runs in-process under `mode="legacy"`: the client answers `roots/list`
    with the directories it shares (the current directory, or a repository it was given);
  * both files are migrated the way one `fix --unsafe-fixes` run does it: the server first, then
    the client told which tools gained a parameter (`Settings.run`), so its
    `call_tool(...)` passes the directories it used to give as roots (tool-parameter,
    resource-uri) or, for server-config, the launcher puts them in `MCP_ROOTS` (set here);
  * the migrated pair runs on the 2026-07-28 protocol (`mode="auto"`, no back-channel), with no
    roots callback left, and every tool result must equal the original's.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the behavioural tests need the MCP SDK (mcp==2.3.0, test extra)")

from behaviour_support import load, outcome, run  # noqa: E402

from mcp_migrate.api import (
    check_bytes,  # noqa: E402
    default_settings,
    fix_bytes,  # noqa: E402
)
from mcp_migrate.core.coordination import MigratedTool  # noqa: E402
from mcp_migrate.core.settings import STRATEGIES, Settings  # noqa: E402
from mcp_migrate.run.roots_plan import RootsPlan  # noqa: E402

CLIENTS = Path(__file__).resolve().parent.parent / "fixtures" / "behaviour" / "clients"
PAIRS = sorted(p.name for p in CLIENTS.iterdir() if (p / "client.py").is_file())


def _settings(strategy: str, run: RootsPlan | None = None) -> Settings:
    return dataclasses.replace(default_settings(), strategy=strategy, run=run or RootsPlan())


def _fixed(path: Path, settings: Settings) -> bytes:
    result = fix_bytes(path.read_bytes(), str(path), settings, unsafe=True)
    assert not result.errors, result.errors
    assert result.fixed_source is not None, f"{path}: nothing was rewritten"
    return result.fixed_source


@functools.cache
def _migrated(pair: str, strategy: str) -> tuple:
    """(server, client) sources after one run over the pair, as the CLI's runner does it."""
    server = CLIENTS / pair / "server.py"
    run = RootsPlan.joined([check_bytes(server.read_bytes(), str(server), _settings(strategy)).notes])
    return _fixed(server, _settings(strategy)), _fixed(CLIENTS / pair / "client.py", _settings(strategy, run))


def _repository(base: Path) -> Path:
    """The directory the client shares: a small project, no spaces in its path."""
    repo = base / "shared-repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (repo / "src" / "pkg" / "util.py").write_text("x = 1\n", encoding="utf-8")
    (repo / "README.txt").write_text("readme\n", encoding="utf-8")
    return repo


def _results(value) -> list:
    return [outcome(r) for r in (value if isinstance(value, list) else [value])]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("pair", PAIRS)
def test_migrated_client_and_server_behave_like_the_originals(pair, strategy, tmp_path, monkeypatch):
    repo = _repository(tmp_path)
    monkeypatch.chdir(repo)  # a client that shares its current directory shares this one
    monkeypatch.delenv("MCP_ROOTS", raising=False)

    server = load(CLIENTS / pair / "server.py")
    client = load(CLIENTS / pair / "client.py")
    before, _ = run(client.main(server.mcp, repo, mode="legacy"))
    assert not any(is_error for is_error, _, _ in _results(before)), _results(before)

    server_source, client_source = _migrated(pair, strategy)
    assert b"list_roots" not in client_source
    # tool-parameter / resource-uri: the calls carry the directories, nothing is left to decide;
    # server-config: this client launches no stdio server whose env could be written, so the
    # marker names the directories its launcher must now configure.
    marker = b"# mcp-migrate: RT002 review: pass these directories to the server"
    assert (marker in client_source) == (strategy == "server-config")
    (tmp_path / "migrated").mkdir()
    (tmp_path / "migrated" / "server.py").write_bytes(server_source)
    (tmp_path / "migrated" / "client.py").write_bytes(client_source)
    if strategy == "server-config":  # what the client's launcher now puts in the server's environment
        monkeypatch.setenv("MCP_ROOTS", os.pathsep.join([str(repo)]))
    new_server = load(tmp_path / "migrated" / "server.py")
    new_client = load(tmp_path / "migrated" / "client.py")
    after, deprecations = run(new_client.main(new_server.mcp, repo, mode="auto"), record=True)

    assert [str(w.message) for w in deprecations if "roots" in str(w.message)] == []
    assert _results(after) == _results(before)


def test_the_pairs_cover_two_client_shapes():
    """A helper-built callback over the current directory, and a callback factory given a path
    whose server only falls back to roots for its own `repo_path`: that parameter is the way in
    once migrated (issue 36 §1, no second source), and the client's implicit call passes it."""
    assert PAIRS == ["cwd_roots", "fallback_repo"]
    server, client = _migrated("fallback_repo", "tool-parameter")
    assert b"directories" not in server
    assert b'    if repo_path is None:\n        return json.dumps({"error": "No repository path' in server
    assert b'implicit = await client.call_tool("commit_context", {"repo_path": str(repo)})' in client


def test_client_keeps_its_roots_while_a_server_in_the_run_still_asks(tmp_path):
    """A request whose rewrite is only suggested (here inside a `try:` that guards more than the
    request) still asks for roots after the fix: a client in the same run keeps providing them,
    or the project's own client-server tests break (found on a corpus project whose tests pass
    a roots callback)."""
    server = Path(__file__).resolve().parent.parent / "fixtures" / "RT001" / "fix_try_around_more.py"
    run = RootsPlan.joined([check_bytes(server.read_bytes(), str(server), _settings("tool-parameter")).notes])
    # (its request has a suggested rewrite: an edit, so the code keeps no Roots without one)
    assert run == RootsPlan(tools=(), server_still_asks=True, code_migrated=True)
    client = CLIENTS / "fallback_repo" / "client.py"
    kept = fix_bytes(client.read_bytes(), str(client), _settings("tool-parameter", run), unsafe=True)
    assert kept.fixed_source is None or b"list_roots_callback=" in kept.fixed_source
    # Alone (no such server in the run) the client is migrated as usual.
    alone = fix_bytes(client.read_bytes(), str(client), _settings("tool-parameter"), unsafe=True)
    assert b"list_roots_callback=" not in alone.fixed_source


def test_capability_stays_declared_while_a_server_in_the_run_still_asks():
    """The same holds for a declared roots capability (a corpus server's tests declare it to
    exercise its era-portable roots bridge): no RT003 fix while a server still asks, only the
    removal as a suggestion (issue 36 §3), which `--apply-suggestions` takes."""
    path = Path(__file__).resolve().parent.parent / "fixtures" / "RT003" / "fix_conditional_capability.py"
    asked = _settings("tool-parameter", RootsPlan(server_still_asks=True))
    findings = [f for f in check_bytes(path.read_bytes(), str(path), asked).findings if f.code == "RT003"]
    # Line 15 (`{"roots": {}} if roots else extra`) has no fix of its rule; its entry's removal
    # is suggested (core.fix.suggested), and `--apply-suggestions` takes both.
    assert [(f.line, f.fix) for f in findings] == [(10, "display"), (15, "display")]
    assert fix_bytes(path.read_bytes(), str(path), asked, unsafe=True).fixed_source is None
    taken = fix_bytes(path.read_bytes(), str(path), asked, unsafe=True, suggestions=True).fixed_source
    assert taken is not None and b'"io.modelcontextprotocol/clientCapabilities": {},\n' in taken
    assert b'{"io.modelcontextprotocol/clientCapabilities": {} if roots else extra}' in taken


def test_call_tool_by_keyword_gains_the_argument():
    """`call_tool(name=..., ...)` (a corpus client) and a call with other keywords get the
    directories too, as `arguments=`; a variable given as the arguments is left to a marker."""
    source = (
        b"from mcp import ClientSession, types\n\n\n"
        b"async def cb(context) -> types.ListRootsResult:\n"
        b'    return types.ListRootsResult(roots=[types.Root(uri="file:///srv/a")])\n\n\n'
        b"async def main(read, write, args):\n"
        b"    async with ClientSession(read, write, list_roots_callback=cb) as session:\n"
        b'        await session.call_tool(name="Root Tool")\n'
        b'        await session.call_tool("Root Tool", read_timeout_seconds=None)\n'
        b'        await session.call_tool("Root Tool", args)\n'
    )
    settings = _settings("tool-parameter", RootsPlan(tools=(MigratedTool("Root Tool", "directories"),)))
    out = fix_bytes(source, "client.py", settings, unsafe=True).fixed_source.decode()
    assert 'call_tool(name="Root Tool", arguments={"directories": ["/srv/a"]})' in out
    assert out.count('arguments={"directories": ["/srv/a"]}') == 2 and "read_timeout_seconds=None" in out
    assert "tool `Root Tool` now requires `directories`" in out


def test_list_changed_plumbing_stays_while_a_server_in_the_run_still_asks():
    """A proxy that still asks for roots (a corpus project) keeps its roots/list_changed handler,
    and a client keeps notifying: without them the roots it asks for go stale on legacy links."""
    asked = _settings("tool-parameter", RootsPlan(server_still_asks=True))
    handler = b"""from mcp import types
from mcp.server.lowlevel import Server


class Proxy(Server):
    def __init__(self):
        super().__init__("proxy")
        self.notification_handlers[types.RootsListChangedNotification] = self._changed

    async def _changed(self, notification):
        return None
"""
    sender = b"""from mcp import ClientSession


async def refresh(session: ClientSession):
    await session.send_roots_list_changed()
"""
    for source in (handler, sender):
        findings = [f for f in check_bytes(source, "x.py", asked).findings if f.code in ("RT004", "RT005")]
        assert findings and all(f.fix in ("display", "none") for f in findings)  # held: a suggestion at most
        assert any(f.fix != "none" for f in check_bytes(source, "x.py", _settings("tool-parameter")).findings)
