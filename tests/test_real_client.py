"""The migration proved with a real client (issue 36 §6): the `mcp` SDK's stdio client (a test
dependency, offline) starts the original fixture server, which asks for roots, and each migrated
version beside it (the golden outputs of tests/test_migrate_golden.py, which checks they are what
`fix --unsafe-fixes --strategy S` writes), calls every tool, and the answers must be equal: the
directories the roots gave, passed as the new tool parameter, as file URIs, or through the
server's configuration (`MCP_ROOTS` in its environment).

Each call starts a server process (about a second each); the whole module takes a few seconds."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters  # a test dependency: never skipped
from mcp.client.stdio import stdio_client
from mcp.types import ListRootsResult, Root

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "migrate"
SERVER = FIXTURES / "served_file_lister.py"
#: Each tool of the server and the arguments a client passes besides the directories.
CALLS = {"list_files": {"pattern": ".py"}, "count_entries": {}}


def _data(tmp_path: Path) -> list[str]:
    """Two directories with a few files: what the client's roots name."""
    out = []
    for name, files in (("one", ("a.py", "b.txt", "c.py")), ("two", ("d.py",))):
        folder = tmp_path / name
        folder.mkdir()
        for file in files:
            (folder / file).write_text("")
        out.append(str(folder))
    return out


async def _answers(script: Path, extra: dict, *, roots: list[str] | None = None, env: dict | None = None) -> dict:
    """{tool: (is_error, structured result)} of one server process, every tool called once."""

    async def provide(context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=Path(d).as_uri()) for d in roots or ()])

    params = StdioServerParameters(command=sys.executable, args=[str(script)], env={**os.environ, **(env or {})})
    out = {}
    async with stdio_client(params) as (read, write):
        kwargs = {"list_roots_callback": provide} if roots is not None else {}
        async with ClientSession(read, write, **kwargs) as session:
            await session.initialize()
            for tool, arguments in CALLS.items():
                result = await session.call_tool(tool, {**arguments, **extra})
                out[tool] = (result.is_error, result.structured_content)
    return out


@pytest.mark.parametrize(
    ("strategy", "extra", "env"),
    [
        ("tool-parameter", lambda dirs: {"directories": dirs}, lambda dirs: {}),
        ("resource-uri", lambda dirs: {"uris": [Path(d).as_uri() for d in dirs]}, lambda dirs: {}),
        ("server-config", lambda dirs: {}, lambda dirs: {"MCP_ROOTS": os.pathsep.join(dirs)}),
    ],
)
def test_a_migrated_server_answers_as_the_original_asked_through_roots(tmp_path, strategy, extra, env):
    dirs = _data(tmp_path)
    migrated = tmp_path / "migrated.py"
    migrated.write_bytes(SERVER.with_name(f"{SERVER.name}.{strategy}.fixed").read_bytes())
    assert b"list_roots" not in migrated.read_bytes()

    original = anyio.run(lambda: _answers(SERVER, {}, roots=dirs))
    after = anyio.run(lambda: _answers(migrated, extra(dirs), env=env(dirs)))

    one = os.path.join(dirs[0], "")
    assert original == {
        "list_files": (False, {"result": [one + "a.py", one + "c.py", os.path.join(dirs[1], "d.py")]}),
        "count_entries": (False, {"result": 3}),
    }
    assert after == original
