"""Fix descriptions: what a rule wants changed, as edits on original nodes.

Rules only describe edits; `mcp_migrate.core.fixer` applies every edit of a file in one
transformer pass. Builders return None where no safe rewrite exists (the finding then stays
reported with fix "none"): for example a call that is part of a larger expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import libcst as cst


@dataclass(frozen=True)
class RemoveStatement:
    """Delete one small statement (`Expr`, `Assign`, ...); an emptied block gets `pass`."""

    node: cst.BaseSmallStatement


@dataclass(frozen=True)
class RemoveArg:
    call: cst.Call
    arg: cst.Arg


@dataclass(frozen=True)
class RemoveElement:
    container: cst.Dict
    element: cst.BaseDictElement


@dataclass(frozen=True)
class Replace:
    node: cst.CSTNode
    new: cst.CSTNode


@dataclass(frozen=True)
class Insert:
    """Insert statements after (or, with `before`, before) a statement of a module or block;
    a statement whose text is already in that block is not inserted twice."""

    anchor: cst.BaseStatement
    statements: tuple
    before: bool = False


@dataclass(frozen=True)
class Unwrap:
    """Replace an `if` statement by the statements of one of its branches ("body" or "orelse"),
    edits inside that branch included."""

    node: cst.If
    keep: str


@dataclass(frozen=True)
class ReplaceSignature:
    """Give a function new parameters (and the whitespace after its `(`), keeping every edit
    inside its body: replacing the whole `def` would drop those."""

    func: cst.FunctionDef
    params: cst.Parameters
    whitespace_before_params: cst.BaseParenthesizableWhitespace


@dataclass(frozen=True)
class AddComment:
    """Put a `# mcp-migrate: ...` comment line above a statement, where a human must decide."""

    statement: cst.BaseStatement
    text: str


@dataclass(frozen=True)
class Fix:
    edits: tuple
    #: Function names whose (module-level) definitions become deletable once the edits are
    #: applied and nothing in the file refers to them any more; deleting is an unsafe fix.
    orphans: tuple = ()
    unsafe: bool = False
    #: Imports the edits need, as (module, name) for `from module import name` or
    #: (module, None) for `import module`; added with LibCST's AddImportsVisitor.
    imports: tuple = ()


def whole_statement(ancestors: list) -> Optional[cst.Expr]:
    """The expression statement that consists of the visited node alone (`x.f()` or
    `await x.f()`), or None when the node is part of something larger."""
    node = ancestors[-1]
    i = len(ancestors) - 2
    if i >= 0 and isinstance(ancestors[i], cst.Await) and ancestors[i].expression is node:
        node, i = ancestors[i], i - 1
    if i < 0 or not isinstance(ancestors[i], cst.Expr) or ancestors[i].value is not node:
        return None
    return ancestors[i]


def remove_statement(
    ancestors: list, small: Optional[cst.CSTNode] = None, *, orphans: tuple = (), unsafe: bool = False
) -> Optional[Fix]:
    """Delete the statement that consists of the node being visited (optionally awaited).

    `small` names the statement directly (a small statement, or a whole `def`); otherwise the
    visited expression must be the whole statement (`x.f()` or `await x.f()`), else there is
    no safe deletion and the result is None."""
    if small is None:
        small = whole_statement(ancestors)
        if small is None:
            return None
    edits = (RemoveStatement(small), *_stale_log_markers(ancestors, small))
    return Fix(edits, orphans=orphans or _passed_names(small), unsafe=unsafe)


#: A log line that reports the removed notification: "Sent roots/list_changed", "roots list changed".
_NOTIFICATION_TEXT = re.compile(r"roots?[\W_]{0,2}list[\W_]{0,2}changed|roots?[\W_]{1,2}changed", re.IGNORECASE)
_STALE_LOG = (
    "# mcp-migrate: RT004 review: this line reports a roots/list_changed notification that is no"
    " longer sent; reword or remove it"
)


def _stale_log_markers(ancestors: list, small: cst.CSTNode) -> tuple:
    """A marker on the statement just before or after a removed `send_roots_list_changed()`
    when it is a call whose message still says the notification was sent (left alone it lies;
    whether to drop it is the author's call)."""
    text = _code(small)
    if "send" not in text or ("roots_list_changed" not in text and "RootsListChanged" not in text):
        return ()
    line = next((a for a in ancestors if isinstance(a, cst.SimpleStatementLine) and small in a.body), None)
    block = ancestors[ancestors.index(line) - 1] if line is not None and ancestors.index(line) > 0 else None
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return ()
    body = list(block.body)
    at = body.index(line)
    neighbours = [body[i] for i in (at - 1, at + 1) if 0 <= i < len(body)]
    return tuple(AddComment(n, _STALE_LOG) for n in neighbours if _logs_notification(n))


def _logs_notification(stmt: cst.CSTNode) -> bool:
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
        return False
    value = stmt.body[0].value
    value = value.expression if isinstance(value, cst.Await) else value
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name in _LOG_CALLS and bool(_NOTIFICATION_TEXT.search(_code(value)))


_LOG_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "log", "critical"})


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def remove_arg(call: cst.Call, arg: cst.Arg, *, orphans: tuple = (), unsafe: bool = False) -> Fix:
    """Drop one argument of a call."""
    return Fix((RemoveArg(call, arg),), orphans=orphans or _passed_names(arg), unsafe=unsafe)


def remove_element(container: cst.Dict, element: cst.BaseDictElement, *, unsafe: bool = False) -> Fix:
    """Drop one entry of a dict display."""
    return Fix((RemoveElement(container, element),), unsafe=unsafe)


def _passed_names(node: cst.CSTNode) -> tuple:
    """Plain names handed over by the removed code (`= handler`, `f(..., handler)`): candidates
    for the unsafe follow-up that deletes a module-level function nobody refers to any more."""
    if isinstance(node, cst.Arg):
        return (node.value.value,) if isinstance(node.value, cst.Name) else ()
    if isinstance(node, cst.Assign):
        return (node.value.value,) if isinstance(node.value, cst.Name) else ()
    if isinstance(node, cst.Expr):
        call = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if isinstance(call, cst.Call):
            return tuple(a.value.value for a in call.args if isinstance(a.value, cst.Name))
    return ()
