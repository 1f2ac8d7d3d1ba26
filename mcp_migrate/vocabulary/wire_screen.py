"""Where a method string sits, on the standard library's nodes: `vocabulary.wire.string_context`
as the wire rules' syntax screens read it, before LibCST.

Why: a method literal is a wire rule's only where the rule may report it. A gateway's transport
(271 KB) names `roots/list` and `notifications/roots/list_changed` only in tables of known
method names (`frozenset({"roots/list", ...})`), and its router compares `roots/list` in a
branch that answers it: RT001 reports neither (it asks for a message's `"method"`, a call's
argument, a constant, a dispatch that relays), RT002, RT004 and RT005 not the tables. Each was
parsed with LibCST for them (issue 37). The screen errs towards yes wherever a rule looks
further: a callee's body, a constant's uses, the exceptions `string_context` makes for
assertions, error data and SDK type tables.
"""

from __future__ import annotations

import ast

from mcp_migrate.core.ast_nodes import child_nodes
from mcp_migrate.core.screen import holding_statement, last_identifier, string
from mcp_migrate.vocabulary.wire_names import FORWARDS, constant_in_code

#: What `where` answers: a message's `"method"`; a call's argument (the callee, by its name or its
#: body, decides); a dispatch (compared, matched, a table's key or a subscript) and one whose
#: branch forwards the message; a constant (its uses decide); None for anything else (a set of
#: known method names, a log text, a docstring). UNKNOWN where positions lead nowhere.
REQUEST, CALL, DISPATCH, RELAY, CONSTANT, UNKNOWN = "request", "call", "dispatch", "relay", "constant", "unknown"
#: Every place a wire rule may report a method string at (each rule asks for its own share).
ANYWHERE = frozenset({REQUEST, CALL, DISPATCH, RELAY, CONSTANT})


def method_in_code(syntax, spellings: frozenset, method: str) -> bool:
    """The syntax screen of `WireMethodRule`'s strings and constants: a string literal spelling
    the method where a wire rule may report it (vocabulary.wire_screen: not a table of known
    method names, not a docstring), or an identifier `constant_method` reads as it
    (`ROOTS_LIST`, `Method.ROOTS_LIST`); a same-file constant (`M = "roots/list"`) holds the
    string itself."""
    return used_as(syntax, spellings, ANYWHERE) or constant_in_code(syntax, method)


def used_as(syntax, spellings: frozenset, wheres: frozenset) -> bool:
    """Whether a literal of `spellings` in `syntax`'s code sits in one of `wheres` (`where`);
    yes for any literal of a tree whose columns are not the file's."""
    if not (syntax.strings & spellings):
        return False
    if not syntax.exact:
        return True
    for node in syntax.of(ast.Constant):
        if string(node) in spellings:
            found = where(node, syntax.tree)
            if found == UNKNOWN or found in wheres:
                return True
    return False


def where(node: ast.Constant, tree: ast.Module) -> str | None:
    """`string_context`'s answer for the literal `node`, read as the wire rules read it."""
    statement = holding_statement(tree, node)
    if statement is None:
        return UNKNOWN  # positions that lead nowhere (a nested f-string's, before 3.12)
    parents = _parents(statement)
    parent = parents.get(node)
    if parent is None:
        return UNKNOWN  # the statement the positions lead to does not hold it
    if parent.__class__ is ast.Dict:
        if any(value is node for value in parent.values):
            key = parent.keys[[id(value) for value in parent.values].index(id(node))]
            return REQUEST if string(key) in (None, "method") else None  # a constant key may say it
        return _dispatch(node, parents)  # a dispatch table's key
    if parent.__class__ is ast.keyword:
        return CALL if parent.arg is not None else None
    if parent.__class__ is ast.Call:
        return CALL if parent.func is not node else None
    if parent.__class__ in (ast.Compare, ast.MatchValue) or (
        parent.__class__ is ast.Subscript and parent.slice is node
    ):
        return _dispatch(node, parents)
    if parent.__class__ in (ast.Tuple, ast.Set, ast.List):
        return _dispatch(node, parents) if parents.get(parent).__class__ is ast.Compare else None
    if parent.__class__ in (ast.Assign, ast.AnnAssign) and parent.value is node:
        return CONSTANT
    return None


def _dispatch(node, parents: dict) -> str:
    return RELAY if _relays(node, parents) else DISPATCH


def _relays(node, parents: dict) -> bool:
    """`wire.relays`: the test of an `if` (or a `match` case's pattern) holding `node`, whose
    branch calls a forwarding method."""
    child, here = node, parents.get(node)
    while here is not None:
        if here.__class__ is ast.If:
            return here.test is child and _forwards(here.body)
        if here.__class__ is ast.match_case:
            return here.pattern is child and _forwards(here.body)
        if isinstance(here, ast.stmt) and here.__class__ is not ast.Match:
            return False
        child, here = here, parents.get(here)
    return False


def _forwards(body: list) -> bool:
    return any(
        FORWARDS.match(last_identifier(call.func) or "")
        for statement in body
        for call in ast.walk(statement)
        if call.__class__ is ast.Call
    )


def _parents(statement) -> dict:
    """node -> its parent, from `statement` down to the statements nested in it (their own
    nodes are not the statement's; a `match` case and an `if`'s body are kept for the walk up)."""
    parents: dict = {}
    pending = [statement]
    while pending:
        here = pending.pop()
        for child in child_nodes(here):
            parents[child] = here
            if not isinstance(child, (ast.stmt, ast.excepthandler)):
                pending.append(child)
    return parents
