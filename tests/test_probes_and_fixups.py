"""A helper that probes the roots capability through a local and decodes each root's URI by hand
(djinnvim's shape, session 48's first look): the rewrite drops the probe with its guard, and no
URI fix-up stays on a configured path (issue 36 §5: no `unquote`, no `startswith("file:")` filter
that is always true). The probe's own finding gets no removal that would make the check always
pass (`ClientCapabilities()`)."""

from __future__ import annotations

from mcp_migrate.api import check_bytes, default_settings, fix_bytes

SOURCE = 'from pathlib import Path\nfrom urllib.parse import unquote, urlparse\n\nfrom mcp import types\nfrom mcp.server.fastmcp import Context\n\n\nasync def client_folders(ctx: Context) -> list[Path] | None:\n    caps = types.ClientCapabilities(roots=types.RootsCapability())\n    if not ctx.session.check_client_capability(caps):\n        return None\n    result = await ctx.session.list_roots()\n    paths = [Path(unquote(urlparse(str(root.uri)).path)) for root in result.roots if str(root.uri).startswith("file:")]\n    return paths or None\n'

MIGRATED = """import os
from pathlib import Path

from mcp.server.fastmcp import Context

# Directories this server works in, from its configuration (replaces MCP Roots,
# SEP-2577).
MCP_ROOTS = [d for d in os.environ.get("MCP_ROOTS", "").split(os.pathsep) if d]


async def client_folders(ctx: Context) -> list[Path] | None:
    paths = [Path(root) for root in MCP_ROOTS]
    return paths or None
"""


def test_the_probe_goes_with_its_guard_and_no_uri_fixup_stays(tmp_path):
    # (a path with no config above it: the comment wraps at the default 88 columns)
    result = fix_bytes(SOURCE.encode(), str(tmp_path / "helpers.py"), default_settings(), unsafe=True)
    assert not result.errors
    assert result.fixed_source.decode() == MIGRATED


def test_a_probe_through_a_local_is_a_probe_that_goes_with_its_guard():
    """No removal of its own (`ClientCapabilities()` would make the check always pass): it goes
    with the request's rewrite, which drops the guard and the local (core.fix.carried)."""
    findings = check_bytes(SOURCE.encode(), "helpers.py", default_settings()).findings
    probe = [(f.code, f.line, f.column, f.fix, f.message, f.help.split("; ")[0]) for f in findings if f.code == "RT003"]
    assert probe == [
        (
            "RT003",
            9,
            37,
            "unsafe",
            "probes the client's roots capability, deprecated by SEP-2577",
            "it goes with the fix of the RT001 finding on line 12, which removes it",
        )
    ]


GUARDED = """from pathlib import Path

from mcp.server.fastmcp import Context


async def client_folders(ctx: Context) -> list[Path] | None:
    params = ctx.session.client_params
    if params is None or params.capabilities.roots is None:
        return None
    result = await ctx.session.list_roots()
    return [Path(root.uri.path) for root in result.roots]
"""

GUARDED_MIGRATED = """import os
from pathlib import Path

from mcp.server.fastmcp import Context

# Directories this server works in, from its configuration (replaces MCP Roots,
# SEP-2577).
MCP_ROOTS = [d for d in os.environ.get("MCP_ROOTS", "").split(os.pathsep) if d]


async def client_folders(ctx: Context) -> list[Path] | None:
    params = ctx.session.client_params
    if params is None:
        return None
    return [Path(root) for root in MCP_ROOTS]
"""


def test_a_refusal_that_is_one_condition_of_a_guard_goes_alone(tmp_path):
    """dwg-mcp-server's helper leaves early when `params is None or params.capabilities.roots
    is None`: a 2026-07-28 client declares no roots, so the configured directories would never
    be reached. The refusal goes, the rest of the guard stays, and the probe's finding goes with
    the rewrite (session 51: it had no edit, and the guard stayed in front of the setting)."""
    findings = check_bytes(GUARDED.encode(), "helpers.py", default_settings()).findings
    assert [(f.code, f.line, f.column, f.fix) for f in findings] == [
        ("RT003", 8, 26, "unsafe"),
        ("RT001", 10, 20, "unsafe"),
        ("RT102", 11, 18, "display"),  # `root.uri.path`: a URI's path is no file path
    ]
    assert findings[0].help.startswith("it goes with the fix of the RT001 finding on line 10")
    result = fix_bytes(GUARDED.encode(), str(tmp_path / "helpers.py"), default_settings(), unsafe=True)
    assert result.fixed_source.decode() == GUARDED_MIGRATED
    assert check_bytes(result.fixed_source, "helpers.py", default_settings()).findings == []
