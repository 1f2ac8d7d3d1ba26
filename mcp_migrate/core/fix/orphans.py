"""The unsafe follow-up of a removal: module-level functions nothing refers to any more."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.apply import merge_lines
from mcp_migrate.core.fix.edits import RemoveArg, RemoveElement, RemoveStatement, Replace
from mcp_migrate.core.fix.imports import name_uses
from mcp_migrate.core.syntax import iter_nodes


def remove_orphan_functions(module: cst.Module, names: set) -> cst.Module:
    """Unsafe follow-up: delete module-level functions nothing in the file refers to any more."""
    uses = name_uses(module)
    doomed = {n for n in names if uses.get(n, 0) <= 0}
    if not doomed:
        return module
    body: list[cst.BaseStatement] = []
    carry: list[cst.EmptyLine] = []
    removed = False
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in doomed:
            carry.extend(line for line in stmt.leading_lines if line.comment is not None)
            removed = True
            continue
        if removed and body and _is_import_line(body[-1]) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            # Now right after the imports: one blank line, as isort puts it before plain code.
            own = list(stmt.leading_lines)
            while own and own[0].comment is None:
                own.pop(0)
            stmt = stmt.with_changes(leading_lines=[cst.EmptyLine(), *own])
        removed = False
        if carry:
            stmt = stmt.with_changes(leading_lines=merge_lines(carry, stmt.leading_lines))
            carry = []
        body.append(stmt)
    carry = [line for line in carry if line.comment is not None]
    return module.with_changes(body=body, footer=carry + list(module.footer))


def _is_import_line(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body
    )


def doomed_functions(module: cst.Module, fixes: list, uses: dict) -> set:
    """The module-level functions that applying all of `fixes` with their orphan clean-up
    deletes: every use of one of their `orphans` lies inside what the fixes remove (together:
    four registrations of one handler orphan it only all at once). `uses`: the module's
    name_uses. A fix naming one is unsafe whatever its edits are (a function may be imported
    elsewhere), so `fix` and `fix --unsafe-fixes` never leave different trees behind."""
    defined = {stmt.name.value for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
    names = {name for fix in fixes for name in fix.orphans if name in defined}
    if not names:
        return set()
    removed: dict = {}
    for node in _outermost([part for fix in fixes for part in removed_parts(fix)]):
        for name, count in name_uses(node).items():
            removed[name] = removed.get(name, 0) + count
    return {name for name in names if uses.get(name, 0) - removed.get(name, 0) <= 0}


def _outermost(parts: list) -> list:
    """`parts` without repeats and without those inside another part: two fixes removing the
    same test (one per finding in it) remove its uses once."""
    inner: set = set()
    for part in parts:
        inner |= {id(n) for n in iter_nodes(part) if n is not part}
    seen: set = set()
    out = []
    for part in parts:
        if id(part) not in seen and id(part) not in inner:
            seen.add(id(part))
            out.append(part)
    return out


def removed_parts(fix) -> list:
    """The nodes `fix` removes outright: statements, replaced nodes, arguments, dict entries."""
    out = []
    for edit in fix.edits:
        if isinstance(edit, (RemoveStatement, Replace)):
            out.append(edit.node)
        elif isinstance(edit, RemoveArg):
            out.append(edit.arg)
        elif isinstance(edit, RemoveElement):
            out.append(edit.element)
    return out
