"""RT103 across modules (issue 35 §4, vocabulary/gates_across.py): a decision whose boundary comes
from client roots through another module of the project is found at the caller, whatever the
project calls its classes, methods and instances; the help names where the other module checks;
the callee module is a dependency of the caller's result; a string annotation is a source only
when it is an annotation naming a roots type."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from mcp_migrate.api import check_source
from mcp_migrate.core.resolve import Resolver
from mcp_migrate.vocabulary.roots_origin import OWN, Origins

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "RT103"
GUARDS = (FIXTURES / "across_guards.py").read_text(encoding="utf-8")
CALLERS = (FIXTURES / "across_callers.py").read_text(encoding="utf-8")

#: Every project name of the two fixture modules, and another spelling of it.
RENAMES = {
    "PathGuard": "Fence",
    "GuardService": "Fences",
    "guard_for": "fence_of",
    "contains": "admits",
    "Registry": "Ledger",
    "replace": "reload",
    "validate": "vet",
    "active": "current",
    "registry": "ledger",
    "within": "inside_any",
    "across_guards": "project_fences",
}


def _findings(path: Path, source: str) -> list:
    return [(f.line, f.column, f.code, f.message, f.help) for f in check_source(source.encode(), str(path))]


def _renamed(text: str) -> str:
    return re.sub(r"\b(" + "|".join(RENAMES) + r")\b", lambda m: RENAMES[m.group(1)], text)


def test_the_caller_finds_each_decision_and_names_where_the_check_is():
    found = [f for f in _findings(FIXTURES / "across_callers.py", CALLERS) if f[2] == "RT103"]
    assert [(line, column) for line, column, *_ in found] == [(17, 16), (24, 5), (29, 12)]
    assert found[0][4].startswith(
        "the refusal is `guard.contains(path)`, and the check inside `PathGuard.contains` is reported too;"
    )
    assert found[1][4].startswith(
        "`registry.replace([str(r.uri) for...` hands them on, and `Registry.replace` checks access against"
        " them at across_guards.py:53;"
    )
    assert found[2][4].startswith(
        "the refusal is `within(path, [str(r.uri) for r in...`, and `within` checks the path against the"
        " roots handed to it at across_guards.py:64;"
    )


def test_the_same_code_under_other_names_gives_the_same_findings(tmp_path):
    (tmp_path / "project_fences.py").write_text(_renamed(GUARDS), encoding="utf-8")
    caller = tmp_path / "callers.py"
    renamed = _findings(caller, _renamed(CALLERS))
    original = _findings(FIXTURES / "across_callers.py", CALLERS)
    assert [f[:3] for f in renamed] == [f[:3] for f in original]
    assert [f[:3] for f in renamed if f[2] == "RT103"] == [(17, 16, "RT103"), (24, 5, "RT103"), (29, 12, "RT103")]


def test_without_the_other_module_the_caller_decides_nothing(tmp_path):
    """The decisions are the other module's: a caller whose import leads nowhere in the project
    (the module absent) has no RT103 finding."""
    caller = tmp_path / "callers.py"
    assert [f for f in _findings(caller, CALLERS) if f[2] == "RT103"] == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the guard checks configured directories: no roots in it
        ("def __init__(self, roots: Snapshot)", "def __init__(self, roots: list[str])"),
        # the registry's check reads the configured list only
        ("for base in self.active():", "for base in self._configured:"),
        # the gate only counts what it is given
        (
            "return any(Path(d).resolve() in Path(candidate).resolve().parents for d in dirs)",
            "return bool(dirs)",
        ),
    ],
)
def test_a_callee_that_decides_nothing_with_roots_gives_no_finding_at_its_caller(tmp_path, old, new):
    assert old in GUARDS
    (tmp_path / "across_guards.py").write_text(GUARDS.replace(old, new), encoding="utf-8")
    before = {f[:2] for f in _findings(FIXTURES / "across_callers.py", CALLERS) if f[2] == "RT103"}
    after = {f[:2] for f in _findings(tmp_path / "across_callers.py", CALLERS) if f[2] == "RT103"}
    assert len(before - after) == 1, (before, after)


def test_the_other_module_is_a_dependency_of_the_callers_result():
    from mcp_migrate.api import check_bytes

    result = check_bytes(CALLERS.encode(), str(FIXTURES / "across_callers.py"))
    assert str(FIXTURES / "across_guards.py") in {entry[0] for entry in result.depends}


@pytest.mark.parametrize(
    ("annotation", "source"),
    [
        ('"list[Root]"', True),
        ('"Snapshot"', False),
        ('Annotated[list[str], Option(help="the MCP Roots capability replaces this")]', False),
        ('Annotated[list[str], "Root directories"]', False),
    ],
)
def test_a_string_annotation_is_a_source_only_when_it_names_a_roots_type(annotation, source):
    module = cst.parse_module(f"from mcp.types import Root\n\ndef f(dirs: {annotation}):\n    return dirs\n")
    origins = Origins(module, Resolver())
    function = module.body[1]
    assert (origins.name("dirs", origins.scope_of(function)) == frozenset({OWN})) is source


#: The guards module with no roots of its own: no SDK roots type, no `list_roots` (its docstring
#: still names `Root`: the bytes let it through, its syntax does not).
GUARDS_WITHOUT_ROOTS = GUARDS.replace("from mcp import types\n", "").replace(
    "Snapshot = tuple[types.Root, ...]", "Snapshot = tuple[str, ...]"
)


#: The callers' guard test alone, in a file that lists roots but hands them to no other module.
TESTS_ONLY = (
    CALLERS[: CALLERS.index("async def refresh")].replace(", registry, within", "")
    + "async def count(ctx: Context) -> int:\n    return len((await ctx.session.list_roots()).roots)\n"
)


@pytest.mark.parametrize(("guards", "parsed"), [(GUARDS, True), (GUARDS_WITHOUT_ROOTS, False)])
def test_a_gate_module_without_roots_of_its_own_is_not_parsed_for_its_callers_test(
    tmp_path, monkeypatch, guards, parsed
):
    """`if not guard.contains(path)` asks whether `PathGuard.contains` decides against roots it
    holds itself: a module that names no roots type and never lists roots cannot, and its screens
    say so before LibCST reads it."""
    from mcp_migrate.vocabulary import file_effects

    assert "types.Root" not in GUARDS_WITHOUT_ROOTS and "list_roots" not in GUARDS_WITHOUT_ROOTS
    (tmp_path / "across_guards.py").write_text(guards, encoding="utf-8")
    read = []
    real_parse = file_effects.cst.parse_module
    monkeypatch.setattr(file_effects.cst, "parse_module", lambda data: read.append(data) or real_parse(data))
    found = {f[:3] for f in _findings(tmp_path / "across_callers.py", TESTS_ONLY) if f[2] == "RT103"}
    assert ((17, 16, "RT103") in found) is parsed
    assert (guards.encode() in read) is parsed
