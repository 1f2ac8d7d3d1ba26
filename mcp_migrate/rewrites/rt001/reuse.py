"""The roots only filled in the tool's own directory parameter (issue 36 §1: reuse the
server's existing directory input, never a second source beside it): the shape in which the
parameter itself is the way in, the function keeping its own answer for no directory.

    if repo_path is None:                       if not base:
        result = await <request>                    roots = await <request>
        if result.roots:                            if not roots.roots:
            repo_path = <from result>                   return ""
        else:                                       base = <from roots>
            return <no directory>

DevNarrate's five tools ask this way; after the rewrite the guard keeps only its no-roots
branch and clients pass `repo_path` (core.coordination.MigratedTool.single)."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.syntax import all_params, iter_nodes
from mcp_migrate.rewrites.rt001.flow import always_exits


class Reused(NamedTuple):
    """The `if <param> is None:` guard around the request, the parameter, and the block the
    guard keeps (what the function did when the roots held none)."""

    guard: cst.If
    param: str
    kept: cst.IndentedBlock


def fills_from_the_roots(
    func: cst.FunctionDef, value: cst.BaseExpression, parents: dict, leading: set
) -> Reused | None:
    """The Reused of the request `value` in `func`, or None. `leading`: identities of the
    assignments that only lead to the request (`context = mcp.get_context()`), the only
    statements allowed before it in the guard. Nothing after the guard may read the result."""
    params = {p.name.value for p in all_params(func.params) if p.default is not None}
    statement: cst.CSTNode | None = value
    while statement is not None and not isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        statement = parents.get(id(statement))
    guard = parents.get(id(parents.get(id(statement))))
    if statement is None or not isinstance(guard, cst.If) or guard.orelse is not None:
        return None
    if not isinstance(guard.body, cst.IndentedBlock):
        return None
    param = missing_test(guard.test)
    result = _assigned_name(statement, value)
    if param not in params or result is None:
        return None
    body = list(guard.body.body)
    index = next(i for i, b in enumerate(body) if b is statement)
    if not all(_only_small(b, leading) for b in body[:index]):
        return None
    kept = _no_roots_branch(body[index + 1 :], result, str(param))
    if kept is None or _read_outside(func, result, guard):
        return None
    return Reused(guard, str(param), kept)


def _read_outside(func: cst.FunctionDef, name: str, guard: cst.If) -> bool:
    inside = {id(n) for n in iter_nodes(guard)}
    return any(isinstance(n, cst.Name) and n.value == name and id(n) not in inside for n in iter_nodes(func.body))


def missing_test(test: cst.BaseExpression) -> str | None:
    """`x is None`, `x == None` or `not x`: the name `x`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
        return test.value if isinstance(test, cst.Name) else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.Is, cst.Equal)) and (
            isinstance(target.comparator, cst.Name) and target.comparator.value == "None"
        ):
            return test.left.value
    return None


def _only_small(statement, ids: set) -> bool:
    """The statement is a line of one small statement whose identity is in `ids`."""
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and id(statement.body[0]) in ids


def _assigned_name(statement, value: cst.BaseExpression) -> str | None:
    """`name` of the statement `name = <value>`."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.value is value:
        target = assign.targets[0].target
        return target.value if isinstance(target, cst.Name) else None
    return None


def _no_roots_branch(rest: list, result: str, param: str) -> cst.IndentedBlock | None:
    """The block a function runs when the roots `result` holds none, where `rest` (the
    statements after the request) only fills `param` from them otherwise: `if result.roots:
    param = ... else: <block>`, or `if not result.roots: <block>` then `param = ...`."""
    if len(rest) == 1 and isinstance(rest[0], cst.If):
        branch, other = rest[0], rest[0].orelse
        if (
            isinstance(other, cst.Else)
            and _tests_roots(branch.test, result)
            and _only_fills(branch.body, param, result)
        ):
            return other.body if isinstance(other.body, cst.IndentedBlock) else None
    if len(rest) == 2 and isinstance(rest[0], cst.If) and rest[0].orelse is None:
        branch, fill = rest
        test = branch.test
        if (
            isinstance(test, cst.UnaryOperation)
            and isinstance(test.operator, cst.Not)
            and _tests_roots(test.expression, result)
            and isinstance(branch.body, cst.IndentedBlock)
            and always_exits(branch.body)
            and _only_fills(cst.IndentedBlock(body=[fill]), param, result)
        ):
            return branch.body
    return None


def _tests_roots(test: cst.BaseExpression, result: str) -> bool:
    """`result.roots` or `result` (its truth: any roots at all)."""
    if isinstance(test, cst.Attribute) and test.attr.value == "roots":
        test = test.value
    return isinstance(test, cst.Name) and test.value == result


def _only_fills(block, param: str, result: str) -> bool:
    """The block is one `param = <expression reading result>`."""
    body = block.body if isinstance(block, cst.IndentedBlock) else ()
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return False
    assign = body[0].body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
        return False
    target = assign.targets[0].target
    reads = any(isinstance(n, cst.Name) and n.value == result for n in iter_nodes(assign.value))
    return isinstance(target, cst.Name) and target.value == param and reads
