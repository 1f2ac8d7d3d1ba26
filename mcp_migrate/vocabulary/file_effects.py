"""The effects model of the file being checked (issue 35 §1): what each of its functions does
with Roots as the rules find it, what calls what, and which callables it registers, noted once
in the engine's one walk and read by every rule that follows a helper one call away.

`vocabulary.effects` summarises a module from its bytes with `ast`: what a function *may* do,
cheap enough for the screens and for the modules a caller imports. Here a function's effect is
what a rule *reports* in its body (RT001's request, RT004's send): a rule knows the SDK's types,
the side of the connection and which strings are messages, so the summary's guess would add
findings the rules reject (a client's own `list_roots` handler, a test's stand-in). Both sides
of "one call away" come from this one model:
- same file: the calls noted in the walk whose callee has the effect (`one_call_away`);
- other modules: a module run through the rule alone (`rule_alone`, `found_alone`) leaves its
  model on its context, and the rule reads the functions with the effect from it (`doers`);
  kept per module file in the run's project view (by `wrappers.ImportedHelpers` for RT001 and
  RT002; by vocabulary.gates_across for RT103's gates, GATES).

One model per file, kept in the file context's memo and shared by the rules: a call, a
definition or an annotated parameter is noted once however many rules ask (the dispatcher calls
each rule's visit for the same node in turn, so the last node noted tells a repeat)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.dispatch import run_rules
from mcp_migrate.core.limits import encoding_refusal, nesting_problem, size_problem
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.core.syntax import iter_nodes
from mcp_migrate.vocabulary.roots_types import annotation_names
from mcp_migrate.vocabulary.wrappers import callee_key, definition_key, function_key, marker_arguments

#: What a callable registered by the code does (the registering rule's findings): provides roots
#: (RT002's `list_roots_callback=`, a provider slot, a `roots/list` registration), handles roots
#: list_changed (RT005's registrations). And a project class that stores roots and hands them
#: back (RT002's roots store, vocabulary.roots_stores), keyed `(None, class name)`.
PROVIDES, HANDLES, STORES = "provides", "handles", "stores"
#: A function that decides access against roots it holds itself (its class's, its own: RT103's
#: gates), keyed as a definition; read across modules by vocabulary.gates_across.
GATES = "gates"

#: The file context's memo entry holding the file's model.
_MEMO = "effects: file"


def rule_alone(path: str, data: bytes, settings, rule_class, screen=None):
    """The context of another module's bytes run through `rule_class` alone (core.dispatch, the
    engine's own walk), its file's model on it as the checked file's is: how a rule follows a
    helper, a registration or a gate into another module of the project. None when the limits
    of every parse refuse the bytes, or `screen` (the rule's test on the standard library's
    reading, when given) says no finding can be there. Unparsable bytes raise (the caller keeps
    what it makes of that)."""
    if size_problem(data, settings) is not None or encoding_refusal(data) is not None:
        return None  # too large to parse: nothing we can see
    syntax = read_syntax(data, path) if screen is not None else None
    if syntax is not None and not screen(syntax):
        return None
    if nesting_problem(data, syntax.tree if syntax is not None and syntax.exact else None) is not None:
        return None  # too deep to parse (the guard of every parse), shown from the screen's tree where it can be
    view = view_of(settings)
    module = view.parsed(data)
    if module is None:
        module = cst.parse_module(data)
        view.keep_parsed(data, module)  # the module's own check walks it too
    context, _ = run_rules(path, data, module, settings, [rule_class])
    return context


def found_alone(path: str, data: bytes, settings, rule_class, screen, effect: str) -> set:
    """The keys of another module's functions (or classes) with `effect`, as `rule_class` finds
    them run alone on it (`rule_alone`)."""
    context = rule_alone(path, data, settings, rule_class, screen)
    return file_effects(context).doers(effect) if context is not None else set()


def file_effects(context) -> FileEffects:
    """The model of the file `context` checks (made on first use)."""
    found = context.memo.get(_MEMO)
    if found is None:
        found = context.memo[_MEMO] = FileEffects()
    return found


class FileEffects:
    """One file: its functions' effects (by the rules' findings), its calls of names that may be
    its own functions, its definitions, the parameters annotated with one of its names, and the
    callables registered for an effect. Effects are the names of vocabulary.effects (ASKS,
    NOTIFIES) and of registrations (PROVIDES, HANDLES)."""

    def __init__(self) -> None:
        #: effect -> key of each function whose body holds a finding of it -> that finding's node
        #: (where its callers lead; None for an alias, whose helper's site is named instead)
        self._own: dict = {}
        #: effect -> keys with a finding only inside functions nested in them (a closure the
        #: function defines and registers: calling the function does not run it)
        self._closures_only: dict = {}
        #: effect -> ids of the nodes reported with it (a reported call is not reported again)
        self._reported: dict = {}
        #: (callee key, caller key, node, callee name) for every call of a same-file name
        self._calls: list = []
        #: (parameter, name) for parameters annotated with a name bound in this file
        self._typed: list = []
        #: module-level or class-level definitions by key (the last one), and every definition's
        #: name -> its first FunctionDef
        self._by_key: dict = {}
        self._by_name: dict = {}
        #: effect -> registered callables (keys or names, as the registering rule reads them) ->
        #: how they are registered
        self._registered: dict = {}
        #: the last node noted by each note_* (the next rule's visit of the same node)
        self._last: dict = {}

    def _first_time(self, kind: str, node: cst.CSTNode) -> bool:
        if self._last.get(kind) is node:
            return False
        self._last[kind] = node
        return True

    # ----- what the walk notes ---------------------------------------------------------------
    def note_call(self, node: cst.Call, ancestors: list, resolver) -> None:
        """`helper(...)` / `self.helper(...)` / `instance.method(...)` of a same-file class, and
        `self.helper` handed on as a callable (`tg.start_soon(self.helper, ...)`)."""
        if not self._first_time("call", node):
            return
        caller = function_key(ancestors)
        callee = callee_key(node.func, ancestors, resolver)
        if callee is not None:
            self._calls.append((callee, caller, node, callee[1]))
        for arg in node.args:
            if isinstance(arg.value, cst.Attribute):
                key = callee_key(arg.value, ancestors, resolver, methods_only=True)
                if key is not None:
                    self._calls.append((key, caller, arg.value, key[1]))

    def note_param(self, param: cst.Param, resolver) -> None:
        """A parameter whose annotation names something of this file: an alias
        (`pinned: Pinned`), or a function handed to a marker written inline
        (`roots: Annotated[ListRootsResult, Resolve(request_roots)]`, `Depends(get_roots)`): the
        framework runs that function for each call, as it does through the alias."""
        if param.annotation is None or not self._first_time("param", param):
            return
        annotation = param.annotation.annotation
        for expr in annotation_names(annotation):
            if isinstance(expr, cst.Name) and resolver.lookup(expr.value) is None:
                self._typed.append((param, expr.value))
        for value in marker_arguments(annotation):
            if isinstance(value, cst.Name) and resolver.lookup(value.value) is None:
                self._typed.append((param, value.value))

    def note_definition(self, node: cst.FunctionDef, ancestors: list) -> None:
        """A `def`: by its key when it is a module-level function or a method of a class (the
        last of that key), and by its name (the first of that name, at any depth)."""
        if not self._first_time("def", node):
            return
        key = definition_key(ancestors)
        if key is not None:
            self._by_key[key] = node
        self._by_name.setdefault(node.name.value, node)

    def found(self, effect: str, ancestors: list, node: cst.CSTNode) -> None:
        """A rule reported `effect` at `node`: the function around it has the effect."""
        self._reported.setdefault(effect, set()).add(id(node))
        key = function_key(ancestors)
        if key is not None:
            self._own.setdefault(effect, {}).setdefault(key, node)
            closures = self._closures_only.setdefault(effect, {})
            nested = sum(1 for a in ancestors if isinstance(a, cst.FunctionDef)) > 1
            closures[key] = closures.get(key, True) and nested

    def holds(self, effect: str, key: tuple, node: cst.CSTNode) -> None:
        """A rule reported `effect` for the definition `key` as a whole (RT002's roots store
        class), at `node`."""
        self._reported.setdefault(effect, set()).add(id(node))
        self._own.setdefault(effect, {}).setdefault(key, node)

    def registers(self, effect: str, callable_id, how: str = "") -> None:
        """A callable of this file (a key or a name) registered for `effect`; the first way
        it was registered is kept."""
        self._registered.setdefault(effect, {}).setdefault(callable_id, how)

    # ----- what the rules read ---------------------------------------------------------------
    def doers(self, effect: str) -> set:
        """The keys of the functions of this file that have `effect` (aliases included)."""
        return set(self._own.get(effect, ()))

    def first_sites(self, effect: str) -> dict:
        """key -> the node of the first finding of each function with `effect` (None for an
        alias): where its callers' findings lead."""
        return dict(self._own.get(effect, {}))

    def one_call_away(self, effect: str) -> list:
        """(node, callee name, callee key) for every call of a function of this file that has
        `effect`, but a function's calls of itself and nodes already reported with the effect.
        One call away only: a caller of a helper is not a helper in turn (otherwise every tool,
        then `create_server()`, then `main()` would "ask for roots"); nor is a function whose
        effect lies only in closures it defines (mcp-http-proxy's `main()` registers a
        list_changed handler: running `main()` sends nothing, and its call was suggested for
        removal, the entry point with it)."""
        doers = self._own.get(effect, {})
        reported = self._reported.get(effect, set())
        closures = self._closures_only.get(effect, {})
        return [
            (node, name, callee)
            for callee, caller, node, name in self._calls
            if callee in doers and callee != caller and id(node) not in reported and not closures.get(callee)
        ]

    def aliases(self, effect: str, module: cst.Module) -> None:
        """Module-level names bound to an expression that names a function with `effect`
        (`Pinned = Annotated[ListRootsResult, Resolve(_ask)]`): a parameter typed with one has
        the framework run the function for it, so the alias has the effect too (one hop)."""
        own = self._own.setdefault(effect, {})
        helpers = {name for owner, name in own if owner is None}
        for stmt in module.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                value = getattr(small, "value", None)
                if not isinstance(small, (cst.Assign, cst.AnnAssign)) or value is None:
                    continue
                named = [n.value for n in iter_nodes(value) if isinstance(n, cst.Name) and n.value in helpers]
                if named:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    for t in targets:
                        if isinstance(t, cst.Name):
                            own.setdefault((None, t.value), own.get((None, named[0])))

    def typed_sites(self, effect: str) -> list:
        """(parameter, name) for every parameter typed with a module-level name of this file
        that has `effect` (an alias, or a marker's function)."""
        own = self._own.get(effect, {})
        return [(param, name) for param, name in self._typed if (None, name) in own]

    def registered(self, effect: str) -> dict:
        """The callables registered for `effect` -> how (see `registers`)."""
        return dict(self._registered.get(effect, {}))

    def definition(self, key: tuple):
        """The last module-level function or class method of `key`, or None."""
        return self._by_key.get(key)

    def named(self, name: str):
        """The first `def` of `name` in the file, at any depth, or None."""
        return self._by_name.get(name)
