"""The names of Roots' wire methods and how code spells them, for the screens as much as the
rules: the method strings, their constant names and byte tokens, the capability keys, and the
callee names that send, register or build a message. No LibCST here: the byte and syntax screens
(core/screening.py) read these before any file is parsed; `vocabulary.wire` adds where a method
string sits in a parsed tree, and `vocabulary.wire_screen` where it sits in the standard
library's."""

from __future__ import annotations

import re

from mcp_migrate.core.lazy_regex import lazy_compile

ROOTS_LIST = "roots/list"


LIST_CHANGED = "notifications/roots/list_changed"


#: The spellings of the list_changed method real code uses (camelCase in some clients).
LIST_CHANGED_SPELLINGS = frozenset({LIST_CHANGED, "notifications/roots/listChanged"})


#: Bytes without which a file cannot send or handle list_changed (RT004 and RT005 screens).
LIST_CHANGED_TOKENS = (
    b"roots_list_changed",
    b"RootsListChanged",
    b"roots/list_changed",
    b"roots/listChanged",
    b"ROOTS_LIST_CHANGED",
    b"ROOTS_CHANGED",
)


CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"


#: Mapping keys and keyword names under which a client-capabilities mapping lives.
CAPABILITY_KEYS = frozenset({"capabilities", "clientCapabilities", "client_capabilities", CLIENT_CAPABILITIES_META_KEY})


#: Upper-case constant names that spell a roots method: `ROOTS_LIST`, `METHOD_LIST_ROOTS`,
#: `NOTIFICATION_ROOTS_LIST_CHANGED`, `ROOTS_CHANGED`.
_LIST_CHANGED_CONSTANT = lazy_compile(r"^(?:[A-Z0-9]+_)*ROOTS_(?:LIST_)?CHANGED(?:_[A-Z0-9]+)*$")


_ROOTS_LIST_CONSTANT = lazy_compile(r"^(?:[A-Z0-9]+_)*(?:ROOTS_LIST|LIST_ROOTS)(?:_(?:METHOD|REQUEST))?$")


#: Calls that register something to run when a method arrives (the answering side).
_REGISTRATION = lazy_compile(r"handler|listener|register|subscribe|^on$|^on_|^notification$|^route$")


#: Generic RPC verbs: the method they are given is sent to the peer (the asking side).
_RPC_VERBS = frozenset({"request", "call", "call_method", "rpc", "invoke", "send_request", "send", "notify"})


def constant_method(name: str) -> str | None:
    """The roots method an upper-case constant's name spells, else None."""
    if "ROOTS" not in name:
        return None
    if _LIST_CHANGED_CONSTANT.match(name):
        return LIST_CHANGED
    if _ROOTS_LIST_CONSTANT.match(name):
        return ROOTS_LIST
    return None


def registers(where: str | None) -> bool:
    """`router.notification(M)`, `emitter.on(M)`, `bus.register(M)`, `add_request_handler(M)`:
    the method is handled here (sends are not registrations)."""
    if not where or not where.startswith("call:"):
        return False
    name = where[len("call:") :]
    return (
        bool(name) and not name.startswith(("send", "emit", "notify", "publish")) and bool(_REGISTRATION.search(name))
    )


def sends(where: str | None) -> bool:
    """`send_request(M)`, `session.request(M)`, `rpc.call(M)`: the method goes to the peer."""
    if not where or not where.startswith("call:"):
        return False
    name = where[len("call:") :].lstrip("_")  # `_rpc(M)`, `_send(M)`: a module's own sender
    return name.startswith("send") or name in _RPC_VERBS


#: A message factory's name: `make_notification`, `build_request`, `new_message`. Not a message
#: type (`ListRootsRequest(method=...)`): the call that sends it is the finding.
_FACTORY = lazy_compile(r"^(?:make|build|create|new)_?\w*(?:notification|request|message)", re.I)


def builds(where: str | None) -> bool:
    """`make_notification(method=M)`, `build_request(1, M)`: a message built with the method,
    to be written to a stream (a factory's name says so; a sender's is `sends`)."""
    if not where or not where.startswith("call:"):
        return False
    name = where[len("call:") :].lstrip("_")
    return bool(name) and not name.startswith("send") and _FACTORY.search(name) is not None


#: The calls by which a branch that matched a method forwards the message to the other peer
#: (`elif method == "roots/list": await upstream.send_request(msg)`): a relay (`wire.relays`).
FORWARDS = lazy_compile(r"^(send_request|send_raw_request|request|forward\w*|relay\w*|proxy\w*)$")


def constant_in_code(syntax, method: str) -> bool:
    """An identifier `constant_method` reads as the method (`ROOTS_LIST`, `Method.ROOTS_LIST`)."""
    return any("ROOTS" in name and constant_method(name) == method for name in syntax.identifiers)
