"""Who decides that a call builds a message: the callee's body when the project defines it
(issue 35 §1). `rpc.call("roots/list")` on a library's client is a request by the verb's name
(`wire.sends`); `_jsonrpc_request("roots/list")` or `self._frame(kind, "roots/list")` is one
because the project's own function puts that argument in a message's `method` and sends, writes
or returns it (the effects summary's SENDS_METHOD_PARAM, vocabulary/effects.py), and
`describe("roots/list")` is none, whatever either is called."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.project_view import view_of
from mcp_migrate.vocabulary.effects import SENDS_METHOD_PARAM, effects_of
from mcp_migrate.vocabulary.imported_asks import imported_effects
from mcp_migrate.vocabulary.wrappers import callee_key, imported_target


def callee_builds(context, resolver, ancestors: list) -> bool | None:
    """For a method string or constant at ancestors[-1] handed to a call as an argument: whether
    the callee makes it the `method` of a message it sends, writes or returns, decided by the
    callee's body when the project defines it, whatever the callee is called: True when the
    argument fills a parameter that becomes the method (`_frame`, `_jsonrpc_request`: the
    effects summary's SENDS_METHOD_PARAM), False when the body provably sends nothing with it
    (only compares, looks up or formats it). None when the body decides neither (the parameter
    is handed on to another call: a relay's `self._executor.execute(..., method)`), when the
    callee is not a function of this file or of another module of the project (a library's
    `rpc.call`), or when the arguments cannot be matched to its parameters: the callee's name
    decides then (`wire.sends`, `wire.builds`)."""
    i = len(ancestors) - 2
    while i >= 0 and isinstance(ancestors[i], cst.ConcatenatedString):
        i -= 1
    arg, call = (ancestors[i], ancestors[i - 1]) if i >= 1 else (None, None)
    if not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call) or arg.star:
        return None
    found = _callee_effects(context, resolver, call.func, ancestors[: i - 1])
    if found is None:
        return None
    if arg.keyword is not None:
        param = arg.keyword.value
    else:
        before = call.args[: call.args.index(arg)]
        if any(a.star or a.keyword is not None for a in before) or len(before) >= len(found.params):
            return None
        param = found.params[len(before)]
    if SENDS_METHOD_PARAM in found.effects and param in found.method_params:
        return True
    return False if param in found.inert_params else None


def _callee_effects(context, resolver, func, ancestors: list):
    """The effects summary (vocabulary.effects.FunctionEffects) of the function `func` names: one
    of this file (`helper`, `self.helper`) or one another module of the project defines; None
    when neither."""
    path = context.path
    if (
        isinstance(func, cst.Name)
        and resolver.lookup(func.value) is None
        or (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")
        )
    ):
        key = callee_key(func, ancestors, resolver)
        if key is None:
            return None
        own = context.memo.get("effects")
        if own is None:
            own = context.memo["effects"] = effects_of(context.data, view_of(context.settings))
        return own.of(key)
    target = imported_target(func, resolver) if path and not path.startswith("<") else None
    if target is None:
        return None
    module, key = target
    found = imported_effects(path, module, key, view_of(context.settings), context.settings.max_file_size, True)
    return found[2] if found is not None else None
