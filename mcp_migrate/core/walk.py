"""A fast pre-order walk over a LibCST tree, for the engine's one traversal per file.

LibCST's own visitor machinery rebuilds and re-validates every node it passes and calls
attribute hooks for every field; on a linter's hot path that is most of the cost. Rules only
need the syntax nodes in source order with their ancestors, so this walk reads the dataclass
fields directly, skips whitespace and punctuation, and uses an explicit stack (no recursion
limit on deeply nested expressions).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import NamedTuple

import libcst as cst

_LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
)
_LAYOUT_FIELDS = frozenset({"lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer"})
#: Classes whose fields are not declared in source order.
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.IfExp: ("body", "test", "orelse"),
}


def _syntax_node_types() -> frozenset:
    # By each class's MRO, not issubclass: CSTNode is an ABC, and its subclass checks over
    # every name LibCST exports (about 23,000 of them) cost 30 ms of every run's start-up.
    found = set()
    for value in vars(cst).values():
        if isinstance(value, type) and cst.CSTNode in value.__mro__ and not inspect.isabstract(value):
            if not any(layout in value.__mro__ for layout in _LAYOUT):
                found.add(value)
    return frozenset(found)


NODE_TYPES = _syntax_node_types()
#: Syntax nodes below which no statement can be: every expression, and the parts of a
#: definition or call made of expressions only.
NO_STATEMENT_BELOW = frozenset(kind for kind in NODE_TYPES if cst.BaseExpression in kind.__mro__) | {
    cst.Arg,
    cst.Annotation,
    cst.Decorator,
    cst.Parameters,
}

_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _SOURCE_ORDER.get(kind) or tuple(
            f.name
            for f in dataclasses.fields(kind)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[kind] = names
    return names


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The syntax children of `node`, in source order."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            out.extend(item for item in value if type(item) in NODE_TYPES)
        elif kind in NODE_TYPES:
            out.append(value)
    return out


class StatementsReplaced(cst.CSTTransformer):
    """Puts `replacements[id(node)]` (a node, or a removal) in place of each node of the visited
    tree it names, without entering those nodes or an expression (no statement is below one):
    one visit that rebuilds only what lies above them. The ids are of the visited tree's own
    nodes, alive while it is, so no other node can share one."""

    def __init__(self, replacements: dict) -> None:
        super().__init__()
        self.replacements = replacements

    def on_visit(self, node: cst.CSTNode) -> bool:
        return type(node) not in NO_STATEMENT_BELOW and id(node) not in self.replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


class Walked(NamedTuple):
    """What a walk learns on the way, which ModuleIndex would otherwise build by two more
    walks of the same tree: id(node) -> parent for every node below the root, and the nodes
    (the root too) by exact type, in source order."""

    parents: dict
    by_kind: dict


def walk(root: cst.CSTNode, on_visit: Callable, on_leave: Callable) -> Walked:
    """Call on_visit(node) before and on_leave(node) after each node's subtree."""
    parents: dict = {}
    by_kind: dict = {}
    stack = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, leaving = pop()
        if leaving:
            on_leave(node)
            continue
        on_visit(node)
        bucket = by_kind.get(type(node))
        if bucket is None:
            by_kind[type(node)] = [node]
        else:
            bucket.append(node)
        push((node, True))
        kids = children(node)
        for child in reversed(kids):
            parents[id(child)] = node
            push((child, False))
    return Walked(parents, by_kind)


def index_tree(root: cst.CSTNode) -> Walked:
    """What walk() learns, by a walk of its own with nothing to call (ModuleIndex, asked before
    the rules' walk is over)."""
    parents: dict = {}
    by_kind: dict = {}
    stack = [root]
    while stack:
        node = stack.pop()
        bucket = by_kind.get(type(node))
        if bucket is None:
            by_kind[type(node)] = [node]
        else:
            bucket.append(node)
        kids = children(node)
        for child in kids:
            parents[id(child)] = node
        stack.extend(reversed(kids))
    return Walked(parents, by_kind)
