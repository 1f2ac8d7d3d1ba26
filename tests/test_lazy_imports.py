"""Function-level imports (issue 34 §5): a lazy import is start-up time bought, so each one
here says what it buys: what tests/test_startup.py measures (LibCST and its codemod, the rules,
rich, `tempfile` on a warm run, the writer), a module only one command, option, output, error or
rewrite needs, the process pool, or what a run that checks no file never loads. An import that
buys nothing belongs at the top of its module; a new lazy one joins LAZY with its reason, and an
entry whose import is gone is deleted.

Covered: every module of the package. The costs are each import's own, measured (`-X importtime`
and wall clock, median of 15) after the modules the run that skips it loads anyway."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"

RICH = "rich, which a run that prints no styled text never loads (test_startup)"
LIBCST = "LibCST, which a file no rule can report on never loads (test_startup)"
RULES = "the rule classes, which a file no rule can report on never loads (test_startup)"
SCREENS = (
    "one file's screens (core.screening, core.limits, the rules' screens): a file the gate keeps out never loads them"
)
CODEMOD = "LibCST's codemod, which a preview that removes an import plainly never loads (test_startup)"
FORMAT = "the chosen machine format's writer only"
#: run.analysis loads the API (api, core.gates) that run/ reaches only through it.
CHECK = (
    "one file's check (run.analysis, with the API): a run that checks no file (every result from"
    " the cache, no named path that exists, every file excluded) never loads it: 1.7 ms warm, 4.8 ms cold"
)
API = "the API and core.gates: a run that checks no file never loads them (3.6 ms)"
CONFIG = "the config's errors: every command loads them, `--help` and `--version` never (project.config: 27 ms)"
OPTIONS = "a command's check options (check, fix, config): rules, explain, clean, --help, --version never"
#: `fix -` (standard input, as an editor runs it) fixes one file and writes none.
FIX_TREE = "the tree's fix run, which `fix -` never loads"
REPORT = "--report's migration report only (20 ms)"
DIFF = "--diff only (output.diff, with difflib: 3 ms after a fix)"
POOL = "a run with a process pool only"

#: (file, module it imports inside a function) -> why the import waits.
LAZY = {
    ("__init__.py", "importlib"): "the package's names load on first use: `rules` and `explain` need no API",
    ("api.py", "mcp_migrate.rules"): RULES,
    ("api.py", "mcp_migrate.vocabulary.wrappers"): "a rule class (the extend-apis wrappers), as above",
    ("api.py", "mcp_migrate.core.engine"): LIBCST,
    ("api.py", "mcp_migrate.core.screening"): SCREENS,
    ("api.py", "mcp_migrate.core.limits"): SCREENS,
    ("api.py", "mcp_migrate.vocabulary.wrappers_screen"): "the extend-apis wrappers' screens, as above",
    ("api.py", "mcp_migrate.core.fix.loop"): LIBCST,
    ("commands/check.py", "mcp_migrate.project.baseline"): "--baseline and --write-baseline only (9 ms)",
    ("commands/check.py", "mcp_migrate.output.migration"): REPORT,
    ("commands/check.py", "mcp_migrate.run.add_noqa"): "--add-noqa only (2 ms, with the fix loop's LibCST)",
    ("commands/cli.py", "mcp_migrate.project.selection"): "a value of --select or --ignore only: `--help` and"
    " `--version` never (3.5 ms)",
    ("commands/cli.py", "mcp_migrate.project.config"): CONFIG,
    ("commands/cli.py", "mcp_migrate.project.discovery"): CONFIG + "; discovery's: 18 ms",
    ("commands/cli.py", "mcp_migrate.project.overrides"): OPTIONS + " (overrides: 17 ms)",
    ("commands/cli.py", "mcp_migrate.run.records"): OPTIONS + " (records: 11 ms)",
    ("commands/cli.py", "mcp_migrate.commands.timing"): "-v's timings, for check and fix: rules, explain,"
    " config, clean never (1.2 ms; with `signal`, lifted since every command needs it, over 2 ms for --version)",
    ("commands/cli.py", "mcp_migrate.commands.check"): "the check command's run: --show-files, --fix, --diff"
    " and the other commands never load it (36 ms after --show-files' plan)",
    ("commands/cli.py", "mcp_migrate.run.plan"): "--show-files' plan: rules, explain, clean never (17 ms)",
    ("commands/cli.py", "mcp_migrate.commands.fix"): "the fix command and check --fix/--diff only (8 ms)",
    ("commands/cli.py", "mcp_migrate.commands.config"): "the config command only (8 ms)",
    ("commands/cli.py", "mcp_migrate.commands.clean"): "the clean command only (32 ms)",
    ("commands/fix.py", "mcp_migrate.commands.check"): FIX_TREE + " (17 ms)",
    ("commands/fix.py", "mcp_migrate.run.runner"): FIX_TREE + " (3 ms)",
    ("commands/fix.py", "mcp_migrate.run.proposals"): FIX_TREE + " (with report_inputs and progress: 3 ms)",
    ("commands/fix.py", "mcp_migrate.run.report_inputs"): FIX_TREE + " (with proposals and progress: 3 ms)",
    ("commands/fix.py", "mcp_migrate.output.progress"): FIX_TREE + " (with proposals and report_inputs: 3 ms)",
    ("commands/fix.py", "mcp_migrate.output.migration"): REPORT,
    ("commands/fix.py", "mcp_migrate.project.writer"): FIX_TREE + " (the writer: 7 ms)",
    ("commands/fix.py", "rich.markup"): RICH,
    ("commands/fix.py", "mcp_migrate.run.analysis"): CHECK,
    ("commands/fix.py", "mcp_migrate.output.diff"): DIFF,
    ("commands/process.py", "mcp_migrate.commands.cli"): "after gc.set_threshold: the command line's modules"
    " (click, the package) load under the process's collector thresholds, not Python's",
    ("core/catalog.py", "importlib.resources"): "a zipped install only (it loads tempfile and shutil)",
    ("core/heap.py", "ctypes"): "a huge module only (ctypes costs a small run 10 ms)",
    ("core/engine.py", "mcp_migrate.core.fix.imports"): "a run that decides fixes (previews, fix): a concise"
    " or JSON check never loads them (with core.fix.orphans: 14 ms)",
    ("core/engine.py", "mcp_migrate.core.fix.orphans"): "as core.fix.imports, above",
    ("core/engine.py", "mcp_migrate.core.fix.suggested"): "a file with a Roots finding its rule left without"
    " an edit: a tree without one never loads it (nor core.fix.apply, which it reads edits with)",
    ("core/engine.py", "mcp_migrate.core.fix.unread"): "as core.fix.suggested, above",
    ("core/engine.py", "mcp_migrate.core.fix.suggested_tests"): "as core.fix.suggested, above",
    ("core/engine.py", "mcp_migrate.core.fix.hollowed"): "as core.fix.suggested, above",
    ("core/engine.py", "mcp_migrate.core.fix.kept_working"): "as core.fix.suggested, above",
    ("core/engine.py", "mcp_migrate.core.fix.accept_deprecation"): "as core.fix.suggested, above",
    ("core/engine.py", "mcp_migrate.core.fix.carried"): "a file with a finding left without an edit beside"
    " one with an edit: a tree without one never loads it",
    ("core/engine.py", "mcp_migrate.core.fix.edits"): "as core.fix.carried, above",
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
    ("run/analysis.py", "mcp_migrate.core.fix.loop"): LIBCST,
    ("run/analysis.py", "mcp_migrate.output.full"): "the fix previews' hunks (full and SARIF): a concise check"
    " never loads it (4 ms)",
    ("run/cached.py", "mcp_migrate.project.cache"): "the results cache: a --no-cache run never loads it (25 ms)",
    ("run/runner.py", "mcp_migrate.project.cache"): "the cache of fix's unchanged outcomes: --no-cache never loads it",
    ("run/coordination.py", "mcp_migrate.run.analysis"): CHECK,
    ("run/coordination.py", "mcp_migrate.api"): API,
    ("run/lifeline.py", "ctypes"): POOL + ": a worker's parent-death signal (2 ms)",
    ("run/one_file.py", "mcp_migrate.core.engine"): LIBCST,
    ("run/one_file.py", "mcp_migrate.run.analysis"): CHECK,
    ("run/one_file.py", "mcp_migrate.project.writer"): "a fix worker's snapshot: planning (config, --show-files)"
    " and `fix -` never load the writer (7 ms)",
    ("run/plan.py", "mcp_migrate.run.applicability"): "the config's fix policy: the config command plans"
    " without it (2.4 ms)",
    ("run/board.py", "multiprocessing"): POOL + ": the board is made with the pool",
    ("run/pool.py", "multiprocessing"): POOL + " (6 ms)",
    ("run/pool.py", "concurrent.futures"): POOL + " (with concurrent.futures.process: 16 ms)",
    ("run/pool.py", "concurrent.futures.process"): POOL + ", as concurrent.futures",
    ("run/pool.py", "mcp_migrate.core.engine"): LIBCST,
    ("core/fix/layout.py", "configparser"): "an INI file's pytest settings (pytest.ini, tox.ini, setup.cfg) only:"
    " 8 M instructions of a check with fix previews",
    ("run/pool.py", "mcp_migrate.run.board"): POOL + " (with pickle: 7 M instructions of a check without one)",
    ("run/proposals.py", "mcp_migrate.run.analysis"): CHECK,
    ("run/proposals.py", "mcp_migrate.api"): API,
    ("run/report_inputs.py", "mcp_migrate.output.migration"): REPORT,
    ("run/report_inputs.py", "mcp_migrate.run.analysis"): CHECK,
    ("run/schedule.py", "mcp_migrate.api"): API,
    ("run/schedule.py", "mcp_migrate.run.analysis"): CHECK,
    ("run/stdin.py", "mcp_migrate.run.analysis"): CHECK,
}


def lazy_imports() -> set:
    """(file, module) for every import inside a function of the package."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import):
                        found.update((name, alias.name) for alias in inner.names)
                    elif isinstance(inner, ast.ImportFrom) and inner.module:
                        found.update((name, _imported(inner.module, alias.name)) for alias in inner.names)
    return found


def _imported(module: str, name: str) -> str:
    """The module `from module import name` loads: the package's submodule `name` when there is
    one (`from mcp_migrate.run import analysis` is run.analysis), else `module`."""
    path = PACKAGE.parent / module.replace(".", "/") / name
    return f"{module}.{name}" if path.with_suffix(".py").is_file() or path.is_dir() else module


def test_every_lazy_import_says_what_it_buys():
    unexplained = sorted(lazy_imports() - set(LAZY))
    assert not unexplained, "lift these to the top of their module, or say why they wait:\n" + "\n".join(
        f"{file}: {module}" for file, module in unexplained
    )


def test_no_reason_outlives_its_import():
    assert not sorted(set(LAZY) - lazy_imports())
