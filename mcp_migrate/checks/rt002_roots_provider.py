"""RT002 roots-provider: a client supplies roots to servers."""

from __future__ import annotations

import ast
import re

import libcst as cst

from mcp_migrate.checks.roots_types import (
    annotation_symbols,
    param_symbols,
    roots_type_definition,
)
from mcp_migrate.checks.wire import (
    ROOTS_LIST,
    WireMethodRule,
    error_data,
    method_in_code,
    registers,
    relays,
)
from mcp_migrate.core.fix.builders import remove_statement
from mcp_migrate.core.rule import Invalid, Valid
from mcp_migrate.core.screen import none_or_false
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.sdk import (
    ASKING_TYPES,
    CLIENT_RECEIVERS,
    FASTMCP,
    PROVIDER_TYPES,
    ROOTS_KWARG_PACKAGES,
    ROOTS_TYPE_NAMES,
    SDK_PACKAGES,
)
from mcp_migrate.core.syntax import code_of, is_false_or_none, keyword, literal, method_name, positional
from mcp_migrate.rewrites.rt002.providers import remove_provider_arg, remove_provider_statement

MSG = (
    "{what} supplies roots to servers; Roots is deprecated by SEP-2577: give the server its "
    "directories as tool arguments or through its configuration (stdio `env`/`args`), then delete this"
)
MSG_PROVIDER = (
    "`{name}` supplies roots ({why}); Roots is deprecated by SEP-2577: give the server its "
    "directories as tool arguments or through its configuration, then delete this provider"
)
MSG_TYPE = (
    "`{name}` re-implements a Roots protocol type (the client side of Roots, deprecated by "
    "SEP-2577): delete it once nothing answers `roots/list`"
)
MSG_ANSWER = (
    "answers `roots/list` by hand; Roots is deprecated by SEP-2577: give the server its directories "
    "as tool arguments or through its configuration, then delete this branch"
)

_OWN_SET_ROOTS = re.compile(rb"def\s+set_roots\b")
#: Position of `list_roots_callback` among ClientSession's positional parameters (mcp >= 1.10).
CLIENT_SESSION_CALLBACK_INDEX = 5
#: Mapping keys under which a roots callback is handed to a session or a callback table.
_CALLBACK_KEYS = frozenset({"list_roots_callback", "list_roots"})


#: `"roots"` as a key (`{"roots": ...}`, `answer["roots"] = ...`), not a word in a list (the
#: keyword tables of pygments' lexers hold `'roots',` and `uri` and cost seconds to parse).
_ROOTS_KEY = re.compile(rb"""["']roots["']\s*[:\]]""")


class RootsProvider(WireMethodRule):
    CODE = "RT002"
    METHOD = ROOTS_LIST
    SKIPS_CLAIMED = False
    WIRE_STRINGS = frozenset({ROOTS_LIST})
    SCREEN = (
        b"list_roots",
        b"ClientSession",
        b"set_roots",
        b"roots/list",
        b"ListRoots",
        b"roots_callback",
        b"ROOTS_LIST",
        b"LIST_ROOTS",
    )
    #: Roots named somewhere (a `ROOTS_LIST` constant too), or a positional ClientSession
    #: callback (imported from mcp).
    GATE = (b"oots", b"OOTS", b"mcp")

    VALID = [
        Valid(
            "from fastmcp.server.providers.skills import SkillsDirectoryProvider\n"
            "p = SkillsDirectoryProvider(roots=['/skills'])\n",
            "FastMCP skill directories are not MCP Roots",
        ),
        Valid("from mcp import ClientSession\ns = ClientSession(r, w)\n", "a session without a roots callback"),
        Valid(
            "from mcp import ClientSession\ns = ClientSession(r, w, None, None, None, None)\n",
            "positional None is no callback",
        ),
        Valid("def set_roots(x): ...\nset_roots([1])\n", "a user's own set_roots"),
        Valid('if method == "roots/listeners":\n    pass\n', "a different method string"),
        Valid(
            "import fastmcp\n\nclass Store:\n    def set_roots(self, r): ...\n\n"
            "class App:\n    def go(self):\n        self.store.set_roots([])\n",
            "set_roots on an untyped attribute in a file that defines its own set_roots",
        ),
        Valid(
            "from mcp.types import ListRootsResult\n\ndef describe(r: ListRootsResult) -> str:\n    return str(r.roots)\n",
            "a function that only reads a ListRootsResult is not a provider",
        ),
        Valid("def build(cb):\n    return dict(list_roots_callback=cb)\n", "list_roots_callback= outside MCP code"),
        Valid('STATUS = {"roots": ["/srv/a"]}\n', "a status payload, not a roots answer"),
    ]
    INVALID = [
        Invalid("from mcp import ClientSession\ns = ClientSession(r, w, list_roots_callback=cb)\n", "keyword callback"),
        Invalid(
            "from mcp import ClientSession\ns = ClientSession(r, w, None, s, e, cb)\n", "positional callback at index 5"
        ),
        Invalid("from fastmcp import Client\nc = Client('srv.py', roots=['file:///repo'])\n", "fastmcp Client roots="),
        Invalid("from fastmcp import Client\nc = Client('srv.py')\nc.set_roots(['file:///x'])\n", "fastmcp set_roots"),
        Invalid('if msg["method"] == "roots/list":\n    reply({"roots": []})\n', "a raw client answering roots/list"),
        Invalid(
            "from fastmcp import Client\n\nclass App:\n    def __init__(self):\n        self.client = Client('s.py')\n\n"
            "    def share(self, paths):\n        self.client.set_roots(paths)\n",
            "set_roots on a client kept on self, in a fastmcp file",
        ),
        Invalid(
            "from fastmcp import Client\nclient = Client('srv.py')\n\ndef share(p):\n    client.set_roots([p])\n",
            "a module-level client used inside a function (pre-pass binding)",
        ),
        Invalid(
            "from mcp.types import ListRootsResult\n\ndef provide(context):\n    return ListRootsResult(roots=[])\n",
            "a provider recognised by its body, reported at its def",
        ),
        Invalid(
            "import mcp\n\ndef args(cb):\n    return dict(read_timeout=5, list_roots_callback=cb)\n",
            "list_roots_callback= on any callee in MCP code (kwargs splatted later)",
        ),
        Invalid('def wire(router):\n    router.register("roots/list", answer)\n', "roots/list given to a registration"),
        Invalid('answer = {"roots": [{"uri": "file:///srv/repo"}]}\n', "a wire-form roots answer"),
    ]

    @classmethod
    def screen(cls, data: bytes) -> bool:
        # `roots=` on a fastmcp Client or pydantic-ai toolset needs that package's import.
        if any(token in data for token in cls.SCREEN):
            return True
        if b"roots" not in data:
            return False
        # A raw `{"roots": [{"uri": ...}]}` answer.
        return any(package.encode() in data for package in ROOTS_KWARG_PACKAGES) or (
            b"uri" in data and _ROOTS_KEY.search(data) is not None
        )

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """Each way the visits below find a provider, at the level of names and keywords: a
        roots callback given by keyword, positionally to ClientSession or by
        `create_roots_callback`; `roots=` on a client or with Root objects; `set_roots(...)`; a
        callback table entry; a raw `{"roots": [{"uri": ...}]}` answer; the SDK's provider and
        request types named (signatures, isinstance, match, MessageHandler); a re-implemented
        Roots type; `roots/list` answered."""
        for _, value in syntax.keyword_calls("list_roots_callback"):
            if not none_or_false(value):
                return True
        for call in syntax.calls_to("ClientSession"):
            args = screen_positional(call)
            if len(args) > CLIENT_SESSION_CALLBACK_INDEX and not none_or_false(args[CLIENT_SESSION_CALLBACK_INDEX]):
                return True
        if syntax.calls_to("create_roots_callback") or syntax.method_calls("set_roots"):
            return True
        for call, value in syntax.keyword_calls("roots"):
            if none_or_false(value):
                continue
            symbols = syntax.symbols(call.func)
            if any(s.endswith("Client") or s.startswith("MCP") for s in symbols) or _root_objects_tree(value, syntax):
                return True
        if syntax.mentions("ListRootsRequest") or syntax.mentions_any(PROVIDER_TYPES):
            return True
        if "on_list_roots" in syntax.identifiers or syntax.calls_to("ListRootsResult"):
            return True
        if syntax.mentions("ListRootsResult") and (syntax.mentions("ErrorData") or syntax.mentions("RequestContext")):
            return True
        if any(_roots_type_name(node, syntax) for node in syntax.of(ast.ClassDef)):
            return True
        for node in syntax.of(ast.Dict):
            for key, value in zip(node.keys, node.values):
                name = screen_string(key) if key is not None else None
                if name in _CALLBACK_KEYS and not none_or_false(value):
                    return True
                if name == "roots" and _uri_dicts_tree(value):
                    return True
        if method_in_code(syntax, cls.WIRE_STRINGS, ROOTS_LIST):
            return True
        # Shapes the rule does not report yet, let through so that learning them needs no
        # screen change: a project's own provider API (`set_roots_provider`, `add_root`, a
        # `RootsProvider` type, `def list_roots`), its own `Root` type.
        names = {node.name for node in syntax.of(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)}
        if "list_roots" in names or "Root" in names:
            return True
        return syntax.identifiers_matching(_OWN_PROVIDER_API)

    def visit_Call(self, node: cst.Call) -> None:
        """Each way a call wires or answers roots, one named step each."""
        qualified = self.resolver.qualified(node.func) or ""
        sdk_callee = qualified.partition(".")[0] in SDK_PACKAGES
        self._callback_keyword(node, sdk_callee)
        if sdk_callee:
            self._sdk_session_callback(node, qualified)
        self._roots_keyword(node, qualified)
        name = method_name(node)
        if name == "set_roots" and isinstance(node.func, cst.Attribute):
            self._set_roots(node, node.func.value)
        elif name == "isinstance":
            args = positional(node)
            if len(args) == 2 and self._names_list_roots_request(args[1].value):
                self.report(node, MSG_ANSWER)

    def _callback_keyword(self, node: cst.Call, sdk_callee: bool) -> None:
        """`list_roots_callback=<not None>` wires a roots provider in MCP code whatever the
        callee: the SDK's session, a project helper that opens one, a settings object, a host
        library's client, `dict(...)` kwargs splatted later, `(A if flag else B)(...)`."""
        arg = keyword(node, "list_roots_callback")
        if arg is None or is_false_or_none(arg.value):
            return
        if sdk_callee:
            fix = remove_provider_arg(self.context, node, arg)
            self.report(arg, MSG.format(what="`list_roots_callback=`"), fix=fix)
        elif self.resolver.imports_mcp:
            self.report(arg, MSG.format(what="`list_roots_callback=`"))

    def _sdk_session_callback(self, node: cst.Call, qualified: str) -> None:
        """The SDK's positional spellings: `ClientSession(r, w, ..., cb)`, `create_roots_callback`."""
        symbol = qualified.rpartition(".")[2]
        if symbol == "ClientSession":
            args = positional(node)
            if len(args) > CLIENT_SESSION_CALLBACK_INDEX:
                arg = args[CLIENT_SESSION_CALLBACK_INDEX]
                if not is_false_or_none(arg.value):
                    self.report(
                        arg,
                        MSG.format(what="the positional roots callback of `ClientSession`"),
                        fix=remove_provider_arg(self.context, node, arg),
                    )
        elif symbol == "create_roots_callback":
            self.report(node, MSG.format(what="`create_roots_callback(...)`"))

    def _roots_keyword(self, node: cst.Call, qualified: str) -> None:
        """`roots=` on a fastmcp client or a pydantic-ai MCP toolset (their roots providers), or
        on any callee when the value is SDK `Root` objects (`roots=[Root(uri=...)]`)."""
        if qualified.partition(".")[0] not in ROOTS_KWARG_PACKAGES:
            arg = keyword(node, "roots")
            if (
                arg is not None
                and _root_objects(arg.value, self.resolver)
                and not qualified.endswith("ListRootsResult")
            ):
                self.report(arg, MSG.format(what="`roots=` with `Root` objects"))
            return
        symbol = qualified.rpartition(".")[2]
        if symbol.endswith("Client") or symbol.startswith("MCP"):
            arg = keyword(node, "roots")
            if arg is not None and not is_false_or_none(arg.value):
                self.report(
                    arg,
                    MSG.format(what="`roots=`"),
                    fix=remove_provider_arg(self.context, node, arg),
                )

    def _set_roots(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        """`client.set_roots(...)` on a fastmcp client (typed, or an untyped attribute in a
        fastmcp file that defines no set_roots of its own)."""
        kind = self.resolver.sdk_instance(receiver)
        if kind in CLIENT_RECEIVERS or (
            kind is None
            and isinstance(receiver, cst.Attribute)
            and FASTMCP.encode() in self.context.data
            and self.resolver.imports_sdk
            and not _OWN_SET_ROOTS.search(self.context.data)
        ):
            self.report(
                node,
                MSG.format(what="`set_roots(...)`"),
                fix=remove_provider_statement(self.context, node),
            )

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """`{"list_roots_callback": cb}` kwargs splatted into a session later, or a callback
        table entry `{"list_roots": self.list_roots_callback}` (MCP code only)."""
        key = literal(node.key)
        if key not in _CALLBACK_KEYS or is_false_or_none(node.value) or not self.resolver.imports_mcp:
            return
        if key == "list_roots_callback" or "callback" in (code_of(node.value)):
            self.report(node, MSG.format(what=f"the `{key}` callback entry"))

    def _names_list_roots_request(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Tuple):
            return any(self._names_list_roots_request(e.value) for e in expr.elements)
        return self.resolver.sdk_name(expr) == "ListRootsRequest"

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        if self.resolver.sdk_name(node.cls) == "ListRootsRequest":
            self.report(node, MSG_ANSWER)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == "on_list_roots":
            self._message_handler_method(node)
            return
        why = self._provider_signature(node)
        if why is not None:
            self.report(node.name, MSG_PROVIDER.format(name=node.name.value, why=why))

    def _message_handler_method(self, node: cst.FunctionDef) -> None:
        owner = self.parent(2)  # FunctionDef <- IndentedBlock <- ClassDef
        if isinstance(owner, cst.ClassDef) and any(
            self.resolver.sdk_name(base.value) == "MessageHandler" for base in owner.bases
        ):
            self.report(
                node.name,
                MSG.format(what="`MessageHandler.on_list_roots`"),
                fix=remove_statement(self.ancestors, node, unsafe=True),
            )

    def _provider_signature(self, node: cst.FunctionDef):
        """Why a function is a roots provider, by its signature or body, else None: typed
        `-> ListRootsFnT`; taking a ListRootsRequest; returning a ListRootsResult it builds, or
        typed `-> ListRootsResult` with the callback's shape (`| ErrorData`, a RequestContext
        parameter). One that only reads or describes a ListRootsResult is not a provider."""
        returns = annotation_symbols(self.resolver, node.returns.annotation) if node.returns else set()
        if returns & ASKING_TYPES:
            return None  # a server-side resolver that asks (`-> ListRoots | ListRootsResult`)
        if "ListRootsFnT" in returns:
            return "returns a `ListRootsFnT` callback"
        params = param_symbols(self.resolver, node.params)
        if "ListRootsRequest" in params:
            return "takes a `ListRootsRequest`"
        if _returns_built_result(node.body, self.resolver):
            return "builds and returns a `ListRootsResult`"
        if "ListRootsResult" in returns and ("ErrorData" in returns or "RequestContext" in params):
            return "has the `list_roots_callback` signature"
        return None

    def visit_Param(self, node: cst.Param) -> None:
        """A parameter typed with the SDK's roots-provider types (`roots: RootsList |
        RootsHandler`, `ListRootsFnT`): a wrapper's API through which its users supply roots."""
        if node.annotation is None:
            return
        found = annotation_symbols(self.resolver, node.annotation.annotation) & PROVIDER_TYPES
        if found:
            self.report(node, MSG.format(what=f"a `{node.name.value}` parameter typed `{sorted(found)[0]}`"))

    def visit_Dict(self, node: cst.Dict) -> None:
        """`{"roots": [{"uri": ...}, ...]}`: a roots/list answer in wire form."""
        for element in node.elements:
            if isinstance(element, cst.DictElement) and literal(element.key) == "roots" and _uri_dicts(element.value):
                self.report(node, MSG.format(what='a raw `{"roots": [{"uri": ...}]}` answer'))
                return

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """A project's own ListRootsRequest / ListRootsResult / Root / ListRootsFn in MCP code."""
        name = roots_type_definition(node, self.context.data)
        if name is not None and name != "RootsListChangedNotification" and self.resolver.imports_mcp:
            self.report(node.name, MSG_TYPE.format(name=name))

    def method_used(self, node, where, ancestors: list, *, constant: bool) -> None:
        """A roots/list string or constant (`Method.ROOTS_LIST`) used where the method is answered."""
        if self._answers(where, ancestors):
            self.report(node, MSG_ANSWER)

    def _answers(self, where, ancestors: list) -> bool:
        """Matched in a dispatch (not one that relays the request on to another peer), or
        given to a registration call: this code answers roots/list."""
        if where == "dispatch":
            return not relays(ancestors) and not error_data(ancestors)
        return registers(where)


def _returns_built_result(body, resolver) -> bool:
    """Does the function's own body (not nested functions) `return ListRootsResult(...)`?"""
    stack = list(_statements(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            stack.extend(stmt.body)
        elif isinstance(stmt, cst.Return):
            value = stmt.value
            if isinstance(value, cst.Call) and resolver.mcp_name(value.func) == "ListRootsResult":
                return True
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for part in ("body", "orelse", "finalbody"):
                stack.extend(_statements(getattr(stmt, part, None)))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(_statements(handler.body))
    return False


def _statements(block) -> list:
    """The statements of a block-like field: an IndentedBlock, a one-line suite, an `else:` /
    `finally:` clause, or an `elif` (an If, itself a statement)."""
    if block is None or isinstance(block, cst.BaseExpression):
        return []
    if isinstance(block, cst.If):
        return [block]
    inner = getattr(block, "body", None)
    if isinstance(inner, (list, tuple)):
        return list(inner)
    return _statements(inner)


def _list_items(value: cst.BaseExpression) -> list:
    """The items of a list display (or the element of a list comprehension); [] otherwise."""
    if isinstance(value, cst.ListComp):
        return [value.elt]
    if isinstance(value, cst.List):
        return [e.value for e in value.elements if isinstance(e, cst.Element)]
    return []


def _uri_dicts(value: cst.BaseExpression) -> bool:
    """A list (or list comprehension) of dict literals that carry a "uri" key."""
    items = _list_items(value)
    return bool(items) and all(
        isinstance(item, cst.Dict)
        and any(isinstance(e, cst.DictElement) and literal(e.key) == "uri" for e in item.elements)
        for item in items
    )


#: Identifiers of a project's own roots-provider API (`set_roots_provider`, `RootsProvider`,
#: `register_roots_callback`, `add_root`).
_OWN_PROVIDER_API = re.compile(
    r"(?i)(?:^|_)roots?_?(?:provider|callback|handler|fn)s?(?:$|_)|^(?:set|add|register|update)_?roots?(?:$|_)"
)


def _roots_type_name(node: ast.ClassDef, syntax) -> bool:
    """`roots_type_definition` on the standard library's ClassDef (RT004 owns the notification)."""
    name = node.name
    if name in ROOTS_TYPE_NAMES or name.startswith("ListRootsFn"):
        return name != "RootsListChangedNotification"
    return name == "Root" and b"class ListRootsResult" in syntax.data


def _list_items_tree(value) -> list:
    if value.__class__ is ast.ListComp:
        return [value.elt]
    if value.__class__ is ast.List:
        return [e for e in value.elts if e.__class__ is not ast.Starred]
    return []


def _uri_dicts_tree(value) -> bool:
    """`_uri_dicts` on the standard library's nodes."""
    items = _list_items_tree(value)
    return bool(items) and all(
        item.__class__ is ast.Dict and any(k is not None and screen_string(k) == "uri" for k in item.keys)
        for item in items
    )


def _root_objects_tree(value, syntax) -> bool:
    """`_root_objects` on the standard library's nodes."""
    items = _list_items_tree(value)
    return bool(items) and all(i.__class__ is ast.Call and syntax.names_symbol(i.func, "Root") for i in items)


def _root_objects(value: cst.BaseExpression, resolver) -> bool:
    """A list (or comprehension) of MCP `Root(...)` objects."""
    items = _list_items(value)
    return bool(items) and all(isinstance(i, cst.Call) and resolver.mcp_name(i.func) == "Root" for i in items)
