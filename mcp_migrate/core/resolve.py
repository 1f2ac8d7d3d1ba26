"""Name resolution through a file's imports, without LibCST's (costly) scope analysis.

A name is known when it was bound by an import (`import mcp.types as t`, `from mcp import types`),
by assigning an SDK object to it (`server = Server("x")`, `async with ClientSession(...) as s`), or
by an annotation (`ctx: Context`). Everything else is unknown, and an unknown name never matches
an SDK name: a user's `def list_roots()` or `sympy.roots` stays silent.

Module-level code sees bindings in source order; function bodies see the module's final
bindings (they run later), collected by a pre-pass over the top-level statements.
"""

from __future__ import annotations

from typing import NamedTuple, cast

import libcst as cst

from mcp_migrate.core.project_types import ProjectClass, definition
from mcp_migrate.core.sdk import (
    BASE_SESSION,
    CLIENT_CAPABILITIES,
    CLIENT_OWNERS,
    CLIENT_SESSION,
    FASTMCP,
    LOWLEVEL_SERVER,
    REQUEST_CONTEXT,
    SDK_PACKAGES,
    SERVER_APPS,
    SERVER_CONTEXTS,
    SERVER_SESSION,
    SPEC_ROOTS_TYPES,
    TOOL_SERVERS,
    in_package,
    mcp_module,
    mcp_named_module,
    sdk_symbol,
)
from mcp_migrate.core.sdk_api import TypeRef, api
from mcp_migrate.core.syntax import literal


class Binding(NamedTuple):
    """What a name means: an imported module or object (`imported`, its qualified name) or an
    instance of a known class (`instance`, the class's qualified name). A name bound to
    something unknown has no Binding (None)."""

    kind: str
    name: str

    @classmethod
    def imported(cls, qualified: str) -> Binding:
        return cls("imported", qualified)

    @classmethod
    def instance(cls, qualified: str | None) -> Binding | None:
        return cls("instance", qualified) if qualified else None

    @property
    def is_import(self) -> bool:
        return self.kind == "imported"

    @property
    def is_instance(self) -> bool:
        return self.kind == "instance"


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_ASYNC_CONTEXT_ENTERS = frozenset({"enter_async_context", "enter_context"})
#: `types = importlib.import_module("mcp.types")` binds a module as `import mcp.types as types`.
_IMPORT_MODULE = "importlib.import_module"
#: pytest fixture decorators: a test parameter named like a fixture of the file is what it gives.
_FIXTURE_DECORATORS = frozenset({"pytest.fixture", "pytest_asyncio.fixture"})
#: A server's decorators that register a function the SDK hands a context to, and the names a
#: context parameter goes by in the SDKs' documentation.
_REGISTRARS = frozenset({"tool", "resource", "prompt"})
_CONTEXT_PARAMETERS = frozenset({"ctx", "context"})
#: How many project classes a class's lineage walk reads (its bases' bases...; a cycle stops).
_MAX_LINEAGE = 12


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` as text, for Name/Attribute chains only."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def module_name(node: cst.Attribute | cst.Name) -> str:
    return dotted(node) or ""


class _Scope:
    __slots__ = ("names", "stars", "is_class", "attrs")

    def __init__(self, is_class: bool = False):
        self.names: dict = {}
        self.stars: list = []
        self.is_class = is_class
        #: For a class scope: `self.<attr>` -> qualified class name, from the class's methods.
        self.attrs: dict = {}


class Resolver:
    """Tracks bindings while the engine walks a module; rules ask it what names mean."""

    def __init__(self) -> None:
        self.module_now = _Scope()
        self.module_final = _Scope()
        self.scopes: list = []  # function and class scopes, innermost last
        self.imports_sdk = False
        #: The file imports an MCP module: an SDK, a host framework, or a project's own
        #: `*.mcp.*` implementation (known before the walk: every import, at any depth).
        self.imports_mcp = False
        #: The file imports a module named for MCP (`mcp_server.paths`, `app.tools_mcp`): a
        #: project's own MCP package, weaker evidence than `imports_mcp`.
        self.imports_mcp_named = False
        #: Every module an import statement names (`a.b` of `import a.b`, `.roots` of
        #: `from .roots import x`), at any depth: evidence of what the file is (core.sdk).
        self.imported_modules: list = []
        #: Names of functions/methods defined anywhere in this file (a user's own API).
        self.defined_functions: set = set()
        #: This file's pytest fixtures -> the qualified class of what each returns or yields:
        #: a test's parameter of that name is an instance of it (pytest injects it).
        self.fixtures: dict = {}
        self._prepassing = False
        #: The classes the module defines at its top level (from the pre-pass): every call of
        #: a file may ask (vocabulary.wrappers.instance_class), so they are collected once.
        self.top_level_classes: frozenset = frozenset()
        #: (project view, path) when the project's own classes are typed (`see_project`).
        self._project: tuple | None = None
        #: qualified name -> its ProjectClass or function result (None: not the project's).
        self._definitions: dict = {}

    def see_project(self, view, path: str) -> None:
        """Type the project's own classes and functions from the modules that define them
        (core.project_types, read through `view`): a project class's methods' results, its
        attributes, and the SDK class it subclasses. The engine asks it for files that mention
        MCP only (the other modules are read, once per view, for them alone)."""
        if path and not path.startswith("<"):
            self._project = (view, path)

    # ----- binding -------------------------------------------------------------------------
    def prepass(self, module: cst.Module) -> None:
        # While the pre-pass runs, names resolve against the bindings it has collected so far
        # (`client = Client(...)` after `from fastmcp import Client`), not the still-empty
        # source-order scope.
        self._prepassing = True
        self.top_level_classes = frozenset(s.name.value for s in module.body if isinstance(s, cst.ClassDef))
        try:
            self._prepass_block(module.body)
            self._note_nested_imports(module.body)
        finally:
            self._prepassing = False

    def _note_nested_imports(self, body) -> None:
        """Whether the file is MCP code is known before the walk: a function-local SDK import
        further down must not hide an earlier use. Statements only (no expressions): cheap."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            self._note_module(module_name(alias.name))
                    elif isinstance(small, cst.ImportFrom) and small.relative:
                        base = "." * len(small.relative) + (module_name(small.module) if small.module else "")
                        self.imported_modules.append(base)
                    elif isinstance(small, cst.ImportFrom) and small.module is not None:
                        self._note_module(module_name(small.module))
            else:
                for block in _statement_blocks(stmt):
                    self._note_nested_imports(block)

    def _prepass_block(self, body) -> None:
        scope = self.module_final
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        self._bind_import(small, scope)
                    elif isinstance(small, cst.Assign):
                        self._bind_assign(small, scope)
                    elif isinstance(small, cst.AnnAssign):
                        self._bind_annassign(small, scope)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                scope.names[stmt.name.value] = None
                if isinstance(stmt, cst.FunctionDef) and self._is_fixture(stmt):
                    made = self._fixture_type(stmt)
                    if made:
                        self.fixtures[stmt.name.value] = made
            elif isinstance(stmt, (cst.If, cst.Try, cst.With)) or type(stmt).__name__ == "TryStar":
                for block in _sub_blocks(stmt):
                    self._prepass_block(block)

    def _is_fixture(self, func: cst.FunctionDef) -> bool:
        """Decorated `@pytest.fixture` / `@pytest.fixture(...)` (pytest-asyncio's too)."""
        for decorator in func.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.qualified(expr) in _FIXTURE_DECORATORS:
                return True
        return False

    def _fixture_type(self, func: cst.FunctionDef) -> str | None:
        """The class a fixture gives: its return annotation, or the one constructor every
        `return`/`yield` of its own body (not nested functions) hands back."""
        if func.returns is not None:
            return self.annotation_type(func.returns.annotation)
        made = set()
        stack = list(getattr(func.body, "body", ()))
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    value: object = small.value if isinstance(small, cst.Return) else None
                    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
                        value = small.value.value
                    if value is not None:
                        binding = self._value_binding(value) if isinstance(value, cst.Call) else None
                        made.add(binding.name if binding is not None and binding.is_instance else None)
            elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                for block in _statement_blocks(stmt):
                    stack.extend(block)
        return made.pop() if len(made) == 1 else None

    def _current(self) -> _Scope:
        return self.scopes[-1] if self.scopes else self.module_now

    def _bind_import(self, node, scope: _Scope) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = module_name(alias.name)
                self._note_module(full)
                if alias.asname is not None:
                    target = alias.asname.name
                    if isinstance(target, cst.Name):
                        scope.names[target.value] = Binding.imported(full)
                else:
                    top = full.partition(".")[0]
                    scope.names[top] = Binding.imported(top)
            return
        # ImportFrom
        if node.relative:
            base = "." * len(node.relative) + (module_name(node.module) if node.module else "")
            self.imported_modules.append(base)
        else:
            base = module_name(node.module) if node.module else ""
            self._note_module(base)
        if isinstance(node.names, cst.ImportStar):
            scope.stars.append(base)
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            local = (
                alias.asname.name.value
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                else alias.name.value
            )
            # `from . import scope` is `.scope`, not `..scope` (the parent package's).
            joined = base + alias.name.value if base.endswith(".") else f"{base}.{alias.name.value}"
            scope.names[local] = Binding.imported(joined)

    def _note_module(self, full: str) -> None:
        if full:
            self.imported_modules.append(full)
        if full.partition(".")[0] in SDK_PACKAGES:
            self.imports_sdk = True
        if full and mcp_module(full):
            self.imports_mcp = True
        if full and mcp_named_module(full):
            self.imports_mcp_named = True

    def _value_binding(self, value: cst.BaseExpression) -> Binding | None:
        """What a name bound to `value` means: an instance of a known class, an alias, or unknown."""
        if isinstance(value, cst.Await):
            value = value.expression
            # session = await stack.enter_async_context(ClientSession(...))
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in _ASYNC_CONTEXT_ENTERS
                and value.args
            ):
                value = value.args[0].value
            else:
                return Binding.instance(self._awaited_type(value))
        if isinstance(value, cst.Call):
            module = self._imported_by_call(value)
            if module is not None:
                self._note_module(module)
                return Binding.imported(module)
            q = self._call_type(value)
            return Binding.instance(q)
        if isinstance(value, (cst.Name, cst.Attribute)):
            q = self.qualified(value)
            if q:
                return Binding.imported(q)
            t = self.instance_type(value)
            return Binding.instance(t)
        if isinstance(value, cst.IfExp):
            # `StatefulProxyClient if remote else ProxyClient`: the class both branches share.
            common = _common_class(self.qualified(value.body), self.qualified(value.orelse))
            return Binding.imported(common) if common else None
        return None

    def _imported_by_call(self, call: cst.Call) -> str | None:
        """The module `importlib.import_module("a.b")` loads: a literal, absolute name, no
        `package=` (a name computed at run time stays unknown)."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        name = literal(call.args[0].value)
        if not name or name.startswith(".") or self.qualified(call.func) != _IMPORT_MODULE:
            return None
        return name

    def _bind_assign(self, node: cst.Assign, scope: _Scope) -> None:
        binding = self._value_binding(node.value)
        placeholder = _is_placeholder(node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                previous = scope.names.get(name)
                if placeholder and previous is not None and previous.is_import:
                    # `try: from mcp import X` / `except ImportError: X = None` (or `= object`):
                    # the fallback exists for when the SDK is absent; where it is present, X is
                    # the SDK's.
                    continue
                scope.names[name] = binding

    def _bind_annassign(self, node: cst.AnnAssign, scope: _Scope) -> None:
        if isinstance(node.target, cst.Name):
            t = self.annotation_type(node.annotation.annotation)
            if t is None and node.value is not None:
                scope.names[node.target.value] = self._value_binding(node.value)
            else:
                scope.names[node.target.value] = Binding.instance(t)

    # ----- traversal hooks (called by the engine) ---------------------------------------------
    # The engine calls these for every node of every candidate file: dispatch on the exact
    # type (LibCST's node classes are ABCs, so `isinstance` chains cost most of a traversal).
    # (The casts say what the exact-type test above each proved: mypy follows `type(node) is`,
    # not a test of `kind`, and calling `type` once per test would cost every node of a walk.)
    def on_visit(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            self._bind_import(cast("cst.Import | cst.ImportFrom", node), self._current())
        elif kind is cst.FunctionDef:
            node = cast(cst.FunctionDef, node)
            self.defined_functions.add(node.name.value)
            scope = _Scope()
            self._bind_params(node.params, scope)
            self._bind_tool_context(node, scope)
            if self.fixtures and isinstance(node, cst.FunctionDef):
                if node.name.value.startswith("test") or node.name.value in self.fixtures:
                    self._bind_fixtures(node.params, scope)
            self.scopes.append(scope)
        elif kind is cst.Lambda:
            scope = _Scope()
            self._bind_params(cast(cst.Lambda, node).params, scope)
            self.scopes.append(scope)
        elif kind is cst.ClassDef:
            scope = _Scope(is_class=True)
            self._collect_self_attrs(cast(cst.ClassDef, node).body.body, scope)
            self.scopes.append(scope)
        elif kind in _COMPREHENSIONS:
            # `[types.X() for types in regs]`: the loop variables shadow the file's imports.
            scope = _Scope()
            comp: cst.CompFor | None = cast("cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp", node).for_in
            while comp is not None:
                for name in _target_names(comp.target):
                    scope.names[name] = None
                comp = comp.inner_for_in
            self.scopes.append(scope)

    def on_leave(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind in _COMPREHENSIONS:
            self.scopes.pop()
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            self.scopes.pop()
            self._current().names[cast("cst.FunctionDef | cst.ClassDef", node).name.value] = None
        elif kind is cst.Lambda:
            self.scopes.pop()
        elif kind is cst.Assign:
            self._bind_assign(cast(cst.Assign, node), self._current())
        elif kind is cst.AnnAssign:
            self._bind_annassign(cast(cst.AnnAssign, node), self._current())
        elif kind is cst.WithItem:
            item = cast(cst.WithItem, node)
            if item.asname is not None and isinstance(item.asname.name, cst.Name):
                self._current().names[item.asname.name.value] = self._value_binding(item.item)
        elif kind is cst.For:
            for name in _target_names(cast(cst.For, node).target):
                self._current().names[name] = None

    def _collect_self_attrs(self, body, scope: _Scope) -> None:
        """`self.x: ServerSession = ...` or `self.x = ServerSession(...)` anywhere in the class's
        methods types `self.x` for the whole class (statements only, nested classes excluded)."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._note_self_attr(small, scope)
            elif not isinstance(stmt, cst.ClassDef):
                for block in _statement_blocks(stmt):
                    self._collect_self_attrs(block, scope)

    def _note_self_attr(self, small, scope: _Scope) -> None:
        if isinstance(small, cst.AnnAssign):
            attr = _self_attr(small.target)
            if attr is not None:
                found = self.annotation_type(small.annotation.annotation)
                if found:
                    scope.attrs[attr] = found
        elif isinstance(small, cst.Assign) and isinstance(small.value, (cst.Call, cst.Await)):
            bound = self._value_binding(small.value)
            if bound is not None and bound.is_instance:
                for target in small.targets:
                    attr = _self_attr(target.target)
                    if attr is not None:
                        scope.attrs.setdefault(attr, bound.name)

    def _bind_params(self, params: cst.Parameters, scope: _Scope) -> None:
        every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                every.append(star)
        for param in every:
            t = self.annotation_type(param.annotation.annotation) if param.annotation else None
            scope.names[param.name.value] = Binding.instance(t)

    def _bind_tool_context(self, func: cst.FunctionDef, scope: _Scope) -> None:
        """A tool (resource, prompt) of a known server whose `ctx` or `context` parameter has no
        annotation: its calls are that server's Context's. The SDKs inject the context by
        annotation only, so at run time such a parameter is a tool argument and the code is
        broken; what it calls on it (`await ctx.list_roots()`) still says what it means to do."""
        unannotated = [
            p.name.value for p in func.params.params if p.annotation is None and p.name.value in _CONTEXT_PARAMETERS
        ]
        if not unannotated or not self.imports_sdk:
            return
        for decorator in func.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if not isinstance(expr, cst.Attribute) or expr.attr.value not in _REGISTRARS:
                continue
            server = self.instance_type(expr.value)
            if server is not None and sdk_symbol(server) in TOOL_SERVERS:
                made = api().return_type(server, "get_context")
                context = TypeRef.parse(made).head if made else f"{server.rpartition('.')[0]}.Context"
                for name in unannotated:
                    scope.names[name] = Binding.instance(context)
                return

    def _bind_fixtures(self, params: cst.Parameters, scope: _Scope) -> None:
        """A test's (or fixture's) unannotated parameter named like a fixture of this file."""
        for param in list(params.params) + list(params.kwonly_params):
            made = self.fixtures.get(param.name.value) if param.annotation is None else None
            if made:
                scope.names[param.name.value] = Binding.instance(made)

    # ----- queries --------------------------------------------------------------------------
    def lookup(self, name: str) -> Binding | None:
        if self._prepassing:
            if name in self.module_final.names:
                return self.module_final.names[name]
            return _star_binding(self.module_final, name)
        innermost = True
        for scope in reversed(self.scopes):
            if scope.is_class and not innermost:
                continue
            innermost = False
            if name in scope.names:
                return scope.names[name]
            star = _star_binding(scope, name)
            if star:
                return star
        if self.scopes and name in self.module_final.names:
            return self.module_final.names[name]
        if name in self.module_now.names:
            return self.module_now.names[name]
        return _star_binding(self.module_now, name) or _star_binding(self.module_final, name)

    def module_imports(self) -> list:
        """Qualified names of everything imported at module level (any depth of if/try)."""
        return [b.name for b in self.module_final.names.values() if b is not None and b.is_import]

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name an expression refers to through imports, e.g. `mcp.types.Root`."""
        if isinstance(expr, cst.Name):
            b = self.lookup(expr.value)
            return b.name if b and b.is_import else None
        if isinstance(expr, cst.Attribute):
            base = self.qualified(expr.value)
            return f"{base}.{expr.attr.value}" if base else None
        return None

    def instance_type(self, expr: cst.BaseExpression) -> str | None:
        """The qualified class name of what an expression evaluates to, when known."""
        if isinstance(expr, cst.Name):
            b = self.lookup(expr.value)
            return b.name if b and b.is_instance else None
        if isinstance(expr, cst.Call):
            return self._call_type(expr)
        if isinstance(expr, cst.Attribute):
            return self._attribute_type(expr)
        if isinstance(expr, cst.Await):
            return self._awaited_type(expr.expression)
        return None

    def _awaited_type(self, value: cst.BaseExpression) -> str | None:
        """What awaiting a call of a project coroutine gives: its return annotation (an SDK
        coroutine's result stays unknown, as it always was)."""
        if self._project is None or not isinstance(value, cst.Call):
            return None
        if isinstance(value.func, cst.Attribute):
            return self._project_method_type(value.func, awaited=True)
        made = self._project_function(self.qualified(value.func))
        return made[0] if made is not None and made[1] else None

    def _call_type(self, call: cst.Call) -> str | None:
        """A constructor's class, or the Context a `get_context()` factory returns."""
        q = self.qualified(call.func)
        if q is not None:
            package, _, symbol = q.rpartition(".")
            if symbol == "get_context" and sdk_symbol(q):
                # fastmcp.server.dependencies.get_context() -> fastmcp's Context
                return f"{FASTMCP}.Context" if in_package(q, FASTMCP) else f"{package}.Context"
            made = self._project_function(q)
            if made is not None:
                return made[0] if not made[1] else None  # unawaited, a coroutine gives none
            return q
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "get_context":
            owner = self.instance_type(call.func.value)  # mcp.get_context() on a FastMCP instance
            if owner is not None and sdk_symbol(owner) in SERVER_APPS:
                return f"{owner.rpartition('.')[0]}.Context"
        if isinstance(call.func, cst.Attribute) and self._project is not None:
            return self._project_method_type(call.func, awaited=False)
        return None

    def _attribute_type(self, expr: cst.Attribute) -> str | None:
        """`ctx.session`, `server.request_context` and friends: what the SDKs' own API types
        (core.sdk_api), then the shapes known by name."""
        typed = self._sdk_attribute_type(expr)
        if typed is None and self._project is not None:
            typed = self._project_attribute_type(expr)
        if typed is not None:
            return typed
        attr = expr.attr.value
        if attr == "session":
            owner = sdk_symbol(self.instance_type(expr.value))
            if owner in SERVER_CONTEXTS:
                return SERVER_SESSION
            if owner in CLIENT_OWNERS:
                return CLIENT_SESSION
            return BASE_SESSION if self.imports_sdk else None
        if attr == "request_context":
            owner = sdk_symbol(self.instance_type(expr.value))
            if owner in SERVER_APPS or owner in SERVER_CONTEXTS:
                return REQUEST_CONTEXT
        if attr in ("capabilities", "client_capabilities") and self.imports_sdk:
            # `caps = ctx.session.client_params.capabilities`. An initialize result's
            # `.capabilities` is a ServerCapabilities, which has no `roots` to confuse.
            return CLIENT_CAPABILITIES
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            for scope in reversed(self.scopes):
                if scope.is_class:
                    return scope.attrs.get(attr)
        if attr in ("_mcp_server", "_lowlevel_server"):
            if sdk_symbol(self.instance_type(expr.value)) in TOOL_SERVERS:
                return LOWLEVEL_SERVER
        return None

    def _sdk_attribute_type(self, expr: cst.Attribute) -> str | None:
        """The type the SDKs give an attribute chain from its innermost typed receiver
        (`context.fastmcp_context`, `ctx.request_context.session`), when every SDK version
        agrees. The whole chain is asked at once, so a generic step keeps its arguments
        (fastmcp 2's `request_context` is a `RequestContext[ServerSession, ...]`)."""
        attrs = []
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Attribute):
            attrs.append(root.attr.value)
            root = root.value
            owner = None if isinstance(root, cst.Attribute) and _self_attr(root) is None else self.instance_type(root)
            if owner is not None and self._project is not None and owner.partition(".")[0] not in SDK_PACKAGES:
                owner = self.sdk_class(owner, attrs[-1])  # a project subclass's inherited attribute
            if owner is not None and owner.partition(".")[0] in SDK_PACKAGES:
                found = api().chain_type(owner, reversed(attrs))
                return TypeRef.parse(found).head if found else None
        return None

    def sdk_instance(self, expr: cst.BaseExpression, member: str | None = None) -> str | None:
        """The SDK class name of `expr` (`"ClientSession"`), or None; a project class that
        subclasses one is that SDK class, for a `member` it inherits (one it defines itself is
        the project's: its body decides)."""
        return sdk_symbol(self.sdk_class(self.instance_type(expr), member))

    # ----- the project's own classes (core.project_types) -----------------------------------
    def sdk_class(self, qualified: str | None, member: str | None = None) -> str | None:
        """`qualified` when it names an SDK class; the SDK class a project class subclasses
        (through its project bases), unless the project's classes on the way define `member`."""
        if not qualified or qualified.partition(".")[0] in SDK_PACKAGES:
            return qualified
        classes, sdk = self._lineage(qualified)
        if not sdk or (member and any(member in c.methods or member in c.attrs for c in classes)):
            return None
        return sdk[0]

    def project_class(self, qualified: str | None) -> ProjectClass | None:
        """The project class `qualified` names (a module of the project defines it), or None."""
        found = self._definition(qualified)
        return found if isinstance(found, ProjectClass) else None

    def _project_function(self, qualified: str | None) -> tuple | None:
        found = self._definition(qualified)
        return found if isinstance(found, tuple) and not isinstance(found, ProjectClass) else None

    def _definition(self, qualified: str | None):
        if self._project is None or not qualified or qualified.partition(".")[0] in SDK_PACKAGES:
            return None
        if qualified not in self._definitions:
            view, path = self._project
            self._definitions[qualified] = definition(view, path, qualified)
        return self._definitions[qualified]

    def _lineage(self, qualified: str) -> tuple:
        """(the project classes `qualified` is: itself, then its project bases, nearest first;
        the SDK classes among their bases, in the same order)."""
        classes: list = []
        sdk: list = []
        queue: list = [qualified]
        seen: set = set()
        while queue and len(seen) < _MAX_LINEAGE:
            name = queue.pop(0)
            if name in seen:
                continue
            seen.add(name)
            if name.partition(".")[0] in SDK_PACKAGES:
                sdk.append(name)
                continue
            found = self.project_class(name)
            if found is not None:
                classes.append(found)
                queue.extend(found.bases)
        return classes, sdk

    def _project_method_type(self, func: cst.Attribute, awaited: bool) -> str | None:
        """What a project class's method returns (awaited, for a coroutine), by its annotation."""
        owner = self.instance_type(func.value)
        if not owner or owner.partition(".")[0] in SDK_PACKAGES:
            return None
        name = func.attr.value
        for cls in self._lineage(owner)[0]:
            if name in cls.returns:
                made, coroutine = cls.returns[name]
                return made if coroutine == awaited else None
            if name in cls.methods:
                return None  # defined without an annotation
        return None

    def _project_attribute_type(self, expr: cst.Attribute) -> str | None:
        """`session.connector`: the type a project class (or a project base) gives an attribute
        in `__init__`, its body or a property; an attribute it inherits from an SDK class is
        the SDK's (`_sdk_attribute_type`)."""
        owner = self.instance_type(expr.value)
        if not owner or owner.partition(".")[0] in SDK_PACKAGES:
            return None
        for cls in self._lineage(owner)[0]:
            if expr.attr.value in cls.attrs:
                return cls.attrs[expr.attr.value]
        return None

    def sdk_name(self, expr: cst.BaseExpression, packages=SDK_PACKAGES) -> str | None:
        """The SDK symbol an expression names (`"ListRootsRequest"`), or None."""
        return sdk_symbol(self.qualified(expr), packages)

    def mcp_name(self, expr: cst.BaseExpression) -> str | None:
        """The symbol an expression names when it comes from any MCP implementation: an SDK, a
        host framework, a project's own `*.mcp.*` protocol module, or (in MCP code) a relative
        import. A project re-implementing the protocol has its own ListRootsRequest."""
        q = self.qualified(expr)
        if not q:
            return None  # a local object's attribute (`types.ListRootsRequest` of a parameter) is not resolved
        symbol = q.rpartition(".")[2]
        if symbol in SPEC_ROOTS_TYPES:  # the spec's Roots types, whatever module they come from
            return symbol
        if mcp_module(q) or (q.startswith(".") and self.imports_mcp):
            return symbol
        return None

    def annotation_type(self, ann: cst.BaseExpression) -> str | None:
        if isinstance(ann, (cst.Name, cst.Attribute)):
            return self.qualified(ann)
        if isinstance(ann, cst.Subscript):
            outer = self.qualified(ann.value)
            elements = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
            if outer in ("typing.Optional", "typing.Annotated", "typing_extensions.Annotated") and elements:
                return self.annotation_type(elements[0])
            if outer == "typing.Union":
                found = [t for t in (self.annotation_type(e) for e in elements) if t]
                return found[0] if len(found) == 1 else None
            return outer
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
            left, right = self.annotation_type(ann.left), self.annotation_type(ann.right)
            return left if right is None else right if left is None else None
        if isinstance(ann, cst.SimpleString):
            text = ann.evaluated_value
            if not isinstance(text, str):  # b"..." is no annotation (LibCST would raise: None)
                return None
            try:
                inner = cst.parse_expression(text)
            except Exception:
                return None
            return self.annotation_type(inner)
        return None


def _common_class(first: str | None, second: str | None) -> str | None:
    """The class two SDK names have in common when one derives from the other (or they are
    one), else None."""
    if not first or not second:
        return None
    if first == second or api().is_subclass(first, second):
        return second
    return first if api().is_subclass(second, first) else None


def _star_binding(scope: _Scope, name: str) -> Binding | None:
    for mod in scope.stars:
        if mod.partition(".")[0] in SDK_PACKAGES:
            return Binding.imported(f"{mod}.{name}")
    return None


def _is_placeholder(value: cst.BaseExpression) -> bool:
    """`None` or `object`: what an ImportError fallback binds in place of a missing import."""
    return isinstance(value, cst.Name) and value.value in ("None", "object")


def _self_attr(target: cst.BaseExpression) -> str | None:
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return target.attr.value
    return None


def _statement_blocks(stmt):
    """Every statement block directly inside a compound statement (functions and classes too)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [stmt.body.body] if hasattr(stmt.body, "body") else []
    if isinstance(stmt, (cst.For, cst.While)):
        blocks = [stmt.body.body] if hasattr(stmt.body, "body") else []
        if stmt.orelse is not None:
            blocks.append(stmt.orelse.body.body)
        return blocks
    if isinstance(stmt, (cst.If, cst.Try, cst.With)) or type(stmt).__name__ == "TryStar":
        return _sub_blocks(stmt)
    return []


def _target_names(target: cst.BaseExpression):
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _target_names(el.value)


def _sub_blocks(stmt):
    """The statement blocks directly inside a compound statement (for the pre-pass)."""
    blocks = [stmt.body.body] if hasattr(stmt.body, "body") else []
    orelse = getattr(stmt, "orelse", None)
    while orelse is not None:
        blocks.append(orelse.body.body)
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    for handler in getattr(stmt, "handlers", ()):
        blocks.append(handler.body.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        blocks.append(final.body.body)
    return blocks
