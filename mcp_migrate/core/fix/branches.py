"""The branch a Roots finding decides, as the edit that removes it: a capability probe's `if`
(a 2026-07-28 client declares no roots, so a test that says roots are there is false) and a
dispatcher's branch that answers a Roots method (the message falls through to what answers an
unknown method). Read by core.fix.suggested."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import Edit, RemoveStatement, Replace, Unwrap


def branch_removal(chain: list, i: int, value: cst.CSTNode) -> Edit | None:
    """A finding that decides an `if`'s test (a capability probe, a branch that answers
    `roots/list`): the branch that exists only for roots goes. A 2026 client declares no roots
    capability, so a test that says roots are there (`caps.roots`, `caps.roots is not None`,
    the probe in an `and`) is false: the `if` goes, and its `else`, the branch taken without
    roots, stays.

    Not a test that says roots are missing (`not caps.roots`, `caps.roots is None`), nor a gate
    whose roots branch only lets through (a bare `return` above a refusal): both guard code
    that still uses roots, which RT001's rewrite migrates together with its guards where it can
    (a reviewer found the removal turned a client's "roots not advertised" error and an SDK's
    capability check into no check at all). Not an `elif`, whose removal would rewrite the `if`
    it hangs on."""
    holder = chain[i - 1] if i > 0 else None
    if isinstance(holder, cst.UnaryOperation) and isinstance(holder.operator, cst.Not):
        return None
    dispatch = _dispatch_branch(chain, i, value)
    if dispatch is not None:
        return dispatch
    if isinstance(holder, cst.Comparison) and holder.left is value:
        missing = _none_test(holder)
        if missing:
            return None
        if missing is False:  # `caps.roots is not None`
            value, i = holder, i - 1
            holder = chain[i - 1] if i > 0 else None
    while isinstance(holder, cst.BooleanOperation) and isinstance(holder.operator, cst.And):
        value, i = holder, i - 1  # `X and <there>` is false as the probe is
        holder = chain[i - 1] if i > 0 else None
    if not isinstance(holder, cst.If) or holder.test is not value:
        return None
    if i > 1 and isinstance(chain[i - 2], cst.If):
        return None  # an `elif`: its removal rewrites the `if` above it (not written here)
    if isinstance(holder.orelse, cst.Else):
        return Unwrap(holder, "orelse")
    if holder.orelse is not None or _only_leaves(holder.body):
        return None
    return RemoveStatement(holder)


def _dispatch_branch(chain: list, i: int, value: cst.CSTNode) -> Edit | None:
    """`if method == "roots/list":` (or `elif`): the branch of a dispatcher that answers a Roots
    method goes, and the message falls through to what answers an unknown method, as a
    2026-07-28 peer's would. Only a test that is the one comparison with the method string; an
    `elif` goes where the chain goes on after it (an `if` or `else` takes its place)."""
    target = chain[i - 1] if i > 0 else None
    comparison = chain[i - 2] if i > 1 else None
    if not (
        isinstance(value, (cst.SimpleString, cst.ConcatenatedString))
        and isinstance(target, cst.ComparisonTarget)
        and target.comparator is value
        and isinstance(target.operator, cst.Equal)
        and isinstance(comparison, cst.Comparison)
        and len(comparison.comparisons) == 1
    ):
        return None
    branch = chain[i - 3] if i > 2 else None
    if not isinstance(branch, cst.If) or branch.test is not comparison:
        return None
    if i > 3 and isinstance(chain[i - 4], cst.If):  # an `elif`: what follows it takes its place
        return Replace(branch, branch.orelse) if branch.orelse is not None else None
    if isinstance(branch.orelse, cst.Else):
        return Unwrap(branch, "orelse")
    return RemoveStatement(branch) if branch.orelse is None else None


def _only_leaves(block: cst.BaseSuite) -> bool:
    """A block that only lets the caller through: a bare `return` (what follows it is then the
    refusal, as in a capability check)."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if len(statements) != 1 or not isinstance(statements[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    smalls = statements[0].body
    return len(smalls) == 1 and isinstance(smalls[0], cst.Return) and smalls[0].value is None


def _none_test(comparison: cst.Comparison) -> bool | None:
    """`x is None` / `x == None`: True; `x is not None` / `x != None`: False; else None."""
    if len(comparison.comparisons) != 1:
        return None
    target = comparison.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, (cst.Is, cst.Equal)):
        return True
    if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
        return False
    return None
