"""A finding whose construct another finding's fix deletes goes with that fix (core.fix.carried,
issue 36 §1): the provider's `def` with its wiring's removal, a capability probe with the guard
the request's rewrite unwraps. It gets that fix's kind and says which finding carries it; a
construct the fix leaves in place keeps no edit."""

from __future__ import annotations

import dataclasses

from mcp_migrate.api import check_bytes, default_settings, fix_bytes

CLIENT = """from pathlib import Path

from mcp import ClientSession
from mcp.types import ListRootsResult, Root


async def give_roots(context) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri=Path.cwd().as_uri())])


async def main(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=give_roots) as session:
        await session.initialize()
"""


def _kinds(source: str) -> list:
    findings = check_bytes(source.encode(), "client.py", default_settings()).findings
    return [(f.code, f.line, f.fix, f.help.split("; ")[0]) for f in findings]


def test_a_provider_goes_with_the_removal_of_its_wiring():
    assert _kinds(CLIENT) == [
        ("RT002", 7, "unsafe", "it goes with the fix of the RT002 finding on line 12, which removes it"),
        (
            "RT002",
            12,
            "unsafe",
            "give the server its directories as tool arguments or through its configuration"
            " (stdio `env`/`args`), then delete this",
        ),
    ]
    fixed = fix_bytes(CLIENT.encode(), "client.py", default_settings(), unsafe=True)
    assert b"give_roots" not in fixed.fixed_source
    assert [f.code for f in fixed.findings] == ["RT901"]  # the hand-over's review marker, pending


def test_a_provider_the_fix_leaves_keeps_no_edit():
    used = CLIENT + "\n\nROOTS_FOR_LATER = give_roots\n"
    kinds = _kinds(used)
    assert kinds[0][:3] == ("RT002", 7, "none")


SERVER = """from mcp import types
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("files")


@mcp.tool()
async def count(ctx: Context) -> int:
    if ctx.session.check_client_capability(types.ClientCapabilities(roots=types.RootsCapability())):
        result = await ctx.session.list_roots()
        return len(result.roots)
    return 0
"""


def test_a_probe_goes_with_the_guard_the_rewrite_unwraps():
    kinds = _kinds(SERVER)
    assert kinds[0] == (
        "RT003",
        9,
        "unsafe",
        "it goes with the fix of the RT001 finding on line 10, which removes it",
    )
    assert kinds[1][:3] == ("RT001", 10, "unsafe")


FACTORY = """from pathlib import Path

from mcp import ClientSession
from mcp.types import ListRootsResult, Root


def roots_for(folder: str):
    async def answer(context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=Path(folder).as_uri())])

    return answer


async def first(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=roots_for("/a")) as session:
        await session.initialize()


async def second(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=roots_for("/b")) as session:
        await session.initialize()
"""


def test_a_factory_goes_with_the_removals_that_leave_it_unused_together():
    """No single wiring's removal orphans `roots_for`, both do (DevNarrate's `_roots_callback`,
    wired sixteen times): its nested provider goes with the first of them, of their kind (a
    computed callback's removal is a suggestion)."""
    kinds = _kinds(FACTORY)
    assert kinds[0] == ("RT002", 8, "display", "it goes with the fix of the RT002 finding on line 15, which removes it")
    assert [k[2] for k in kinds[1:]] == ["display", "display"]
    settings = dataclasses.replace(default_settings(), apply_suggestions=True)
    fixed = fix_bytes(FACTORY.encode(), "client.py", settings, unsafe=True).fixed_source
    assert b"def roots_for" not in fixed and b"answer" not in fixed
