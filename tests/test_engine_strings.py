"""A plain string literal's value is read from its text without evaluating it (the rules ask
for about 50,000 literals in one 1.26 MB module, and each evaluation compiles); the reading
must agree with LibCST's own evaluation on every spelling, or defer to it."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_migrate.core.syntax import literal, plain_value

SPELLINGS = [
    '"roots/list"',
    "'roots/list'",
    '"""roots/list"""',
    "'''roots/list'''",
    'r"roots/list"',
    'u"roots/list"',
    'R"roots/list"',
    'U"roots/list"',
    '""',
    "''",
    '""""""',
    "''''''",
    'b"roots/list"',
    'rb"roots/list"',
    'Br"roots/list"',
    '"roots\\/list"',
    '"roots\\u002flist"',
    'r"roots\\u002flist"',
    '"""a\r\nb"""',
    '"""a\rb"""',
    '"""a\nb"""',
    "'\"'",
    '"\'"',
    '"""\'\'\'"""',
    "'''\"\"\"'''",
    '"ünïcode ✓"',
    '"a\0b"',
]


def _evaluated(node: cst.SimpleString):
    """What evaluation says: the value of a str literal, None for bytes or a refusal."""
    try:
        value = node.evaluated_value
    except Exception:
        return None
    return value if isinstance(value, str) else None


def _agrees(source: str) -> None:
    node = cst.parse_expression(source)
    assert isinstance(node, cst.SimpleString)
    fast = plain_value(node.value)
    assert fast is None or fast == _evaluated(node), source
    assert literal(node) == _evaluated(node), source


@pytest.mark.parametrize("source", SPELLINGS)
def test_plain_value_agrees_with_evaluation_or_defers(source):
    _agrees(source)


def test_plain_value_reads_the_common_spellings_without_evaluation():
    assert plain_value('"roots/list"') == "roots/list"
    assert plain_value('"""x"""') == "x"
    assert plain_value("r'x'") == "x"
    assert plain_value('""') == ""
    assert plain_value('""""""') == ""
    assert plain_value('"ünïcode"') == "ünïcode"


@pytest.mark.parametrize("source", ['"a\\nb"', 'b"x"', 'rb"x"', '"""a\r\nb"""', '"a\0b"', 'r"a\\b"'])
def test_plain_value_defers_what_evaluation_must_decide(source):
    assert plain_value(source) is None


_PREFIXES = st.sampled_from(["", "r", "R", "u", "U", "b", "B", "rb", "bR"])
_QUOTES = st.sampled_from(["'", '"', "'''", '"""'])
_BODY = st.text(alphabet=st.sampled_from(list("ab/ \\'\"\r\n\0\tü✓xN{}")), max_size=12)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # evaluating `"\\}"` warns
@settings(max_examples=400, deadline=None)
@given(_PREFIXES, _QUOTES, _BODY)
def test_plain_value_agrees_with_evaluation_on_any_literal_that_parses(prefix, quote, body):
    source = prefix + quote + body + quote
    try:
        node = cst.parse_expression(source)
    except Exception:
        return
    if isinstance(node, cst.SimpleString):
        _agrees(source)


def test_plain_value_agrees_with_evaluation_on_every_fixture_literal():
    root = Path(__file__).resolve().parent.parent / "fixtures"
    checked = 0
    for path in sorted(root.rglob("*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except Exception:
            continue
        for node in _strings(module):
            fast = plain_value(node.value)
            assert fast is None or fast == _evaluated(node), (path, node.value)
            checked += fast is not None
    assert checked > 1000


def _strings(module: cst.Module) -> list:
    found: list = []

    class Collect(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            found.append(node)

    module.visit(Collect())
    return found
