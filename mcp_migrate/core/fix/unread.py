"""What a removal leaves unread, removed with it (issue 36 §5: "no leftovers: no unused variable,
no `if` with identical branches"): the local assignments and function-level imports only the
deleted code read, what their own removal leaves unread in turn, and an `if` the removals empty.
Shared by the suggested removals (core.fix.suggested) and the rules' own unsafe and suggested
Roots fixes (core.engine), each group of fixes one command applies together."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.apply import touched
from mcp_migrate.core.fix.edits import Fix, RemoveArg, RemoveElement, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.record import replace
from mcp_migrate.core.syntax import iter_nodes
from mcp_migrate.core.walk import children


def without_unread_locals(fixes: list, parents: dict) -> list:
    """`fixes` (one rule's unsafe or suggested fixes) each with the removal of the local bindings
    it leaves unread (`list_roots_cb = ...` once every `list_roots_callback=list_roots_cb` is
    dropped): no unused variable left behind (issue 36 §5). A read counts as gone when any of
    `fixes` deletes it."""
    gone: set = set()
    written: set = set()  # names the fixes' new code reads (a call now passing `str(repo)`)
    for fix in fixes:
        for edit in fix.edits:
            gone |= _removed_nodes(edit)
            if isinstance(edit, Replace):
                written |= {n.value for n in iter_nodes(edit.new) if isinstance(n, cst.Name)}
    out = []
    scopes: dict = {}  # id(function) -> (its bindings, its reads): walked once per call
    for fix in fixes:
        extra = tuple(e for edit in fix.edits for e in _emptied_locals(edit, parents, gone, scopes, written))
        out.append(replace(fix, edits=fix.edits + extra) if extra else fix)
    return out


def _removed_nodes(edit) -> set:
    """Identities of every node the edit deletes (an unwrapped `if` loses its test and the
    branch it does not keep)."""
    if isinstance(edit, Unwrap):
        if not isinstance(edit.node, cst.If):
            return set()  # a `try` unwrapped: its `except` body moves into `edit.first`, read still
        dropped = edit.node.orelse if edit.keep == "body" else edit.node.body
        return {id(n) for root in (edit.node.test, dropped) if root is not None for n in iter_nodes(root)}
    return touched(Fix((edit,)))


def _emptied_locals(edit, parents: dict, gone: set, scopes: dict, written: frozenset | set = frozenset()) -> tuple:
    """Removals of the local bindings the edit leaves unread, and of those their removal leaves
    unread in turn: a name read in the deleted code, bound in the enclosing function only by
    plain `name = value` statements (all of them go: mcp2py's `list_roots_callback = None`, then
    `= roots_callback` under an `if`) or once by a function-level import, and read nowhere else
    there except in code `gone` holds (no unused variable or import left behind: issue 36 §5). An import goes only
    when every name it binds does; a name the fixes' new code reads (`written`) stays."""
    if not isinstance(edit, (RemoveStatement, RemoveArg, RemoveElement, Unwrap)):
        return ()
    function = _enclosing_function(_anchor(edit), parents)
    if function is None:
        return ()
    gone = gone | _removed_nodes(edit)
    scope = scopes.get(id(function))
    if scope is None:
        scope = scopes[id(function)] = (_local_bindings(function), _local_reads(function))
    bindings, reads = scope
    out: list = []
    pending = sorted(_read_names(_anchor_roots(edit), gone))
    while pending:
        name = pending.pop()
        group = bindings.get(name, ())
        if not group or name in written or any(e.node is binding for binding in group for e in out):
            continue
        if any(id(n) not in gone for binding in group for bound in _binds(binding) for n in reads.get(bound, ())):
            continue
        for binding in group:
            out.append(RemoveStatement(binding))
            gone |= {id(n) for n in iter_nodes(binding)}
        pending.extend(sorted(_read_names(list(group), gone)))
    return tuple(out) + _unread_with_targets(edit, function, gone, reads) + _emptied_ifs([edit, *out], parents)


def _unread_with_targets(edit, function: cst.FunctionDef, gone: set, reads: dict) -> tuple:
    """`async with Client(...) as client:` in the function whose target nothing reads once the
    edit is applied loses its `as client` (pyflakes: assigned but never used)."""
    read = _read_names(_anchor_roots(edit), gone)
    out = []
    for node in _walk([function.body], into_scopes=False):
        if not isinstance(node, cst.With):
            continue
        for item in node.items:
            target = item.asname.name if item.asname is not None else None
            if not isinstance(target, cst.Name) or target.value not in read:
                continue
            if all(n is target or id(n) in gone for n in reads.get(target.value, ())):
                out.append(Replace(item, item.with_changes(asname=None)))
    return tuple(out)


def _emptied_ifs(edits: list, parents: dict) -> tuple:
    """An `if` without `else` whose body these removals empty goes as a whole (not left as
    `if x: pass`), and so on outwards."""
    removed = {id(e.node) for e in edits if isinstance(e, RemoveStatement)}
    out: list = []
    node = _anchor(edits[0])
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break
        if not (isinstance(node, cst.If) and node.orelse is None and isinstance(node.body, cst.IndentedBlock)):
            continue
        if not all(_statement_removed(statement, removed) for statement in node.body.body):
            break
        if isinstance(parents.get(id(node)), cst.If):
            break  # an `elif`
        out.append(RemoveStatement(node))
        removed.add(id(node))
    return tuple(out)


def _statement_removed(statement, removed: set) -> bool:
    if id(statement) in removed:
        return True
    if isinstance(statement, cst.SimpleStatementLine):
        return all(id(small) in removed or isinstance(small, cst.Pass) for small in statement.body)
    return False


def _read_names(roots: list, gone: set) -> set:
    return {n.value for n in _walk(roots) if isinstance(n, cst.Name) and id(n) in gone}


def _local_bindings(function: cst.FunctionDef) -> dict:
    """{name: the statements of the function (not of a nested scope) that bind it}, for the
    names bound only by plain `name = value` statements, or exactly once by an import; a name
    bound any other way too (a parameter, a loop, `with ... as`, `+=`) has none."""
    found: dict = {}
    other: set = {p.name.value for p in _parameters(function.params)}
    for node in _walk([function.body], into_scopes=False):
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                found.setdefault(targets[0].value, []).append(node)
            else:
                other |= {n.value for n in _walk(targets) if isinstance(n, cst.Name)}
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            for name in _binds(node):
                found.setdefault(name, []).append(node)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            other |= {n.value for n in _walk([node.target]) if isinstance(n, cst.Name)}
        elif isinstance(node, cst.With):
            other |= {
                n.value for i in node.items if i.asname for n in _walk([i.asname.name]) if isinstance(n, cst.Name)
            }
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            other.add(node.name.value)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            other |= {item.name.value for item in node.names}
    return {
        name: tuple(nodes)
        for name, nodes in found.items()
        if name not in other and (len(nodes) == 1 or all(isinstance(n, cst.Assign) for n in nodes))
    }


def _binds(statement) -> list:
    """The names a local binding statement binds."""
    if isinstance(statement, cst.Assign):
        target = statement.targets[0].target
        return [target.value] if isinstance(target, cst.Name) else []
    if isinstance(statement, cst.ImportFrom):
        if isinstance(statement.names, cst.ImportStar):
            return ["*"]
        return [_alias_name(a) for a in statement.names]
    return [_alias_name(a) for a in statement.names]


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name: cst.BaseExpression = alias.name
    while isinstance(name, cst.Attribute):
        name = name.value
    return name.value if isinstance(name, cst.Name) else ""


def _local_reads(function: cst.FunctionDef) -> dict:
    """{name: the Name nodes that read it in the function, nested scopes included}: every Name
    but a binding's own target, the dotted names of import statements, an attribute's name
    (`context.message.capabilities` reads no local `capabilities`) and a keyword."""
    reads: dict = {}
    stack: list = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            stack.append(node.value)
            continue
        if isinstance(node, cst.Attribute):  # `context.message.capabilities` reads `context` only
            stack.append(node.value)
            continue
        if isinstance(node, cst.Arg) and node.keyword is not None:  # `f(capabilities=x)` reads `x`
            stack.append(node.value)
            continue
        if isinstance(node, cst.Name):
            reads.setdefault(node.value, []).append(node)
        stack.extend(children(node))
    return reads


def _parameters(params: cst.Parameters) -> list:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def _anchor(edit) -> cst.CSTNode:
    return {RemoveArg: lambda e: e.arg, RemoveElement: lambda e: e.element}.get(type(edit), lambda e: e.node)(edit)


def _anchor_roots(edit) -> list:
    if isinstance(edit, Unwrap) and isinstance(edit.node, cst.If):
        return [edit.node.test, edit.node.orelse if edit.keep == "body" else edit.node.body]
    return [_anchor(edit)]


def _enclosing_function(node: cst.CSTNode, parents: dict) -> cst.FunctionDef | None:
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, cst.FunctionDef):
            return node
    return None


def _walk(roots: list, into_scopes: bool = True):
    stack = [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        yield node
        if not into_scopes and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(node))
