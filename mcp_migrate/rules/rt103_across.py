"""RT103 across modules: what another module of the project decides with roots, for a call made
here (issue 35 §4, §1's "a parameter is the boundary of an access decision").

A call reaches a project function or method in another module when:

* its function is a name imported from a project module (`from .guards import within`);
* its receiver is an instance of a project class: typed by the resolver (an annotation, a
  constructor call, `self.x: Service = ...`), a module-level instance another module makes
  (`allowed = Registry()` in `shared.py`, imported here), or a name this function binds to a
  method's result whose return annotation names a project class
  (`guard = self.roots.guard(session)` with `def guard(self, ...) -> RootGuard`).

What that module decides is RT103's own answer on it, so the two never disagree: the module is
checked by a copy of the rule that follows no further module (`summary`), once as it stands
(which functions decide access against roots they hold themselves) and once per set of
parameters a caller hands roots to (`assumed`: the checks that appear only then are the ones
those parameters bound). Both are kept in the run's project view by the module's stamp: a
tree's callers reach the same few guards. The facts read from a module to find a class
(classes and their methods' parameters and return annotations, top-level functions and
instances, from-imports) come from the standard library's parse, kept the same way.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.engine import check_bytes
from mcp_migrate.core.project_view import ProjectView, read
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.core.settings import Settings
from mcp_migrate.vocabulary.imported_asks import module_source

_LIMIT = 4 * 1024 * 1024
#: How many re-exports or attribute steps a lookup follows.
_HOPS = 3


class Callee(NamedTuple):
    """A project function or method in another module: its file, class (None: a function),
    name and parameters in call order (a method's `self`/`cls` dropped)."""

    source: str
    owner: str | None
    name: str
    params: tuple


class Decisions(NamedTuple):
    """RT103 on one module: its findings' positions (line, column, whether a check rather than
    an allow-list), and the functions that decide access against roots they hold themselves
    ((class or None, name))."""

    at: frozenset = frozenset()
    deciders: frozenset = frozenset()


class Facts(NamedTuple):
    """What a module defines and imports, as far as finding a class needs."""

    #: class -> {method: (parameters without self/cls, return annotation's last name or None)}
    classes: dict
    #: function -> parameters
    functions: dict
    #: module-level name -> the class name it is an instance of (`x = Cls(...)`, `x: Cls = ...`)
    instances: dict
    #: bound name -> (module as written, name)
    imports: dict


_EMPTY = Facts({}, {}, {}, {})
#: The words of RT103's allow-list findings (built, extended, kept): not a check themselves.
_ALLOW_LIST = "allow-list"
_FACTS, _DECISIONS = "rt103 across: facts", "rt103 across: decisions"


def facts(source: str, view: ProjectView) -> Facts:
    found = view.per_file(_FACTS, source, (), lambda stat: _read_facts(read(source, stat, _LIMIT)))
    return found if found is not None else _EMPTY


def _read_facts(data: bytes | None) -> Facts:
    syntax = read_syntax(data) if data else None
    if syntax is None:
        return _EMPTY
    classes: dict = {}
    functions: dict = {}
    instances: dict = {}
    imports: dict = {}
    for node in syntax.tree.body:
        if isinstance(node, ast.ClassDef):
            methods = classes.setdefault(node.name, {})
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    static = any(_last(d) == "staticmethod" for d in item.decorator_list)
                    params = _param_names(item.args)
                    methods[item.name] = (params if static else params[1:], _last(item.returns))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = _param_names(node.args)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            made = _last(node.value.func) if isinstance(node.value, ast.Call) else None
            if made:
                instances[node.targets[0].id] = made
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            typed = _last(node.annotation)
            if typed:
                instances[node.target.id] = typed
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                imports[alias.asname or alias.name] = (module, alias.name)
    return Facts(classes, functions, instances, imports)


def _param_names(args: ast.arguments) -> tuple:
    found = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg is not None:
        found.append(args.vararg.arg)
    return (*found, *(a.arg for a in args.kwonlyargs))


def _last(expr) -> str | None:
    """The last name of `Name`, `a.b.Name`, `"Name"` (a string annotation) or `Name | None`."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value.isidentifier():
        return expr.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        left, right = _last(expr.left), _last(expr.right)
        return left if right in (None, "None") else right if left in (None, "None") else None
    return None


def split(qualified: str) -> tuple[str, str]:
    """(module, name) of a qualified name as written (`.services.RootsService`)."""
    module, _, name = qualified.rpartition(".")
    if not module and qualified.startswith("."):
        return qualified[: len(qualified) - len(name)], name
    return module, name


def locate(path: str, module: str, name: str, view: ProjectView, hops: int = _HOPS) -> tuple | None:
    """(file, facts, name) of the project module that defines `name` as the file at `path`
    imports it from `module`, through re-exports; None outside the project."""
    if not module:
        return None
    source = module_source(path, module, view)
    if source is None:
        return None
    found = facts(source, view)
    if name in found.classes or name in found.functions or name in found.instances:
        return source, found, name
    origin = found.imports.get(name)
    if origin is None or not hops:
        return None
    return locate(source, origin[0], origin[1], view, hops - 1)


def in_module(source: str, found: Facts, name: str, view: ProjectView) -> tuple | None:
    """(file, facts, name) of a name as the module `source` sees it: defined there or imported."""
    if name in found.classes or name in found.functions or name in found.instances:
        return source, found, name
    origin = found.imports.get(name)
    return locate(source, origin[0], origin[1], view) if origin is not None else None


def class_of_instance(where: tuple | None, view: ProjectView) -> tuple | None:
    """(file, facts, class) for a located name that is a class, or a module-level instance of one."""
    if where is None:
        return None
    source, found, name = where
    if name in found.classes:
        return where
    made = found.instances.get(name)
    if made is None:
        return None
    cls = in_module(source, found, made, view)
    return cls if cls is not None and cls[2] in cls[1].classes else None


def returned_class(cls: tuple, method: str, view: ProjectView) -> tuple | None:
    """(file, facts, class) of what `method` of the located class returns, by its annotation."""
    source, found, name = cls
    entry = found.classes[name].get(method)
    if entry is None or entry[1] is None:
        return None
    made = in_module(source, found, entry[1], view)
    return made if made is not None and made[2] in made[1].classes else None


def callee(where: tuple | None, method: str | None) -> Callee | None:
    """The function (`method` None) or the class's method a located name gives."""
    if where is None:
        return None
    source, found, name = where
    if method is None:
        params = found.functions.get(name)
        return Callee(source, None, name, params) if params is not None else None
    entry = found.classes.get(name, {}).get(method)
    return Callee(source, name, method, entry[0]) if entry is not None else None


def summary(source: str, assumed: frozenset, view: ProjectView, rule: type[Rule]) -> Decisions:
    """RT103 on the module file `source`, its parameters in `assumed` taken as roots: a copy of
    `rule` that follows no other module, whatever the screens say (the assumption is a source
    the file's bytes do not show)."""
    found = view.per_file(_DECISIONS, source, assumed, lambda stat: _decide(source, stat, assumed, view, rule))
    return found if found is not None else Decisions()


def _decide(source: str, stat, assumed: frozenset, view: ProjectView, rule: type[Rule]) -> Decisions:
    data = read(source, stat, _LIMIT)
    if data is None:
        return Decisions()
    sink: dict = {}
    copy = type(
        rule.__name__,
        (rule,),
        {
            "ASSUMED": assumed,
            "ACROSS": False,
            "SINK": sink,
            "gate_tokens": classmethod(lambda cls, settings: (b"",)),
            "runs_on": classmethod(lambda cls, data, settings: True),
            "screen_tree": classmethod(lambda cls, syntax, settings: True),
        },
    )
    result = check_bytes(data, source, Settings(select=frozenset({rule.CODE}), rules=(copy,), view=view))
    reported = [f for f in result.findings if f.code == rule.CODE] + [
        s.finding for s in result.suppressed if s.finding.code == rule.CODE
    ]
    at = frozenset((f.line, f.column, _ALLOW_LIST not in f.message) for f in reported)
    return Decisions(at, frozenset(sink.get("deciders", ())))


def boundary(target: Callee, params: frozenset, view: ProjectView, rule: type[Rule]) -> tuple | None:
    """(line, column) of the first check (else allow-list) that appears in `target`'s module only
    when `params` of `target` come from roots: where the roots a caller hands it become the
    boundary."""
    assumed = frozenset((target.owner, target.name, p) for p in params)
    plain = summary(target.source, frozenset(), view, rule)
    given = summary(target.source, assumed, view, rule)
    new = sorted(given.at - plain.at, key=lambda at: (not at[2], at[0], at[1]))
    return new[0][:2] if new else None


def decides_itself(target: Callee, view: ProjectView, rule: type[Rule]) -> bool:
    """`target` decides access against roots it holds itself (its class's, its own)."""
    return (target.owner, target.name) in summary(target.source, frozenset(), view, rule).deciders


def given_params(call: cst.Call, target: Callee, from_roots) -> frozenset:
    """The parameters of `target` that `call` passes a value `from_roots` says comes from roots."""
    found: set = set()
    position = 0
    for arg in call.args:
        if arg.star:
            return frozenset(found)  # `*args`: the positions after it are not known
        if arg.keyword is not None:
            if arg.keyword.value in target.params and from_roots(arg.value):
                found.add(arg.keyword.value)
            continue
        if position < len(target.params) and from_roots(arg.value):
            found.add(target.params[position])
        position += 1
    return frozenset(found)
