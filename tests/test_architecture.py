"""The package's floors, checked from its imports (lazy ones and `__init__` re-exports count):

    commands -> run -> output -> project -> api -> rules -> vocabulary -> rewrites -> core

A module imports only its own floor or a lower one; there is no import cycle anywhere; the engine
knows the rule contract (core/rule.py) and no rule; `api.py` is the only module that joins the
core to the rules (and to the vocabulary they share); no rule imports another rule; the rules'
package holds rule code only (its shared vocabulary is a floor below); a rewrite loads neither a
rule nor the engine; `commands/` holds the click commands and their printing, and reaches the
engine, the pool and the results cache only through `run/`; and the run prints nothing."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"
#: A rule's module (or package) name: its code in lower case, then `_` and its name (or nothing).
RULE_MODULE = re.compile(r"^[a-z]{2}\d{3}(_|$)")

#: Lowest first. `top` is the package itself and `__main__`; `schemas` holds data files only.
FLOORS = ("schemas", "core", "rewrites", "vocabulary", "rules", "api", "project", "output", "run", "commands", "top")


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
    assert "mcp_migrate.rules" in GRAPH["mcp_migrate.api"]
    assert "mcp_migrate.vocabulary.wire" in GRAPH["mcp_migrate.rules.rt004_list_changed_send"]


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
    test sees it). The rules' package finds its rule modules by walking itself (importlib), so
    no `__init__` imports its siblings by name: a new rule joins no list."""
    edges = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        if (PACKAGE.parent / module.replace(".", "/") / "__init__.py").is_file()
        for target in targets
    )
    assert not [(module, target) for module, target in edges if target.startswith(module + ".")], edges
    assert edges == [("mcp_migrate.rules", "mcp_migrate.core.rule")], edges  # the contract it walks for


RULE_FLOORS = ("rules", "vocabulary")


def test_only_the_api_joins_the_core_and_the_rules():
    importers = sorted(
        module
        for module, targets in GRAPH.items()
        if floor(module) not in RULE_FLOORS and any(floor(t) in RULE_FLOORS for t in targets)
    )
    assert importers == ["mcp_migrate.api"]


def test_the_rules_package_holds_rule_code_only():
    """Every module of `mcp_migrate/rules/` belongs to one rule (`rt001_x.py`, a module of the
    `rt102/` package, a rule's part such as `rt002_screen.py`); the vocabulary rules share sits
    in `mcp_migrate/vocabulary/`, which never imports a rule."""
    rule_floor = [m for m in GRAPH if floor(m) == "rules" and m != "mcp_migrate.rules"]
    assert rule_floor and not [m for m in rule_floor if _rule_of(m) is None], rule_floor
    up = sorted(f"{m} -> {t}" for m in GRAPH if floor(m) == "vocabulary" for t in GRAPH[m] if floor(t) == "rules")
    assert not up, up


def _rule_of(module: str):
    """The rule a module belongs to (`rules/rt001_x.py`, or a module of a `rules/rt102/`
    package), else None."""
    parts = module.split(".")
    return parts[2][:5] if len(parts) > 2 and parts[1] == "rules" and RULE_MODULE.match(parts[2]) else None


def test_no_rule_imports_another_rule():
    offenders = sorted(
        f"{m} -> {t}" for m in GRAPH for t in GRAPH[m] if _rule_of(m) and _rule_of(t) and _rule_of(t) != _rule_of(m)
    )
    assert not offenders, offenders
    assert _rule_of("mcp_migrate.rules.rt102.rule") == "rt102" and _rule_of("mcp_migrate.vocabulary.wire") is None
    assert _rule_of("mcp_migrate.rules.rt002_screen") == "rt002" and _rule_of("mcp_migrate.rules.words") is None


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
    assert not [m for m in loaded if m.startswith(("mcp_migrate.rules", "mcp_migrate.vocabulary"))], loaded
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


def _every_import(path: Path) -> set:
    """Every module a file imports (standard library and third party too), lazy ones included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found


def _floor_files(name: str) -> list:
    return sorted(path for path in (PACKAGE / name).rglob("*.py") if "__pycache__" not in path.parts)


#: What only the run may use: the engine's entry points and the rules, the cross-file plan and
#: the callers' join, the results cache, and worker processes.
RUN_ONLY = (
    "mcp_migrate.api",
    "mcp_migrate.rules",
    "mcp_migrate.vocabulary",
    "mcp_migrate.rewrites",
    "mcp_migrate.core.engine",
    "mcp_migrate.core.dispatch",
    "mcp_migrate.core.coordination",
    "mcp_migrate.core.callers",
    "mcp_migrate.project.cache",
    "mcp_migrate.project.cache_codec",
    "multiprocessing",
    "concurrent.futures",
)


def test_commands_hold_only_the_command_line_and_reach_the_run_through_run():
    """`commands/` is the click front: the engine, the pool, the results cache and the run's
    coordination are `run/`'s (issue 34 §1: the run used to share this folder, 1,111 lines of it
    in one module)."""
    files = _floor_files("commands")
    assert files, "no commands/ package"
    offenders = sorted(
        f"{path.name} -> {name}"
        for path in files
        for name in _every_import(path)
        if any(name == banned or name.startswith(banned + ".") for banned in RUN_ONLY)
    )
    assert not offenders, offenders


def test_the_run_prints_nothing():
    """The run computes; the commands print (and time it: a `-v` timer is handed in). No
    module of `run/` imports click or rich, calls print, or touches the standard streams."""
    files = _floor_files("run")
    assert files, "no run/ package"
    offenders = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{path.name}: imports {n}" for n in _every_import(path) if n.split(".")[0] in ("click", "rich")]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.name}:{node.lineno}: print()")
            if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr", "__stdout__", "__stderr__"):
                offenders.append(f"{path.name}:{node.lineno}: {node.attr}")
    assert not offenders, offenders


def test_the_core_names_no_rule():
    """The engine knows the rule contract, not what a rule's code means to a run: which code is
    a server asking for roots, whose fix reads the plan's tools, is the run's Roots plan
    (run/roots_plan.py; issue 34 §4). The core's own file-level codes (core/codes.py) aside, no
    string in the core is a rule's code."""
    from mcp_migrate.core import codes
    from mcp_migrate.core.catalog import load_catalog

    rules = set(load_catalog()) - {value for value in vars(codes).values() if isinstance(value, str)}
    assert {"RT001", "RT002", "HA001"} <= rules
    offenders = sorted(
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}"
        for path in _floor_files("core")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in rules
    )
    assert not offenders, offenders
