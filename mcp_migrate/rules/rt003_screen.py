"""RT003's screens, without LibCST: the capability tokens, and each declaration or probe the rule
reports as the standard library's `ast` shows it. The rule (`rt003_roots_capability`) inherits them."""

from __future__ import annotations

import ast
import re

from mcp_migrate.core.byte_code import GAP, ends_before, holds, whole_words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import none_or_false
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.vocabulary.capabilities_screen import capability_dicts, roots_members
from mcp_migrate.vocabulary.wire_names import CAPABILITY_KEYS

_ROOTS = b"roots"
#: What follows `roots` named as a field or a keyword (`roots: X`, `roots = X`, `roots=`).
_FIELD_AFTER = lazy_compile(GAP + rb"[=:]")
#: What comes before `roots` read as an attribute (`caps.roots`, `caps . roots`, a comment between).
_ATTRIBUTE_BEFORE = lazy_compile(rb"\." + GAP + rb"$")


def _roots_named(data: bytes, shaped) -> bool:
    """Whether `shaped(at)` holds of an offset where `roots` is a whole name (not
    `roots_configured`, `exception_module_roots`)."""
    return any(shaped(at) for at in whole_words(data, _ROOTS))


#: Names of a variable or attribute that holds client capabilities (`caps`, `client_capabilities`).
_CAPABILITIES_NAME = lazy_compile(r"(?:^|_)(?:client_?)?cap(?:abilitie)?s$", re.IGNORECASE)


def _capabilities_named_tree(node) -> bool:
    """`_capabilities_named` on the standard library's nodes."""
    name = screen_last_identifier(node)
    return name is not None and _CAPABILITIES_NAME.search(name) is not None


def _roots_probe_tree(syntax) -> bool:
    """`capabilities.get("roots")`, `"roots" in client_caps`: a probe of a capabilities mapping
    by key (a shape the rule does not report yet, let through)."""
    for call in syntax.method_calls("get"):
        if call.args and screen_string(call.args[0]) == "roots" and _capabilities_source(call.func.value):
            return True
    for node in syntax.of(ast.Compare):
        if screen_string(node.left) == "roots" and any(op.__class__ in (ast.In, ast.NotIn) for op in node.ops):
            if any(_capabilities_source(c) for c in node.comparators):
                return True
    return False


def _capabilities_source(node) -> bool:
    """A caps-named value, or a `.get(...)` of a capabilities key (`session.get("client_capabilities")`)."""
    if _capabilities_named_tree(node):
        return True
    if node.__class__ is ast.Call and node.func.__class__ is ast.Attribute and node.func.attr == "get" and node.args:
        key = screen_string(node.args[0]) or ""
        return key in CAPABILITY_KEYS or _CAPABILITIES_NAME.search(key) is not None
    return False


def _boolean_tree(node) -> bool:
    return node.__class__ is ast.Constant and node.value.__class__ is bool


def _roots_field(node: ast.ClassDef) -> bool:
    """A `roots` field of a class body (`roots: X = value`, `roots = value`) with a value that
    is not None or False (`_fields` / `_field_name`)."""
    target: ast.expr
    for stmt in node.body:
        if stmt.__class__ is ast.AnnAssign:
            target, value = stmt.target, stmt.value
        elif stmt.__class__ is ast.Assign:
            target, value = stmt.targets[0], stmt.value
        else:
            continue
        if target.__class__ is ast.Name and target.id == "roots" and value is not None and not none_or_false(value):
            return True
    return False


class RootsCapabilityScreen(Rule):
    """The screens `RootsCapabilityDeclared` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT003"

    SCREEN = (b"ClientCapabilities", b"RootsCapability")

    #: `roots=`, a `"roots"` key or `.roots`: every finding names roots. A `roots` key or
    #: attribute counts only beside a capabilities word (sympy is full of roots); the name
    #: `roots` counts whole, with whatever Python allows around it (`roots = X`, `caps .
    #: roots`): a screen that knew only `roots=` and `.roots` dropped a `roots = {}` field of a
    #: `*Capabilities` class, and let longer names through (`status.roots_configured`,
    #: fast-agent's `exception_module_roots:`, which sent its 66 KB module to `ast`).
    KEYS = (b'"roots"', b"'roots'")

    #: A capabilities mapping is keyed or named `capabilities` (raw initialize params, the
    #: `_meta` key, `capabilities=`), or lives in a file that imports an MCP SDK. A project's
    #: own capability model (`*Capabilities(roots=...)`, a `roots` field of a `*Capabilities`
    #: class, a stand-in under `capabilities=`) holds the word itself.
    CAPABILITY_WORDS = (b"apabilities", b"mcp")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """The SDK's names; else `roots` as a field or keyword beside `apabilities`, or as a key
        or an attribute in a file with a capabilities word."""
        if any(holds(data, token) for token in cls.SCREEN):
            return True
        if b"apabilities" in data and _roots_named(
            data, lambda at: _FIELD_AFTER.match(data, at + len(_ROOTS)) is not None
        ):
            return True
        return any(t in data for t in cls.CAPABILITY_WORDS) and (
            any(t in data for t in cls.KEYS) or _roots_named(data, lambda at: ends_before(_ATTRIBUTE_BEFORE, data, at))
        )

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """What the visits below report, at the level of names and keywords: `roots=` (not
        None/False) on ClientCapabilities, on a project's `*Capabilities` or on a stand-in
        under a capabilities keyword; a RootsCapability call; `getattr(caps, "roots")`; a
        project's own RootsCapability class or a `*Capabilities` model with a roots field; a
        `"roots"` key in a capabilities mapping; `.roots` read on a capabilities-named value or
        where ClientCapabilities is named."""
        under_keyword = {id(kw.value) for call in syntax.calls() for kw in call.keywords if kw.arg in CAPABILITY_KEYS}
        for call, value in syntax.keyword_calls("roots"):
            if none_or_false(value):
                continue
            name = screen_last_identifier(call.func) or ""
            if name.endswith("Capabilities") or id(call) in under_keyword:
                return True
            if syntax.names_symbol(call.func, "ClientCapabilities"):
                return True
        if syntax.calls_to("RootsCapability"):
            return True
        for call in syntax.calls_to("getattr"):
            args = call.args
            if len(args) >= 2 and screen_string(args[1]) == "roots" and _capabilities_named_tree(args[0]):
                return True
        for node in syntax.of(ast.ClassDef):
            if node.name.endswith("RootsCapability"):
                return True
            if node.name.endswith("Capabilities") and _roots_field(node):
                return True
        for mapping in capability_dicts(syntax):
            for key, value in zip(mapping.keys, mapping.values):
                if key is not None and screen_string(key) == "roots" and not _boolean_tree(value):
                    return True
        if any(value.__class__ is ast.Dict for value in roots_members(syntax)):
            return True  # a capability object under "roots" wherever it is written
        if _roots_probe_tree(syntax):
            return True
        if "roots" in syntax.attributes:
            typed = syntax.mentions("ClientCapabilities")
            for node in syntax.of(ast.Attribute):
                if node.attr == "roots" and (typed or _capabilities_named_tree(node.value)):
                    return True
        return False
