"""A project's own client API for roots, read from its code: roots setters (`set_roots_provider`,
`register_roots_callback`, `add_root`), the arguments that are roots or providers, and the
functions a `list_roots_callback=` value names (providers by their use), and what a provider's
body returns."""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.sdk import LIST_ROOTS_RESULT
from mcp_migrate.core.syntax import iter_nodes, literal, method_name


def stores_roots(func: cst.FunctionDef) -> bool:
    """The function assigns or appends to an attribute named for roots (`self._roots = ...`,
    `self._roots.append(...)`, `self.roots_provider = p`), or sends roots/list_changed."""
    for node in iter_nodes(func.body):
        if _roots_attribute(_stored_in(node)):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "send_roots_list_changed":
                return True
    return False


def stored_roots_attributes(func: cst.FunctionDef) -> set:
    """The `self.<attr>` names a setter stores roots in (`self._roots.append(root)`,
    `self._roots = list(roots)`): what a getter of the same class would return."""
    found = set()
    for node in iter_nodes(func.body):
        target = _stored_in(node)
        if _self_attribute(target) and _roots_attribute(target):
            found.add(target.attr.value)
    return found


#: The methods that add to a collection in place.
_ADDERS = ("append", "add", "extend", "update", "insert")


def _stored_in(node):
    """What a node stores into: an assignment's target, the collection an adder is called on
    (`x.append(...)`); a subscript's container (`self._roots[k] = v`). None for other nodes."""
    target = None
    if isinstance(node, cst.AssignTarget):
        target = node.target
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _ADDERS:
        target = node.func.value
    return target.value if isinstance(target, cst.Subscript) else target


def returns_stored(func: cst.FunctionDef, attributes: set) -> bool:
    """A getter of one of `attributes`: a method taking nothing but `self` that returns
    `self.<attr>`, a copy of it (`list(...)`, `tuple(...)`, `.copy()`, `copy.copy(...)`) or a
    comprehension over it."""
    params = func.params
    if params.posonly_params or params.kwonly_params or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT):
        return False
    if [p.name.value for p in params.params] != ["self"]:
        return False
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Return) and node.value is not None and _reads_stored(node.value, attributes):
            return True
    return False


def _reads_stored(value: cst.BaseExpression, attributes: set) -> bool:
    if _self_attribute(value):
        return value.attr.value in attributes
    if isinstance(value, cst.Call):
        name = method_name(value)
        if name == "copy" and isinstance(value.func, cst.Attribute) and not value.args:
            return _reads_stored(value.func.value, attributes)
        if name in ("list", "tuple", "copy", "deepcopy", "sorted") and len(value.args) == 1:
            return _reads_stored(value.args[0].value, attributes)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return _reads_stored(value.for_in.iter, attributes)
    return False


def _self_attribute(expr) -> bool:
    return isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"


def _roots_attribute(expr) -> bool:
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    return isinstance(expr, cst.Attribute) and "root" in expr.attr.value.lower()


def returns_an_attribute(func: cst.FunctionDef) -> bool:
    """A getter: the body returns an attribute (`return self._provider`), building nothing."""
    returns = [n for n in iter_nodes(func.body) if isinstance(n, cst.Return)]
    return bool(returns) and all(isinstance(r.value, cst.Attribute) for r in returns)


#: A name that says it asks for roots rather than holding them (`send_roots_request`).
_ASKING_WORDS = lazy_compile(r"send|request|fetch|ask|query", re.IGNORECASE)


def roots_argument(value: cst.BaseExpression, resolver) -> bool:
    """An argument that is roots or their provider: `Root(...)`, a `file://` literal, a list of
    either, a name or attribute named for roots, a provider or a callback, a roots-named call
    (not one named for asking: `set_roots_fn(self.send_roots_request)` wires a request)."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return any(roots_argument(e.value, resolver) for e in value.elements)
    text = literal(value)
    if text is not None:
        return text.lower().startswith("file:")
    if isinstance(value, cst.Call):
        name = method_name(value) or ""
        return resolver.mcp_name(value.func) == "Root" or "root" in name.lower()
    name = value.attr.value if isinstance(value, cst.Attribute) else value.value if isinstance(value, cst.Name) else ""
    lowered = name.lower()
    if _ASKING_WORDS.search(lowered):
        return False
    return "root" in lowered or "provider" in lowered or "callback" in lowered


def callables_named(value: cst.BaseExpression, ancestors: list) -> set:
    """The names of this file's functions a `list_roots_callback=` value refers to: `cb`,
    `self._cb` (or `client._cb` on an instance), either branch of `a if flag else b`, and a local bound to one of those in the
    enclosing function (`cb = self._cb if ... else None`)."""
    found: set = set()
    stack = [value]
    scopes = [a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)]
    seen = 0
    while stack and seen < 16:
        seen += 1
        expr = stack.pop()
        if isinstance(expr, cst.IfExp):
            stack.extend((expr.body, expr.orelse))
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            found.add(expr.attr.value)  # `self._cb`, `client._cb`: reported only if this file defines it
        elif isinstance(expr, cst.Name) and expr.value not in ("None", "True", "False"):
            found.add(expr.value)
            bound = _local_value(scopes, expr.value)
            if bound is not None:
                stack.append(bound)
    return found


def bound_value(ancestors: list, name: str):
    """The value a name holds where it is read: its one plain assignment in the innermost
    enclosing function that assigns it (`roots = [Root(...)]` above `Client(roots=roots)`), or,
    outside any function, in the module's own statements; else None."""
    scopes = [a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)]
    if scopes and any(_assignments(scope, name) for scope in scopes):
        return _local_value(scopes, name)
    module = ancestors[0] if ancestors and isinstance(ancestors[0], cst.Module) else None
    if module is None:
        return None
    values = [
        small.value
        for stmt in module.body
        if isinstance(stmt, cst.SimpleStatementLine)
        for small in stmt.body
        if isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    ]
    return values[0] if len(values) == 1 else None


def _local_value(scopes: list, name: str):
    """The value of the one plain assignment `name = value` in the innermost enclosing function
    that assigns `name` (a closure reads its enclosing function's locals), else None."""
    for scope in scopes:
        values = _assignments(scope, name)
        if values:
            return values[0] if len(values) == 1 else None
    return None


def _assignments(scope: cst.FunctionDef, name: str) -> list:
    """The values of the plain assignments `name = value` anywhere in a function's body."""
    return [
        node.value
        for node in iter_nodes(scope.body)
        if isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0].target, cst.Name)
        and node.targets[0].target.value == name
    ]


def returns_built(body, resolver, built=frozenset({LIST_ROOTS_RESULT})) -> bool:
    """Does the function's own body (not nested functions) `return ListRootsResult(...)` (or,
    with `built`, another of those types)?"""
    stack = list(statements_of(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            stack.extend(stmt.body)
        elif isinstance(stmt, cst.Return):
            value = stmt.value
            if isinstance(value, cst.Call) and resolver.mcp_name(value.func) in built:
                return True
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for part in ("body", "orelse", "finalbody"):
                stack.extend(statements_of(getattr(stmt, part, None)))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(statements_of(handler.body))
    return False


def statements_of(block) -> list:
    """The statements of a block-like field: an IndentedBlock, a one-line suite, an `else:` /
    `finally:` clause, or an `elif` (an If, itself a statement)."""
    if block is None or isinstance(block, cst.BaseExpression):
        return []
    if isinstance(block, cst.If):
        return [block]
    inner = getattr(block, "body", None)
    if isinstance(inner, (list, tuple)):
        return list(inner)
    return statements_of(inner)
