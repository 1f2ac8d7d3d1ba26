"""A log line about the roots: `logger.debug(f"Roots result: {result}")` or `print(roots)` as a
statement of its own, reading the roots result or list as a whole (issue 36 §2: "the result used
as a whole in a log line"). It only reported the roots; once they are gone it has nothing to
report, so it goes with the request. A line that reads them in a way the rewrite understands
(`len(result.roots)`) is rewritten instead, by the consumer rewrite that asks here last."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import sole_small, statement_of

#: The level methods of `logging.Logger` (and of the loggers that copy its API: structlog,
#: loguru).
LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})


def log_statement(node: cst.CSTNode, parents: dict, resolver) -> cst.Expr | None:
    """The `Expr` statement holding `node` when it is a log call alone on its line, or None.
    `parents`: id(node) -> parent; `resolver`: the module's names (a `print` it binds itself is
    no builtin)."""
    small = sole_small(statement_of(node, parents))
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and _is_log_call(small.value, resolver):
        return small
    return None


def _is_log_call(call: cst.Call, resolver) -> bool:
    """A call of the builtin `print`, or of a logger's level method (`logger.info(...)`,
    `self.log.debug(...)`)."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value == "print" and resolver.lookup("print") is None
    return isinstance(func, cst.Attribute) and func.attr.value in LOG_LEVELS
