"""The package's floors, checked from its imports: no import cycle between modules, rules and
rewrites never import each other, the fixer imports neither, and the core imports nothing
from the commands, project or output layers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set:
    """Every mcp_migrate module a file imports, at module level or inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("mcp_migrate")}


def _graph() -> dict:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


GRAPH = _graph()


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else "top"


LAYERS = ("core", "checks", "migrate", "project", "output", "commands")


def test_the_graph_sees_the_package():
    assert "mcp_migrate.core.engine" in GRAPH and "mcp_migrate.checks" in GRAPH["mcp_migrate.core.engine"]


def test_no_import_cycle_between_modules():
    """Lazy imports count too: a cycle hidden in a function is still a knot in the design.
    A package importing its own submodules (`__init__` re-exports) is not a cycle."""
    state: dict = {}
    cycle: list = []

    def visit(node: str, stack: list) -> bool:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == "open":
                cycle.extend(stack[stack.index(nxt) :] + [nxt])
                return True
            if nxt not in state and visit(nxt, stack):
                return True
        stack.pop()
        state[node] = "done"
        return False

    for module in sorted(GRAPH):
        if module not in state and visit(module, []):
            break
    assert not cycle, " -> ".join(cycle)


@pytest.mark.parametrize(
    "importer, imported",
    [
        ("checks", "migrate"),  # rules reach rewrites through FileContext.rewrites
        ("migrate", "checks"),
        ("core", "project"),
        ("core", "output"),
        ("core", "commands"),
        ("project", "commands"),
        ("output", "commands"),
    ],
)
def test_layer_does_not_import(importer, imported):
    offenders = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if _layer(module) == importer
        for target in targets
        if _layer(target) == imported
    )
    assert not offenders, offenders


def test_the_fixer_imports_neither_rules_nor_rewrites():
    layers = {_layer(target) for target in GRAPH["mcp_migrate.core.fixer"]}
    assert not layers & {"checks", "migrate"}, GRAPH["mcp_migrate.core.fixer"]


def test_no_rule_imports_another_rule():
    rules = {m for m in GRAPH if m.startswith("mcp_migrate.checks.") and m.rsplit(".", 1)[1][:2] in ("rt", "ha")}
    offenders = sorted(f"{m} -> {t}" for m in rules for t in GRAPH[m] if t in rules)
    assert not offenders, offenders


def test_no_two_functions_share_the_name_walk():
    owners = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "walk"
    ]
    assert len(owners) <= 1, owners
