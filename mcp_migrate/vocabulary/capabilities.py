"""Capability mappings: whether a dict or call holds a client's capabilities (where a `roots`
member is a capability declaration)."""

from __future__ import annotations

import ast
import re

import libcst as cst

from mcp_migrate.core.screen import string
from mcp_migrate.core.syntax import literal
from mcp_migrate.vocabulary.wire import CAPABILITY_KEYS
from mcp_migrate.vocabulary.words import last_identifier, words

#: Variable and attribute names that hold a capabilities mapping.
_CAPS_NAME = re.compile(r"capabilit|caps", re.IGNORECASE)


#: The flag a roots capability carries (`listChanged` in the spec, `list_changed` in mcp 2.x).
LIST_CHANGED_FLAGS = ("listChanged", "list_changed")


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


def capability_dicts(syntax) -> list:
    """The syntax screen's twin of `capability_mapping`: every dict display that stands where
    that test can say yes (the value of a capabilities key or keyword, an argument of
    `ClientCapabilities(...)` or of one of its methods, the value bound to a caps-named
    target or returned by a caps-named function), also as a branch of a conditional expression or an operand of `or`/`and` standing
    there (RT003's `{"roots": {}} if roots else {}`, `capabilities or {...}`)."""
    slots = []
    for node in syntax.of(ast.Dict):
        for key, value in zip(node.keys, node.values):
            if key is not None and (
                string(key) in CAPABILITY_KEYS or syntax.names_symbol(key, "CLIENT_CAPABILITIES_META_KEY")
            ):
                slots.append(value)
    for call in syntax.calls():
        caps_call = syntax.names_symbol(call.func, "ClientCapabilities")
        if caps_call or (
            call.func.__class__ is ast.Attribute and syntax.names_symbol(call.func.value, "ClientCapabilities")
        ):
            slots.extend(call.args)
            slots.extend(kw.value for kw in call.keywords)
        else:
            slots.extend(kw.value for kw in call.keywords if kw.arg in CAPABILITY_KEYS)
    for node in syntax.of(ast.Assign, ast.AnnAssign):
        targets = node.targets if node.__class__ is ast.Assign else [node.target]
        for target in targets:
            name = target.id if target.__class__ is ast.Name else getattr(target, "attr", "")
            if name and _CAPS_NAME.search(name) and node.value is not None:
                slots.append(node.value)
                break
    for function in syntax.of(ast.FunctionDef, ast.AsyncFunctionDef):
        if _CAPS_NAME.search(function.name):
            slots.extend(node.value for node in ast.walk(function) if node.__class__ is ast.Return and node.value)
    found = []
    while slots:
        value = slots.pop()
        if value.__class__ is ast.Dict:
            found.append(value)
        elif value.__class__ is ast.IfExp:  # `{...} if roots else {}`
            slots.extend((value.body, value.orelse))
        elif value.__class__ is ast.BoolOp:  # `capabilities or {...}`
            slots.extend(value.values)
    return found


def roots_members(syntax) -> list:
    """The values of every `"roots"` key of a dict display, in a capabilities mapping or not
    (`_create_session(handler, {"roots": {"listChanged": True}})`, `return {"roots": {...}}`): a
    roots capability written where no mapping says so yet is a shape the screens let through."""
    return [
        value
        for node in syntax.of(ast.Dict)
        for key, value in zip(node.keys, node.values)
        if key is not None and string(key) == "roots"
    ]
