"""core.sdk.byte_evidence: the Roots evidence of a file's bytes, each pattern searched only where
the bytes hold a literal every match of it holds (issue 37: searched for themselves, patterns that
start with `\\b` or a quote are tried at every byte)."""

from __future__ import annotations

import random

import pytest

from mcp_migrate.core import sdk

ROOTS_EVIDENCE = {"roots-types", "wire"}


def _patterns_alone(data: bytes) -> set:
    """The evidence as the patterns alone give it (the reading before the literals went first)."""
    found = set()
    if sdk._SPEC_TYPE_BYTES.search(data) or sdk._ROOT_WITH_URI.search(data):
        found.add("roots-types")
    if sdk._WIRE_METHOD.search(data) or sdk._ROOTS_CAPABILITY.search(data):
        found.add("wire")
    elif sdk._ENVELOPE.search(data) and b"roots" in data:
        found.add("wire")
    return found


SNIPPETS = [
    b'"roots"',
    b"'roots'",
    b": {",
    b'"listChanged"',
    b"'list_changed'",
    b'"jsonrpc"',
    b"JSONRPC_VERSION",
    b"xJSONRPC",
    b"Root(uri=",
    b"Root( uri =",
    b"MyRoot(uri=",
    b"ListRootsResult",
    b"xListRootsResult",
    b"RootsCapability",
    b'"roots/list"',
    b"'notifications/roots/list_changed'",
    b"roots",
    b" ",
    b"\n",
    b"'",
    b'"',
    b"]",
    b":",
]


def test_the_evidence_is_what_the_patterns_alone_give():
    rng = random.Random(237)
    for _ in range(4000):
        data = b"".join(rng.choice(SNIPPETS) for _ in range(rng.randrange(0, 8)))
        assert sdk.byte_evidence(data) & ROOTS_EVIDENCE == _patterns_alone(data), data


class _Counted:
    """A pattern that counts its searches."""

    def __init__(self, pattern, searched: list) -> None:
        self.pattern, self.searched = pattern, searched

    def search(self, data, *args):
        self.searched.append(self.pattern.pattern)
        return self.pattern.search(data, *args)


@pytest.mark.parametrize(
    "data",
    [
        b"import json\n\ndef handle(message):\n    return json.dumps({'jsonrpc': '2.0', 'result': {}})\n",
        b"from mcp import ClientSession\n\nasync def main(session):\n    await session.initialize()\n",
    ],
)
def test_a_file_without_a_roots_literal_is_searched_with_no_pattern(monkeypatch, data):
    searched: list = []
    for name in ("_SPEC_TYPE_BYTES", "_ROOT_WITH_URI", "_WIRE_METHOD", "_ENVELOPE", "_ROOTS_CAPABILITY"):
        monkeypatch.setattr(sdk, name, _Counted(getattr(sdk, name), searched))
    assert not sdk.byte_evidence(data) & ROOTS_EVIDENCE
    assert searched == []
