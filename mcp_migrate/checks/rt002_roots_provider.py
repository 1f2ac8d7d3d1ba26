"""RT002 roots-provider: a client supplies roots to servers."""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.checks.base import Invalid, Rule, Valid
from mcp_migrate.checks.receivers import CLIENT_RECEIVERS
from mcp_migrate.checks.shapes import ROOTS_LIST, string_context
from mcp_migrate.core.fixes import remove_statement
from mcp_migrate.core.resolve import SDK_PACKAGES
from mcp_migrate.core.syntax import is_false_or_none, keyword, method_name, positional

MSG = (
    "{what} supplies roots to servers; Roots is deprecated by SEP-2577: give the server its "
    "directories as tool arguments or through its configuration (stdio `env`/`args`), then delete this"
)
MSG_ANSWER = (
    "answers `roots/list` by hand; Roots is deprecated by SEP-2577: give the server its directories "
    "as tool arguments or through its configuration, then delete this branch"
)

_OWN_SET_ROOTS = re.compile(rb"def\s+set_roots\b")
#: Position of `list_roots_callback` among ClientSession's positional parameters (mcp >= 1.10).
CLIENT_SESSION_CALLBACK_INDEX = 5
#: Constructors that take `roots=`: fastmcp clients, pydantic-ai MCP toolsets/servers.
_ROOTS_KWARG_PACKAGES = frozenset({"fastmcp", "pydantic_ai"})


class RootsProvider(Rule):
    CODE = "RT002"
    WIRE_STRINGS = frozenset({ROOTS_LIST})
    SCREEN = (b"list_roots", b"ClientSession", b"set_roots", b"roots/list", b"ListRoots", b"roots_callback")
    #: Roots named somewhere, or a positional ClientSession callback (imported from mcp).
    GATE = (b"oots", b"mcp")

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
    ]

    @classmethod
    def screen(cls, data: bytes) -> bool:
        # `roots=` on a fastmcp Client or pydantic-ai toolset needs that package's import.
        if any(token in data for token in cls.SCREEN):
            return True
        return b"roots" in data and (b"fastmcp" in data or b"pydantic_ai" in data)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.resolver.qualified(node.func)
        root = qualified.partition(".")[0] if qualified else ""
        if root in SDK_PACKAGES:
            arg = keyword(node, "list_roots_callback")
            if arg is not None and not is_false_or_none(arg.value):
                self.report(
                    arg,
                    MSG.format(what="`list_roots_callback=`"),
                    fix=self.context.rewrites.remove_provider_arg(self.context, node, arg),
                )
            symbol = qualified.rpartition(".")[2]
            if symbol == "ClientSession":
                args = positional(node)
                if len(args) > CLIENT_SESSION_CALLBACK_INDEX:
                    arg = args[CLIENT_SESSION_CALLBACK_INDEX]
                    if not is_false_or_none(arg.value):
                        self.report(
                            arg,
                            MSG.format(what="the positional roots callback of `ClientSession`"),
                            fix=self.context.rewrites.remove_provider_arg(self.context, node, arg),
                        )
            elif symbol == "create_roots_callback":
                self.report(node, MSG.format(what="`create_roots_callback(...)`"))
        if root in _ROOTS_KWARG_PACKAGES:
            symbol = qualified.rpartition(".")[2]
            if symbol.endswith("Client") or symbol.startswith("MCP"):
                arg = keyword(node, "roots")
                if arg is not None and not is_false_or_none(arg.value):
                    self.report(
                        arg,
                        MSG.format(what="`roots=`"),
                        fix=self.context.rewrites.remove_provider_arg(self.context, node, arg),
                    )
        name = method_name(node)
        if name == "set_roots" and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            kind = self.resolver.sdk_instance(receiver)
            if kind in CLIENT_RECEIVERS or (
                # `self.client.set_roots(...)`: an attribute we cannot type, in a file that
                # imports fastmcp and defines no set_roots of its own.
                kind is None
                and isinstance(receiver, cst.Attribute)
                and b"fastmcp" in self.context.data
                and self.resolver.imports_sdk
                and not _OWN_SET_ROOTS.search(self.context.data)
            ):
                self.report(
                    node,
                    MSG.format(what="`set_roots(...)`"),
                    fix=self.context.rewrites.remove_provider_statement(self.context, node),
                )
        elif name == "isinstance":
            args = positional(node)
            if len(args) == 2 and self._names_list_roots_request(args[1].value):
                self.report(node, MSG_ANSWER)

    def _names_list_roots_request(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Tuple):
            return any(self._names_list_roots_request(e.value) for e in expr.elements)
        return self.resolver.sdk_name(expr) == "ListRootsRequest"

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        if self.resolver.sdk_name(node.cls) == "ListRootsRequest":
            self.report(node, MSG_ANSWER)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value != "on_list_roots":
            return
        owner = self.parent(2)  # FunctionDef <- IndentedBlock <- ClassDef
        if isinstance(owner, cst.ClassDef) and any(
            self.resolver.sdk_name(base.value) == "MessageHandler" for base in owner.bases
        ):
            self.report(
                node.name,
                MSG.format(what="`MessageHandler.on_list_roots`"),
                fix=remove_statement(self.ancestors, node, unsafe=True),
            )

    def visit_string(self, node: cst.BaseString, value: str) -> None:
        if string_context(self.ancestors) == "dispatch":
            self.report(node, MSG_ANSWER)
