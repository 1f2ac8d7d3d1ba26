"""RT003's screens, without LibCST: the capability tokens, and each declaration or probe the rule
reports as the standard library's `ast` shows it. The rule (`rt003_roots_capability`) inherits them."""

from __future__ import annotations

import ast
import re

from mcp_migrate.core.byte_code import CLOSE_GAP, GAP, OPEN_GAP, STATEMENT_GAP, ends_before, holds, offsets, whole_words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import none_or_false
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.vocabulary.capabilities_screen import capability_dicts, roots_members
from mcp_migrate.vocabulary.wire_names import CAPABILITY_KEYS

_ROOTS = b"roots"
#: How a name `_CAPABILITIES_NAME` may accept ends, in bytes (a superset: any case, any start).
_CAPS_WORD = rb"(?i:caps|capabilities)"
#: What follows `roots` named as a field (`roots: X`, `roots = X`, `(roots) = X`; not `roots == X`).
_FIELD_AFTER = lazy_compile(CLOSE_GAP + rb"(?::|=(?!=))")
#: What follows `roots` given by keyword (`roots=X`, `roots = X`).
_KEYWORD_AFTER = lazy_compile(GAP + rb"=(?!=)")
#: What comes before `roots` given by keyword: the call's `(` or the `,` after an argument.
_ARGUMENT_BEFORE = lazy_compile(rb"[(,]" + GAP + rb"$")
#: A class whose name ends with `Capabilities` (`class HostCapabilities(BaseModel):`): where a
#: `roots` field can be declared.
_CAPABILITIES_CLASS = lazy_compile(
    rb"(?<![A-Za-z0-9_])class" + STATEMENT_GAP + rb"[A-Za-z0-9_]*Capabilities(?![A-Za-z0-9_])"
)
#: What comes before `roots` read as an attribute of a capabilities-named value (`caps.roots`,
#: `client_capabilities . roots`, a comment between): `_CAPABILITIES_NAME`'s ends, any case.
_CAPS_ATTRIBUTE_BEFORE = lazy_compile(_CAPS_WORD + CLOSE_GAP + rb"\." + GAP + rb"$")
#: A `"roots"` literal read as a dict key: after the display's `{` or an entry's `,` (not an
#: `if kind == "roots":`), and before its `:`.
_KEY_BEFORE = lazy_compile(rb"[{,]" + OPEN_GAP + rb"$")
_KEY_AFTER = lazy_compile(CLOSE_GAP + rb":")
#: What follows a `"roots"` literal tested with `in` (`"roots" not in caps`): the tested
#: value's dotted name, if it starts with one, and the bracket after it, if any.
_KEY_TESTED = lazy_compile(
    CLOSE_GAP
    + rb"(?:not"
    + GAP
    + rb")?in(?![A-Za-z0-9_])"
    + GAP
    + rb"(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:"
    + GAP
    + rb"\."
    + GAP
    + rb"[A-Za-z_][A-Za-z0-9_]*)*)?"
    + GAP
    + rb"(?P<open>[(\[])?"
)
#: What follows a `"roots"` literal given as an argument.
_KEY_GIVEN = lazy_compile(GAP + rb"[,)]")
#: What comes before a `"roots"` argument the syntax screen reads: the second of
#: `getattr(caps, "roots")`, or the first of a `.get(` of a capabilities-named value or of a
#: value the bytes cannot name (`caps.get("roots")`, `params.get("capabilities").get("roots")`).
_PROBE_BEFORE = lazy_compile(
    rb"(?:"
    + _CAPS_WORD
    + CLOSE_GAP
    + rb","
    + OPEN_GAP
    + rb"|(?:"
    + _CAPS_WORD
    + rb"|[)\]])"
    + GAP
    + rb"\."
    + GAP
    + rb"get"
    + GAP
    + rb"\("
    + OPEN_GAP
    + rb")$"
)
#: A name `_CAPABILITIES_NAME` may accept, at the end of a dotted name's bytes.
_CAPS_NAME_END = lazy_compile(_CAPS_WORD + rb"$")
#: The last name of a dotted name's bytes.
_LAST_NAME = lazy_compile(rb"[A-Za-z0-9_]+$")


def _tested_capabilities(name: bytes | None, opened: bytes | None) -> bool:
    """Whether the value an `in` test reads (`_KEY_TESTED`: its dotted name's bytes, if it
    starts with one, and the bracket after them) may be `_capabilities_source`'s: a
    capabilities-named name, a `.get(...)` call, or what the bytes cannot name (`(caps)`); a
    subscript or another call never is (`"roots" in context["ui_hidden"]`)."""
    if name is None:
        return True
    if opened == b"(":
        last = _LAST_NAME.search(name)
        return last is not None and last.group() == b"get"
    return opened is None and _CAPS_NAME_END.search(name) is not None


def _roots_named(data: bytes, shaped) -> bool:
    """Whether `shaped(at)` holds of an offset where `roots` is a whole name (not
    `roots_configured`, `exception_module_roots`)."""
    return any(shaped(at) for at in whole_words(data, _ROOTS))


def _given_or_field(data: bytes, at: int) -> bool:
    """`roots` at `at` given by keyword (`Caps(roots=...)`, `f(x, roots = {})`), or a field
    (`roots: X`, `roots = X`) in a file that declares a `*Capabilities` class: a plain
    `roots = server_cfg.roots` elsewhere is no capability (fast-agent's 159 KB aggregator)."""
    end = at + len(_ROOTS)
    if _KEYWORD_AFTER.match(data, end) is not None and ends_before(_ARGUMENT_BEFORE, data, at):
        return True
    return _FIELD_AFTER.match(data, end) is not None and _CAPABILITIES_CLASS.search(data) is not None


def _keyed(data: bytes, key: bytes) -> bool:
    """The literal `key` (`"roots"`) somewhere the rule reads it: a dict key, an `in` test of a
    capabilities-named value (or one the bytes cannot name), `getattr(caps, "roots")` or
    `caps.get("roots")`; not Dev10x's `config.get("roots", [])`, a gateway's `"roots" in
    normalized_include`, `context["roots"]` (no visit reads a subscript) or list of section
    names, nor a sentence (`"Uses MCP 'roots'"`)."""
    for at in offsets(data, key):
        end = at + len(key)
        if _KEY_AFTER.match(data, end) is not None and ends_before(_KEY_BEFORE, data, at):
            return True
        tested = _KEY_TESTED.match(data, end)
        if tested is not None:
            if _tested_capabilities(tested.group("name"), tested.group("open")):
                return True
        elif _KEY_GIVEN.match(data, end) is not None and ends_before(_PROBE_BEFORE, data, at):
            return True
    return False


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
    #: fast-agent's `exception_module_roots:`, which sent its 66 KB module to `ast`). Each
    #: counts only where `screen_tree` can read it (`_given_or_field`, `_keyed`, an attribute of
    #: a capabilities-named value): a local `roots = cfg.roots` or `config.get("roots")` sent
    #: 0.6 MB of fast-agent's and Dev10x's modules to `ast` for nothing.
    KEYS = (b'"roots"', b"'roots'")

    #: A capabilities mapping is keyed or named `capabilities` (raw initialize params, the
    #: `_meta` key, `capabilities=`), or lives in a file that imports an MCP SDK. A project's
    #: own capability model (`*Capabilities(roots=...)`, a `roots` field of a `*Capabilities`
    #: class, a stand-in under `capabilities=`) holds the word itself.
    CAPABILITY_WORDS = (b"apabilities", b"mcp")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """The SDK's names; else, beside `apabilities`, `roots` given by keyword or as a field of
        a `*Capabilities` class; else, in a file with a capabilities word, a `"roots"` key, test
        or probe, or `.roots` read on a capabilities-named value (what `screen_tree` reads)."""
        if any(holds(data, token) for token in cls.SCREEN):
            return True
        if b"apabilities" in data and _roots_named(data, lambda at: _given_or_field(data, at)):
            return True
        return any(t in data for t in cls.CAPABILITY_WORDS) and (
            any(_keyed(data, key) for key in cls.KEYS)
            or _roots_named(data, lambda at: ends_before(_CAPS_ATTRIBUTE_BEFORE, data, at))
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
