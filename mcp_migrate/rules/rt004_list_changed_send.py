"""RT004 roots-list-changed-send: sending the removed notifications/roots/list_changed."""

from __future__ import annotations

import os
import re

import libcst as cst

from mcp_migrate.core.findings import Via
from mcp_migrate.core.fix.builders import remove_statement
from mcp_migrate.core.fix.edits import AddComment
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.messages import Message, shorten_dotted
from mcp_migrate.core.modules import absolute
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.record import replace
from mcp_migrate.core.rule import Invalid, Valid
from mcp_migrate.core.sdk import NOTIFICATION_WRAPPERS
from mcp_migrate.core.syntax import literal, method_name, positional
from mcp_migrate.rules.rt004_screen import ListChangedSendScreen
from mcp_migrate.vocabulary.builders import callee_builds
from mcp_migrate.vocabulary.effects import NOTIFIES
from mcp_migrate.vocabulary.file_effects import file_effects
from mcp_migrate.vocabulary.imported_asks import imported_effects
from mcp_migrate.vocabulary.roots_types import roots_type_definition
from mcp_migrate.vocabulary.wire import WireMethodRule, error_data
from mcp_migrate.vocabulary.wire_names import (
    LIST_CHANGED,
    LIST_CHANGED_SPELLINGS,
    builds,
    sends,
)
from mcp_migrate.vocabulary.wrappers import imported_target

_REMOVED = "`notifications/roots/list_changed` is removed in the 2026-07-28 revision (Roots is deprecated by SEP-2577)"
MSG = Message(
    "sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision",
    "Roots is deprecated by SEP-2577: delete it; new directories travel with the next tool call",
)
MSG_HELPER = Message(
    "runs `{name}`, a helper in this file that sends roots `list_changed`",
    _REMOVED + ": delete the helper and this call",
)
MSG_IMPORTED = Message(
    "runs `{name}`, a helper of this project that sends `list_changed`",
    _REMOVED + ": delete the helper and this call",
)
MSG_TYPE = Message(
    "`{name}` re-implements the removed roots `list_changed` notification",
    _REMOVED + ": delete it once nothing sends it",
)
_OWN_DEF = lazy_compile(rb"def\s+send_roots_list_changed\b")


class ListChangedSend(ListChangedSendScreen, WireMethodRule):
    METHOD = LIST_CHANGED

    VALID = [
        Valid(
            "class Bus:\n    async def send_roots_list_changed(self): ...\n\nasync def f(b: Bus):\n"
            "    await b.send_roots_list_changed()\n",
            "a user's own method of that name",
        ),
        Valid("log('notifications/roots/list_changed is gone')\n", "text that merely mentions it"),
        Valid("from mcp.types import RootsListChangedNotification\n", "an import alone"),
        Valid('ROOTS_CHANGED = "notifications/roots/list_changed"\n', "a method constant alone is not a send"),
        Valid(
            'def test_sent(tracker):\n    assert tracker.sent[0] == {"method": "notifications/roots/list_changed"}\n',
            "the message a test expects to have been sent",
        ),
        Valid(
            'def test_sent(tracker):\n    expected = {"method": "notifications/roots/list_changed"}\n'
            "    assert tracker.sent[0] == expected\n",
            "an expected message kept in a local that only assertions read",
        ),
    ]
    INVALID = [
        Invalid(
            "from mcp import ClientSession\n\nasync def f(s: ClientSession):\n    await s.send_roots_list_changed()\n",
            "typed session sends the notification",
            fixed="from mcp import ClientSession\n\nasync def f(s: ClientSession):\n    pass\n",
        ),
        Invalid(
            "import mcp.types as types\n\nasync def f(s):\n    await s.send_notification(types.ClientNotification(types.RootsListChangedNotification()))\n",
            "v1 wrapper form",
        ),
        Invalid('send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})\n', "raw JSON-RPC"),
        Invalid(
            "from mcp import ClientSession\n\nclass Host:\n    async def changed(self):\n"
            "        await self.session.send_roots_list_changed()\n",
            "a session kept on self (the `.session` shape)",
        ),
        Invalid(
            "from myapp.mcp.types import RootsListChangedNotification\n\nasync def f(t):\n"
            "    n = RootsListChangedNotification()\n    await t.send_notification(notification=n)\n",
            "a project's own notification type from its own MCP module",
        ),
        Invalid('def f(t):\n    t.notify("notifications/roots/listChanged")\n', "the camelCase spelling, sent"),
        Invalid(
            'def f(t):\n    message = {"method": "notifications/roots/list_changed"}\n    t.send(message)\n',
            "a message kept in a local that is sent",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        #: this file's effects model (vocabulary/file_effects.py), shared with the other rules
        self.effects = file_effects(context)

    def report(self, node, message, *, severity=None, fix=None, help=None, via=None) -> None:
        super().report(node, message, severity=severity, fix=fix, help=help, via=via)
        self.effects.found(NOTIFIES, self.ancestors, node)

    def leave_Module(self, node: cst.Module) -> None:
        """Calls of same-file helpers that send list_changed (known once the file is seen);
        then where each helper's finding is, for the callers other modules join to it
        (core.callers)."""
        for site, name, _ in self.effects.one_call_away(NOTIFIES):
            super().report(site, MSG_HELPER.format(name=name), severity="info")  # the helper is the site
        sites = self.context.helper_sites
        for (owner, name), first in self.effects.first_sites(NOTIFIES).items():
            if first is not None:
                sites[(self.CODE, owner, name)] = first

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """A project's own RootsListChangedNotification model, in MCP code."""
        if (
            roots_type_definition(node, self.context.data) == "RootsListChangedNotification"
            and self.context.evidence.mcp
        ):
            self.report(node.name, MSG_TYPE.format(name=node.name.value))

    def visit_Call(self, node: cst.Call) -> None:
        self.effects.note_call(node, self.ancestors, self.resolver)
        if self.context.is_claimed(node):
            return
        name = method_name(node)
        if name == "send_roots_list_changed" and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            kind = self.resolver.sdk_instance(receiver, "send_roots_list_changed")
            # Any SDK object: a name only the SDKs' client sessions define, called on a server's
            # session too (`ctx.request_context.session`, typed by the SDKs' API), still means
            # to send the removed notification.
            if kind is not None or (
                kind is None
                and self.resolver.imports_sdk
                and not _OWN_DEF.search(self.context.data)
                and _untyped(receiver, self.resolver)
            ):
                self.report(node, MSG, fix=_remove_send(self.ancestors))
            else:
                self._imported(node)
            return
        if name in ("send_notification", "send_raw_notification"):
            args = positional(node)
            if args and self._is_notification(args[0].value):
                self.context.claim(args[0].value)
                for inner in _calls_inside(args[0].value):
                    self.context.claim(inner)
                self.report(node, MSG, fix=_remove_send(self.ancestors))
                return
        if self.resolver.mcp_name(node.func) == "RootsListChangedNotification":
            self.report(node, MSG)
        else:
            self._imported(node)

    def _imported(self, node: cst.Call) -> None:
        """A call of a function or method another module of the project defines whose body sends
        list_changed (its effects summary, vocabulary/effects.py), reported at info with the Via
        that makes it a related location of the helper's own finding (core.callers)."""
        path = self.context.path
        target = imported_target(node.func, self.resolver) if path and not path.startswith("<") else None
        if target is None:
            return
        module, key = target
        settings = self.context.settings
        found = imported_effects(path, module, key, view_of(settings), settings.max_file_size)
        if found is None or NOTIFIES not in found[2].effects:
            return
        shown = absolute(view_of(settings), module, path) or module if module.startswith(".") else module
        name = shorten_dotted(f"{shown}.{'.'.join(k for k in key if k)}", 30)
        via = Via(self.CODE, os.path.abspath(found[0]), *found[1])
        super().report(node, MSG_IMPORTED.format(name=name), severity="info", via=via)

    def _is_notification(self, expr) -> bool:
        if literal(expr) in LIST_CHANGED_SPELLINGS:
            return True
        if not isinstance(expr, cst.Call):
            return False
        symbol = self.resolver.mcp_name(expr.func)
        if symbol == "RootsListChangedNotification":
            return True
        if symbol in NOTIFICATION_WRAPPERS:
            args = positional(expr)
            return bool(args) and self._is_notification(args[0].value)
        return False

    def method_used(self, node, where, ancestors: list, *, constant: bool) -> None:
        """list_changed sent, or put in a message by hand: as a message's `method`, or given to a
        function of the project whose body makes it one (vocabulary/effects.py), or to a sending
        or building call the project does not define (by its name)."""
        built = callee_builds(self.context, self.resolver, ancestors)
        if built is None:
            built = sends(where) or builds(where)
        if (where == "request" and not error_data(ancestors)) or built:
            self.report(node, MSG)


def _untyped(receiver, resolver) -> bool:
    """A receiver whose type we cannot see (not a known non-SDK instance, not an import)."""
    if isinstance(receiver, cst.Name):
        return resolver.lookup(receiver.value) is None
    return isinstance(receiver, cst.Attribute)


def _calls_inside(expr):
    while isinstance(expr, cst.Call):
        yield expr
        args = positional(expr)
        expr = args[0].value if args else None


def _remove_send(ancestors: list):
    """The removal of a send, with a review marker on a neighbouring log line that still says
    the notification was sent."""
    fix = remove_statement(ancestors)
    if fix is None:
        return None
    return replace(fix, edits=fix.edits + _stale_log_markers(ancestors, fix.edits[0].node))


#: A log line that reports the removed notification: "Sent roots/list_changed", "roots list changed".
_NOTIFICATION_TEXT = lazy_compile(r"roots?[\W_]{0,2}list[\W_]{0,2}changed|roots?[\W_]{1,2}changed", re.IGNORECASE)
_STALE_LOG = (
    "# mcp-migrate: RT004 review: this line reports a roots/list_changed notification that is no"
    " longer sent; reword or remove it"
)


def _stale_log_markers(ancestors: list, small: cst.CSTNode) -> tuple:
    """A marker on the statement just before or after a removed `send_roots_list_changed()`
    when it is a call whose message still says the notification was sent (left alone it lies;
    whether to drop it is the author's call)."""
    text = _code(small)
    if "send" not in text or ("roots_list_changed" not in text and "RootsListChanged" not in text):
        return ()
    line = next((a for a in ancestors if isinstance(a, cst.SimpleStatementLine) and small in a.body), None)
    block = ancestors[ancestors.index(line) - 1] if line is not None and ancestors.index(line) > 0 else None
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return ()
    body = list(block.body)
    at = body.index(line)
    neighbours = [body[i] for i in (at - 1, at + 1) if 0 <= i < len(body)]
    return tuple(AddComment(n, _STALE_LOG) for n in neighbours if _logs_notification(n))


def _logs_notification(stmt: cst.CSTNode) -> bool:
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
        return False
    value = stmt.body[0].value
    value = value.expression if isinstance(value, cst.Await) else value
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name in _LOG_CALLS and bool(_NOTIFICATION_TEXT.search(_code(value)))


_LOG_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "log", "critical"})


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
