"""Hidden inputs made visible (issue 34 §4): what a check learns from the project's other files
(a helper module one import away, a folder's listing, a module's Roots evidence) is kept in the
project view `Settings.view` carries (core/project_view.py), never in a process-wide cache. Two
project trees checked in one process, one after the other at the same place (an editor after a
branch switch, a reused CI workspace), each get their own answers; and no module of the package
keeps mutable state but the few listed here, each with why it reads no project file."""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

from mcp_migrate.api import check_source, default_settings

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"

SERVER = """
from mcp.server.fastmcp import Context, FastMCP

from app.helpers import get_dirs

app = FastMCP("files")


@app.tool()
async def where(ctx: Context) -> str:
    return ", ".join(await get_dirs(ctx))
"""
HELPERS = """
from mcp.server.fastmcp import Context


async def get_dirs(ctx: Context) -> list:
    return [str(r.uri) for r in await ctx.list_roots()]
"""
CLIENT = """
from app.protocol import Message


class Peer:
    def __init__(self) -> None:
        self._roots = []

    def set_roots(self, items) -> None:
        self._roots = list(items)
"""
PROTOCOL_PLAIN = """
class Message:
    pass
"""
PROTOCOL_ROOTS = """
class Message:
    method = "roots/list"
"""


def _tree(root: Path, files: dict) -> None:
    """The project at `root` replaced by `files` (names in its `app` package)."""
    if root.exists():
        shutil.rmtree(root)
    (root / "app").mkdir(parents=True)
    for name, text in files.items():
        (root / "app" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def _findings(path: Path, settings=None) -> list:
    return [
        f"{f.line}:{f.column} {f.code} {f.message}"
        for f in check_source(path.read_text(), str(path), settings=settings)
    ]


HELPER_CALL = "10:28 RT001 runs `app.helpers.get_dirs`, a helper of this project that asks for roots"
SETTER = "8:9 RT002 `set_roots` hands roots to this project's client, deprecated by SEP-2577"


def test_a_tree_replaced_in_place_gets_its_own_helper_modules(tmp_path):
    """The first tree has no `app/helpers.py`, the second has one that asks for roots: the
    second's caller is a helper's call site (a folder listing kept for the process said the
    module did not exist)."""
    root = tmp_path / "project"
    _tree(root, {"__init__.py": "", "server.py": SERVER})
    assert _findings(root / "app" / "server.py") == []
    _tree(root, {"__init__.py": "", "server.py": SERVER, "helpers.py": HELPERS})
    assert _findings(root / "app" / "server.py") == [HELPER_CALL]


def test_a_tree_replaced_in_place_gets_its_own_module_evidence(tmp_path):
    """`app.protocol` speaks the Roots wire in the second tree only: there the client's setter
    is Roots code (a module's evidence kept for the process by its path said it was not)."""
    root = tmp_path / "project"
    _tree(root, {"__init__.py": "", "client.py": CLIENT, "protocol.py": PROTOCOL_PLAIN})
    assert _findings(root / "app" / "client.py") == []
    _tree(root, {"__init__.py": "", "client.py": CLIENT, "protocol.py": PROTOCOL_ROOTS})
    assert _findings(root / "app" / "client.py") == [SETTER]


def test_a_view_keeps_its_answers_for_its_life_and_another_view_reads_afresh(tmp_path):
    """One view is one run's project: it keeps the folder listing it took (a run does not see
    a module appear under it), a new view sees the tree as it is now."""
    from mcp_migrate.core.project_view import ProjectView

    root = tmp_path / "project"
    _tree(root, {"__init__.py": "", "server.py": SERVER})
    run = default_settings(view=ProjectView())
    assert _findings(root / "app" / "server.py", run) == []
    (root / "app" / "helpers.py").write_text(textwrap.dedent(HELPERS).lstrip(), encoding="utf-8")
    assert _findings(root / "app" / "server.py", run) == []
    assert _findings(root / "app" / "server.py", default_settings(view=ProjectView())) == [HELPER_CALL]


def test_the_files_consulted_go_with_the_result(tmp_path):
    from mcp_migrate.api import check_bytes

    root = tmp_path / "project"
    _tree(root, {"__init__.py": "", "server.py": SERVER, "helpers.py": HELPERS})
    server = root / "app" / "server.py"
    result = check_bytes(server.read_bytes(), str(server))
    helpers = root / "app" / "helpers.py"
    stat = helpers.stat()
    assert (str(helpers), stat.st_size, stat.st_mtime_ns) in result.depends


def test_a_view_crosses_to_a_worker_empty():
    import pickle

    from mcp_migrate.core.project_view import ProjectView

    view = ProjectView()
    view.table("folder entries")["/x"] = frozenset({"y"})
    settings = default_settings(view=view)
    again = pickle.loads(pickle.dumps(settings))
    assert again == settings
    assert again.view is not view and again.view.table("folder entries") == {}


# ----- no hidden state -----------------------------------------------------------------------

#: Why each piece of mutable state the package keeps at module or class level reads no project
#: file: a cache of a pure function of constants (the package's own code and data, a codec, a
#: node class), or bookkeeping of the process (its workers, the files it wrote). Keyed by the
#: module's last name (a package's own name for its `__init__`) and the name, so that a module
#: moved to another folder keeps its entry.
CONSTANT = "a constant table, never written"
ALLOWED = {
    "mcp_migrate._LAZY": CONSTANT,
    "api.rule_classes()": "the rule classes of a selection: the package's own code",
    "api.screen_classes()": "the rules' screen classes of a selection: the package's own code",
    "api._COMPLETED": "Settings without a project view -> with their rule classes (a view's own are kept in it)",
    "rules.all_rules()": "the registry of rule classes: the package's own code",
    "rules.all_screens()": "the registry of the rules' screens: the package's own code",
    "gates.GATES": CONSTANT,
    "gates.gate_tokens()": "the joined gate of a selection: constants",
    "gates.roots_migration()": "the catalog's Roots rules (a page's `side`): constants",
    "gates._LAST_HELD": "the last bytes and gate asked about and the answer: a function of those",
    "byte_code._HELD": "the last bytes the byte screens asked about and which tokens they hold: a function of those",
    "byte_code._WORD_OF": "the roots word each screen token holds: a function of the package's own tokens",
    "ha001_screen.HINTS": CONSTANT,
    "ha001_annotation_trust.DEFAULTS": CONSTANT,
    "schedule.SCREENED_WORKERS": "how many processes the last check used, for `-v`",
    "pool._state": "a pool worker's shared progress array",
    "pool._shared": "a pool worker's lock and barrier for claiming the files of the checks again",
    "pool._CHECKED_BY": "which worker of the run's kept pool checked each file (paths to pids, cleared"
    " with the kept pool): where its check again goes",
    "pool._view": "a pool worker's project view, made by its initializer: the worker lives for one run's pool",
    "pool._exchange": "a pool worker's side of its pool's board (run.board): shared memory of one pool's"
    " workers, made before their fork, which its view reads and posts to",
    "parser_handover._asker": "a pool worker's question whether to hand a file over, set while it runs one batch",
    "pool._KEEP": "whether the run keeps its pool for its checks again, and that pool (processes, not"
    " project facts): set and emptied by `kept_pool` around one run's checks",
    "pool._parent_view": "the run's own view, held only while its pool forks and runs (a forked worker starts"
    " from a copy of it) and let go when the pool ends",
    "catalog.load_catalog()": "the package's own rules/*.md",
    "deep._WORKER": "the deep-stack thread",
    "heap._trim": "glibc's malloc_trim, looked up once: the C library's",
    "screening._joined_gate()": "the joined gate of rule or screen classes and a selection: constants",
    "limits._ascii_compatible()": "a codec's property",
    "import_block._import_statement()": "an import statement parsed from its text",
    "imports._top_level_remover()": "a LibCST helper class, built once",
    "shared_statements._SCOPES": "the open scopes of one file's previews (its own tree), emptied on close",
    "nesting._LEVEL": CONSTANT,
    "nesting._STRING_ENDS": "patterns per string prefix and quote: constants",
    "nesting._FSTRING_TEXT": "patterns per string prefix and quote: constants",
    "ast_nodes._PLANS": "per `ast` node class: the standard library's classes",
    "ast_nodes._SPLIT_PLANS": "per `ast` node class: the standard library's classes",
    "syntax._PARENT_MAPS": "the last few parent maps of the tree under work (the file's own code)",
    "sdk._MCP_FILE_LAST": "the last bytes asked about and the answer: a function of those bytes",
    "sdk._MENTIONS_LAST": "the last bytes asked about and the answer: a function of those bytes",
    "sdk_api._API": "the package's own sdk_api.json, read on the first question",
    "toml_files._PARSED": "parsed TOML by its text: a function of the text, wherever it was read",
    "walk._SOURCE_ORDER": CONSTANT,
    "walk._FIELDS": "per LibCST node class: LibCST's classes",
    "diff._ESCAPES": CONSTANT,
    "github.LEVELS": CONSTANT,
    "gitlab.SEVERITIES": CONSTANT,
    "migration.TABLE_HEAD": CONSTANT,
    "sarif.LEVELS": CONSTANT,
    "cache.tool_fingerprint()": "the package's own files",
    "cache_key.load_key()": "the user's private key, outside every project",
    "cache_removal._MARKERS": CONSTANT,
    "exchange._UNSUPPORTED": "the file systems that refused renameat2 in this process",
    "exchange._call": "the platform's renameat2, looked up once",
    "writer._swept": "temporary files this process wrote, removed at its exit",
    "writer._live": "temporary files this process wrote, removed at its exit",
    "consumers._URI_EXPECTED": CONSTANT,
    "strategies.STRATEGY_CLASSES": CONSTANT,
}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "WeakKeyDictionary"}
_MUTATORS = {
    "append",
    "extend",
    "update",
    "add",
    "setdefault",
    "clear",
    "pop",
    "popitem",
    "insert",
    "remove",
    "discard",
}


def _container(value) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        return (getattr(value.func, "id", None) or getattr(value.func, "attr", None)) in _CONTAINERS
    return False


def _caches(decorator) -> bool:
    """`@cache`, `@lru_cache(...)`, `@functools.lru_cache(...)`."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (getattr(target, "id", None) or getattr(target, "attr", None)) in ("cache", "lru_cache")


def _bound(node) -> list:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _written(tree) -> set:
    """Names the module writes into or rebinds from a function (`x[k] = v`, `x.append(v)`,
    `global x`)."""
    written = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            written.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            for target in node.targets if not isinstance(node, ast.AugAssign) else [node.target]:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    written.add(target.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
            if isinstance(node.func.value, ast.Name):
                written.add(node.func.value.id)
    return written


def _state(path: Path) -> tuple:
    """(every piece of module- or class-level state the module keeps, the names it writes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = path.parent.name if path.name == "__init__.py" else path.stem
    written = _written(tree)
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    # A class attribute set from code (`Keeper.busy = True`): state shared by every instance.
    found = sorted(
        {
            f"{module}.{target.value.id}.{target.attr}"
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AugAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in classes
        }
    )
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for name in _bound(node):
                if _container(node.value) or name in written:
                    found.append(f"{module}.{name}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_caches, node.decorator_list)):
            found.append(f"{module}.{node.name}()")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None and _container(item.value):
                    # A rule's VALID/INVALID examples are constants by the contract (core/rule.py).
                    found.extend(f"{module}.{node.name}.{name}" for name in _bound(item) if not name.isupper())
                elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    map(_caches, item.decorator_list)
                ):
                    found.append(f"{module}.{node.name}.{item.name}()")
    return found, written


def test_no_module_keeps_state_read_from_a_project():
    """Every cache or piece of state at module or class level is one of ALLOWED (none holds a
    project file's bytes, stamps or what was worked out from them: those live in the project
    view), and an entry allowed as a constant table is never written."""
    unexplained, written_constants = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        found, written = _state(path)
        for key in found:
            if key not in ALLOWED:
                unexplained.append(f"{path.relative_to(PACKAGE.parent)}: {key}")
            elif ALLOWED[key] == CONSTANT and key.rpartition(".")[2] in written:
                written_constants.append(f"{path.relative_to(PACKAGE.parent)}: {key}")
    assert unexplained == [], "state a project view should hold (core/project_view.py), or explain it in ALLOWED"
    assert written_constants == []


def test_the_state_finder_finds_what_a_cache_looks_like(tmp_path):
    """The finder itself: a module dict filled by a function, a class's dict or attribute set
    from code, an lru_cache, a global rebound; and not a constant written nowhere or a
    function's own dict."""
    module = tmp_path / "sample.py"
    module.write_text(
        textwrap.dedent(
            """
            import functools
            from functools import lru_cache

            _SEEN: dict = {}
            TABLE = {"a": 1}
            _handle = None


            class Keeper:
                _cache: dict = {}
                VALID = []


            @lru_cache(maxsize=8)
            def one(path):
                return open(path).read()


            @functools.cache
            def two(x):
                return x


            def remember(path, data):
                global _handle
                Keeper.busy = True
                _handle = path
                local = {}
                local[path] = data
                _SEEN[path] = data
            """
        ),
        encoding="utf-8",
    )
    found, written = _state(module)
    assert sorted(found) == [
        "sample.Keeper._cache",
        "sample.Keeper.busy",
        "sample.TABLE",
        "sample._SEEN",
        "sample._handle",
        "sample.one()",
        "sample.two()",
    ]
    assert "TABLE" not in written and "_SEEN" in written


def test_the_engine_reaches_other_files_only_through_the_view():
    """The engine and the rules (core/, checks/, rewrites/) open, stat or list another file only
    in the project view and the modules that take it (core.modules, checks.imported_asks,
    checks.wrappers, core.sdk, core.fix.layout), or the package's own data (core.catalog, the SDK
    API's data file read by core.sdk_api)."""
    readers = {"open", "stat", "listdir", "scandir", "isfile", "exists", "read_bytes", "read_text", "is_file"}
    allowed = {
        "core/project_view.py",
        "core/dependencies.py",
        "core/modules.py",
        "core/sdk.py",
        "core/catalog.py",
        "core/sdk_api.py",
        "core/fix/layout.py",
        "checks/imported_asks.py",
        "checks/wrappers.py",
    }
    reading = set()
    for floor in ("core", "checks", "rewrites"):
        for path in sorted((PACKAGE / floor).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if name in readers:
                        reading.add(path.relative_to(PACKAGE).as_posix())
    assert reading - allowed == set()


def test_set_roots_of_a_project_class_the_file_imports_is_no_fastmcp_client(tmp_path, monkeypatch):
    """Jedi-Py-MCP (session 50's first look): `multi_ctx.registry.set_roots(paths)` in a server
    that imports fastmcp, on the project's own `WorkspaceRegistry.set_roots`, defined in a module
    the server imports. Read through the project, it is no fastmcp client's roots; without that
    module the untyped receiver still counts as one."""
    import json

    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "registry.py").write_text(
        "class WorkspaceRegistry:\n    async def set_roots(self, roots):\n        self.roots = roots\n"
    )
    (tmp_path / "pkg" / "server.py").write_text(
        "import fastmcp\n\nfrom pkg.registry import WorkspaceRegistry\n\n\n"
        "async def share(multi_ctx, paths):\n    await multi_ctx.registry.set_roots(paths)\n"
    )

    def codes() -> list:
        out = CliRunner().invoke(cli, ["check", "--exit-zero", "--no-cache", "--output-format", "json", "pkg"])
        return [(f["path"], f["line"], f["code"]) for f in json.loads(out.stdout)["findings"]]

    assert codes() == []
    (tmp_path / "pkg" / "registry.py").write_text("class WorkspaceRegistry:\n    pass\n")
    assert codes() == [("pkg/server.py", 7, "RT002")]
