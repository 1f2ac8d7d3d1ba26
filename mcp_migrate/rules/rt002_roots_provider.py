"""RT002 roots-provider: a client supplies roots to servers."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.builders import remove_statement
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.messages import Message, shorten
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.rule import Invalid, Valid
from mcp_migrate.core.sdk import (
    ASKING_TYPES,
    CLIENT_RECEIVERS,
    FASTMCP,
    LIST_ROOTS_RESULT,
    PROVIDER_TYPES,
    ROOTS_HANDLER_CONTEXT,
    ROOTS_KWARG_PACKAGES,
    ROOTS_VALUE_TYPES,
    SDK_PACKAGES,
    sdk_symbol,
)
from mcp_migrate.core.syntax import (
    all_params,
    code_of,
    is_false_or_none,
    iter_nodes,
    keyword,
    literal,
    method_name,
    positional,
)
from mcp_migrate.rewrites.rt002.providers import remove_provider_arg, remove_provider_statement
from mcp_migrate.rules.rt002_screen import (
    CALLBACK_KEYS,
    CLIENT_SESSION_CALLBACK_INDEX,
    RootsProviderScreen,
    provider_in,
    provider_slot,
)
from mcp_migrate.vocabulary.file_effects import PROVIDES, STORES, file_effects, found_alone
from mcp_migrate.vocabulary.imported_asks import imports_a_module_defining
from mcp_migrate.vocabulary.roots_api import (
    bound_value,
    callables_named,
    returns_an_attribute,
    returns_built,
    roots_argument,
    stores_roots,
)
from mcp_migrate.vocabulary.roots_api_names import SETTER_NAME
from mcp_migrate.vocabulary.roots_stores import RootsStores
from mcp_migrate.vocabulary.roots_types import (
    annotation_names,
    annotation_symbols,
    param_symbols,
    provider_types,
    roots_type_definition,
)
from mcp_migrate.vocabulary.wire import (
    WireMethodRule,
    asserted,
    envelope_answer,
    error_data,
    expected_value,
    list_items,
    relays,
    uri_dicts,
)
from mcp_migrate.vocabulary.wire_names import ROOTS_LIST, registers

_GIVE = "give the server its directories as tool arguments or through its configuration"
MSG = Message(
    "{what} supplies roots, deprecated by SEP-2577",
    _GIVE + " (stdio `env`/`args`), then delete this",
)
MSG_PROVIDER = Message(
    "`{name}` supplies roots, deprecated by SEP-2577",
    "it {why}; " + _GIVE + ", then delete this provider",
)
MSG_TYPE = Message(
    "`{name}` re-implements a Roots protocol type, deprecated by SEP-2577",
    "it is the client side of Roots: delete it once nothing answers `roots/list`",
)
MSG_SETTER = Message(
    "`{name}` hands roots to this project's client, deprecated by SEP-2577",
    "it is a roots setter; give servers their directories as tool arguments or configuration, then delete it",
)
MSG_SETTER_CALL = Message(
    "supplies roots through `{name}`, this project's roots setter",
    "Roots is deprecated by SEP-2577: pass the directories as tool arguments or configuration instead",
)
MSG_STORE = Message(
    "`{name}` hands on `{kind}`, this project's roots store",
    "it is where a roots setter keeps roots for the client; Roots is deprecated by SEP-2577: " + _GIVE,
)
MSG_STORE_PARAM = Message(
    "a `{name}` parameter typed `{kind}`, this project's roots store",
    "roots reach the client through it; Roots is deprecated by SEP-2577: " + _GIVE,
)
MSG_ANSWER = Message("answers `roots/list` by hand, deprecated by SEP-2577", _GIVE + ", then delete this branch")

_OWN_SET_ROOTS = lazy_compile(rb"def\s+set_roots\b")
#: The memo key of RootsProvider._imports_own_set_roots.
_IMPORTS_OWN_SET_ROOTS = "rt002.imports_own_set_roots"


#: What a module defining a roots store holds: the definition of its roots setter (SETTER_NAME).
_STORE_TOKENS = tuple(b"def " + verb + b"_root" for verb in (b"set", b"update", b"replace", b"register", b"add"))
#: Keywords that hand a project's own roots provider on (`roots_provider=`, `roots_manager=`).
_PROVIDER_KEYWORDS = frozenset({"roots_provider", "roots_callback", "roots_handler"})


class RootsProvider(RootsProviderScreen, WireMethodRule):
    PROVIDES_ROOTS = True
    METHOD = ROOTS_LIST
    SKIPS_CLAIMED = False

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
            'from fastmcp import Client\nfactory = Client if real else dict\nc = factory("srv.py", roots=paths)\n',
            "a variable holding one of two unrelated classes stays unknown",
        ),
        Valid(
            'asked = [f for f in frames if f.get("method") == "roots/list"]\n',
            "a comprehension keeping the frames sent: a filter, not an answer",
        ),
        Valid(
            'def seen(n):\n    return n.value == "roots/list"\n',
            "a checker comparing a syntax node's value with the method string answers nothing",
        ),
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
        Valid(
            "import mcp\n\ndef patch(fake_session, result):\n    fake_session.list_roots = result\n",
            "the asking side's list_roots patched in a test registers no provider",
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
            "from fastmcp.server.proxy import ProxyClient, StatefulProxyClient\n"
            "backend = StatefulProxyClient if remote else ProxyClient\n"
            "client = backend(cfg, roots=forward)\n",
            "a provider class chosen through a variable: the class both branches share",
        ),
        Invalid(
            'answers = [answer(m) for m in inbox if m["method"] == "roots/list"]\n',
            "a comprehension that answers each roots/list message",
        ),
        Invalid(
            'if req.method.value == "roots/list":\n    reply({"roots": []})\n',
            "an enum method's value is still the message's method",
        ),
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
        Invalid(
            "import mcp\n\ndef wire(client, provide):\n    client.on_list_roots = provide\n",
            "registration by assignment to a provider slot",
        ),
        Invalid(
            "from mcp.types import Root\n\ndef build(Host, config):\n"
            "    roots = [Root(uri='file:///srv/a')]\n    return Host(config, roots=roots)\n",
            "roots= given a name bound to Root objects above",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        #: this file's effects model (vocabulary/file_effects.py): the names of its functions
        #: given as `list_roots_callback=` or assigned to a provider slot (`client.on_list_roots
        #: = fn`), providers by use (PROVIDES, with how they are wired), and its definitions
        self.effects = file_effects(context)
        #: ids of the FunctionDefs already reported as providers or setters
        self._reported_defs: set = set()
        #: this project's roots stores (vocabulary/roots_stores.py)
        self.stores = RootsStores(
            context.path,
            _STORE_TOKENS,
            lambda path, data: _store_keys(path, data, context),
            context.settings.max_file_size,
            context.settings.view,
        )

    def visit_Call(self, node: cst.Call) -> None:
        """Each way a call wires or answers roots, one named step each."""
        qualified = self.resolver.qualified(node.func) or ""
        sdk_callee = qualified.partition(".")[0] in SDK_PACKAGES
        self._callback_keyword(node, sdk_callee)
        if sdk_callee:
            self._sdk_session_callback(node, qualified)
        self._roots_keyword(node, qualified)
        self._provider_keyword(node)
        name = method_name(node)
        if name == "set_roots" and isinstance(node.func, cst.Attribute):
            self._set_roots(node, node.func.value)
        if name == "setattr" and isinstance(node.func, cst.Name):
            args = positional(node)
            slot = literal(args[1].value) if len(args) == 3 else None
            if isinstance(slot, str) and provider_slot(slot):
                self._registered(node, slot, args[2].value)
        if name and SETTER_NAME.match(name) and not self.context.is_claimed(node):
            self._setter_call(node, name)
        elif name == "isinstance":
            args = positional(node)
            if len(args) == 2 and self._names_list_roots_request(args[1].value) and not asserted(self.ancestors):
                self.report(node, MSG_ANSWER)  # dispatch on the request type; a test's assert only checks it

    def _callback_keyword(self, node: cst.Call, sdk_callee: bool) -> None:
        """`list_roots_callback=<not None>` wires a roots provider in MCP code whatever the
        callee: the SDK's session, a project helper that opens one, a settings object, a host
        library's client, `dict(...)` kwargs splatted later, `(A if flag else B)(...)`."""
        arg = keyword(node, "list_roots_callback")
        if arg is None or is_false_or_none(arg.value):
            return
        self._wire(arg.value, "`list_roots_callback=`")
        if sdk_callee:
            fix = remove_provider_arg(self.context, node, arg)
            self.report(arg, MSG.format(what="`list_roots_callback=`"), fix=fix)
        elif self.context.evidence.mcp:
            self.report(arg, MSG.format(what="`list_roots_callback=`"))

    def _wire(self, value: cst.BaseExpression, how: str) -> None:
        for name in callables_named(value, self.ancestors):
            self.effects.registers(PROVIDES, name, how)

    def visit_Assign(self, node: cst.Assign) -> None:
        """Registration by assignment, in MCP code: a callable put in a roots-provider slot
        (`client.on_list_roots = fn`, `self._list_roots_callback = cb`), or in the
        `list_roots_callback` entry of kwargs built by subscript (`kwargs["list_roots_callback"]
        = cb`), or a name declared with a provider type (`callback: ListRootsFnT | None`)
        rebound to a callable (`callback = self._default_roots`: the default it supplies). A
        local rebinding of a name declared otherwise registers nothing, whatever it is called:
        the keyword it is later given to is the finding."""
        for target in (t.target for t in node.targets):
            if isinstance(target, cst.Name):
                self._declared_provider(target, node.value)
            elif isinstance(target, cst.Attribute) and provider_slot(target.attr.value):
                self._registered(target, target.attr.value, node.value)
            elif isinstance(target, cst.Subscript) and len(target.slice) == 1:
                index = target.slice[0].slice
                key = literal(index.value) if isinstance(index, cst.Index) else None
                if key == "list_roots_callback" and _handed_on(target.value, self.ancestors):
                    self._registered(target, key, node.value)

    def _declared_provider(self, target: cst.Name, value: cst.BaseExpression) -> None:
        """A name whose declared type (its parameter's or variable's annotation, core.resolve)
        is a roots-provider type of the SDKs, given a callable."""
        binding = self.resolver.lookup(target.value)
        kind = sdk_symbol(binding.name) if binding is not None and binding.is_instance else None
        if kind not in PROVIDER_TYPES or is_false_or_none(value) or not self.context.evidence.mcp:
            return
        self._wire(value, f"`{target.value}`")
        self.report(target, MSG.format(what=f"`{target.value}: {kind}` bound to a callable"))

    def _registered(self, site, slot: str, value: cst.BaseExpression) -> None:
        if is_false_or_none(value) or not self.context.evidence.mcp:
            return
        self._wire(value, f"`{slot}`")
        self.report(site, MSG.format(what=f"registering a callable as `{slot}`"))

    def _provider_keyword(self, node: cst.Call) -> None:
        """`roots_provider=<not None>` (and `roots_manager=`, `roots_callback=`,
        `roots_handler=`): a project's own roots provider handed on, in MCP code."""
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in _PROVIDER_KEYWORDS and not is_false_or_none(arg.value):
                if self._client_roots_code():
                    self.report(arg, MSG.format(what=f"`{arg.keyword.value}=`"))

    def _setter_call(self, node: cst.Call, name: str) -> None:
        """`client.set_roots_provider(p)`, `manager.add_root("file:///srv")`: roots handed to a
        project's own setter (one step from the provider it feeds), in MCP code, with an
        argument that is roots: a `Root(...)`, a `file://` literal, a provider or callback, a
        call of a roots-named function. Reported at info: the setter's definition is the site."""
        if name == "set_roots" or name.endswith("_fn") or not node.args or not self._client_roots_code():
            return  # `set_roots_fn(f)` injects a function (a server's request, as often as a provider)
        says_provider = name.endswith(("_provider", "_callback", "_handler"))  # the name says what it takes
        if says_provider or any(roots_argument(arg.value, self.resolver) for arg in node.args):
            self.report(node, MSG_SETTER_CALL.format(name=name), severity="info")

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
            if arg is not None and self._root_objects_value(arg.value) and not qualified.endswith("ListRootsResult"):
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

    def _root_objects_value(self, value: cst.BaseExpression) -> bool:
        """`[Root(...), ...]` written there, or a name bound to one above (`roots = [Root(...)]`
        then `MCPClient(config, roots=roots)`)."""
        if isinstance(value, cst.Name):
            bound = bound_value(self.ancestors, value.value)
            value = bound if bound is not None else value
        return _root_objects(value, self.resolver)

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
            and not self._imports_own_set_roots()
        ):
            self.report(
                node,
                MSG.format(what="`set_roots(...)`"),
                fix=remove_provider_statement(self.context, node),
            )

    def _imports_own_set_roots(self) -> bool:
        """Whether a project module this file imports from defines a `set_roots` of its own
        (Jedi-Py-MCP's `WorkspaceRegistry.set_roots`, reached as `multi_ctx.registry.set_roots`
        in a file that also imports fastmcp): an untyped receiver is then no fastmcp client."""
        found = self.context.memo.get(_IMPORTS_OWN_SET_ROOTS)
        if found is None:
            view, limit = view_of(self.context.settings), self.context.settings.max_file_size
            found = self.context.memo[_IMPORTS_OWN_SET_ROOTS] = imports_a_module_defining(
                self.context.data, self.context.path, _OWN_SET_ROOTS, limit, view
            )
        return found

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """`{"list_roots_callback": cb}` kwargs splatted into a session later, or a callback
        table entry `{"list_roots": self.list_roots_callback}` (MCP code only)."""
        key = literal(node.key)
        if key not in CALLBACK_KEYS or is_false_or_none(node.value) or not self.context.evidence.mcp:
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
        self.effects.note_definition(node, self.ancestors)
        if node.name.value == "on_list_roots":
            self._message_handler_method(node)
            return
        if self._is_setter(node):
            self.report(node.name, MSG_SETTER.format(name=node.name.value))
            self._reported_defs.add(id(node))
            self.stores.setter(self.parent(2), node)  # FunctionDef <- IndentedBlock <- ClassDef
            for param in all_params(node.params):
                self.context.claim(param)
            return
        why = self._provider_signature(node)
        if why is not None:
            self.report(node.name, MSG_PROVIDER.format(name=node.name.value, why=why))
            self._reported_defs.add(id(node))

    def visit_Return(self, node: cst.Return) -> None:
        """`return mcp_types.ListRootsResult(...)` where the SDK is bound inside the function (a
        late `import mcp.types as t`, `t = importlib.import_module("mcp.types")`): the names of
        the body are known only here, not when the `def` was visited."""
        value = node.value
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return
        function = next((a for a in reversed(self.ancestors) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if not isinstance(function, cst.FunctionDef) or id(function) in self._reported_defs:
            return
        if function.name.value == "on_list_roots":
            return  # reported as the MessageHandler method it is
        if self.resolver.mcp_name(value.func) != LIST_ROOTS_RESULT:
            return
        returns = annotation_symbols(self.resolver, function.returns.annotation) if function.returns else set()
        if returns & ASKING_TYPES or returns_built(function.body, self.resolver, ASKING_TYPES):
            return  # a server-side resolver that asks (`-> ListRoots | ListRootsResult`, `return ListRoots()`)
        why = "builds and returns a `ListRootsResult`"
        self.report(function.name, MSG_PROVIDER.format(name=function.name.value, why=why))
        self._reported_defs.add(id(function))

    def _is_setter(self, node: cst.FunctionDef) -> bool:
        """A roots setter of a project's own client API, in MCP code: named like one
        (`set_roots_provider`, `register_roots_callback`, `add_root`), taking roots (a parameter
        typed as roots or a roots provider), or storing them (`self._roots...` assigned or
        appended to), or telling servers they changed."""
        if not SETTER_NAME.match(node.name.value) or not self._client_roots_code():
            return False
        params = [p for p in all_params(node.params) if p.name.value not in ("self", "cls")]
        if not params:
            return False
        for param in params:
            if param.annotation is not None and (
                provider_types(self.resolver, param.annotation.annotation)
                or annotation_symbols(self.resolver, param.annotation.annotation) & ROOTS_VALUE_TYPES
            ):
                return True
        return stores_roots(node)

    def _client_roots_code(self) -> bool:
        """Where a name alone may say "roots provider": Roots code (core.sdk.Evidence.roots) that
        is not a server's (a server's `ClientRootsManager` asks for roots, it supplies none)."""
        evidence = self.context.evidence
        return evidence.roots and evidence.side != "server"

    def leave_Module(self, node: cst.Module) -> None:
        """Functions and methods of this file wired as `list_roots_callback=` (through a local
        or a conditional): providers by their use, reported at their `def`; parameters and
        arguments typed with a roots store of this file."""
        for site, kind in self.stores.local_sites():
            self._report_store(site, kind)
        self.stores.imported.publish(self.context.data, self.effects.doers(STORES))
        wired = self.effects.registered(PROVIDES)
        for name in sorted(wired):
            func = self.effects.named(name)
            if func is not None and wired[name] == _HANDLER and not _gives_roots(func):
                continue  # a test's failing or slow stand-in registered for the method gives no roots
            if func is not None and id(func) not in self._reported_defs:
                self.report(func.name, MSG_PROVIDER.format(name=name, why=f"is wired as {wired[name]}"))

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
        if node.returns is not None and self._client_roots_code() and not returns_an_attribute(node):
            made = provider_types(self.resolver, node.returns.annotation)
            if made:
                return f"returns a `{sorted(made)[0]}`"
        params = param_symbols(self.resolver, node.params)
        if "ListRootsRequest" in params:
            return "takes a `ListRootsRequest`"
        if self._takes_roots_handler_context(node.params):
            return "takes the `RequestContext` of fastmcp's roots handlers"
        if returns_built(node.body, self.resolver):
            return "builds and returns a `ListRootsResult`"
        if "ListRootsResult" in returns and ("ErrorData" in returns or "RequestContext" in params):
            return "has the `list_roots_callback` signature"
        return None

    def _takes_roots_handler_context(self, params: cst.Parameters) -> bool:
        """A parameter typed with the `RequestContext` imported from `fastmcp.client.roots`
        (subscripted or not): the signature of fastmcp's `RootsHandler`."""
        for param in all_params(params):
            annotation = param.annotation.annotation if param.annotation is not None else None
            if isinstance(annotation, cst.Subscript):
                annotation = annotation.value
            if annotation is not None and self.resolver.qualified(annotation) == ROOTS_HANDLER_CONTEXT:
                return True
        return False

    def visit_Param(self, node: cst.Param) -> None:
        """A parameter typed with a roots-provider type (the SDK's `ListRootsFnT`, fastmcp's
        `RootsList | RootsHandler`, a project's own `RootsProvider`, a callable that gives a
        ListRootsResult): a wrapper's API through which its users supply roots."""
        if node.annotation is None or self.context.is_claimed(node):
            return
        found = annotation_symbols(self.resolver, node.annotation.annotation) & PROVIDER_TYPES
        if not found and node.default is not None and self._client_roots_code():
            found = provider_types(self.resolver, node.annotation.annotation)
        if found:
            name, kind = node.name.value, sorted(found)[0]
            self.report(node, MSG.format(what=f"a `{name}` parameter typed `{kind}`"))
            return
        if not self._client_roots_code():
            return
        for part in annotation_names(node.annotation.annotation):
            if isinstance(part, cst.Name) or self.resolver.qualified(part):
                kind = self.stores.typed(node, self.resolver.qualified(part), getattr(part, "value", ""))
                if kind is not None:
                    self._report_store(node, kind)
                    return

    def _report_store(self, node, kind: str) -> None:
        """A parameter typed with a roots store, or a store handed to a call (info: the store's
        setter and getter are the sites)."""
        if isinstance(node, cst.Param):
            self.report(node, MSG_STORE_PARAM.format(name=node.name.value, kind=kind))
        else:
            self.report(node, MSG_STORE.format(name=shorten(code_of(node.value), 24), kind=kind), severity="info")

    def visit_Arg(self, node: cst.Arg) -> None:
        """A roots store of this project handed to a call (`create_router(roots_manager=m)`),
        the value a name typed as one (an annotated parameter, a constructor's result)."""
        if not isinstance(node.value, cst.Name) or not self._client_roots_code() or self.context.is_claimed(node):
            return
        qualified = self.resolver.instance_type(node.value)
        kind = self.stores.typed(node, qualified, qualified) if qualified else None
        if kind is not None:
            self._report_store(node, kind)

    def visit_Dict(self, node: cst.Dict) -> None:
        """`{"roots": [{"uri": ...}, ...]}`: a roots/list answer in wire form (not the answer a
        test's assertion expects: issue 35 §3)."""
        if self.context.is_claimed(node):
            return
        if expected_value(self.ancestors):
            for inner in iter_nodes(node):
                if isinstance(inner, cst.Dict):
                    self.context.claim(inner)  # the expected envelope's inner answer is expected too
            return
        for element in node.elements:
            if isinstance(element, cst.DictElement) and literal(element.key) == "roots" and uri_dicts(element.value):
                self.report(node, MSG.format(what='a raw `{"roots": [{"uri": ...}]}` answer'))
                return
        result = envelope_answer(node)
        if result is not None:
            self.context.claim(result)  # one construct, one finding: not the inner answer again
            self.report(node, MSG.format(what='a JSON-RPC `{"result": {"roots": [...]}}` answer'))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        """A roots store's getters (vocabulary/roots_stores.py): the provider its roots are read back
        through (known once the whole class is seen: a getter may precede its setter)."""
        setter, getters = self.stores.getters(original_node, self._reported_defs)
        if getters:  # a roots store: its key is what another module's `_store_keys` reads
            self.effects.holds(STORES, (None, original_node.name.value), original_node.name)
        for getter in getters:
            why = f"returns the roots `{setter}` stores"
            self.report(getter.name, MSG_PROVIDER.format(name=getter.name.value, why=why))
            self._reported_defs.add(id(getter))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """A project's own ListRootsRequest / ListRootsResult / Root / ListRootsFn in MCP code."""
        name = roots_type_definition(node, self.context.data)
        if name is not None and name != "RootsListChangedNotification" and self.context.evidence.mcp:
            self.report(node.name, MSG_TYPE.format(name=name))

    def method_used(self, node, where, ancestors: list, *, constant: bool) -> None:
        """A roots/list string or constant (`Method.ROOTS_LIST`) used where the method is answered."""
        if self._answers(where, ancestors):
            self.report(node, MSG_ANSWER)
            if registers(where):  # `register_method("roots/list", handle)`: `handle` answers it
                call = next((a for a in reversed(ancestors) if isinstance(a, cst.Call)), None)
                if call is not None and not any(isinstance(a, cst.Decorator) for a in ancestors):
                    for arg in call.args:
                        self._wire(arg.value, _HANDLER)

    def _answers(self, where, ancestors: list) -> bool:
        """Matched in a dispatch (not one that relays the request on to another peer), or
        given to a registration call: this code answers roots/list (a table mapping the method
        to its SDK type never gets here: WireMethodRule)."""
        if where == "dispatch":
            return not relays(ancestors) and not error_data(ancestors)
        return registers(where)


#: How a function handed with the method to a registration call is wired.
_HANDLER = "the `roots/list` handler"


def _gives_roots(func: cst.FunctionDef) -> bool:
    """A handler whose body builds roots: a `"roots"` key (`{"roots": roots}`), a `roots=`
    argument (`ListRootsResult(roots=...)`)."""
    return any(
        (isinstance(n, cst.DictElement) and literal(n.key) == "roots")
        or (isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value == "roots")
        for n in iter_nodes(func.body)
    )


def _store_keys(path: str, data: bytes, caller) -> set:
    """The roots stores another module of the project defines (classes whose roots setter
    stores roots): that module run through this rule alone, within the limits of every parse."""
    return found_alone(path, data, caller.settings, RootsProvider, provider_in, STORES)


def _root_objects(value: cst.BaseExpression, resolver) -> bool:
    """A list (or comprehension) of MCP `Root(...)` objects."""
    items = list_items(value)
    return bool(items) and all(isinstance(i, cst.Call) and resolver.mcp_name(i.func) == "Root" for i in items)


def _handed_on(mapping: cst.BaseExpression, ancestors: list) -> bool:
    """Does the dict a `list_roots_callback` entry is stored in reach a client: a parameter of
    the enclosing function (filled for its caller), or a local it splats into a call
    (`ClientSession(..., **kwargs)`) or returns? A test double that records what it was handed
    in a dict of the test around it (`captured["list_roots_callback"] = cb`) registers nothing."""
    if not isinstance(mapping, cst.Name):
        return True  # `self.kwargs[...]`, `config["client"][...]`: kept, as before
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if function is None:
        return True
    name = mapping.value
    params = function.params
    if any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
        return True
    for node in iter_nodes(function.body):
        if isinstance(node, cst.Arg) and node.star == "**" and isinstance(node.value, cst.Name):
            if node.value.value == name:
                return True
        if isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name:
            return True
    return False
