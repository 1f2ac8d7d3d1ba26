"""What a call is: its function's qualified name (through imports, or a builtin), literal
arguments, and whether a block ends in a return or a raise."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import literal

_BUILTINS = frozenset({"str", "tuple", "list", "set", "frozenset", "sorted", "open", "getattr"})


def ends_with(block, kinds: tuple) -> bool:
    """Does the block's last statement have one of these kinds (`Return`, `Raise`, ...)?"""
    body = getattr(block, "body", ())
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        last = last.body[-1]
    return isinstance(last, kinds)


def returns_constant(owner) -> bool:
    """An `if` whose branch returns a constant label, or a conditional expression of labels."""
    if isinstance(owner, cst.IfExp):
        return literal(owner.body) is not None or literal(owner.orelse) is not None
    if not isinstance(owner, cst.If) or not isinstance(owner.body, cst.IndentedBlock):
        return False
    for stmt in owner.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Return) and small.value is not None and literal(small.value) is not None:
                    return True
    return False


def is_literal(expr: cst.BaseExpression) -> bool:
    """A string literal, or a tuple/list of them (`("http://", "https://")`)."""
    if literal(expr) is not None or isinstance(expr, cst.SimpleString):
        return True
    if isinstance(expr, (cst.Tuple, cst.List)):
        return bool(expr.elements) and all(is_literal(e.value) for e in expr.elements)
    return False


def call_qualified(resolver, call: cst.Call) -> str | None:
    """The qualified name of a call's function: through imports, or a builtin by its bare name."""
    q = resolver.qualified(call.func)
    if q:
        return q
    if isinstance(call.func, cst.Name) and call.func.value in _BUILTINS and resolver.lookup(call.func.value) is None:
        return call.func.value
    return None
