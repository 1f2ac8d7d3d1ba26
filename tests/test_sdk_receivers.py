"""Receivers typed through the SDKs' own API (issue 35 §2, core/sdk_api.py used by
core/resolve.py): an attribute chain from a typed receiver takes the type the SDK gives it
(`context.fastmcp_context` in a fastmcp middleware is fastmcp's `Context`), and a tool's
unannotated `ctx` on a known server is that server's context."""

from __future__ import annotations

import textwrap

import libcst as cst

from mcp_migrate.api import check_source
from mcp_migrate.core.resolve import Resolver


def _findings(source: str) -> list:
    text = textwrap.dedent(source).lstrip()
    return [f"{f.line}:{f.column} {f.code} {f.message}" for f in check_source(text, "server.py")]


MIDDLEWARE = """
from fastmcp.server.middleware import Middleware, MiddlewareContext


class Watch(Middleware):
    async def on_call_tool(self, context: MiddlewareContext, call_next):
        roots = await context.fastmcp_context.list_roots()
        return await call_next(context)
"""


def test_a_middlewares_fastmcp_context_asks_for_roots():
    assert _findings(MIDDLEWARE) == [
        "6:23 RT001 `context.fastmcp_context.list_roots()` asks for roots, deprecated by SEP-2577"
    ]


def test_a_middleware_context_of_a_project_class_is_not_the_sdks():
    source = MIDDLEWARE.replace(
        "from fastmcp.server.middleware import Middleware, MiddlewareContext",
        "from fastmcp.server.middleware import Middleware\nfrom app.context import MiddlewareContext",
    )
    assert _findings(source) == []


TOOL = """
from fastmcp import FastMCP

mcp = FastMCP("files")


@mcp.tool()
async def scan(ctx) -> str:
    return str(await ctx.list_roots())
"""


def test_a_tools_unannotated_ctx_on_a_known_server_is_its_context():
    assert _findings(TOOL) == ["8:22 RT001 `ctx.list_roots()` asks for roots, deprecated by SEP-2577"]
    bare = TOOL.replace("@mcp.tool()", "@mcp.tool")
    assert _findings(bare) == ["8:22 RT001 `ctx.list_roots()` asks for roots, deprecated by SEP-2577"]


def test_an_unannotated_ctx_outside_a_tool_or_named_otherwise_stays_unknown():
    assert _findings(TOOL.replace("@mcp.tool()\n", "")) == []
    assert _findings(TOOL.replace("(ctx)", "(path)").replace("ctx.list_roots", "path.list_roots")) == []
    assert (
        _findings(
            TOOL.replace("mcp = FastMCP", "mcp = make_server").replace("from fastmcp import FastMCP", "import fastmcp")
        )
        == []
    )


def _type_of(source: str, expression: str) -> str | None:
    """What the resolver says `expression` is, at the end of `source`'s module level."""
    module = cst.parse_module(textwrap.dedent(source).lstrip())
    resolver = Resolver()
    resolver.prepass(module)
    resolver.module_now = resolver.module_final  # asked as a function body would: after the module ran
    return resolver.instance_type(cst.parse_expression(expression))


def test_a_session_two_attributes_away_is_the_servers_session():
    mcp_1 = "from mcp.server.fastmcp import Context\n\nctx: Context = get()\n"
    fastmcp = "from fastmcp import Context\n\nctx: Context = get()\n"
    lowlevel = 'from mcp.server.lowlevel import Server\n\nserver = Server("x")\n'
    for source in (mcp_1, fastmcp):
        assert _type_of(source, "ctx.request_context.session") == "mcp.server.session.ServerSession"
    assert _type_of(lowlevel, "server.request_context.session") == "mcp.server.session.ServerSession"
    # one step: fastmcp 2/3 and 4 type `request_context` differently, so the name rule answers
    assert _type_of(fastmcp, "ctx.request_context") == "mcp.shared.context.RequestContext"


def test_a_send_of_list_changed_on_any_sdk_session_is_rt004():
    """`ServerSession` has no `send_roots_list_changed` (the client sends it), but a call of that
    name, a name only the SDKs' sessions define, on a server's session typed by the SDKs' API
    still means to send the removed notification: RT004 (the finding it had before the chain
    was typed), and the server's `list_roots()` is RT001's."""
    source = """
    from mcp.server.lowlevel import Server

    server = Server("x")


    async def poke() -> None:
        await server.request_context.session.send_roots_list_changed()
        await server.request_context.session.list_roots()
    """
    assert _findings(source) == [
        "7:11 RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision",
        "8:11 RT001 `server.request_context.session.list_roots()` asks for roots, deprecated by SEP-2577",
    ]
