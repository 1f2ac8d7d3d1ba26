"""A finding whose construct another finding's fix deletes goes with that fix (issue 36 §1: every
finding on a flow points to that flow's plan): a provider's `def` with the removal of its
`list_roots_callback=` wiring, a capability probe with the guard the request's rewrite unwraps.
Left alone it would read as Roots kept without an edit, and hold the project's tests back."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import RemoveArg, RemoveElement, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.fix.imports import name_uses
from mcp_migrate.core.fix.orphans import doomed_functions, removed_parts
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
    left = [rep for rep in bare if id(rep) not in out]
    if left and uses:
        out.update(_carried_together(left, fixing, module, uses, kind_of))
    return out


#: The kinds of fix in the order the commands add them: `fix` applies the safe ones,
#: `--unsafe-fixes` the unsafe ones too, `--apply-suggestions` the displayed ones as well.
_COMMANDS = (("safe",), ("safe", "unsafe"), ("safe", "unsafe", "display"))


def _carried_together(bare: list, fixing: list, module: cst.Module, uses: dict, kind_of) -> dict:
    """{id(report): carrier} for reports inside a module-level function that only the fixes one
    command applies, together, leave unused (DevNarrate's test factory `_roots_callback`, wired
    sixteen times: no single removal orphans it, all of them do). The carrier is the first of
    those fixes that removes a use of it, of the least command that deletes it."""
    out: dict = {}
    functions = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
    for kinds in _COMMANDS:
        group = [rep for rep in fixing if kind_of(rep) in kinds]
        doomed = doomed_functions(module, [rep.fix for rep in group], uses)
        for name in doomed:
            inside = {id(n) for n in iter_nodes(functions[name])}
            carrier = next((rep for rep in group if name in rep.fix.orphans and _uses(rep.fix, name)), None)
            if carrier is None:
                continue
            for rep in bare:
                if id(rep) not in out and id(rep.node) in inside:
                    out[id(rep)] = carrier
    return out


def _uses(fix, name: str) -> bool:
    """Whether `fix` removes a use of `name`."""
    return any(isinstance(n, cst.Name) and n.value == name for part in removed_parts(fix) for n in iter_nodes(part))
