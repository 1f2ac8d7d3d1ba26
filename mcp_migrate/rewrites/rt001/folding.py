"""Constant folding after a rewrite: tests that the rewrite settled (`if True:`, `x or True`)
reduced so no dead branch is left behind."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import RemoveStatement, Replace, Unwrap
from mcp_migrate.core.fix.nodes import substituted
from mcp_migrate.core.syntax import (
    iter_nodes,
    short,
)
from mcp_migrate.rewrites.rt001.flow import always_exits, unreachable_after
from mcp_migrate.rewrites.rt001.outcomes import NotUnderstood, UsePlan


class ConstantFolder:
    """Settles the tests the rewrite decided (a ListRootsResult is always true, a directory's
    scheme is always "file"): `False or not directories` becomes `not directories`, `if True:`
    its body, `x if False else y` just `y`. A constant left in the output is junk a reviewer
    must clean up; where a test cannot be settled without guessing, nothing is rewritten."""

    def __init__(self, func: cst.FunctionDef, parents: dict, plan: UsePlan):
        self.func = func
        self.parents = parents
        self.plan = plan

    def run(self) -> None:
        for edit in list(self.plan.edits):
            if any(e is edit for e in self.plan.edits) and _constant(edit) is not None:
                self._fold(edit)

    def _fold(self, edit: Replace) -> None:
        node, value = edit.node, _constant(edit)
        if value is None:  # (run() folds constants only)
            return
        parent = self.parents.get(id(node))
        if isinstance(parent, cst.BooleanOperation):
            is_or = isinstance(parent.operator, cst.Or)
            if value is not is_or:  # `False or x`, `True and x`: x decides
                self._settle(parent, parent.right if parent.left is node else parent.left)
            elif parent.left is node:  # `True or x`, `False and x`: x never ran
                self._settle(parent, cst.Name(str(value)))
            else:
                raise NotUnderstood(f"`{short(parent)}` is decided, but only after running its left side")
        elif isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            self._settle(parent, cst.Name(str(not value)))
        elif isinstance(parent, cst.IfExp) and parent.test is node:
            self._settle(parent, parent.body if value else parent.orelse)
        elif isinstance(parent, cst.If) and parent.test is node:
            self._settle_if(parent, value)
        elif isinstance(parent, cst.CompIf) and value:  # `for r in rs if True`: the filter goes
            comp_for = self.parents[id(parent)]  # a filter's parent: its `for`
            self._settle(comp_for, comp_for.with_changes(ifs=[i for i in comp_for.ifs if i is not parent]))
        elif isinstance(parent, cst.CompIf):
            raise NotUnderstood(f"the filter `if {short(node)}` lets no root through")
        elif isinstance(parent, cst.While) and parent.test is node:
            raise NotUnderstood(f"a `while` loop tests `{short(node)}`")

    def _settle(self, outer: cst.BaseExpression, part: cst.BaseExpression) -> None:
        """`outer` becomes `part` (a piece of it, with the edits planned inside that piece)."""
        inner = self._take_edits_inside(outer)
        kept = {id(n) for n in iter_nodes(part)}
        new = substituted(part, {key: e.new for key, e in inner.items() if key in kept})
        if getattr(outer, "lpar", None) and not new.lpar:  # `(a or b)` keeps the parentheses its place needed
            new = new.with_changes(lpar=outer.lpar, rpar=outer.rpar)
        self.plan.dropped.append(outer)
        edit = Replace(outer, new)
        self.plan.edits.append(edit)
        if _constant(edit) is not None:
            self._fold(edit)

    def _settle_if(self, node: cst.If, value: bool) -> None:
        """`if True:` is its body, `if False:` its `else` (or nothing); an `elif` is not guessed."""
        self._take_edits_inside(node.test)
        if isinstance(node.orelse, cst.If):
            raise NotUnderstood(f"`if {short(node.test)}:` is decided, and it has an `elif`")
        dropped = [node.test, node.orelse] if value else [node.test, node.body]
        self.plan.dropped.extend(d for d in dropped if d is not None)
        if value:
            self.plan.edits.append(Unwrap(node, "body"))
            if always_exits(node.body):
                edits, gone = unreachable_after(self.func, node)
                self.plan.edits.extend(edits)
                self.plan.dropped.extend(gone)
        elif node.orelse is not None:
            self.plan.edits.append(Unwrap(node, "orelse"))
        else:
            self.plan.edits.append(RemoveStatement(node))

    def _take_edits_inside(self, outer: cst.CSTNode) -> dict:
        """Remove and return (id of node -> edit) the Replace edits planned inside `outer`."""
        inside = {id(n) for n in iter_nodes(outer)}
        taken = {id(e.node): e for e in self.plan.edits if isinstance(e, Replace) and id(e.node) in inside}
        self.plan.edits[:] = [e for e in self.plan.edits if not (isinstance(e, Replace) and id(e.node) in taken)]
        return taken


def _constant(edit) -> bool | None:
    """True/False when `edit` replaces something by that constant."""
    if isinstance(edit, Replace) and isinstance(edit.new, cst.Name) and edit.new.value in ("True", "False"):
        return edit.new.value == "True"
    return None
