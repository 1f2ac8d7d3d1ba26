"""The strings LibCST's import-removal analysis reads as code, found without it.

RemoveImportsVisitor keeps an import that a string uses only where its analysis reads the string
as code: inside an annotation or a subscript (`Optional["X"]`), as an argument of
`typing.cast`, `TypeVar` or `NewType`, or as an `__all__` entry. Every other string (a
docstring, a log message, a URL) it never reads, so it cannot keep an import alive. Telling the
two apart lets the fixer remove an orphaned import its own way (core.fix.imports) in a file whose
strings merely mention the name, without the visitor's whole-module scope analysis. It errs one
way only: a string it cannot place (any subscript, any call named like one of those functions, a
module that names `__all__`) counts as read.

What decides it adds up over the module's top-level statements, so each statement is read once
(`StatementFacts`, core.fix.shared_statements) and the previews' passes, which share most
statements, read only those they changed.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.fix.shared_statements import per_statement
from mcp_migrate.core.walk import children

#: The typing functions whose string arguments the analysis reads as code.
_HINT_CALLS = frozenset({"cast", "TypeVar", "NewType"})


class StatementFacts(NamedTuple):
    """What one top-level statement holds that the plain removal of an import depends on.
    String texts are joined with NUL, which no identifier holds, so a word found in the join
    is in one string."""

    #: It names `__all__` (then every string of the module counts as read).
    exports: bool
    #: The names a hint call is imported as (`cast as c`: `c`).
    aliases: frozenset
    #: Every string's text.
    every: str
    #: The texts of the strings inside an annotation or a subscript.
    hinted: str
    #: (the last names of the calls around them, their strings' texts) for the other strings.
    in_calls: tuple
    #: A node with type parameters (`def f[T]()`), which the plain removal does not handle.
    generic: bool
    #: The import statements below the top level or beside another small statement, but
    #: those that are a line of their own in a block (`nested_lines`).
    nested_imports: tuple
    #: The lines below the top level that hold one import and nothing else (in a `try:`, an
    #: `if TYPE_CHECKING:`, a function): a plain removal edits them as it edits a top-level one.
    nested_lines: tuple


def read_string_mentions(module: cst.Module, words: set) -> bool:
    """Whether a string the analysis reads as code mentions one of `words` (a substring, as
    the fixer asks). In a module that names `__all__`, every string counts."""
    facts = module_facts(module)
    if any(fact.exports for fact in facts):
        return any(word in fact.every for fact in facts for word in words)
    hint_calls = _HINT_CALLS.union(*(fact.aliases for fact in facts))
    for fact in facts:
        if any(word in fact.hinted for word in words):
            return True
        for calls, text in fact.in_calls:
            if not hint_calls.isdisjoint(calls) and any(word in text for word in words):
                return True
    return False


def module_facts(module: cst.Module) -> list:
    """Each top-level statement's StatementFacts, remembered while the previews' scope is open."""
    return per_statement("removal facts", module, statement_facts)


def statement_facts(statement: cst.CSTNode) -> StatementFacts:
    """One walk of a top-level statement for everything StatementFacts holds."""
    exports = generic = False
    aliases: set = set()
    every: list = []
    hinted_texts: list = []
    by_calls: dict = {}
    nested: list = []
    lines: list = []
    alone: set = set()  # ids of the imports of `lines`
    own_line = line_import(statement)
    stack: list = [(statement, False, ())]
    while stack:
        node, hinted, calls = stack.pop()
        kind = type(node)
        if kind is cst.Name and node.value == "__all__":
            exports = True
        elif kind is cst.ImportAlias and _last_name(node.name) in _HINT_CALLS and node.asname is not None:
            alias = node.asname.name
            if isinstance(alias, cst.Name):
                aliases.add(alias.value)
        elif kind is cst.SimpleString or kind is cst.FormattedStringText:
            every.append(node.value)
            if hinted:
                hinted_texts.append(node.value)
            elif calls:
                by_calls.setdefault(frozenset(calls), []).append(node.value)
        elif (kind is cst.Import or kind is cst.ImportFrom) and node is not own_line and id(node) not in alone:
            nested.append(node)
        elif kind is cst.SimpleStatementLine and node is not statement and line_import(node) is not None:
            lines.append(node)
            alone.add(id(node.body[0]))
        if getattr(node, "type_parameters", None) is not None:
            generic = True
        if kind is cst.Annotation or kind is cst.Subscript:
            hinted = True
        elif kind is cst.Call:
            calls = (*calls, _last_name(node.func))
        stack.extend((child, hinted, calls) for child in children(node))
    return StatementFacts(
        exports,
        frozenset(aliases),
        "\0".join(every),
        "\0".join(hinted_texts),
        tuple((calls, "\0".join(texts)) for calls, texts in by_calls.items()),
        generic,
        tuple(nested),
        tuple(lines),
    )


def line_import(statement: cst.CSTNode):
    """The import of a top-level line that holds one import and nothing else, else None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        if isinstance(statement.body[0], (cst.Import, cst.ImportFrom)):
            return statement.body[0]
    return None


def _last_name(node: cst.CSTNode) -> str:
    """`cast` for `cast`, `typing.cast` or `t.cast`; empty for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""
