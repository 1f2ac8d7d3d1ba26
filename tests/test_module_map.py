"""CONTRIBUTING.md's module map is the package: a row per module, a module per row, and a
module over 500 lines says why in its row."""

from __future__ import annotations

import re
from pathlib import Path

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


def test_every_module_has_a_row_and_every_row_a_module():
    rows = set(_rows())
    modules = _modules()
    assert not modules - rows, f"add a row to CONTRIBUTING.md's module map: {sorted(modules - rows)}"
    assert not rows - modules, f"rows for modules that do not exist: {sorted(rows - modules)}"


def test_a_long_module_says_why():
    rows = _rows()
    long = {
        module: len((REPO / module).read_text(encoding="utf-8").splitlines())
        for module in _modules()
        if len((REPO / module).read_text(encoding="utf-8").splitlines()) > LIMIT
    }
    unexplained = sorted(f"{m} ({n} lines)" for m, n in long.items() if "Over 500 lines:" not in rows.get(m, ""))
    assert not unexplained, unexplained
