"""HA001's acting test (3.): whether the branches of an `if`/`while`/conditional expression call a
tool or ask the user. Every `if` of an `elif` chain asks it of the branches the `if` around it
asked of already; each node's answer is worked out once per module (issue 37: walked anew for
each `if`, a chain's cost grew with the square of its length)."""

from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from mcp_migrate.api import check_source
from mcp_migrate.rules import ha001_annotation_trust as ha001

BRANCHES = 40


def _chain(last: str) -> str:
    """An `if` on a hint, then BRANCHES `elif`s that log, the last of which runs `last`."""
    lines = ["def decide(tool, args, flags):", "    if tool.annotations.readOnlyHint:", "        log('read only')"]
    for index in range(BRANCHES):
        lines += [f"    elif flags[{index}]:", f"        log({index})"]
    lines += ["    else:", *(f"        {line}" for line in textwrap.dedent(last).splitlines())]
    return "\n".join(lines) + "\n"


def _findings(source: str) -> list:
    return [(f.code, f.line, f.column, f.message) for f in check_source(source) if f.code == "HA001"]


def test_a_tool_called_at_the_chains_end_is_an_acting_branch():
    assert _findings(_chain("call_tool(tool, args)")) == [
        ("HA001", 2, 8, "untrusted hint `readOnlyHint` decides whether a tool runs or the user is asked")
    ]


@pytest.mark.parametrize(
    "last",
    [
        "def later():\n    call_tool(tool, args)",
        "later = lambda: call_tool(tool, args)",
        "log('done')",
    ],
    ids=["in a nested function", "in a lambda", "no call"],
)
def test_a_call_in_a_function_or_lambda_defined_there_does_not_act(last):
    assert _findings(_chain(last)) == []


def test_each_call_is_asked_once(monkeypatch):
    asked: Counter = Counter()
    real = ha001._acts

    def counting(call):
        asked[id(call)] += 1
        return real(call)

    monkeypatch.setattr(ha001, "_acts", counting)
    findings = _findings(_chain("call_tool(tool, args)"))
    assert len(findings) == 1
    assert len(asked) == BRANCHES + 2  # each branch's `log(...)`, the first one's, and `call_tool`
    assert max(asked.values()) == 1
