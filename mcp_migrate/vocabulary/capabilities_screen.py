"""Capability mappings as the syntax screens see them (no LibCST): the dict displays that stand
where `vocabulary.capabilities.capability_mapping` can say yes, and every `"roots"` member."""

from __future__ import annotations

import ast
import re

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.screen import string
from mcp_migrate.vocabulary.wire_names import CAPABILITY_KEYS

#: The flag a roots capability carries (`listChanged` in the spec, `list_changed` in mcp 2.x).
LIST_CHANGED_FLAGS = ("listChanged", "list_changed")

#: Variable and attribute names that hold a capabilities mapping.
_CAPS_NAME = lazy_compile(r"capabilit|caps", re.IGNORECASE)


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
