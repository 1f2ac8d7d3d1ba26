"""Small tree utilities for rewrites that look at a whole function: parents, walks, references."""
from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

_EMPTY = cst.Module([])


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Pre-order walk over `node` and everything below it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def parent_map(root: cst.CSTNode) -> dict:
    """id(child) -> parent for every node below `root`."""
    parents = {}
    for node in walk(root):
        for child in node.children:
            parents[id(child)] = node
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


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def short(node: cst.CSTNode, limit: int = 50) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def statement(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


def enclosing(ancestors: list, kinds) -> Optional[cst.CSTNode]:
    for node in reversed(ancestors):
        if isinstance(node, kinds):
            return node
    return None
