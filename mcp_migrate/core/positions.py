"""Exact line and column of the few reported nodes, without a whole-module position pass.

LibCST's PositionProvider generates the code of the whole module and records a range for every
node: on a 3,000-line module that is most of a check's cost, for the one or two nodes a file
reports. Here each reported node is positioned by generating only the statement that holds it:
the innermost statement of a block (module body or indented block) in the node's ancestor chain.
Where that statement starts comes from the standard library's `ast` (C, much cheaper than a
codegen pass), matched to LibCST's statements by their order in each block. Inside a statement,
the node's smallest enclosing expression whose start `ast` gives (core.anchors: a table entry,
not the function whose decorator holds the table) is generated instead, where it can be. The
generated code is compared with the source before any position is trusted; whatever cannot be
placed this way (no ancestors, a mismatch, source `ast` cannot parse) falls back to the
statement, then to the exact whole-module PositionProvider, so positions never differ from
LibCST's.
"""

from __future__ import annotations

import ast
from typing import Any, NamedTuple, cast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from mcp_migrate.core.anchors import Anchor, anchor
from mcp_migrate.core.ast_nodes import DEFINITIONS, first_line
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.screen import alias_line, parsed, read_aliases_assigned
from mcp_migrate.core.syntax import ModuleIndex

_NEWLINE = lazy_compile(r"\r\n?|\n")


class _Recorder:
    """The minimal provider PositionProvidingCodegenState writes ranges into."""

    def __init__(self) -> None:
        self._computed: dict = {}


def node_ranges(
    module: cst.Module, text: str, targets: list, tree: ast.Module | None = None, index: ModuleIndex | None = None
) -> dict:
    """{id(node): CodeRange} for each (node, ancestors) in `targets`; `ancestors` is the walk's
    chain from the module down to the node being visited when it was reported (may be empty);
    `text` is the module's source (`module.code`, which the caller has without a codegen pass);
    `tree`, when given, `ast`'s tree of the same source (the engine's screen parsed it);
    `index`, the module's ModuleIndex when the caller has one (its parent map is shared)."""
    ranges: dict = {}
    pending = []
    locator = _StatementLocator(module, text, tree, index)
    by_statement: dict = {}
    for node, ancestors in targets:
        statement = locator.block_statement(ancestors)
        if statement is None:  # reported after the walk (a module-wide pass): find its chain
            ancestors = locator.chain_to(node)
            statement = locator.block_statement(ancestors)
        if statement is None:
            pending.append(node)
        else:
            by_statement.setdefault(id(statement), (statement, ancestors, []))[2].append((node, ancestors))
    for statement, ancestors, nodes in by_statement.values():
        left = locator.place_by_anchors(statement, ancestors, nodes, ranges)
        if not left:
            continue
        computed = locator.positions_in(statement, ancestors)
        for node, _ in left:
            found = computed.get(node) if computed is not None else None
            if found is None:
                pending.append(node)
            else:
                ranges[id(node)] = found
    if pending:
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for node in pending:
            ranges[id(node)] = positions[node]
    return ranges


class _StatementLocator:
    """Finds where block statements start, through `ast`, parsed once and only when needed."""

    def __init__(
        self, module: cst.Module, text: str, tree: ast.Module | None = None, index: ModuleIndex | None = None
    ) -> None:
        self.module = module
        self.text = text
        self._tree: ast.Module | None = tree
        self._failed = False
        #: False where the tree was read with the module's `type` aliases as assignments (`_ast`).
        self._exact = True
        self._lines: list | None = None
        self._starts: list | None = None
        self._memo: dict = {}  # core.anchors' index of each container's children
        self._twins: dict = {}  # id(statement) -> (statement, _twin's answer)
        self._index = index if index is not None and index.module is module else ModuleIndex(module)

    def chain_to(self, node: cst.CSTNode) -> list:
        """The chain from the module down to `node` (empty when the walk's children do not
        reach it), from the module's parent map: a node reported after the walk has none."""
        parents = self._index.parents
        chain = [node]
        while id(chain[-1]) in parents:
            chain.append(parents[id(chain[-1])])
        chain.reverse()
        return chain if chain[0] is self.module else []

    @staticmethod
    def block_statement(ancestors: list) -> cst.BaseStatement | None:
        """The innermost statement of the chain that sits directly in a block's body list."""
        for i in range(len(ancestors) - 1, 0, -1):
            node, parent = ancestors[i], ancestors[i - 1]
            if isinstance(node, cst.BaseStatement) and isinstance(parent, (cst.Module, cst.IndentedBlock)):
                return node
        return None

    def _ast(self) -> ast.Module | None:
        """`ast`'s tree of the module. Before Python 3.12 one with `type` alias statements is
        read with each as an assignment (core.screen.read_aliases_assigned): its statements'
        lines are the file's, and so is every column but those on an alias's line, which
        `_positions_at` does not take. (Without it every node such a module reports was placed
        by the whole-module PositionProvider: issue 37, 4 % of fast-agent's check.)"""
        if self._tree is None and not self._failed:
            self._tree, self._exact = _statements_tree(self.text)
            self._failed = self._tree is None
        return self._tree

    def _source_lines(self) -> list:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        return self._lines

    def _twin(self, statement: cst.BaseStatement, ancestors: list) -> tuple | None:
        """(ast statement list of `statement`'s block, index of its first ast statement, the
        source line where it starts), or None; found once per statement (its anchors and, for
        the nodes they leave, the statement itself are placed from it)."""
        known = self._twins.get(id(statement))
        if known is not None and known[0] is statement:
            return known[1]
        tree = self._ast()
        found = _ast_twin(tree, ancestors, statement) if tree is not None else None
        if found is not None:
            first = first_line(found[0][found[1]])
            found = (*found, first) if 1 <= first <= len(self._source_lines()) else None
        self._twins[id(statement)] = (statement, found)
        return found

    def place_by_anchors(self, statement: cst.BaseStatement, ancestors: list, nodes: list, ranges: dict) -> list:
        """Ranges of the (node, chain) pairs in `nodes` that an anchor inside `statement`
        places (core.anchors), written into `ranges`; the pairs left for the statement."""
        twin = self._twin(statement, ancestors)
        if twin is None:
            return nodes
        block, index, first = twin
        indent = _indent_of(self._source_lines()[first - 1])
        left: list = []
        by_anchor: dict = {}
        for node, chain in nodes:
            below = _chain_below(statement, chain, node)
            found = anchor(block, index, below, self._memo) if below is not None else None
            if found is None:
                left.append((node, chain))
            else:
                by_anchor.setdefault(id(found.node), (found, []))[1].append((node, chain))
        for found, placed in by_anchor.values():
            computed = self._positions_at(found, indent)
            for node, chain in placed:
                known = computed.get(node) if computed is not None else None
                if known is None:
                    left.append((node, chain))
                else:
                    ranges[id(node)] = known
        return left

    def _positions_at(self, found: Anchor, indent: str) -> dict | None:
        """Ranges of every node inside the anchor's expression, generated where `ast` says it
        starts; None unless the generated code is the file's text there."""
        lines = self._source_lines()
        if not 1 <= found.line <= len(lines):
            return None
        line = lines[found.line - 1]
        if not self._exact and alias_line(line):
            return None  # the column is the assignment's (`_ast`): the statement places it
        column = found.byte_column
        if not line.isascii():
            try:
                column = len(line.encode("utf-8")[: found.byte_column].decode("utf-8"))
            except UnicodeDecodeError:
                return None
        generated, computed = self._generate(found.node, indent, found.line, column)
        start = self._line_starts()[found.line - 1] + column
        if self.text[start : start + len(generated)] != generated:
            return None
        return computed

    def _generate(self, node: cst.CSTNode, indent: str, line: int, column: int = 0) -> tuple:
        """(the code of `node` generated from `line` and `column` inside a block indented by
        `indent`, the ranges recorded for every node in it)."""
        recorder = _Recorder()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=cast(Any, recorder),  # duck-typed: the state only writes `_computed`
            indent_tokens=[indent],
            line=line,
            column=column,
        )
        node._codegen(state)
        return "".join(state.tokens), recorder._computed

    def _line_starts(self) -> list:
        if self._starts is None:
            self._starts = [0, *(match.end() for match in _NEWLINE.finditer(self.text))]
        return self._starts

    def positions_in(self, statement: cst.BaseStatement, ancestors: list) -> dict | None:
        """Ranges of every node inside `statement`, or None when it cannot be placed exactly."""
        twin = self._twin(statement, ancestors)
        if twin is None:
            return None
        start = twin[2]
        text = self._source_lines()[start - 1]
        indent = _indent_of(text)
        bare = statement.with_changes(leading_lines=())
        generated, computed = self._generate(bare, indent, start)
        first = _NEWLINE.split(generated, 1)[0]
        if first != text:
            return None
        if bare in computed:
            computed[statement] = computed[bare]
        return computed


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _chain_below(statement: cst.BaseStatement, chain: list, node: cst.CSTNode) -> list | None:
    """The chain from `statement` down to `node`, or None when `node` is not on it (a rule
    may report a node beside the one it visits)."""
    start = next((i for i in range(len(chain) - 1, -1, -1) if chain[i] is statement), None)
    if start is None:
        return None
    for end in range(len(chain) - 1, start, -1):
        if chain[end] is node:
            return list(chain[start : end + 1])
    return None


def source_spans(source: bytes) -> tuple | None:
    """`top_level_spans` of `source`, read with `ast` for an analysis that kept no tree: a file
    checked again under the run's plan keeps its screens' answers but not their tree
    (engine._take_tree), and its previews generated the module's whole code instead of cutting
    it from the file (issue 37: 76-87 ms for one 88 KB module, whose `ast` parse is 28-36 ms).
    Read as the positions locator reads it (`_statements_tree`); None where `ast` cannot."""
    tree, _ = _statements_tree(source)
    return None if tree is None else top_level_spans(tree)


def _statements_tree(source: bytes | str) -> tuple:
    """(`ast`'s tree of `source` with the file's lines, or None; whether its columns are the
    file's too): read as it is, else with each `type` alias as an assignment before Python 3.12
    (core.screen.read_aliases_assigned: columns on an alias's line are not the file's)."""
    tree = parsed(source)
    return (tree, True) if tree is not None else (read_aliases_assigned(source), False)


class Span(NamedTuple):
    """Where a statement's code lies in the file (`top_level_spans`): its first line (the first
    decorator's, for a decorated definition) and its last; for a class or a function, the
    spans of its body's statements alike, a method's too (where core.fix.pieces cuts a class's
    other methods, and the changed method's other statements, from the file for a pass that
    changes one of them), else None."""

    first: int
    last: int
    body: tuple | None = None


def top_level_spans(tree: ast.Module) -> tuple:
    """The Span of each top-level statement of `tree` (as `first_line` places a statement):
    where the previews cut the module's code by statement (core.fix.pieces)."""
    return _spans_of(tree.body)


def _spans_of(statements: list) -> tuple:
    spans = []
    for stmt in statements:
        body = _spans_of(stmt.body) if stmt.__class__ in DEFINITIONS else None
        spans.append(Span(first_line(stmt), stmt.end_lineno, body))
    return tuple(spans)


def _ast_twin(tree: ast.Module, ancestors: list, target: cst.BaseStatement) -> tuple | None:
    """(ast statement list of `target`'s block, index of the ast statement `target` starts
    with): a simple statement line holds as many ast statements as small statements."""
    block = list(tree.body)
    i = 1
    while i < len(ancestors):
        node = ancestors[i]
        container = ancestors[i - 1]
        if not isinstance(node, cst.BaseStatement) or not isinstance(container, (cst.Module, cst.IndentedBlock)):
            i += 1
            continue
        index = _matching(container.body, node, block)
        if index is None:
            return None
        if node is target:
            return block, index
        inner = _inner_block(node, block[index], ancestors[i + 1 :])
        if inner is None:
            return None
        block = inner
        i += 1
    return None


def _matching(body, node: cst.BaseStatement, block: list) -> int | None:
    """The index of the ast statement that `node` (an element of LibCST's `body`) starts with."""
    index = 0
    for sibling in body:
        if sibling is node:
            return index if index < len(block) else None
        index += len(sibling.body) if isinstance(sibling, cst.SimpleStatementLine) else 1
    return None


def _inner_block(node: cst.BaseStatement, statement: ast.stmt, below: list) -> list | None:
    """The ast statement list of the block of `node` that the chain continues into."""
    for child in below:
        if isinstance(child, cst.IndentedBlock):
            if getattr(node, "body", None) is child:
                return list(getattr(statement, "body", ()) or ())
            return None
        if isinstance(child, (cst.Else, cst.Finally)):
            field = "finalbody" if isinstance(child, cst.Finally) else "orelse"
            return _nested(child, getattr(statement, field, None), below)
        if isinstance(child, cst.If) and isinstance(node, cst.If) and node.orelse is child:  # an elif
            orelse = getattr(statement, "orelse", None)
            if not orelse or not isinstance(orelse[0], ast.If):
                return None
            return _inner_block(child, orelse[0], below[below.index(child) + 1 :])
        if isinstance(child, cst.ExceptHandler) or type(child).__name__ == "ExceptStarHandler":
            return _clause(node, "handlers", child, statement, below)
        if isinstance(child, cst.MatchCase):
            return _clause(node, "cases", child, statement, below)
    return None


def _clause(node: cst.CSTNode, field: str, child: cst.CSTNode, statement: ast.stmt, below: list) -> list | None:
    """The statements of the `field` clause (an except handler, a match case) that `child` is,
    matched by its index among LibCST's and ast's clauses of the same statement."""
    clauses = list(getattr(node, field, ()))
    ast_clauses = getattr(statement, field, [])
    index = next((i for i, clause in enumerate(clauses) if clause is child), -1)
    if index < 0 or index >= len(ast_clauses):
        return None
    return _nested(child, ast_clauses[index].body, below)


def _nested(owner: cst.CSTNode, statements: list | None, below: list) -> list | None:
    """The statements of `owner`'s indented block (an else, finally, except or case clause)."""
    if statements is None:
        return None
    rest = below[below.index(owner) + 1 :]
    if rest and isinstance(rest[0], cst.IndentedBlock) and rest[0] is getattr(owner, "body", None):
        return list(statements)
    return None
