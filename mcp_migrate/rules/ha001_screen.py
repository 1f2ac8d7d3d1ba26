"""HA001's screens, without LibCST: the hint names, the words that make a name or branch an
approval decision, and the syntax screen that asks the standard library's `ast` whether a hint
read and a place it can decide approval are both in the file. The rule (`ha001_annotation_trust`)
inherits them and shares the words."""

from __future__ import annotations

import ast
from typing import Any

from mcp_migrate.core.ast_nodes import child_nodes
from mcp_migrate.core.byte_code import GAP, ends_before, whole_words
from mcp_migrate.core.identifiers import words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string

HINTS = {
    "readOnlyHint": "readOnlyHint",
    "read_only_hint": "readOnlyHint",
    "destructiveHint": "destructiveHint",
    "destructive_hint": "destructiveHint",
    "idempotentHint": "idempotentHint",
    "idempotent_hint": "idempotentHint",
    "openWorldHint": "openWorldHint",
    "open_world_hint": "openWorldHint",
}


_APPROVAL_WORDS = frozenset({"approval", "approve", "approved", "approvals", "confirm", "confirmation", "consent"})


_AUTO_WORDS = frozenset({"run", "approve", "retry", "execute", "accept", "allow", "exec"})


_NEED_WORDS = frozenset({"ask", "prompt", "review", "confirm", "approval", "retry", "permission", "permissions"})


_PROMPT_WORDS = frozenset(
    {"input", "confirm", "confirmation", "ask", "prompt", "approve", "approval", "consent", "getpass"}
)


_RUN_WORDS = frozenset({"call", "run", "execute", "invoke"})


#: Words of what an approval decision returns (`"allow"`, `Decision.ASK`, `PermissionResult(behavior="deny")`):
#: a branch on a hint that returns one decides whether the user is asked.
_VERDICT_WORDS = frozenset(
    {"allow", "allowed", "ask", "deny", "denied", "approve", "approved", "reject", "rejected", "permit", "permitted"}
    | {"passed", "blocked"}  # a policy check's answer (`{"passed": False, ...}`, `"blocked"`)
)


#: Words of a call that records or enforces a refusal (`violations.append(...)`,
#: `self._block_policy_violation(...)`, `deny(...)`): a branch making one is a gate.
_REFUSAL_WORDS = frozenset(
    {"violation", "violations", "deny", "block", "reject", "refuse", "forbid", "blocked", "denied", "rejected"}
)


#: Words of an exception a gate raises to refuse a call (`PermissionError`, `PolicyViolation`).
_REFUSAL_RAISE_WORDS = _REFUSAL_WORDS | {"permission", "unauthorized", "forbidden", "approval", "policy", "security"}


def decision_function(name: str) -> bool:
    ws = set(words(name))
    if ws & _APPROVAL_WORDS:
        return True
    if ("auto" in ws or "autorun" in ws) and (ws & _AUTO_WORDS or "autorun" in ws):
        return True
    if ws & {"needs", "need", "requires", "require", "should", "must"} and ws & _NEED_WORDS:
        return True
    return "skip" in ws and bool(ws & {"prompt", "confirm", "approval", "ask"})


def _screen_verdict(expr) -> bool:
    """`_verdict` on the standard library's nodes."""
    if expr.__class__ is ast.Call:
        return any(_screen_verdict(a) for a in [*expr.args, *(k.value for k in expr.keywords)])
    if expr.__class__ is ast.Dict:
        return any(_screen_verdict(k) or _screen_verdict(v) for k, v in zip(expr.keys, expr.values) if k is not None)
    name = screen_string(expr) if expr.__class__ is ast.Constant else screen_last_identifier(expr)
    return bool(set(words(name or "")) & _VERDICT_WORDS)


def _refuses(name: str | None) -> bool:
    return bool(name) and bool(set(words(name or "")) & _REFUSAL_WORDS)


def refusal_raised(name: str | None) -> bool:
    """An exception named as a refusal (`PermissionError`, `PolicyViolation`)."""
    return bool(set(words(name or "")) & _REFUSAL_RAISE_WORDS)


def _screen_gate(node) -> bool:
    """`gate` on the standard library's If / While / IfExp (a superset: every branch's calls,
    returns and raises, at any depth)."""
    if node.__class__ is ast.IfExp and (_screen_verdict(node.body) or _screen_verdict(node.orelse)):
        return True
    branches = (node.body, node.orelse) if node.__class__ is not ast.While else (node.body,)
    stack: list[Any] = [b for branch in branches for b in (branch if isinstance(branch, list) else [branch])]
    while stack:
        current = stack.pop()
        kind = current.__class__
        if kind is ast.Call:
            name = screen_last_identifier(current.func)
            receiver = screen_last_identifier(current.func.value) if current.func.__class__ is ast.Attribute else None
            if (name and _acting_name(name)) or _refuses(name) or _refuses(receiver):
                return True
        elif kind is ast.Return and current.value is not None and _screen_verdict(current.value):
            return True
        elif (
            kind is ast.Raise
            and current.exc is not None
            and refusal_raised(
                screen_last_identifier(current.exc.func if current.exc.__class__ is ast.Call else current.exc)
            )
        ):
            return True
        for child in child_nodes(current):
            if child.__class__ not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
                stack.append(child)
    return False


def _acting_name(name: str) -> bool:
    ws = set(words(name))
    return ("tool" in ws and bool(ws & _RUN_WORDS)) or bool(ws & _PROMPT_WORDS)


class AnnotationTrustScreen(Rule):
    """The screens `AnnotationTrust` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "HA001"

    #: Every hint read names the hint: the exact camelCase and snake_case spellings.
    SCREEN = tuple(name.encode() for name in HINTS)

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """A hint's name where `screen_tree` reads it: after an attribute's `.` or as a string
        (a subscript's key, a call's argument); not given by keyword (`SimpleNamespace(
        readOnlyHint=True)`: agent-framework's 163 KB security tests were read with `ast` for
        it), as a dict's key (`{"readOnlyHint": True}`) nor in prose."""
        return any(_read_at(data, at, len(token)) for token in cls.SCREEN for at in whole_words(data, token))

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A hint read (an attribute, a subscript, or a call given the hint's name) and a place
        it can decide approval: an approval callable (`require_approval=`,
        `require_confirmation=`, `approval_required`), a function whose name says it decides,
        or an `if`/`while`/conditional expression whose branches call a tool or ask the user."""
        reads = [node for node in syntax.of(ast.Attribute) if node.attr in HINTS]
        reads.extend(node for node in syntax.of(ast.Subscript) if (screen_string(node.slice) or "") in HINTS)
        for call in syntax.calls():
            name = screen_last_identifier(call.func) or ""
            if not (name.startswith("set") or name in ("update", "pop")) and any(
                (screen_string(arg) or "") in HINTS for arg in screen_positional(call)
            ):
                reads.append(call)
        if not reads:
            return False
        for keyword_name in ("require_approval", "require_confirmation", "approval_required_func"):
            if syntax.keyword_calls(keyword_name):
                return True
        if syntax.method_calls("approval_required"):
            return True
        for function in syntax.of(ast.FunctionDef, ast.AsyncFunctionDef):
            if decision_function(function.name):  # the hint may be read there or one call away
                return True
        return any(_screen_gate(node) for node in syntax.of(ast.If, ast.While, ast.IfExp))


#: What comes just before a hint's name that code reads as an attribute: its `.` (a gap may
#: follow it inside brackets).
_READ_BEFORE = lazy_compile(rb"\." + GAP + rb"$")
#: What follows a string that is a hint's name where code reads it: a subscript's `]`, or the
#: `,` or `)` after a call's argument; not a dict key's `:` (a gateway's 441 KB test module,
#: whose tool models are given `{"readOnlyHint": True}`, was read with `ast` for those).
_STRING_READ_AFTER = lazy_compile(GAP + rb"[\]),]")


def _read_at(data: bytes, at: int, size: int) -> bool:
    """Whether the hint's name at `at` (`size` bytes) may be read there: after an attribute's
    `.`, or as a whole string a subscript or a call is given."""
    quote = data[at - 1 : at] if at else b""
    if quote in (b'"', b"'"):
        end = at + size
        return data[end : end + 1] == quote and _STRING_READ_AFTER.match(data, end + 1) is not None
    return ends_before(_READ_BEFORE, data, at)
