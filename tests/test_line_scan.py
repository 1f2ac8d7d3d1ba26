"""core.line_scan: an unanchored pattern's matches kept where they begin a line give exactly what
the `(?m)^[ \t]*`-anchored pattern finds, the statements the byte screens read imports from."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_migrate.core.line_scan import at_line_start, line_matches, starts_a_line
from mcp_migrate.core.sdk import _MCP_IMPORT, mcp_file, mentions_mcp
from mcp_migrate.run.reexports import Importers
from mcp_migrate.vocabulary.imported_asks import _FROM, _IMPORT, from_imports

#: The importers' search for names taken from `pkg/a.py` and `b/__init__.py` (run.reexports).
_IMPORTERS = Importers(["pkg/a.py", "b/__init__.py"]).pattern

ANCHORED = {
    _FROM: re.compile(rb"(?m)^[ \t]*" + _FROM.pattern),
    _IMPORT: re.compile(rb"(?m)^[ \t]*" + _IMPORT.pattern.removeprefix(b"(?m)")),
    _MCP_IMPORT: re.compile(rb"(?m)^[ \t]*" + _MCP_IMPORT.pattern),
    _IMPORTERS: re.compile(rb"(?m)^[ \t]*" + _IMPORTERS.pattern),
}


def test_a_match_counts_only_after_blanks_at_its_lines_start():
    data = b"x = 1\n  \tfrom a import b\ny = 'from c import d'\nfrom e import f\n"
    assert [m.groups() for m in line_matches(_FROM, data)] == [(b"a", None, b"b"), (b"e", None, b"f")]
    assert at_line_start(data, data.index(b"from a")) and not at_line_start(data, data.index(b"from c"))


def test_a_rejected_match_spanning_lines_hides_no_statement_inside_it():
    """`from a import (x` inside a string reaches, through its parenthesis, past the next
    line's real `from b import c`: the search goes on from its second character."""
    data = b'foo = "from a import (x"\nfrom b import c\n)\n'
    assert from_imports(data) == [("b", [("c", "c")])]
    assert [m.groups() for m in ANCHORED[_FROM].finditer(data)] == [(b"b", None, b"c")]


def test_the_mcp_import_is_found_only_as_a_statement():
    assert mcp_file(b"import os\n    from mcp.types import Root\n")
    assert not mcp_file(b"text = 'see: from mcp import types'\n")
    assert starts_a_line(_MCP_IMPORT, b"import fastmcp\n") and not starts_a_line(_MCP_IMPORT, b"# import mcp\n")


def test_mcp_is_mentioned_in_any_of_its_three_spellings_and_no_other():
    assert [mentions_mcp(text) for text in (b"fastmcp", b"FastMCP", b"McpError", b"mCp", b"m c p", b"")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"m", b"c", b"p", b"M", b"C", b"P", b"cp", b"x"]), max_size=8).map(b"".join))
def test_mentions_mcp_answers_as_the_regular_expression_it_replaced(data):
    """Three substring searches, and the last answer kept: the same as `mcp|MCP|Mcp` searched,
    asked once or twice of the same bytes and after other bytes."""
    expected = re.search(rb"mcp|MCP|Mcp", data) is not None
    assert mentions_mcp(data) == expected and mentions_mcp(data) == expected
    assert mentions_mcp(b"x" + data) == expected


PIECES = st.sampled_from(
    [b"from", b"import", b" ", b"\t", b"\n", b"\r\n", b"(", b")", b"mcp", b"a.b", b".", b"x", b"#", b";", b"as", b"'"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40).map(b"".join))
def test_each_pattern_finds_what_its_anchored_form_finds(data):
    for pattern, anchored in ANCHORED.items():
        assert [m.groups() for m in line_matches(pattern, data)] == [m.groups() for m in anchored.finditer(data)]
        assert starts_a_line(pattern, data) == (anchored.search(data) is not None)
