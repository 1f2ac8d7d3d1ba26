"""Where an expression inside a statement starts, from `ast`: the smallest code a position
needs generated.

core.positions places a reported node by generating the block statement that holds it. When
that statement is large (a function whose decorator holds a table of thousands of cases, one
assignment of a literal table), most of the generated code is not needed: the reported node
sits in one element. Here LibCST's chain from the statement down to the node is walked beside
`ast`'s tree of the same statement, through the parts both trees have in the same order
(a line's small statements, their values, decorators, call arguments, the elements of lists,
tuples, sets and dicts, awaited and attribute values), and the deepest pair reached is the
anchor: a LibCST expression and where `ast` says it starts. A parenthesised expression ends
the walk (`ast` places it inside its brackets). The caller generates the anchor at that place
and compares the code with the file's text before any position is trusted."""

from __future__ import annotations

import ast
from typing import Any, NamedTuple

import libcst as cst


class Anchor(NamedTuple):
    """A LibCST expression and where it starts: its 1-based line and its column in UTF-8
    bytes (`ast`'s col_offset)."""

    node: cst.BaseExpression
    line: int
    byte_column: int


def anchor(block: list, index: int, chain: list, memo: dict) -> Anchor | None:
    """The deepest expression of `chain` (LibCST's nodes from a block statement down to a
    reported node, that statement first) whose start `ast` gives; `block[index]` is the ast
    statement the LibCST statement starts with. None when the walk gets no further than the
    statement. `memo`: where each container's children are (kept by the caller for the
    reports of one file: a table of thousands of entries is indexed once)."""
    statement = chain[0]
    rest = chain[1:]
    if isinstance(statement, cst.SimpleStatementLine):
        at = _position(statement.body, rest[0], memo) if rest else None
        if at is None or index + at >= len(block):
            return None
        position = index + at
        cst_node, ast_node, rest = rest[0], block[position], rest[1:]
    else:
        cst_node, ast_node = statement, block[index]
    found: Anchor | None = None
    while rest:
        step = _step(cst_node, ast_node, rest, memo)
        if step is None:
            break
        cst_node, ast_node, used = step
        rest = rest[used:]
        if cst_node.lpar:  # ast's position is inside the brackets
            break
        found = Anchor(cst_node, ast_node.lineno, ast_node.col_offset)
    return found


def _position(items, child: cst.CSTNode, memo: dict) -> int | None:
    """Where `child` sits in `items` (a node's list field), by identity."""
    key = id(items)
    known = memo.get(key)
    if known is None or known[0] is not items:
        known = memo[key] = (items, {id(item): i for i, item in enumerate(items)})
    return known[1].get(id(child))


def _step(cst_node: Any, ast_node: Any, rest: list, memo: dict) -> tuple | None:
    """(the next LibCST expression on the chain, its ast twin, how many chain nodes that
    took), or None where the two trees part."""
    child = rest[0]
    kind = type(cst_node)
    if kind in _VALUE_OWNERS:
        value = getattr(ast_node, "value", None)
        if child is cst_node.value and isinstance(value, ast.expr):
            return child, value, 1
        return None
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        decorators = cst_node.decorators
        position = _position(decorators, child, memo)
        found = getattr(ast_node, "decorator_list", [])
        if position is None or len(rest) < 2 or rest[1] is not child.decorator or len(found) != len(decorators):
            return None
        return rest[1], found[position], 2
    if kind is cst.Call:
        return _call_argument(cst_node, ast_node, rest, memo)
    if kind in _SEQUENCES:
        elements = cst_node.elements
        twins = getattr(ast_node, "elts", None)
        position = _position(elements, child, memo)
        if twins is None or len(twins) != len(elements) or position is None or len(rest) < 2:
            return None
        twin = twins[position]
        if isinstance(twin, ast.Starred):
            twin = twin.value
        return (rest[1], twin, 2) if rest[1] is child.value else None
    if kind is cst.Dict:
        return _dict_part(cst_node, ast_node, rest, memo)
    if kind is cst.Await and child is cst_node.expression and isinstance(ast_node, ast.Await):
        return child, ast_node.value, 1
    if kind is cst.Attribute and child is cst_node.value and isinstance(ast_node, ast.Attribute):
        return child, ast_node.value, 1
    return None


#: Statements (and expressions) whose `value` is the same part in both trees.
_VALUE_OWNERS = frozenset({cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return})
_SEQUENCES = frozenset({cst.List, cst.Tuple, cst.Set})


def _call_argument(call: cst.Call, twin: ast.AST, rest: list, memo: dict) -> tuple | None:
    """An argument's value: LibCST's arguments in source order are `ast`'s positional and
    keyword arguments sorted by where they start."""
    child = rest[0]
    position = _position(call.args, child, memo)
    if not isinstance(twin, ast.Call) or position is None or len(rest) < 2 or rest[1] is not child.value:
        return None
    items: list = [*twin.args, *twin.keywords]
    items.sort(key=lambda item: (item.lineno, item.col_offset))
    if len(items) != len(call.args):
        return None
    item = items[position]
    value = item.value if isinstance(item, (ast.keyword, ast.Starred)) else item
    return rest[1], value, 2


def _dict_part(node: cst.Dict, twin: ast.AST, rest: list, memo: dict) -> tuple | None:
    """A dict entry's key or value (`**spread` has no key in either tree)."""
    child = rest[0]
    position = _position(node.elements, child, memo)
    if not isinstance(twin, ast.Dict) or len(twin.values) != len(node.elements) or position is None or len(rest) < 2:
        return None
    key, value = twin.keys[position], twin.values[position]
    if isinstance(child, cst.DictElement) and rest[1] is child.key and key is not None:
        return rest[1], key, 2
    if rest[1] is child.value and (key is None) == isinstance(child, cst.StarredDictElement):
        return rest[1], value, 2
    return None
