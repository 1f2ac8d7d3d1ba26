"""RT002's screens: its own-API byte pattern, and its syntax screen (core/screen.py): each way
the rule finds a provider, asked of the standard library's reading of a file before LibCST.
Beside the rule, not in it: the rule's visits are long enough."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import (
    AS_NAME,
    ASSIGNED,
    GAP,
    IDENTIFIER_BYTES,
    NAMING_VALUE,
    commas_at_least,
    ends_before,
    holds,
    offsets,
    whole_words,
)
from mcp_migrate.core.identifiers import words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import none_or_false, statements_in
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.sdk import (
    PROVIDER_TYPES,
    ROOTS_HANDLER_CONTEXT,
    ROOTS_KWARG_PACKAGES,
    ROOTS_TYPE_NAMES,
    import_side,
)
from mcp_migrate.vocabulary.roots_api_names import SETTER_NAME
from mcp_migrate.vocabulary.wire_names import ROOTS_LIST
from mcp_migrate.vocabulary.wire_screen import method_in_code

#: Position of `list_roots_callback` among ClientSession's positional parameters (mcp >= 1.10).
CLIENT_SESSION_CALLBACK_INDEX = 5
#: Mapping keys under which a roots callback is handed to a session or a callback table.
CALLBACK_KEYS = frozenset({"list_roots_callback", "list_roots"})


#: A project's own provider API in bytes: a roots setter, a provider type, a wiring keyword.
OWN_API = lazy_compile(
    rb"(?:set|update|replace|register|add)_roots?\b|(?:set|update|replace|register)_roots_\w|"
    rb"Roots(?:Provider|Handler|Callback|Fn)|\bRoot(?:Provider|Handler|Callback)\b|roots_(?:provider|callback|handler)\s*="
)
#: OWN_API's alternatives by the literal each begins or turns on: a pattern that starts with a
#: literal is searched for like a string (OWN_API itself costs about 60 ns a byte: 0.7 s over
#: the generated MCP-heavy tree).
_SETTER = lazy_compile(rb"(?:set|update|replace|register|add)_roots?\b|(?:set|update|replace|register)_roots_\w")
_OWN_TYPE = lazy_compile(rb"Roots(?:Provider|Handler|Callback|Fn)|roots_(?:provider|callback|handler)\s*=")
_ROOT_TYPE = lazy_compile(rb"Root(?:Provider|Handler|Callback)\b")


def own_api(data: bytes) -> bool:
    """`OWN_API.search(data)`, found by its literals first."""
    if (holds(data, b"Roots") or holds(data, b"roots_")) and _OWN_TYPE.search(data):  # its literals first
        return True
    # the setter's verb ends just before `_root`: at most 8 bytes back
    if any(_SETTER.search(data, max(0, at - 8), at + 9) for at in offsets(data, b"_root")):
        return True
    # (`Root` searched for as a string first: RT103's gate has asked already)
    return holds(data, b"Root") and any(
        m.start() == 0 or data[m.start() - 1] not in IDENTIFIER_BYTES for m in _ROOT_TYPE.finditer(data)
    )


def provider_in(syntax) -> bool:
    """Each way RT002's visits find a provider, at the level of names and keywords: a
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
    bound = None
    for call, value in syntax.keyword_calls("roots"):
        if none_or_false(value):
            continue
        symbols = syntax.symbols(call.func)
        if any(s.endswith("Client") or s.startswith("MCP") for s in symbols) or _root_objects_tree(value, syntax):
            return True
        if value.__class__ is ast.Name:  # a name bound to Root objects above (any assignment of it)
            bound = _names_bound_to_roots(syntax) if bound is None else bound
            if value.id in bound:
                return True
    if _registers_by_assignment(syntax):
        return True
    if syntax.mentions("ListRootsRequest") or syntax.mentions_any(PROVIDER_TYPES):
        return True
    if "on_list_roots" in syntax.identifiers or syntax.calls_to("ListRootsResult"):
        return True
    if syntax.mentions("ListRootsResult") and (syntax.mentions("ErrorData") or syntax.mentions("RequestContext")):
        return True
    if any(_roots_type_name(node, syntax) for node in syntax.of(ast.ClassDef)):
        return True
    if ROOTS_HANDLER_CONTEXT in syntax.imported:  # a function typed with it is a roots handler
        return True
    for node in syntax.of(ast.Dict):
        for key, value in zip(node.keys, node.values):
            name = screen_string(key) if key is not None else None
            if name in CALLBACK_KEYS and not none_or_false(value):
                return True
            if name == "roots" and _uri_dicts_tree(value):
                return True
    if method_in_code(syntax, RootsProviderScreen.WIRE_STRINGS, ROOTS_LIST):
        return True
    # Shapes the rule does not report yet, let through so that learning them needs no
    # screen change: a project's own provider API (`set_roots_provider`, `add_root`, a
    # `RootsProvider` type, `def list_roots` of a module or a class), its own `Root` type.
    names = {node.name for node in syntax.of(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)}
    if "Root" in names or ("list_roots" in names and _api_list_roots(syntax)):
        return True
    return _own_api_named(syntax)


def _own_api_named(syntax) -> bool:
    """An identifier of a project's own provider API (`_OWN_PROVIDER_API`), but for a setter's
    name (`add_root`, `set_roots_provider`) spelled only as an attribute in a server's code: the
    rule reports a setter's call only in client code (`_setter_call`: a server's own root
    registry supplies no client's roots), and a setter it does not report is a definition, not
    an attribute (issue 37: a gateway's import service calls its root service's `add_root`)."""
    named = [name for name in syntax.identifiers if _OWN_PROVIDER_API.search(name)]
    if not named:
        return False
    if not all(SETTER_NAME.match(name) for name in named) or not _server_code(syntax):
        return True
    return any(name in syntax.spelled_but_as_attributes for name in named)


def _server_code(syntax) -> bool:
    """A server's code as the rule's evidence reads it (core.sdk.import_side over the imports the
    resolver sees: the modules imported anywhere, the names module-level imports bind): a server
    module imported, or a server's class imported at module level under a name nothing else
    binds; no client import anywhere, and no relative import (it may resolve to a client module
    the file does not spell)."""
    imported = syntax.imported
    if any(name.startswith(".") for name in imported) or import_side(imported) != "server":
        return False
    modules = [alias.name for node in syntax.of(ast.Import) for alias in node.names]
    modules += [node.module for node in syntax.of(ast.ImportFrom) if node.module]
    if import_side(modules) == "server":
        return True
    bindings: dict = {}  # name -> what each module-level import binds it to
    for node in _module_level_imports(syntax.tree.body):
        for alias in node.names:
            if node.__class__ is ast.ImportFrom:
                name, qualified = alias.asname or alias.name, f"{node.module}.{alias.name}"
            else:
                name = alias.asname or alias.name.partition(".")[0]
                qualified = alias.name if alias.asname else name
            bindings.setdefault(name, []).append(qualified)
    return any(
        len(bound) == 1 and name not in syntax.bound_by_code and import_side(bound) == "server"
        for name, bound in bindings.items()
    )


def _module_level_imports(statements: list) -> list:
    """The import statements at module level, inside its `if`, `try` and `with` blocks too."""
    found, pending = [], list(statements)
    while pending:
        node = pending.pop()
        if node.__class__ in (ast.Import, ast.ImportFrom):
            found.append(node)
        elif node.__class__ not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match):
            pending.extend(statements_in(node))  # (a `match` case's imports are not counted)
    return found


def _api_list_roots(syntax) -> bool:
    """A `def list_roots` that is API: a module's function or a class's method (a test's stub
    session, `class _S: async def list_roots(self)`), not a function's local. A local provides
    roots only where it is handed on (`list_roots_callback=list_roots`, a provider slot), and
    `provider_in` asks for each of those (issue 37: a gateway's test module of stand-ins,
    `async def list_roots(): ...` patched over its own service's method, was parsed for them)."""
    pending = [(node, False) for node in syntax.tree.body]  # (statement, inside a function's code)
    while pending:
        node, in_function = pending.pop()
        if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
            if node.name == "list_roots" and not in_function:
                return True
            in_function = True
        elif node.__class__ is ast.ClassDef:
            in_function = False  # a class's methods, wherever the class is
        pending.extend((child, in_function) for child in statements_in(node))
    return False


#: Identifiers of a project's own roots-provider API (`set_roots_provider`, `RootsProvider`,
#: `register_roots_callback`, `add_root`).
_OWN_PROVIDER_API = lazy_compile(
    r"(?i)(?:^|_)roots?_?(?:provider|callback|handler|fn)s?(?:$|_)|^(?:set|add|register|update)_?roots?(?:$|_)"
)


def provider_slot(name: str) -> bool:
    """An attribute that holds a client's answer to `roots/list`, by its name: `list_roots`
    and a callback or handler (`on_list_roots`, `list_roots_callback`, `_list_roots_handler`;
    `list_roots` is in RootsProvider.SCREEN, so the byte screen keeps every such file).
    `list_roots` alone is the asking side's method (a test's `session.list_roots = AsyncMock(...)`)."""
    return "list_roots" in name and bool(set(words(name)) & _SLOT_WORDS)


#: What makes a roots attribute a slot for a callable (`handle` is a method's verb: patching a
#: client's own `handle_list_roots` in a test is not a registration).
_SLOT_WORDS = frozenset({"on", "callback", "handler", "cb", "fn"})


def _registers_by_assignment(syntax) -> bool:
    """`x.on_list_roots = fn`, `kwargs["list_roots_callback"] = cb`, `setattr(x, "on_list_roots", fn)`
    with a value that is not None or False (RootsProvider.visit_Assign and its setattr case)."""
    for node in syntax.of(ast.Assign):
        if none_or_false(node.value):
            continue
        for target in node.targets:
            if target.__class__ is ast.Attribute and provider_slot(target.attr):
                return True
            if target.__class__ is ast.Subscript and screen_string(target.slice) == "list_roots_callback":
                return True
    for call in syntax.calls_to("setattr"):
        args = screen_positional(call)
        slot = screen_string(args[1]) if len(args) == 3 else None
        if slot and provider_slot(slot) and not none_or_false(args[2]):
            return True
    return False


def _names_bound_to_roots(syntax) -> set:
    """Names any assignment binds to a list of `Root(...)` objects (a superset of the rule's
    innermost-scope lookup)."""
    return {
        target.id
        for node in syntax.of(ast.Assign)
        if _root_objects_tree(node.value, syntax)
        for target in node.targets
        if target.__class__ is ast.Name
    }


def _roots_type_name(node: ast.ClassDef, syntax) -> bool:
    """`roots_type_definition` on the standard library's ClassDef (RT004 owns the notification)."""
    name = node.name
    if name in ROOTS_TYPE_NAMES or name.startswith("ListRootsFn"):
        return name != "RootsListChangedNotification"
    if name != "Root":
        return False
    if b"class ListRootsResult" in syntax.data:
        return True
    return any(
        (stmt.__class__ is ast.AnnAssign and stmt.target.__class__ is ast.Name and stmt.target.id == "uri")
        or (stmt.__class__ is ast.Assign and any(t.__class__ is ast.Name and t.id == "uri" for t in stmt.targets))
        for stmt in node.body
    )


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


#: `"roots"` as a key (`{"roots": ...}`, `answer["roots"] = ...`), not a word in a list (the
#: keyword tables of pygments' lexers hold `'roots',` and `uri` and cost seconds to parse).
_ROOTS_KEY = lazy_compile(rb"""["']roots["']\s*[:\]]""")


class RootsProviderScreen(Rule):
    """The screens `RootsProvider` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT002"

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

    @classmethod
    def screen(cls, data: bytes) -> bool:
        # `roots=` on a fastmcp Client or pydantic-ai toolset needs that package's import.
        if any(holds(data, token) for token in _NAMED_TOKENS):
            return True
        if b"ClientSession" in data and _session_given_a_callback(data):
            return True
        if own_api(data):  # a project's own provider API (vocabulary/roots_api.py)
            return True
        if not holds(data, b"roots"):
            return False
        if b"Root(" in data:  # `roots=[Root(...)]` on any callee, or a name bound to them
            return True
        if not (b'roots"' in data or b"roots'" in data):  # what every `_ROOTS_KEY` match holds
            return any(package.encode() in data for package in ROOTS_KWARG_PACKAGES)
        if b"jsonrpc" in data and _ROOTS_KEY.search(data) is not None:  # an answer in its envelope
            return True
        # A raw `{"roots": [{"uri": ...}]}` answer.
        return any(package.encode() in data for package in ROOTS_KWARG_PACKAGES) or (
            b"uri" in data and _ROOTS_KEY.search(data) is not None
        )

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        return provider_in(syntax)  # rules/rt002_screen.py: each way the visits below find one


#: RT002's tokens that name a provider by themselves. `ClientSession` does only with a sixth
#: positional argument (`_session_given_a_callback`): most MCP clients and their tests name it
#: (context-forge 22 and agent-framework 7 modules had no other reason to be parsed with `ast`).
_NAMED_TOKENS = tuple(token for token in RootsProviderScreen.SCREEN if token != b"ClientSession")
#: What comes after a name called.
_CALL = lazy_compile(GAP + rb"\(")
#: What comes before a name that is a keyword argument's value (`Mock(spec=ClientSession)`,
#: `f(x, spec=mcp.ClientSession)`), which binds no name: after `(`, or after `,` on the same
#: line (a `,` ending the line before may end a tuple statement: `x = 1,` then `S = ...`).
_KEYWORD_VALUE = lazy_compile(rb"(?:\(" + GAP + rb"|,[ \t]*)[A-Za-z_][A-Za-z0-9_]*" + GAP + rb"=(?!=)" + NAMING_VALUE)


def _session_given_a_callback(data: bytes) -> bool:
    """A call of `ClientSession`, or of a name bound to it, with six positional arguments or
    more (the syntax screen's positional `list_roots_callback`, `CLIENT_SESSION_CALLBACK_INDEX`;
    a `*args` counts here). A name bound to it by an assignment lets the file through; a
    keyword argument's value (`Mock(spec=ClientSession)`) binds none (agent-framework's 309 KB
    MCP test module was read with `ast` for it)."""
    names, seen = [b"ClientSession"], set()
    while names:
        name = names.pop()
        if name in seen:
            continue
        seen.add(name)
        for at in whole_words(data, name):
            end = at + len(name)
            call = _CALL.match(data, end)
            if call is not None and commas_at_least(data, call.end(), CLIENT_SESSION_CALLBACK_INDEX, positional=True):
                return True
            alias = AS_NAME.match(data, end)
            if alias is not None:
                names.append(alias.group(1))
            elif ends_before(ASSIGNED, data, at) and not ends_before(_KEYWORD_VALUE, data, at):
                return True
    return False
