"""The unsafe follow-up of a removal: module-level functions nothing refers to any more."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.apply import merge_lines
from mcp_migrate.core.fix.imports import name_uses


def remove_orphan_functions(module: cst.Module, names: set) -> cst.Module:
    """Unsafe follow-up: delete module-level functions nothing in the file refers to any more."""
    uses = name_uses(module)
    doomed = {n for n in names if uses.get(n, 0) <= 0}
    if not doomed:
        return module
    body = []
    carry = []
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
