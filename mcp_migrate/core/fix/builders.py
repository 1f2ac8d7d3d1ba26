"""Fixes for the common removals (a statement, an argument, a dict entry), built from the walk's
ancestors. They return None where no safe deletion exists (the finding then stays reported with
fix "none"): for example a call that is part of a larger expression."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import Fix, RemoveArg, RemoveElement, RemoveStatement


def whole_statement(ancestors: list) -> cst.Expr | None:
    """The expression statement that consists of the visited node alone (`x.f()` or
    `await x.f()`), or None when the node is part of something larger."""
    node = ancestors[-1]
    i = len(ancestors) - 2
    if i >= 0 and isinstance(ancestors[i], cst.Await) and ancestors[i].expression is node:
        node, i = ancestors[i], i - 1
    if i < 0 or not isinstance(ancestors[i], cst.Expr) or ancestors[i].value is not node:
        return None
    return ancestors[i]


def remove_statement(
    ancestors: list,
    small: cst.BaseSmallStatement | cst.BaseStatement | None = None,
    *,
    orphans: tuple = (),
    unsafe: bool = False,
) -> Fix | None:
    """Delete the statement that consists of the node being visited (optionally awaited).

    `small` names the statement directly (a small statement, or a whole `def`); otherwise the
    visited expression must be the whole statement (`x.f()` or `await x.f()`), else there is
    no safe deletion and the result is None."""
    if small is None:
        small = whole_statement(ancestors)
        if small is None:
            return None
    return Fix((RemoveStatement(small),), orphans=orphans or _passed_names(small), unsafe=unsafe)


def remove_arg(call: cst.Call, arg: cst.Arg, *, orphans: tuple = (), unsafe: bool = False) -> Fix:
    """Drop one argument of a call."""
    return Fix((RemoveArg(call, arg),), orphans=orphans or _passed_names(arg), unsafe=unsafe)


def remove_element(container: cst.Dict, element: cst.BaseDictElement, *, unsafe: bool = False) -> Fix:
    """Drop one entry of a dict display."""
    return Fix((RemoveElement(container, element),), unsafe=unsafe)


def _passed_names(node: cst.CSTNode) -> tuple:
    """Plain names handed over by the removed code (`= handler`, `f(..., handler)`): candidates
    for the unsafe follow-up that deletes a module-level function nobody refers to any more."""
    if isinstance(node, cst.Arg):
        return (node.value.value,) if isinstance(node.value, cst.Name) else ()
    if isinstance(node, cst.Assign):
        return (node.value.value,) if isinstance(node.value, cst.Name) else ()
    if isinstance(node, cst.Expr):
        call = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if isinstance(call, cst.Call):
            return tuple(a.value.value for a in call.args if isinstance(a.value, cst.Name))
    return ()
