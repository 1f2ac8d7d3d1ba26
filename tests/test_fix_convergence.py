"""Guarantee 7: overlapping fixes in one file give the same result whether the loop applies
them in one call or a pass at a time; and the rewrite names follow the configuration."""

import dataclasses
import importlib.util
import sys

import pytest

from mcp_migrate.api import default_settings
from mcp_migrate.core.fix.loop import MAX_PASSES, fix_bytes, fix_once

OVERLAPPING = b"""\
from mcp import ClientSession
from mcp.types import ClientCapabilities, RootsCapability

caps = {"capabilities": {"roots": {"listChanged": True}, "sampling": {}}}
declared = ClientCapabilities(roots=RootsCapability(listChanged=True))


async def notify(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""


@pytest.mark.parametrize("unsafe", [False, True])
def test_one_call_equals_pass_by_pass(unsafe):
    settings = default_settings()
    whole = fix_bytes(OVERLAPPING, "x.py", settings, unsafe=unsafe).fixed_source
    current, passes = OVERLAPPING, 0
    while True:
        new, _, _ = fix_once(current, "x.py", settings, unsafe)
        if new is None or new == current:
            break
        current, passes = new, passes + 1
    assert passes <= MAX_PASSES
    assert whole == current
    if unsafe:
        assert b'"roots"' not in current and b"roots=" not in current


SERVER = b"""\
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("names")


@mcp.tool()
async def count(ctx: Context) -> int:
    result = await ctx.session.list_roots()
    return len(result.roots)
"""


def test_parameter_and_env_var_names_come_from_settings():
    tool = dataclasses.replace(default_settings(), strategy="tool-parameter", parameter="workspaces")
    out = fix_bytes(SERVER, "s.py", tool, unsafe=True).fixed_source.decode()
    assert "\n    workspaces: Annotated[list[str]" in out and "return len(workspaces)" in out
    env = dataclasses.replace(default_settings(), strategy="server-config", env_var="FINDER_DIRS")
    out = fix_bytes(SERVER, "s.py", env, unsafe=True).fixed_source.decode()
    assert 'FINDER_DIRS = [d for d in os.environ.get("FINDER_DIRS", "").split(os.pathsep) if d]' in out
    assert "return len(FINDER_DIRS)" in out


def test_resource_uri_rejects_other_schemes_and_hosts(tmp_path):
    pytest.importorskip("mcp.server.mcpserver")
    settings = dataclasses.replace(default_settings(), strategy="resource-uri")
    path = tmp_path / "migrated_uris.py"
    path.write_bytes(fix_bytes(SERVER, "s.py", settings, unsafe=True).fixed_source)
    spec = importlib.util.spec_from_file_location("migrated_uris", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["migrated_uris"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["migrated_uris"]
    to_path = module._file_uri_to_path
    assert to_path("file:///srv/my%20repo") == "/srv/my repo"
    with pytest.raises(ValueError, match="expected a file:// URI"):
        to_path("https://example.com/repo")
    with pytest.raises(ValueError, match="another host"):
        to_path("file://fileserver/share")
