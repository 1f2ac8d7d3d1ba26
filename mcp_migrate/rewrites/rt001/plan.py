"""RT001's rewrite, planned: where the request sits decides the strategy that may apply, the site
rewrite builds the fix, and a site no rewrite may touch gets a review marker instead."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.coordination import note_served_tools, note_still_asks
from mcp_migrate.core.fix.edits import AddComment, Fix
from mcp_migrate.core.fix.hollowed import library_method
from mcp_migrate.core.fix.suggested import deprecation
from mcp_migrate.core.modules import in_test_code
from mcp_migrate.core.record import replace
from mcp_migrate.core.settings import STRATEGIES
from mcp_migrate.core.syntax import (
    code_of,
    enclosing,
    parent_map,
    statement_of,
)
from mcp_migrate.rewrites.rt001.forwarding import forwards_the_roots
from mcp_migrate.rewrites.rt001.outcomes import CannotApply, NoRewrite, Outcome, SideChannelSite
from mcp_migrate.rewrites.rt001.site import SiteRewrite
from mcp_migrate.rewrites.rt001.strategies import strategy_for
from mcp_migrate.rewrites.rt001.tools import is_tool_function, served_tools

#: The start of every review marker the RT001 rewrite leaves.
MARKER = "# mcp-migrate: RT001 review:"


#: What to do with roots that carry data (a session id, a timezone) instead of directories.
SIDE_CHANNEL_DECISION = (
    "these roots carry data, not directories: decide how a client passes that value now"
    " (a tool argument or server configuration), then drop the request"
)


#: Why a function that only forwards the request is deprecated, not rewritten.
FORWARDS = (
    "this function only asks for roots for its callers, so it warns instead of going; its"
    " callers move to tool parameters or configuration, then it is deleted"
)


_BY_HAND = "take the directories as a tool parameter, a resource URI, or server configuration by hand"


def plan_request_rewrite(context, call: cst.Call, kind: str) -> Outcome:
    """Plan the rewrite of the roots request `call` seen at the current traversal point."""
    outcome = _plan(context, call, kind)
    if outcome.fix is None or outcome.marker_only or outcome.fix.display:
        # Clients in the same run keep their roots; `fix --apply-suggestions` frees them from a
        # request whose rewrite is a suggestion.
        suggested = outcome.fix is not None and outcome.fix.display and not outcome.marker_only
        note_still_asks(context, suggested=suggested)
    return outcome


def _plan(context, call: cst.Call, kind: str) -> Outcome:
    ancestors = context.ancestors
    settings = context.settings
    func = enclosing(ancestors[:-1], cst.FunctionDef)
    if func is None:
        return Outcome(None, (), "the request is not inside a function")
    tool = is_tool_function(func, context)
    applicable = STRATEGIES if tool else ("server-config",)
    strategy = settings.strategy or ("tool-parameter" if tool else "server-config")
    if strategy not in applicable:
        return Outcome(None, applicable, f"{strategy} applies only to tool functions")
    value = awaited_value(ancestors, call, context.resolver)
    if value is None:
        return _marked(func, call, _not_awaited_reason(ancestors, call), f"{_BY_HAND}, then rewrite this call")
    if (
        not tool
        and library_method(ancestors, func)
        and forwards_the_roots(func, value)
        and not in_test_code(context.path)
    ):
        deprecated = deprecation(func)
        if deprecated is not None:
            fix = Fix((deprecated.edit,), display=True, imports=deprecated.imports, keeps_working=True)
            return Outcome(fix, ("deprecation",), suggested=FORWARDS)
    builder = SiteRewrite(context, func, value, kind, strategy_for(strategy, settings))
    notes = context.notes
    told = (len(notes.tools), list(notes.env_vars), len(notes.client_calls))
    try:
        fix = builder.build()
    except SideChannelSite as exc:
        return _marked(func, value, str(exc), SIDE_CHANNEL_DECISION, side_channel=True)
    except NoRewrite as exc:
        return _marked(func, value, str(exc), "")
    except CannotApply as exc:
        return Outcome(None, applicable, str(exc))
    except Exception as exc:  # noqa: BLE001 - a planning bug must cost the fix, never the finding
        return Outcome(None, (), f"internal error while planning the rewrite ({type(exc).__name__}: {exc})")
    suggested = builder.suggested_because
    if not fix.display:
        if strategy == "server-config":
            note_served_tools(context, served_tools(context))
        held = settings.run.held_server(context.path)
        if held is not None:
            fix, suggested = replace(fix, display=True), held
    if fix.display:
        # Shown, not applied by `fix`: the run must not count on its parameter or setting; only
        # the plan of `fix --apply-suggestions`, which applies it, counts on its tools.
        notes.suggested_tools.extend(notes.tools[told[0] :])
        del notes.tools[told[0] :], notes.client_calls[told[2] :]
        notes.env_vars[:] = told[1]
    return Outcome(fix, applicable, suggested=suggested)


def _marked(func: cst.FunctionDef, node: cst.CSTNode, reason: str, decide: str, *, side_channel=False) -> Outcome:
    """A site no rewrite may touch: its fix is a `# mcp-migrate: RT001 review:` line above the
    statement saying why and what to decide (none once that line is there, so the fix is
    idempotent); the finding stays either way."""
    statement = statement_of(node, parent_map(func))
    todo = f"{reason}{':' if side_channel else ';'} {decide}" if decide else reason
    rule_says = SIDE_CHANNEL_DECISION if side_channel else ""
    if statement is None or _has_marker(statement):
        return Outcome(None, (), reason, rule_says)
    fix = Fix((AddComment(statement, f"{MARKER} {todo}"),), unsafe=True)
    return Outcome(fix, (), reason, rule_says, marker_only=True)


def _has_marker(statement: cst.CSTNode) -> bool:
    lines = getattr(statement, "leading_lines", ())
    return any(line.comment is not None and line.comment.value.startswith(MARKER) for line in lines)


#: Wrappers whose awaited result is the wrapped awaitable's result (a timeout or a shield
#: changes when, not what): the whole `await wrapper(request, ...)` is the roots value.
_TRANSPARENT_WAITS = frozenset({"asyncio.wait_for", "asyncio.shield", "anyio.fail_after"})


def awaited_value(ancestors: list, call: cst.Call, resolver) -> cst.BaseExpression | None:
    """The expression whose value is the roots result: `await request`, or the `await` of a
    transparent wrapper (`await asyncio.wait_for(request, timeout=1)`); None when the request's
    awaitable goes anywhere else (gather, create_task, a variable): replacing it with a list
    would hand a list to code that awaits it."""
    parent = ancestors[-2]
    if isinstance(parent, cst.Await) and parent.expression is call:
        return parent
    if len(ancestors) >= 4 and isinstance(parent, cst.Arg) and parent.keyword is None:
        wrapper, outer = ancestors[-3], ancestors[-4]
        if (
            isinstance(wrapper, cst.Call)
            and wrapper.args
            and wrapper.args[0] is parent
            and resolver.qualified(wrapper.func) in _TRANSPARENT_WAITS
            and isinstance(outer, cst.Await)
            and outer.expression is wrapper
        ):
            return outer
    return None


def _not_awaited_reason(ancestors: list, call: cst.Call) -> str:
    holder = ancestors[-3] if isinstance(ancestors[-2], cst.Arg) and len(ancestors) >= 3 else ancestors[-2]
    if isinstance(holder, cst.Call):
        return f"the request's awaitable is handed to `{code_of(holder.func)}(...)`, which would get a list"
    return "the request is not awaited where it is made (its awaitable is kept for later)"
