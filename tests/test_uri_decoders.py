"""RT001 gives a project helper that decodes a file URI the directory itself
(rewrites.rt001.decoders): which helpers count, by what their bodies do, in the module or one
import away."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.rewrites.rt001.decoders import PATH, STR, _module_summaries


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        # what the corpus writes: urlparse + unquote, annotated
        ("def f(uri: str) -> Path:\n    return Path(unquote(urlparse(uri).path))\n", PATH),
        # a local computed from the parameter, `Path | None` with a None branch
        (
            "def f(u) -> Path | None:\n    p = urlparse(str(u))\n    if p.scheme != 'file':\n        return None\n"
            "    return Path(url2pathname(p.path)).resolve()\n",
            PATH,
        ),
        # no annotation: every value returned is built by Path(...)
        ("def f(u):\n    return Path(unquote(urlparse(u).path)).resolve(strict=True)\n", PATH),
        ("def f(u) -> str:\n    return unquote(u.removeprefix('file://'))\n", STR),
        ("def f(u):\n    return str(url2pathname(urlparse(u).path))\n", STR),
        # not decoders: the URI kept as data, another parameter decoded, a method, a coroutine
        ("def f(uri: str) -> Workspace:\n    return Workspace(uri=uri)\n", None),
        ("def f(uri, other) -> Path:\n    return Path(unquote(urlparse(other).path))\n", None),
        ("async def f(uri) -> Path:\n    return Path(unquote(urlparse(uri).path))\n", None),
        # returns something else, or it cannot tell
        ("def f(uri) -> dict:\n    return {'path': unquote(urlparse(uri).path)}\n", None),
        ("def f(uri):\n    return unquote(urlparse(uri).path)\n", None),
    ],
)
def test_a_decoder_is_known_by_its_body(source, kind):
    summaries = _module_summaries(source.encode())
    assert summaries.get("f") == kind


SERVER = """from mcp.server.fastmcp import Context, FastMCP

from helpers.uris import to_path

mcp = FastMCP("s")


@mcp.tool()
async def sizes(ctx: Context) -> int:
    result = await ctx.session.list_roots()
    return sum(to_path(r.uri).stat().st_size for r in result.roots)
"""

HELPERS = """from pathlib import Path
from urllib.parse import unquote, urlparse


def to_path(uri) -> Path:
    return Path(unquote(urlparse(str(uri)).path))
"""


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_an_imported_decoder_gets_the_directory_and_its_import_goes(tmp_path, monkeypatch):
    """The helper one import away is read once; the call becomes `Path(root)`, its import goes
    (the helper's module stays: other code may use it), and the rewrite is a suggestion."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "uris.py").write_text(HELPERS)
    (tmp_path / "server.py").write_text(SERVER)
    doc = json.loads(_run("check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "server.py"))
    assert [(f["line"], f["code"], f["fix"]) for f in doc["findings"]] == [(10, "RT001", "display")]
    assert "`to_path` decoded a root's URI" in doc["findings"][0]["help"]
    _run("fix", "--apply-suggestions", "server.py")
    text = (tmp_path / "server.py").read_text()
    assert "to_path" not in text
    assert "return sum(Path(r).stat().st_size for r in directories)" in text
    assert (tmp_path / "helpers" / "uris.py").read_text() == HELPERS
    # The helper changed into something else: the next check sees it (the results cache too).
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "helpers" / "uris.py").write_text(HELPERS.replace("Path(unquote(urlparse(str(uri)).path))", "uri"))
    doc = json.loads(_run("check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "server.py"))
    assert [f["fix"] for f in doc["findings"]] == ["marker"]
