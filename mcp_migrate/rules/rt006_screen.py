"""RT006's screens, without LibCST: the flag's spellings, and a `listChanged` key or keyword on a
roots capability as the standard library's `ast` shows it. The rule (`rt006_list_changed_flag`)
inherits them."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import holds
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.vocabulary.capabilities_screen import LIST_CHANGED_FLAGS as _FLAGS
from mcp_migrate.vocabulary.capabilities_screen import roots_members

#: The keywords through which a model's field gets its value (pydantic `Field`, dataclasses `field`).
_DEFAULT_KEYWORDS = frozenset({"default", "default_factory"})


def _screen_roots_target(node) -> bool:
    targets = node.targets if node.__class__ is ast.Assign else [node.target]
    return node.value is not None and any(
        t.__class__ in (ast.Name, ast.Attribute) and screen_last_identifier(t) == "roots" for t in targets
    )


def _screen_defaults(value) -> list:
    """`value`, and what it gives through a lambda or a `default=`/`default_factory=` keyword
    (the same steps `_roots_holder` takes up)."""
    found, stack = [], [value]
    while stack:
        current = stack.pop()
        found.append(current)
        if current.__class__ is ast.Lambda:
            stack.append(current.body)
        elif current.__class__ is ast.Call:
            stack.extend(k.value for k in current.keywords if k.arg in _DEFAULT_KEYWORDS)
    return found


def _screen_flag_dict(value) -> bool:
    return value.__class__ is ast.Dict and any(key is not None and screen_string(key) in _FLAGS for key in value.keys)


class ListChangedFlagScreen(Rule):
    """The screens `ListChangedFlag` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT006"

    SCREEN = (b"listChanged", b"list_changed")

    #: The flag as a dict key writes it (`{"listChanged": True}`), each quote.
    FLAG_KEYS = tuple(quote + flag + quote for flag in SCREEN for quote in (b'"', b"'"))

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """`screen_tree`'s shapes in bytes: a flag given to a `*RootsCapability`, whose name the
        file spells; or a flag key in a dict under `roots`. A `.list_changed` read or a
        `tool_list_changed_callback=` is neither (fast-agent's 159 KB aggregator, context-forge's
        session registry: 0.3 MB of modules read with `ast` for nothing)."""
        if not any(holds(data, token) for token in cls.SCREEN):
            return False
        if holds(data, b"RootsCapability"):
            return True
        return b"roots" in data and any(key in data for key in cls.FLAG_KEYS)

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A flag given to RootsCapability or a `*RootsCapability` of a project's own, or a flag
        key in a dict under a `"roots"` key or `roots=` (in a capabilities mapping or, a shape
        let through for the rule to learn, anywhere). False flags count too."""
        for flag in _FLAGS:
            for call, _ in syntax.keyword_calls(flag):
                name = screen_last_identifier(call.func) or ""
                if name.endswith("RootsCapability") or syntax.names_symbol(call.func, "RootsCapability"):
                    return True
        members = roots_members(syntax) + [value for _, value in syntax.keyword_calls("roots")]
        members += [node.value for node in syntax.of(ast.AnnAssign, ast.Assign) if _screen_roots_target(node)]
        for member in members:
            if any(_screen_flag_dict(value) for value in _screen_defaults(member)):
                return True
        return False
