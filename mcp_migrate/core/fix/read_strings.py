"""The strings LibCST's import-removal analysis reads as code, found without it.

RemoveImportsVisitor keeps an import that a string uses only where its analysis reads the string
as code: inside an annotation or a subscript (`Optional["X"]`), as an argument of
`typing.cast`, `TypeVar` or `NewType`, or as an `__all__` entry. Every other string (a
docstring, a log message, a URL) it never reads, so it cannot keep an import alive. Telling the
two apart lets the fixer remove an orphaned import its own way (core.fix.imports) in a file whose
strings merely mention the name, without the visitor's whole-module scope analysis. It errs one
way only: a string it cannot place (any subscript, any call named like one of those functions, a
module that names `__all__`) counts as read.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.walk import children

#: The typing functions whose string arguments the analysis reads as code.
_HINT_CALLS = frozenset({"cast", "TypeVar", "NewType"})


def read_string_mentions(module: cst.Module, words: set) -> bool:
    """Whether a string the analysis reads as code mentions one of `words` (a substring, as
    the fixer asks). In a module that names `__all__`, every string counts."""
    hint_calls = set(_HINT_CALLS)  # and the names they are imported as (`cast as c`), found anywhere
    exports = False
    stack: list = [(module, False, ())]
    strings: list = []  # of each string naming a word: (in an annotation or subscript?, the calls around it)
    while stack:
        node, hinted, calls = stack.pop()
        kind = type(node)
        if kind is cst.Name and node.value == "__all__":
            exports = True
        elif kind is cst.ImportAlias and _last_name(node.name) in _HINT_CALLS and node.asname is not None:
            alias = node.asname.name
            if isinstance(alias, cst.Name):
                hint_calls.add(alias.value)
        elif kind is cst.SimpleString or kind is cst.FormattedStringText:
            if any(word in node.value for word in words):
                strings.append((hinted, calls))
        if kind is cst.Annotation or kind is cst.Subscript:
            hinted = True
        elif kind is cst.Call:
            calls = (*calls, _last_name(node.func))
        stack.extend((child, hinted, calls) for child in children(node))
    return any(exports or hinted or not hint_calls.isdisjoint(calls) for hinted, calls in strings)


def _last_name(node: cst.CSTNode) -> str:
    """`cast` for `cast`, `typing.cast` or `t.cast`; empty for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""
