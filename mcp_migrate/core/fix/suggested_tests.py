"""Suggested edits in test code (issue 36 §4: "tests move with the code they test"): a test of
the Roots behaviour goes whole, call and assertions together; a test of something else loses only
the roots it passes along (a keyword, an entry); helpers, fixtures and module-level code that
other tests use get nothing. core.fix.suggested writes the removals themselves."""

from __future__ import annotations

from pathlib import PurePosixPath

import libcst as cst

from mcp_migrate.core.fix.edits import Fix, RemoveArg, RemoveElement, RemoveStatement
from mcp_migrate.core.fix.suggested import Candidate
from mcp_migrate.core.identifiers import words
from mcp_migrate.core.syntax import ancestry, iter_nodes

#: Said before the help of a finding in a test of the Roots behaviour: its edit removes the test.
SUGGESTED_TEST_REMOVAL = (
    "a suggested removal of this test of the Roots behaviour (`fix --apply-suggestions` applies it):"
    " the test goes with what it tests; where that code keeps its Roots behaviour, keep the test"
)


def test_removal(node: cst.CSTNode, parents: dict, path: str) -> tuple | None:
    """What a finding in test code may be given: None outside a collected test (a helper, a
    fixture, module level: other tests use them); ("test", Fix, note) removing the whole test
    when it is a test of the Roots behaviour; ("plumbing", the test) when the test checks
    something else and only passes roots along.

    A test's own Roots code (a provider it passes, a request it builds, a capability it
    asserts) is what it hands or checks of the code under test: cutting it and keeping the
    assertions that read roots is no update (issue 36 §4), so such a test goes whole, call and
    assertions together. A test is of the Roots behaviour when its author says so (the
    function, its `Test*` class or its module is named for roots: `test_list_roots`,
    `TestRootsCapability`, `test_roots.py`) or when what it asserts reads roots (an `assert`
    or an `assert*` call naming roots or `listChanged`). In any other test the roots it passes
    along are plumbing, and their removal leaves what it checks unchanged."""
    chain = ancestry(node, parents)
    test = _collected_test(chain)
    if test is None:
        return None
    function, owner = test
    named = [function.name.value, PurePosixPath(path.replace("\\", "/")).stem]
    if owner is not None:
        named.append(owner.name.value)
    if any(_says_roots(name) for name in named) or _asserts_roots(function):
        return "test", Fix((RemoveStatement(function),), display=True), SUGGESTED_TEST_REMOVAL
    return "plumbing", function


def plumbing_only(found: Candidate | None) -> Candidate | None:
    """In a test of something else: only what passes roots along, a keyword (`roots=`,
    `list_roots_callback=`) or an entry (`"roots": {...}`). Not a statement (a send or a
    registration may be what the test's assertions count), a probe's `if`, a definition or a
    deprecation (a test's helpers are other tests' too)."""
    if found is None or found.binds is not None or found.alone is not None or found.imports:
        return None
    return found if isinstance(found.edit, (RemoveArg, RemoveElement)) else None


def _says_roots(text: str) -> bool:
    return bool({"root", "roots"} & set(words(text))) or text.replace("_", "").lower() == "listchanged"


def _asserts_roots(function: cst.FunctionDef) -> bool:
    """An `assert`, or a call of an `assert*` method (`self.assertEqual`, a mock's
    `assert_called_with`), in `function` that names roots: a name, an attribute or a string."""
    for node in iter_nodes(function.body):
        checked: cst.CSTNode | None = None
        if isinstance(node, cst.Assert):
            checked = node
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            checked = node if node.func.attr.value.startswith("assert") else None
        if checked is None:
            continue
        for inner in iter_nodes(checked):
            if isinstance(inner, cst.Name) and _says_roots(inner.value):
                return True
            if isinstance(inner, cst.SimpleString) and any(_says_roots(w) for w in inner.value.strip("\"'").split("/")):
                return True
    return False


def _collected_test(chain: list) -> tuple | None:
    """(the test function, its `Test*` class or None) a node in `chain` (outermost first) sits
    in, as pytest and unittest collect them: a module-level `test*` function or a `test*`
    method of a module-level `Test*` class."""
    for j, outer in enumerate(chain):
        if not isinstance(outer, cst.FunctionDef) or not outer.name.value.startswith("test"):
            continue
        if j == 1 and isinstance(chain[0], cst.Module):
            return outer, None
        if j == 3 and isinstance(chain[0], cst.Module) and isinstance(chain[1], cst.ClassDef):
            owner = chain[1]
            return (outer, owner) if owner.name.value.startswith("Test") else None
        return None
    return None
