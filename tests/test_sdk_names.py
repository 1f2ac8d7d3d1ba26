"""Each fact said once: the names of the MCP SDKs, host libraries and SDK classes live in
`core/sdk.py`, and no other module keeps a list of them (a rule keyed to a list of its own is
how one rule learns a package name and another never does)."""

from __future__ import annotations

import ast
from pathlib import Path

from mcp_migrate.core import sdk

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"

PACKAGES = sdk.SDK_PACKAGES | sdk.HOST_FRAMEWORKS | sdk.ROOTS_KWARG_PACKAGES | {sdk.OPENAI_AGENTS}
CLASS_NAMES = (
    frozenset().union(*(value for name, value in vars(sdk).items() if name.isupper() and isinstance(value, frozenset)))
    - PACKAGES
)


def _named(value) -> bool:
    """A string that is an MCP package or SDK class name, or a dotted path inside a package."""
    return isinstance(value, str) and (
        value in PACKAGES or value in CLASS_NAMES or any(value.startswith(p + ".") for p in PACKAGES)
    )


def _offences(path: Path) -> list:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        elements = []
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            elements = node.elts
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith":
            elements = [node.args[0]] if node.args else []
            if elements and isinstance(elements[0], ast.Tuple):
                elements = elements[0].elts
        named = [e.value for e in elements if isinstance(e, ast.Constant) and _named(e.value)]
        if named:
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {sorted(named)}")
    return sorted(set(found))


def test_the_lists_are_not_empty():
    assert {"mcp", "fastmcp", "mcp_types"} <= PACKAGES
    assert {"ClientSession", "ServerSession", "ListRootsRequest", "FastMCP"} <= CLASS_NAMES


def test_no_module_but_sdk_lists_mcp_names():
    offences = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "sdk.py" or path.parent.name != "core"
        for line in _offences(path)
    ]
    assert not offences, "\n".join(offences)


def test_the_check_sees_a_list(tmp_path):
    """The check itself can fail: a rule-like module with its own package list is caught."""
    sample = PACKAGE / "rules" / "_sample_for_test.py"
    try:
        sample.write_text('KNOWN = frozenset({"fastmcp", "mcp_agent"})\nok = x.startswith(("mcp.", "y"))\n')
        assert len(_offences(sample)) == 2
    finally:
        sample.unlink()
