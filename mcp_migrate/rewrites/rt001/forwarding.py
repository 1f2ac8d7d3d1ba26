"""A function whose whole job is to ask for roots on its caller's behalf: a library's public
wrapper (mcp-use's `Context.list_roots()`: telemetry, the request, `return result.roots`). It
has no directories of its own to take as a parameter, and deleting it breaks whoever calls it;
the migration its SDK merged for the same method is a deprecation (the `mcp` SDK's
`ServerSession.list_roots`, upstream 4573e4ac3). Its callers are findings of their own."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import is_docstring, iter_nodes, sole_small


def forwards_the_roots(func: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """`func`'s body is only: calls as statements (logging, telemetry), the request `value`
    (returned, or bound to a name), and the return of that name or of its `.roots`."""
    if not isinstance(func.body, cst.IndentedBlock):
        return False
    body = list(func.body.body)
    if body and is_docstring(body[0]):
        body = body[1:]
    bound = None
    returned = False
    for statement in body:
        small = sole_small(statement)
        if small is None:
            return False
        if isinstance(small, cst.Return) and small.value is value:
            returned = True
        elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is value and bound is None:
            targets = [small.target] if isinstance(small, cst.AnnAssign) else [t.target for t in small.targets]
            if len(targets) != 1 or not isinstance(targets[0], cst.Name):
                return False
            bound = targets[0].value
        elif isinstance(small, cst.Return) and bound is not None and _is_bound(small.value, bound):
            returned = True
        elif not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return False
        elif any(isinstance(n, cst.Name) and n.value == bound for n in _names(small)):
            return False
    return returned


def _is_bound(value, name: str) -> bool:
    """`name` or `name.roots`."""
    if isinstance(value, cst.Attribute) and value.attr.value == "roots":
        value = value.value
    return isinstance(value, cst.Name) and value.value == name


def _names(node: cst.CSTNode):
    return (n for n in iter_nodes(node) if isinstance(n, cst.Name))
