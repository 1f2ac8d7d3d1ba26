"""The Roots wire vocabulary the rules share on the parsed tree (the method strings, their
constants and the capability keys are in `vocabulary.wire_names`, which the screens read too):
where a method string sits (a request built by hand, a dispatch, a registration, a
constant...); `WireMethodRule`, the string and constant handling of the rules about one method."""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import libcst as cst

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.sdk import ROOTS_TYPE_NAMES
from mcp_migrate.core.syntax import iter_nodes, literal, method_name, name_paths
from mcp_migrate.vocabulary.roots_types import inside_roots_type_definition
from mcp_migrate.vocabulary.wire_names import FORWARDS, LIST_CHANGED, LIST_CHANGED_SPELLINGS, builds, constant_method


def string_context(ancestors: list) -> str | None:
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
        if parent.value is node and method_key(parent.key):
            # What a test expects to have been sent is no send (issue 35 §3).
            return None if expected_value(ancestors) or _expected_local(ancestors) else "request"
        if parent.key is node:
            # A table mapping the method to text documents it (`{"roots/list": "asks ..."}`);
            # a dispatch table maps it to what handles it.
            return None if _text(parent.value) else "dispatch"
        return None
    if isinstance(parent, cst.Arg):
        call = ancestors[i - 1] if i >= 1 else None
        if isinstance(call, cst.Call) and parent.keyword is None and call.args and call.args[0] is parent:
            return "call:" + (method_name(call) or "")
        if isinstance(call, cst.Call) and parent.keyword is not None and parent.keyword.value == "method":
            return "call:" + (method_name(call) or "")
        if isinstance(call, cst.Call) and parent.keyword is None and builds("call:" + (method_name(call) or "")):
            return "call:" + (method_name(call) or "")  # `make_request(1, "roots/list")`: any position
        return None
    if isinstance(parent, cst.ComparisonTarget) or isinstance(parent, cst.Comparison):
        if asserted(ancestors[:i]) or selects_items(ancestors[:i]):
            return None
        return None if _compares_code(ancestors[: i + 1], node) else "dispatch"
    if isinstance(parent, cst.MatchValue):
        return None if _matches_code(ancestors[:i]) else "dispatch"
    if isinstance(parent, (cst.SubscriptElement, cst.Index)):
        return "dispatch"
    if isinstance(parent, (cst.Element,)) and i >= 1 and isinstance(ancestors[i - 1], (cst.Tuple, cst.Set, cst.List)):
        # `method in ("roots/list", ...)`
        j = i - 2
        if j >= 0 and isinstance(ancestors[j], (cst.ComparisonTarget, cst.Comparison)):
            if asserted(ancestors[:j]):
                return None
            return None if _compares_code(ancestors[: j + 1], ancestors[i - 1]) else "dispatch"
        return None
    if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
        return "constant"
    return None


#: The attributes through which syntax trees give a literal's value: `ast.Constant.value`,
#: LibCST's `SimpleString.value` / `evaluated_value` / `raw_value`, a token's `string`.
_LITERAL_VALUE_ATTRIBUTES = frozenset({"value", "evaluated_value", "raw_value", "string"})


def asserted(ancestors: list) -> bool:
    """Is the comparison below `ancestors` part of an `assert` statement's test (not inside a
    function or lambda defined there)? `assert msg["method"] == "roots/list"` and `assert
    "roots/list" in str(exc.value)` check what a test saw: they neither answer nor handle the
    method, whatever the test's name or folder (issue 35 §3)."""
    for anc in reversed(ancestors):
        if isinstance(anc, cst.Assert):
            return True
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
            return False
    return False


def selects_items(ancestors: list) -> bool:
    """Is the comparison below `ancestors` the filter of a comprehension that keeps the items
    themselves (`[f for f in frames if f.get("method") == "roots/list"]`)? It picks out the
    messages a test saw; it answers none of them (session 49's first look, stealth-chrome's wire
    test). A comprehension that does something with each item is not such a filter."""
    i = len(ancestors) - 1
    while i >= 0 and isinstance(ancestors[i], (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation)):
        i -= 1
    if i < 1 or not isinstance(ancestors[i], cst.CompIf):
        return False
    comp_for = ancestors[i - 1]
    comprehension = next(
        (a for a in reversed(ancestors[: i - 1]) if isinstance(a, (cst.ListComp, cst.SetComp, cst.GeneratorExp))),
        None,
    )
    if not isinstance(comp_for, cst.CompFor) or comprehension is None:
        return False
    target, element = comp_for.target, comprehension.elt
    return isinstance(target, cst.Name) and isinstance(element, cst.Name) and element.value == target.value


#: The containers a literal value is built of (`{"result": {"roots": [{...}]}}`).
_LITERAL_PARTS = (cst.Dict, cst.DictElement, cst.List, cst.Tuple, cst.Element, cst.StarredDictElement)


def expected_value(ancestors: list) -> bool:
    """Is the value at ancestors[-1] (or the literal it is part of) what a test expects: an
    operand of a comparison in an `assert` (`assert result == {"roots": [...]}`), or an argument
    of an assertion call (`self.assertEqual(answer, {...})`, `send.assert_called_with({...})`)?
    It describes an answer the code under test must give; it is not one (issue 35 §3)."""
    i = len(ancestors) - 2
    while i >= 0 and isinstance(ancestors[i], _LITERAL_PARTS):
        i -= 1
    if i < 0:
        return False
    holder = ancestors[i]
    if isinstance(holder, (cst.Comparison, cst.ComparisonTarget)):
        return asserted(ancestors[:i])
    if isinstance(holder, cst.Arg) and i >= 1 and isinstance(ancestors[i - 1], cst.Call):
        func = ancestors[i - 1].func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        return name.startswith(("assert", "assert_")) and name != "assert"
    return False


def _expected_local(ancestors: list) -> bool:
    """Is the literal at ancestors[-1] the value of `name = {...}` in a function whose every
    read of `name` is what a test expects (`expected = {"method": ...}` then `assert sent ==
    expected`)? The dict describes a message, it sends none."""
    i = len(ancestors) - 2
    while i >= 0 and isinstance(ancestors[i], _LITERAL_PARTS):
        i -= 1
    if i < 1 or not isinstance(ancestors[i], cst.Assign) or ancestors[i].value is not ancestors[i + 1]:
        return False
    targets = ancestors[i].targets
    if len(targets) != 1 or not isinstance(targets[0].target, cst.Name):
        return False
    name = targets[0].target.value
    func = next((a for a in reversed(ancestors[:i]) if isinstance(a, cst.FunctionDef)), None)
    if func is None:
        return False
    reads = [path for path in name_paths(func, name) if not isinstance(path[-2], cst.AssignTarget)]
    return bool(reads) and all(expected_value(path) for path in reads)


def _compares_code(ancestors: list, operand: cst.CSTNode) -> bool:
    """Is the comparison at ancestors[-1] (or the one holding it) a test of source code, not of a
    message: is the method string compared with a literal's value read from a syntax tree
    (`node.value == "roots/list"`, `literal(arg.value) in (M, ...)`)? A checker or a code
    generator that looks for the method string neither asks for roots nor answers them."""
    comparison = ancestors[-1]
    if isinstance(comparison, cst.ComparisonTarget):
        comparison = ancestors[-2] if len(ancestors) >= 2 else None
    if not isinstance(comparison, cst.Comparison):
        return False
    sides = [comparison.left, *(target.comparator for target in comparison.comparisons)]
    others = [side for side in sides if side is not operand]
    return bool(others) and all(_literal_value_read(side) for side in others)


def _matches_code(ancestors: list) -> bool:
    """`match node.value: case "roots/list":`: the subject is a literal's value read from a tree."""
    for anc in reversed(ancestors):
        if isinstance(anc, cst.Match):
            return _literal_value_read(anc.subject)
    return False


def _literal_value_read(expr: cst.BaseExpression) -> bool:
    """`x.value`, `x[0].evaluated_value`, or one such given to a function (`literal(arg.value)`,
    `str(x.value)`): the value of a syntax node. Not a message's method: `msg.method.value` (an
    enum member's value) names a method before its `.value`, and stays a dispatch."""
    while isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
        expr = expr.args[0].value
    if not isinstance(expr, cst.Attribute) or expr.attr.value not in _LITERAL_VALUE_ATTRIBUTES:
        return False
    owner = expr.value
    owner_name = (
        owner.attr.value if isinstance(owner, cst.Attribute) else owner.value if isinstance(owner, cst.Name) else ""
    )
    return "method" not in owner_name.lower()


def constant_use(ancestors: list, known: dict) -> tuple | None:
    """(method, ancestors ending at the reference) for a Name or `X.NAME` at ancestors[-1]
    that names a roots-method constant, by its name or by a same-file assignment (`known`)."""
    node = ancestors[-1]
    parent = ancestors[-2] if len(ancestors) >= 2 else None
    if isinstance(parent, cst.Attribute):
        if parent.attr is not node:
            return None
        ancestors = ancestors[:-1]
    method = known.get(node.value) or constant_method(node.value)
    return (method, ancestors) if method else None


class ConstantUse(NamedTuple):
    """A roots-method constant used somewhere: the reference node, where it sits (as for a
    string: `string_context`), and the ancestors ending at it."""

    node: cst.CSTNode
    where: str | None
    ancestors: list


def constant_reference(context, ancestors: list, method: str) -> ConstantUse | None:
    """For a Name visited at ancestors[-1]: its use when it names a `method` constant
    (`ROOTS_LIST`, `Method.ROOTS_LIST`), else None. Cheap first test: most names hold no
    "OOTS" and are no known constant."""
    known = context.memo.get("roots_constants", {})
    name = ancestors[-1].value
    if "OOTS" not in name and name not in known:
        return None
    use = constant_use(ancestors, known)
    if use is None or use[0] != method:
        return None
    return ConstantUse(use[1][-1], string_context(use[1]), use[1])


def note_constant(context, ancestors: list, value: str) -> None:
    """Remember `NAME = "roots/list"` so its later uses are classified like the string."""
    parent = ancestors[-2] if len(ancestors) >= 2 else None
    known = context.memo.setdefault("roots_constants", {})
    value = LIST_CHANGED if value in LIST_CHANGED_SPELLINGS else value
    targets = (
        parent.targets if isinstance(parent, cst.Assign) else [parent] if isinstance(parent, cst.AnnAssign) else []
    )
    for target in targets:
        if isinstance(target.target, cst.Name):
            known[target.target.value] = value


#: An upper-case constant that names the `method` key (`KEY_METHOD`, `METHOD_KEY`, `JSONRPC_METHOD`).
_METHOD_KEY_CONSTANT = lazy_compile(r"^(?:[A-Z0-9]+_)*METHOD(?:_[A-Z0-9]+)*$")


def method_key(key: cst.BaseExpression | None) -> bool:
    """A JSON-RPC message's `method` key: the literal, or a constant named for it."""
    if key is None:
        return False
    if literal(key) == "method":
        return True
    name = key.attr.value if isinstance(key, cst.Attribute) else key.value if isinstance(key, cst.Name) else ""
    return bool(name) and _METHOD_KEY_CONSTANT.match(name) is not None and "KEY" in name


def error_data(ancestors: list) -> bool:
    """Is the literal inside the `data` of a JSON-RPC error (`{"error": {..., "data": {...}}}`
    or `McpError(ErrorData(..., data=...))`)? Such a dict describes a request, it is not one."""
    for i in range(len(ancestors) - 2, -1, -1):
        anc = ancestors[i]
        if isinstance(anc, cst.DictElement) and literal(anc.key) in ("data", "error"):
            return True
        if isinstance(anc, cst.Arg) and anc.keyword is not None and anc.keyword.value == "data":
            if i >= 1 and _error_call(ancestors[i - 1]):
                return True  # `ErrorData(code, message, data={...})`; not `_sse_event(data=message)`
        if isinstance(anc, cst.Arg) and i >= 1 and _error_call(ancestors[i - 1]):
            return True  # `ErrorData(-32601, "unsupported", {"method": ...})`: positional data
        if isinstance(anc, (cst.FunctionDef, cst.ClassDef)):
            return False
    return False


def _text(expr: cst.BaseExpression) -> bool:
    """A string (literal, implicit concatenation or f-string): documentation, not a handler."""
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _error_call(node: cst.CSTNode) -> bool:
    """A call that builds an error (`ErrorData(...)`, `McpError(...)`, `JSONRPCError(...)`)."""
    if not isinstance(node, cst.Call):
        return False
    name = node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", "")
    return isinstance(name, str) and "Error" in name


def relays(ancestors: list) -> bool:
    """Is the dispatch at ancestors[-1] the test of a branch that forwards the message on
    (`elif method == "roots/list": await upstream.send_request(msg)`)? A relay asks the other
    peer for roots: its role is the request (RT001), not the answer."""
    branch = _enclosing_branch(ancestors)
    if branch is None:
        return False
    return any(
        isinstance(node, cst.Call) and FORWARDS.match(method_name(node) or "") for node in iter_nodes(branch.body)
    )


def _enclosing_branch(ancestors: list):
    """The If / MatchCase whose test (or pattern) holds ancestors[-1]."""
    for i in range(len(ancestors) - 2, -1, -1):
        anc = ancestors[i]
        if isinstance(anc, (cst.If, cst.MatchCase)):
            return anc if ancestors[i + 1] is not anc.body else None
        if isinstance(anc, cst.BaseSuite):
            return None
    return None


class WireMethodRule(Rule):
    """A rule about one wire method (`METHOD`), written as a string or through a constant: the
    string and constant handling RT001, RT002, RT004 and RT005 share. A string inside a
    re-implemented Roots type is that type's (reported at its class); `NAME = "roots/list"` is
    remembered so its uses are classified like the string; every other use goes to
    `method_used` with where it sits."""

    METHOD: ClassVar[str] = ""
    #: Skip strings another report of this file already covers.
    SKIPS_CLAIMED: ClassVar[bool] = True

    def visit_string(self, node: cst.BaseString, value: str) -> None:
        if self.SKIPS_CLAIMED and self.context.is_claimed(node):
            return
        if inside_roots_type_definition(self.ancestors, self.context.data):
            return
        where = string_context(self.ancestors)
        if where == "constant":
            note_constant(self.context, self.ancestors, value)
        elif not (where == "dispatch" and self._type_table(self.ancestors)):
            self.method_used(node, where, self.ancestors, constant=False)

    def visit_Name(self, node: cst.Name) -> None:
        use = constant_reference(self.context, self.ancestors, self.METHOD)
        if use is not None and not (use.where == "dispatch" and self._type_table(use.ancestors)):
            self.method_used(use.node, use.where, use.ancestors, constant=True)

    def _type_table(self, ancestors: list) -> bool:
        """The method is the key of a table that maps it to the SDK's type of its message
        (`{"roots/list": types.ListRootsResult}`, `{"notifications/roots/list_changed":
        types.RootsListChangedNotification}`): what parses a message, in an SDK that keeps
        every protocol version. It answers, sends and handles nothing (session 47's first look
        and final review: fastmcp's and python-sdk's tables)."""
        entry = next((a for a in reversed(ancestors[:-1]) if not isinstance(a, cst.ConcatenatedString)), None)
        return isinstance(entry, cst.DictElement) and self.resolver.sdk_name(entry.value) in ROOTS_TYPE_NAMES

    def method_used(self, node: cst.CSTNode, where: str | None, ancestors: list, *, constant: bool) -> None:
        """`METHOD` used at `node` (`where`: string_context's answer); `constant`: through a name."""


# ----- answers in wire form ---------------------------------------------------------------------
def list_items(value: cst.BaseExpression) -> list:
    """The items of a list display (or the element of a list comprehension); [] otherwise."""
    if isinstance(value, cst.ListComp):
        return [value.elt]
    if isinstance(value, cst.List):
        return [e.value for e in value.elements if isinstance(e, cst.Element)]
    return []


def envelope_answer(node: cst.Dict):
    """The result mapping of `{"jsonrpc": "2.0", "id": ..., "result": {"roots": [...]}}`, a
    roots/list answer by its envelope whatever the list holds (an empty one too); else None."""
    keys = {literal(e.key): e.value for e in node.elements if isinstance(e, cst.DictElement)}
    result = keys.get("result")
    if "jsonrpc" not in keys or not isinstance(result, cst.Dict):
        return None
    holds_roots = any(
        isinstance(e, cst.DictElement) and literal(e.key) == "roots" and isinstance(e.value, (cst.List, cst.ListComp))
        for e in result.elements
    )
    return result if holds_roots else None


def uri_dicts(value: cst.BaseExpression) -> bool:
    """A list (or list comprehension) of dict literals that carry a "uri" key."""
    items = list_items(value)
    return bool(items) and all(
        isinstance(item, cst.Dict)
        and any(isinstance(e, cst.DictElement) and literal(e.key) == "uri" for e in item.elements)
        for item in items
    )
