"""RT005 roots-list-changed-handler: waiting for the removed notifications/roots/list_changed."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.builders import remove_arg, remove_statement
from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Valid
from mcp_migrate.core.syntax import is_false_or_none, keyword, literal, method_name, positional
from mcp_migrate.rules.rt005_screen import ListChangedHandlerScreen
from mcp_migrate.vocabulary.file_effects import HANDLES, file_effects
from mcp_migrate.vocabulary.roots_types import param_symbols
from mcp_migrate.vocabulary.wire import WireMethodRule
from mcp_migrate.vocabulary.wire_names import (
    LIST_CHANGED,
    LIST_CHANGED_SPELLINGS,
    registers,
)
from mcp_migrate.vocabulary.wrappers import callee_key

_REFRESH = "make what it refreshed a per-call parameter or a configuration reload"
MSG = Message(
    "handles `notifications/roots/list_changed`, removed in the 2026-07-28 revision",
    "so it never runs (Roots is deprecated by SEP-2577): delete it; " + _REFRESH,
)
MSG_DEF = Message(
    "`{name}` handles roots `list_changed`, removed in the 2026-07-28 revision",
    "so it never runs (Roots is deprecated by SEP-2577): delete it with its registration; " + _REFRESH,
)


class ListChangedHandler(ListChangedHandlerScreen, WireMethodRule):
    METHOD = LIST_CHANGED

    VALID = [
        Valid("handlers = {}\nhandlers['tools/list_changed'] = h\n", "another notification"),
        Valid("from mcp.types import RootsListChangedNotification\n", "an import alone"),
        Valid('"""Handles notifications/roots/list_changed."""\n', "a docstring"),
        Valid(
            "import logging\nlogging.info('notifications/roots/list_changed', extra={})\n",
            "log text is not a registration",
        ),
        Valid(
            "async def test(proxy):\n    await proxy._handle_roots_list_changed(None)\n",
            "a test calling a handler directly is not a handler",
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
        Invalid(
            "import mcp.types as types\n\nasync def on_roots(note: types.RootsListChangedNotification):\n    ...\n",
            "a handler by its signature, reported at its def",
        ),
        Invalid(
            "from mcp.server.lowlevel import Server\n\nclass P(Server):\n    def __init__(self):\n"
            "        self.notification_handlers[RootsListChangedNotification] = self._changed\n\n"
            "    async def _changed(self, n):\n        ...\n\nfrom mcp.types import RootsListChangedNotification\n",
            "the def registered as the list_changed handler",
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
                if (
                    self.resolver.sdk_name(key) == "RootsListChangedNotification"
                    or literal(key) in LIST_CHANGED_SPELLINGS
                ):
                    self.context.claim(key)
                    self.report(node, MSG, fix=remove_statement(self.ancestors, small=node))
                    self._registered(node.value)
                    return

    def visit_Call(self, node: cst.Call) -> None:
        arg = keyword(node, "on_roots_list_changed")
        if arg is not None and not is_false_or_none(arg.value) and self.resolver.qualified(node.func):
            self.report(arg, MSG, fix=remove_arg(node, arg))
            self._registered(arg.value)
            return
        name = method_name(node)
        if name in ("add_notification_handler", "register_notification_handler", "on_notification"):
            args = positional(node)
            if args and (
                literal(args[0].value) in LIST_CHANGED_SPELLINGS
                or self.resolver.sdk_name(args[0].value) == "RootsListChangedNotification"
            ):
                self.context.claim(args[0].value)
                self.report(node, MSG, fix=remove_statement(self.ancestors))
                if len(args) > 1:
                    self._registered(args[1].value)
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
            self._registered(node.value)

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        if self.resolver.sdk_name(node.cls) == "RootsListChangedNotification":
            self.report(node, MSG)

    def method_used(self, node, where, ancestors: list, *, constant: bool) -> None:
        """list_changed dispatched on or registered."""
        if where == "dispatch" or registers(where):
            self.report(node, MSG)

    # Handler definitions: the `def` that runs on the notification is reported too -----------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """Remember same-file functions (a registration may name one defined later: the file's
        effects model, vocabulary/file_effects.py); one taking a RootsListChangedNotification is
        a handler by its signature."""
        file_effects(self.context).note_definition(node, self.ancestors)
        if "RootsListChangedNotification" in param_symbols(self.resolver, node.params):
            self._report_def(node)

    def _registered(self, handler: cst.BaseExpression) -> None:
        key = callee_key(handler, self.ancestors, self.resolver)
        if key is not None:
            file_effects(self.context).registers(HANDLES, key)

    def _report_def(self, node: cst.FunctionDef) -> None:
        done = self.context.memo.setdefault("rt005_reported_defs", set())
        if id(node) not in done:
            done.add(id(node))
            self.report(node.name, MSG_DEF.format(name=node.name.value))

    def leave_Module(self, node: cst.Module) -> None:
        """The defs of handlers registered by name (known once the whole file is seen)."""
        effects = file_effects(self.context)
        for key in effects.registered(HANDLES):
            func = effects.definition(key)
            if func is not None:
                self._report_def(func)
