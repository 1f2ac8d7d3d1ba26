"""The model's "gates on roots across modules" (issue 35 §1: a value derived from roots and a
gate on it; §4: RT103): what another module of the project decides with roots, for a call made
in the file being checked.

A call reaches a project function or method in another module when:

* its function is a name imported from a project module (`from .guards import within`);
* its receiver is an instance of a project class: typed by the resolver (an annotation, a
  constructor call, `self.x: Service = ...`), a module-level instance another module makes
  (`allowed = Registry()` in `shared.py`, imported here), or a name this function binds to a
  method's result whose return annotation names a project class
  (`guard = self.roots.guard(session)` with `def guard(self, ...) -> RootGuard`).

What a module defines and imports (its classes and their methods' signatures, its functions,
its module-level instances, its from-imports) is read once, by core.project_types, the reader
the resolver types project receivers with (`module_types`): one parse per module file and run.

What that module decides is RT103's own answer on it, so the two never disagree: the rule is run
alone on the module (vocabulary.file_effects.rule_alone, the mechanism RT001 and RT002 follow
their helpers with), as a copy that follows no further module, once as the module stands (its
file's model then holds the functions that decide access against roots they hold themselves:
`file_effects.GATES`) and once per set of parameters a caller hands roots to (`assumed`: the
checks that appear only then are the ones those parameters bound). Both are kept in the run's
project view by the module's stamp: a tree's callers reach the same few guards.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.positions import node_ranges
from mcp_migrate.core.project_types import ModuleTypes, module_types
from mcp_migrate.core.project_view import MODULE_LIMIT, ProjectView, read
from mcp_migrate.core.settings import Settings
from mcp_migrate.vocabulary.file_effects import GATES, file_effects, rule_alone
from mcp_migrate.vocabulary.imported_asks import module_source

#: How many re-exports or attribute steps a lookup follows.
_HOPS = 3
#: The words of RT103's allow-list findings (built, extended, kept): not a check themselves.
_ALLOW_LIST = "allow-list"
#: The view's table (core.project_view): (module file, mtime, size, assumed) -> Decisions.
_DECISIONS = "gates across: decisions"


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


class Located(NamedTuple):
    """A name as the module that defines it has it: the module's file, what it defines and
    imports (core.project_types), and the name there."""

    source: str
    types: ModuleTypes
    name: str


def split(qualified: str) -> tuple[str, str]:
    """(module, name) of a qualified name as written (`.services.RootsService`)."""
    module, _, name = qualified.rpartition(".")
    if not module and qualified.startswith("."):
        return qualified[: len(qualified) - len(name)], name
    return module, name


def _defines(types: ModuleTypes, name: str) -> bool:
    return name in types.classes or name in types.params or name in types.instances


def locate(path: str, module: str, name: str, view: ProjectView, hops: int = _HOPS) -> Located | None:
    """Where the project module that defines `name` has it, as the file at `path` imports it
    from `module`, through re-exports; None outside the project."""
    if not module:
        return None
    source = module_source(path, module, view)
    if source is None:
        return None
    types = module_types(view, source, name)
    if _defines(types, name):
        return Located(source, types, name)
    origin = types.written.get(name)
    if origin is None or not hops:
        return None
    return locate(source, origin[0], origin[1], view, hops - 1)


def in_module(source: str, types: ModuleTypes, name: str, view: ProjectView) -> Located | None:
    """A name as the module `source` sees it: defined there or imported."""
    if _defines(types, name):
        return Located(source, types, name)
    origin = types.written.get(name)
    return locate(source, origin[0], origin[1], view) if origin is not None else None


def class_of_instance(where: Located | None, view: ProjectView) -> Located | None:
    """The class a located name is, or a module-level instance of."""
    if where is None:
        return None
    if where.name in where.types.classes:
        return where
    made = where.types.instances.get(where.name)
    if made is None:
        return None
    cls = in_module(where.source, where.types, made, view)
    return cls if cls is not None and cls.name in cls.types.classes else None


def returned_class(cls: Located, method: str, view: ProjectView) -> Located | None:
    """The class `method` of the located class returns, by its annotation."""
    entry = cls.types.classes[cls.name].signatures.get(method)
    if entry is None or entry[1] is None:
        return None
    made = in_module(cls.source, cls.types, entry[1], view)
    return made if made is not None and made.name in made.types.classes else None


def callee(where: Located | None, method: str | None) -> Callee | None:
    """The function (`method` None) or the class's method a located name gives."""
    if where is None:
        return None
    if method is None:
        params = where.types.params.get(where.name)
        return Callee(where.source, None, where.name, params) if params is not None else None
    cls = where.types.classes.get(where.name)
    entry = cls.signatures.get(method) if cls is not None else None
    return Callee(where.source, where.name, method, entry[0]) if entry is not None else None


def summary(source: str, assumed: frozenset, view: ProjectView, rule) -> Decisions:
    """The rule (RT103's class) on the module file `source`, its parameters in `assumed` taken
    as roots: a copy of `rule` that follows no other module, whatever the screens say when
    parameters are assumed (the assumption is a source the file's bytes do not show)."""
    found = view.per_file(
        _DECISIONS, source, assumed, lambda stat: _decide(source, stat, assumed, view, rule), handed=True
    )
    return found if found is not None else Decisions()


def _decide(source: str, stat, assumed: frozenset, view: ProjectView, rule) -> Decisions:
    """The copy run alone on the module's bytes: its reports positioned as the engine positions
    a finding (core.positions, suppressed or not: a comment does not change what is decided),
    and the gates its file's model holds. Without assumed parameters the module decides only
    against roots it holds itself, and its own screens (bytes, then syntax) say whether it can
    hold any: a project's auth or error module an `if` test calls is not parsed with LibCST
    (context-forge: 13 such modules, 0.57 MB, for no decision)."""
    data = read(source, stat, MODULE_LIMIT)
    if data is None or not (assumed or rule.screen(data)):
        return Decisions()  # no roots of its own (the rule's byte screen): nothing it decides itself
    copy = type(rule.__name__, (rule,), {"ASSUMED": assumed, "ACROSS": False})
    settings = Settings(select=frozenset({rule.CODE}), rules=(copy,), view=view)
    screen = None if assumed else (lambda syntax: rule.screen_tree(syntax, settings))
    try:
        context = rule_alone(source, data, settings, copy, screen)
    except Exception:  # noqa: BLE001 - a module we cannot parse decides nothing we can see
        return Decisions()
    if context is None:
        return Decisions()
    reports = [r for r in context.reports if r.code == rule.CODE]
    ranges = node_ranges(
        context.module,
        data.decode(context.module.encoding),
        [(r.node, r.ancestors) for r in reports],
        None,
        context.index,
    )
    at = frozenset(
        (ranges[id(r.node)].start.line, ranges[id(r.node)].start.column + 1, _ALLOW_LIST not in r.message)
        for r in reports
    )
    return Decisions(at, frozenset(file_effects(context).doers(GATES)))


def boundary(target: Callee, params: frozenset, view: ProjectView, rule) -> tuple | None:
    """(line, column) of the first check (else allow-list) that appears in `target`'s module only
    when `params` of `target` come from roots: where the roots a caller hands it become the
    boundary."""
    assumed = frozenset((target.owner, target.name, p) for p in params)
    plain = summary(target.source, frozenset(), view, rule)
    given = summary(target.source, assumed, view, rule)
    new = sorted(given.at - plain.at, key=lambda at: (not at[2], at[0], at[1]))
    return new[0][:2] if new else None


def decides_itself(target: Callee, view: ProjectView, rule) -> bool:
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
