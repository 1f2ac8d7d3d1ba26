"""An internal error never hides a finding (issue 12, defect 6).

A rewrite planner that fails leaves the finding reported with fix "none" and a message that
says why; a rule that raises keeps what it reported before, and the public API shows the error
as a finding instead of returning a clean-looking empty list."""

import dataclasses
from pathlib import Path

import mcp_migrate
from mcp_migrate.api import default_settings, fix_source
from mcp_migrate.core.engine import INTERNAL_ERROR_CODE, check_bytes
from mcp_migrate.rewrites.rt001 import consumers

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "migrate"


def test_existing_parameter_is_refused_with_reason_not_a_crash():
    path = FIXTURES / "existing_parameter.py"
    settings = dataclasses.replace(default_settings(), strategy="tool-parameter")
    result = check_bytes(path.read_bytes(), str(path), settings)
    assert result.errors == []
    (finding,) = [f for f in result.findings if f.code == "RT001"]
    assert finding.fix == "none"
    assert "already uses the name `directories`" in finding.help


def test_every_signature_shape_is_planned_without_error():
    path = FIXTURES / "signature_shapes.py"
    for strategy in ("tool-parameter", "resource-uri", "server-config"):
        settings = dataclasses.replace(default_settings(), strategy=strategy)
        result = check_bytes(path.read_bytes(), str(path), settings)
        assert result.errors == []
        assert {f.fix for f in result.findings if f.code == "RT001"} == {"unsafe"}


def test_planner_failure_keeps_the_finding(monkeypatch):
    def broken(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(consumers.ConsumerRewriter, "run", broken)
    data = (FIXTURES / "mcp1_fastmcp_loop.py").read_bytes()
    result = check_bytes(data, "t.py", default_settings())
    assert result.errors == []
    (finding,) = [f for f in result.findings if f.code == "RT001"]
    assert finding.fix == "none"
    assert "internal error while planning the rewrite (RuntimeError: boom)" in finding.help


def test_rule_crash_is_visible_through_the_api(monkeypatch):
    from mcp_migrate.rules.rt001_roots_request import RootsRequest

    calls = []
    original = RootsRequest._list_roots

    def second_call_raises(self, node, receiver):
        calls.append(node)
        if len(calls) == 2:
            raise RuntimeError("boom")
        return original(self, node, receiver)

    monkeypatch.setattr(RootsRequest, "_list_roots", second_call_raises)
    source = (
        "from mcp.server.fastmcp import Context\n\n"
        "async def t(ctx: Context):\n"
        "    await ctx.session.list_roots()\n"
        "    await ctx.session.list_roots()\n"
    )
    findings = mcp_migrate.check_source(source)
    codes = [(f.line, f.code) for f in findings]
    # The finding reported before the crash stays; the crash itself is a finding.
    assert (4, "RT001") in codes
    assert (1, INTERNAL_ERROR_CODE) in codes
    (error,) = [f for f in findings if f.code == INTERNAL_ERROR_CODE]
    assert "RT001" in error.message and "RuntimeError: boom" in error.message


def test_clean_source_has_no_internal_finding():
    assert mcp_migrate.check_source("x = 1\n") == []


def test_newer_syntax_is_verified_by_the_parser_that_accepted_it():
    """A 3.12 `type` statement: LibCST parses it on every interpreter this package supports;
    the fix must not be refused as "does not parse" because this Python cannot compile it."""
    import libcst as cst

    from mcp_migrate.api import fix_bytes

    path = FIXTURES / "py312" / "type_alias.py"
    settings = dataclasses.replace(default_settings(), strategy="tool-parameter")
    result = fix_bytes(path.read_bytes(), str(path), settings, unsafe=True)
    assert result.errors == []
    assert result.fixed_source == path.with_name(path.name + ".tool-parameter.fixed").read_bytes()
    cst.parse_module(result.fixed_source)
    again = fix_bytes(result.fixed_source, str(path), settings, unsafe=True)
    assert again.fixed_source is None and again.errors == []


SHADOWED = (
    "from mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('scan')\n"
    "directories = ['/etc/defaults']\n\n\n@mcp.tool()\nasync def scan(ctx: Context) -> list:\n"
    "    result = await ctx.session.list_roots()\n    return [str(r.uri) for r in result.roots] + directories\n"
)


def test_the_default_parameter_gives_way_to_a_module_global_it_would_shadow():
    """Issue 23 §5: `directories` would capture the tool's read of the module global of that
    name; the rewrite takes the next free name instead, and the global keeps being read."""
    fixed = fix_source(SHADOWED, "s.py", unsafe=True)
    assert "    root_directories: Annotated[" in fixed
    assert "for r in root_directories] + directories\n" in fixed


def test_a_configured_parameter_that_would_shadow_a_builtin_is_refused_with_the_reason():
    source = (
        "from mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('scan')\n\n\n@mcp.tool()\n"
        "async def count(ctx: Context) -> int:\n    result = await ctx.session.list_roots()\n"
        "    return len(result.roots)\n"
    )
    settings = dataclasses.replace(default_settings(), parameter="len", strategy="tool-parameter")
    (finding,) = check_bytes(source.encode(), "c.py", settings).findings
    assert finding.fix == "none"
    assert "the function reads `len` from outside it (a module global or a builtin)" in finding.help
    assert fix_source(source, "c.py", settings=settings, unsafe=True) == source


def test_server_config_refuses_a_module_constant_of_the_same_name():
    source = (
        "from mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('scan')\nMCP_ROOTS = 3\n\n\n"
        "async def helper(ctx: Context) -> list:\n    result = await ctx.session.list_roots()\n"
        "    return [str(r.uri) for r in result.roots]\n"
    )
    settings = dataclasses.replace(default_settings(), strategy="server-config")
    (finding,) = check_bytes(source.encode(), "h.py", settings).findings
    assert finding.fix == "none" and "the module already binds `MCP_ROOTS` to something else" in finding.help
