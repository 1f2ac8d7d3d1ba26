"""The package's floors, checked from its imports (lazy ones and `__init__` re-exports count):

    commands -> output -> project -> api -> checks -> rewrites -> core

A module imports only its own floor or a lower one; there is no import cycle anywhere; the engine
knows the rule contract (core/rule.py) and no rule; `api.py` is the only module that joins the
core to the rules; no rule imports another rule; and a rewrite loads neither a rule nor the
engine."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"

#: Lowest first. `top` is the package itself and `__main__`; `schemas` holds data files only.
FLOORS = ("schemas", "core", "rewrites", "checks", "api", "project", "output", "commands", "top")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _typing_only(tree: ast.AST) -> set:
    """The import statements under `if TYPE_CHECKING:`: read by the type checker, never run."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for statement in node.body
        for inner in ast.walk(statement)
    }


def _imports(path: Path, typing: bool = True) -> set:
    """Every mcp_migrate module a file imports, at module level or inside a function, and (with
    `typing`) under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    skipped = set() if typing else _typing_only(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def _graph(typing: bool = True) -> dict:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    return {name: {m for m in _imports(path, typing) if m in modules and m != name} for name, path in modules.items()}


GRAPH = _graph()
#: The imports that run: a record and the classes it names may name each other for the type
#: checker (Settings holds rule classes, a rule reads its Settings) without a knot at run time.
RUNTIME = _graph(typing=False)


def floor(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return "top"
    return parts[1]


def test_every_module_has_a_floor():
    assert {floor(m) for m in GRAPH} <= set(FLOORS), sorted({floor(m) for m in GRAPH} - set(FLOORS))


def test_the_graph_sees_the_package():
    assert "mcp_migrate.core.dispatch" in GRAPH["mcp_migrate.core.engine"]
    assert "mcp_migrate.checks" in GRAPH["mcp_migrate.api"]


def test_no_import_cycle_between_modules():
    """Lazy imports count too, and so does a package's `__init__` importing its own modules:
    a cycle hidden in a function or a re-export is still a knot in the design. Imports under
    `if TYPE_CHECKING:` do not (they never run); they still may not point up a floor."""
    state: dict = {}
    cycle: list = []

    def visit(node: str, stack: list) -> bool:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(RUNTIME[node]):
            if state.get(nxt) == "open":
                cycle.extend(stack[stack.index(nxt) :] + [nxt])
                return True
            if nxt not in state and visit(nxt, stack):
                return True
        stack.pop()
        state[node] = "done"
        return False

    for module in sorted(RUNTIME):
        if module not in state and visit(module, []):
            break
    assert not cycle, " -> ".join(cycle)


def test_typing_only_imports_are_edges_but_not_run():
    """Settings names its rule classes for the type checker alone: the floors see the edge, the
    cycle test does not (a rule's context holds Settings at run time)."""
    assert "mcp_migrate.core.rule" in GRAPH["mcp_migrate.core.settings"]
    assert "mcp_migrate.core.rule" not in RUNTIME["mcp_migrate.core.settings"]
    assert "mcp_migrate.core.settings" in RUNTIME["mcp_migrate.core.context"]


def test_no_import_runs_up_a_floor():
    """The root package itself is not a floor: every import of a submodule loads it, and it
    holds only `__version__` and the names it lends lazily from `api`."""
    offenders = sorted(
        f"{module} ({floor(module)}) -> {target} ({floor(target)})"
        for module, targets in GRAPH.items()
        for target in targets
        if target != "mcp_migrate" and FLOORS.index(floor(target)) > FLOORS.index(floor(module))
    )
    assert not offenders, offenders


def test_init_edges_are_counted():
    """A package `__init__` that re-exports its modules is an edge like any other (the floors
    test sees it): today only `checks` keeps a registry, and only of its own rule modules."""
    edges = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        if (PACKAGE.parent / module.replace(".", "/") / "__init__.py").is_file()
        for target in targets
    )
    assert all(target.startswith(module + ".") for module, target in edges), edges
    assert {module for module, _ in edges} == {"mcp_migrate.checks"}, edges


def test_only_the_api_joins_the_core_and_the_rules():
    importers = sorted(
        module
        for module, targets in GRAPH.items()
        if floor(module) != "checks" and any(floor(t) == "checks" for t in targets)
    )
    assert importers == ["mcp_migrate.api"]


def _rule_of(module: str):
    """The rule a module belongs to (`checks/rt001_x.py`, or a module of a `checks/rt102/`
    package), else None."""
    parts = module.split(".")
    return parts[2][:5] if len(parts) > 2 and parts[1] == "checks" and parts[2][:2] in ("rt", "ha") else None


def test_no_rule_imports_another_rule():
    offenders = sorted(
        f"{m} -> {t}" for m in GRAPH for t in GRAPH[m] if _rule_of(m) and _rule_of(t) and _rule_of(t) != _rule_of(m)
    )
    assert not offenders, offenders
    assert _rule_of("mcp_migrate.checks.rt102.rule") == "rt102" and _rule_of("mcp_migrate.checks.wire") is None


@pytest.mark.parametrize(
    "module",
    ["mcp_migrate.rewrites.rt001.plan", "mcp_migrate.rewrites.rt002.providers", "mcp_migrate.core.fix.edits"],
)
def test_a_rewrite_loads_no_rule_and_not_the_engine(module):
    """What `import` really loads, not what the files say: a lazy import at module level or a
    package `__init__` pulling in its siblings would show here."""
    code = (
        f"import json, sys, {module}; print(json.dumps(sorted(m for m in sys.modules if m.startswith('mcp_migrate'))))"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert not [m for m in loaded if m.startswith("mcp_migrate.checks")], loaded
    assert "mcp_migrate.core.engine" not in loaded and "mcp_migrate.api" not in loaded, loaded


def test_no_two_functions_share_the_name_walk():
    owners = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "walk"
    ]
    assert len(owners) <= 1, owners


def test_each_strategy_setting_has_one_class():
    from mcp_migrate.core.settings import STRATEGIES
    from mcp_migrate.rewrites.rt001.strategies import STRATEGY_CLASSES

    assert tuple(STRATEGY_CLASSES) == STRATEGIES
