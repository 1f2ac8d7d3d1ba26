"""The Roots vocabulary the rules share: wire-method strings, capability keys, and where a
wire-method string sits (a request built by hand, a dispatch, a constant...)."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from mcp_migrate.core.syntax import literal, method_name

ROOTS_LIST = "roots/list"
LIST_CHANGED = "notifications/roots/list_changed"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
#: Mapping keys and keyword names under which a client-capabilities mapping lives.
CAPABILITY_KEYS = frozenset({"capabilities", "clientCapabilities", "client_capabilities", CLIENT_CAPABILITIES_META_KEY})
#: Variable and attribute names that hold a capabilities mapping.
_CAPS_NAME = re.compile(r"capabilit|caps", re.IGNORECASE)


def string_context(ancestors: list) -> Optional[str]:
    """Classify where the string literal at `ancestors[-1]` sits.

    Returns "request" (value of a "method" key: a message built by hand), "send" (first argument
    of a send_*/add_*handler call: the caller's name says which), "dispatch" (compared against,
    matched in a case, or used as a dispatch-table key or subscript), "constant" (a module or
    class constant), or None (anything else: log text, docstrings, unrelated data)."""
    node = ancestors[-1]
    i = len(ancestors) - 2
    # Step over implicit concatenation and parentheses-only wrappers.
    while i >= 0 and isinstance(ancestors[i], cst.ConcatenatedString):
        node, i = ancestors[i], i - 1
    if i < 0:
        return None
    parent = ancestors[i]
    if isinstance(parent, cst.DictElement):
        if parent.value is node and literal(parent.key) == "method":
            return "request"
        if parent.key is node:
            return "dispatch"
        return None
    if isinstance(parent, cst.Arg):
        call = ancestors[i - 1] if i >= 1 else None
        if isinstance(call, cst.Call) and parent.keyword is None and call.args and call.args[0] is parent:
            return "call:" + (method_name(call) or "")
        if isinstance(call, cst.Call) and parent.keyword is not None and parent.keyword.value == "method":
            return "call:" + (method_name(call) or "")
        return None
    if isinstance(parent, cst.ComparisonTarget) or isinstance(parent, cst.Comparison):
        return "dispatch"
    if isinstance(parent, (cst.MatchValue, cst.SubscriptElement, cst.Index)):
        return "dispatch"
    if isinstance(parent, (cst.Element,)) and i >= 1 and isinstance(ancestors[i - 1], (cst.Tuple, cst.Set, cst.List)):
        # `method in ("roots/list", ...)`
        j = i - 2
        if j >= 0 and isinstance(ancestors[j], (cst.ComparisonTarget, cst.Comparison)):
            return "dispatch"
        return None
    if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
        return "constant"
    return None


def capability_mapping(resolver, ancestors: list, dict_index: int) -> bool:
    """Is the Dict at ancestors[dict_index] a client-capabilities mapping?"""
    parent = ancestors[dict_index - 1] if dict_index >= 1 else None
    if isinstance(parent, cst.DictElement) and parent.value is ancestors[dict_index]:
        key = literal(parent.key)
        if key in CAPABILITY_KEYS:
            return True
        return resolver.sdk_name(parent.key) == "CLIENT_CAPABILITIES_META_KEY"
    if isinstance(parent, cst.Arg) and parent.keyword is not None:
        if parent.keyword.value in CAPABILITY_KEYS:
            return True
        call = ancestors[dict_index - 2]
        return isinstance(call, cst.Call) and resolver.sdk_name(call.func) == "ClientCapabilities"
    if isinstance(parent, cst.Arg) and dict_index >= 2:
        call = ancestors[dict_index - 2]
        return (
            isinstance(call, cst.Call)
            and resolver.sdk_name(call.func) == "ClientCapabilities"
            or (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and resolver.sdk_name(call.func.value) == "ClientCapabilities"
            )
        )
    if isinstance(parent, (cst.Assign, cst.AnnAssign)):
        targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
        for t in targets:
            target = t.target
            name = target.value if isinstance(target, cst.Name) else getattr(getattr(target, "attr", None), "value", "")
            if name and _CAPS_NAME.search(name):
                return True
    return False


def is_session_name(expr: cst.BaseExpression, resolver) -> bool:
    """A receiver named like a session (`session`, `self._server_session`, `client_session`)
    whose value the resolver knows nothing about (not an import, not a typed non-SDK object)."""
    if isinstance(expr, cst.Name):
        name = expr.value
        binding = resolver.lookup(name)
        if binding is not None and (binding.is_import or not binding.name.startswith(("mcp", "fastmcp"))):
            return False
    elif isinstance(expr, cst.Attribute):
        name = expr.attr.value
    else:
        return False
    return name == "session" or name.endswith("_session")
