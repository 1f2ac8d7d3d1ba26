"""What the runner knows of the rules without importing one (or LibCST), read from the
catalog: each rule's gate (its page's `gate`: the byte strings at least one of which every file
the rule can report on contains) and which rules are Roots' client side (`side = "client"`).
The runner tests a file's bytes against the gate of its selection before it loads the rules, so
a file no rule can report on (most of a tree, and a pre-commit run on one such file) never pays
for LibCST, the rules or rich; and a warm run whose results all come from the cache
coordinates their fixes (core.coordination) without loading the rules either. A rule class's
`gate()` and `kept_while_server_asks()` (core.rule) read the same pages."""

from __future__ import annotations

from functools import lru_cache

from mcp_migrate.core.byte_code import holds
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import REVIEW_PENDING_CODE, REVIEW_TOKEN


def client_side() -> frozenset:
    """Roots' client side (a provider, a capability, list_changed): the rules whose fixes are
    withheld while a server in the same run still asks for roots."""
    return frozenset(code for code, info in load_catalog().items() if info.side == "client")


@lru_cache(maxsize=1)
def roots_migration() -> frozenset:
    """The rules of either side of Roots (RT001-RT006: their pages name a `side`)."""
    return frozenset(code for code, info in load_catalog().items() if info.side)


def wrapper_tokens(extend_apis) -> tuple:
    """The gate of the extend-apis wrappers: each configured wrapper's last name."""
    return tuple(qname.rpartition(".")[2].encode() for _, names in extend_apis for qname in names)


@lru_cache(maxsize=64)
def gate_tokens(select: frozenset, extend_apis: tuple = ()) -> tuple:
    """The joined gate of a selection (the engine's, core.engine._gate_tokens, for the same
    Settings): its rules' gates, the wrappers' names when a selected rule has some, and the
    review-marker text when RT901 is selected."""
    catalog = load_catalog()
    tokens = {token for code in select if code in catalog for token in catalog[code].gate}
    if any(code in select for code, _ in extend_apis):
        tokens.update(wrapper_tokens(extend_apis))
    if REVIEW_PENDING_CODE in select:
        tokens.add(REVIEW_TOKEN)
    return fewest(tokens)


def fewest(tokens) -> tuple:
    """A gate's tokens without those that hold another (`list_roots` where `oots` is one: a
    file holding it holds `oots`), shortest first, in one order for the same set: each token
    is a search through every file of a tree."""
    kept = {token for token in tokens if not any(other != token and other in token for other in tokens)}
    return tuple(sorted(kept, key=lambda token: (len(token), token)))


def holds_any(data: bytes, tokens: tuple) -> bool:
    """Whether one of `tokens` occurs in `data`. A file that opens the gate is asked twice
    with the same tokens (`may_report` before its screens, core.screening's gate in them), so
    the last answer is kept: the second search went through a file's bytes up to ten times."""
    held_data, held_tokens, held = _LAST_HELD[0]  # one read: the answer and what it is of
    if held_data is data and held_tokens == tokens:
        return held
    found = any(holds(data, token) for token in tokens)  # each token's answer kept for the screens
    _LAST_HELD[0] = (data, tokens, found)
    return found


_LAST_HELD: list = [(None, (), False)]


def may_report(data: bytes, settings) -> bool:
    """False only where no selected rule can report on `data` and the engine would return an
    empty result without parsing: no gate token occurs, and no coding cookie (lines 1-2) may
    name an encoding the engine refuses (E902, decided before its gate)."""
    if holds_any(data, gate_tokens(settings.select, settings.extend_apis)):
        return True
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    return b"coding" in (data if second < 0 else data[:second])
