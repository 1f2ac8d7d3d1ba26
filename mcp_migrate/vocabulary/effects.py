"""What each function of a module does with Roots, read once per module file (issue 35 §1): the
effects summary that rules ask instead of guessing from a function's name.

For every top-level function and class method, the effects its own body has:
- ASKS: it asks for roots (`.list_roots()` awaited, `ListRootsRequest`, v2's `ListRoots()`, the
  `roots/list` method string or a constant spelling it, not compared in a dispatch);
- NOTIFIES: it sends roots `list_changed` (`.send_roots_list_changed()`, the notification type
  called, the method string or constant put in a message or handed to a call that is not a
  registration);
- SENDS_METHOD_PARAM: one of its parameters becomes the `method` of a JSON-RPC message (a dict's
  `"method"` key, a `method=` keyword) that the body sends, writes or returns: `_frame(method)`
  and `_jsonrpc_request(method)` build requests whatever they are called.

Read with the standard library's `ast` (no LibCST: a summary is asked from the byte and syntax screens too), only
where the bytes can hold an effect: a function is walked for ASKS or NOTIFIES only when its lines hold one of that
effect's tokens, as RT001's imported-helper screen always did. The callees of each function are kept too
(same-module functions, `self.` methods, imported names), so a caller's effects one hop away are found by
`vocabulary.imported_asks` (`effects_via`), which knows where an imported module lives. Kept in the run's project
view (core.project_view) per module file, by size and mtime. What a rule reports in a function (the effect as the
rule decides it; this summary screens for it) is vocabulary.file_effects."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from hashlib import blake2b
from typing import Any, NamedTuple

from mcp_migrate.core.byte_code import ROOTS_WORDS
from mcp_migrate.core.line_scan import token_lines
from mcp_migrate.core.modules import from_imports
from mcp_migrate.core.project_view import MODULE_LIMIT, ProjectView, read
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.core.sdk import ASKING_TYPES
from mcp_migrate.vocabulary.wire_names import (
    LIST_CHANGED,
    LIST_CHANGED_SPELLINGS,
    LIST_CHANGED_TOKENS,
    builds,
    constant_method,
    registers,
    sends,
)

ASKS, NOTIFIES, SENDS_METHOD_PARAM = "asks", "notifies", "sends-method-param"

#: Bytes without which no function of a module asks for roots (RT001's screen tokens but its
#: `_roots(` helper-call token: a helper's helper is not an ask).
ASK_TOKENS = (b"list_roots", b"ListRoots", b"roots/list", b"ROOTS_LIST", b"LIST_ROOTS")
# ROOTS_WORDS (core.byte_code) is in each token of both effects (tests/test_effects.py) and the import followers'.


class FunctionEffects(NamedTuple):
    """One function's own effects, its parameters in call order (a method's `self`/`cls`
    dropped), those that become a message's method (`method_params`) and those that provably do
    not (`inert_params`: read only where the bytes say `method`), and what it calls:
    `(None, name)` a name (a same-module function, or an imported one), `(owner, name)` a method
    of its own class through `self.`/`cls.`."""

    effects: frozenset = frozenset()
    params: tuple = ()
    method_params: frozenset = frozenset()
    callees: tuple = ()
    #: parameters the body provably does not send (used, and only compared, looked up, formatted)
    inert_params: frozenset = frozenset()


class ModuleEffects(NamedTuple):
    """A module's summary: (class or None, function name) -> FunctionEffects for every top-level
    function and method (of a module whose bytes can hold an effect: none otherwise); module-level aliases of an asking function
    (`Pinned = Annotated[ListRootsResult, Resolve(_ask)]`); bound name -> (module as written,
    name) for each `from module import name`."""

    functions: dict
    aliases: frozenset
    imports: dict

    def doing(self, effect: str) -> set:
        """The keys of the functions whose own body has `effect`."""
        return {key for key, found in self.functions.items() if effect in found.effects}

    def of(self, key: tuple) -> FunctionEffects | None:
        return self.functions.get(key)


_EMPTY = ModuleEffects({}, frozenset(), {})

#: The view's table (core.project_view): (module file, mtime, size) -> ModuleEffects.
_TABLE = "effects: module"


def module_effects(source: str, view: ProjectView, limit: int = 0, full: bool = False) -> ModuleEffects:
    """The summary of the module file `source` (empty when unreadable, over `limit` bytes or not
    Python), kept in `view` by the file's stamp and the limit it is read to (0 is MODULE_LIMIT);
    `full`: with what callers rarely need (see `effects_in`)."""
    size = limit or MODULE_LIMIT
    found = view.per_file(
        _TABLE, source, (size, full), lambda stat: effects_of(read(source, stat, size) or b"", view, full)
    )
    return found if found is not None else _EMPTY


#: The view's table: (the digest of a module's bytes, full) -> ModuleEffects.
_BY_BYTES = "effects: bytes"


def effects_of(data: bytes, view: ProjectView, full: bool = True) -> ModuleEffects:
    """`effects_in(data, full)`, kept in `view` by the bytes' digest: a module a check reads as
    its own file (vocabulary.builders) and others import is summarised once (issue 37: a
    gateway's 572 KB main module, 0.25 s a time)."""
    if not data:
        return _EMPTY
    key = (blake2b(data, digest_size=16).digest(), full)
    return view.remembered(_BY_BYTES, key, lambda: effects_in(data, full, view))


def possible_effects(data: bytes) -> frozenset:
    """ASKS and NOTIFIES where the bytes hold one of that effect's tokens: no function of a
    module whose bytes hold none has the effect (`effects_in` reads no further)."""
    if not any(word in data for word in ROOTS_WORDS):
        return frozenset()
    pairs = ((ASKS, ASK_TOKENS), (NOTIFIES, LIST_CHANGED_TOKENS))
    return frozenset(effect for effect, tokens in pairs if any(token in data for token in tokens))


def effects_in(data: bytes, full: bool = True, view: ProjectView | None = None) -> ModuleEffects:
    """The summary of a module's bytes. Without `full`, only ASKS and NOTIFIES, the functions that
    have one, and the module's aliases and imports: what the screens and a caller's one call away
    ask of every imported module. The parameters that make a message's method (a walk of every
    function that says `method`) and the callees are read only for the rare caller that hands a
    method string to a project function, or follows callees (`full`). `view`: the run's, whose
    reading of the bytes the module's other readers share (core.screen.read)."""
    if not data:
        return _EMPTY
    possible = possible_effects(data)
    asking, notifying = ASKS in possible, NOTIFIES in possible
    building = full and b"method" in data
    if not (asking or notifying or building):
        return _EMPTY
    syntax = read_syntax(data, "", view)
    if syntax is None:
        return _EMPTY
    tree = syntax.tree
    ask_lines = token_lines(data, ASK_TOKENS) if asking else set()
    notify_lines = token_lines(data, LIST_CHANGED_TOKENS) if notifying else set()
    method_lines = token_lines(data, (b"method",)) if building else set()
    functions = {}
    for owner, func in _functions(tree):
        span = range(func.lineno, (func.end_lineno or func.lineno) + 1)
        effects = set()
        if ask_lines and any(line in ask_lines for line in span) and names_a_request(func):
            effects.add(ASKS)
        if notify_lines and any(line in notify_lines for line in span) and _notifies(func):
            effects.add(NOTIFIES)
        if not full:
            if effects:
                functions[(owner, func.name)] = FunctionEffects(frozenset(effects))
            continue
        params = _params(func, owner is not None)
        method_params, inert = (
            _method_params(func, params)
            if method_lines and any(line in method_lines for line in span)
            else (set(), set())
        )
        if method_params:
            effects.add(SENDS_METHOD_PARAM)
        functions[(owner, func.name)] = FunctionEffects(
            frozenset(effects), params, frozenset(method_params), _callees(func, owner), frozenset(inert)
        )
    asking_names = {name for (owner, name), f in functions.items() if owner is None and ASKS in f.effects}
    return ModuleEffects(functions, frozenset(aliases_of(tree, asking_names)), _imports(tree))


def _nodes(tree: ast.AST) -> Iterator[Any]:
    """`ast.walk`, its nodes typed loosely: the tests below compare `__class__` (faster than
    `isinstance` on every node of a module), which the type checker does not narrow on."""
    return ast.walk(tree)


def _functions(tree: ast.Module):
    """(class name or None, def) for each top-level function and method of a top-level class."""
    for node in tree.body:
        if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
            yield None, node
        elif node.__class__ is ast.ClassDef:
            for item in node.body:
                if item.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
                    yield node.name, item


def aliases_of(tree: ast.Module, asking: set) -> set:
    """Module-level names bound to an expression that names one of the functions `asking`
    (one hop, as the rules' analysis keys them: `FileEffects.aliases`)."""
    found: set = set()
    if not asking:
        return found
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        if value is not None and any(n.__class__ is ast.Name and n.id in asking for n in _nodes(value)):
            found.update(t.id for t in targets if t.__class__ is ast.Name)
    return found


def _imports(tree: ast.Module) -> dict:
    """bound name -> (module as written, with its leading dots; name) of the module's top-level
    `from ... import ...` statements."""
    found = {}
    for node in tree.body:
        if node.__class__ is ast.ImportFrom:
            for bound, module, name in from_imports(node):
                found[bound] = (module, name)
    return found


# ----- ASKS ---------------------------------------------------------------------------------------
#: Names and attributes a roots request is written with (RT001's findings: `.list_roots()`, an
#: awaited framework `list_roots()`, `ListRootsRequest(...)`, v2's `ListRoots()` marker).
_NAMES = ASKING_TYPES | {"list_roots"}
_CONSTANT_WORDS = ("ROOTS_LIST", "LIST_ROOTS")


def names_a_request(func) -> bool:
    """The function's code names a request. A method compared in a dispatch
    (`if method == "roots/list":`, `case "roots/list":`) answers one instead, and a
    `.list_roots()` whose result is used unawaited (`roots = store.list_roots()`) reads a
    project's own store: the SDK's request is a coroutine."""
    if func.name == "list_roots":
        return True
    compared = _compared(func)
    unawaited: set = set()
    for node in _nodes(func):
        if node.__class__ in (ast.Assign, ast.Return, ast.Expr) and node.value.__class__ is ast.Call:
            unawaited.add(id(node.value.func))  # `roots = store.list_roots()`: a getter, not the SDK's ask
    for node in _nodes(func):
        if id(node) in compared or (id(node) in unawaited and getattr(node, "attr", "") == "list_roots"):
            continue
        kind = node.__class__
        if kind is ast.Name or kind is ast.Attribute:
            word = node.id if kind is ast.Name else node.attr
            if word in _NAMES or (any(w in word for w in _CONSTANT_WORDS) and constant_method(word) != LIST_CHANGED):
                return True  # `ROOTS_LIST`, not `NOTIFICATION_ROOTS_LIST_CHANGED` (a notification)
        elif kind is ast.Constant and node.value == "roots/list":
            return True
    return False


def _compared(func) -> set:
    """ids of the operands of the function's comparisons and match values (a dispatch)."""
    compared: set[int] = set()
    for node in _nodes(func):
        if node.__class__ is ast.Compare:
            compared.update(id(operand) for operand in (node.left, *node.comparators))
        elif node.__class__ is ast.MatchValue:
            compared.add(id(node.value))
    return compared


# ----- NOTIFIES -----------------------------------------------------------------------------------
def _notifies(func) -> bool:
    """The function sends roots list_changed: `.send_roots_list_changed()`, the notification
    type called (`RootsListChangedNotification()`), or the method (string, constant, `X.CONSTANT`)
    as a message's `method` value or handed to a call that is not a registration. Not compared,
    matched, subscripted or used as a dispatch table's key: that is a handler."""
    compared = _compared(func)
    parents = _parents(func)
    for node in _nodes(func):
        kind = node.__class__
        if kind is ast.Call:
            called = node.func
            name = called.attr if called.__class__ is ast.Attribute else getattr(called, "id", "")
            if name == "send_roots_list_changed" and called.__class__ is ast.Attribute:
                return True
            if name == "RootsListChangedNotification":
                return True
            continue
        if id(node) in compared:
            continue
        if kind is ast.Constant and node.value in LIST_CHANGED_SPELLINGS:
            pass
        elif kind is ast.Name and constant_method(node.id) == LIST_CHANGED:
            pass
        elif kind is ast.Attribute and constant_method(node.attr) == LIST_CHANGED:
            pass
        else:
            continue
        if _in_message(node, parents):
            return True
    return False


def _parents(func) -> dict:
    """id of each node -> its parent, within `func`."""
    parents = {}
    for node in _nodes(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _in_message(node, parents: dict) -> bool:
    """A method value that goes into a message: a dict's `"method"` value, a `method=` keyword,
    or an argument of a call that sends or builds by its name (not a registration)."""
    parent = parents.get(id(node))
    if parent.__class__ is ast.Dict:
        return any(v is node and _is_method_key(k) for k, v in zip(parent.keys, parent.values))
    if parent.__class__ is ast.keyword:
        call = parents.get(id(parent))
        return parent.arg == "method" and not registers("call:" + _call_name(call))
    if parent.__class__ is ast.Call and node in parent.args:
        where = "call:" + _call_name(parent)
        return sends(where) or builds(where)
    return False


def _call_name(call) -> str:
    func = getattr(call, "func", None)
    return func.attr if func.__class__ is ast.Attribute else getattr(func, "id", "") or ""


def _is_method_key(key) -> bool:
    return key.__class__ is ast.Constant and key.value == "method"


# ----- SENDS_METHOD_PARAM ---------------------------------------------------------------------------
def _params(func, method: bool) -> tuple:
    """The parameters a caller's positional arguments fill, in order (`self`/`cls` dropped from a
    method that is not a staticmethod), then the keyword-only ones."""
    args = [*func.args.posonlyargs, *func.args.args]
    static = any(getattr(d, "id", "") == "staticmethod" for d in func.decorator_list)
    if method and args and not static:
        args = args[1:]
    return tuple(a.arg for a in args) + tuple(a.arg for a in func.args.kwonlyargs)


def _method_params(func, params: tuple) -> tuple:
    """(the parameters that become the `method` of a message the function sends, writes or
    returns; those it provably does not send). Sent: `{"method": method, ...}` (or
    `msg["method"] = method`) and `Request(method=method)`, where the message is returned, yielded,
    handed to a call (written, sent, encoded, wrapped), or bound to a name that is; or the method
    handed on to a library's sending verb (`rpc.call(method)`, as `wire.sends` reads a callee the
    project does not define). Not sent: a parameter used, and only compared, looked up
    (`table[method]`) or formatted into text. Any other use (handed to another call, stored,
    returned as it is, reassigned), or none (a stub whose implementation is elsewhere), decides
    neither: the callee's name does then (`vocabulary.builders`)."""
    names = set(params)
    if not names:
        return set(), set()
    parents = _parents(func)
    reassigned = _assigned(func)
    leaving = _leaving_names(func)
    found: set = set()
    opaque: set = set(reassigned)
    used: set = set()
    for node in _nodes(func):
        if node.__class__ is not ast.Name or node.id not in names or node.id in reassigned:
            continue
        used.add(node.id)
        parent = parents.get(id(node))
        message = None
        if parent.__class__ is ast.Dict and any(
            v is node and _is_method_key(k) for k, v in zip(parent.keys, parent.values)
        ):
            message = parent
        elif parent.__class__ is ast.keyword and parent.arg == "method":
            message = parents.get(id(parent))
        elif (
            parent.__class__ is ast.Call
            and parent.args
            and parent.args[0] is node
            and sends("call:" + _call_name(parent))
        ):
            found.add(node.id)  # `self.session.send_request(method, ...)`
            continue
        elif (
            parent.__class__ is ast.Assign
            and len(parent.targets) == 1
            and parent.targets[0].__class__ is ast.Subscript
            and _is_method_key(parent.targets[0].slice)
            and parent.targets[0].value.__class__ is ast.Name
        ):
            if parent.targets[0].value.id in leaving:  # `msg["method"] = method` then `send(msg)`
                found.add(node.id)
            else:
                opaque.add(node.id)
            continue
        elif parent.__class__ in _INERT or (parent.__class__ is ast.Subscript and parent.slice is node):
            continue  # compared, formatted into text, or a key looked up
        else:
            opaque.add(node.id)
            continue
        if message is not None and not _error_data(message, parents) and _leaves(message, parents, leaving):
            found.add(node.id)
        else:
            opaque.add(node.id)
    return found, used - found - opaque


#: Where a parameter's use sends nothing: a comparison, an f-string's field.
_INERT = (ast.Compare, ast.FormattedValue)


def _assigned(func) -> set:
    """Names the function assigns (a parameter reassigned is no longer what the caller gave)."""
    found: set = set()
    for node in _nodes(func):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _leaving_names(func) -> set:
    """Names the function returns, yields or hands to a call: where a message bound to a name
    leaves the function (sent, written, encoded, returned)."""
    found: set = set()
    for node in _nodes(func):
        if node.__class__ in (ast.Return, ast.Yield, ast.YieldFrom, ast.Await) and node.value is not None:
            found.update(n.id for n in _nodes(node.value) if n.__class__ is ast.Name)
        elif node.__class__ is ast.Call:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                found.update(n.id for n in _nodes(arg) if n.__class__ is ast.Name)
    return found


def _error_data(message, parents: dict) -> bool:
    """Whether the message sits in a JSON-RPC error's data (`{"error": {"data": {...}}}`,
    `JSONRPCError(code, text, {"method": method})`, `ErrorData(..., data=...)`): it describes a
    request, it is not one (as `wire.error_data` reads a method string)."""
    node = message
    while True:
        parent = parents.get(id(node))
        if parent is None or parent.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            return False
        if parent.__class__ is ast.Dict and any(
            v is node and k.__class__ is ast.Constant and k.value in ("data", "error")
            for k, v in zip(parent.keys, parent.values)
        ):
            return True
        if parent.__class__ is ast.keyword:
            call = parents.get(id(parent))
            if parent.arg == "data" and "Error" in _call_name(call):
                return True
        elif parent.__class__ is ast.Call and node is not parent.func and "Error" in _call_name(parent):
            return True
        node = parent


def _leaves(message, parents: dict, leaving: set) -> bool:
    """Whether the message expression is returned, yielded, handed to a call, or bound to a name
    that leaves (`_leaving_names`); not when it only sits in a comparison or an assertion."""
    node = message
    while True:
        parent = parents.get(id(node))
        if parent is None:
            return False
        kind = parent.__class__
        if kind in (ast.Return, ast.Yield, ast.YieldFrom) or (kind is ast.Call and node is not parent.func):
            return True
        if kind is ast.keyword:
            return True
        if kind in (ast.Compare, ast.Assert, ast.If, ast.While):
            return False
        if kind in (ast.Assign, ast.AnnAssign):
            targets = parent.targets if kind is ast.Assign else [parent.target]
            return any(t.__class__ is ast.Name and t.id in leaving for t in targets)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Expr):
            return False
        node = parent


# ----- callees ------------------------------------------------------------------------------------
def _callees(func, owner: str | None) -> tuple:
    """(None, name) for each plain name the function calls, (owner, name) for `self.name(...)` /
    `cls.name(...)` in a method: what a caller's effects one hop away are looked up by."""
    found = []
    for node in _nodes(func):
        if node.__class__ is not ast.Call:
            continue
        called = node.func
        key: tuple
        if called.__class__ is ast.Name:
            key = (None, called.id)
        elif (
            owner is not None
            and called.__class__ is ast.Attribute
            and called.value.__class__ is ast.Name
            and called.value.id in ("self", "cls")
        ):
            key = (owner, called.attr)
        else:
            continue
        if key not in found:
            found.append(key)
    return tuple(found)


def local_via(summary: ModuleEffects, key: tuple) -> dict:
    """effect -> the same-module function key it comes through, for `key`'s callees in this module
    that ask or notify themselves (one hop; a function's own effects are not listed)."""
    own = summary.of(key)
    if own is None:
        return {}
    found: dict = {}
    for callee in own.callees:
        if callee == key or (callee[0] is None and callee[1] in summary.imports):
            continue
        theirs = summary.of(callee)
        for effect in (ASKS, NOTIFIES):
            if theirs is not None and effect in theirs.effects and effect not in own.effects:
                found.setdefault(effect, callee)
    return found
