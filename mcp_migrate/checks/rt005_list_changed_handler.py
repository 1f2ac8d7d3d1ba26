"""RT005 roots-list-changed-handler: waiting for the removed notifications/roots/list_changed."""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.checks.base import Invalid, Rule, Valid
from mcp_migrate.checks.shapes import LIST_CHANGED, string_context
from mcp_migrate.core.fixes import remove_arg, remove_statement
from mcp_migrate.core.syntax import is_false_or_none, keyword, literal, method_name, positional

MSG = (
    "handles `notifications/roots/list_changed`, removed in the 2026-07-28 revision (Roots is "
    "deprecated by SEP-2577), so it never runs: delete it; make what it refreshed a per-call "
    "parameter or a configuration reload"
)


class ListChangedHandler(Rule):
    CODE = "RT005"
    WIRE_STRINGS = frozenset({LIST_CHANGED})
    SCREEN = (b"roots_list_changed", b"RootsListChanged", b"roots/list_changed")
    #: Every finding names roots somewhere (`list_roots`, `RootsCapability`, `"roots/list"`...).
    GATE = (b"oots",)

    VALID = [
        Valid("handlers = {}\nhandlers['tools/list_changed'] = h\n", "another notification"),
        Valid("from mcp.types import RootsListChangedNotification\n", "an import alone"),
        Valid('"""Handles notifications/roots/list_changed."""\n', "a docstring"),
        Valid(
            "import logging\nlogging.info('notifications/roots/list_changed', extra={})\n",
            "log text is not a registration",
        ),
    ]
    INVALID = [
        Invalid(
            "import mcp.types as types\nfrom mcp.server.lowlevel import Server\nserver = Server('x')\n"
            "server.notification_handlers[types.RootsListChangedNotification] = h\n",
            "mcp 1.x handler dict",
        ),
        Invalid(
            "from mcp.server.lowlevel import Server\nserver = Server('x', on_roots_list_changed=h)\n", "mcp 2.x keyword"
        ),
        Invalid('if method == "notifications/roots/list_changed":\n    refresh()\n', "raw dispatch"),
        Invalid(
            "import mcp.types as types\nHANDLERS = {types.RootsListChangedNotification: h}\n",
            "a dispatch table keyed by the notification class",
        ),
        Invalid(
            "from rpc import router\n\n@router.notification('notifications/roots/list_changed')\n"
            "async def changed(params): ...\n",
            "a framework registration decorator for the wire method",
        ),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            sub = target.target
            if not isinstance(sub, cst.Subscript):
                continue
            for element in sub.slice:
                if not isinstance(element.slice, cst.Index):
                    continue
                key = element.slice.value
                if self.resolver.sdk_name(key) == "RootsListChangedNotification" or literal(key) == LIST_CHANGED:
                    self.context.claim(key)
                    self.report(node, MSG, fix=remove_statement(self.ancestors, small=node))
                    return

    def visit_Call(self, node: cst.Call) -> None:
        arg = keyword(node, "on_roots_list_changed")
        if arg is not None and not is_false_or_none(arg.value) and self.resolver.qualified(node.func):
            self.report(arg, MSG, fix=remove_arg(node, arg))
            return
        name = method_name(node)
        if name in ("add_notification_handler", "register_notification_handler", "on_notification"):
            args = positional(node)
            if args and (
                literal(args[0].value) == LIST_CHANGED
                or self.resolver.sdk_name(args[0].value) == "RootsListChangedNotification"
            ):
                self.context.claim(args[0].value)
                self.report(node, MSG, fix=remove_statement(self.ancestors))
        elif name == "isinstance":
            args = positional(node)
            if len(args) == 2 and self._names_notification(args[1].value):
                self.report(node, MSG)

    def _names_notification(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Tuple):  # isinstance(note, (A, RootsListChangedNotification))
            return any(self._names_notification(e.value) for e in expr.elements)
        return self.resolver.sdk_name(expr) == "RootsListChangedNotification"

    def visit_DictElement(self, node: cst.DictElement) -> None:
        # {types.RootsListChangedNotification: handler}: a dispatch table keyed by the class
        # (also `notification_handlers.update({...: h})`). String keys are wire strings.
        if not self.context.is_claimed(node.key) and self.resolver.sdk_name(node.key) == "RootsListChangedNotification":
            self.report(node.key, MSG)

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        if self.resolver.sdk_name(node.cls) == "RootsListChangedNotification":
            self.report(node, MSG)

    def visit_string(self, node: cst.BaseString, value: str) -> None:
        if self.context.is_claimed(node):
            return
        where = string_context(self.ancestors)
        if where in ("dispatch", "constant") or (where and _registers(where[len("call:") :])):
            self.report(node, MSG)


_REGISTRATION = re.compile(r"handler|listener|register|subscribe|^on$|^on_|^notification$|^route$")


def _registers(name: str) -> bool:
    """A call whose first argument names something to handle: `router.notification(...)`,
    `emitter.on(...)`, `bus.register(...)` (sends are RT004's)."""
    return (
        bool(name) and not name.startswith(("send", "emit", "notify", "publish")) and bool(_REGISTRATION.search(name))
    )
