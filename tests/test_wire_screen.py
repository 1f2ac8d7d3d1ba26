"""Where a method string sits, read before LibCST (vocabulary.wire_screen): each wire rule's
syntax screen takes a literal only where its rule may report it (issue 37: a gateway's
transport names `roots/list` only in tables of known methods, and was parsed for it)."""

from __future__ import annotations

import ast

import pytest

from mcp_migrate.api import check_bytes, default_settings
from mcp_migrate.core import engine, screen
from mcp_migrate.rules.rt001_screen import asks_in
from mcp_migrate.vocabulary import wire_screen


def _wheres(source: str) -> list:
    syntax = screen.read(source.encode(), "x.py")
    found = [node for node in syntax.of(ast.Constant) if node.value == "roots/list"]
    return [wire_screen.where(node, syntax.tree) for node in sorted(found, key=lambda n: (n.lineno, n.col_offset))]


@pytest.mark.parametrize(
    ("source", "wheres"),
    [
        ('msg = {"jsonrpc": "2.0", "method": "roots/list"}\n', ["request"]),
        ('msg = {"id": 1, "note": "roots/list"}\n', [None]),  # another key's value
        ('msg = {KEY: "roots/list"}\n', ["request"]),  # a constant key may say "method"
        ('rpc.call("roots/list")\nrpc.call(1, "roots/list")\nrpc.call(method="roots/list")\n', ["call"] * 3),
        ('KNOWN = frozenset({"roots/list", "tools/list"})\n', [None]),  # a table of known methods
        ('log.info("sent %s", x)\nprint("roots/list")\n', ["call"]),  # an argument: the callee decides
        ('"""Asks roots/list."""\n"roots/list"\n', [None]),  # a docstring, a lone string
        ('M = "roots/list"\nN: str = "roots/list"\n', ["constant", "constant"]),
        ('if method == "roots/list":\n    return answer()\n', ["dispatch"]),
        ('if method == "roots/list":\n    return await upstream.send_request(msg)\n', ["relay"]),
        ('if method in ("roots/list", "x"):\n    forward(msg)\n', ["relay"]),
        ('x = ("roots/list", "x")\n', [None]),
        ('handlers = {"roots/list": answer}\nhandlers["roots/list"](msg)\n', ["dispatch", "dispatch"]),
        ('match method:\n    case "roots/list":\n        await proxy_to(peer, msg)\n', ["relay"]),
        ('match method:\n    case "roots/list":\n        return answer()\n', ["dispatch"]),
        # the test of an `elif`, whose branch relays; an `if` whose else relays is no relay
        (
            'if m == "a":\n    pass\nelif m == "roots/list":\n    await send_request(m)\n'
            'if m == "roots/list":\n    pass\nelse:\n    await send_request(m)\n',
            ["relay", "dispatch"],
        ),
    ],
)
def test_where_reads_a_method_string_as_string_context_does(source, wheres):
    assert _wheres(source) == wheres


#: A gateway's router: it answers roots/list from its own root service, and keeps a table of the
#: methods it knows. RT001 reports nothing here (RT002 the answer).
_ROUTER = (
    "import mcp\n\n"
    'KNOWN = frozenset({"roots/list", "tools/list"})\n\n'
    "async def route(method, service):\n"
    '    if method == "roots/list":\n'
    "        return await service.list_all()\n"
)


def test_rt001s_screen_takes_no_table_and_no_answer_for_an_ask():
    settings = default_settings()
    syntax = screen.read(_ROUTER.encode(), "x.py")
    assert not asks_in(syntax)
    assert "RT001" in {rule.CODE for rule in engine.screens(_ROUTER.encode(), "x.py", settings).byte_rules}
    assert "RT001" not in engine.screens(_ROUTER.encode(), "x.py", settings).codes
    assert [f.code for f in check_bytes(_ROUTER.encode(), "x.py", settings).findings] == ["RT002"]
    relay = _ROUTER.replace("await service.list_all()", "await upstream.send_request(msg)")
    assert asks_in(screen.read(relay.encode(), "x.py"))
    assert "RT001" in [f.code for f in check_bytes(relay.encode(), "x.py", settings).findings]


def test_a_table_of_known_methods_alone_leaves_no_wire_rule_to_run():
    """RT002, RT004 and RT005 read the same literals (`method_in_code`): a table is none of theirs."""
    source = (
        "import mcp\n\n"
        'KNOWN = frozenset({"roots/list", "notifications/roots/list_changed", "tools/list"})\n\n'
        "def known(method):\n    return method in KNOWN\n"
    )
    settings = default_settings()
    decided = engine.screens(source.encode(), "x.py", settings)
    assert {"RT001", "RT002", "RT004", "RT005"} <= {rule.CODE for rule in decided.byte_rules}
    assert not decided.codes & {"RT001", "RT002", "RT004", "RT005"}
    assert check_bytes(source.encode(), "x.py", settings).findings == []
