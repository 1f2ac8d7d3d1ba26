"""Capability probes around a roots request: `check_client_capability(ClientCapabilities(
roots=...))` or `...capabilities.roots`, the capabilities written inline or in a local assigned
once. A 2026-07-28 client declares no roots capability, so the rewrite unwraps a guard that
probes it and drops one that leaves early without it."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import iter_nodes, keyword, positional
from mcp_migrate.rewrites.names import is_store


def assigned_once(func: cst.FunctionDef, parents: dict) -> dict:
    """name -> value of the function's locals bound exactly once, by `name = value`."""
    stores: dict = {}
    values: dict = {}
    for node in iter_nodes(func.body):
        if isinstance(node, cst.Name) and is_store(node, parents.get(id(node))):
            stores[node.value] = stores.get(node.value, 0) + 1
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            values[node.targets[0].target.value] = node.value
    return {name: value for name, value in values.items() if stores.get(name) == 1}


def probes_roots(test: cst.BaseExpression, resolver, locals_: dict | None = None) -> bool:
    """`session.check_client_capability(ClientCapabilities(roots=...))` or `....capabilities.roots`;
    the capabilities may be a local assigned once (`caps = ClientCapabilities(roots=...)`,
    `locals_`: name -> value)."""
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "check_client_capability"
    ):
        args = positional(test)
        given = args[0].value if len(args) == 1 else None
        if isinstance(given, cst.Name) and locals_:
            given = locals_.get(given.value, given)
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
