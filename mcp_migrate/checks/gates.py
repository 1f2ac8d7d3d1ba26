"""What the runner knows of the rules without importing one (or LibCST), said here once: each
rule's gate, the byte strings at least one of which every file a rule can report on contains,
and which rules are Roots' client side. Each rule class's `GATE` is its entry of `GATES`; the
runner tests a file's bytes against the gate of its selection before it loads the rules, so a
file no rule can report on (most of a tree, and a pre-commit run on one such file) never pays
for LibCST, the rules or rich; and a warm run whose results all come from the cache
coordinates their fixes (core.coordination) without loading the rules either."""

from __future__ import annotations

from functools import lru_cache

from mcp_migrate.core.codes import REVIEW_PENDING_CODE, REVIEW_TOKEN

#: An MCP import in any spelling (the security rules' scope).
_MCP = (b"mcp", b"MCP", b"Mcp")

#: rule code -> its gate.
GATES = {
    #: Roots named, or MCP code that may call a project helper which asks (its import screen).
    "RT001": (b"oots", b"OOTS", *_MCP),
    "RT002": (b"oots", b"OOTS", b"mcp"),
    "RT003": (b"oots",),
    "RT004": (b"oots", b"OOTS"),
    "RT005": (b"oots", b"OOTS"),
    "RT006": (b"oots",),
    #: An MCP import, or a raw payload with a `"roots"` key.
    "RT101": (*_MCP, b"oots"),
    "RT102": (*_MCP, b"oots"),
    #: MCP code, or code naming an allow-list (`allowed_dirs`, `ALLOWED_ROOTS`).
    "RT103": (*_MCP, b"llowed_", b"LLOWED_"),
    #: Every hint name holds `Hint` (camelCase) or `_hint` (snake_case).
    "HA001": (b"Hint", b"_hint"),
    "HA002": _MCP,
}

#: Roots' client side (a provider, a capability, list_changed): the rules whose fixes are
#: withheld while a server in the same run still asks for roots. Each rule class's
#: `KEPT_WHILE_SERVER_ASKS` is its membership here.
CLIENT_SIDE = frozenset({"RT002", "RT003", "RT004", "RT005", "RT006"})


def wrapper_tokens(extend_apis) -> tuple:
    """The gate of the extend-apis wrappers: each configured wrapper's last name."""
    return tuple(qname.rpartition(".")[2].encode() for _, names in extend_apis for qname in names)


@lru_cache(maxsize=64)
def gate_tokens(select: frozenset, extend_apis: tuple = ()) -> tuple:
    """The joined gate of a selection (the engine's, core.engine._gate_tokens, for the same
    Settings): its rules' gates, the wrappers' names when a selected rule has some, and the
    review-marker text when RT901 is selected."""
    tokens = {token for code in select for token in GATES.get(code, ())}
    if any(code in select for code, _ in extend_apis):
        tokens.update(wrapper_tokens(extend_apis))
    if REVIEW_PENDING_CODE in select:
        tokens.add(REVIEW_TOKEN)
    return tuple(sorted(tokens, key=len))


def may_report(data: bytes, settings) -> bool:
    """False only where no selected rule can report on `data` and the engine would return an
    empty result without parsing: no gate token occurs, and no coding cookie (lines 1-2) may
    name an encoding the engine refuses (E902, decided before its gate)."""
    if any(token in data for token in gate_tokens(settings.select, settings.extend_apis)):
        return True
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    return b"coding" in (data if second < 0 else data[:second])
