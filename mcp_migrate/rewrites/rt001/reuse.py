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

from mcp_migrate.core.syntax import all_params, attribute_root, is_reference, iter_nodes, sole_small, statement_of
from mcp_migrate.rewrites.names import is_store
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
    statement = statement_of(value, parents)
    guard = parents.get(id(parents.get(id(statement))))
    if statement is None or not isinstance(guard, cst.If) or guard.orelse is not None:
        return None
    if not isinstance(guard.body, cst.IndentedBlock):
        return None
    param = missing_test(guard.test)
    result = assigned_name(statement, value)
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


def attempted_after_explicit(func: cst.FunctionDef, value: cst.BaseExpression, parents: dict, leading: set):
    """The statements to remove where the roots are a second attempt after the function's own
    source of directories (its argument, or a setting it reads), or None. Two shapes; dmx's
    `_resolve_workspace_root`, and semanticworkbench's `get_allowed_directories`:

        if explicit:                                if settings.allowed_directories:
            return Path(explicit)                       return [Path(d) for d in ...]
        try:                                        result = await ctx.session.list_roots()
            roots = await ctx.list_roots()          if result.roots:
            ...        (returns, or binds               return [... for root in result.roots]
                        locals read nowhere)        raise ValueError("nothing configured")
        except Exception:
            pass       (or only logs)
        <the function's own fallback>

    A 2026-07-28 client's request raises as the attempt begins (the `except` passes, or the
    error leaves the function): without the attempt every client gets the function's own
    fallback, and its source stays the way in (issue 36 §1: reuse the existing input, never a
    second source). Not where the attempt did something before asking, stores on an object, or
    is the function's last statement."""
    params = {p.name.value for p in all_params(func.params)}
    statement = statement_of(value, parents)
    attempt = _tried(statement, parents, leading) or _asked_then_returned(statement, value, parents)
    if attempt is None:
        return None
    outer = parents.get(id(attempt[0]))
    siblings = list(outer.body) if isinstance(outer, (cst.IndentedBlock, cst.Module)) else []
    position = next((i for i, b in enumerate(siblings) if b is attempt[0]), None)
    if position is None or position + len(attempt) >= len(siblings):
        return None
    if any(siblings[position + i] is not part for i, part in enumerate(attempt)):
        return None
    if not any(_tries_own_source(b, params) for b in siblings[:position]):
        return None
    inside = {id(n) for part in attempt for n in iter_nodes(part)}
    bound = {
        n.value
        for part in attempt
        for n in iter_nodes(part)
        if isinstance(n, cst.Name) and is_store(n, parents.get(id(n)))
    }
    for n in iter_nodes(func.body):
        if isinstance(n, cst.Name) and n.value in bound and id(n) not in inside and is_reference(n, parents.get(id(n))):
            return None
    return attempt


def _tried(statement, parents: dict, leading: set) -> tuple | None:
    """(the `try:`,) whose body asks first thing (after `leading` assignments) and whose
    handlers pass or only log."""
    body = parents.get(id(statement))
    block = parents.get(id(body))
    if not (isinstance(block, cst.Try) and block.body is body and isinstance(body, cst.IndentedBlock)):
        return None
    if block.orelse is not None or block.finalbody is not None or not block.handlers:
        return None
    if not all(only_passes(handler) for handler in block.handlers):
        return None
    index = next(i for i, b in enumerate(body.body) if b is statement)
    if not all(_only_small(b, leading) for b in body.body[:index]) or stores_on_objects(body):
        return None
    return (block,)


def _asked_then_returned(statement, value: cst.BaseExpression, parents: dict) -> tuple | None:
    """(`result = <request>`, `if result.roots: <exits>`): the request bound, and the next
    statement leaves the function with what the roots gave when there were any."""
    result = assigned_name(statement, value)
    block = parents.get(id(statement))
    if result is None or not isinstance(block, cst.IndentedBlock):
        return None
    body = list(block.body)
    index = next(i for i, b in enumerate(body) if b is statement)
    following = body[index + 1] if index + 1 < len(body) else None
    if not (
        isinstance(following, cst.If)
        and following.orelse is None
        and _tests_roots(following.test, result)
        and isinstance(following.body, cst.IndentedBlock)
        and always_exits(following.body)
        and not stores_on_objects(following)
    ):
        return None
    return (statement, following)


def _tries_own_source(statement, params: set) -> bool:
    """`if explicit: return ...` (or `is not None`): the function's own argument first; or
    `if settings.allowed_directories: return <value>`: a setting it reads (an attribute of a
    name that is neither a parameter nor the instance, whose directories it returns)."""
    if not (
        isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock)
    ):
        return False
    test = statement.test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name):
            test = test.left if target.comparator.value == "None" else test
    if isinstance(test, cst.Name):
        return test.value in params and always_exits(statement.body)
    owner = attribute_root(test)
    return owner is not None and owner not in params | {"self", "cls"} and _returns_a_value(statement.body)


def _returns_a_value(block: cst.IndentedBlock) -> bool:
    """The block ends in `return <something other than None>`."""
    last = block.body[-1] if block.body else None
    if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)):
        return False
    returned = last.body[-1].value
    return returned is not None and not (isinstance(returned, cst.Name) and returned.value == "None")


def stores_on_objects(block: cst.CSTNode) -> bool:
    """Something in the block stores on an object (`self.roots = ...`, `cache[k] = ...`)."""
    for node in iter_nodes(block):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            if isinstance(node.target, (cst.Attribute, cst.Subscript)):
                return True
    return False


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
    small = sole_small(statement)
    return small is not None and id(small) in ids


def assigned_name(statement, value: cst.BaseExpression) -> str | None:
    """`name` of the statement `name = <value>`."""
    assign = sole_small(statement)
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


def only_passes(handler: cst.ExceptHandler) -> bool:
    """An `except` that passes or only logs (calls as statements), not reading the exception
    (what it logs about the failed request goes with it)."""
    if not isinstance(handler.body, cst.IndentedBlock):
        return False
    name = handler.name.name.value if handler.name is not None and isinstance(handler.name.name, cst.Name) else None
    for statement in handler.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Pass):
                continue
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                return False
            if name is not None and any(isinstance(n, cst.Name) and n.value == name for n in iter_nodes(small)):
                return False
    return True
