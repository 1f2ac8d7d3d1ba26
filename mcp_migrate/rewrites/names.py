"""Names bound in a function, and whether a Name is a store: shared by the RT001 and RT002 rewrites."""

from __future__ import annotations

from typing import Any

import libcst as cst

from mcp_migrate.core.syntax import (
    code_of,
    enclosing,
    is_reference,
    iter_nodes,
    parent_map,
)


def bound_names(func: cst.FunctionDef) -> set:
    """Every name the function binds: parameters, assignments, loop/with/except targets,
    walrus, imports, nested definitions, global/nonlocal declarations."""
    names = {p.name.value for p in [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]}
    for star in (func.params.star_arg, func.params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    parents = parent_map(func.body)
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Name) and is_store(node, parents.get(id(node))):
            names.add(node.value)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            names.update(n.name.value for n in node.names)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
        elif isinstance(node, cst.ImportAlias):
            names.add((node.evaluated_alias or code_of(node.name)).split(".")[0])
    return names


def is_store(node: cst.Name, parent) -> bool:
    if isinstance(parent, cst.AssignTarget) and parent.target is node:
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
        return True
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
        return True
    if isinstance(parent, cst.AsName) and parent.name is node:
        return True
    if isinstance(parent, cst.NamedExpr) and parent.target is node:
        return True
    if isinstance(parent, cst.Del):
        return True
    return False


def sole_local_binding(context, value: cst.BaseExpression) -> cst.Assign | None:
    """The one `name = ...` of a local whose only read is `value` (the removed argument)."""
    found = sole_local(context, value)
    return found if isinstance(found, cst.Assign) else None


def sole_local(context, value: cst.BaseExpression) -> cst.Assign | cst.FunctionDef | None:
    """What binds the local `value` names, where that is its one binding in the enclosing
    function and `value` its only read: a `name = ...` with one target, or an undecorated nested
    `def name(...)` (a test's own `async def list_roots(context)` handed to
    `list_roots_callback=list_roots`: it goes with the argument, and what it returns is what the
    argument gave). One walk of the function for both."""
    func: Any = enclosing(context.ancestors, cst.FunctionDef)
    if func is None or not isinstance(value, cst.Name):
        return None
    parents = parent_map(func.body)
    assigns, defs, reads = [], [], 0
    for node in iter_nodes(func.body):
        if isinstance(node, cst.FunctionDef) and node.name.value == value.value:
            defs.append(node)
            continue
        if not (isinstance(node, cst.Name) and node.value == value.value):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, cst.FunctionDef) and parent.name is node:
            continue
        if isinstance(parent, cst.AssignTarget):
            assigns.append(parents.get(id(parent)))
        elif is_store(node, parent):
            return None
        elif is_reference(node, parent):
            reads += 1
    if reads != 1:
        return None
    if len(assigns) == 1 and not defs:
        assign = assigns[0]
        return assign if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
    if len(defs) == 1 and not assigns and not defs[0].decorators:
        return defs[0]
    return None


def free_reads(func: cst.FunctionDef) -> set:
    """Names the function reads without binding them itself (module globals, builtins,
    enclosing functions' names): a new parameter of such a name would capture those reads."""
    bound = bound_names(func)
    parents = parent_map(func.body)
    read = set()
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Name) and node.value not in bound and is_reference(node, parents.get(id(node))):
            read.add(node.value)
    return read
