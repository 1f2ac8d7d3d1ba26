"""RT006 roots-list-changed-flag: `listChanged` on a roots capability means nothing any more."""

from __future__ import annotations

import ast

import libcst as cst

from mcp_migrate.core.fix.builders import remove_arg, remove_element
from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.syntax import keyword, literal
from mcp_migrate.vocabulary.capabilities import expected_value, roots_members
from mcp_migrate.vocabulary.words import last_identifier

MSG = Message(
    "`{flag}` on the roots capability promises a notification removed in 2026-07-28",
    "`notifications/roots/list_changed` is gone (Roots is deprecated by SEP-2577): remove the flag",
)
#: An explicit `False` promises nothing, but the flag itself is gone: a 2026-07-28 client declares
#: roots as `{"roots": {}}` (the removed-key cleanup, at info).
MSG_OFF = Message(
    "`{flag}` on the roots capability is gone in 2026-07-28 (off here)",
    "a 2026-07-28 client declares roots as `{{}}`: remove the flag (Roots itself is deprecated by SEP-2577)",
)
_FLAGS = ("listChanged", "list_changed")


class ListChangedFlag(Rule):
    CODE = "RT006"
    SCREEN = (b"listChanged", b"list_changed")
    #: Every finding names roots somewhere (`list_roots`, `RootsCapability`, `"roots/list"`...).

    VALID = [
        Valid("from mcp.types import ToolsCapability\nToolsCapability(listChanged=True)\n", "another capability"),
        Valid('caps = {"tools": {"listChanged": True}}\n', "tools, not roots"),
    ]
    INVALID = [
        Invalid(
            "from mcp.types import RootsCapability\nRootsCapability(listChanged=True)\n",
            "v1 spelling",
            fixed="from mcp.types import RootsCapability\nRootsCapability()\n",
        ),
        Invalid("from mcp_types import RootsCapability\nRootsCapability(list_changed=True)\n", "v2 spelling"),
        Invalid('caps = {"roots": {"listChanged": True}}\n', "raw capability mapping", fixed='caps = {"roots": {}}\n'),
        Invalid(
            "from mcp.types import RootsCapability\nRootsCapability(listChanged=False)\n",
            "explicitly off: the flag is still gone (info)",
            fixed="from mcp.types import RootsCapability\nRootsCapability()\n",
        ),
        Invalid(
            'caps = {"roots": {"listChanged": False}}\n', "an off flag in a raw mapping", fixed='caps = {"roots": {}}\n'
        ),
    ]

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
        for member in members:
            if member.__class__ is ast.Dict and any(
                key is not None and screen_string(key) in _FLAGS for key in member.keys
            ):
                return True
        return False

    def visit_Call(self, node: cst.Call) -> None:
        """`RootsCapability(listChanged=True)`, also a project's own MCP implementation's
        `ClientRootsCapability(listChanged=True)` (reported, not rewritten: its model is not
        the SDK's)."""
        sdk = self.resolver.sdk_name(node.func) == "RootsCapability"
        if not sdk and not self._own_roots_capability(node):
            return
        for flag in _FLAGS:
            arg = keyword(node, flag)
            if arg is not None:
                fix = self._fix(lambda arg=arg: remove_arg(node, arg)) if sdk else None
                self._flag(arg, flag, arg.value, fix)

    def _fix(self, build):
        """The safe removal, except where the literal is what a test expects: compared with
        `==`/`!=`, asserted, bound to an `expected` name, or anywhere in a `test_*` function
        (issue 12 #8: the edit broke the test that asserted the literal)."""
        return None if expected_value(self.ancestors) else build()

    def _own_roots_capability(self, node: cst.Call) -> bool:
        name = last_identifier(node.func) or ""
        if not name.endswith("RootsCapability") or self.resolver.sdk_name(node.func) is not None:
            return False
        return self.context.evidence.mcp

    def _flag(self, node, flag: str, value, fix) -> None:
        """An on flag promises the removed notification; an off one is a dead key (info)."""
        if _is_false(value):
            self.report(node, MSG_OFF.format(flag=flag), severity="info", fix=fix)
        else:
            self.report(node, MSG.format(flag=flag), fix=fix)

    def visit_DictElement(self, node: cst.DictElement) -> None:
        flag = literal(node.key)
        if flag not in _FLAGS:
            return
        stack = self.ancestors
        # DictElement <- Dict (the roots capability) <- DictElement "roots"/Arg roots= <- Dict/Call
        if len(stack) < 4 or not isinstance(stack[-2], cst.Dict):
            return
        holder = stack[-3]
        if isinstance(holder, cst.DictElement) and literal(holder.key) == "roots":
            # `"roots": {"listChanged": ...}` is a roots capability by its shape alone, wherever
            # the mapping sits (vocabulary.capabilities.roots_capability_shape).
            self._flag(node, flag, node.value, self._fix(lambda: remove_element(stack[-2], node)))
        elif isinstance(holder, cst.Arg) and holder.keyword is not None and holder.keyword.value == "roots":
            call = stack[-4]
            if isinstance(call, cst.Call) and self.resolver.sdk_name(call.func) == "ClientCapabilities":
                self._flag(node, flag, node.value, self._fix(lambda: remove_element(stack[-2], node)))


def _is_false(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"
