"""core.byte_code: the shapes of code the byte screens find, written as Python allows them."""

from __future__ import annotations

import re

import pytest

from mcp_migrate.core import byte_code
from mcp_migrate.core.byte_code import (
    CLOSE_GAP,
    GAP,
    OPEN_GAP,
    commas_at_least,
    ends_before,
    given_by_keyword,
    spelled,
    whole_words,
)


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"f(require_approval='never')", True),
        (b"f(\n    require_approval  # every tool\n    = 'never')", True),
        (b"f(require_approval \\\n= x)", True),
        (b"require_approval = 'never'", True),
        (b"if require_approval == 'never': pass", False),
        (b"f(always_require_approval=['x'])", False),
        (b"f(require_approval_mode='never')", False),
        (b"x = 'require_approval'", False),
    ],
)
def test_a_keyword_is_a_whole_name_given_with_equals(data, found):
    assert given_by_keyword(data, b"require_approval") is found


def test_words_are_offsets_no_identifier_byte_touches():
    data = b"root roots _root root_ (root) root"
    assert list(whole_words(data, b"root")) == [0, 24, 30]


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"s.list_roots()", True),
        (b"s.list_roots", True),
        (b"s.list_roots_cached()", False),
        (b"s.list_roots_cached(); s.list_roots()", True),  # a later whole one counts
        (b"s.list_roots9", False),
        (b"s.list_roots\xc3", True),  # a non-ASCII byte is not an identifier byte here (as `\w` of bytes)
    ],
)
def test_a_name_is_spelled_where_no_identifier_byte_follows_it(data, found):
    assert spelled(data, b".list_roots") is found


def test_the_gaps_allow_what_python_allows_between_tokens():
    gap = re.compile(rb"a" + GAP + rb"b")
    assert all(gap.fullmatch(text) for text in (b"ab", b"a \n\tb", b"a  # note\n  b", b"a \\\nb", b"a \\\r\nb"))
    assert not gap.fullmatch(b"a x b")
    assert re.compile(rb"a" + OPEN_GAP + rb"b").fullmatch(b"a ((\n b")
    assert re.compile(rb"7" + CLOSE_GAP + rb":").fullmatch(b"7 )) # n\n:")


@pytest.mark.parametrize("gap", [GAP, OPEN_GAP, CLOSE_GAP], ids=["GAP", "OPEN_GAP", "CLOSE_GAP"])
def test_a_gap_reads_a_comment_only_to_the_end_of_its_line(gap):
    """A gap that could end a comment anywhere splits a block of comments holding `#` in
    exponentially many ways, and a pattern failing after it tries them all (397 s on one
    17 KB test module). Read only whole, a comment leaves nothing after it on its line."""
    assert re.fullmatch(gap, b"# a # b\n  # c # d\n")
    assert re.fullmatch(gap + rb" # b", b"# a # b") is None
    assert re.fullmatch(gap + rb"b", b"# a\nb")
    assert re.fullmatch(gap + rb"b", b"# a\r\nb")


def test_a_shape_ending_before_a_token_is_found_by_looking_back():
    opened = re.compile(rb"\[" + OPEN_GAP + rb"$")
    data = b"u[  len(p):]; v = len(q)"
    assert ends_before(opened, data, data.index(b"len"))
    assert not ends_before(opened, data, data.rindex(b"len"))


@pytest.mark.parametrize(
    ("arguments", "found"),
    [
        (b"r, w, None, None, None, cb)", True),
        (b"r, w, f(a, b, c, d, e))", False),  # a nested call's commas are its own
        (b"r, w, 'a,b,c', \"d,e\")", False),
        (b"r,  # a, b, c, d, e\n w)", False),
        (b'r, w, """x), y""", a, b, c)', True),
        (b"r, w, '\\'', a, b, c)", True),  # an escaped quote does not end the string
        (b"r, w, [a, b, c, d, e])", False),
        (b"r, w, a, b", True),  # the bytes end first: let through
    ],
)
def test_commas_of_the_call_itself_are_counted(arguments, found):
    assert commas_at_least(b"ClientSession(" + arguments, len(b"ClientSession("), 5) is found


@pytest.mark.parametrize(
    ("arguments", "found"),
    [
        (b"r, w, None, None, None, cb)", True),
        (b"r, w, None, None, None, *rest)", True),  # a `*args` counts: the syntax screen decides
        (b"r, w, None, None, None, x == y)", True),  # a comparison is no keyword
        (b"read_stream=r, write_stream=w, a=1, b=2, c=3, d=4)", False),
        (b"r, w, None, None, None, list_roots_callback=cb)", False),
        (b"r, w, None, None,  # the rest by name\n    sampling_callback\n    = s, cb=1)", False),
        (b"r, w, None, None, None, **options)", False),
        (b"r, w, f(a=1, b=2), None, None, cb)", True),  # a nested call's keywords are its own
    ],
)
def test_positional_commas_stop_at_the_first_keyword_argument(arguments, found):
    start = len(b"ClientSession(")
    assert commas_at_least(b"ClientSession(" + arguments, start, 5, positional=True) is found


class _Counted(bytes):
    """A file's bytes that count the searches made of them (`token in data`)."""

    searched: list

    def __contains__(self, token) -> bool:
        self.searched.append(bytes(token))
        return super().__contains__(token)


def _counted(text: bytes) -> _Counted:
    data = _Counted(text)
    data.searched = []
    return data


ROOTS_TOKENS = (b"list_roots", b"ListRoots", b"roots/list", b"ROOTS_LIST", b"LIST_ROOTS", b"_roots(")
OTHER_TOKENS = (b"ClientSession", b"readOnlyHint", b"file:", b"Root(")


@pytest.mark.parametrize(
    "text",
    [
        b"from mcp import ClientSession\nresult = await session.list_roots()\n",
        b"ROOTS_LIST = 'roots/list'\n",
        b"x = Root(uri='file:///a')  # no roots word\n",
        b"from mcp import ClientSession\n",
        b"",
    ],
)
def test_holds_is_a_search_of_the_bytes(text):
    for token in (*ROOTS_TOKENS, *OTHER_TOKENS, *byte_code.ROOTS_WORDS):
        assert byte_code.holds(text, token) is (token in text)


def test_a_file_without_a_roots_word_is_searched_for_the_words_alone():
    """A token that holds a roots word cannot be in bytes without one: the words' two
    searches answer for every such token, and each token of another is searched for once,
    however many screens ask (issue 37: 626 of fast-agent's 795 MCP files name no root)."""
    data = _counted(b"from mcp import ClientSession\n\nasync def main(session):\n    await session.initialize()\n")
    for _ in range(3):  # three rules' screens asking of the same file
        assert not any(byte_code.holds(data, token) for token in ROOTS_TOKENS)
        assert byte_code.holds(data, b"ClientSession")
    assert sorted(data.searched) == sorted([b"oots", b"OOTS", b"ClientSession"])


def test_a_file_with_a_roots_word_is_searched_for_each_token_once():
    data = _counted(b"roots = await session.list_roots()\n")
    for _ in range(2):
        assert [byte_code.holds(data, token) for token in ROOTS_TOKENS[:3]] == [True, False, False]
    assert sorted(data.searched) == sorted([b"oots", b"list_roots", b"ListRoots", b"roots/list"])


#: Bytes that make the edges of a name: identifier bytes, dots, blanks, a non-ASCII byte.
_EDGE_ALPHABET = b"ab_1. \n\xc3("


def _random_bytes(rng, size: int) -> bytes:
    return bytes(rng.choice(_EDGE_ALPHABET) for _ in range(size))


@pytest.mark.parametrize(
    ("data", "bound", "found"),
    [
        (b"m.Client(); m.Server", b"m", [b"Client", b"Server"]),
        (b"am.Client; _m.X; 1m.Y; .m.Z", b"m", [b"Z"]),  # a `.` before the name is no identifier byte
        (b"a.a.b", b"a", [b"a"]),  # a match goes on after the name it found, as finditer does
        (b"xa.a.b", b"a", [b"b"]),  # a rejected place goes on one byte further
        (b"pkg.mod.Client", b"pkg.mod", [b"Client"]),
        (b"m.", b"m", []),
        (b"a ..x", b"..", []),  # no identifier byte first: the pattern itself
    ],
)
def test_names_after_a_bound_module_are_those_of_the_pattern(data, bound, found):
    assert list(byte_code.names_after(data, bound)) == found
    assert found == [m.group(1) for m in re.finditer(rb"\b" + re.escape(bound) + rb"\.(\w+)", data)]


def test_names_after_and_word_in_answer_as_their_patterns_on_random_bytes():
    """The literal scans give what the `\\b` patterns they replace give (issue 37: a pattern
    that starts with `\\b` is tried at every byte: a 1.26 MB test module's plain imports cost its
    RT001 syntax screen 1.0 s)."""
    import random

    rng = random.Random(37)
    words = [b"a", b"ab", b"a_1", b"a.b", b"a.", b".a", b"\xc3a", b"a\xc3", b"1", b"_"]
    for _ in range(3000):
        data = _random_bytes(rng, rng.randrange(0, 40))
        word = rng.choice(words)
        expected_names = [m.group(1) for m in re.finditer(rb"\b" + re.escape(word) + rb"\.(\w+)", data)]
        assert list(byte_code.names_after(data, word)) == expected_names, (data, word)
        expected_in = re.search(rb"\b" + re.escape(word) + rb"\b", data) is not None
        assert byte_code.word_in(data, word) is expected_in, (data, word)


@pytest.mark.parametrize(
    ("data", "word", "found"),
    [
        (b"class Client:", b"Client", True),
        (b"class MyClient:", b"Client", False),
        (b"Clients = []", b"Client", False),
        (b"x.Client.y", b"Client", True),
        (b"", b"Client", False),
    ],
)
def test_a_word_is_in_the_bytes_where_it_stands_whole(data, word, found):
    assert byte_code.word_in(data, word) is found


def test_a_word_in_any_case_is_what_a_case_blind_pattern_finds():
    """`holds_any_case` searches the lowered bytes for what `(?i)word` finds: ASCII letters fold,
    other bytes (UTF-8's, a Kelvin sign's) never do (issue 37: RT102's case-blind patterns
    were tried at every byte of each MCP file)."""
    import random

    rng = random.Random(102)
    alphabet = b"rRoOtTuUiI'\"fFlLeE:/ \xc3\x84\xe2\x84\xaa"
    for _ in range(3000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        for word in (b"root", b"uri", b"resource", b"'file:/", b'"file:/'):
            expected = re.search(b"(?i)" + re.escape(word), data) is not None
            assert byte_code.holds_any_case(data, word) is expected, (data, word)


def test_the_lowered_bytes_are_made_once_for_the_last_file():
    data = b"from mcp import ClientSession\nROOT = 'file:///srv'\n"
    first = byte_code.lowered(data)
    assert first == data.lower()
    assert byte_code.lowered(data) is first  # the same file asked again
    other = b"Resource"
    assert byte_code.lowered(other) == b"resource"


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (b"from mcp.types import Root as R\n", True),
        (b"kind = Root if typed else None\n", True),
        (b"def f(r: 'Root'): ...\n", True),
        (b'def f(r: list["Root"]): ...\n', True),
        (b'def f(r: "list[Root]"): ...\n', True),
        (b"{key: 'Root'}\n", True),  # a name's `:` may be a parameter's
        (b'x = """Root"""\n', True),  # a docstring may stand anywhere
        (b's = "#"; Root\n', True),  # the `#` is in a string: the name is code
        (b"Root", True),
        (b"Root directory, where it starts\n", False),  # prose
        (b"assert len(batches[0]) == 1  # Root\n", False),
        (b"# Root\nx = 1\n", False),
        (b'tasks = [{"index": "1", "title": "Root"}]\n', False),
        (b"f(kind='Root')\n", False),
        (b'f("Root")\n', False),
        (b'if kind == "Root": pass\n', False),
        (b"{'Root'}\n", False),
    ],
)
def test_a_name_in_code_is_neither_prose_nor_a_comment_nor_a_string_given_as_data(data, named):
    assert byte_code.named_in_code(data, b"Root") is named
