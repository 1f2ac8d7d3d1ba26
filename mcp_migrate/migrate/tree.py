"""Small tree utilities for rewrites that look at a whole function: parents, walks, references."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

import libcst as cst

from mcp_migrate.core.walk import children


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Pre-order walk over `node` and the syntax nodes below it (no whitespace/punctuation)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


_PARENT_MAPS: dict = {}


def parent_map(root: cst.CSTNode) -> dict:
    """id(child) -> parent for every syntax node below `root` (the last few maps are kept:
    one rewrite asks for the same function's map several times)."""
    cached = _PARENT_MAPS.get(id(root))
    if cached is not None and cached[0] is root:
        return cached[1]
    parents = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    if len(_PARENT_MAPS) > 8:
        _PARENT_MAPS.clear()
    _PARENT_MAPS[id(root)] = (root, parents)
    return parents


def is_reference(node: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    """A Name that reads or writes a variable (not an attribute, keyword, or definition name)."""
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, (cst.Arg,)) and parent.keyword is node:
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
        return False
    if isinstance(parent, (cst.ImportAlias, cst.AsName)):
        return False
    if isinstance(parent, cst.Param) and parent.name is node:
        return False
    return True


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def statement(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


def module_binding(module: cst.Module, name: str):
    """What a module-level `def name` or `name = value` binds: the FunctionDef or the value."""
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    return small.value
    return None


def enclosing(ancestors: list, kinds) -> Optional[cst.CSTNode]:
    for node in reversed(ancestors):
        if isinstance(node, kinds):
            return node
    return None
