"""HA002's screens, without LibCST: `require_approval=` / `require_confirmation=` set to never ask,
read on the standard library's `ast`. The rule (`ha002_approval_disabled`) inherits them."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import GAP, given_by_keyword
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.sdk import OPENAI_AGENTS, in_package


def _never_tree(node) -> str | None:
    """`_never` on the standard library's nodes."""
    if screen_string(node) == "never":
        return '"never"'
    if node.__class__ is ast.Constant and node.value is False:
        return "False"
    if node.__class__ is ast.Dict and node.keys:
        keys = [screen_string(k) if k is not None else None for k in node.keys]
        if any(k in ("always", "never") for k in keys):
            return None
        if all(k is not None for k in node.keys) and all(screen_string(v) == "never" for v in node.values):
            return '{...: "never"}'
    return None


#: `"require_approval":`, a mapping's key (a hosted MCP tool's configuration).
#: The openai-agents package's name: the keyword is its `MCPServer*`'s only (`screen_tree`).
_AGENTS = OPENAI_AGENTS.encode()
_APPROVAL_KEY = lazy_compile(rb"[\"']require_approval[\"']+" + GAP + rb":")


class ApprovalDisabledScreen(Rule):
    """The screens `ApprovalDisabled` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "HA002"

    SCREEN = (b"require_approval", b"require_confirmation")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """Where each finding stands, in bytes: `require_approval=` given by keyword or a
        `"require_approval":` key; `require_confirmation=` given with `False` in a module that
        names `google` (the rule resolves the call to `google.adk`, through this file's
        imports). Not the word inside another name: agent-framework's `always_require_approval`
        and `never_require_approval` let 13 of its modules through to the standard library's
        parser, 0.3 s of its check. The keyword counts only in a module that can import
        openai-agents (its name in the bytes): agent-framework's own `require_approval=` let 5
        more through."""
        if b"require_approval" in data and (
            (_AGENTS in data and given_by_keyword(data, b"require_approval")) or _APPROVAL_KEY.search(data) is not None
        ):
            return True
        return (
            b"require_confirmation" in data
            and b"google" in data
            and b"False" in data
            and given_by_keyword(data, b"require_confirmation")
        )

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """`require_approval=` that turns approval off for every tool, `require_confirmation=False`,
        or a `"require_approval"` key doing the same in a mapping."""
        # The rule's calls resolve through this file's imports only (core.resolve: a relative
        # import keeps its dots): a call of neither package's is no finding of it.
        imported = syntax.imported
        agents = any(in_package(name, OPENAI_AGENTS) for name in imported)
        if agents and any(_never_tree(value) for _, value in syntax.keyword_calls("require_approval")):
            return True
        if any(in_package(name, "google") for name in imported):
            for _, value in syntax.keyword_calls("require_confirmation"):
                if value.__class__ is ast.Constant and value.value is False:
                    return True
        hosted = None
        for mapping in syntax.of(ast.Dict):
            for key, value in zip(mapping.keys, mapping.values):
                if (
                    key is not None
                    and screen_string(key) == "require_approval"
                    and _never_tree(value) not in (None, "False")
                ):
                    if hosted is None:
                        hosted = _hosted_tree(syntax)
                    if hosted:
                        return True
        return False


def _hosted_tree(syntax) -> bool:
    """What `visit_DictElement` needs of a hosted MCP tool's mapping, file-wide: a
    `"server_label"` or `"mcp"` string, or a call of a `...HostedMCPTool` (imported by that
    name, or an attribute of an imported module)."""
    strings = syntax.strings
    return (
        "server_label" in strings
        or "mcp" in strings
        or any(name.endswith("HostedMCPTool") for name in syntax.identifiers)
    )
