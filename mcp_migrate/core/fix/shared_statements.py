"""Answers about a module that add up over its top-level statements (the names it uses, the
imports it makes), each statement's answer remembered while a scope is open: a file's previews
make many passes over the one parsed module, and each pass's new module shares most of its
statements with it, so only the statements a pass changed are read again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import libcst as cst

from mcp_migrate.core.walk import children

#: The open scopes of `statements_shared()`, innermost last: per question, id(top-level
#: statement) -> (statement, its answer).
_SCOPES: list = []


@contextlib.contextmanager
def statements_shared() -> Iterator[None]:
    """While open, `per_statement` remembers each top-level statement's answer (the previews of
    one file open it). Closed, nothing is kept: no file's tree outlives its work."""
    _SCOPES.append({})
    try:
        yield
    finally:
        _SCOPES.pop()


def sharing() -> bool:
    """Whether a `statements_shared()` scope is open: an answer worth building from the answers
    of the statements below (`per_node` of each) is, outside one, cheaper in one walk."""
    return bool(_SCOPES)


def per_statement(question: str, module: cst.Module, answer) -> list:
    """`answer(statement)` for each syntax child of `module` in order (the module itself adds
    nothing to either question asked this way), remembered within `statements_shared()`."""
    return [per_node(question, stmt, answer) for stmt in children(module)]


def per_node(question: str, node: cst.CSTNode, answer):
    """`answer(node)`, remembered for that node within `statements_shared()` (a statement the
    passes share is asked again by each of them: the sort key of a top import)."""
    if not _SCOPES:
        return answer(node)
    memo = _SCOPES[-1].setdefault(question, {})
    known = memo.get(id(node))
    if known is None or known[0] is not node:
        known = memo[id(node)] = (node, answer(node))
    return known[1]
