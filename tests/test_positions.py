"""Positions of reported nodes come from generating one statement, not the whole module; they
must equal LibCST's PositionProvider exactly, and the whole-module pass must stay a fallback."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from mcp_migrate.core import positions
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.core.walk import walk

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/*/*.py")) + sorted((ROOT / "mcp_migrate").rglob("*.py"))[:40]
KINDS = (cst.Call, cst.Name, cst.SimpleString, cst.FunctionDef, cst.Arg, cst.DictElement, cst.Comparison)


def _targets(module: cst.Module) -> list:
    """(node, ancestor chain) for every node of the kinds rules report, as the engine sees them."""
    chain: list = []
    out: list = []

    def visit(node):
        chain.append(node)
        if isinstance(node, KINDS):
            out.append((node, tuple(chain)))

    walk(module, visit, lambda node: chain.pop())
    return out


def _whole_module_fallbacks(monkeypatch) -> list:
    calls: list = []
    real = positions.MetadataWrapper

    def counting(module, **kwargs):
        calls.append(1)
        return real(module, **kwargs)

    monkeypatch.setattr(positions, "MetadataWrapper", counting)
    return calls


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_ranges_equal_position_provider_without_a_whole_module_pass(path, monkeypatch):
    """However the engine hands the nodes over: with the walk's chains; with the screen's
    `ast` tree of the bytes (core.screen.read) instead of a parse of the text; with no chain
    (a node reported after the walk: its chain is found from the module)."""
    data = path.read_bytes()
    module = cst.parse_module(data)
    if b"\x0c" in data and module.bytes != data:
        pytest.skip("PositionProvider counts columns in LibCST's own code, which drops form feeds here")
    walked = _targets(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    placed = _placed_by_anchors(monkeypatch)
    fallbacks = _whole_module_fallbacks(monkeypatch)
    text = data.decode(module.encoding)
    handovers = {
        "walk": positions.node_ranges(module, text, walked),
        "screen-tree": positions.node_ranges(module, text, walked, read_syntax(data).tree),
        "no-chain": positions.node_ranges(module, text, [(node, ()) for node, _ in walked]),
    }
    assert not fallbacks, "every node of a parsable file is placed by its statement"
    mismatched = [
        (handover, type(node).__name__, expected[node], ranges[id(node)])
        for handover, ranges in handovers.items()
        for node, _ in walked
        if ranges[id(node)] != expected[node]
    ]
    assert not mismatched, mismatched[:5]
    # a call that is a line's expression or assigned value is placed by its own code
    if any(
        isinstance(small, (cst.Expr, cst.Assign)) and isinstance(small.value, cst.Call) for small in _smalls(module)
    ):
        assert placed


def _smalls(module: cst.Module) -> list:
    """The small statements of the module's top-level lines."""
    return [small for stmt in module.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body]


SHAPES = [
    "\ufeffx = f(1)\r\ny = g(2)\r\n",
    "if a:\n    pass\nelif b:\n    x = f()\nelse:\n    y = g()\n",
    "try:\n    a()\nexcept E as e:\n    b()\nelse:\n    c()\nfinally:\n    d()\n",
    "for x in y:\n    f(x)\nelse:\n    g()\nwhile t:\n    h()\n",
    "class C:\n    # comment\n\n    @dec(1)\n    # between\n    @other\n    async def m(self):\n        await f()\n",
    "match v:\n    case 1:\n        f()\n    case _:\n        g()\n",
    "a = 1; b = f(2); c = g(3)\nif x: f(); g()\n",
    "with open(p) as fh, lock:\n\tdata = fh.read()\n\tif data:\n\t\tf(data)\n",
    "x = (\n    f(1,\n      2)\n)\ns = '''multi\nline''' + g()\n",
    "def f():\n    return \\\n        g()\n",
]


@pytest.mark.parametrize("source", SHAPES)
def test_statement_shapes_match_position_provider(source):
    data = source.encode("utf-8-sig" if source.startswith("\ufeff") else "utf-8")
    module = cst.parse_module(data)
    targets = _targets(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ranges = positions.node_ranges(module, data.decode(module.encoding), targets)
    assert [ranges[id(n)] for n, _ in targets] == [expected[n] for n, _ in targets]


def test_a_node_reported_without_ancestors_is_placed_through_its_found_chain(monkeypatch):
    """A node a module-wide pass reports after the walk has no chain: it is found from the
    module (a parent map), and no whole-module position pass runs."""
    module = cst.parse_module(b"import os\n\n\ndef g():\n    x = f(1)\n")
    call = module.body[1].body.body[0].body[0].value
    fallbacks = _whole_module_fallbacks(monkeypatch)
    ranges = positions.node_ranges(module, module.code, [(call, ()), (call, [module])])
    assert not fallbacks and (ranges[id(call)].start.line, ranges[id(call)].start.column) == (5, 8)


def test_a_node_the_walk_does_not_reach_falls_back_to_the_exact_pass(monkeypatch):
    module = cst.parse_module(b"# note\nx = 1\n")
    comment = module.header[0].comment
    fallbacks = _whole_module_fallbacks(monkeypatch)
    ranges = positions.node_ranges(module, module.code, [(comment, ())])
    assert fallbacks and (ranges[id(comment)].start.line, ranges[id(comment)].start.column) == (1, 0)


def test_the_walks_node_types_are_every_concrete_syntax_node_of_libcst():
    """core.walk finds its node types by each class's MRO (cheap at start-up); that is exactly
    the concrete CSTNode subclasses LibCST exports, less the layout nodes."""
    import inspect

    from mcp_migrate.core import walk

    expected = {
        value
        for value in vars(cst).values()
        if inspect.isclass(value)
        and issubclass(value, cst.CSTNode)
        and not inspect.isabstract(value)
        and not issubclass(value, walk._LAYOUT)
    }
    assert len(expected) > 100
    assert walk.NODE_TYPES == expected


def test_the_engine_positions_with_the_screens_tree_and_keeps_none_after(monkeypatch):
    """A file's findings are placed through the `ast` tree its syntax screen made (no second
    parse), and the view's last-file answer of the screens holds no tree once the check is done."""
    from mcp_migrate import api
    from mcp_migrate.core.project_view import ProjectView

    data = (ROOT / "fixtures" / "example" / "server.py").read_bytes()
    expected = api.check_bytes(data, "server.py", api.default_settings()).findings
    view = ProjectView()

    real = positions._StatementLocator._ast

    def handed_a_tree(locator):
        assert locator._tree is not None, "positions would parse the file again"
        return real(locator)

    monkeypatch.setattr(positions._StatementLocator, "_ast", handed_a_tree)
    fallbacks = _whole_module_fallbacks(monkeypatch)
    assert api.check_bytes(data, "server.py", api.default_settings(view=view)).findings == expected
    assert not fallbacks and view.table("last screened")[None][3].tree is None


ANCHOR_SHAPES = [
    '@pytest.mark.parametrize(\n    "m",\n    [\n        {"method": "roots/list", "id": 1},\n        {"method": "x", **extra},\n    ],\n)\ndef test(m):\n    pass\n',
    'class C:\n    def m(self):\n        table = [\n            f(a, *rest, key="é", **kw),\n            (g(1)),\n            {"k": [h(2), {"n": "ü" + i(3)}]},\n        ]\n',
    'x = {"é": "ü", "k": await_it}\nreturn_value = [1, (2, 3), {4, f(5)}]\n',
    "async def f():\n    await session.send(\n        types.Request(method='roots/list'),\n    )\n    return await g(h(1))\n",
    "value = obj.attr.method(1)(2)[3]\ny: list = [a.b(c) for c in d]\nz += [f(1)]\n",
    'data = (\n    {"a": 1},\n)\nother = f(\n    *args,\n    b=[\n        1,\n    ],\n)\n',
]


def _placed_by_anchors(monkeypatch) -> list:
    """The anchors that placed nodes."""
    placed: list = []
    real = positions._StatementLocator._positions_at

    def recording(self, found, indent):
        computed = real(self, found, indent)
        if computed is not None:
            placed.append(type(found.node).__name__)
        return computed

    monkeypatch.setattr(positions._StatementLocator, "_positions_at", recording)
    return placed


@pytest.mark.parametrize("source", ANCHOR_SHAPES + SHAPES)
def test_anchored_positions_match_position_provider(source, monkeypatch):
    data = source.encode("utf-8-sig" if source.startswith("\ufeff") else "utf-8")
    module = cst.parse_module(data)
    targets = _targets(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    placed = _placed_by_anchors(monkeypatch)
    fallbacks = _whole_module_fallbacks(monkeypatch)
    ranges = positions.node_ranges(module, data.decode(module.encoding), targets)
    assert [ranges[id(n)] for n, _ in targets] == [expected[n] for n, _ in targets]
    if source in ANCHOR_SHAPES:
        assert placed and not fallbacks


#: A module with PEP 695 `type` aliases, which Python's parser reads from 3.12 only; the nodes
#: of the alias lines, `AA = AA` once read as an assignment, are where a column taken from that
#: reading would be wrong (`AA`, the value, read at the name's column).
TYPE_ALIASES = (
    "from typing import Callable\n"
    "type AA = AA\n"
    "type Handler[T] = Callable[[T], None]\n"
    "\n"
    "def make(flag):\n"
    "    type Local = int\n"
    "    x = call(flag, 'a')\n"
    "    return {'k': call(x)}\n"
)


def test_a_module_with_type_aliases_is_placed_by_its_statements(monkeypatch):
    """Before Python 3.12 the module is read with its aliases as assignments
    (core.screen.read_aliases_assigned): every node is placed as PositionProvider places it,
    those on an alias's line by their statement, not by the reading's columns, and none by a
    whole-module pass (on fast-agent's modules every node was)."""
    module = cst.parse_module(TYPE_ALIASES)
    targets = _targets(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    placed = _placed_by_anchors(monkeypatch)
    fallbacks = _whole_module_fallbacks(monkeypatch)
    ranges = positions.node_ranges(module, TYPE_ALIASES, targets)
    assert [ranges[id(n)] for n, _ in targets] == [expected[n] for n, _ in targets]
    assert not fallbacks
    assert placed, "the lines without an alias are placed by their anchors"
    value = module.body[1].body[0].value  # `AA`, the value of `type AA = AA`
    assert (ranges[id(value)].start.line, ranges[id(value)].start.column) == (2, 10)
