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
