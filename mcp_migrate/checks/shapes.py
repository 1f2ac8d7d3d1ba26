"""Small syntactic questions the Roots rules share: literal strings, keyword arguments, and
where a wire-method string sits (a request built by hand, a dispatch, a constant...)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

ROOTS_LIST = "roots/list"
LIST_CHANGED = "notifications/roots/list_changed"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
#: Mapping keys and keyword names under which a client-capabilities mapping lives.
CAPABILITY_KEYS = frozenset({"capabilities", "clientCapabilities", "client_capabilities", CLIENT_CAPABILITIES_META_KEY})


_EMPTY = cst.Module([])


def code_of(node: cst.CSTNode) -> str:
    """A node's source text (for messages and for comparing small snippets)."""
    return _EMPTY.code_for_node(node)


def shorten(text: str, limit: int = 60) -> str:
    """Whitespace folded, cut to `limit` characters with `...`: snippets in messages."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short(node: cst.CSTNode, limit: int = 50) -> str:
    return shorten(code_of(node), limit)


def literal(expr: Optional[cst.CSTNode]) -> Optional[str]:
    """The value of a plain string literal (implicit concatenation included), else None."""
    if isinstance(expr, cst.SimpleString):
        prefix = expr.prefix.lower()
        if "b" in prefix:
            return None
        try:
            value = expr.evaluated_value
        except Exception:
            return None
        return value if isinstance(value, str) else None
    if isinstance(expr, cst.ConcatenatedString):
        left, right = literal(expr.left), literal(expr.right)
        return None if left is None or right is None else left + right
    return None


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list:
    return [a for a in call.args if a.keyword is None and not a.star]


def method_name(call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def is_false_or_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("False", "None")


def string_context(ancestors: list) -> Optional[str]:
    """Classify where the string literal at `ancestors[-1]` sits.

    Returns "request" (value of a "method" key: a message built by hand), "send" (first argument
    of a send_*/add_*handler call: the caller's name says which), "dispatch" (compared against,
    matched in a case, or used as a dispatch-table key or subscript), "constant" (a module or
    class constant), or None (anything else: log text, docstrings, unrelated data)."""
    node = ancestors[-1]
    i = len(ancestors) - 2
    # Step over implicit concatenation and parentheses-only wrappers.
    while i >= 0 and isinstance(ancestors[i], cst.ConcatenatedString):
        node, i = ancestors[i], i - 1
    if i < 0:
        return None
    parent = ancestors[i]
    if isinstance(parent, cst.DictElement):
        if parent.value is node and literal(parent.key) == "method":
            return "request"
        if parent.key is node:
            return "dispatch"
        return None
    if isinstance(parent, cst.Arg):
        call = ancestors[i - 1] if i >= 1 else None
        if isinstance(call, cst.Call) and parent.keyword is None and call.args and call.args[0] is parent:
            return "call:" + (method_name(call) or "")
        if isinstance(call, cst.Call) and parent.keyword is not None and parent.keyword.value == "method":
            return "call:" + (method_name(call) or "")
        return None
    if isinstance(parent, cst.ComparisonTarget) or isinstance(parent, cst.Comparison):
        return "dispatch"
    if isinstance(parent, (cst.MatchValue, cst.SubscriptElement, cst.Index)):
        return "dispatch"
    if isinstance(parent, (cst.Element,)) and i >= 1 and isinstance(ancestors[i - 1], (cst.Tuple, cst.Set, cst.List)):
        # `method in ("roots/list", ...)`
        j = i - 2
        if j >= 0 and isinstance(ancestors[j], (cst.ComparisonTarget, cst.Comparison)):
            return "dispatch"
        return None
    if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
        return "constant"
    return None
