"""A finding whose construct another finding's fix deletes goes with that fix (issue 36 §1: every
finding on a flow points to that flow's plan): a provider's `def` with the removal of its
`list_roots_callback=` wiring, a capability probe with the guard the request's rewrite unwraps.
Left alone it would read as Roots kept without an edit, and hold the project's tests back."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import RemoveArg, RemoveElement, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.fix.imports import name_uses
from mcp_migrate.core.fix.orphans import doomed_functions
from mcp_migrate.core.syntax import iter_nodes

#: Said before the help of a finding that goes with another finding's fix (the carrier's line is
#: added once positions are known: `with_line`).
GOES_WITH = "it goes with the fix of the {code} finding, which removes it"


def with_line(help_text: str, code: str, line: int) -> str:
    """The help with the carrier's line in its note."""
    return help_text.replace(f"the {code} finding, which", f"the {code} finding on line {line}, which", 1)


def removed_nodes(fix, module: cst.Module, uses: dict) -> set:
    """Identities of the original nodes applying `fix` deletes (not those a replacement keeps,
    nor the branch an unwrap keeps), with the functions its orphan clean-up deletes (`uses`:
    the module's name_uses)."""
    ids: set = set()
    for edit in fix.edits:
        if isinstance(edit, RemoveStatement):
            ids |= {id(n) for n in iter_nodes(edit.node)}
        elif isinstance(edit, Replace):
            ids |= {id(n) for n in iter_nodes(edit.node)} - {id(n) for n in iter_nodes(edit.new)}
        elif isinstance(edit, RemoveArg):
            ids |= {id(n) for n in iter_nodes(edit.arg)}
        elif isinstance(edit, RemoveElement):
            ids |= {id(n) for n in iter_nodes(edit.element)}
        elif isinstance(edit, Unwrap) and isinstance(edit.node, cst.If):
            dropped = edit.node.orelse if edit.keep == "body" else edit.node.body
            ids |= {id(n) for root in (edit.node.test, dropped) if root is not None for n in iter_nodes(root)}
        elif isinstance(edit, Unwrap) and isinstance(edit.node, cst.Try):
            ids |= {id(n) for handler in edit.node.handlers for n in iter_nodes(handler)}
    if fix.orphans:
        doomed = doomed_functions(module, [fix], uses)
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in doomed:
                ids |= {id(n) for n in iter_nodes(statement)}
    return ids


def carriers(reports: list, module: cst.Module, kind_of) -> dict:
    """{id(report): the report whose fix deletes its node} for the reports without any edit
    (`kind_of(report)` is "none"), among those whose fix writes code (`kind_of`: safe, unsafe,
    display; a marker deletes nothing)."""
    bare = [rep for rep in reports if kind_of(rep) == "none"]
    fixing = [
        rep
        for rep in reports
        if rep.fix is not None and rep.fix.edits and kind_of(rep) in ("safe", "unsafe", "display")
    ]
    if not bare or not fixing:
        return {}
    out: dict = {}
    uses = name_uses(module) if any(carrier.fix.orphans for carrier in fixing) else {}  # one walk
    for carrier in fixing:
        gone = removed_nodes(carrier.fix, module, uses)
        for rep in bare:
            if id(rep) not in out and id(rep.node) in gone:
                out[id(rep)] = carrier
    return out
