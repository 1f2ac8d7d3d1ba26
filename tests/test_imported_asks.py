"""One import away from a caller that names nothing of Roots (issue 19 §2): a helper re-exported
by its package (the parenthesised form included), a module imported with `from . import`, and a
resolver alias of another module, found by the byte screen's second chance
(vocabulary/imported_asks.py) and reported by RT001 at info."""

from __future__ import annotations

import os
import textwrap

from mcp_migrate.api import check_source
from mcp_migrate.rules.rt001_roots_request import RootsRequest
from mcp_migrate.vocabulary.imported_asks import imports_a_doer

HELPERS = """
from mcp.server.fastmcp import Context


async def get_dirs(ctx: Context) -> list:
    return [str(r.uri) for r in await ctx.list_roots()]


def describe(dirs: list) -> str:
    return ", ".join(dirs)
"""
PACKAGE = """
from pkg_tools.helpers import (
    describe,
    get_dirs,
)
"""
SCOPE = """
from typing import Annotated

from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp_types import ListRootsResult


def _ask(ctx):
    return ListRoots()


Pinned = Annotated[ListRootsResult, Resolve(_ask)]
"""
SERVER = """
from mcp.server.fastmcp import Context, FastMCP

from pkg_tools import describe, get_dirs

from . import scope

app = FastMCP("files")


@app.tool()
async def where(ctx: Context) -> str:
    return describe(await get_dirs(ctx))


@app.tool()
def index(pinned: scope.Pinned) -> int:
    return 0
"""
QUIET = """
from mcp.server.fastmcp import FastMCP

from pkg_tools import describe

app = FastMCP("files")


@app.tool()
def show(dirs: list) -> str:
    return describe(dirs)
"""


def _tree(tmp_path) -> str:
    package = tmp_path / "pkg_tools"
    package.mkdir()
    for name, text in {
        "helpers": HELPERS,
        "__init__": PACKAGE,
        "scope": SCOPE,
        "server": SERVER,
        "quiet": QUIET,
    }.items():
        (package / f"{name}.py").write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(package)


def _findings(path: str) -> list:
    with open(path, "rb") as handle:
        data = handle.read()
    return [f"{f.line}:{f.column} {f.code} {f.severity} {f.message}" for f in check_source(data, path)]


def test_a_caller_with_no_roots_word_is_found_one_import_away(tmp_path):
    package = _tree(tmp_path)
    server = os.path.join(package, "server.py")
    assert b"oots" not in open(server, "rb").read()
    assert _findings(server) == [
        "12:27 RT001 info runs `pkg_tools.get_dirs`, a helper of this project that asks for roots",
        "16:11 RT001 info parameter `pinned` is resolved through `pkg_tools.scope.Pinned`, which asks for roots",
    ]


def test_a_caller_that_imports_only_what_asks_nothing_is_not_parsed_for_rt001(tmp_path):
    package = _tree(tmp_path)
    quiet = os.path.join(package, "quiet.py")
    data = open(quiet, "rb").read()
    assert not RootsRequest.screen(data)
    assert not imports_a_doer(data, quiet, RootsRequest.SCREEN[:-1])
    assert _findings(quiet) == []


def test_the_helper_module_is_read_again_when_it_changes(tmp_path):
    package = _tree(tmp_path)
    server = os.path.join(package, "server.py")
    data = open(server, "rb").read()
    assert imports_a_doer(data, server, RootsRequest.SCREEN[:-1])
    helpers = os.path.join(package, "helpers.py")
    with open(helpers, "w", encoding="utf-8") as handle:
        handle.write("async def get_dirs(ctx) -> list:\n    return []\n\n\ndef describe(d):\n    return ''\n")
    os.utime(helpers, ns=(1, 1))
    scope = os.path.join(package, "scope.py")
    with open(scope, "w", encoding="utf-8") as handle:
        handle.write("Pinned = list\n")
    os.utime(scope, ns=(1, 1))
    assert not imports_a_doer(data, server, RootsRequest.SCREEN[:-1])


INLINE = """
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp_types import ListRootsResult

from .scope import _ask

app = MCPServer("files")


@app.tool()
def index(pinned: Annotated[ListRootsResult, Resolve(_ask)]) -> int:
    return 0
"""


def test_an_inline_marker_given_an_imported_resolver_is_the_alias_written_in_place(tmp_path):
    """`Annotated[ListRootsResult, Resolve(_ask)]` with `_ask` from another module: the same
    finding as the parameter typed `scope.Pinned` (the same resolver, not named through an alias)."""
    package = _tree(tmp_path)
    inline = os.path.join(package, "inline.py")
    with open(inline, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(INLINE).lstrip())
    assert _findings(inline) == [
        "13:11 RT001 info parameter `pinned` is resolved through `pkg_tools.scope._ask`, which asks for roots",
    ]
