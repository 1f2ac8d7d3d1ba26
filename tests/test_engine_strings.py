"""The engine reads a plain string literal's value without evaluating it; it must agree with
evaluation on every spelling, or defer to it."""

from __future__ import annotations

import libcst as cst
import pytest

from mcp_migrate.core.dispatch import _plain_value
from mcp_migrate.core.syntax import literal

SPELLINGS = [
    '"roots/list"',
    "'roots/list'",
    '"""roots/list"""',
    "'''roots/list'''",
    'r"roots/list"',
    'u"roots/list"',
    'R"roots/list"',
    '""',
    "''",
    '""""""',
    'b"roots/list"',
    'rb"roots/list"',
    '"roots\\/list"',
    '"roots\\u002flist"',
    '"""a\r\nb"""',
    "'\"'",
    '"\'"',
]


@pytest.mark.parametrize("source", SPELLINGS)
def test_plain_value_agrees_with_evaluation_or_defers(source):
    node = cst.parse_expression(source)
    assert isinstance(node, cst.SimpleString)
    fast = _plain_value(node)
    assert fast is None or fast == literal(node)


def test_plain_value_handles_the_common_case_without_evaluation():
    assert _plain_value(cst.parse_expression('"roots/list"')) == "roots/list"
    assert _plain_value(cst.parse_expression('"""x"""')) == "x"
