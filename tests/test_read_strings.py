"""core.fix.read_strings reads each top-level statement once and adds the answers up; the sum
must be what one walk of the whole module concludes. The oracle below is that walk (the
module's reading before the answers were split by statement), asked on every fixture and on
shapes that put the deciding parts in different statements."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from mcp_migrate.core.fix import read_strings
from mcp_migrate.core.fix.shared_statements import statements_shared
from mcp_migrate.core.walk import children

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _whole_module_reading(module: cst.Module, words: set) -> bool:
    hint_calls = set(read_strings._HINT_CALLS)
    exports = False
    stack: list = [(module, False, ())]
    strings: list = []
    while stack:
        node, hinted, calls = stack.pop()
        kind = type(node)
        if kind is cst.Name and node.value == "__all__":
            exports = True
        elif kind is cst.ImportAlias and read_strings._last_name(node.name) in read_strings._HINT_CALLS:
            if node.asname is not None and isinstance(node.asname.name, cst.Name):
                hint_calls.add(node.asname.name.value)
        elif kind is cst.SimpleString or kind is cst.FormattedStringText:
            if any(word in node.value for word in words):
                strings.append((hinted, calls))
        if kind is cst.Annotation or kind is cst.Subscript:
            hinted = True
        elif kind is cst.Call:
            calls = (*calls, read_strings._last_name(node.func))
        stack.extend((child, hinted, calls) for child in children(node))
    return any(exports or hinted or not hint_calls.isdisjoint(calls) for hinted, calls in strings)


def _words_in(module: cst.Module) -> set:
    """The module's names and the words of its strings: what an orphaned import may be called."""
    found: set = set()
    stack: list = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        elif isinstance(node, (cst.SimpleString, cst.FormattedStringText)):
            found.update(re.findall(r"[A-Za-z_]\w+", node.value))
        stack.extend(children(node))
    return found


SHAPES = [
    'from typing import cast as c\n\n\ndef f():\n    return c("list[X]", 1)\n',  # alias and use apart
    'def f():\n    return c("list[X]", 1)\n\n\nfrom typing import cast as c\n',  # alias after the use
    'log("X")\n\n\n__all__ = ["f"]\n',  # exports make an earlier string count
    'T = Optional["X"]\n',
    'def f(v: "X") -> None:\n    log("X")\n',
    'x = [g(h("X")), "Y"]\n',
    'import typing as t\nV = t.TypeVar("V", bound="X")\n',
    '"""X."""\nfrom a import X\n',
]


@pytest.mark.parametrize("source", SHAPES)
def test_the_statement_wise_reading_equals_one_walk_of_the_module_on_shapes(source):
    module = cst.parse_module(source)
    for words in ({"X"}, {"Y"}, {"X", "Y"}, {"Z"}):
        assert read_strings.read_string_mentions(module, words) == _whole_module_reading(module, words), words


def test_the_statement_wise_reading_equals_one_walk_of_the_module_on_every_fixture():
    checked = said = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except Exception:
            continue
        names = sorted(_words_in(module))
        with statements_shared():  # as the previews ask it: each statement's facts kept
            for words in [{name} for name in names[:: max(1, len(names) // 12)]] + [set(names[:5])]:
                expected = _whole_module_reading(module, words)
                assert read_strings.read_string_mentions(module, words) == expected, (path, words)
                checked += 1
                said += expected
    assert checked > 2000 and said > 20  # annotations and `__all__` are rare here: SHAPES has more


def test_the_facts_name_the_imports_a_plain_removal_cannot_edit():
    module = cst.parse_module(
        "import os\nimport a, b\nx = 1; import c\n\n\ndef f[T]():\n    import d\n\n\nclass K:\n    from e import g\n"
    )
    facts = read_strings.module_facts(module)
    nested = [cst.Module([]).code_for_node(node) for fact in facts for node in fact.nested_imports]
    assert nested == ["import c"]
    lines = [cst.Module([]).code_for_node(line) for fact in facts for line in fact.nested_lines]
    assert lines == ["import d\n", "from e import g\n"]
    assert [fact.generic for fact in facts] == [False, False, False, True, False]
