"""A nested helper whose roots are only added to another source goes with its call and its
share of the sum (rewrites/rt001/additive.py); any other use of the helper or of its result
keeps the ordinary rewrite. The golden case is fixtures/migrate/roots_beside_setting.py."""

from __future__ import annotations

from mcp_migrate.api import default_settings, fix_bytes

SOURCE = """from mcp.server.lowlevel import Server

app = Server("w")


def build(configured: str) -> Server:
    async def paths() -> list[str]:
        async def asked() -> list[str]:
            reply = await app.request_context.session.list_roots()
            return [str(item.uri.path) for item in reply.roots]

        {body}

    app.paths = paths
    return app
"""


def _fix(source: str) -> str:
    """`fix --unsafe-fixes` of `source` (unchanged when nothing applies)."""
    result = fix_bytes(source.encode(), "server.py", default_settings(), unsafe=True)
    assert not result.errors, result.errors
    return (result.fixed_source or source.encode()).decode()


def _fixed(body: str) -> str:
    return _fix(SOURCE.format(body=body))


def test_roots_added_to_the_configured_path_go_with_their_helper():
    fixed = _fixed("found = await asked()\n        return [configured, *found]")
    assert "async def asked" not in fixed and "list_roots" not in fixed
    assert "    async def paths() -> list[str]:\n        return [configured]\n" in fixed


def test_a_tuple_left_with_one_element_keeps_its_comma():
    fixed = _fixed("found = await asked()\n        return (*found, configured)")
    assert "        return (configured,)\n" in fixed


def test_a_helper_whose_result_is_returned_is_rewritten_not_removed():
    fixed = _fixed("return await asked()")
    assert "async def asked" in fixed and "MCP_ROOTS" in fixed


def test_a_result_read_besides_the_sum_keeps_the_helper():
    fixed = _fixed("found = await asked()\n        print(len(found))\n        return [configured, *found]")
    assert "async def asked" in fixed


IN_PLACE = """from pathlib import Path

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("files")
DEFAULTS = ["/srv/data"]


async def permitted(ctx: Context, wanted: str | None) -> list[Path]:
    permitted_dirs = [Path(d) for d in DEFAULTS]
    if wanted is not None:
        try:
            offered = await ctx.list_roots()
        except RuntimeError:
            offered = []
        {adding}
    return permitted_dirs
"""


def _fixed_in_place(adding: str) -> str:
    return _fix(IN_PLACE.format(adding=adding))


def test_roots_added_to_a_configured_list_go_and_the_list_stays():
    fixed = _fixed_in_place("permitted_dirs += [Path(str(r.uri.path)) for r in offered]")
    assert fixed.endswith(
        "async def permitted(ctx: Context, wanted: str | None) -> list[Path]:\n"
        "    permitted_dirs = [Path(d) for d in DEFAULTS]\n"
        "    return permitted_dirs\n"
    )


def test_extend_is_an_addition_too():
    fixed = _fixed_in_place("permitted_dirs.extend(Path(str(r.uri.path)) for r in offered)")
    assert "list_roots" not in fixed and "if wanted is not None" not in fixed


def test_roots_that_replace_the_list_are_no_addition():
    """Replacing the configured list is what the roots did, not an addition: nothing goes."""
    fixed = _fixed_in_place("permitted_dirs = [Path(str(r.uri.path)) for r in offered]")
    assert "offered = await ctx.list_roots()" in fixed and "permitted_dirs = [Path(str(r.uri.path))" in fixed
