"""The branch a Roots finding decides, as the edit that removes it: a capability probe's `if`
(a 2026-07-28 client declares no roots, so a test that says roots are there is false). Read by
core.fix.suggested.

Not a dispatcher's branch that answers a Roots method (`if method == "roots/list":`): tried in
session 48 and backed out. Applied with `--apply-suggestions`, it broke four of
fastapi-mcp-router's tests, which send `roots/list` to the router and wait while the project's
code keeps Roots elsewhere; the tests of that flow would have to go with it (issue 36 §4)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import Edit, RemoveStatement, Unwrap
from mcp_migrate.core.syntax import code_of


def branch_removal(chain: list, i: int, value: cst.CSTNode) -> Edit | None:
    """A finding that decides an `if`'s test (a capability probe, a branch that answers
    `roots/list`): the branch that exists only for roots goes. A 2026 client declares no roots
    capability, so a test that says roots are there (`caps.roots`, `caps.roots is not None`,
    the probe in an `and`) is false: the `if` goes, and its `else`, the branch taken without
    roots, stays.

    Not a test that says roots are missing (`not caps.roots`, `caps.roots is None`), unless it
    only refuses and nothing after it reads roots (`_requirement`), nor a gate whose roots
    branch only lets through (a bare `return` above a refusal): both guard code
    that still uses roots, which RT001's rewrite migrates together with its guards where it can
    (a reviewer found the removal turned a client's "roots not advertised" error and an SDK's
    capability check into no check at all). Not an `elif`, whose removal would rewrite the `if`
    it hangs on."""
    holder = chain[i - 1] if i > 0 else None
    if isinstance(holder, cst.UnaryOperation) and isinstance(holder.operator, cst.Not):
        return _requirement(chain, i - 1)
    if isinstance(holder, cst.Comparison) and holder.left is value:
        missing = _none_test(holder)
        if missing:
            return _requirement(chain, i - 1)
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


def _requirement(chain: list, i: int) -> Edit | None:
    """`if not caps.roots: raise ValueError("Client must support roots")` above other work of its
    block that reads no roots (mcp-use's initialize middleware): a requirement, not the guard of
    a request, nor a check of its own (the reviewer's "roots not advertised" error). A 2026-07-28
    client declares no roots, so it would refuse every client: it goes. `chain[i]` is the test
    that says roots are missing."""
    test = chain[i]
    holder = chain[i - 1] if i > 0 else None
    block = chain[i - 2] if i > 1 else None
    if not isinstance(holder, cst.If) or holder.test is not test or holder.orelse is not None:
        return None
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or not _refuses(holder.body):
        return None
    after = list(block.body)[next(k for k, s in enumerate(block.body) if s is holder) + 1 :]
    if not after:
        return None  # a check of its own (`def require_roots(caps)`): its callers rely on it
    if any("roots" in code_of(statement).lower() for statement in after):
        return None  # the guard of what follows (RT001's rewrite takes them together)
    return RemoveStatement(holder)


def _refuses(block: cst.BaseSuite) -> bool:
    """A block that only refuses: one `raise`, or one `return` of a value (an error)."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if len(statements) != 1 or not isinstance(statements[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    smalls = statements[0].body
    return len(smalls) == 1 and (
        isinstance(smalls[0], cst.Raise) or (isinstance(smalls[0], cst.Return) and smalls[0].value is not None)
    )


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
