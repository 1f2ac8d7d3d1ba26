"""Roots added to another source (issue 36 §1: reuse the server's existing directory input,
never a second source beside it). The reference git server asks in a nested helper and only
adds what it found to the repository its command line gave:

    async def list_repos():
        async def by_roots():                     async def list_repos():
            ... await session.list_roots() ...        def by_commandline(): ...
            return repo_paths                 ->      cmd_repos = by_commandline()
        def by_commandline(): ...                     return [*cmd_repos]
        cmd_repos = by_commandline()
        root_repos = await by_roots()
        return [*root_repos, *cmd_repos]

The helper, its call and its share of the sum go; the other source is the way in. Behaviour
for a 2026-07-28 client (which declares no roots capability, so the helper found none) is
kept. Only a nested helper: another module may call a module-level one.

The same inside one function (`added_in_place`, openstaad's `get_allowed_dirs`): the roots
asked in a `try:` whose `except` falls back to none, then added to the configured list:

    allowed = [Path(d) for d in configured]       allowed = [Path(d) for d in configured]
    if wanted:                                ->  return allowed
        try:
            roots = await ctx.list_roots()
        except McpError:
            roots = []
        allowed += dirs_of(roots)
    return allowed"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import RemoveStatement, Replace
from mcp_migrate.core.syntax import enclosing, is_reference, iter_nodes, parent_map, sole_small, statement_of
from mcp_migrate.rewrites.names import is_store
from mcp_migrate.rewrites.rt001.reuse import assigned_name, stores_on_objects


def beside_another_source(func: cst.FunctionDef, ancestors: list) -> tuple | None:
    """The edits that drop `func` (the helper holding the request) where every use of it adds
    its result to something else, or None. `ancestors`: the walk's ancestors of the request."""
    at = next((i for i, node in enumerate(ancestors) if node is func), None)
    outer = enclosing(list(ancestors[:at]), cst.FunctionDef) if at is not None else None
    if outer is None or stores_on_objects(func):
        return None
    parents = parent_map(outer)
    name = func.name.value
    refs = [
        n
        for n in iter_nodes(outer.body)
        if isinstance(n, cst.Name) and n.value == name and n is not func.name and is_reference(n, parents.get(id(n)))
    ]
    edits: list = [RemoveStatement(func)]
    for ref in refs:
        found = _summed_call(ref, outer, parents)
        if found is None:
            return None
        edits.extend(found)
    return tuple(edits) if refs else None


def _summed_call(ref: cst.Name, outer: cst.FunctionDef, parents: dict) -> list | None:
    """[the removal of `local = await helper()`, the edits that drop `local` from each sum it is
    part of], or None where the call or its local is used any other way."""
    call = parents.get(id(ref))
    if not (isinstance(call, cst.Call) and call.func is ref and not call.args):
        return None
    value = parents.get(id(call))
    value = value if isinstance(value, cst.Await) else call
    assign = parents.get(id(value))
    if not (isinstance(assign, cst.Assign) and assign.value is value and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return None
    edits: list = [RemoveStatement(assign)]
    reads = 0
    for node in iter_nodes(outer.body):
        if not (isinstance(node, cst.Name) and node.value == target.value and node is not target):
            continue
        parent = parents.get(id(node))
        if not is_reference(node, parent):
            continue
        if is_store(node, parent):
            return None
        edit = _without_operand(node, parents)
        if edit is None:
            return None
        edits.append(edit)
        reads += 1
    return edits if reads else None


def _without_operand(use: cst.Name, parents: dict) -> Replace | None:
    """`[*found, *other]` -> `[*other]`; `found + other` -> `other` (either order)."""
    parent = parents.get(id(use))
    if isinstance(parent, cst.StarredElement) and parent.value is use:
        display = parents.get(id(parent))
        if isinstance(display, (cst.List, cst.Tuple, cst.Set)) and len(display.elements) > 1:
            kept = [element for element in display.elements if element is not parent]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            if isinstance(display, cst.Tuple) and len(kept) == 1:
                kept[-1] = kept[-1].with_changes(comma=cst.Comma())
            return Replace(display, display.with_changes(elements=kept))
        return None
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
        other = parent.right if parent.left is use else parent.left
        return Replace(parent, other)
    return None


def added_in_place(func: cst.FunctionDef, value: cst.BaseExpression, parents: dict) -> tuple | None:
    """The statements to remove where the request's result (`roots = await <request>`, alone
    or in a `try:` whose handlers only log or fall back to an empty value) is read once, by
    `other += f(roots)` or `other.extend(f(roots))` on a local bound before it; the `if`
    holding only those goes too, where its test calls nothing. None otherwise."""
    statement = statement_of(value, parents)
    local = assigned_name(statement, value)
    if local is None:
        return None
    unit = _tried_with_empty_fallback(statement, parents, local) or statement
    if unit is None:
        return None
    block = parents.get(id(unit))
    if not isinstance(block, cst.IndentedBlock):
        return None
    body = list(block.body)
    at = next(i for i, b in enumerate(body) if b is unit)
    inside = {id(n) for n in iter_nodes(unit)}
    reads = [
        n
        for n in iter_nodes(func.body)
        if isinstance(n, cst.Name) and n.value == local and id(n) not in inside and is_reference(n, parents.get(id(n)))
    ]
    if len(reads) != 1:
        return None
    adding = statement_of(reads[0], parents)
    if adding not in body[at + 1 :] or not _adds_to_a_local(adding, func, inside):
        return None
    removed = (unit, adding)
    if len(body) == 2 and isinstance(holder := parents.get(id(block)), cst.If) and holder.orelse is None:
        if not any(isinstance(n, cst.Call) for n in iter_nodes(holder.test)):
            return (holder,)
    return removed


def _tried_with_empty_fallback(statement, parents: dict, local: str) -> cst.Try | None:
    """The `try:` whose body is `statement` alone and whose handlers only log or set `local`
    to an empty value (`[]`, `()`, `None`)."""
    body = parents.get(id(statement))
    block = parents.get(id(body))
    if not (isinstance(block, cst.Try) and block.body is body and block.orelse is None and block.finalbody is None):
        return None
    if len(body.body) > 1 and not all(_is_log_line(b) for b in body.body[1:]) or body.body[0] is not statement:
        return None
    for handler in block.handlers:
        if not isinstance(handler.body, cst.IndentedBlock):
            return None
        for line in handler.body.body:
            if not (_is_log_line(line) or _sets_empty(line, local)):
                return None
    return block


def _is_log_line(statement) -> bool:
    """A line that is one call as a statement, or `pass`."""
    small = sole_small(statement)
    return isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call))


def _sets_empty(statement, local: str) -> bool:
    """`local = []` (or `()`, `None`)."""
    assign = sole_small(statement)
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
        return False
    target, empty = assign.targets[0].target, assign.value
    is_empty = (isinstance(empty, (cst.List, cst.Tuple)) and not empty.elements) or (
        isinstance(empty, cst.Name) and empty.value == "None"
    )
    return isinstance(target, cst.Name) and target.value == local and is_empty


def _adds_to_a_local(statement, func: cst.FunctionDef, inside: set) -> bool:
    """`other += <...>` or `other.extend(<...>)` where `other` is a local assigned before."""
    small = sole_small(statement)
    target: cst.BaseExpression
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
        target = small.target
    elif (
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and isinstance(small.value.func, cst.Attribute)
        and small.value.func.attr.value == "extend"
    ):
        target = small.value.func.value
    else:
        return False
    if not isinstance(target, cst.Name):
        return False
    return any(
        isinstance(n, (cst.Assign, cst.AnnAssign))
        and id(n) not in inside
        and any(isinstance(t, cst.Name) and t.value == target.value for t in _targets(n))
        for n in iter_nodes(func.body)
    )


def _targets(assign) -> list:
    return [assign.target] if isinstance(assign, cst.AnnAssign) else [t.target for t in assign.targets]
