"""Function-level imports (issue 34 §5): a lazy import is start-up time bought, so each one
here says what it buys: what tests/test_startup.py measures (LibCST and its codemod, the rules,
rich, `tempfile` on a warm run), or a module only one output, one error or one rewrite needs.
An import that buys nothing belongs at the top of its module; a new lazy one joins LAZY with
its reason, and an entry whose import is gone is deleted.

Covered: the package below the command line, except the modules other parts of issue 34 are
reorganising (commands/ and the run, checks/, the engine and its noqa handling, the project
view); their lazy imports are listed once those settle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"
NOT_YET = ("commands/", "checks/", "core/engine.py", "core/suppress.py", "core/dependencies.py", "core/coordination.py")

RICH = "rich, which a run that prints no styled text never loads (test_startup)"
LIBCST = "LibCST, which a file no rule can report on never loads (test_startup)"
CODEMOD = "LibCST's codemod, which a preview that removes an import plainly never loads (test_startup)"
FORMAT = "the chosen machine format's writer only"

#: (file, module it imports inside a function) -> why the import waits.
LAZY = {
    ("__init__.py", "importlib"): "the package's names load on first use: `rules` and `explain` need no API",
    ("api.py", "mcp_migrate.checks"): "the rule classes, which a file no rule can report on never loads (test_startup)",
    ("api.py", "mcp_migrate.checks.wrappers"): "a rule class (the extend-apis wrappers), as above",
    ("api.py", "mcp_migrate.checks.gates"): "cheap, but its lines move with checks/ (issue 34 §3): lift after",
    ("api.py", "mcp_migrate.core.engine"): LIBCST,
    ("api.py", "mcp_migrate.core.fix.loop"): LIBCST,
    ("core/catalog.py", "importlib.resources"): "a zipped install only (it loads tempfile and shutil)",
    ("core/fix/import_block.py", "libcst.codemod"): CODEMOD,
    ("core/fix/import_block.py", "libcst.codemod.visitors"): CODEMOD,
    ("core/fix/imports.py", "libcst.codemod"): CODEMOD,
    ("core/fix/imports.py", "libcst.codemod.visitors"): CODEMOD,
    ("output/grouped.py", "rich.markup"): RICH,
    ("output/progress.py", "rich.progress"): RICH,
    ("output/report.py", "rich.console"): RICH,
    ("output/report.py", "rich.markup"): RICH,
    ("output/report.py", "rich.markdown"): RICH,
    ("output/report.py", "rich.table"): RICH,
    ("output/report.py", "mcp_migrate.output.full"): "the full format only (difflib: 13 ms)",
    ("output/report.py", "mcp_migrate.output.github"): FORMAT,
    ("output/report.py", "mcp_migrate.output.gitlab"): FORMAT,
    ("output/report.py", "mcp_migrate.output.junit"): FORMAT,
    ("output/report.py", "mcp_migrate.output.sarif"): FORMAT,
    ("output/sarif.py", "mcp_migrate.project.baseline"): "SARIF's fingerprints only (the baseline's hashing)",
    ("project/config.py", "difflib"): "a did-you-mean on a config error only (13 ms)",
    ("project/exchange.py", "ctypes"): "an atomic exchange on Linux only",
    ("project/writer.py", "tempfile"): "a warm run writes nothing and never loads it (test_startup)",
    (
        "rewrites/rt002/directories.py",
        "urllib.request",
    ): "one rewrite's file: URIs only (urllib.request: 30 ms or more)",
}


def lazy_imports() -> set:
    """(file, module) for every import inside a function of the covered modules."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith(NOT_YET):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import):
                        found.update((name, alias.name) for alias in inner.names)
                    elif isinstance(inner, ast.ImportFrom) and inner.module:
                        found.add((name, inner.module))
    return found


def test_every_lazy_import_says_what_it_buys():
    unexplained = sorted(lazy_imports() - set(LAZY))
    assert not unexplained, "lift these to the top of their module, or say why they wait:\n" + "\n".join(
        f"{file}: {module}" for file, module in unexplained
    )


def test_no_reason_outlives_its_import():
    assert not sorted(set(LAZY) - lazy_imports())
