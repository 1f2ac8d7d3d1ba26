"""Capability mappings: whether a dict or call holds a client's capabilities (where a `roots`
member is a capability declaration)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import literal
from mcp_migrate.vocabulary.capabilities_screen import _CAPS_NAME, LIST_CHANGED_FLAGS
from mcp_migrate.vocabulary.wire_names import CAPABILITY_KEYS
from mcp_migrate.vocabulary.words import last_identifier, words


def roots_capability_shape(value: cst.BaseExpression) -> bool:
    """`{"listChanged": ...}` as the value of a `roots` key: a roots capability by its shape,
    wherever the mapping sits (a default argument, a helper's return, an `or` fallback). Nothing
    else is written that way."""
    return isinstance(value, cst.Dict) and any(
        isinstance(e, cst.DictElement) and literal(e.key) in LIST_CHANGED_FLAGS for e in value.elements
    )


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
    if isinstance(parent, cst.Return):
        # `def client_capabilities(): return {...}`: the helper's name says what it returns.
        function = next((a for a in reversed(ancestors[:dict_index]) if isinstance(a, cst.FunctionDef)), None)
        return function is not None and _CAPS_NAME.search(function.name.value) is not None
    if isinstance(parent, (cst.Assign, cst.AnnAssign)):
        targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
        for t in targets:
            target = t.target
            name = target.value if isinstance(target, cst.Name) else getattr(getattr(target, "attr", None), "value", "")
            if name and _CAPS_NAME.search(name):
                return True
    return False


def expected_value(ancestors: list) -> bool:
    """Whether the node under `ancestors` is what a test expects: compared with `==`/`!=`,
    asserted, bound to an `expected` name, or anywhere in a `test_*` function. Capability data
    there is kept (issue 12 #8, issue 20 §4: removing it broke, or emptied, the test that
    asserted it); the finding stays without a fix."""
    for anc in reversed(ancestors):
        if isinstance(anc, cst.Comparison) and any(
            isinstance(t.operator, (cst.Equal, cst.NotEqual)) for t in anc.comparisons
        ):
            return True
        if isinstance(anc, cst.Assert):
            return True
        if isinstance(anc, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
            if any("expected" in words(last_identifier(t) or "") for t in targets):
                return True
        if isinstance(anc, cst.FunctionDef) and anc.name.value.startswith("test"):
            return True
    return False
