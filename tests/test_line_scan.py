"""core.line_scan: an unanchored pattern's matches kept where they begin a line give exactly what
the `(?m)^[ \t]*`-anchored pattern finds, the statements the byte screens read imports from."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_migrate.core.line_scan import at_line_start, line_matches, starts_a_line
from mcp_migrate.core.sdk import _MCP_IMPORT, mcp_file, mentions_mcp
from mcp_migrate.run.reexports import Importers
from mcp_migrate.vocabulary.imported_asks import _ALIAS, _FROM, _IMPORT, from_imports, import_statements

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


def _anchored_statements(data: bytes) -> tuple:
    """What `import_statements` replaced: each pattern's own anchored search, read match by match."""
    froms = []
    for match in ANCHORED[_FROM].finditer(data):
        names = []
        for alias in _ALIAS.finditer(match.group(2) or match.group(3) or b""):
            name = alias.group(1).decode("ascii", "replace")
            if "." not in name and name != "*":
                names.append((name, (alias.group(2) or alias.group(1)).decode("ascii", "replace")))
        if names:
            froms.append((match.group(1).decode("ascii", "replace"), names))
    plains = [
        (m.group(1).decode("ascii", "replace"), (m.group(2) or m.group(1)).decode("ascii", "replace"))
        for m in ANCHORED[_IMPORT].finditer(data)
    ]
    return froms, plains


STATEMENT_PIECES = st.sampled_from(
    [b"from", b"import", b"import ", b"from a import ", b" as ", b"importlib", b" ", b"\t", b"\n", b"\r", b"(", b")"]
    + [b",", b"a.b", b".", b"..x", b"x", b"*", b"#", b";", b"'", b"\\\n", b"\xc3\xa9"]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(STATEMENT_PIECES, max_size=40).map(b"".join))
def test_one_pass_reads_the_statements_the_anchored_patterns_find(data):
    """Both kinds of statement in one pass over the word `import`, with and without statements
    read before (a run's view keeps them): what the two anchored searches gave."""
    known: dict = {}
    expected = _anchored_statements(data)
    assert import_statements(data) == expected
    assert import_statements(data, known) == expected and import_statements(data, known) == expected
    assert import_statements(b"x\n" + data, known) == _anchored_statements(b"x\n" + data)


def test_each_kind_of_statement_hides_only_its_own_kind():
    """A from-statement's parenthesis spanning a line that begins with `import` hides a
    from-statement there, not a plain import, as the two searches did apart."""
    data = b"from a import (b,\nimport c\nfrom d import e)\nimport f\n"
    words = [(word, word) for word in ("b", "import", "c", "from", "d", "import", "e")]
    assert import_statements(data) == ([("a", words)], [("c", "c"), ("f", "f")])
    assert import_statements(data) == _anchored_statements(data)


def test_a_statement_repeated_across_files_is_read_once_per_run():
    """The statements read are kept by their text: a second file repeating an import line does
    not work it out again, and a line differing by a byte is read on its own."""
    known: dict = {}
    first = b"from pkg.tools import get_dirs as dirs\nimport os.path as p\n"
    assert import_statements(first, known) == ([("pkg.tools", [("get_dirs", "dirs")])], [("os.path", "p")])
    assert len(known) == 2
    froms, plains = import_statements(b"import json\n" + first + b"from pkg.tools import get_dir\n", known)
    assert froms == [("pkg.tools", [("get_dirs", "dirs")]), ("pkg.tools", [("get_dir", "get_dir")])]
    assert plains == [("json", "json"), ("os.path", "p")]
    assert len(known) == 4
