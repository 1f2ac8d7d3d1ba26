"""The Roots protocol types of a project's own MCP implementation, and the MCP symbols an
annotation or a signature names."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from mcp_migrate.core.sdk import ROOTS_TYPE_NAMES


def roots_type_definition(node: cst.ClassDef, data: bytes) -> Optional[str]:
    """The Roots protocol type a class defines (its own ListRootsRequest, ListRootsResult,
    RootsListChangedNotification, a `Root` beside its own ListRootsResult, a ListRootsFn
    callback Protocol), else None."""
    name = node.name.value
    if name in ROOTS_TYPE_NAMES or name.startswith("ListRootsFn"):
        return name
    if name == "Root" and b"class ListRootsResult" in data:
        return name
    return None


def inside_roots_type_definition(ancestors: list, data: bytes) -> bool:
    """A wire string inside a re-implemented Roots type (`method: Literal["roots/list"]`) is
    part of that one construct, reported at the class."""
    return any(isinstance(a, cst.ClassDef) and roots_type_definition(a, data) for a in ancestors[:-1])


def annotation_symbols(resolver, annotation) -> set:
    """The MCP symbols an annotation names (`ListRootsResult | ErrorData` -> both)."""
    found = set()
    stack = [annotation]
    while stack:
        expr = stack.pop()
        if isinstance(expr, (cst.Name, cst.Attribute)):
            symbol = resolver.mcp_name(expr)
            if symbol:
                found.add(symbol)
            continue
        if isinstance(expr, cst.Subscript):
            stack.append(expr.value)
            stack.extend(e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index))
        elif isinstance(expr, cst.BinaryOperation):
            stack.extend((expr.left, expr.right))
        elif isinstance(expr, cst.SimpleString):
            try:
                stack.append(cst.parse_expression(expr.evaluated_value))
            except Exception:
                pass
    return found


def param_symbols(resolver, params: cst.Parameters) -> set:
    """The MCP symbols a function's parameter annotations name."""
    every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    found = set()
    for param in every:
        if param.annotation is not None:
            found |= annotation_symbols(resolver, param.annotation.annotation)
    return found
