"""A file that still provides roots keeps its capability (core.engine._still_providing): a
provider left without any edit (easymcp's session answers `roots/list` by hand beside a public
`register_roots_callback`) means servers may still be answered, so removing the declaration is
only suggested; applied, it left the public callback API silently dead (session 48's final
review, #17). Where the provider's own removal is applied, the declaration goes with it
(tests/test_carried.py)."""

from __future__ import annotations

from mcp_migrate.api import check_bytes, default_settings, fix_bytes

SESSION = """from mcp import types


class Session:
    def __init__(self):
        self._roots_callback = None

    def register_roots_callback(self, callback) -> None:
        self._roots_callback = callback

    def capabilities(self) -> types.ClientCapabilities:
        return types.ClientCapabilities(roots=types.RootsCapability(listChanged=True))

    async def handle(self, message: dict) -> dict | None:
        if message.get("method") == "roots/list":
            roots = await self._roots_callback()
            return {"jsonrpc": "2.0", "id": message["id"], "result": {"roots": roots}}
        return None
"""

TOGETHER = (
    "a suggestion while this file keeps providing roots (a provider here keeps no edit, or its removal is only"
    " suggested): the client side of Roots goes together"
)


def test_a_hand_written_answer_keeps_the_capability_a_suggestion():
    findings = check_bytes(SESSION.encode(), "client/session.py", default_settings()).findings
    assert [(f.code, f.line, f.column, f.fix) for f in findings] == [
        ("RT002", 8, 9, "display"),
        ("RT003", 12, 41, "display"),
        ("RT006", 12, 69, "display"),
        ("RT002", 15, 37, "none"),
    ]
    assert all(f.help.startswith(TOGETHER) for f in findings if f.code in ("RT003", "RT006"))
    assert fix_bytes(SESSION.encode(), "client/session.py", default_settings(), unsafe=True).fixed_source is None
