"""Property: random programs built from fixture snippets, nested in functions, classes and
if/try/with blocks, always fix to code that parses, fix idempotently, and files without a
fixable finding are never rewritten."""

import textwrap

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_migrate.api import fix_bytes

HEADER = """\
import json
import mcp.types as types
from mcp import ClientSession
from mcp.server.lowlevel import Server
from mcp.types import RootsCapability

server = Server("p")
"""

SNIPPETS = [
    "await session.send_roots_list_changed()",
    "x = [await session.send_roots_list_changed()]",
    "await session.send_notification(types.ClientNotification(types.RootsListChangedNotification()))",
    "server.notification_handlers[types.RootsListChangedNotification] = handler",
    'server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams, handler)',
    "caps = RootsCapability(listChanged=True)",
    'raw = {"capabilities": {"roots": {"listChanged": True}}}',
    "other = Server('q', on_roots_list_changed=handler)",
    "value = json.dumps({})",
    "print('unrelated')",
    "# a comment line",
    "pass",
]

WRAPPERS = [
    "async def f{n}(session: ClientSession, handler=None):\n{body}",
    "class C{n}:\n    async def m(self, session: ClientSession, handler=None):\n{body2}",
    "if flag:\n{body}",
    "if flag:\n{body}\nelse:\n{body}",
    "try:\n{body}\nexcept Exception:\n{body}",
    "with ctx:\n{body}",
    "for item in items:\n{body}",
]


@st.composite
def programs(draw):
    blocks = []
    for n in range(draw(st.integers(1, 4))):
        lines = draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=4))
        body = "\n".join(lines)
        wrapper = draw(st.sampled_from(WRAPPERS))
        text = wrapper.format(
            n=n,
            body=textwrap.indent(body, "    "),
            body2=textwrap.indent(body, "        "),
        )
        if draw(st.booleans()) and "{body}" in wrapper and wrapper.startswith(("if", "with", "for")):
            text = "async def g{}(session: ClientSession, handler=None):\n{}".format(n, textwrap.indent(text, "    "))
        blocks.append(text)
    return HEADER + "\n\n" + "\n\n".join(blocks) + "\n"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.booleans())
def test_fix_properties(source: str, unsafe: bool):
    data = source.encode()
    try:
        cst.parse_module(data)
        compile(data, "p.py", "exec", dont_inherit=True)
    except (SyntaxError, cst.ParserSyntaxError):
        return  # the generator can build invalid programs (a comment-only body): not our input
    result = fix_bytes(data, "p.py", unsafe=unsafe)
    assert not result.errors, result.errors
    if not result.applied:
        assert result.fixed_source is None
        return
    out = result.fixed_source
    assert out is not None
    cst.parse_module(out)
    compile(out, "p.py", "exec", dont_inherit=True)
    again = fix_bytes(out, "p.py", unsafe=unsafe)
    assert again.fixed_source is None and again.applied == []
    # Left: no fix, a suggestion (never applied by `fix`), or an unsafe fix `fix` alone leaves.
    assert all(f.fix in ("none", "display") or (f.fix == "unsafe" and not unsafe) for f in again.findings)
