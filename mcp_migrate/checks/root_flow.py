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

import libcst as cst

from mcp_migrate.checks.calls import call_qualified
from mcp_migrate.checks.words import resolved_name, rootish_name
from mcp_migrate.core.syntax import literal

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
