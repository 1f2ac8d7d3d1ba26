"""CONTRIBUTING.md's module map is the package: a row per module, a module per row, and a
module over 500 lines says why in its row. A rule's module (`mcp_migrate/rules/rt006_*.py`, the
modules of `rules/rt102/`) is described by its catalog page (`rules/RT006-*.md`), so it needs a
row only to say why it is over 500 lines: adding a rule touches no map."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_migrate.core.catalog import load_catalog

REPO = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `(mcp_migrate/[\w/]+\.py)` \| (.+) \|$", re.MULTILINE)
LIMIT = 500


def _rows() -> dict:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return dict(ROW.findall(text))


def _modules() -> set:
    return {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "mcp_migrate").rglob("*.py")
        if "__pycache__" not in path.parts
    }


def _described_by_a_page(module: str) -> bool:
    """A module of `mcp_migrate/rules/` whose name (or package) starts with a catalog code."""
    parts = module.split("/")
    return len(parts) > 2 and parts[1] == "rules" and parts[2][:5].upper() in load_catalog()


def test_every_module_has_a_row_and_every_row_a_module():
    rows = set(_rows())
    modules = {module for module in _modules() if not _described_by_a_page(module)}
    assert not modules - rows, f"add a row to CONTRIBUTING.md's module map: {sorted(modules - rows)}"
    assert not rows - _modules(), f"rows for modules that do not exist: {sorted(rows - _modules())}"


def test_a_long_module_says_why():
    rows = _rows()
    long = {
        module: len((REPO / module).read_text(encoding="utf-8").splitlines())
        for module in _modules()
        if len((REPO / module).read_text(encoding="utf-8").splitlines()) > LIMIT
    }
    unexplained = sorted(f"{m} ({n} lines)" for m, n in long.items() if "Over 500 lines:" not in rows.get(m, ""))
    assert not unexplained, unexplained
