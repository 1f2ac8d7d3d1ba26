"""A project's own MCP implementation (fixtures/own/acme_mcp): exact findings, and the same
findings under another package name (issue 19: MCP code is known by what it does, not by the
package names we happened to read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_migrate.api import check_source

OWN = Path(__file__).resolve().parent.parent / "fixtures" / "own"
FILES = sorted((OWN / "acme_mcp").glob("*.py"))
#: The new names: none says MCP, none is a name the rules know.
RENAMES = ["relaykit", "acmewire", "corelink"]


def _lines(path: Path) -> list:
    findings = check_source(path.read_bytes(), str(path))
    return [f"{f.line}:{f.column} {f.code} {f.message}{_called_from(f)}" for f in findings]


def _called_from(finding) -> str:
    """` [called from 27:15]`: a helper's callers in the same file (core.callers)."""
    where = ", ".join(f"{r.line}:{r.column}" for r in finding.related if r.path == finding.path)
    return f" [called from {where}]" if where else ""


def _expected(path: Path) -> list:
    return [line for line in path.with_suffix(".expected").read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_own_implementation_findings(path):
    assert _lines(path) == _expected(path)


def test_the_fixture_exercises_every_roots_rule():
    codes = {line.split(" ")[1] for path in FILES for line in _expected(path)}
    assert {"RT001", "RT002", "RT003", "RT005", "RT006"} <= codes


@pytest.mark.parametrize("name", RENAMES)
def test_the_same_code_under_another_package_name_gives_the_same_findings(tmp_path, name):
    """`acme_mcp` -> `relaykit`: the folder, the imports and every mention renamed. The
    evidence the rules use (spec-named types, the wire, a project module with them, a roots
    capability's shape) is in the code, so nothing may change but the names in messages."""
    target = tmp_path / name
    shutil.copytree(OWN / "acme_mcp", target)
    for path in target.glob("*.py"):
        path.write_text(path.read_text(encoding="utf-8").replace("acme_mcp", name), encoding="utf-8")
    for original in FILES:
        renamed = target / original.name
        assert _lines(renamed) == [line.replace("acme_mcp", name) for line in _expected(original)], original.name


def test_the_rename_reaches_the_code(tmp_path):
    """The renamed tree holds no `mcp` in any name: the test above proves something."""
    target = tmp_path / "relaykit"
    shutil.copytree(OWN / "acme_mcp", target)
    for path in target.glob("*.py"):
        text = path.read_text(encoding="utf-8").replace("acme_mcp", "relaykit")
        path.write_text(text, encoding="utf-8")
        assert "acme_mcp" not in text
    assert not [p for p in target.rglob("*") if "mcp" in p.name.lower()]


def test_a_helper_reexported_by_a_package_and_imported_relatively_is_one_call_away(tmp_path):
    """`app/roots/__init__.py` re-exports `get_roots` from `app/roots/ops.py`, whose body asks;
    `app/tools.py` imports it relatively from the package: its call is RT001 (at info, the
    helper is the site); a caller of that caller is not."""
    app = tmp_path / "src" / "app"
    (app / "roots").mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "roots" / "__init__.py").write_text("from .ops import get_roots\n\n__all__ = ['get_roots']\n")
    (app / "roots" / "ops.py").write_text(
        "from mcp.server.fastmcp import Context\n\n\nasync def get_roots(ctx: Context):\n"
        "    return await ctx.session.list_roots()\n"
    )
    tools = app / "tools.py"
    tools.write_text(
        "from mcp.server.fastmcp import Context\n\nfrom .roots import get_roots\n\n\n"
        "async def tool(ctx: Context):\n    return await get_roots(ctx)\n\n\n"
        "async def outer(ctx: Context):\n    return await tool(ctx)\n"
    )
    findings = check_source(tools.read_bytes(), str(tools))
    assert [(f.line, f.column, f.code, f.severity) for f in findings] == [(7, 18, "RT001", "info")]
    assert "`app.roots.get_roots`" in findings[0].message
