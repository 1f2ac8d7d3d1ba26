"""The parsed module's code by top-level statement (core/fix/pieces.py): sliced from the file,
each piece is exactly LibCST's code for its statement, or the slicing declines and the pieces
are generated. Never a piece that differs."""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libcst._nodes.internal import CodegenState

from mcp_migrate.core.fix import pieces
from mcp_migrate.core.positions import top_level_spans
from mcp_migrate.core.walk import children

#: Top-level fragments whose boundaries LibCST places in different ways: comments after an
#: indented block (indented: the block's footer; at column 0: the next statement's), comments
#: between decorators, several statements on one line, a one-line compound statement, strings
#: over several lines, a continuation line.
FRAGMENTS = [
    "import os\n",
    "import os; import sys\n",
    "x = 1  # trailing\n",
    "\n",
    "\n\n",
    "# a comment\n",
    "    # an indented comment\n",
    "def f():\n    return 1\n",
    "def f():\n    return 1\n    # the block's own comment\n",
    "def f():\n    return 1\n\n    # after a blank line, indented\n",
    "async def g(a,\n            b):\n    await a\n",
    "@decorator\n# between decorators\n@other(1)\ndef h():\n    pass\n",
    "# before the decorator\n@decorator\ndef h():\n    pass\n",
    "class C:\n    x = 1\n\n    def m(self):\n        pass\n        # deep\n    # shallower\n",
    "if x: pass\n",
    "if x:\n    y = 1\nelse:\n    y = 2\n",
    'text = """one\n\ntwo\n# not a comment\n"""\n',
    "total = 1 + \\\n    2\n",
    "try:\n    pass\nexcept Exception:\n    pass\nfinally:\n    pass\n",
    "for i in range(3):\n    print(i)\n",
]


def _parses(text: str) -> bool:
    """Whether both the standard library and LibCST read `text` (a generated module may not)."""
    try:
        ast.parse(text)
        cst.parse_module(text)
    except (SyntaxError, cst.ParserSyntaxError):
        return False
    return True


def _check(text: str) -> bool:
    """Whether the slicing took the file (True) or declined; asserts its pieces are LibCST's."""
    data = text.encode()
    module = cst.parse_module(data)
    found = pieces.sliced(module, data, top_level_spans(ast.parse(data)))
    if found is None:
        return False
    assert found.bytes == data == module.bytes
    assert [found.statements[id(stmt)] for stmt in module.body] == [
        (stmt, module.code_for_node(stmt)) for stmt in module.body
    ]
    return True


def test_a_module_of_every_fragment_is_sliced_exactly():
    assert _check('"""Docstring."""\n# header comment\n\n' + "".join(FRAGMENTS) + "# footer\n\n# last\n")


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_each_fragment_between_statements(fragment):
    text = "import os\n" + fragment + "y = 2\n"
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("not a module on its own")
    assert _check(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12))
def test_any_order_of_fragments_is_sliced_exactly_or_declined(chosen):
    text = "".join(chosen)
    if not _parses(text):
        return
    _check(text)  # a decline is allowed; a wrong piece is not
    _check_without_final_newline(text)


def _check_without_final_newline(text: str) -> None:
    """The same module ending without a newline (LibCST then drops the last one it writes)."""
    cut = text.rstrip("\n")
    if not _parses(cut):
        return
    if cut:
        _check(cut)


@pytest.mark.parametrize("text", ["x = 1\ny = 2", "def f():\n    return 1\n    # its own", "if a:\n    pass\n# after"])
def test_a_module_without_a_final_newline_is_sliced(text):
    assert _check(text)


_BETWEEN = ["", "\n", "# c\n", "    # c4\n", "        # c8\n", "  # c2\n", "\t# tab\n", "    \n", "\t\n"]


def _nested(rng, depth: int = 0) -> str:
    """Blocks in blocks with blank and comment lines at every indent between and after them
    (where LibCST's parser gives lines to one block's footer or another's, or loses them)."""
    indent = "    " * depth
    out = ""
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if kind < 0.4 or depth > 2:
            out += indent + "x = 1\n"
        elif kind < 0.7:
            out += indent + "def f():\n" + _nested(rng, depth + 1)
        else:
            out += indent + "if a:\n" + _nested(rng, depth + 1)
            if rng.random() < 0.3:
                out += indent + "elif b:\n" + _nested(rng, depth + 1)
            if rng.random() < 0.5:
                out += indent + "else:\n" + _nested(rng, depth + 1)
        out += "".join(rng.choice(_BETWEEN) for _ in range(rng.randint(0, 2)))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_nested_blocks_with_lines_between_are_sliced_exactly_or_declined(rng):
    text = _nested(rng) + rng.choice(["", "\n", "# end\n", "\n    # e\n", "x = 2\n"])
    if not _parses(text):
        return
    _check(text)
    _check_without_final_newline(text)


class _OnePathChanged(cst.CSTTransformer):
    """Replaces one node, rebuilding only its ancestors (as the fixer's pruned transform does):
    every other statement stays the parsed module's object."""

    def __init__(self, target: cst.CSTNode, replacement: cst.CSTNode, ancestors: set) -> None:
        super().__init__()
        self.target, self.replacement, self.ancestors = target, replacement, ancestors

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.ancestors

    def on_leave(self, original_node, updated_node):
        return self.replacement if original_node is self.target else updated_node


def _statements_with_ancestors(module: cst.Module) -> list:
    """(statement below the top level, ids of the nodes above it) for every one."""
    out, stack = [], [(stmt, frozenset({id(module)})) for stmt in module.body]
    while stack:
        node, above = stack.pop()
        if isinstance(node, cst.BaseStatement) and len(above) > 1:
            out.append((node, above))
        stack.extend((child, above | {id(node)}) for child in children(node))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_passes_that_change_a_statement_below_the_top_write_libcsts_code(rng):
    """Each of three passes replaces one statement below the top level by `pass` (or drops its
    leading lines): the code written, reusing what earlier passes wrote, is LibCST's."""
    text = _nested(rng) + rng.choice(["", "# end\n", "x = 2\n"])
    try:
        ast.parse(text)
        module = cst.parse_module(text)
    except (SyntaxError, cst.ParserSyntaxError):
        return
    found = pieces.module_pieces(module, text.encode(), top_level_spans(ast.parse(text)))
    below = _statements_with_ancestors(module)
    for _ in range(3 if below else 0):
        target, above = rng.choice(below)
        replacement = (
            cst.SimpleStatementLine([cst.Pass()]) if rng.random() < 0.5 else target.with_changes(leading_lines=())
        )
        new = module.visit(_OnePathChanged(target, replacement, set(above)))
        assert pieces.module_bytes(new, found) == new.bytes


def _body_cut_exactly(text: str) -> int:
    """How many statements of `text`'s top-level classes' and functions' bodies, and of their
    methods' and inner functions', `_body_written` cut; asserts each cut is LibCST's code for
    the statement at its block's indentation."""
    module = cst.parse_module(text)
    # The statement's code as the previews have it: the file's text where the module is sliced.
    found = pieces.module_pieces(module, text.encode(), top_level_spans(ast.parse(text)))
    below = {id(stmt): stmt for stmt, _ in _statements_with_ancestors(module)}
    cut = 0
    for stmt in module.body:
        code = found.statements[id(stmt)][1]
        written = pieces._body_written(stmt, code, module.default_indent)
        if found.bodies and id(stmt) in found.bodies:  # the engine's spans cut it as `ast` of the code does
            assert pieces._body_written(stmt, code, module.default_indent, *found.bodies[id(stmt)]) == written
        for key, (indent, code) in written:
            inner = below[key]
            state = CodegenState(module.default_indent, module.default_newline, indent_tokens=list(indent))
            inner._codegen(state)
            assert code == "".join(state.tokens)
            cut += 1
    return cut


def test_a_classs_and_a_functions_body_statements_are_cut_exactly():
    text = (
        "import os\n\n\nclass C(Base):\n"
        '    """Doc."""\n\n    x = 1  # one\n\n    # before m\n    @property\n    # between\n'
        "    def m(self):\n        if a:\n            return 1\n            # deep\n        # in m\n\n"
        "    async def n(self, a,\n                b):\n        await a; await b\n    # C's own\n\n\n"
        "async def f():\n    y = 2\n    for i in x:\n        pass\n    else:\n        pass\n"
    )
    assert _body_cut_exactly(text) == 4 + 1 + 1 + 2  # C's body, m's, n's, f's
    assert _body_cut_exactly(text.replace("    ", "\t")) == 4 + 1 + 1 + 2  # a tab at every level
    # a class body less deep than the module's indent, a method's block as deep as it
    mixed = "def f():\n    x = 1\n\n\nclass C:\n  def m(self):\n      pass\n      # deep\n  y = 2\n"
    assert _body_cut_exactly(mixed) == 1 + 2 + 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_nested_bodies_are_cut_exactly_or_declined(rng):
    """Every cut of a top-level class's or function's body statements is LibCST's code; the
    nested blocks, blank and comment lines of `_nested` around and after them."""
    body = _nested(rng, 1) + rng.choice(["", "\n", "    # e\n", "        # e8\n", "# e0\n"])
    text = rng.choice(["class C:\n", "def f():\n", "@d\nclass C:\n"]) + body + rng.choice(["", "x = 2\n"])
    if not _parses(text):
        return
    _body_cut_exactly(text)


_CLASS = "class C:\n    x = 1\n\n    # before m\n    def m(self):\n        pass\n        # m's own\n    y = 2\n    # C's own\n"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("# before m", "# another"),  # a leading line the tree does not hold
        ("        pass\n", "        pass\n\n"),  # a line after `m` that is no footer of its blocks
        ("        # m's own\n", ""),  # a footer the text lacks
        ("    # C's own\n", "    # C's own\n    # more\n"),  # the body's footer
        ("    # C's own\n", "    # C's other\n"),
    ],
)
def test_code_that_disagrees_with_the_tree_is_not_cut(old, new):
    """Each check of `_body_bounds` declines a text LibCST's tree does not write: the leading
    lines, the footers a statement ends with, the block's own footer."""
    module = cst.parse_module(_CLASS)
    stmt = module.body[0]
    assert len(pieces._body_written(stmt, _CLASS, module.default_indent)) == 3 + 1  # and m's `pass`
    assert pieces._body_written(stmt, _CLASS.replace(old, new, 1), module.default_indent) == []


def test_a_methods_statements_are_checked_as_the_class_body_is():
    """Within a method the same checks hold: a leading line the tree does not hold leaves the
    method's statements to be generated (what is outside them, LibCST's code, is still cut)."""
    text = "class C:\n    def m(self):\n        x = 1\n        # before y\n        y = 2\n"
    module = cst.parse_module(text)
    stmt = module.body[0]
    method = stmt.body.body[0]
    assert [key for key, _ in pieces._body_written(stmt, text, "    ")] == [id(method), *map(id, method.body.body)]
    other = pieces._body_written(stmt, text.replace("# before y", "# other"), "    ")
    assert [key for key, _ in other] == [id(method)]


def test_a_last_statement_whose_footer_the_text_lacks_is_not_cut():
    last = _CLASS.replace("    y = 2\n", "")  # `m` ends the body, with its own footer
    module = cst.parse_module(last)
    stmt = module.body[0]
    assert len(pieces._body_written(stmt, last, module.default_indent)) == 2 + 1
    assert pieces._body_written(stmt, last.replace("        # m's own\n", ""), module.default_indent) == []


@pytest.mark.parametrize(
    "text",
    [
        "class C:\n    x = 1\n\n  # c2\n    y = 2\n",  # a comment shallower than the body
        "class C: x = 1\n",  # a one-line suite
        "def f():\n    (\n  x) = 1\n",  # a continuation line shallower than the body
        "class C:\n    type X = int\n",  # no `ast` tree before Python 3.12: the body is generated
    ],
)
def test_what_cutting_a_body_declines_is_generated(text):
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        pytest.skip("LibCST cannot parse it")
    stmt = module.body[0]
    written = dict(pieces._body_written(stmt, module.code_for_node(stmt), module.default_indent))
    for inner in getattr(stmt.body, "body", ()):
        if id(inner) in written:
            state = CodegenState(
                module.default_indent, module.default_newline, indent_tokens=list(written[id(inner)][0])
            )
            inner._codegen(state)
            assert written[id(inner)][1] == "".join(state.tokens)


@pytest.mark.parametrize(
    "text",
    [
        "import os\n\n    # an indented comment\n",  # LibCST's code loses the blank line
        "x = 1\n  # c2\n  # c2\n",  # and here the second comment
        "x = 1\r\ny = 2\r\n",  # CRLF
        "x = 1\ry = 2\r",  # lone CRs
        "x = 1\n\x0cy = 2\n",  # a form feed
        "\ufeffx = 1\n",  # a BOM
        "@(\n    decorator\n)\ndef f():\n    pass\n",  # the decorator's expression starts below its `@`
    ],
)
def test_what_the_slicing_declines(text):
    data = text.encode()
    module = cst.parse_module(data)
    assert pieces.sliced(module, data, top_level_spans(ast.parse(data))) is None
    whole = pieces.module_pieces(module, data, top_level_spans(ast.parse(data)))
    assert whole.bytes == module.bytes
    assert [whole.statements[id(stmt)][1] for stmt in module.body] == [module.code_for_node(s) for s in module.body]


def test_without_spans_the_pieces_are_generated():
    data = b"x = 1\n"
    module = cst.parse_module(data)
    assert pieces.sliced(module, data, None) is None
    assert pieces.module_pieces(module, data, None).statements[id(module.body[0])][1] == "x = 1\n"


def test_spans_that_disagree_with_the_tree_are_declined():
    data = b"x = 1\n\ny = 2\n"
    module = cst.parse_module(data)
    assert pieces.sliced(module, data, ((1, 1), (2, 2))) is None  # the second starts on a blank line
    assert pieces.sliced(module, data, ((1, 1),)) is None  # a statement too few
    assert pieces.sliced(module, data, ((1, 1), (3, 3))) is not None
