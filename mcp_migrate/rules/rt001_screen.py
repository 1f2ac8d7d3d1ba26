"""RT001's screens, without LibCST: the request tokens, the import followers (a project helper
one import away, or a typed receiver's method, that asks) and `asks_in`, each request the rule
reports as the standard library's `ast` shows it. The rule (`rt001_roots_request`) inherits them;
`file_effects.found_alone` screens helper modules with `asks_in`."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import IDENTIFIER_BYTES, STATEMENT_GAP, ends_before, holds, offsets
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import string
from mcp_migrate.core.sdk import HOST_FRAMEWORKS, SDK_PACKAGES, mentions_mcp
from mcp_migrate.vocabulary.effects import ASKS
from mcp_migrate.vocabulary.helper_screens import module_may_do, runs_by
from mcp_migrate.vocabulary.typed_doers import follows_to_a_doer, typed_module_files
from mcp_migrate.vocabulary.wire_names import ROOTS_LIST, constant_in_code
from mcp_migrate.vocabulary.wire_screen import CALL, CONSTANT, RELAY, REQUEST, used_as
from mcp_migrate.vocabulary.wrappers_screen import imported_module_files

_SEND_METHODS = frozenset({"send_request"})
#: Where `roots/list` is asked (`method_used`): a message's method, a call's argument, a
#: constant, a dispatch that relays the request on; not a dispatch that answers it (RT002's).
ASKED = frozenset({REQUEST, CALL, CONSTANT, RELAY})


def asks_in(syntax) -> bool:
    """The syntax screen of every request `visit_Call` and the wire strings report: a
    `.list_roots()` call, or `list_roots()` imported from a framework's MCP module; a call of `ListRootsRequest` or `ListRoots` (built by hand, sent,
    wrapped, or v2's resolver marker); `send_request(...)` in code that names ListRootsRequest
    (a variable typed so); `roots/list` where the rule reads it as asked (vocabulary.wire_screen)
    or a constant spelling it. A same-file helper's call
    site needs a request in the helper's body, so one of these."""
    if syntax.calls_to("ListRootsRequest", "ListRoots"):
        return True
    calls = syntax.method_calls("list_roots")
    if calls and not all(_imported_objects(syntax, calls)):
        return True
    if any(_awaits_list_roots(node.value) for node in syntax.of(ast.Await)):  # a framework's function
        return True
    if syntax.mentions("ListRootsRequest") and syntax.calls_to(*_SEND_METHODS):
        return True
    if used_as(syntax, RootsRequestScreen.WIRE_STRINGS, ASKED) or constant_in_code(syntax, ROOTS_LIST):
        return True  # `roots/list` where the rule may report it (a table of method names is not)
    # A project's own module-level `async def list_roots()` that awaits something (its
    # framework's ask helper: `leave_FunctionDef`, which reports no plain `def`, no method and no
    # nested stand-in: a getter of roots kept already, a test's fake of a service's method).
    return any(
        node.__class__ is ast.AsyncFunctionDef
        and node.name == "list_roots"
        and any(inner.__class__ is ast.Await for inner in ast.walk(node))
        for node in syntax.tree.body
    )


def _imported_objects(syntax, calls: list) -> list:
    """For each `x.list_roots()` call, whether `_list_roots` leaves it to the import follower:
    its receiver is a plain name the module binds only by importing it from a module that is no
    SDK's or host framework's (`from app.services.roots import root_service`), and no
    `hasattr(..., "list_roots")` guards a call. Such an object is no SDK receiver the resolver
    types, nor a session by its name (an import): only its method's body can ask, which is the
    follower's question (a gateway's `main.py` calls its own lazy `root_service` singleton's
    `list_roots()`, and its test modules were parsed for it: issue 37)."""
    module = syntax.outer or syntax  # a definition read alone sees its module's imports
    if any(_guards_list_roots(call) for call in module.calls_to("hasattr")):
        return [False] * len(calls)
    project = _names_imported_from_project(module)
    bound = None
    found = []
    for call in calls:
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        imported = isinstance(receiver, ast.Name) and receiver.id in project
        if imported:
            bound = _bound_otherwise(module) if bound is None else bound
            imported = isinstance(receiver, ast.Name) and receiver.id not in bound
        found.append(imported)
    return found


def _guards_list_roots(call: ast.Call) -> bool:
    return len(call.args) == 2 and string(call.args[1]) == "list_roots"


def _names_imported_from_project(syntax) -> set:
    """The names `from <module> import name [as alias]` binds, for a module of no MCP SDK or host
    framework (relative ones included)."""
    found: set = set()
    for node in syntax.of(ast.ImportFrom):
        top = (node.module or "").partition(".")[0] if not node.level else ""
        if top not in SDK_PACKAGES and top not in HOST_FRAMEWORKS:
            found.update(alias.asname or alias.name for alias in node.names if alias.name != "*")
    return found


def _bound_otherwise(syntax) -> set:
    """Names the module binds other than by a from-import (`Syntax.bound_by_code`, and a plain
    import's)."""
    found = set(syntax.bound_by_code)
    found.update(
        (alias.asname or alias.name).partition(".")[0] for node in syntax.of(ast.Import) for alias in node.names
    )
    return found


def _awaits_list_roots(value) -> bool:
    """`await list_roots()`: what `_framework_function` is asked about (a name, not a method)."""
    return value.__class__ is ast.Call and value.func.__class__ is ast.Name and value.func.id == "list_roots"


#: What comes before a name a statement defines (`def anchor_worktree_roots(`, `class X_roots(`).
_DEFINED_BEFORE = lazy_compile(rb"(?<![A-Za-z0-9_])(?:def|class)" + STATEMENT_GAP + rb"$")


def _calls_a_roots_helper(data: bytes) -> bool:
    """A `*_roots(` that is not a definition's name: a call (a definition asks in its body,
    where the other tokens are; Dev10x's `def anchor_worktree_roots(`, a gateway's
    `def test_validate_resource_path_outside_roots(`, were read with `ast` for it)."""
    for at in offsets(data, b"_roots("):
        start = at
        while start and data[start - 1] in IDENTIFIER_BYTES:
            start -= 1
        if not ends_before(_DEFINED_BEFORE, data, start):
            return True
    return False


class RootsRequestScreen(Rule):
    """The screens `RootsRequest` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT001"

    WIRE_STRINGS = frozenset({ROOTS_LIST})

    #: `_roots(`: a call of a project helper named for roots (`resolve_project_root_from_roots(`)
    #: in a file that names nothing else of Roots; helpers named otherwise are seen only in files
    #: holding one of the other tokens.
    SCREEN = (b"list_roots", b"ListRoots", b"roots/list", b"ROOTS_LIST", b"LIST_ROOTS", b"_roots(")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """The SDK's and the wire's tokens; a `*_roots(` helper call only in a file that
        mentions MCP (a same-file helper that asks holds one of the other tokens itself)."""
        if any(holds(data, token) for token in cls.SCREEN[:-1]):
            return True
        return holds(data, b"_roots(") and mentions_mcp(data) and _calls_a_roots_helper(data)

    @classmethod
    def screen_imports(cls, data: bytes, path: str, settings) -> bool:
        """In MCP code: a project function, method or alias imported here whose body asks
        (vocabulary/imported_asks.py), whatever its name (`get_allowed_dirs`, `scope.Pinned`)."""
        if not mentions_mcp(data):
            return False
        limit, view = settings.max_file_size, view_of(settings)
        return follows_to_a_doer(data, path, view, limit, ASKS)

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A request written here (`asks_in`), or a call that may run a helper of this project
        whose module asks (one call away: `ImportedHelpers`)."""
        if asks_in(syntax):
            return True
        limit, tokens, view = settings.max_file_size, cls.SCREEN, view_of(settings)
        runs = runs_by(syntax, annotations=True)  # a call, or a parameter typed with an alias

        def worth(source: str) -> bool:
            return module_may_do(source, limit, tokens, asks_in, syntax.mentions, view, runs)

        return any(map(worth, imported_module_files(syntax, view))) or any(
            map(worth, typed_module_files(syntax.data, syntax.path, view, tokens, worth))
        )
