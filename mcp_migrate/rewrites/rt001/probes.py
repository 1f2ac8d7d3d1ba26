"""Capability probes around a roots request: `check_client_capability(ClientCapabilities(
roots=...))` or `...capabilities.roots`, the capabilities written inline or in a local assigned
once. A 2026-07-28 client declares no roots capability, so the rewrite unwraps a guard that
probes it and drops one that leaves early without it."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import iter_nodes, keyword, positional
from mcp_migrate.rewrites.names import is_store


def assigned_once(func: cst.FunctionDef, parents: dict) -> dict:
    """name -> the one `name = value` statement (cst.Assign) of the function's locals bound
    exactly once that way, in the order they are written."""
    stores: dict = {}
    assigns: dict = {}
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Name) and is_store(node, parents.get(id(node))):
            stores[node.value] = stores.get(node.value, 0) + 1
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            assigns.setdefault(node.targets[0].target.value, node)
    return {name: assign for name, assign in assigns.items() if stores.get(name) == 1}


def probes_roots(test: cst.BaseExpression, resolver, locals_: dict | None = None) -> bool:
    """`session.check_client_capability(ClientCapabilities(roots=...))` or `....capabilities.roots`;
    the capabilities may be a local assigned once (`caps = ClientCapabilities(roots=...)`,
    `locals_`: assigned_once's map)."""
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "check_client_capability"
    ):
        args = positional(test)
        given = args[0].value if len(args) == 1 else None
        if isinstance(given, cst.Name) and locals_ and given.value in locals_:
            given = locals_[given.value].value
        if isinstance(given, cst.Call):
            caps = given
            return (
                resolver.sdk_name(caps.func) == "ClientCapabilities"
                and keyword(caps, "roots") is not None
                and len(caps.args) == 1
            )
    if isinstance(test, cst.Attribute) and test.attr.value == "roots":
        owner = test.value
        return isinstance(owner, cst.Attribute) and owner.attr.value in ("capabilities", "client_capabilities")
    return False


def without_roots_refusal(test: cst.BaseExpression, resolver, locals_: dict | None = None):
    """What a guard that leaves early (`if <test>: return ...`) still tests once its refusal of
    clients without roots goes: None when `test` refuses nothing of the kind; `True` when the
    whole test is the refusal (`not caps.roots`, `caps.roots is None`: the guard goes); else the
    other conditions of an `or` it is part of (`params is None or params.capabilities.roots is
    None` keeps `params is None`: dwg-mcp-server's request helper)."""
    parts = _disjuncts(test)
    kept = [part for part in parts if not _refuses(part, resolver, locals_)]
    if len(kept) == len(parts):
        return None
    if not kept:
        return True
    joined = kept[0]
    for part in kept[1:]:
        joined = cst.BooleanOperation(left=joined, operator=cst.Or(), right=part)
    return joined


def _disjuncts(test: cst.BaseExpression) -> list:
    """The operands of an unparenthesised `a or b or c` (one operand otherwise)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or) and not test.lpar:
        return _disjuncts(test.left) + _disjuncts(test.right)
    return [test]


def _refuses(test: cst.BaseExpression, resolver, locals_: dict | None) -> bool:
    """`not <probe>` or `<probe> is None`: true for a client that declares no roots."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return probes_roots(test.expression, resolver, locals_)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        none = isinstance(target.comparator, cst.Name) and target.comparator.value == "None"
        return isinstance(target.operator, cst.Is) and none and probes_roots(test.left, resolver, locals_)
    return False
