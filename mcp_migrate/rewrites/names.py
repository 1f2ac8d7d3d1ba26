"""Names bound in a function, and whether a Name is a store: shared by the RT001 and RT002 rewrites."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import (
    code_of,
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
            names.add((node.asname.name.value if node.asname else code_of(node.name)).split(".")[0])
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
