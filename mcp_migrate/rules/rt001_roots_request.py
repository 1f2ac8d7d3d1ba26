"""RT001 roots-request: a server asks the client for its roots."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.context import FileContext
from mcp_migrate.core.coordination import note_still_asks
from mcp_migrate.core.findings import Via
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.messages import Message, shorten_dotted
from mcp_migrate.core.modules import in_test_code
from mcp_migrate.core.rule import Invalid, Valid
from mcp_migrate.core.sdk import (
    FASTMCP,
    REQUEST_WRAPPERS,
    SDK_PACKAGES,
    SERVER_RECEIVERS,
    in_package,
    mcp_module,
)
from mcp_migrate.core.syntax import code_of, iter_nodes, keyword, literal, method_name, positional, required_params
from mcp_migrate.rewrites.rt001.plan import plan_request_rewrite
from mcp_migrate.rules.rt001_screen import _SEND_METHODS, RootsRequestScreen, asks_in
from mcp_migrate.vocabulary.builders import callee_builds
from mcp_migrate.vocabulary.effects import ASKS
from mcp_migrate.vocabulary.file_effects import file_effects, found_alone
from mcp_migrate.vocabulary.imported_asks import names_a_doer
from mcp_migrate.vocabulary.receivers import is_sdk_receiver, is_session_name
from mcp_migrate.vocabulary.wire import WireMethodRule, error_data, relays
from mcp_migrate.vocabulary.wire_names import ROOTS_LIST, builds, sends
from mcp_migrate.vocabulary.wrappers import ImportedHelpers, framework_via, marker_arguments

MIGRATE = "take the directories as a tool parameter, a resource URI, or server configuration"
MSG_CALL = Message(
    "`{call}` asks for roots, deprecated by SEP-2577",
    "on a 2026-07-28 connection it raises NoBackChannelError; " + MIGRATE,
)
MSG_FASTMCP = Message(
    "`{call}` asks for roots, deprecated by SEP-2577",
    "FastMCP 4 removes it (AttributeError); " + MIGRATE,
)
MSG_SEND = Message(
    "a `roots/list` request sent to the client, deprecated by SEP-2577",
    "a 2026-07-28 server may not send requests outside an InputRequiredResult; " + MIGRATE,
)
MSG_RAW = Message("a `roots/list` request built by hand, deprecated by SEP-2577", MIGRATE)
MSG_RELAY = Message(
    "relays `roots/list` to the other peer, deprecated by SEP-2577",
    "this branch asks for roots on the client's behalf; " + MIGRATE,
)
_HELPER_HELP = "Roots is deprecated by SEP-2577: migrate the helper, then give this caller the directories it needs; "
MSG_HELPER = Message("runs `{name}`, a helper in this file that asks for roots", _HELPER_HELP + MIGRATE)
MSG_FRAMEWORK = Message(
    "runs `{name}`, an MCP framework's own function that asks for roots", "Roots is deprecated by SEP-2577: " + MIGRATE
)
MSG_FRAMEWORK_DEF = Message(
    "`list_roots` is an MCP framework's own function that asks for roots",
    "its callers await it for the client's roots (deprecated by SEP-2577); " + MIGRATE,
)
MSG_RESOLVED = Message("parameter `{param}` is resolved through `{name}`, which asks for roots", _HELPER_HELP + MIGRATE)
MSG_IMPORTED = Message("runs `{name}`, a helper of this project that asks for roots", _HELPER_HELP + MIGRATE)
MSG_BRIDGE = Message(
    "era-portable roots request ({what}), deprecated by SEP-2577",
    "it works on both protocol eras; consider a tool parameter, a resource URI, or server configuration",
)

#: Calls that run an awaitable: `asyncio.wait_for(session.list_roots(), 5)`.
_AWAITERS = frozenset({"wait_for", "ensure_future", "create_task", "shield", "gather", "run"})
#: A class of the file's own that defines list_roots: `x.list_roots()` may be that one.
_OWN_LIST_ROOTS = lazy_compile(rb"def\s+list_roots\s*\(\s*self\b")


class RootsRequest(RootsRequestScreen, WireMethodRule):
    METHOD = ROOTS_LIST

    VALID = [
        Valid(
            "class RootService:\n    def list_roots(self): ...\n\nasync def f(svc: RootService):\n    await svc.list_roots()\n",
            "a user's own list_roots() on a user's own class",
        ),
        Valid("import sympy\nsympy.roots(x**2 - 1)\n", "sympy's roots(), not MCP"),
        Valid(
            "from sympy.polys.rootisolation import dup_isolate_real_roots\n\ndup_isolate_real_roots(f, K)\n",
            "a helper named for roots outside MCP code (not even parsed: the screen wants MCP for `_roots(`)",
        ),
        Valid("from mcp.types import ListRootsRequest\n", "an import alone is not a finding"),
        Valid('msg = {"method": "roots/listeners"}\n', "a different method string"),
        Valid('def f():\n    """Calls roots/list."""\n', "docstrings are never findings"),
        Valid(
            "from mcp.server.fastmcp import Context\n\nclass Store:\n    def list_roots(self): ...\n\n"
            "async def t(ctx: Context, store: Store):\n    return store.list_roots()\n",
            "a user's own list_roots() beside an SDK Context: only the SDK receiver counts",
        ),
        Valid(
            "from mcp.server.fastmcp import FastMCP\nfrom unittest import mock\n\n"
            "def stub():\n    session = mock.Mock()\n    session.list_roots = mock.AsyncMock()\n    return session\n",
            "a test double assigning a mock asks nothing",
        ),
        Valid(
            "import boto3\nfrom mcp.server.fastmcp import FastMCP\n\norg = boto3.client('organizations')\n"
            "roots = org.list_roots()\n",
            "boto3 Organizations list_roots() in an MCP file",
        ),
        Valid('ROOTS_LIST = "roots/list"\n', "a method constant alone is neither a request nor a handler"),
        Valid(
            'def fail(i):\n    return {"id": i, "error": {"code": -32601, "data": {"method": "roots/list"}}}\n',
            "the data of a JSON-RPC error describes a request, it is not one",
        ),
    ]
    INVALID = [
        Invalid(
            "from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n    await ctx.session.list_roots()\n",
            "mcp 1.x FastMCP tool asks its session for roots",
        ),
        Invalid(
            "from fastmcp import Context\n\nasync def t(ctx: Context):\n    return await ctx.list_roots()\n",
            "FastMCP 2/3 Context.list_roots(), removed in FastMCP 4",
        ),
        Invalid(
            "import mcp.types as t\n\nasync def f(session):\n    await session.send_request(t.ListRootsRequest(), t.ListRootsResult)\n",
            "a ListRootsRequest sent by hand",
        ),
        Invalid('req = {"jsonrpc": "2.0", "id": 1, "method": "roots/list"}\n', "a raw JSON-RPC request"),
        Invalid(
            "from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n"
            "    session = ctx.session\n    return await session.list_roots()\n",
            "the session taken from the Context into a local first",
        ),
        Invalid(
            "from fastmcp.server.dependencies import get_context\n\nasync def t():\n"
            "    ctx = get_context()\n    return await ctx.list_roots()\n",
            "FastMCP's get_context() returns a Context",
        ),
        Invalid(
            "import mcp.types as t\n\nasync def f(session):\n"
            "    await session.send_request(request=t.ServerRequest(root=t.ListRootsRequest()), result_type=t.ListRootsResult)\n",
            "keyword arguments to send_request and to the v1 ServerRequest wrapper",
        ),
        Invalid(
            "from typing import Any\nimport mcp\n\nasync def f(session: Any):\n    return await session.list_roots()\n",
            "an awaited list_roots() on a session-named receiver typed Any, in MCP code",
        ),
        Invalid(
            "from mcp.server.fastmcp import Context\n\nasync def tool(ctx: Context):\n    return await _roots(ctx)\n\n"
            "async def _roots(ctx: Context):\n    return await ctx.session.list_roots()\n",
            "a same-file helper that asks for roots makes its call site RT001 (one call away)",
        ),
        Invalid(
            "from mcp.server.session import ServerSession\n\nclass P:\n    def run(self, r, w, o):\n"
            "        self._s = ServerSession(r, w, o)\n\n    async def go(self):\n        return await self._s.list_roots()\n",
            "a ServerSession kept in an attribute of self",
        ),
        Invalid('def ask(rpc):\n    return rpc.call("roots/list")\n', "the method given to a generic RPC verb"),
        Invalid(
            'async def relay(msg, upstream):\n    if msg["method"] == "roots/list":\n'
            "        return await upstream.send_request(msg)\n",
            "a relay forwarding roots/list asks the other peer for roots",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        #: this file's effects model (vocabulary/file_effects.py), shared with the other rules
        self.effects = file_effects(context)
        self.imported = ImportedHelpers(
            context.path,
            self.SCREEN,
            lambda path, data: _helper_keys(path, data, context),
            context.settings.max_file_size,
            context.settings.view,
        )
        #: (function, name) -> (ListRootsRequest(...) call, its ancestors): `req = ListRootsRequest()` then
        #: `send_request(req)` is one request, reported at the send; unsent ones at the end.
        self._built: dict = {}

    def report(self, node, message, *, severity=None, fix=None, help=None, via=None) -> None:
        super().report(node, message, severity=severity, fix=fix, help=help, via=via)
        self.effects.found(ASKS, self.ancestors, node)

    def leave_Module(self, node: cst.Module) -> None:
        """Requests built and never sent here, then calls of same-file helpers that ask for
        roots (both known once the whole file is seen), each with the Via that makes it a related
        location of its helper's finding (core.callers); then where each helper's finding is."""
        effects = self.effects
        for call, ancestors in self._built.values():
            super().report(call, MSG_SEND)
            effects.found(ASKS, ancestors, call)
        for site, name, key in effects.one_call_away(ASKS):
            message = MSG_HELPER.format(name=name)
            super().report(site, message, severity="info", via=Via(self.CODE, "", *key))
        effects.aliases(ASKS, node)
        self.imported.publish(self.context.data, effects.doers(ASKS))
        for param, name in effects.typed_sites(ASKS):
            message = MSG_RESOLVED.format(param=param.name.value, name=name)
            super().report(param, message, severity="info", via=Via(self.CODE, "", None, name))
        sites = self.context.helper_sites
        for (owner, name), first in effects.first_sites(ASKS).items():
            if first is not None:
                sites[(self.CODE, owner, name)] = first

    def visit_Param(self, node: cst.Param) -> None:
        """A parameter typed with an alias whose resolver asks (`p: scope.Pinned`, `Pinned = Annotated[ListRootsResult,
        Resolve(_ask)]`), or with that marker inline: run per call (info; this file's are known at the end)."""
        if node.annotation is None:
            return
        self.effects.note_param(node, self.resolver)
        annotation = node.annotation.annotation
        settings = self.context.settings
        for expr in [annotation, *marker_arguments(annotation)]:
            qualified = self.resolver.qualified(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
            asks = names_a_doer(self.context.path, qualified, settings.max_file_size, settings.view)
            if asks and (helper := self.imported.defined(qualified)) is not None:
                message = MSG_RESOLVED.format(param=node.name.value, name=shorten_dotted(helper, 30))
                return super().report(node, message, severity="info", via=self.imported.via(self.CODE, helper))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        """A framework's own module-level `async def list_roots()` in MCP code that is not a
        client's, taking no required argument and awaiting something: the API its tools await to
        ask for roots (`_framework_function` reports its callers in other files), reported at the
        `def` when its body asks nothing we can see (an injected request function)."""
        func = original_node
        if func.name.value != "list_roots" or func.asynchronous is None:
            return
        if not isinstance(self.parent(1), cst.Module) or (None, "list_roots") in self.effects.doers(ASKS):
            return
        evidence = self.context.evidence
        if not evidence.mcp or evidence.side == "client" or required_params(func.params):
            return
        if any(isinstance(n, cst.Await) for n in iter_nodes(func.body)):
            self.report(func.name, MSG_FRAMEWORK_DEF)

    def visit_Call(self, node: cst.Call) -> None:
        self.effects.note_call(node, self.ancestors, self.resolver)
        if self.context.is_claimed(node):
            return
        name = method_name(node)
        if name == "list_roots" and isinstance(node.func, cst.Attribute):
            self._list_roots(node, node.func.value)
        elif name == "list_roots" and isinstance(self.parent(1), cst.Await) and self._framework_function(node.func):
            qualified = self.resolver.qualified(node.func)
            message = MSG_FRAMEWORK.format(name=qualified)
            via = framework_via(self.CODE, self.context.path, qualified, self.context.settings.view)
            super().report(node, message, severity="info", via=via)
        elif name in _SEND_METHODS:
            self._send_request(node)
        elif name == "send_raw_request":
            args = positional(node)
            if args and literal(args[0].value) == ROOTS_LIST:
                self.context.claim(args[0].value)
                self._report_request(node, MSG_SEND, "raw")
        else:
            self._construction(node)
            self._imported_helper(node)

    def _imported_helper(self, node: cst.Call) -> None:
        helper = self.imported.helper(node, self.resolver)
        if helper is not None:
            message = MSG_IMPORTED.format(name=shorten_dotted(helper, 36))
            super().report(node, message, severity="info", via=self.imported.via(self.CODE, helper))

    def _list_roots(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        if not is_sdk_receiver(receiver, self.resolver, SERVER_RECEIVERS, "list_roots") and not self._awaited_session(
            receiver
        ):
            self._imported_helper(node)  # a project class's own `list_roots`: its body decides
            return
        qualified = self.resolver.instance_type(receiver) or ""
        if in_package(qualified, FASTMCP) and qualified.endswith("Context"):
            self._report_request(node, MSG_FASTMCP.format(call=_short(receiver) + ".list_roots()"), "list")
        else:
            self._report_request(node, MSG_CALL.format(call=_short(receiver) + ".list_roots()"), "result")

    def _framework_function(self, func: cst.BaseExpression) -> bool:
        """`await list_roots()` imported from a project's or a framework's own MCP module (not the
        SDK's: it has no such function): the framework's API for tools to ask for roots (a
        request is awaited; a status function of the same name is not)."""
        qualified = self.resolver.qualified(func) or ""
        module = qualified.rpartition(".")[0]
        return bool(module) and mcp_module(module) and module.partition(".")[0] not in SDK_PACKAGES

    def _awaited_session(self, receiver: cst.BaseExpression) -> bool:
        """`await session.list_roots()` (or `asyncio.wait_for(session.list_roots(), t)`) on a
        receiver named like a session whose type we cannot see, in MCP code that defines no
        list_roots method of its own: the SDK's ServerSession is the one such method."""
        mcp_code = self.context.evidence.mcp
        if not (mcp_code and (is_session_name(receiver, self.resolver) or self._guarded(receiver))):
            return False
        if _OWN_LIST_ROOTS.search(self.context.data):
            return False
        outer = self.parent(1)
        if isinstance(outer, cst.Await):
            return True
        call = self.parent(2)
        return isinstance(outer, cst.Arg) and isinstance(call, cst.Call) and method_name(call) in _AWAITERS

    def _guarded(self, receiver: cst.BaseExpression) -> bool:
        """Inside `if hasattr(x, "list_roots"):` for this very receiver: the code checks for the
        SDK session's method before asking (duck-typed session)."""
        text = code_of(receiver)
        for anc in reversed(self.ancestors[:-1]):
            test = anc.test if isinstance(anc, cst.If) else None
            if isinstance(test, cst.Call) and method_name(test) == "hasattr":
                args = positional(test)
                if len(args) == 2 and literal(args[1].value) == "list_roots" and code_of(args[0].value) == text:
                    return True
        return False

    def _report_request(self, node: cst.Call, message: Message, kind: str) -> None:
        """Report a roots request; its help says the migration strategies that apply at this
        site, or where none may (roots that carry data, a `try` fallback), why, and what a
        human must decide."""
        outcome = plan_request_rewrite(self.context, node, kind)
        advice = message.help
        if outcome.decide:  # not directories: "take the directories as ..." would mislead
            advice = advice.replace(MIGRATE, outcome.decide)
        if outcome.marker_only:
            advice += f" (no automatic rewrite: {outcome.reason}; the fix leaves a review marker)"
        elif outcome.fix is not None and outcome.suggested:
            advice += f" (rewrites: {', '.join(outcome.applicable)}; only suggested here: {outcome.suggested})"
        elif outcome.fix is not None:
            advice += f" (rewrites: {', '.join(outcome.applicable)})"
        elif outcome.applicable:
            advice += f" (rewrites: {', '.join(outcome.applicable)}; not with this strategy: {outcome.reason})"
        else:
            advice += f" (no automatic rewrite: {outcome.reason})"
        self.report(node, message.text, help=advice, fix=outcome.fix)

    def _send_request(self, node: cst.Call) -> None:
        request = _first_arg(node, "request")
        if request is None:
            return
        inner = _unwrap(request, self.resolver)
        if inner is not None:
            self.context.claim(request)
            self.context.claim(inner)
            self._report_request(node, MSG_SEND, "result")
            return
        held = _wrapped_name(request, self.resolver)
        if held is not None and self._built.pop(self._held_key(held.value), None) is not None:
            self._report_request(node, MSG_SEND, "result")
        elif self.resolver.sdk_instance(request) == "ListRootsRequest":
            self._report_request(node, MSG_SEND, "result")

    def _construction(self, node: cst.Call) -> None:
        symbol = self.resolver.mcp_name(node.func)
        if symbol == "ListRootsRequest":
            if self._inside_input_required():
                self._bridge(node, "InputRequiredResult")
            elif not self._note_built(node):
                self.report(node, MSG_SEND)
        elif symbol == "ListRoots" and self.resolver.sdk_name(node.func):
            self._bridge(node, "ListRoots resolver marker")

    def _bridge(self, node: cst.CSTNode, what: str) -> None:
        """An era-portable request, kept on purpose: clients in the same fix run keep their roots."""
        self.report(node, MSG_BRIDGE.format(what=what), severity="info")
        note_still_asks(self.context)

    def _inside_input_required(self) -> bool:
        for anc in reversed(self.ancestors[:-1]):
            if isinstance(anc, cst.Call) and self.resolver.sdk_name(anc.func) == "InputRequiredResult":
                return True
            if isinstance(anc, cst.DictElement) and literal(anc.key) in ("inputRequests", "input_requests"):
                return True
        return False

    def _note_built(self, node: cst.Call) -> bool:
        """Hold `name = ListRootsRequest(...)` until we know whether it is sent."""
        parent = self.parent(1)
        if not (isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1):
            return False
        target = parent.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        self._built[self._held_key(target.value)] = (node, list(self.ancestors))
        return True

    def _held_key(self, name: str) -> tuple:
        """A held request's key: its name within the function it is bound in (two functions'
        `request = ListRootsRequest()` are two requests)."""
        scope = next((a for a in reversed(self.ancestors) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        return id(scope), name

    def method_used(self, node, where, ancestors: list, *, constant: bool) -> None:
        if where == "request" and not error_data(ancestors):
            if not constant and self._inside_input_required():
                self._bridge(node, "inputRequests")
            elif not in_test_code(self.context.path):  # a test's input to the code it tests
                self.report(node, MSG_RAW)
        else:
            self._method_given(node, where, ancestors)

    def _method_given(self, node, where, ancestors: list) -> None:
        """The method given to a call that sends or builds a message (vocabulary/builders.py:
        the project's callee by its body, another by its name), or matched in a relaying branch."""
        built = callee_builds(self.context, self.resolver, ancestors)  # None: not the project's
        named = built is None and (sends(where) or (builds(where) and not error_data(ancestors)))
        if named or (built and not error_data(ancestors)):
            if not in_test_code(self.context.path):  # a test's input to the code it tests
                self.report(node, MSG_RAW)
        elif where == "dispatch" and relays(ancestors):
            self.report(node, MSG_RELAY)


def _helper_keys(path: str, data: bytes, caller: FileContext) -> set:
    """The functions of another module of the project whose body asks for roots: that module
    run through this rule alone (core.dispatch, the engine's own walk), within the limits of
    every parse (its file's effects model, vocabulary/file_effects.py). A module whose code holds
    no request (its syntax screen) is not parsed."""
    return found_alone(path, data, caller.settings, RootsRequest, asks_in, ASKS)


def _unwrap(expr: cst.BaseExpression, resolver):
    """The ListRootsRequest(...) call inside `expr`, through a v1 ServerRequest(...) wrapper."""
    if not isinstance(expr, cst.Call):
        return None
    symbol = resolver.sdk_name(expr.func)
    if symbol == "ListRootsRequest":
        return expr
    if symbol in REQUEST_WRAPPERS:
        inner = _first_arg(expr, "root")  # ServerRequest(ListRootsRequest()) or (root=...)
        if isinstance(inner, cst.Call) and resolver.sdk_name(inner.func) == "ListRootsRequest":
            return inner
    return None


def _wrapped_name(expr: cst.BaseExpression, resolver) -> cst.Name | None:
    """The name a request is sent by: `send_request(request)`, or through a v1 wrapper
    `send_request(ServerRequest(request))` (the request built on a line above)."""
    if isinstance(expr, cst.Call) and resolver.sdk_name(expr.func) in REQUEST_WRAPPERS:
        expr = _first_arg(expr, "root")
    return expr if isinstance(expr, cst.Name) else None


def _first_arg(call: cst.Call, name: str):
    """The first positional argument's value, or the value of keyword `name`."""
    args = positional(call)
    if args:
        return args[0].value
    arg = keyword(call, name)
    return arg.value if arg is not None else None


def _short(expr: cst.BaseExpression) -> str:
    """A receiver's text; a long one keeps its end (`...request_context.session`)."""
    text = code_of(expr)
    return text if len(text) <= 40 else "..." + text[-37:]
