"""core.lazy_regex: the package's module-level patterns compile on first use (issue 37: 68-92
compiled on import, of which a run uses 16-54), answer as the compiled pattern does, and are
used only as patterns (through their methods and `pattern`), never handed to `re` itself."""

from __future__ import annotations

import ast
import copy
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_migrate.core.lazy_regex import LazyPattern, lazy_compile

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_migrate"

CASES = [
    (r"(?P<name>[a-z]+)_roots?\b", re.IGNORECASE, "Set_Roots x list_root y ROOTS_LIST_roots"),
    (rb"from[ \t]+(\S+)[ \t]+import", 0, b"x = 1\nfrom a.b import c\nfrom  d import (e)\n"),
    (r"^\s*#", re.M, "a\n  # b\n#c"),
]
CALLS = [
    ("search", lambda p, s: p.search(s)),
    ("search with bounds", lambda p, s: p.search(s, 3, len(s) - 2)),
    ("match", lambda p, s: p.match(s)),
    ("fullmatch", lambda p, s: p.fullmatch(s)),
    ("finditer", lambda p, s: list(p.finditer(s))),
    ("findall", lambda p, s: p.findall(s)),
    ("sub", lambda p, s: p.sub(s[:1] * 2, s)),
    ("subn", lambda p, s: p.subn(s[:1], s, count=1)),
    ("split", lambda p, s: p.split(s, maxsplit=2)),
]


def _same(found, expected) -> bool:
    """Equal results, matches compared by what they matched."""
    if isinstance(expected, re.Match):
        return isinstance(found, re.Match) and (found.span(), found.groups()) == (expected.span(), expected.groups())
    if isinstance(expected, list):
        return len(found) == len(expected) and all(_same(f, e) for f, e in zip(found, expected))
    return found == expected


@pytest.mark.parametrize("source, flags, text", CASES)
@pytest.mark.parametrize("name, call", CALLS, ids=[name for name, _ in CALLS])
def test_a_lazy_pattern_answers_as_the_compiled_one_first_and_after(source, flags, text, name, call):
    compiled, lazy = re.compile(source, flags), lazy_compile(source, flags)
    assert _same(call(lazy, text), call(compiled, text)), name  # the call that compiles it
    assert _same(call(lazy, text), call(compiled, text)), name  # the compiled pattern's own method
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
        compiled.pattern,
        compiled.flags,
        compiled.groups,
        compiled.groupindex,
    )


def test_it_compiles_once_on_first_use_and_then_calls_the_compiled_method(monkeypatch):
    made = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: made.append(args) or real(*args))
    lazy = lazy_compile(rb"roots?", re.I)
    assert lazy.pattern == rb"roots?" and made == []  # its source is no use
    assert lazy.search(b"list ROOTS").group() == b"ROOTS"
    assert lazy.findall(b"root roots") == [b"root", b"roots"]
    assert made == [(rb"roots?", re.I)]
    assert lazy.search.__self__ is lazy.compiled  # no Python code between the caller and `re`
    assert lazy.compiled is lazy.compiled and len(made) == 1


def test_it_pickles_and_copies_as_its_pattern_uncompiled_or_not():
    for lazy in (lazy_compile(r"a+b", re.I), lazy_compile(rb"x(y)")):
        for state in ("uncompiled", "compiled"):
            for twin in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), copy.copy(lazy)):
                assert isinstance(twin, LazyPattern)
                assert (twin.pattern, twin.flags) == (lazy.pattern, lazy.flags), state
            lazy.compiled  # noqa: B018 - the second round: compiled


def _module_level_compiles(tree: ast.Module) -> list:
    return [
        node.lineno
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func) == "re.compile"
    ]


def test_no_module_of_the_package_compiles_a_pattern_of_its_own_at_import():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "lazy_regex.py":
            lines = _module_level_compiles(ast.parse(path.read_text(encoding="utf-8")))
            if lines:
                found[str(path.relative_to(PACKAGE))] = lines
    assert not found, f"use core.lazy_regex.lazy_compile for a module-level pattern: {found}"


def test_the_module_level_check_sees_a_module_level_compile():
    assert _module_level_compiles(
        ast.parse("import re\nA = re.compile('x')\ndef f():\n    return re.compile('y')\n")
    ) == [2]


def test_importing_every_module_compiles_none_of_their_patterns():
    """No module uses a pattern on import (which would compile it there): importing the whole
    package, rules and rewrites included, leaves each of its LazyPatterns uncompiled."""
    script = (
        "import importlib, pkgutil, mcp_migrate\n"
        "from mcp_migrate.core.lazy_regex import LazyPattern\n"
        "mods = [importlib.import_module(m.name) for m in pkgutil.walk_packages(mcp_migrate.__path__, 'mcp_migrate.')]\n"
        "lazy = [(m.__name__, n) for m in mods for n, v in vars(m).items() if isinstance(v, LazyPattern)]\n"
        "done = [(m.__name__, n) for m in mods for n, v in vars(m).items()"
        " if isinstance(v, LazyPattern) and '_compiled' in vars(v)]\n"
        "print(len(lazy), done)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split(
        " ", 1
    )
    assert int(out[0]) >= 80 and out[1].strip() == "[]", out


def test_no_lazy_pattern_is_handed_to_re_itself():
    """`re.sub(PATTERN, ...)` and its kin compile what they are given: a LazyPattern is not an
    `re.Pattern`, so a module-level pattern is used through its own methods."""
    names = set()
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))]
    for tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
                if ast.unparse(node.value.func) == "lazy_compile":
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names.update(target.id for target in targets if isinstance(target, ast.Name))
    handed = [
        ast.unparse(node)
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func).startswith("re.")
        and any(isinstance(arg, ast.Name) and arg.id in names for arg in node.args)
    ]
    assert len(names) >= 80 and not handed, handed
