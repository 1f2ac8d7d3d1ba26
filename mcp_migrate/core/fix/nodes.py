"""New syntax for fixes: nodes built from parts, and planned replacements put into a piece of
the tree (by identity of the original nodes)."""

from __future__ import annotations

from typing import TypeVar, cast

import libcst as cst

_Node = TypeVar("_Node", bound=cst.CSTNode)


class Substitute(cst.CSTTransformer):
    """Put planned replacements into a detached piece of the tree (by identity of the original)."""

    def __init__(self, new_by_id: dict):
        super().__init__()
        self.new_by_id = new_by_id

    def on_leave(self, original_node, updated_node):
        return self.new_by_id.get(id(original_node), updated_node)


def substituted(node: _Node, new_by_id: dict) -> _Node:
    """`node` with the planned replacements inside it. (Of the same kind: a replacement takes
    the place of a node of its kind, and nothing is removed; LibCST's `visit` cannot say so.)"""
    return cast(_Node, node.visit(Substitute(new_by_id)))


def attribute_chain(qualified: str) -> cst.BaseExpression:
    """`a.b.c` as an expression, built directly (no parser in the rules' path)."""
    first, *rest = qualified.split(".")
    expr: cst.BaseExpression = cst.Name(first)
    for part in rest:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


def call(func: cst.BaseExpression, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=func, args=[cst.Arg(a) for a in args])


def method(receiver: cst.BaseExpression, name: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(name)), args=[cst.Arg(a) for a in args])


def bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The expression without its own surrounding parentheses (a fix adds its own)."""
    if getattr(expr, "lpar", None):
        return expr.with_changes(lpar=[], rpar=[])
    return expr
