"""The edit transformer's insertions: a statement whose text is already in the block is not
inserted again, whatever else the block holds (core/fix/apply.py)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.apply import edit_transformer
from mcp_migrate.core.fix.edits import Insert

SOURCE = """import os


def helper(path):
    return path


class Store:
    pass


x = 1
"""


def _inserted(statements: list, anchor_index: int = 0, before: bool = False) -> str:
    module = cst.parse_module(SOURCE)
    new = [cst.parse_statement(text) for text in statements]
    edit = Insert(module.body[anchor_index], tuple(new), before)
    return module.visit(edit_transformer(module, [edit], 88)).code


def test_a_statement_already_in_the_block_is_not_inserted():
    assert _inserted(["def helper(path):\n    return path\n"]) == SOURCE
    assert _inserted(["x = 1\n"], anchor_index=2) == SOURCE


def test_the_same_name_with_other_code_is_inserted():
    out = _inserted(["def helper(path):\n    return str(path)\n"])
    assert out.count("def helper(path):") == 2


def test_two_equal_insertions_give_one_statement():
    out = _inserted(["y = 2\n", "y = 2\n", "z = 3\n"])
    assert out == SOURCE.replace("import os\n", "import os\ny = 2\nz = 3\n", 1)


def test_a_statement_of_another_kind_with_a_name_in_common_is_inserted():
    out = _inserted(["helper = None\n"])
    assert out == SOURCE.replace("import os\n", "import os\nhelper = None\n", 1)
