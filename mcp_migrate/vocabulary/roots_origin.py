"""Which values of one file come from client roots: RT103's data flow, keyed on where a value
comes from and never on what it is called.

A value *comes from roots* when it is:

* a `list_roots()` result (awaited or not), or a parameter annotated with the SDK's roots types
  (`Root`, `list[types.Root]`, `ListRootsResult`, or a module alias of one such as
  `Snapshot = tuple[types.Root, ...]`);
* anything read from such a value (`result.roots`, `root.uri`, `roots[0]`, a method's result:
  `str(r).rstrip("/")`), a path made from it (`Path(r)`, `r / name`, `r + os.sep`,
  `file_url_to_path(root.uri)`: a call given one), a loop or comprehension variable over one,
  or a collection built from or extended with one (`[... for r in result.roots]`,
  `allowed.append(...)`, `allowed.extend(...)`);
* a name bound to one anywhere in its function (flow-insensitive), a name of an enclosing
  function or of the module bound to one, an attribute assigned one (`self.allowed = ...` in
  its class, `session.roots = roots` anywhere in the file);
* the result of a function of this file that returns one, and a parameter of a function of this
  file that some call in the file passes one (`_check(candidate, roots)`; the method's `self`
  counts for `self.m(...)`, `__init__` for a call of the class);
* a parameter another module passes roots to (`assumed`: (class or None, function, parameter)):
  RT103 asks what a module decides when a caller elsewhere hands one of its functions roots.

What is *own* and what is *passed*: a value that comes from roots through a parameter (only
because a caller passes roots) is `passed`; one that comes from a source inside the function
(or one the function calls) is `own`. RT103 reports an allow-list built from roots only where
it is built from its own roots (a generic helper that dedupes any list is not an allow-list
builder), and a check in a helper through the helper's call.

The model is worked out once per file, to a fixpoint over the file's functions (a few rounds at
most), and answers per expression with `origin(expr, scope, bound)`.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from mcp_migrate.core.record import field, record
from mcp_migrate.core.sdk import ROOT_TYPES
from mcp_migrate.core.syntax import code_of, iter_nodes, positional
from mcp_migrate.core.walk import children

#: An origin: a value derived from roots in the function itself, or only through a parameter.
OWN = "own"
PASSED = "passed"

#: Calls whose result says something about a value without carrying it along (a count, a test).
_OPAQUE_CALLS = frozenset(
    {"len", "bool", "isinstance", "issubclass", "print", "any", "all", "hash", "id", "repr", "int", "type", "callable"}
)
#: Methods whose result is a test or a count, not the value.
_OPAQUE_METHODS = frozenset(
    {
        "startswith",
        "endswith",
        "is_relative_to",
        "exists",
        "is_dir",
        "is_file",
        "is_absolute",
        "count",
        "index",
        "find",
        "get_event_loop",
        "info",
        "debug",
        "warning",
        "error",
        "exception",
        "log",
    }
)
#: Methods and functions that enumerate or read what lies under a path: the files a server finds
#: under a root are not roots (`root.iterdir()`, `os.listdir(root)`, `root.glob("*.md")`).
_UNDER = frozenset(
    {"iterdir", "glob", "rglob", "walk", "fwalk", "listdir", "scandir", "read_text", "read_bytes", "open", "stat"}
)
#: Methods that put a value into the collection they are called on.
EXTENDERS = frozenset({"append", "extend", "add", "update", "insert", "appendleft", "extendleft", "union"})


#: The comprehensions whose variables the nodes inside them may read.
_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
#: The nodes `Origins._note` records (besides the names and attributes that make a source).
_NOTED = frozenset(
    {cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.WithItem, cst.Return, cst.Call}
)


@record
class Scope:
    """A function (or the module): its names that come from roots, with their origins."""

    node: cst.CSTNode
    parent: Scope | None
    cls: cst.ClassDef | None
    params: list = field(default_factory=list)
    names: dict = field(default_factory=dict)
    #: Assignment-like bindings: (target expression, value expression, kind).
    bindings: list = field(default_factory=list)
    returns: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    #: Names bound here to an empty literal (`x = []`, `set()`): a collection filled later.
    empty: set = field(default_factory=set)
    #: Names bound here to something else than an empty literal.
    filled: set = field(default_factory=set)
    #: Names bound here to text (a string, an f-string): never a collection of directories.
    texts: set = field(default_factory=set)


class Origins:
    """The roots data flow of one module (see the module docstring)."""

    def __init__(
        self, module: cst.Module, resolver, root_types: frozenset = ROOT_TYPES, assumed: frozenset = frozenset()
    ) -> None:
        self.resolver = resolver
        self.root_types = set(root_types)
        #: (class name or None, function name, parameter name): parameters a caller in another
        #: module passes roots to, taken as sources here.
        self.assumed = assumed
        #: Whether the module holds a source of its own: a `list_roots` attribute or a roots type
        #: (what RT103's syntax screen asks of a file).
        self.sourced = False
        self.module = Scope(module, None, None)
        self.scopes: dict = {id(module): self.module}
        #: function name -> scopes of functions and methods of that name.
        self.by_name: dict = {}
        #: (id(class), attribute) -> origins, for `self.x = ...` in the class.
        self.class_attrs: dict = {}
        #: attribute -> origins, for `obj.x = ...` on any other object.
        self.attrs: dict = {}
        #: id(function) -> origins of what it returns.
        self.returned: dict = {}
        #: id(function) -> {parameter name: origins} from the calls of the file.
        self.passed: dict = {}
        self._collect(module)
        self._solve()

    # ----- collection ------------------------------------------------------------------------
    def _collect(self, module: cst.Module) -> None:
        self._aliases(module)
        stack: list = [(module, self.module, None, ())]
        while stack:
            node, scope, cls, comps = stack.pop()
            kind = type(node)  # LibCST's node classes are final: `is` tests what `isinstance` would, faster
            if kind is cst.FunctionDef:
                inner = Scope(node, scope, cls, params=[p.name.value for p in parameters(node.params)])
                self.scopes[id(node)] = inner
                self.by_name.setdefault(node.name.value, []).append(inner)
                owner = cls.name.value if cls is not None else None
                for param in parameters(node.params):
                    if param.annotation is not None and self._root_annotation(param.annotation.annotation):
                        inner.names[param.name.value] = frozenset({OWN})
                        self.sourced = True
                    elif self.assumed and (owner, node.name.value, param.name.value) in self.assumed:
                        inner.names[param.name.value] = frozenset({OWN})
                stack.extend((child, inner, None, ()) for child in children(node.body))
                continue
            if kind is cst.ClassDef:
                stack.extend((child, scope, node, ()) for child in children(node.body))
                continue
            if kind is cst.Lambda:
                continue
            self._note(node, kind, scope, comps)
            if kind in _COMPREHENSIONS:
                comps = (*comps, node)
            stack.extend((child, scope, cls, comps) for child in children(node))

    def _aliases(self, module: cst.Module) -> None:
        """`Snapshot = tuple[types.Root, ...]` at module level: an alias of a roots type."""
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and self._root_annotation(small.value, strings=False):
                        self.root_types.add(target.value)

    def _root_annotation(self, expr: cst.BaseExpression, strings: bool = True) -> bool:
        for node in iter_nodes(expr):
            if isinstance(node, cst.Name) and node.value in self.root_types:
                return True
            if isinstance(node, cst.Attribute) and node.attr.value in self.root_types:
                return True
            if strings and isinstance(node, cst.SimpleString) and self._annotation_text(node):
                return True  # a string annotation: "list[Root]"
        return False

    def _annotation_text(self, node: cst.SimpleString) -> bool:
        """A string that is an annotation naming a roots type (`"list[Root]"`), not text that
        mentions one (`Annotated[list[str], Option(help="... MCP Roots ...")]`)."""
        if not any(t in node.value for t in self.root_types):
            return False
        text = node.evaluated_value
        if not isinstance(text, str):
            return False
        try:
            expr = cst.parse_expression(text)
        except Exception:  # noqa: BLE001 - any text that is no expression is no annotation
            return False
        return self._root_annotation(expr, strings=False)

    def _note(self, node: Any, kind: type, scope: Scope, comps: tuple) -> None:
        if kind is cst.Attribute:
            if not self.sourced:
                attr = node.attr.value
                self.sourced = attr == "list_roots" or attr in self.root_types
            return
        if kind is cst.Name:
            if not self.sourced:
                self.sourced = node.value in self.root_types
            return
        if kind not in _NOTED:
            return
        if kind is cst.Assign:
            for target in node.targets:
                self._bind(scope, target.target, node.value, "assign")
        elif kind is cst.AnnAssign and node.value is not None:
            self._bind(scope, node.target, node.value, "assign")
        elif kind is cst.AugAssign:
            if not _text(node.value):  # `text += f"{root}\n"` builds a string, not a collection
                self._bind(scope, node.target, node.value, "extend")
        elif kind is cst.NamedExpr:
            self._bind(scope, node.target, node.value, "assign")
        elif kind is cst.For:
            scope.bindings.append((node.target, node.iter, "loop"))
        elif kind is cst.WithItem and node.asname is not None:
            scope.bindings.append((node.asname.name, node.item, "assign"))
        elif kind is cst.Return and node.value is not None:
            scope.returns.append(node.value)
        elif kind is cst.Call:
            scope.calls.append((node, comps))
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in EXTENDERS and node.args:
                scope.bindings.append((func.value, node.args[-1].value, "extend"))

    def _bind(self, scope: Scope, target, value, kind: str) -> None:
        scope.bindings.append((target, value, kind))
        if isinstance(target, cst.Name) and kind == "assign":
            if _text(value):
                scope.texts.add(target.value)
            (scope.empty if _empty(value) else scope.filled).add(target.value)

    # ----- the fixpoint ------------------------------------------------------------------------
    def _solve(self) -> None:
        for scope in self.scopes.values():  # collected from a stack: back in source order
            scope.bindings.reverse()
            scope.calls.reverse()
        for _ in range(40):
            before = self._state()
            for scope in self.scopes.values():
                for _ in range(4):  # a function's own chain of bindings settles in a few passes
                    names = sum(len(o) for o in scope.names.values())
                    self._round(scope)
                    if sum(len(o) for o in scope.names.values()) == names:
                        break
            if self._state() == before:
                return

    def _state(self) -> tuple:
        return (
            sum(len(s.names) for s in self.scopes.values()),
            tuple(sorted((k, tuple(sorted(v))) for k, v in self.returned.items())),
            tuple(sorted((k, tuple(sorted(v))) for k, v in self.attrs.items())),
            tuple(sorted((k, tuple(sorted(v))) for k, v in self.class_attrs.items())),
            sum(len(v) for v in self.passed.values()),
            sum(len(o) for s in self.scopes.values() for o in s.names.values()),
        )

    def _round(self, scope: Scope) -> None:
        for target, value, _kind in scope.bindings:
            found = self.origin(value, scope)
            if not found:
                continue
            self._assign(scope, target, found)
        for value in scope.returns:
            found = self.origin(value, scope)
            if found:
                key = id(scope.node)
                self.returned[key] = self.returned.get(key, frozenset()) | found
        for call, comps in scope.calls:
            bound: dict = {}
            for comp in comps:
                bound = self.comprehension(comp, scope, bound)
            self._pass(call, scope, bound)

    def _assign(self, scope: Scope, target, found: frozenset) -> None:
        if isinstance(target, cst.Name):
            scope.names[target.value] = scope.names.get(target.value, frozenset()) | found
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._assign(scope, element.value, found)
        elif isinstance(target, cst.StarredElement):
            self._assign(scope, target.value, found)
        elif isinstance(target, cst.Attribute):
            owner = _class_of(scope)
            if _is_self(target.value) and owner is not None:
                key = (id(owner), target.attr.value)
                self.class_attrs[key] = self.class_attrs.get(key, frozenset()) | found
            else:
                self.attrs[target.attr.value] = self.attrs.get(target.attr.value, frozenset()) | found
        elif isinstance(target, cst.Subscript):
            self._assign(scope, target.value, found)

    def _pass(self, call: cst.Call, scope: Scope, bound: dict) -> None:
        """A call of a function of this file passing roots: its parameters come from roots."""
        for callee, shift in self.callees(call, scope):
            names = callee.params
            table = self.passed.setdefault(id(callee.node), {})
            for i, arg in enumerate(positional(call)):
                found = self.origin(arg.value, scope, bound)
                if found and i + shift < len(names):
                    name = names[i + shift]
                    table[name] = table.get(name, frozenset()) | frozenset({PASSED})
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in names and self.origin(arg.value, scope, bound):
                    table[arg.keyword.value] = table.get(arg.keyword.value, frozenset()) | frozenset({PASSED})

    def callees(self, call: cst.Call, scope: Scope) -> list:
        """(scope, parameter shift) of the functions of this file the call may run: `f(...)`,
        `self.f(...)` / `cls.f(...)` in a class, `Cls(...)` (its `__init__`)."""
        return callees(self.by_name, call, scope)

    # ----- queries ----------------------------------------------------------------------------
    def scope_of(self, function: cst.CSTNode | None) -> Scope:
        return self.scopes.get(id(function), self.module) if function is not None else self.module

    def name(self, name: str, scope: Scope | None) -> frozenset:
        first = True
        while scope is not None:
            found = scope.names.get(name)
            passed = self.passed.get(id(scope.node), {}).get(name) if first else None
            if found or passed:
                result = (found or frozenset()) | (passed or frozenset())
                return result if first else frozenset({OWN})  # a closure's value is the function's own
            first = False
            scope = scope.parent
        return frozenset()

    def origin(self, expr: cst.BaseExpression, scope: Scope, bound: dict | None = None) -> frozenset:
        """Where `expr` comes from roots: a set of OWN / PASSED, empty when it does not.
        `bound`: comprehension variables in force (name -> origins)."""
        found: frozenset = frozenset()
        # LibCST's node classes are final: `type(...) is` tests what `isinstance` would, without
        # the ABC check a miss costs (`_collect`), but mypy narrows no variable by it: `node`.
        node: Any = expr
        kind = type(node)
        if kind is cst.Name:
            if bound and node.value in bound:
                return bound[node.value]
            return self.name(node.value, scope)
        if kind is cst.Attribute:
            inner = self.origin(node.value, scope, bound)
            if inner:
                return inner
            owner = _class_of(scope)
            if _is_self(node.value) and owner is not None and self.class_attrs.get((id(owner), node.attr.value)):
                return frozenset({OWN})
            return frozenset({OWN}) if node.attr.value in self.attrs else frozenset()
        if kind is cst.Await:
            return self.origin(node.expression, scope, bound)
        if kind is cst.Subscript:
            return self.origin(node.value, scope, bound)
        if kind is cst.Call:
            return self._call(node, scope, bound)
        if kind is cst.BinaryOperation:
            return self.origin(node.left, scope, bound) | self.origin(node.right, scope, bound)
        if kind is cst.BooleanOperation:
            return self.origin(node.left, scope, bound) | self.origin(node.right, scope, bound)
        if kind is cst.IfExp:
            return self.origin(node.body, scope, bound) | self.origin(node.orelse, scope, bound)
        if kind is cst.FormattedString:
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    found |= self.origin(part.expression, scope, bound)
            return found
        if kind is cst.ListComp or kind is cst.SetComp or kind is cst.GeneratorExp:
            inner_bound = self.comprehension(expr, scope, bound)
            comp: cst.CompFor | None = node.for_in
            while comp is not None:
                found |= self.origin(comp.iter, scope, inner_bound)
                comp = comp.inner_for_in
            return found | self.origin(node.elt, scope, inner_bound)
        if kind is cst.List or kind is cst.Tuple or kind is cst.Set:
            for element in node.elements:
                found |= self.origin(element.value, scope, bound)
            return found
        return frozenset()

    def comprehension(self, expr, scope: Scope, bound: dict | None) -> dict:
        """The variables of a comprehension that come from roots (over an iterable that does)."""
        inner = dict(bound or {})
        comp: cst.CompFor | None = expr.for_in
        while comp is not None:
            found = self.origin(comp.iter, scope, inner)
            for name in target_names(comp.target):
                if found:
                    inner[name] = found
                else:
                    inner.pop(name, None)
            comp = comp.inner_for_in
        return inner

    def _call(self, call: cst.Call, scope: Scope, bound: dict | None) -> frozenset:
        func = call.func
        if isinstance(func, cst.Attribute):
            if func.attr.value == "list_roots":
                return frozenset({OWN})
            if func.attr.value in _OPAQUE_METHODS or func.attr.value in _UNDER:
                return frozenset()
            inner = self.origin(func.value, scope, bound)
            if inner:
                return inner  # a method on a root: r.rstrip("/"), r.resolve(), roots.copy()
        callees = self.callees(call, scope)
        if callees:
            found: frozenset = frozenset()
            for callee, _shift in callees:
                returned = self.returned.get(id(callee.node), frozenset())
                if OWN in returned:
                    found |= frozenset({OWN})
                elif PASSED in returned and self._args(call, scope, bound):
                    found |= self._args(call, scope, bound)
            return found
        if isinstance(func, cst.Name) and (func.value in _OPAQUE_CALLS or func.value in _UNDER):
            return frozenset()
        return self._args(call, scope, bound)  # str(r), Path(r), file_url_to_path(root.uri)

    def _args(self, call: cst.Call, scope: Scope, bound: dict | None) -> frozenset:
        found: frozenset = frozenset()
        for arg in positional(call):
            found |= self.origin(arg.value, scope, bound)
        return found

    def built(self, scope: Scope) -> list:
        """The names this function fills from its own roots after binding them to an empty
        literal (`allowed = []` then `allowed.append(root_path)`): an allow-list it builds."""
        found = []
        for target, value, kind in scope.bindings:
            if kind != "extend" or not isinstance(target, cst.Name):
                continue
            if target.value in scope.texts or target.value not in scope.empty or target.value in scope.filled:
                continue
            if OWN in self.origin(value, scope):
                found.append(target.value)
        return found

    def describe(self, expr: cst.BaseExpression) -> str:
        return code_of(expr)


def callees(by_name: dict, call: cst.Call, scope: Scope) -> list:
    """(scope, parameter shift) of the functions of a file (`by_name`: name -> their scopes)
    the call may run: `f(...)`, `self.f(...)` / `cls.f(...)` in a class, `Cls(...)` (its
    `__init__`)."""
    func = call.func
    if isinstance(func, cst.Name):
        found = [(s, 0) for s in by_name.get(func.value, ()) if s.cls is None]
        for s in by_name.get("__init__", ()):
            if s.cls is not None and s.cls.name.value == func.value:
                found.append((s, 1))
        return found
    if isinstance(func, cst.Attribute) and _is_self(func.value):
        owner = _class_of(scope)
        return [(s, 1) for s in by_name.get(func.attr.value, ()) if s.cls is not None and s.cls is owner]
    return []


# ----- helpers ---------------------------------------------------------------------------------
def parameters(params: cst.Parameters) -> list:
    found = list(params.posonly_params) + list(params.params)
    if isinstance(params.star_arg, cst.Param):
        found.append(params.star_arg)
    found.extend(params.kwonly_params)
    return found


def _empty(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.List, cst.Set, cst.Tuple, cst.Dict)):
        return not value.elements
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and not value.args:
        return value.func.value in ("list", "set", "tuple", "dict", "frozenset")
    return False


def _text(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("self", "cls")


def _class_of(scope: Scope | None) -> cst.ClassDef | None:
    while scope is not None:
        if scope.cls is not None:
            return scope.cls
        scope = scope.parent
    return None


def target_names(target) -> list:
    """The names an assignment or loop target binds (`a`, `a, b`, `*rest`)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []
