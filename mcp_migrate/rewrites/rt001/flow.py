"""Control-flow facts the RT001 rewrite needs: whether a block always exits, what becomes
unreachable, whether the directories may be None where they are used."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import Edit, RemoveStatement, Replace
from mcp_migrate.core.fix.nodes import substituted
from mcp_migrate.core.syntax import (
    code_of,
    iter_nodes,
    parent_map,
)


def tolerates_none(func: cst.FunctionDef, edits: list, target: str) -> bool:
    """Every read of `target` the edits plant is safe when it holds None instead of a list: a
    truth test, or a use that only runs once a truth test said there are directories (`if
    target:` body, the `else` of `if not target:`, after `if not target: return`, `target and
    ...`, `... if target else ...`). Then an optional parameter defaulting to None keeps the old
    no-roots behaviour."""
    planted = {id(e.node): e.new for e in edits if isinstance(e, Replace)}
    parents = parent_map(func)

    def effective(expr: cst.CSTNode) -> str:
        return code_of(substituted(expr, planted)).strip()

    for edit in edits:
        if not isinstance(edit, Replace) or not any(
            isinstance(n, cst.Name) and n.value == target for n in iter_nodes(edit.new)
        ):
            continue
        if effective(edit.new) in (target, f"not {target}") and _tested(edit.node, parents.get(id(edit.node))):
            continue
        if not _guarded(edit.node, parents, effective, target):
            return False
    return True


def _tested(node: cst.CSTNode, parent) -> bool:
    """Only the truth of `node` matters: None and [] give the same result."""
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is node:
        return True
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    return isinstance(parent, cst.BooleanOperation) and isinstance(parent.operator, cst.Or) and parent.left is node


def _guarded(node: cst.CSTNode | None, parents: dict, effective, target: str) -> bool:
    """`node` only runs after a test found `target` non-empty."""
    while node is not None:
        parent = parents.get(id(node))
        if isinstance(parent, cst.If) and parent.body is node and effective(parent.test) == target:
            return True
        if isinstance(parent, cst.Else):
            owner = parents.get(id(parent))
            if isinstance(owner, cst.If) and effective(owner.test) == f"not {target}":
                return True
        if isinstance(parent, cst.IfExp) and parent.body is node and effective(parent.test) == target:
            return True
        if (
            isinstance(parent, cst.BooleanOperation)
            and isinstance(parent.operator, cst.And)
            and parent.right is node
            and effective(parent.left) == target
        ):
            return True
        if isinstance(parent, cst.IndentedBlock) and _after_early_exit(parent, node, effective, target):
            return True
        node = parent
    return False


def _after_early_exit(block: cst.IndentedBlock, stmt: cst.CSTNode, effective, target: str) -> bool:
    for earlier in block.body:
        if earlier is stmt:
            return False
        if (
            isinstance(earlier, cst.If)
            and earlier.orelse is None
            and effective(earlier.test) == f"not {target}"
            and always_exits(earlier.body)
        ):
            return True
    return False


def always_exits(block: cst.BaseSuite) -> bool:
    """The block's last statement returns or raises."""
    last = block.body[-1] if block.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    return isinstance(last, (cst.Return, cst.Raise))


def unreachable_after(func: cst.FunctionDef, stmt: cst.BaseStatement) -> tuple:
    """(RemoveStatement edits, dropped statements) for what follows `stmt` in its block: once
    `stmt` always leaves the function, left in place it would read as live code."""
    block = parent_map(func).get(id(stmt))
    if not isinstance(block, cst.IndentedBlock):
        return [], []
    after = list(block.body)[[id(s) for s in block.body].index(id(stmt)) + 1 :]
    edits: list[Edit] = []
    for later in after:
        smalls = later.body if isinstance(later, cst.SimpleStatementLine) else [later]
        edits.extend(RemoveStatement(small) for small in smalls)
    return edits, after
