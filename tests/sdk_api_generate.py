"""Write `mcp_migrate/core/sdk_api.json`, the MCP SDKs' own API as the rules need it, from the
SDKs' sources (`python tests/sdk_api_generate.py`; `--install` first makes the scratch venvs).

Why a generator and not a list: the tool typed receivers from the few names someone wrote into
`core/sdk.py`, so `MiddlewareContext.fastmcp_context.list_roots()` was missed though the SDK
types that attribute. The SDKs know their types; this script reads them (the standard library's
`ast`: no import of an SDK, no LibCST) from scratch venvs holding each version in `SOURCES`, and
keeps only what typing a receiver needs: for each public class of the roles the rules ask about
(sessions, contexts, clients, servers, peers, connections, middleware contexts) and each class
that touches Roots, its names (re-exports), bases, generic parameters, attribute and property
types, method return types, and which members have Roots semantics (asks, notifies, provides,
handles), with the positional index of a Roots parameter (the change at mcp 1.10). Every fact
carries the versions it holds in. The file is generated, never edited by hand;
tests/test_sdk_api.py checks it against a fresh run when the venvs exist.

Usage: python tests/sdk_api_generate.py [--envs DIR] [--install] [--check] [--output FILE]
(DIR defaults to $MCP_MIGRATE_SDK_ENVS, else /tmp/sdk-envs; one venv per source under it).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from mcp_migrate.core.sdk_api import SdkApi, TypeRef  # noqa: E402  (the loader's reading of types, reused)

OUTPUT = ROOT / "mcp_migrate" / "core" / "sdk_api.json"
DEFAULT_ENVS = "/tmp/sdk-envs"


class Source(NamedTuple):
    """One SDK version: its tag in the data file, its venv's folder name, what pip installs
    there (without dependencies: only the sources are read), the packages read, and the source
    whose names its imports of another SDK package mean (fastmcp 2 and 3 run on mcp 1.x,
    fastmcp 4 on mcp 2)."""

    tag: str
    env: str
    requirements: tuple
    packages: tuple
    underneath: str = ""


#: mcp 1.9.4 is the last release before `elicitation_callback` moved `list_roots_callback` from
#: positional index 4 to 5; 1.10.1 the first 1.10 line's newest; then the newest of each line.
SOURCES = (
    Source("mcp 1.9.4", "mcp-1.9", ("mcp==1.9.4",), ("mcp",)),
    Source("mcp 1.10.1", "mcp-1.10", ("mcp==1.10.1",), ("mcp",)),
    Source("mcp 1.30.0", "mcp-1", ("mcp==1.30.0",), ("mcp",)),
    Source("mcp 2.3.0", "mcp-2", ("mcp==2.3.0", "mcp-types==2.3.0"), ("mcp", "mcp_types")),
    Source("fastmcp 2.14.7", "fastmcp-2", ("fastmcp==2.14.7",), ("fastmcp",), "mcp 1.30.0"),
    Source("fastmcp 3.4.11", "fastmcp-3", ("fastmcp==3.4.11", "fastmcp-slim==3.4.11"), ("fastmcp",), "mcp 1.30.0"),
    Source("fastmcp 4.2.3", "fastmcp-4", ("fastmcp==4.2.3", "fastmcp-slim==4.2.3"), ("fastmcp",), "mcp 2.3.0"),
)
SDK_ROOTS = ("mcp", "mcp_types", "fastmcp")

#: Classes of these roles are kept whatever they hold: what a receiver can be.
ROLE_SUFFIXES = ("Session", "Context", "Client", "Server", "Peer", "Connection", "FastMCP", "SessionGroup")
#: Module path parts whose classes no Roots question reaches (OAuth contexts and clients, the
#: command line's deploy clients): left out to keep the file small.
SKIPPED_PARTS = frozenset({"auth", "cli"})
#: Names that make a class a Roots type (kept with its attributes).
ROOTS_WORDS = ("Root",)
#: What a method body refers to when it asks for roots or says they changed.
ASK_MARKS = frozenset({"ListRootsRequest", "roots/list"})
NOTIFY_MARKS = frozenset({"RootsListChangedNotification", "notifications/roots/list_changed"})
#: Parameter annotations that make a parameter a roots provider.
PROVIDER_TYPES = frozenset({"ListRootsFnT", "RootsList", "RootsHandler"})
PROVIDER_PARAMETERS = frozenset({"list_roots_callback"})
HANDLER_PARAMETERS = frozenset({"on_roots_list_changed"})
_UNWRAP = frozenset({"typing.Optional", "typing.Annotated", "typing_extensions.Annotated", "typing.Final"})
_UNION = frozenset({"typing.Union"})
_GENERIC = frozenset({"typing.Generic", "typing.Protocol", "typing_extensions.Protocol"})
_TYPEVAR = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})


# ----- reading one source ---------------------------------------------------------------------
@dataclass
class Module:
    """One module's top-level names: what each local name is bound to."""

    name: str
    is_package: bool
    tree: ast.Module
    #: local name -> ("import", qualified) | ("class", None) | ("typevar", None)
    names: dict = field(default_factory=dict)
    stars: list = field(default_factory=list)
    exported: list | None = None


@dataclass
class Klass:
    """A class as read: its node and module; facts are worked out later."""

    qname: str
    module: Module
    node: ast.ClassDef


def site_packages(env: Path) -> Path:
    found = sorted(env.glob("lib/python*/site-packages"))
    if not found:
        raise SystemExit(f"no site-packages under {env}: run with --install")
    return found[0]


def read_modules(site: Path, packages: tuple) -> dict:
    modules = {}
    for package in packages:
        for path in sorted((site / package).rglob("*.py")):
            parts = list(path.relative_to(site).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            name = ".".join(parts)
            tree = ast.parse(path.read_bytes(), str(path))
            module = Module(name, is_package, tree)
            _bind_top_level(module, tree.body)
            modules[name] = module
    return modules


def _bind_top_level(module: Module, body) -> None:
    """Imports, classes, TypeVars and `__all__` at module level, at any depth of if/try
    (`if TYPE_CHECKING:` imports are how the SDKs name their annotations' types)."""
    for stmt in body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    module.names[alias.asname] = ("import", alias.name)
                else:
                    top = alias.name.partition(".")[0]
                    module.names[top] = ("import", top)
        elif isinstance(stmt, ast.ImportFrom):
            base = _absolute(module, stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    module.stars.append(base)
                else:
                    module.names[alias.asname or alias.name] = ("import", f"{base}.{alias.name}")
        elif isinstance(stmt, ast.ClassDef):
            module.names[stmt.name] = ("class", None)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if not isinstance(target, ast.Name) or stmt.value is None:
                    continue
                if target.id == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                    module.exported = [e.value for e in stmt.value.elts if isinstance(e, ast.Constant)]
                elif isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func) in ("TypeVar", "typing.TypeVar"):
                    bound = next((k.value for k in stmt.value.keywords if k.arg == "bound"), None)
                    module.names[target.id] = ("typevar", bound)
                elif isinstance(stmt.value, (ast.Name, ast.Attribute)):
                    module.names[target.id] = ("alias", _dotted(stmt.value))
        elif isinstance(stmt, (ast.If, ast.Try)) or type(stmt).__name__ == "TryStar":
            blocks = [stmt.body, stmt.orelse]
            blocks += [h.body for h in getattr(stmt, "handlers", ())]
            blocks.append(getattr(stmt, "finalbody", []))
            for block in blocks:
                _bind_top_level(module, block)


def _absolute(module: Module, name: str | None, level: int) -> str:
    if not level:
        return name or ""
    parts = module.name.split(".")
    if not module.is_package:
        parts.pop()
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _dotted(expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr}"
    return None


class Names:
    """Qualified names in one source: a module's local name followed through imports and
    re-exports to where it is defined."""

    def __init__(self, modules: dict, underneath: Names | None = None):
        self.modules = modules
        self.underneath = underneath

    def canonical(self, qualified: str, seen=None) -> str:
        """`mcp.ClientSession` -> `mcp.client.session.ClientSession`; a name outside the source
        stays as written (`typing.Any`, `starlette.requests.Request`)."""
        seen = seen or set()
        if qualified in seen:
            return qualified
        seen.add(qualified)
        if qualified in self.modules:
            return qualified
        owner, _, name = qualified.rpartition(".")
        # the longest module prefix, then the rest as attributes
        while owner and owner not in self.modules:
            owner, _, head = owner.rpartition(".")
            name = f"{head}.{name}"
        if not owner:
            return self.underneath.canonical(qualified) if self.underneath is not None else qualified
        first, _, rest = name.partition(".")
        found = self.local(self.modules[owner], first, seen)
        return self.canonical(f"{found}.{rest}", seen) if rest else found

    def local(self, module: Module, name: str, seen=None) -> str:
        bound = module.names.get(name)
        if bound is None:
            for star in module.stars:
                target = self.modules.get(star)
                if target is not None and name in target.names:
                    return self.canonical(f"{star}.{name}", seen)
            return f"{module.name}.{name}"
        kind, value = bound
        if kind == "import":
            return self.canonical(value, seen)
        if kind == "alias":
            return self.resolve(module, value, seen) or f"{module.name}.{name}"
        return f"{module.name}.{name}"

    def resolve(self, module: Module, dotted: str, seen=None) -> str | None:
        first, _, rest = dotted.partition(".")
        if first in _BUILTINS:
            return first if not rest else None
        head = self.local(module, first, seen) if (first in module.names or module.stars) else None
        if head is None:
            return f"typing.{first}" if first in _TYPING_BARE else None
        return self.canonical(f"{head}.{rest}", seen) if rest else head

    def is_typevar(self, module: Module, name: str) -> bool:
        return self._typevar(module, name) is not None

    def _typevar(self, module: Module, name: str) -> tuple | None:
        """(defining module, bound expression or None) of a TypeVar a module names."""
        bound = module.names.get(name)
        if bound is None:
            return None
        if bound[0] == "typevar":
            return (module, bound[1])
        if bound[0] == "import":
            owner, _, local = self.canonical(bound[1]).rpartition(".")
            target = self.modules.get(owner)
            if target is not None and target.names.get(local, ("",))[0] == "typevar":
                return (target, target.names[local][1])
        return None

    def param(self, module: Module, name: str) -> str:
        """A type parameter as the data writes it: `T`, or `T:bound` with an SDK class bound."""
        found = self._typevar(module, name)
        bound = type_text(self, found[0], found[1], frozenset()) if found and found[1] is not None else None
        return f"{name}:{bound}" if bound else name


_BUILTINS = frozenset({"str", "int", "bool", "float", "bytes", "list", "dict", "set", "tuple", "object", "None"})
#: Names modules use unqualified without importing them from typing (never: but harmless).
_TYPING_BARE = frozenset()


# ----- types --------------------------------------------------------------------------------
def type_text(names: Names, module: Module, ann, typevars: frozenset) -> str | None:
    """An annotation as the data file writes a type: `pkg.mod.Class`, `pkg.mod.Class[A,B]` for a
    generic one (arguments as qualified names), `~T` for a class's own type parameter; None for
    anything that is not one SDK class (a union of two, a container, a builtin)."""
    if ann is None:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, ast.Constant) and ann.value is None:
        return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        parts = [p for p in (type_text(names, module, s, typevars) for s in _union_members(ann)) if p]
        return parts[0] if len(parts) == 1 else None
    if isinstance(ann, (ast.Name, ast.Attribute)):
        dotted = _dotted(ann)
        if isinstance(ann, ast.Name) and ann.id in typevars:
            return f"~{ann.id}"
        qualified = names.resolve(module, dotted) if dotted else None
        return qualified if qualified and qualified.partition(".")[0] in SDK_ROOTS else None
    if isinstance(ann, ast.Subscript):
        head = names.resolve(module, _dotted(ann.value) or "") if _dotted(ann.value) else None
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head in _UNWRAP:
            return type_text(names, module, args[0], typevars)
        if head in _UNION:
            parts = [p for p in (type_text(names, module, a, typevars) for a in args) if p]
            return parts[0] if len(parts) == 1 else None
        if head and head.partition(".")[0] in SDK_ROOTS:
            shown = [type_text(names, module, a, typevars) or "?" for a in args]
            return f"{head}[{','.join(shown)}]"
    return None


def _union_members(ann):
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        yield from _union_members(ann.left)
        yield from _union_members(ann.right)
    else:
        yield ann


# ----- facts of one class ---------------------------------------------------------------------
class RootsMember(NamedTuple):
    """A member with Roots semantics: `list_roots` (a method) or `__init__(list_roots_callback)`
    (a parameter), its effect, and a parameter's positional index after `self` (None: keyword
    only, or not a parameter)."""

    member: str
    effect: str
    position: int | None


@dataclass
class Facts:
    """What the data file says about one class in one source."""

    names: set = field(default_factory=set)
    bases: list = field(default_factory=list)
    params: list = field(default_factory=list)
    written_params: list = field(default_factory=list)
    attributes: dict = field(default_factory=dict)
    returns: dict = field(default_factory=dict)
    #: method -> ("chain", ["request_context", "session"]): an unannotated `return self.a.b`
    chains: dict = field(default_factory=dict)
    roots: list = field(default_factory=list)
    #: method -> list of (receiver chain, called method): calls on `self.<chain>` for effects
    calls: dict = field(default_factory=dict)
    marks: dict = field(default_factory=dict)
    #: The class's own `__init__`: "fixed" (its parameters are all it takes), "kwargs" (it
    #: forwards `**kwargs`, as fastmcp's ProxyClient to Client), or "" (inherited).
    init: str = ""


def class_facts(names: Names, klass: Klass) -> Facts:
    module, node = klass.module, klass.node
    facts = Facts()
    typevars = set()
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            head = names.resolve(module, _dotted(base.value) or "") if _dotted(base.value) else None
            args = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
            found = [a.id for a in args if isinstance(a, ast.Name) and names.is_typevar(module, a.id)]
            if head in _GENERIC:
                facts.params = found
            elif not facts.params:
                typevars.update(found)
    typevars.update(facts.params)
    if not facts.params and typevars:
        facts.params = [a for a in _ordered_typevars(names, module, node) if a in typevars]
    frozen = frozenset(facts.params)
    facts.written_params = [names.param(module, p) for p in facts.params]
    for base in node.bases:
        text = type_text(names, module, base, frozen)
        if text:
            facts.bases.append(text)
    fields = []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            text = type_text(names, module, stmt.annotation, frozen)
            if text and not stmt.target.id.startswith("_"):
                facts.attributes[stmt.target.id] = text
            fields.append(stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _method_facts(names, module, stmt, frozen, facts)
    if _is_dataclass(names, module, node):
        _dataclass_init(names, module, node, fields, facts)
        facts.init = facts.init or "fixed"
    return facts


def _ordered_typevars(names: Names, module: Module, node: ast.ClassDef) -> list:
    seen = []
    for base in node.bases:
        for sub in ast.walk(base):
            if isinstance(sub, ast.Name) and names.is_typevar(module, sub.id) and sub.id not in seen:
                seen.append(sub.id)
    return seen


def _decorators(func) -> list:
    return [_dotted(d.func if isinstance(d, ast.Call) else d) or "" for d in func.decorator_list]


def _method_facts(names: Names, module: Module, func, typevars: frozenset, facts: Facts) -> None:
    decorators = _decorators(func)
    name = func.name
    public = not name.startswith("_") or name == "__init__"
    if not public or "overload" in {d.rpartition(".")[2] for d in decorators} and name != "__init__":
        return
    returned = type_text(names, module, func.returns, typevars)
    is_property = any(d.rpartition(".")[2] in ("property", "cached_property") for d in decorators)
    if returned is None and func.returns is None:
        chain = _returned_self_chain(func)
        if chain:
            facts.chains[name] = (is_property, chain)
    if name == "__init__" and "overload" not in {d.rpartition(".")[2] for d in decorators}:
        facts.init = "kwargs" if func.args.kwarg is not None else "fixed"
    if returned and name != "__init__":
        (facts.attributes if is_property else facts.returns)[name] = returned
    if name == "__init__":
        _init_attributes(names, module, func, typevars, facts)
    _parameter_roots(names, module, func, facts)
    if name != "__init__" and _answers(func):
        facts.roots.append(RootsMember(name, "answers", None))
    if name != "__init__":
        facts.marks[name] = _marks(func)
        facts.calls[name] = _self_calls(func)


def _returned_self_chain(func) -> list | None:
    """`return self.request_context.session` as its only statement after a docstring."""
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    chain = []
    expr = body[0].value
    while isinstance(expr, ast.Attribute):
        chain.append(expr.attr)
        expr = expr.value
    return list(reversed(chain)) if chain and isinstance(expr, ast.Name) and expr.id == "self" else None


def _init_attributes(names: Names, module: Module, func, typevars: frozenset, facts: Facts) -> None:
    """`self.x: T = ...`, and `self.x = param` where the parameter is annotated."""
    annotated = {a.arg: a.annotation for a in _arguments(func)}
    for stmt in ast.walk(func):
        if isinstance(stmt, ast.AnnAssign):
            attr = _self_attr(stmt.target)
            text = type_text(names, module, stmt.annotation, typevars) if attr else None
            if attr and text and not attr.startswith("_"):
                facts.attributes.setdefault(attr, text)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            for target in stmt.targets:
                attr = _self_attr(target)
                ann = annotated.get(stmt.value.id)
                text = type_text(names, module, ann, typevars) if attr and ann is not None else None
                if attr and text and not attr.startswith("_"):
                    facts.attributes.setdefault(attr, text)


def _self_attr(target) -> str | None:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return None


def _arguments(func) -> list:
    args = func.args
    return list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)


def _parameter_roots(names: Names, module: Module, func, facts: Facts) -> None:
    positional = list(func.args.posonlyargs) + list(func.args.args)
    if positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    for index, arg in enumerate(positional + list(func.args.kwonlyargs)):
        effect = _parameter_effect(names, module, arg.arg, arg.annotation)
        if effect:
            where = index if index < len(positional) else None
            facts.roots.append(RootsMember(f"{func.name}({arg.arg})", effect, where))


def _parameter_effect(names: Names, module: Module, name: str, annotation) -> str | None:
    if name in PROVIDER_PARAMETERS:
        return "provides"
    if name in HANDLER_PARAMETERS:
        return "handles"
    if annotation is not None:
        for sub in ast.walk(annotation):
            text = _dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
            if text and text.rpartition(".")[2] in PROVIDER_TYPES:
                return "provides"
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                if any(word in sub.value for word in PROVIDER_TYPES):
                    return "provides"
    return None


def _marks(func) -> set:
    """What the body sends: a roots request or notification built (`ListRootsRequest()`) or
    its method string handed to a call (`send_raw_request("roots/list")`). Matching one
    (`isinstance`, `case ListRootsRequest()`, a comparison) is answering, not asking."""
    found = set()
    for sub in ast.walk(func):
        if not isinstance(sub, ast.Call):
            continue
        called = _dotted(sub.func)
        if called and called.rpartition(".")[2] in ASK_MARKS | NOTIFY_MARKS:
            found.add(called.rpartition(".")[2])
        for arg in list(sub.args) + [k.value for k in sub.keywords]:
            if isinstance(arg, ast.Constant) and arg.value in ASK_MARKS | NOTIFY_MARKS:
                found.add(arg.value)
    return found


def _answers(func) -> bool:
    """A hook that takes the roots request as a parameter (`on_list_roots(self, message:
    ListRootsRequest)`): overriding it answers `roots/list`."""
    for arg in _arguments(func):
        if arg.annotation is not None:
            for sub in ast.walk(arg.annotation):
                text = _dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
                if text and text.rpartition(".")[2] == "ListRootsRequest":
                    return True
    return False


def _self_calls(func) -> list:
    """`self.a.b.m(...)` calls: ((a, b), m), for effects that travel from a callee."""
    found = []
    for sub in ast.walk(func):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            chain = []
            expr = sub.func.value
            while isinstance(expr, ast.Attribute):
                chain.append(expr.attr)
                expr = expr.value
            if isinstance(expr, ast.Name) and expr.id == "self":
                found.append((tuple(reversed(chain)), sub.func.attr))
    return sorted(set(found))


def _is_dataclass(names: Names, module: Module, node: ast.ClassDef) -> bool:
    return any(d.rpartition(".")[2] == "dataclass" for d in _decorators(node))


def _dataclass_init(names: Names, module: Module, node: ast.ClassDef, fields: list, facts: Facts) -> None:
    """A dataclass's generated `__init__`: its fields in order (ClassVar and `init=False` left
    out; after `KW_ONLY`, or with `kw_only=True`, keyword only)."""
    keyword_only = any(
        isinstance(d, ast.Call)
        and any(k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value for k in d.keywords)
        for d in node.decorator_list
    )
    index = 0
    for stmt in fields:
        name = stmt.target.id
        ann_text = ast.unparse(stmt.annotation)
        if "ClassVar" in ann_text:
            continue
        if "KW_ONLY" in ann_text:
            keyword_only = True
            continue
        if isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func) in ("field", "dataclasses.field"):
            if any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and not k.value.value for k in stmt.value.keywords
            ):
                continue
            if any(
                k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value for k in stmt.value.keywords
            ):
                effect = _parameter_effect(names, module, name, stmt.annotation)
                if effect:
                    facts.roots.append(RootsMember(f"__init__({name})", effect, None))
                continue
        effect = _parameter_effect(names, module, name, stmt.annotation)
        if effect:
            facts.roots.append(RootsMember(f"__init__({name})", effect, None if keyword_only else index))
        if not keyword_only:
            index += 1


# ----- one source, whole ------------------------------------------------------------------------
def read_source(env: Path, source: Source, underneath: Names | None) -> tuple:
    """Every public class of the source with its facts (a class of a private module only when
    a public module re-exports it: `mcp_types._types.Root` as `mcp_types.Root`), and its names."""
    modules = read_modules(site_packages(env), source.packages)
    names = Names(modules, underneath)
    classes = {}
    for module in modules.values():
        if SKIPPED_PARTS.intersection(module.name.split(".")):
            continue
        for stmt in module.tree.body:
            if isinstance(stmt, ast.ClassDef) and not stmt.name.startswith("_"):
                qname = f"{module.name}.{stmt.name}"
                classes[qname] = Klass(qname, module, stmt)
        for stmt in _nested_classes(module.tree.body):
            qname = f"{module.name}.{stmt.name}"
            if qname not in classes and not stmt.name.startswith("_"):
                classes[qname] = Klass(qname, module, stmt)
    facts = {qname: class_facts(names, klass) for qname, klass in classes.items()}
    for module in modules.values():
        if any(part.startswith("_") for part in module.name.split(".")):
            continue
        for local in _exported(module, modules):
            target = names.local(module, local)
            alias = f"{module.name}.{local}"
            if target in facts and alias != target:
                facts[target].names.add(alias)
    for qname in list(facts):
        private = any(part.startswith("_") for part in qname.split(".")[:-1])
        if private and not facts[qname].names:
            del facts[qname]
    return facts, names


def _nested_classes(body):
    """Classes defined under a module-level `if`/`try` (version switches)."""
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.Try)):
            for block in (stmt.body, stmt.orelse, *[h.body for h in getattr(stmt, "handlers", ())]):
                for inner in block:
                    if isinstance(inner, ast.ClassDef):
                        yield inner
                yield from _nested_classes(block)


def _exported(module: Module, modules: dict) -> list:
    """The names a module re-exports: its `__all__`, or a package's imported public names,
    and what its star imports bring."""
    if module.exported is not None:
        return sorted(set(module.exported))
    found = set()
    if module.is_package:
        found.update(n for n, (kind, _) in module.names.items() if kind == "import" and not n.startswith("_"))
    for star in module.stars:
        target = modules.get(star)
        if target is not None:
            found.update(target.exported or [n for n in target.names if not n.startswith("_")])
    return sorted(found)


# ----- across sources ----------------------------------------------------------------------------
def _roots_class(qname: str, facts: Facts) -> bool:
    """A class named for roots (`Root`, `ListRootsResult`, `RootsCapability`), one with Roots
    members, or one with an attribute of such a type (`ClientCapabilities.roots`)."""

    def named(text: str) -> bool:
        return any(word in _head(text).rpartition(".")[2] for word in ROOTS_WORDS)

    return named(qname) or bool(facts.roots) or any(named(t) for t in facts.attributes.values())


def _role_class(qname: str) -> bool:
    return qname.rpartition(".")[2].endswith(ROLE_SUFFIXES)


def effects(every: dict) -> dict:
    """(tag, class, method) -> effects: a method that names a roots request or notification in
    its body, or calls one on an attribute whose type the data knows (`self.session.list_roots()`
    in fastmcp's Context), to a fixed point over every source (fastmcp calls into mcp)."""
    found = {}
    for tag, facts in every.items():
        for qname, fact in facts.items():
            for method, marks in fact.marks.items():
                kinds = set()
                if marks & ASK_MARKS:
                    kinds.add("asks")
                if marks & NOTIFY_MARKS:
                    kinds.add("notifies")
                if kinds:
                    found[(tag, qname, method)] = kinds
    by_class: dict = {}
    for (_, qname, method), kinds in found.items():
        by_class.setdefault((qname, method), set()).update(kinds)
    changed = True
    while changed:
        changed = False
        for tag, facts in every.items():
            for qname, fact in facts.items():
                for method, calls in fact.calls.items():
                    for chain, called in calls:
                        owner = _chain_type(every, tag, qname, chain)
                        kinds = by_class.get((_head(owner), called)) if owner else None
                        if kinds and not kinds <= found.get((tag, qname, method), set()):
                            found.setdefault((tag, qname, method), set()).update(kinds)
                            by_class.setdefault((qname, method), set()).update(kinds)
                            changed = True
    return found


def _public_keys(every: dict) -> None:
    """A class defined in a private module goes by a public name: the one another version
    defines it under (mcp 2's `mcp_types._types.Root` is `mcp.types.Root`, as in mcp 1.x), else
    its shortest; every type that names it is renamed, so the versions' answers agree."""
    keys = {qname for facts in every.values() for qname in facts}
    for facts in every.values():
        renamed = {}
        for qname, fact in facts.items():
            if any(part.startswith("_") for part in qname.split(".")[:-1]):
                public = sorted(fact.names, key=lambda n: (n not in keys, n.count("."), n))
                renamed[qname] = public[0]
        if not renamed:
            continue
        for qname, public in renamed.items():
            fact = facts.pop(qname)
            fact.names = (fact.names - {public}) | {qname}
            facts[public] = fact
        for tag_facts in every.values():
            for fact in tag_facts.values():
                fact.bases = [_rename(b, renamed) for b in fact.bases]
                fact.attributes = {k: _rename(v, renamed) for k, v in fact.attributes.items()}
                fact.returns = {k: _rename(v, renamed) for k, v in fact.returns.items()}
                fact.written_params = [_rename_param(p, renamed) for p in fact.written_params]


def _rename(text: str, renamed: dict) -> str:
    ref = TypeRef.parse(text)
    return TypeRef(renamed.get(ref.head, ref.head), tuple(_rename(a, renamed) for a in ref.args)).text()


def _rename_param(param: str, renamed: dict) -> str:
    name, colon, bound = param.partition(":")
    return f"{name}:{_rename(bound, renamed)}" if colon else name


def _head(text: str) -> str:
    return text.partition("[")[0]


def _chain_type(every: dict, tag: str, qname: str, chain) -> str | None:
    current = qname
    for attr in chain:
        current = _attribute(every, tag, _head(current), attr)
        if current is None or current.startswith("~"):
            return None
    return current


def _attribute(every: dict, tag: str, qname: str, attr: str, depth: int = 0) -> str | None:
    """An attribute's type in this source, else in any source (the other package's classes)."""
    for facts in [every[tag]] + [f for t, f in sorted(every.items()) if t != tag]:
        fact = facts.get(qname)
        if fact is None:
            continue
        if attr in fact.attributes:
            return fact.attributes[attr]
        if depth < 8:
            for base in fact.bases:
                found = _attribute(every, tag, _head(base), attr, depth + 1)
                if found:
                    return found
    return None


def build(envs: Path) -> str:
    """The data file's text, from the venvs under `envs`."""
    every, names = {}, {}
    for source in SOURCES:
        underneath = names.get(source.underneath)
        every[source.tag], names[source.tag] = read_source(envs / source.env, source, underneath)
    _public_keys(every)
    found = effects(every)
    for (tag, qname, method), kinds in found.items():
        fact = every[tag][qname]
        for kind in sorted(kinds):
            fact.roots.append(RootsMember(method, kind, None))
    kept = set()
    for facts in every.values():
        for qname, fact in facts.items():
            if _role_class(qname) or _roots_class(qname, fact):
                kept.add(qname)
    # a kept class's bases are kept too (what its members are inherited from)
    pending = list(kept)
    while pending:
        qname = pending.pop()
        for facts in every.values():
            fact = facts.get(qname)
            for base in fact.bases if fact else ():
                if _head(base) not in kept and any(_head(base) in f for f in every.values()):
                    kept.add(_head(base))
                    pending.append(_head(base))
    first = {qname: _entry(every, qname, kept) for qname in kept}
    _resolve_chains(every, SdkApi({"sources": [s.tag for s in SOURCES], "classes": first}))
    classes = _useful({qname: _entry(every, qname, kept) for qname in kept})
    data = {
        "comment": "Generated by tests/sdk_api_generate.py from the SDK sources listed in 'sources'; "
        "never edit by hand. Each fact maps its value to the sources it holds in.",
        "sources": [source.tag for source in SOURCES],
        "classes": classes,
    }
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def _resolve_chains(every: dict, api: SdkApi) -> None:
    """An unannotated `return self.a.b` (the mcp SDK's `Context.session`) takes the chain's
    type, as the loader reads the first pass's data (the class's own type parameters kept:
    mcp 1.x's `Context.session` is its `~ServerSessionT`, bound to `ServerSession`)."""
    for tag, facts in every.items():
        for owner, fact in facts.items():
            own = f"{owner}[{','.join('~' + p for p in fact.params)}]" if fact.params else owner
            for method, (is_property, chain) in sorted(fact.chains.items()):
                found = api.chain_type(own, chain, tag)
                if found:
                    (fact.attributes if is_property else fact.returns).setdefault(method, found)


def _useful(entries: dict) -> dict:
    """The entries a question can reach: a class with Roots members or typed members, and every
    class those name as a type or base (a role class with nothing typed, such as an OAuth
    client, says nothing the rules need)."""
    useful = {q for q, e in entries.items() if e.get("roots") or e.get("attributes") or e.get("returns")}
    useful.update(q for q in entries if any(w in q.rpartition(".")[2] for w in ROOTS_WORDS))
    pending = list(useful)
    while pending:
        entry = entries[pending.pop()]
        named = [t for kind in ("attributes", "returns") for types in entry.get(kind, {}).values() for t in types]
        named += [b for bases in entry.get("bases", {}) for b in bases.split()]
        for text in named:
            head = _head(text)
            if head in entries and head not in useful:
                useful.add(head)
                pending.append(head)
    return {q: entries[q] for q in sorted(useful)}


def _entry(every: dict, qname: str, kept: set) -> dict:
    def keep(text: str) -> bool:
        return text.startswith("~") or _head(text) in kept

    entry: dict = {
        "in": [],
        "names": {},
        "bases": {},
        "params": {},
        "attributes": {},
        "returns": {},
        "roots": {},
        "init": {},
    }
    for tag, facts in every.items():
        fact = facts.get(qname)
        if fact is None:
            continue
        entry["in"].append(tag)
        for alias in fact.names:
            entry["names"].setdefault(alias, []).append(tag)
        if fact.bases:
            entry["bases"].setdefault(" ".join(fact.bases), []).append(tag)
        if fact.init:
            entry["init"].setdefault(fact.init, []).append(tag)
        if fact.written_params:
            entry["params"].setdefault(",".join(fact.written_params), []).append(tag)
        for kind in ("attributes", "returns"):
            for name, text in getattr(fact, kind).items():
                if keep(text):
                    entry[kind].setdefault(name, {}).setdefault(text, []).append(tag)
        for member in sorted(set(fact.roots), key=lambda m: (m.member, m.effect, m.position or 0)):
            value = member.effect if member.position is None else f"{member.effect}@{member.position}"
            held = entry["roots"].setdefault(member.member, {}).setdefault(value, [])
            if tag not in held:
                held.append(tag)
    return {k: v for k, v in entry.items() if v}


# ----- the command ---------------------------------------------------------------------------------
def install(envs: Path) -> None:
    """A venv per source holding its packages (no dependencies: only their sources are read)."""
    for source in SOURCES:
        env = envs / source.env
        if not env.exists():
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
        python = env / "bin" / "python"
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", *source.requirements],
            check=True,
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--envs", default=os.environ.get("MCP_MIGRATE_SDK_ENVS") or DEFAULT_ENVS)
    parser.add_argument("--install", action="store_true", help="make the venvs first")
    parser.add_argument("--check", action="store_true", help="compare with the shipped file, write nothing")
    parser.add_argument("--output", default=str(OUTPUT))
    args = parser.parse_args(argv)
    envs = Path(args.envs)
    if args.install:
        envs.mkdir(parents=True, exist_ok=True)
        install(envs)
    text = build(envs)
    output = Path(args.output)
    if args.check:
        same = output.exists() and output.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{output} differs from a fresh run")
        return 0 if same else 1
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
