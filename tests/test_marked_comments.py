"""The suppression comments of a file with findings, tokenized statement by statement
(core.suppress.marked_comments, issue 37): only the statements holding a line a suppression can
be on are read, and what is read is what the whole file's tokens give."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_migrate.core import suppress
from mcp_migrate.core.suppress import _parse, comments, marked_comments
from mcp_migrate.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent

#: Every place a suppression can sit: a method's statement, a decorator, a header, a comment
#: line between methods and between top-level statements, a string that only looks like one,
#: statements sharing a line, a marker in a class's header and in its method (one piece holds
#: the other), a `lint-fixme` line above its statement, `NOQA` in capitals, a bare `# noqa`.
SHAPES = """\
import os  # noqa: F401


def plain(x):
    return x + 1


class Service(Base):  # noqa: RT002
    text = "# noqa: RT001"

    @decorate  # noqa: RT003
    def ask(self, session):
        # lint-fixme: RT001
        found = session.list_roots()
        return found  # mcp-migrate: ignore[RT001] -- kept for the old clients

    # a comment line between methods  # NOQA: RT004

    def other(
        self,  # noqa: RT005
    ):
        a = (1,
             2); b = 3  # noqa: RT006
        return a, b


# lint-ignore: RT101
value = plain(1); other = 2  # noqa
"""


def _suppressions(text: str, found: list) -> tuple:
    parsed, blanket = _parse(found)
    return [(s.line, s.column, s.end_column, s.codes, s.lines, s.kind, s.reason) for s in parsed], blanket


def _same(text: str, name: str = "") -> None:
    tree = ast.parse(text)
    assert _suppressions(text, marked_comments(text, tree)) == _suppressions(text, comments(text)), name


def test_every_shape_reads_as_the_whole_file_does():
    _same(SHAPES)
    parsed, blanket = _suppressions(SHAPES, marked_comments(SHAPES, ast.parse(SHAPES)))
    assert len(parsed) == 9 and blanket == {28}  # each once, though the class holds the method
    assert (13, 9, 28, ("RT001",), (13, 14), "lint-fixme", "") in parsed


def _with_markers() -> list:
    found = []
    for path in sorted((ROOT / "fixtures").rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(marker.decode() in text for marker in suppress.MARKERS) or "NOQA" in text:
            found.append((str(path.relative_to(ROOT)), text))
    for rule in all_rules():
        for example in [*rule.VALID, *rule.INVALID]:
            if "noqa" in example.code.lower() or "mcp-migrate" in example.code or "lint-" in example.code:
                found.append((f"{rule.CODE} example", example.code))
    return found


def test_every_fixture_and_rule_example_with_a_marker_reads_as_the_whole_file_does():
    cases = _with_markers()
    assert len(cases) > 10
    for name, text in cases:
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        if "\r" not in text:
            _same(text, name)


def test_only_the_statements_holding_a_marker_are_tokenized(monkeypatch):
    """A large module with one `# noqa` is read one statement long (a gateway's 572 KB main
    module was tokenized whole for it)."""
    many = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(500))
    text = many + "def g(session):\n    return session.list_roots()  # noqa: RT001\n"
    read: list = []
    strict = suppress.comments_strict
    monkeypatch.setattr(suppress, "comments_strict", lambda piece: read.append(piece) or strict(piece))
    found = marked_comments(text, ast.parse(text))
    assert read == ["    return session.list_roots()  # noqa: RT001\n"]
    assert found == [(2002, 33, "# noqa: RT001", False)]


@pytest.mark.parametrize(
    "text",
    ["x = 1  # noqa: RT001\r\ny = 2\r\n", "x = 1\ry = 2  # noqa: RT001\r"],
    ids=["CRLF", "CR"],
)
def test_a_carriage_return_reads_the_whole_file(monkeypatch, text):
    whole: list = []
    monkeypatch.setattr(suppress, "comments", lambda t: whole.append(t) or comments(t))
    assert marked_comments(text, ast.parse(text)) == comments(text)
    assert whole == [text]


def test_without_a_tree_or_a_piece_that_tokenizes_the_whole_file_is_read(monkeypatch):
    text = "def f():\n    return 1  # noqa: RT001\n"
    assert marked_comments(text) == comments(text)

    def broken(piece):
        raise suppress.tokenize.TokenError("EOF in multi-line statement", (1, 0))

    monkeypatch.setattr(suppress, "comments_strict", broken)
    assert marked_comments(text, ast.parse(text)) == [(2, 14, "# noqa: RT001", False)]


def test_a_file_without_a_marker_reads_no_comment(monkeypatch):
    read: list = []
    monkeypatch.setattr(suppress, "comments_strict", lambda piece: read.append(piece) or [])
    assert marked_comments("x = 1  # a comment\n", ast.parse("x = 1\n")) == []
    assert read == []


def test_the_engine_reads_the_suppressions_of_a_checked_file_by_statement(monkeypatch):
    """The check hands its `ast` tree to the suppressions' reading: the finding is suppressed,
    and only its statement is tokenized."""
    from mcp_migrate.api import check_source

    many = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(50))
    text = (
        "from mcp import ClientSession\n\n\n"
        + many
        + "async def run(session: ClientSession) -> None:\n"
        + "    await session.send_roots_list_changed()  # noqa: RT004\n"
    )
    read: list = []
    strict = suppress.comments_strict
    monkeypatch.setattr(suppress, "comments_strict", lambda piece: read.append(piece) or strict(piece))
    assert [f.code for f in check_source(text)] == []
    assert read == ["    await session.send_roots_list_changed()  # noqa: RT004\n"]
