"""RT103's per-scope path facts: "this path was resolved", "this path ends with a separator",
"this path is one the program enumerated itself (`os.walk`)".

Where a value comes from roots is `roots_origin.Origins`' job (by source, never by name); this
tracker only says how a path was made, flow-sensitively per scope:

* an expression is *resolved* when it is `x.resolve()`, `os.path.realpath(x)` (or a `str()`,
  `Path()` or `os.fspath()` of one), or a name bound to one in the same scope (or named so:
  `real_path`, `resolved`);
* a name is *walked* when it is a variable of an `os.walk` / `Path.walk()` loop, or made from one.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import literal
from mcp_migrate.vocabulary.calls import call_qualified
from mcp_migrate.vocabulary.words import resolved_name

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


class Flow:
    """Per-scope tags for names: "resolved" (a resolved path) or "plain" (enumerated by a walk)."""

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
            self.bind(target, frozenset())

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
