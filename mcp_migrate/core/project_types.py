"""The project's own classes, as the modules that define them declare them (issue 35 §1:
"methods of project classes, attributes typed or assigned in `__init__`"): a class's bases, what
its methods return, and the types of its attributes, each name qualified through the defining
module's imports and made absolute.

Why: a receiver whose type is a project class says nothing to a rule by itself
(`session = client.get_session("x")`, `await session.connector.set_roots(roots)`). The resolver
(core.resolve) asks this module what a project class's method returns, what type its `__init__`
gives an attribute, and which SDK class it subclasses (`class Context(FastMCPContext)`, reached
through the package's `__init__.py` re-export), so a chain of project attributes ends on the
SDK object or the project method it really is, whatever the classes are called.

Read with the standard library's `ast`, only the module files an import of the checked file
names (found as core.modules finds them: relative imports, `src/` layouts, packages upwards),
only when the bytes can define or re-export the class asked for, and kept in the run's project
view (core.project_view) per module file, by its size and mtime."""

from __future__ import annotations

import ast
import os
from typing import NamedTuple

from mcp_migrate.core.byte_code import word_in
from mcp_migrate.core.modules import absolute, from_imports, imported_module_file, module_file, module_name
from mcp_migrate.core.project_view import MODULE_LIMIT, ProjectView, read
from mcp_migrate.core.screen import kept_tree, parsed
from mcp_migrate.core.sdk import SDK_PACKAGES

#: Re-exports followed from the name a file imports to the module that defines the class.
_MAX_HOPS = 4
#: The view's table (core.project_view): (module file, mtime, size) -> ModuleTypes.
_TABLE = "project types: module"
#: The view's table: (the asking file, a qualified name) -> (its definition, the files read).
_DEFINED = "project types: definition"
#: Annotations that wrap the type a value has (`Optional[X]`, `Annotated[X, ...]`).
_WRAPPERS = frozenset({"Optional", "Annotated", "Final", "ClassVar"})


class ProjectClass(NamedTuple):
    """A project class: its absolute qualified name, its bases (qualified names, SDK or
    project), the methods it defines itself, what they return (`returns`: method -> (type,
    whether a coroutine returns it)), and its attributes' types (`attrs`: from `__init__`'s
    `self.x = <annotated parameter>`, `self.x: T`, `self.x = Class(...)`, the class body's
    annotations, and properties), each type a qualified name; `source`, its module file;
    `signatures`, what a call of each method passes and gets as written (method -> (parameters
    in call order, `self`/`cls` dropped but for a static method; the return annotation's last
    name or None)): what RT103 across modules (vocabulary.gates_across) matches a call's
    arguments with."""

    name: str
    bases: tuple
    methods: frozenset
    returns: dict
    attrs: dict
    source: str
    signatures: dict


class ModuleTypes(NamedTuple):
    """A module's classes (name -> ProjectClass), its functions' results (name -> (type,
    whether a coroutine returns it)), and the names it binds by import (bound name ->
    qualified name, absolute where it can be). As written, for calls into the module:
    its top-level functions' parameters (`params`: name -> parameters in call order), its
    module-level instances (`instances`: `x = Cls(...)`, `x: Cls = ...` -> the class's last
    name), and its top-level from-imports (`written`: bound name -> (module as written, name),
    core.modules.from_imports)."""

    classes: dict
    functions: dict
    imports: dict
    params: dict
    instances: dict
    written: dict


_EMPTY = ModuleTypes({}, {}, {}, {}, {}, {})


def definition(view: ProjectView, path: str, qualified: str | None):
    """What `qualified` names as the file at `path` imports it (`.context.Context`,
    `pkg.server.Context` re-exported by `pkg/server/__init__.py`): a ProjectClass; for a
    function with a return annotation, (the qualified type it gives, whether a coroutine
    returns it); None for an SDK name, a name with no project file, or nothing typed there.
    Kept in the view with the module files it read, which every later check asking the same
    question consults too (issue 37: a tree's files ask about the same classes of the same few
    modules, and worked each answer out again: 95,000 questions for 1,580 files)."""
    if not qualified or not path or path.startswith("<") or "." not in qualified.lstrip("."):
        return None
    return view.remembered(_DEFINED, (path, qualified), lambda: _definition(view, path, qualified))


def _definition(view: ProjectView, path: str, qualified: str):
    for _ in range(_MAX_HOPS):
        if qualified.partition(".")[0] in SDK_PACKAGES:
            return None
        module, _, name = qualified.rpartition(".")
        source = _module_source(view, path, module, qualified)
        if source is None:
            return None
        types = module_types(view, source, name)
        if name in types.classes:
            return types.classes[name]
        if name in types.functions:
            return types.functions[name]
        again = types.imports.get(name)
        if again is None or again == qualified:
            return None
        path, qualified = source, again  # a re-export: where the module has it from
    return None


def reachable(view: ProjectView, path: str, qualified_names, depth: int = 3) -> list:
    """The project classes the names a file imports lead to (`qualified_names`, as the file at
    `path` writes them): the classes themselves and what imported functions return, then,
    `depth` steps on, the types their methods return, their attributes and their bases: every
    class the resolver can type a receiver with, starting from that file's imports."""
    found: dict = {}
    frontier = []
    for qualified in qualified_names:
        made = definition(view, path, qualified)
        if isinstance(made, tuple) and not isinstance(made, ProjectClass):
            made = definition(view, path, made[0])
        if isinstance(made, ProjectClass) and made.name not in found:
            found[made.name] = made
            frontier.append(made)
    for _ in range(depth):
        following = []
        for cls in frontier:
            named = [*cls.bases, *(t for t, _ in cls.returns.values()), *cls.attrs.values()]
            for qualified in named:
                made = definition(view, cls.source, qualified)
                if isinstance(made, ProjectClass) and made.name not in found:
                    found[made.name] = made
                    following.append(made)
        frontier = following
    return list(found.values())


def _module_source(view: ProjectView, path: str, module: str, qualified: str) -> str | None:
    if qualified.startswith("."):
        found = imported_module_file(view, path, qualified)
        return found if found is not None and found != os.path.abspath(path) else None
    if not module:
        return None
    return module_file(view, os.path.dirname(os.path.abspath(path)), module)


def module_types(view: ProjectView, source: str, name: str = "") -> ModuleTypes:
    """The classes, functions and imports of the module file `source`; empty unless its bytes
    hold `name` (when given): most modules a name is looked up in are only read, parsed on the
    first question whose name their bytes hold."""
    held = view.per_file(_TABLE, source, (), lambda stat: _Module(read(source, stat, MODULE_LIMIT)))
    if held is None or (held.types is None and held.data is None):
        return _EMPTY
    if held.types is None:
        if name and not word_in(held.data, name.encode()):
            return _EMPTY
        held.types, held.data = _types_in(view, source, held.data), None
    return held.types


class _Module:
    """A module file's bytes until they are first parsed, then its ModuleTypes."""

    __slots__ = ("data", "types")

    def __init__(self, data: bytes | None) -> None:
        self.data = data
        self.types: ModuleTypes | None = None


def _types_in(view: ProjectView, source: str, data: bytes) -> ModuleTypes:
    # The screens' reading where a reader kept it, else a parse without the cyclic collector:
    # called in the middle of an analysis, a bare `ast.parse` had the collector scan the LibCST
    # trees alive at every threshold (issue 37: context-forge's 93 parses here took 1.1 s).
    tree = kept_tree(data, view) or parsed(data)
    if tree is None:
        return _EMPTY  # a module we cannot parse types nothing we can see
    here = module_name(view, source) or ""
    names = _Names(view, source, here)
    for node in tree.body:
        names.bind(node)
    classes: dict = {}
    functions: dict = {}
    params: dict = {}
    instances: dict = {}
    written: dict = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = _class(node, names, here, source)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params[node.name] = _param_names(node.args)
            made = names.annotation(node.returns) if node.returns is not None else None
            if made:
                functions[node.name] = (made, isinstance(node, ast.AsyncFunctionDef))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            cls = last_name(node.value.func) if isinstance(node.value, ast.Call) else None
            if cls:
                instances[node.targets[0].id] = cls
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            cls = last_name(node.annotation)
            if cls:
                instances[node.target.id] = cls
        elif isinstance(node, ast.ImportFrom):
            written.update((bound, (module, name)) for bound, module, name in from_imports(node))
    exported = {k: v for k, v in names.imports.items() if v}
    return ModuleTypes(classes, functions, exported, params, instances, written)


def _param_names(args: ast.arguments) -> tuple:
    """A function's parameters in call order: positional ones, `*args`, keyword-only ones."""
    found = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg is not None:
        found.append(args.vararg.arg)
    return (*found, *(a.arg for a in args.kwonlyargs))


def last_name(expr) -> str | None:
    """The last name of `Name`, `a.b.Name`, `"Name"` (a string annotation) or `Name | None`, as
    written (not qualified)."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value.isidentifier():
        return expr.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        left, right = last_name(expr.left), last_name(expr.right)
        return left if right in (None, "None") else right if left in (None, "None") else None
    return None


class _Names:
    """A module's top-level names qualified: its imports (absolute where the module's place
    in its package says how) and its own classes (`<module>.<Class>`)."""

    def __init__(self, view: ProjectView, source: str, here: str) -> None:
        self.view, self.source, self.here = view, source, here
        self.imports: dict = {}
        self.local: dict = {}

    def bind(self, node: ast.stmt) -> None:
        if isinstance(node, ast.ImportFrom):
            for bound, base, name in from_imports(node):
                joined = base + name if base.endswith(".") or not base else f"{base}.{name}"
                self.imports[bound] = self._absolute(joined)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    self.imports[top] = top
        elif isinstance(node, ast.ClassDef):
            self.local[node.name] = f"{self.here}.{node.name}" if self.here else node.name
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", ()))):
                for inner in block:
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        self.bind(inner)

    def _absolute(self, qualified: str) -> str | None:
        return absolute(self.view, qualified, self.source) if qualified.startswith(".") else qualified

    def qualified(self, expr) -> str | None:
        """`a.b.C` through the module's imports and classes."""
        if isinstance(expr, ast.Name):
            return self.local.get(expr.id) or self.imports.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualified(expr.value)
            return f"{base}.{expr.attr}" if base else None
        return None

    def annotation(self, ann) -> str | None:
        """The class an annotation gives a value: `X`, `Optional[X]`, `X | None`, `"X"`,
        `Annotated[X, ...]`; a generic's own class (`Foo[Bar]` is a `Foo`); None for `None` or
        for a union of two classes."""
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, (ast.Name, ast.Attribute)):
            return self.qualified(ann)
        if isinstance(ann, ast.Subscript):
            outer = self.qualified(ann.value)
            word = outer.rpartition(".")[2] if outer else ""
            inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if word in _WRAPPERS and inner:
                return self.annotation(inner[0])
            if word == "Union":
                found = [t for t in (self.annotation(e) for e in inner) if t]
                return found[0] if len(found) == 1 else None
            return outer
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            left, right = self.annotation(ann.left), self.annotation(ann.right)
            return left if right is None else right if left is None else None
        return None


def _class(node: ast.ClassDef, names: _Names, here: str, source: str) -> ProjectClass:
    bases = []
    for base in node.bases:
        expr = base.value if isinstance(base, ast.Subscript) else base  # `Context[ServerSession, T]`
        found = names.qualified(expr)
        if found:
            bases.append(found)
    methods, returns, attrs, signatures = set(), {}, {}, {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            found = names.annotation(item.annotation)
            if found:
                attrs[item.target.id] = found
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        methods.add(item.name)
        static = bool(item.decorator_list) and any(last_name(d) == "staticmethod" for d in item.decorator_list)
        params = _param_names(item.args)
        signatures[item.name] = (params if static else params[1:], last_name(item.returns))
        made = names.annotation(item.returns) if item.returns is not None else None
        if made and _is_property(item):
            attrs.setdefault(item.name, made)
        elif made:
            returns[item.name] = (made, isinstance(item, ast.AsyncFunctionDef))
        if item.name == "__init__":
            for attr, typed in _init_attrs(item, names):
                attrs.setdefault(attr, typed)
    name = f"{here}.{node.name}" if here else node.name
    return ProjectClass(name, tuple(bases), frozenset(methods), returns, attrs, os.path.abspath(source), signatures)


def _is_property(func) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
        or (isinstance(d, ast.Attribute) and d.attr in ("property", "cached_property"))
        for d in func.decorator_list
    )


def _init_attrs(func, names: _Names) -> list:
    """(attribute, type) for what `__init__` stores on `self`: `self.x: T = ...`, `self.x = p`
    of a parameter annotated `p: T`, `self.x = Class(...)` (statements of its own body, at any
    depth of `if`/`try`/`with`; nested functions are not the constructor's)."""
    params = {}
    for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
        if arg.annotation is not None:
            typed = names.annotation(arg.annotation)
            if typed:
                params[arg.arg] = typed
    found = []
    stack = list(reversed(func.body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.AnnAssign):
            attr = _self_attr(stmt.target)
            typed = names.annotation(stmt.annotation) if attr else None
            if attr and typed:
                found.append((attr, typed))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            attr = _self_attr(stmt.targets[0])
            typed = _value_type(stmt.value, params, names) if attr else None
            if attr and typed:
                found.append((attr, typed))
        elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
            for block in (stmt.body, getattr(stmt, "orelse", ()), getattr(stmt, "finalbody", ())):
                stack.extend(reversed(block))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(reversed(handler.body))
    return found


def _value_type(value, params: dict, names: _Names) -> str | None:
    if isinstance(value, ast.Name):
        return params.get(value.id)
    if isinstance(value, ast.Call):
        return names.qualified(value.func)
    return None


def _self_attr(target) -> str | None:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return None
