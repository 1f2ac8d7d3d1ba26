"""The Python floor the project declares is the one its code keeps: `requires-python` and ruff's
`target-version` say 3.10 (every MCP SDK needs 3.10), every module parses with 3.10's grammar, and
no module uses a standard-library name added after 3.10 unless a version check or an ImportError
guard keeps it from 3.10.

CI runs one interpreter, usually newer than the floor, so the names are checked against
`NEWER_THAN_FLOOR`, a checked-in list of what the standard library gained after 3.10 in the
modules the package uses (and a few it could reach for). Where a real 3.10 interpreter is at hand
(`MCP_MIGRATE_FLOOR_PYTHON=/path/to/python3.10`, or `python3.10` on PATH), the last tests also
compile every module with it and prove each listed name is missing there."""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "mcp_migrate"
FLOOR = (3, 10)

# Standard-library names added after the floor, each with the version that added it (read from
# "What's New" and checked against real 3.10 and 3.13 interpreters). Instance methods
# (`BaseException.add_note`) cannot be seen without types and are not listed.
NEWER_THAN_FLOOR: dict[str, tuple[int, int]] = {
    # modules
    "tomllib": (3, 11),
    "wsgiref.types": (3, 11),
    # ast
    "ast.TryStar": (3, 11),
    "ast.TypeAlias": (3, 12),
    "ast.TypeVar": (3, 12),
    "ast.ParamSpec": (3, 12),
    "ast.TypeVarTuple": (3, 12),
    "ast.PyCF_OPTIMIZED_AST": (3, 13),
    # sys
    "sys.exception": (3, 11),
    "sys.monitoring": (3, 12),
    "sys.activate_stack_trampoline": (3, 12),
    "sys.deactivate_stack_trampoline": (3, 12),
    "sys.is_stack_trampoline_active": (3, 12),
    "sys._is_gil_enabled": (3, 13),
    # typing
    "typing.Self": (3, 11),
    "typing.LiteralString": (3, 11),
    "typing.Never": (3, 11),
    "typing.assert_never": (3, 11),
    "typing.assert_type": (3, 11),
    "typing.reveal_type": (3, 11),
    "typing.Required": (3, 11),
    "typing.NotRequired": (3, 11),
    "typing.TypeVarTuple": (3, 11),
    "typing.Unpack": (3, 11),
    "typing.dataclass_transform": (3, 11),
    "typing.get_overloads": (3, 11),
    "typing.clear_overloads": (3, 11),
    "typing.override": (3, 12),
    "typing.TypeAliasType": (3, 12),
    "typing.get_protocol_members": (3, 13),
    "typing.is_protocol": (3, 13),
    "typing.ReadOnly": (3, 13),
    "typing.TypeIs": (3, 13),
    "typing.NoDefault": (3, 13),
    # builtins (bare names)
    "builtins.ExceptionGroup": (3, 11),
    "builtins.BaseExceptionGroup": (3, 11),
    "builtins.PythonFinalizationError": (3, 13),
    # the rest of the standard library the package uses or is near
    "asyncio.TaskGroup": (3, 11),
    "asyncio.timeout": (3, 11),
    "asyncio.timeout_at": (3, 11),
    "asyncio.Runner": (3, 11),
    "asyncio.Barrier": (3, 11),
    "collections.abc.Buffer": (3, 12),
    "contextlib.chdir": (3, 11),
    "copy.replace": (3, 13),
    "datetime.UTC": (3, 11),
    "enum.StrEnum": (3, 11),
    "enum.ReprEnum": (3, 11),
    "enum.verify": (3, 11),
    "enum.member": (3, 11),
    "enum.nonmember": (3, 11),
    "enum.global_enum": (3, 11),
    "hashlib.file_digest": (3, 11),
    "inspect.getmembers_static": (3, 11),
    "inspect.markcoroutinefunction": (3, 12),
    "itertools.batched": (3, 12),
    "logging.getLevelNamesMapping": (3, 11),
    "logging.getHandlerByName": (3, 12),
    "math.cbrt": (3, 11),
    "math.exp2": (3, 11),
    "operator.call": (3, 11),
    "os.path.splitroot": (3, 12),
    "os.path.isjunction": (3, 12),
    "os.process_cpu_count": (3, 13),
    "pathlib.Path.walk": (3, 12),
    "pathlib.Path.is_junction": (3, 12),
    "pathlib.Path.from_uri": (3, 13),
    "pathlib.UnsupportedOperation": (3, 13),
    "queue.ShutDown": (3, 13),
    "re.NOFLAG": (3, 11),
    "threading.setprofile_all_threads": (3, 12),
    "threading.settrace_all_threads": (3, 12),
    "tokenize.FSTRING_START": (3, 12),
    "tokenize.FSTRING_MIDDLE": (3, 12),
    "tokenize.FSTRING_END": (3, 12),
    "types.get_original_bases": (3, 12),
    "warnings.deprecated": (3, 13),
}
GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def version_checked(test: ast.expr) -> tuple[tuple[int, int], bool] | None:
    """`sys.version_info >= (3, N)` (or `> (3, N - 1)`) gives ((3, N), True): its body runs on 3.N
    and later only; `sys.version_info < (3, N)` gives ((3, N), False): its `else` does."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Tuple)):
        return None
    left = test.left
    if not (isinstance(left, ast.Attribute) and left.attr == "version_info" and ast.unparse(left.value) == "sys"):
        return None
    try:
        version = tuple(ast.literal_eval(test.comparators[0]))[:2]
    except ValueError:
        return None
    op = test.ops[0]
    if isinstance(op, ast.GtE):
        return version, True
    if isinstance(op, ast.Gt):
        return (version[0], version[1] + 1), True
    if isinstance(op, ast.Lt):
        return version, False
    return None


def catches_import_errors(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(name, ast.Name) and name.id in GUARD_EXCEPTIONS for name in names)


def uses_newer_than_floor(source: str) -> list[str]:
    """`line: name (3.N)` for each use of a name in NEWER_THAN_FLOOR that 3.10 can reach: imports,
    attribute chains on an imported name (aliases followed), builtins by bare name. A use under
    `if sys.version_info >= (3, N):` for N at or past the name's version, or in a `try:` that
    catches ImportError or AttributeError, is guarded."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found: list[str] = []

    def report(node: ast.AST, name: str, guard: tuple[int, int]) -> None:
        added = NEWER_THAN_FLOOR.get(name)
        if added and guard < added:
            found.append(f"{node.lineno}: {name} ({added[0]}.{added[1]})")

    def qualified(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return aliases.get(node.id, f"builtins.{node.id}")
        if isinstance(node, ast.Attribute):
            base = qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def visit(node: ast.AST, guard: tuple[int, int]) -> None:
        if isinstance(node, ast.If) and (checked := version_checked(node.test)):
            version, body_is_newer = checked
            visit(node.test, guard)
            for child in node.body:
                visit(child, max(guard, version) if body_is_newer else guard)
            for child in node.orelse:
                visit(child, guard if body_is_newer else max(guard, version))
            return
        if isinstance(node, ast.Try) and any(catches_import_errors(h) for h in node.handlers):
            for child in node.body:
                visit(child, (99, 0))
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, guard)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                for end in range(1, len(parts) + 1):
                    report(node, ".".join(parts[:end]), guard)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            report(node, node.module, guard)
            for alias in node.names:
                report(node, f"{node.module}.{alias.name}", guard)
        elif isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            name = qualified(node)
            if name:
                report(node, name, guard)
        for child in ast.iter_child_nodes(node):
            visit(child, guard)

    visit(tree, FLOOR)
    return sorted(set(found), key=lambda line: (int(line.split(":")[0]), line))


def test_requires_python_and_ruff_target_say_the_floor():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["requires-python"] == f">={FLOOR[0]}.{FLOOR[1]}"
    assert pyproject["tool"]["ruff"]["target-version"] == f"py{FLOOR[0]}{FLOOR[1]}"
    # tomllib is 3.11's: below it the package reads TOML with tomli
    assert "tomli>=1.1; python_version < '3.11'" in pyproject["project"]["dependencies"]


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_module_parses_with_the_floors_grammar(path):
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=FLOOR)


def test_no_module_uses_a_name_newer_than_the_floor():
    found = {}
    for path in modules():
        uses = uses_newer_than_floor(path.read_text(encoding="utf-8"))
        if uses:
            found[str(path.relative_to(REPO))] = uses
    assert found == {}


def test_the_floors_grammar_refuses_newer_syntax():
    """The parse above is a real check: 3.11's `except*` does not parse at the floor."""
    source = "try:\n    pass\nexcept* ValueError:\n    pass\n"
    ast.parse(source)  # the running interpreter (3.11 or later in CI) reads it
    with pytest.raises(SyntaxError):
        ast.parse(source, feature_version=FLOOR)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import ast\nast.TryStar\n", ["2: ast.TryStar (3.11)"]),
        ("import ast as a\nisinstance(x, a.TypeAlias)\n", ["2: ast.TypeAlias (3.12)"]),
        ("import tomllib\n", ["1: tomllib (3.11)"]),
        ("from typing import Self\n", ["1: typing.Self (3.11)"]),
        ("from datetime import UTC as utc\n", ["1: datetime.UTC (3.11)"]),
        ("from pathlib import Path\nPath.walk\n", ["2: pathlib.Path.walk (3.12)"]),
        ("import os.path\nos.path.splitroot('/')\n", ["2: os.path.splitroot (3.12)"]),
        ("raise ExceptionGroup('x', [])\n", ["1: builtins.ExceptionGroup (3.11)"]),
        # guarded: the version check or the ImportError keeps 3.10 away
        ("import sys\nif sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli\n", []),
        ("import sys\nif sys.version_info < (3, 11):\n    import tomli\nelse:\n    import tomllib\n", []),
        ("try:\n    import tomllib\nexcept ModuleNotFoundError:\n    import tomli as tomllib\n", []),
        # a check for an older version does not guard a newer name
        ("import sys, ast\nif sys.version_info >= (3, 11):\n    ast.TypeAlias\n", ["3: ast.TypeAlias (3.12)"]),
        ("import ast\nast.MatchValue\nimport tomli\n", []),
    ],
)
def test_the_name_check_finds_newer_names_and_honours_guards(source, expected):
    assert uses_newer_than_floor(source) == expected


def test_the_listed_names_exist_where_the_list_says():
    """Each listed name the running interpreter should have, it has (no misspelt entry)."""
    missing = []
    for name, added in NEWER_THAN_FLOOR.items():
        if sys.version_info[:2] >= added and not resolves(name):
            missing.append(name)
    assert missing == []


def resolves(name: str) -> bool:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for attr in parts[end:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def floor_python() -> str | None:
    """A real interpreter at the floor, if one is at hand (a pyenv shim that cannot run is not)."""
    for candidate in (os.environ.get("MCP_MIGRATE_FLOOR_PYTHON"), shutil.which("python3.10")):
        if not candidate:
            continue
        done = subprocess.run(
            [candidate, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, check=False
        )
        if done.returncode == 0 and tuple(map(int, done.stdout.split())) == FLOOR:
            return candidate
    return None


@pytest.mark.skipif(floor_python() is None, reason="no Python 3.10 at hand (set MCP_MIGRATE_FLOOR_PYTHON)")
def test_a_real_floor_interpreter_compiles_every_module_and_lacks_every_listed_name():
    script = (
        "import importlib, sys\n"
        "for path in sys.argv[2:]:\n"
        "    compile(open(path, encoding='utf-8').read(), path, 'exec')\n"
        "def resolves(name):\n"
        "    parts = name.split('.')\n"
        "    for end in range(len(parts), 0, -1):\n"
        "        try:\n"
        "            obj = importlib.import_module('.'.join(parts[:end]))\n"
        "        except ImportError:\n"
        "            continue\n"
        "        for attr in parts[end:]:\n"
        "            if not hasattr(obj, attr):\n"
        "                return False\n"
        "            obj = getattr(obj, attr)\n"
        "        return True\n"
        "    return False\n"
        "print(*[n for n in sys.argv[1].split(',') if resolves(n)])\n"
    )
    done = subprocess.run(
        [floor_python(), "-c", script, ",".join(NEWER_THAN_FLOOR), *map(str, modules())],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "\n")
