"""RT002's rewrite: a client's roots provider removed (the argument, the statement, a callback
nothing else uses), keeping the directories it held."""

from __future__ import annotations

from typing import Any

import libcst as cst

from mcp_migrate.core.coordination import KeptPlumbing, note_kept_plumbing
from mcp_migrate.core.fix.builders import whole_statement
from mcp_migrate.core.fix.edits import AddComment, Edit, Fix, RemoveArg, RemoveStatement, Replace
from mcp_migrate.core.syntax import (
    enclosing,
    is_reference,
    iter_nodes,
    module_binding,
    positional,
)
from mcp_migrate.rewrites.names import sole_local
from mcp_migrate.rewrites.rt002.directories import directories_of
from mcp_migrate.rewrites.rt002.handover import with_directories

#: The marker left where a provider is the project's own parameter, passed through.
PASS_THROUGH = (
    "# mcp-migrate: RT002 review: `{name}`, a parameter of `{func}`, is no longer passed on here: its"
    " callers still hand roots to it; remove or deprecate the parameter with them"
)


def remove_provider_arg(context, call: cst.Call, arg: cst.Arg) -> Fix | None:
    """Drop `list_roots_callback=` / `roots=` / the positional callback; keep literal roots. A
    callback that is the enclosing function's own parameter (`list_roots_callback=
    list_roots_callback`) is the project's public plumbing: removing only the pass-through would
    leave the parameter silently dead (issue 20 §3), so that removal is only suggested, with a
    comment saying what to decide (`_pass_through`)."""
    if isinstance(arg.value, cst.Name) and _parameter_of_enclosing(context, arg.value):
        return _pass_through(context, call, arg)
    edits: list[Edit] = [_removal(call, arg)]
    orphans = _callback_names(arg.value)
    dead = _dead_callback(context, orphans)
    helpers = _called_functions(context, dead) if dead is not None else ()
    if dead is not None and (helpers or isinstance(arg.value, cst.Call)):
        # Removed with the argument, and so are the helpers only it called (not left to the
        # orphan clean-up, which runs after the pass): an edit another fix makes inside them
        # then conflicts and is dropped, instead of leaving behind an import it added.
        edits.append(RemoveStatement(dead))
        only_here = [h for h in helpers if _only_used_inside(context, h, dead)]
        edits.extend(RemoveStatement(module_binding(context.module, h)) for h in only_here)
        orphans = tuple(h for h in helpers if h not in only_here)
    local = sole_local(context, arg.value)
    if local is not None:  # `roots = [...]`, or a callback defined for this one argument (a
        edits.append(RemoveStatement(local))  # test's closure), only fed it: it goes too
    if isinstance(local, cst.FunctionDef):
        dirs = directories_of(context, arg.value, local_def=local)
    else:
        dirs = directories_of(context, local.value if local is not None else arg.value)
    return with_directories(context, edits, dirs, orphans, client=call)


def _parameter_of_enclosing(context, value: cst.Name) -> bool:
    func: Any = enclosing(context.ancestors, cst.FunctionDef)
    if func is None:
        return False
    params = func.params
    return value.value in {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def _pass_through(context, call: cst.Call, arg: cst.Arg) -> Fix | None:
    """A provider that is a parameter of the enclosing function: removing the argument would
    leave the public parameter without effect, so the removal, with a comment saying what to
    decide, is only suggested (issue 36 §4: a concrete edit, not a marker alone)."""
    value = arg.value
    assert isinstance(value, cst.Name)
    func: Any = enclosing(context.ancestors, cst.FunctionDef)
    statement: Any = enclosing(context.ancestors, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    if statement is None:
        return None
    text = PASS_THROUGH.format(name=value.value, func=func.name.value)
    owner: Any = enclosing(context.ancestors, cst.ClassDef)
    qualname = f"{owner.name.value}.{func.name.value}" if owner is not None else func.name.value
    note_kept_plumbing(context, KeptPlumbing("parameter", value.value, qualname))
    head = text[: len("# mcp-migrate: RT002 review:")]
    edits: list[Edit] = [_removal(call, arg)]
    if not any(line.comment is not None and line.comment.value.startswith(head) for line in statement.leading_lines):
        edits.append(AddComment(statement, text))
    return Fix(tuple(edits), unsafe=True, display=True)


def _removal(call: cst.Call, arg: cst.Arg) -> Edit:
    """The argument's removal; a positional one before others becomes `None` (later positional
    arguments keep their slots)."""
    if arg.keyword is None and arg is not positional(call)[-1]:
        return Replace(arg.value, cst.Name("None"))
    return RemoveArg(call, arg)


def _callback_names(value: cst.BaseExpression) -> tuple:
    """The module function the removed argument named, or called to build the callback
    (`_roots_callback(str(repo))`): deleted when nothing else in the file uses it."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return (value.func.value,)
    return (value.value,) if isinstance(value, cst.Name) else ()


def _dead_callback(context, names: tuple) -> cst.FunctionDef | None:
    """The module-level callback (or callback factory) the argument named, when that argument
    is the only use of its name in the file."""
    if len(names) != 1:
        return None
    func = module_binding(context.module, names[0])
    if not isinstance(func, cst.FunctionDef) or func.decorators:
        return None
    parents = context.index.parents
    uses = [n for n in context.index.names_called(names[0]) if is_reference(n, parents.get(id(n)))]
    return func if len(uses) == 1 else None


def _only_used_inside(context, name: str, func: cst.FunctionDef) -> bool:
    """Every reference to `name` in the file is inside `func`."""
    inside = {id(n) for n in iter_nodes(func)}
    parents = context.index.parents
    uses = [n for n in context.index.names_called(name) if is_reference(n, parents.get(id(n)))]
    return bool(uses) and all(id(n) in inside for n in uses)


def _called_functions(context, func: cst.FunctionDef) -> tuple:
    """Module-level functions `func` calls by name: orphans once `func` is gone."""
    called = {n.func.value for n in iter_nodes(func.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)}
    return tuple(sorted(n for n in called if isinstance(module_binding(context.module, n), cst.FunctionDef)))


def remove_provider_statement(context, call: cst.Call) -> Fix | None:
    """`client.set_roots(...)` as a whole statement."""
    statement = whole_statement(context.ancestors)
    if statement is None:
        return None
    args = positional(call)
    dirs = directories_of(context, args[0].value) if args else []
    return with_directories(context, [RemoveStatement(statement)], dirs, ())
