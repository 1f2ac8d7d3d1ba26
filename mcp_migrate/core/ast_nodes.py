"""The standard library's syntax trees walked by their grammar: each node kind's fields that
can hold a syntax node, read once from the kind's signature (`_plan`), so a walk never looks at
names, numbers, expression contexts or operators. The syntax screen's index (core.screen), the
partial parse (core.partial, core.alone) and the screens' own walks read trees through it; a
statement's first line is placed here too (core.nesting, core.suppress, core.positions)."""

from __future__ import annotations

import ast
from typing import Any

from mcp_migrate.core.lazy_regex import lazy_compile

#: Fields that never hold a syntax node worth indexing (expression contexts, operators).
_SKIPPED_FIELDS = frozenset({"ctx", "op", "ops"})
#: The types of the grammar (ASDL) whose fields hold no syntax node worth indexing: plain
#: values, expression contexts and operators.
_NOT_NODES = frozenset(
    {"constant", "identifier", "int", "string", "expr_context", "boolop", "operator", "unaryop", "cmpop"}
)
_SIGNATURE = lazy_compile(r"\w+\((.*)\)")
#: A field's kind in a plan: one node or None, a list of nodes (a `None` among them: a dict's
#: `**` entry, a keyword-only parameter without a default), or not known (test each value).
_ONE, _MANY, _UNKNOWN = 0, 1, 2
_PLANS: dict = {}
_SPLIT_PLANS: dict = {}


def _plan(kind: type) -> tuple:
    """(field, its kind) for each field of `kind` that can hold a syntax node, in field order,
    from the class's grammar signature (its docstring, `Dict(expr* keys, expr* values)`): a
    name or a number is never looked at. A class whose signature cannot be read (another
    Python) has every field but contexts and operators, each value tested as it is met."""
    plan = _PLANS.get(kind)
    if plan is not None:
        return plan
    fields = tuple(getattr(kind, "_fields", ()))
    lines = (kind.__doc__ or "").strip().splitlines()
    match = _SIGNATURE.fullmatch(lines[0]) if lines and fields else None
    parts = [part.rsplit(" ", 1) for part in match.group(1).split(", ")] if match else []
    if match is not None and all(len(part) == 2 for part in parts) and tuple(n for _, n in parts) == fields:
        plan = tuple(
            (name, _MANY if kind_.endswith("*") else _ONE)
            for kind_, name in parts
            if kind_.rstrip("*?") not in _NOT_NODES
        )
    else:
        plan = tuple((name, _UNKNOWN) for name in fields if name not in _SKIPPED_FIELDS)
    _PLANS[kind] = plan
    return plan


def _split_plan(kind: type) -> tuple:
    """`_plan` as (fields of one node, fields of a list, fields not known), for a walk that
    needs no order."""
    split = _SPLIT_PLANS.get(kind)
    if split is None:
        plan = _plan(kind)
        split = _SPLIT_PLANS[kind] = tuple(
            tuple(name for name, k in plan if k == want) for want in (_ONE, _MANY, _UNKNOWN)
        )
    return split


def all_nodes(node: ast.AST) -> list:
    """The syntax nodes under `node` (itself included), as `ast.walk` gives them but in no set
    order and without expression contexts and operators, which hold no syntax: `index_nodes`'
    walk over the grammar's plans of each kind, at about half `ast.walk`'s cost (issue 37: a
    1.26 MB test module's definitions are walked for the names they spell, core.alone)."""
    return [found for bucket in index_nodes(node).values() for found in bucket]


def index_nodes(node: ast.AST, by: dict | None = None) -> dict:
    """The syntax nodes under `node` (itself included) by kind, each kind's in the order of one
    walk, added to `by` where given: what `Syntax` reads a module from."""
    if by is None:
        by = {}
    stack: list = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    node_type, plans = ast.AST, _SPLIT_PLANS
    # Written out: through a generator, every screened file's index took 1.3-1.4x as long
    # (test_admin.py: 0.061 s against 0.043 s).
    while stack:  # an explicit stack: no recursion limit on deeply nested code
        node = pop()
        if node is None:  # from a list field (`{**x}`'s key)
            continue
        kind = node.__class__
        bucket = by.get(kind)
        if bucket is None:
            by[kind] = [node]
        else:
            bucket.append(node)
        ones, manies, unknown = plans.get(kind) or _split_plan(kind)
        for name in ones:
            value = getattr(node, name, None)
            if value is not None:
                push(value)
        for name in manies:
            extend(getattr(node, name, None) or ())
        for name in unknown:
            value = getattr(node, name, None)
            if value.__class__ is list:
                extend(item for item in value if isinstance(item, node_type))
            elif isinstance(value, node_type):
                push(value)
    return by


def child_nodes(node: ast.AST) -> list:
    """The nodes right below `node` in `ast.iter_child_nodes`' order, less the expression
    contexts and operators (no screen asks for one): a list read from the node's fields, a
    few times faster than that generator on a whole module."""
    out: list = []
    for name, kind in _PLANS.get(node.__class__) or _plan(node.__class__):
        value = getattr(node, name, None)
        if kind == _ONE:
            if value is not None:
                out.append(value)
        elif kind == _MANY:
            if value:
                out.extend(item for item in value if item is not None)
        elif value.__class__ is list:
            out.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


#: The definitions: a statement with a name and a body of its own statements.
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def first_line(stmt: Any) -> int:
    """A statement's first line: its first decorator's, for a decorated definition (a
    definition's `lineno` is its `def` or `class` line)."""
    decorators = getattr(stmt, "decorator_list", None)
    return decorators[0].lineno if decorators else stmt.lineno
