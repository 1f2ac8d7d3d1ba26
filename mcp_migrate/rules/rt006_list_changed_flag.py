"""RT006 roots-list-changed-flag: `listChanged` on a roots capability means nothing any more."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.builders import remove_arg, remove_element
from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.syntax import keyword, literal
from mcp_migrate.rules.rt006_screen import (
    _DEFAULT_KEYWORDS,
    _FLAGS,
    ListChangedFlagScreen,
)
from mcp_migrate.vocabulary.calls import call_qualified
from mcp_migrate.vocabulary.capabilities import expected_value
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


class ListChangedFlag(ListChangedFlagScreen, Rule):
    VALID = [
        Valid("from mcp.types import ToolsCapability\nToolsCapability(listChanged=True)\n", "another capability"),
        Valid('caps = {"tools": {"listChanged": True}}\n', "tools, not roots"),
        Valid(
            "from acme_mcp.base import Field, Model\n\nclass Caps(Model):\n"
            "    tools: dict = Field(default_factory=lambda: {'listChanged': True})\n",
            "a tools field's default factory",
        ),
        Valid(
            "from acme_mcp.client import Session\nfrom .report import RootsCapability\n\n"
            "def report(caps):\n"
            "    return RootsCapability(supported=True, list_changed=getattr(caps.roots, 'listChanged', None))\n",
            "a project's own report model given the flag the client declared, read back",
        ),
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
        Invalid(
            "from acme_mcp.types import ServerCapabilities\nServerCapabilities(roots={'listChanged': True})\n",
            "a bare dict as the roots= value of a project's own capabilities model (reported, not rewritten)",
        ),
        Invalid(
            "from acme_mcp.base import Field, Model\n\nclass Caps(Model):\n"
            "    roots: dict = Field(default_factory=lambda: {'listChanged': True})\n",
            "the default factory of a roots field",
        ),
        Invalid(
            "from mcp.types import RootsCapability\n\ndef forward(caps):\n"
            "    return RootsCapability(listChanged=caps.roots.listChanged)\n",
            "the SDK's capability declared upstream with the client's flag (a proxy still promises it)",
            fixed="from mcp.types import RootsCapability\n\ndef forward(caps):\n    return RootsCapability()\n",
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        """`RootsCapability(listChanged=True)`, also a project's own MCP implementation's
        `ClientRootsCapability(listChanged=True)` (reported, not rewritten: its model is not
        the SDK's)."""
        sdk = self.resolver.sdk_name(node.func) == "RootsCapability"
        if not sdk and not self._own_roots_capability(node):
            return
        for flag in _FLAGS:
            arg = keyword(node, flag)
            if arg is not None and not (not sdk and _mirrors_a_flag(self.resolver, arg.value)):
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
            return
        holder, index = _roots_holder(stack, len(stack) - 2)
        if isinstance(holder, cst.Arg):
            call = stack[index - 1]
            sdk = isinstance(call, cst.Call) and self.resolver.sdk_name(call.func) == "ClientCapabilities"
            if sdk or self.context.evidence.mcp:
                # `ServerCapabilities(roots={"listChanged": True})` of a project's own model: the
                # flag is the same promise; the edit is only the SDK's to make.
                fix = self._fix(lambda: remove_element(stack[-2], node)) if sdk else None
                self._flag(node, flag, node.value, fix)
        elif holder is not None and self.context.evidence.mcp:
            # `roots: dict = Field(default_factory=lambda: {"listChanged": True})`, `self.roots = {...}`
            self._flag(node, flag, node.value, None)


def _mirrors_a_flag(resolver, value) -> bool:
    """`getattr(caps.roots, "listChanged", None)`, `caps.roots.list_changed`: the flag a peer
    declared, read back. A project's own model given it reports what the peer said (a debug
    tool's capability report); it promises nothing itself."""
    if isinstance(value, cst.Attribute):
        return value.attr.value in _FLAGS
    if isinstance(value, cst.Call) and call_qualified(resolver, value) == "getattr":
        return len(value.args) >= 2 and literal(value.args[1].value) in _FLAGS
    return False


def _roots_holder(stack: list, index: int):
    """What a dict at `stack[index]` is the value of, seen through a default factory: the
    `roots=` argument (`ServerCapabilities(roots={...})`), or the assignment of a `roots` field
    or attribute (`roots: dict = Field(default_factory=lambda: {...})`, `self.roots = {...}`).
    Returns (holder, its index in `stack`), or (None, index) when the dict is not a roots value."""
    child = stack[index]
    for i in range(index - 1, 0, -1):
        anc = stack[i]
        if anc is child:  # the `Field(...)` call whose default the dict is, met on the way up
            continue
        if isinstance(anc, cst.Lambda) and child is anc.body:
            child = anc
            continue
        if isinstance(anc, cst.Arg) and child is anc.value:
            name = anc.keyword.value if anc.keyword is not None else None
            if name == "roots":
                return anc, i
            call = stack[i - 1]
            if name in _DEFAULT_KEYWORDS and isinstance(call, cst.Call):
                child = call
                continue
            return None, index
        if isinstance(anc, (cst.Assign, cst.AnnAssign)) and child is anc.value:
            targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
            return (anc, i) if any(_roots_name(t) for t in targets) else (None, index)
        return None, index
    return None, index


def _roots_name(target) -> bool:
    """`roots` or `x.roots`: a name that holds the roots capability."""
    return last_identifier(target) == "roots" and isinstance(target, (cst.Name, cst.Attribute))


def _is_false(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"
