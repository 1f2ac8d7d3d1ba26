"""A small per-scope data-flow tracker the security rules share: "this name came from roots",
"this path was resolved".

The data-flow heuristic is deliberately simple and documented in each rule's docstring:

* an expression *comes from roots* (is "rootish") when it is a name or attribute whose words say
  it holds directories that bound access (`root`, `roots`, `workspace`, `sandbox`, `allowlist`,
  or a qualifier right before a directory word: `allowed_dirs`, `base_dir`, `ALLOWED_ROOTS`;
  not `root_key`, `allowed_hosts` or ASGI's `root_path`), a `.roots` attribute or a
  `list_roots()` result, a name bound (in the same scope) to a rootish value, a loop or
  comprehension variable over a rootish iterable (not `os.walk`'s), an environment variable
  whose key has such words, or a call or operation that carries a rootish value along
  (`str(r)`, `Path(r)`, `r.uri`, `r + os.sep`, `os.path.abspath(r)`, `roots[0]`,
  `r.rstrip("/")`);
* an expression is *resolved* when it is `x.resolve()`, `os.path.realpath(x)` (or a `str()`,
  `Path()` or `os.fspath()` of one), or a name bound to one in the same scope.
"""

from __future__ import annotations

import ast

import libcst as cst

from mcp_migrate.core.screen import child_nodes, string
from mcp_migrate.core.syntax import literal
from mcp_migrate.vocabulary.calls import call_qualified
from mcp_migrate.vocabulary.words import resolved_name, rootish_name

#: Methods that keep a root a root: `r.rstrip("/")`, `r.resolve()`, `dirs.split(":")`.
_ROOT_METHODS = frozenset(
    {
        "rstrip",
        "lstrip",
        "strip",
        "replace",
        "removeprefix",
        "resolve",
        "absolute",
        "expanduser",
        "as_posix",
        "lower",
        "casefold",
        "removesuffix",
        "split",
        "rsplit",
        "normcase",
        "realpath",
        "abspath",
    }
)


#: Loops whose variables are not roots even when named so (`for root, dirs, files in os.walk(p)`).
_WALKS = frozenset({"os.walk", "os.fwalk"})


#: Calls that carry a path through unchanged in meaning (`str(r)`, `Path(r)`, `os.path.abspath(r)`).
_WRAPPERS = frozenset(
    {
        "str",
        "os.fspath",
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PosixPath",
        "pathlib.WindowsPath",
        "pathlib.PurePosixPath",
        "pathlib.PureWindowsPath",
        "os.path.abspath",
        "os.path.normpath",
        "os.path.expanduser",
        "os.path.join",
        "os.path.realpath",
        "posixpath.abspath",
        "posixpath.normpath",
        "posixpath.realpath",
        "ntpath.abspath",
        "ntpath.normpath",
        "ntpath.realpath",
        "urllib.request.url2pathname",
        "urllib.parse.unquote",
        "urllib.parse.urlparse",
        "urllib.parse.urlsplit",
        "tuple",
        "list",
        "set",
        "frozenset",
        "sorted",
    }
)


_REALPATH = frozenset({"os.path.realpath", "posixpath.realpath", "ntpath.realpath"})


_PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.WindowsPath"})


_ENV_GETTERS = frozenset({"os.getenv", "os.environ.get"})


class Flow:
    """Per-scope tags for names: "root" (came from roots) or "resolved" (a resolved path)."""

    def __init__(self, resolver) -> None:
        self.resolver = resolver
        self.scopes: list = [{}]

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()

    def bind(self, target: cst.BaseExpression, tags: frozenset) -> None:
        if isinstance(target, cst.Name):
            self.scopes[-1][target.value] = tags
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self.bind(el.value, tags)

    def tags(self, name: str) -> frozenset:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return frozenset()

    def bind_value(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        tags = set()
        if self.walked(value):
            tags.add("plain")
        elif self.rootish(value):
            tags.add("root")
        if self.resolved(value):
            tags.add("resolved")
        self.bind(target, frozenset(tags))

    def bind_loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        if isinstance(iterable, cst.Call) and call_qualified(self.resolver, iterable) in _WALKS:
            self.bind(target, frozenset({"plain"}))
        elif (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "walk"
        ):
            self.bind(target, frozenset({"plain"}))  # Path.walk()
        else:
            self.bind(target, frozenset({"root"}) if self.rootish(iterable) else frozenset())

    def bind_comprehension(self, node) -> None:
        """Bind the loop variables of a comprehension before its element is visited."""
        comp = node.for_in
        while comp is not None:
            self.bind_loop(comp.target, comp.iter)
            comp = comp.inner_for_in

    # ----- queries ------------------------------------------------------------------------
    def walked(self, expr: cst.BaseExpression) -> bool:
        """A path the program enumerated itself (`os.walk`'s directory, `d / name` under it):
        not input to check, so comparing it with allowed directories filters a scan."""
        if isinstance(expr, cst.Name):
            return "plain" in self.tags(expr.value)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Divide, cst.Add)):
            return self.walked(expr.left)
        if isinstance(expr, cst.Call) and expr.args and call_qualified(self.resolver, expr) in _WRAPPERS:
            return self.walked(expr.args[0].value)
        return False

    def rootish(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            tags = self.tags(expr.value)
            return "root" in tags or ("plain" not in tags and rootish_name(expr.value))
        if isinstance(expr, cst.Attribute):
            attr = expr.attr.value
            if attr == "roots" or rootish_name(attr):
                return True
            return attr in ("uri", "path", "name_path") and self.rootish(expr.value)
        if isinstance(expr, cst.Subscript):
            key = expr.slice[0].slice if len(expr.slice) == 1 else None
            if isinstance(key, cst.Index) and literal(key.value) is not None:
                # os.environ["ALLOWED_DIRS"], root["uri"]
                if self.resolver.qualified(expr.value) == "os.environ":
                    return rootish_name(literal(key.value))
                return literal(key.value) in ("uri", "path") and self.rootish(expr.value)
            return self.rootish(expr.value)
        if isinstance(expr, cst.Await):
            return self.rootish(expr.expression)
        if isinstance(expr, cst.Call):
            return self._rootish_call(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Divide)):
            return self.rootish(expr.left)
        if isinstance(expr, cst.BooleanOperation):
            return self.rootish(expr.left) or self.rootish(expr.right)
        if isinstance(expr, cst.FormattedString):
            return any(isinstance(p, cst.FormattedStringExpression) and self.rootish(p.expression) for p in expr.parts)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            # [r.uri.path for r in result.roots]: a comprehension over roots
            comp = expr.for_in
            while comp is not None:
                if self.rootish(comp.iter):
                    return True
                comp = comp.inner_for_in
            return False
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            return any(not isinstance(e, cst.StarredElement) and self.rootish(e.value) for e in expr.elements)
        return False

    def _rootish_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute):
            if func.attr.value == "list_roots":
                return True
            q = self.resolver.qualified(func)
            if q in _ENV_GETTERS:
                key = literal(call.args[0].value) if call.args else None
                return bool(key) and rootish_name(key)
            if q is None and func.attr.value in _ROOT_METHODS and self.rootish(func.value):
                return True  # a method on a root: r.rstrip("/"), r.resolve(), r.split(":")
        q = call_qualified(self.resolver, call)
        if q in _WRAPPERS:
            return any(self.rootish(a.value) for a in call.args)
        return False

    def resolved(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return "resolved" in self.tags(expr.value) or resolved_name(expr.value)
        if isinstance(expr, cst.Attribute):
            return resolved_name(expr.attr.value)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("resolve", "realpath"):
                return True
            q = call_qualified(self.resolver, expr)
            if q in _REALPATH:
                return True
            if q in ("str", "os.fspath") or q in _PATH_CLASSES:
                return bool(expr.args) and self.resolved(expr.args[0].value)
            if isinstance(func, cst.Attribute) and func.attr.value in ("rstrip", "as_posix") and q is None:
                return self.resolved(func.value)
            return False
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            return self.resolved(expr.left)
        if isinstance(expr, cst.FormattedString):
            first = next((p for p in expr.parts if isinstance(p, cst.FormattedStringExpression)), None)
            return first is not None and self.resolved(first.expression)
        return False

    def separator_terminated(self, expr: cst.BaseExpression) -> bool:
        """`root + os.sep`, `root + "/"`, `f"{root}/"`, `os.path.join(root, "")`."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            right = expr.right
            if literal(right) is not None:
                return literal(right).endswith(("/", "\\"))
            return self.resolver.qualified(right) in ("os.sep", "os.path.sep", "os.altsep")
        if isinstance(expr, cst.FormattedString) and expr.parts:
            last = expr.parts[-1]
            if isinstance(last, cst.FormattedStringText):
                return last.value.endswith(("/", "\\"))
            return self.resolver.qualified(last.expression) in ("os.sep", "os.path.sep")
        if isinstance(expr, cst.Call) and call_qualified(self.resolver, expr) == "os.path.join" and expr.args:
            return literal(expr.args[-1].value) == ""
        return False


# ----- the syntax screen's twin ------------------------------------------------------------------
#: Nodes that open a scope of `Flow` (it pushes one for functions, lambdas and comprehensions;
#: a class body binds in the scope around it).
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class TreeFlow:
    """The syntax screen's twin of `Flow.rootish`, on the standard library's nodes: whether an
    expression may come from roots. Every way `rootish` says yes ends at a name or attribute
    whose words say so (`.roots` and `list_roots` among them), an environment key with such
    words, or a name a binding tagged "root"; so an expression may come from roots when such an
    atom is anywhere in it. Names are tagged per scope as `Flow` tags them (assignments, loops,
    comprehensions, walrus), visible in nested scopes; binding order, shadowing and the "plain"
    tag of `os.walk` loops are ignored, so this is a superset of `Flow`, never less."""

    def __init__(self, syntax) -> None:
        self.syntax = syntax
        self._words: dict = {}
        self._parent: dict = {}  # scope id -> enclosing scope id
        self._bindings: dict = {}  # scope id -> [(names, value)]
        self._scope_of: dict = {}  # id(node) -> scope id, for the nodes asked about
        self._tagged: dict = {}
        self._walked = False
        self._bound: set | None = None

    def _bound_anywhere(self) -> set:
        """Every name some binding of the file tags (in whatever scope)."""
        if self._bound is None:
            found: set = set()
            for node in self.syntax.of(ast.Assign):
                for target in node.targets:
                    found |= _bound_names(target)
            for node in self.syntax.of(ast.AnnAssign, ast.NamedExpr):
                found |= _bound_names(node.target)
            for node in self.syntax.of(ast.For, ast.AsyncFor, ast.comprehension):
                found |= _bound_names(node.target)
            self._bound = found
        return self._bound

    def _walk(self, tree) -> None:
        stack = [(tree, 0)]
        bindings = self._bindings
        bindings[0] = []
        while stack:
            node, scope = stack.pop()
            self._scope_of[id(node)] = scope
            kind = node.__class__
            if kind in _SCOPES:
                inner = id(node)
                self._parent[inner] = scope
                bindings[inner] = []
                scope = inner
            if kind is ast.Assign:
                bindings[scope].extend((_bound_names(target), node.value) for target in node.targets)
            elif kind in (ast.AnnAssign, ast.NamedExpr):
                if node.value is not None:
                    bindings[scope].append((_bound_names(node.target), node.value))
            elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
                bindings[scope].append((_bound_names(node.target), node.iter))
            stack.extend((child, scope) for child in child_nodes(node))

    def _rootish_word(self, name: str) -> bool:
        found = self._words.get(name)
        if found is None:
            found = self._words[name] = rootish_name(name)
        return found

    def _atoms(self, node) -> tuple:
        """(a rootish atom is in `node`, the plain names in it)."""
        names: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.__class__
            if kind is ast.Name:
                if self._rootish_word(current.id):
                    return True, names
                names.add(current.id)
            elif kind is ast.Attribute:
                if current.attr == "roots" or self._rootish_word(current.attr):
                    return True, names
            elif kind is ast.Constant:
                if current.value.__class__ is str and self._rootish_word(current.value):
                    return True, names
            stack.extend(child_nodes(current))
        return False, names

    def _tags(self, scope) -> set:
        """The names a binding of this scope or an enclosing one may tag "root"."""
        found = self._tagged.get(scope)
        if found is None:
            outer = self._parent.get(scope)
            tagged = set(self._tags(outer)) if outer is not None else set()
            pending = []
            for names, value in self._bindings.get(scope, ()):
                if not names:
                    continue
                static, used = self._atoms(value)
                if static:
                    tagged |= names
                else:
                    pending.append((names, used))
            changed = True
            while changed:
                changed = False
                for names, used in pending:
                    if not names <= tagged and used & tagged:
                        tagged |= names
                        changed = True
            found = self._tagged[scope] = tagged
        return found

    def rootish(self, node) -> bool:
        static, names = self._atoms(node)
        if static:
            return True
        if not names & self._bound_anywhere():
            return False  # no binding can have tagged a name in it
        if not self._walked:  # the scopes are worked out once, for the first name that needs them
            self._walked = True
            self._walk(self.syntax.tree)
        return bool(names & self._tags(self._scope_of.get(id(node), 0)))

    def resolved(self, node) -> bool:
        """`Flow.resolved` where it needs no binding nor import to say yes: a name or attribute
        whose words say so, `x.resolve()` / `x.realpath()`, `p + "/"` of one, an f-string
        starting with one. A yes here is a yes of `Flow.resolved`."""
        kind = node.__class__
        if kind is ast.Name:
            return resolved_name(node.id)
        if kind is ast.Attribute:
            return resolved_name(node.attr)
        if kind is ast.Call:
            return node.func.__class__ is ast.Attribute and node.func.attr in ("resolve", "realpath")
        if kind is ast.BinOp and node.op.__class__ is ast.Add:
            return self.resolved(node.left)
        if kind is ast.JoinedStr:
            first = next((v for v in node.values if v.__class__ is ast.FormattedValue), None)
            return first is not None and self.resolved(first.value)
        return False


def separator_terminated_tree(node) -> bool:
    """`Flow.separator_terminated` where no import decides: `root + "/"`, `f"{root}/"`."""
    if node.__class__ is ast.BinOp and node.op.__class__ is ast.Add:
        text = string(node.right)
        return text is not None and text.endswith(("/", "\\"))
    if node.__class__ is ast.JoinedStr and node.values:
        text = string(node.values[-1])
        return text is not None and text.endswith(("/", "\\"))
    return False


def _bound_names(target) -> set:
    """The names `Flow.bind` tags for a target: a name, or the names in a tuple or list."""
    kind = target.__class__
    if kind is ast.Name:
        return {target.id}
    if kind is ast.Starred:
        return _bound_names(target.value)
    if kind in (ast.Tuple, ast.List):
        found = set()
        for element in target.elts:
            found |= _bound_names(element)
        return found
    return set()
