"""A team's own wrappers (`[tool.mcp-migrate.extend-apis]`) reported like the SDK's APIs.

`RT001 = ["myapp.mcp.get_client_roots"]` makes every call that resolves, through the file's
imports, to `myapp.mcp.get_client_roots` an RT001 finding."""

from __future__ import annotations

import os

import libcst as cst

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.findings import Via
from mcp_migrate.core.messages import Message
from mcp_migrate.core.modules import absolute
from mcp_migrate.core.project_view import ProjectView, read
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.sdk import SDK_PACKAGES
from mcp_migrate.core.syntax import all_params, iter_nodes
from mcp_migrate.vocabulary.imported_asks import module_source, reexport_sources
from mcp_migrate.vocabulary.wrappers_screen import (
    WrapperCallsScreen,
    wrapper_targets,
)

#: "`myapp.get_roots` wraps roots-request, configured in extend-apis" (help: the rule's summary).
MSG = Message(
    "`{name}` wraps {rule}, configured in extend-apis",
    "{summary}; migrate the wrapper and its callers as `mcp-migrate explain {code}` says",
)


class WrapperCalls(WrapperCallsScreen, Rule):
    """Calls that resolve to a configured wrapper, reported as the rule the wrapper stands for.
    Selected by mcp_migrate.api whenever extend-apis names a wrapper of a selected rule."""

    def __init__(self, context) -> None:
        super().__init__(context)
        self.targets = wrapper_targets(context.settings, context.data)

    def visit_Call(self, node: cst.Call) -> None:
        qname = self.resolver.qualified(node.func)
        code = self.targets.get(qname) if qname else None
        if code is not None:
            info = load_catalog()[code]
            message = MSG.format(name=qname, rule=info.name, summary=info.summary.rstrip("."), code=code)
            self.context.report(code, node, message)


def marker_arguments(annotation: cst.BaseExpression) -> list:
    """What is handed to the markers written in an annotation (`request_roots` in
    `Annotated[ListRootsResult, Resolve(request_roots)]`, `get_dirs` in `Depends(get_dirs)`):
    functions a framework runs for each call of the function whose parameter it annotates."""
    return [arg.value for call in iter_nodes(annotation) if isinstance(call, cst.Call) for arg in call.args]


def function_key(ancestors: list) -> tuple | None:
    """(class name or None, function name) of the outermost function around the node: a
    method directly in a class body, or a module-level function (closures count as their
    enclosing function)."""
    for i, node in enumerate(ancestors):
        if isinstance(node, cst.FunctionDef):
            owner = ancestors[i - 2] if i >= 2 else None
            return (owner.name.value if isinstance(owner, cst.ClassDef) else None, node.name.value)
    return None


def callee_key(func, ancestors: list, resolver, methods_only: bool = False) -> tuple | None:
    """The function key a reference names: `helper` (a same-file function: bound by no import)
    or `self.helper` / `cls.helper` (a method of the enclosing class)."""
    if isinstance(func, cst.Name) and not methods_only:
        # A name bound by an import or to an instance is not a same-file function.
        return (None, func.value) if resolver.lookup(func.value) is None else None
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        owner = function_key(ancestors)
        if owner is not None and owner[0] is not None:
            return (owner[0], func.attr.value)
        return None
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and not methods_only:
        cls = instance_class(func.value.value, ancestors, resolver.top_level_classes)
        if cls is not None:
            return (cls, func.attr.value)
    return None


def instance_class(name: str, ancestors: list, classes: frozenset) -> str | None:
    """The same-file class `name` holds an instance of, in the functions around the node
    (innermost first): a parameter annotated with it (`manager: RootsManager`), or one plain
    assignment from its constructor (`cfg = RootsConfig(...)`, a closure reading it too).
    `classes`: the classes the module defines at its top level (Resolver.top_level_classes)."""
    module = ancestors[0] if ancestors and isinstance(ancestors[0], cst.Module) else None
    if module is None or not classes:
        return None
    for func in reversed([a for a in ancestors if isinstance(a, cst.FunctionDef)]):
        for param in all_params(func.params):
            if param.name.value == name and param.annotation is not None:
                ann = param.annotation.annotation
                return ann.value if isinstance(ann, cst.Name) and ann.value in classes else None
        for stmt in getattr(func.body, "body", ()):
            for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value == name
                    and isinstance(small.value, cst.Call)
                    and isinstance(small.value.func, cst.Name)
                ):
                    return small.value.func.value if small.value.func.value in classes else None
    return None


def definition_key(ancestors: list) -> tuple | None:
    """The key of the FunctionDef at ancestors[-1], when it is a module-level function or a
    method directly in a class body (what `callee_key` can name)."""
    node = ancestors[-1]
    parent = ancestors[-2] if len(ancestors) >= 2 else None
    if isinstance(parent, cst.Module):
        return (None, node.name.value)
    owner = ancestors[-3] if len(ancestors) >= 3 else None
    if isinstance(owner, cst.ClassDef):
        return (owner.name.value, node.name.value)
    return None


class ImportedHelpers:
    """One call away across modules: `resolve_roots(session)` imported from the project's own
    `app.binding`, or `proxy.refresh_roots()` on an instance of a class imported from one,
    where that function's body asks for roots. The module is found beside the calling file
    (its package directories upwards), screened by bytes, and analysed by the same rule once
    per project view (core.project_view: the run's); modules it imports in turn are not
    followed (one call away, no further)."""

    #: The view's table: (module file, mtime, size, tokens) -> function keys whose body holds a
    #: finding of the rule; and the one whose entry says an analysis is under way in the view.
    _KEYS, _ANALYSING = "imported helpers: keys", "imported helpers: analysing"

    def __init__(self, path: str, tokens: tuple, analyse, max_size: int, view: ProjectView) -> None:
        #: The run's project view: where the analyses are kept, and whether one is under way.
        self.view = view
        self.path = path
        self.tokens = tokens
        self.analyse = analyse  # (path, data) -> set of function keys
        #: max-file-size: a larger module is not read (a 6 GB one would exhaust memory).
        self.max_size = max_size
        #: target -> answer, for this file
        self._answers: dict = {}
        #: answer (a helper's qualified name) -> (its module's absolute path, its function key)
        self.origins: dict = {}

    @property
    def _analysing(self) -> bool:
        """Whether this view is analysing a helper module now (its own calls are not followed)."""
        return bool(self.view.table(self._ANALYSING))

    def helper(self, call: cst.Call, resolver) -> str | None:
        """The qualified name of the imported helper `call` runs, when it asks (else None)."""
        if self._analysing or not self.path or self.path.startswith("<"):
            return None
        return self._found(imported_target(call.func, resolver))

    def defined(self, qualified: str | None) -> str | None:
        """`qualified` (a project class or function named through an import: `RootsManager`
        from `.session`), when the analysis of its module keys it (else None)."""
        if self._analysing or not self.path or self.path.startswith("<"):
            return None
        if not qualified or "." not in qualified.lstrip("."):
            return None
        module, _, name = qualified.rpartition(".")
        if module.lstrip(".").partition(".")[0] in SDK_PACKAGES and not module.startswith("."):
            return None
        return self._found((module, (None, name)))

    def via(self, code: str, helper: str) -> Via | None:
        """What a call of `helper` (an answer of `helper` or `defined`) stands for: the `code`
        finding of that function in its module (core.callers)."""
        origin = self.origins.get(helper)
        return Via(code, origin[0], *origin[1]) if origin is not None else None

    def _found(self, target) -> str | None:
        """`target`'s qualified name when its module keys it; once per target in a file (a file
        names the same few types and helpers again and again)."""
        if target is None:
            return None
        if target not in self._answers:
            self._answers[target] = self._look_up(target)
        return self._answers[target]

    def _look_up(self, target) -> str | None:
        module, key = target
        source = module_source(self.path, module, self.view)
        if source is None:
            return None
        if key not in self._keys(source):
            # A package re-exporting the name (`from .helpers import get_dirs` in __init__.py):
            # the module that defines it, one hop (a re-export is not a call).
            source = _reexported_from(source, key[0] or key[1], self.view)
            if source is None or key not in self._keys(source):
                return None
        shown = absolute(self.view, module, self.path) or module if module.startswith(".") else module
        name = f"{shown}.{'.'.join(k for k in key if k)}"
        self.origins[name] = (os.path.abspath(source), key)
        return name

    def publish(self, data: bytes, keys: set) -> None:
        """The keys this file's own check found (the rule ran on it with every other rule): what
        the analysis of this module alone would give a caller checked later in this process,
        which then need not parse it again. Only for the file as it is on disk (same size and
        mtime, as `_keys` keys it), and never from inside an analysis."""
        if self._analysing or not self.path or self.path.startswith("<"):
            return
        source = os.path.abspath(self.path)
        try:
            stat = os.stat(source)
        except OSError:
            return
        if stat.st_size == len(data) and (not self.max_size or stat.st_size <= self.max_size):
            self.view.publish(self._KEYS, (source, stat.st_mtime_ns, stat.st_size, self.tokens), set(keys))

    def _keys(self, source: str) -> set:
        # Keyed by size and mtime too: a long-lived view sees the module change; and by the
        # screen's tokens, which tell one rule's analysis from another's.
        return self.view.per_file(
            self._KEYS,
            source,
            self.tokens,
            lambda stat: self._analysed(source, stat),
            set(),
            handed=True,
            published=True,
        )

    def _analysed(self, source: str, stat) -> set:
        limit = self.max_size
        data = read(source, stat, limit) or b""
        if limit and len(data) > limit:
            data = b""
        if not any(token in data for token in self.tokens):
            return set()
        analysing = self.view.table(self._ANALYSING)
        analysing[None] = True
        try:
            return self.analyse(source, data)
        except Exception:  # a module we cannot parse asks nothing we can see
            return set()
        finally:
            analysing.clear()


def framework_via(code: str, path: str, qualified: str, view: ProjectView) -> Via | None:
    """What `await list_roots()` of a framework's module stands for, when that module is one of
    the project's beside `path`: the `code` finding at its own `def list_roots` (core.callers)."""
    if not path or path.startswith("<"):
        return None
    source = module_source(path, qualified.rpartition(".")[0], view)
    return Via(code, os.path.abspath(source), None, "list_roots") if source else None


def _reexported_from(source: str, name: str, view: ProjectView) -> str | None:
    """The file a module imports `name` from (`from .helpers import name`, the parenthesised
    form too), if any."""
    found = reexport_sources(source, lambda word: word == name, view)
    return found[0] if found else None


def imported_target(func, resolver) -> tuple | None:
    """(module, function key) a call's callee names through the file's imports: a function
    imported from a project module (absolutely or relatively), or a method on an instance of an
    imported class. SDK names are not followed."""
    qualified = resolver.qualified(func)
    if qualified and "." in qualified.lstrip("."):
        module, _, name = qualified.rpartition(".")
        if module.lstrip(".").partition(".")[0] not in SDK_PACKAGES or module.startswith("."):
            return module, (None, name)
    if isinstance(func, cst.Attribute):
        owner = resolver.instance_type(func.value)
        if owner and "." in owner.lstrip("."):
            module, _, cls = owner.rpartition(".")
            if module.partition(".")[0] not in SDK_PACKAGES:
                return module, (cls, func.attr.value)
    return None
