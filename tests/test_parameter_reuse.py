"""Roots that only filled in a tool's own directory parameter (issue 36 §1, rewrites/rt001/reuse):
that parameter is the way in, the tool keeps its answer for no directory, and a client that gave
one root passes it as that parameter; any other shape keeps the optional `directories`."""

from __future__ import annotations

import dataclasses

from mcp_migrate.api import default_settings, fix_bytes
from mcp_migrate.core.coordination import MigratedTool
from mcp_migrate.run.roots_plan import RootsPlan

HEAD = """from typing import Optional

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("repo")


"""

REUSED = (
    HEAD
    + """@mcp.tool()
async def status(repo_path: Optional[str] = None) -> str:
    if repo_path is None:
        context = mcp.get_context()
        result = await context.session.list_roots()
        if result.roots:
            repo_path = result.roots[0].uri.path
        else:
            return "no repository"
    return repo_path
"""
)


def _fixed(source: str, settings=None) -> str:
    result = fix_bytes(source.encode(), "server.py", settings or default_settings(), unsafe=True)
    assert not result.errors, result.errors
    return (result.fixed_source or source.encode()).decode()


def test_the_parameter_the_roots_filled_is_the_way_in():
    assert (
        _fixed(REUSED)
        == HEAD
        + """@mcp.tool()
async def status(repo_path: Optional[str] = None) -> str:
    if repo_path is None:
        return "no repository"
    return repo_path
"""
    )


def test_a_result_read_after_the_guard_keeps_the_new_parameter():
    source = REUSED.replace("    return repo_path\n", '    return f"{repo_path} of {len(result.roots)}"\n')
    fixed = _fixed(source)
    assert "directories: Annotated[" in fixed and "if directories:" in fixed


def test_other_work_beside_the_request_keeps_the_new_parameter():
    source = REUSED.replace(
        "        context = mcp.get_context()\n", '        print("asking")\n        context = mcp.get_context()\n'
    )
    fixed = _fixed(source)
    assert "directories: Annotated[" in fixed and 'print("asking")' in fixed


CLIENT = """from mcp import ClientSession
from mcp.types import ListRootsResult, Root


async def provide(context) -> ListRootsResult:
    return ListRootsResult(roots=[{roots}])


async def main(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=provide) as session:
        print(await session.call_tool("status", {{}}))
"""


def _client_settings():
    tool = MigratedTool("status", "repo_path", optional=True, single=True)
    return dataclasses.replace(default_settings(), run=RootsPlan(tools=(tool,)))


def test_a_client_with_one_root_passes_it_as_the_parameter():
    fixed = _fixed(CLIENT.format(roots='Root(uri="file:///srv/repo")'), _client_settings())
    assert 'print(await session.call_tool("status", {"repo_path": "/srv/repo"}))' in fixed
    assert "list_roots_callback" not in fixed and "def provide" not in fixed


def test_a_client_with_two_roots_is_told_to_choose_one():
    fixed = _fixed(CLIENT.format(roots='Root(uri="file:///srv/a"), Root(uri="file:///srv/b")'), _client_settings())
    assert "# mcp-migrate: RT002 review: tool `status` takes an optional `repo_path`" in fixed
    assert 'print(await session.call_tool("status", {}))' in fixed


ATTEMPT = """import os

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("workspace")


@mcp.tool()
async def cached_workspace(ctx: Context, workspace_root: str | None = None) -> str:
    if workspace_root:
        return workspace_root
    try:
        roots = await ctx.list_roots()
        {line}
    except Exception:
        pass
    return os.getcwd()
"""


def test_an_attempt_after_the_argument_goes_where_it_only_kept_locals():
    fixed = _fixed(ATTEMPT.format(line="print(len(roots))"))
    assert "list_roots" not in fixed and "try:" not in fixed
    assert "    if workspace_root:\n        return workspace_root\n    return os.getcwd()\n" in fixed


def test_an_attempt_that_stores_the_roots_on_an_object_stays():
    fixed = _fixed(ATTEMPT.format(line="ctx.fastmcp.last_roots = roots"))
    assert "roots = await ctx.list_roots()" in fixed and "# mcp-migrate: RT001 review:" in fixed


SETTING = """from pathlib import Path

from mcp.server.fastmcp import Context

from .conf import conf


class Folders:
    async def folders(self, ctx: Context) -> list[Path]:
        if {source}:
            return [Path(f) for f in {source}]
        found = await ctx.session.list_roots()
        if found.roots:
            return [Path(r.uri.path) for r in found.roots]
        {after}
"""


def test_an_attempt_after_a_setting_goes_and_the_setting_is_the_way_in():
    fixed = _fixed(SETTING.format(source="conf.shared.folders", after='raise LookupError("no folders")'))
    assert "list_roots" not in fixed
    assert fixed.endswith(
        "        if conf.shared.folders:\n"
        "            return [Path(f) for f in conf.shared.folders]\n"
        '        raise LookupError("no folders")\n'
    )


def test_a_cache_on_the_instance_is_not_a_setting():
    """`if self._folders: return self._folders` keeps what an earlier request gave: removing the
    request would leave the cache empty for ever, so the attempt is not a second one."""
    fixed = _fixed(SETTING.format(source="self._folders", after='raise LookupError("no folders")'))
    assert "conf.shared.folders" not in fixed
    assert "return [Path(f) for f in self._folders]\n        found = await" not in fixed


def test_a_setting_guard_that_returns_nothing_is_no_source():
    """`if conf.disabled: return None` stops early; it gives no directories of its own."""
    source = SETTING.format(source="conf.disabled", after='raise LookupError("no folders")').replace(
        "return [Path(f) for f in conf.disabled]", "return None"
    )
    fixed = _fixed(source)
    assert "if conf.disabled:\n            return None\n" in fixed
    assert "if MCP_ROOTS:\n            return [Path(r) for r in MCP_ROOTS]\n" in fixed


def test_a_request_with_nothing_after_it_is_not_an_attempt_before_a_fallback():
    """Without a statement of its own after the attempt, removing it would turn a 2026 client's
    error into an implicit `None`: the attempt is rewritten, not removed."""
    fixed = _fixed(SETTING.format(source="conf.shared.folders", after="pass").replace("        pass\n", ""))
    assert "list_roots" not in fixed
    assert "if MCP_ROOTS:\n            return [Path(r) for r in MCP_ROOTS]\n" in fixed
