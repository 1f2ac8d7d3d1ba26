"""Exact line and column of the few reported nodes, without a whole-module position pass.

LibCST's PositionProvider generates the code of the whole module and records a range for every
node: on a 3,000-line module that is most of a check's cost, for the one or two nodes a file
reports. Here each reported node is positioned by generating only the statement that holds it:
the innermost statement of a block (module body or indented block) in the node's ancestor chain.
Where that statement starts comes from the standard library's `ast` (C, much cheaper than a
codegen pass), matched to LibCST's statements by their order in each block. The statement's
first generated line is compared with the source line before any position is trusted; whatever
cannot be placed this way (no ancestors, a mismatch, source `ast` cannot parse) falls back to the
exact whole-module PositionProvider, so positions never differ from LibCST's.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from mcp_migrate.core.syntax import ModuleIndex

_NEWLINE = re.compile(r"\r\n?|\n")


class _Recorder:
    """The minimal provider PositionProvidingCodegenState writes ranges into."""

    def __init__(self) -> None:
        self._computed: dict = {}


def node_ranges(
    module: cst.Module, text: str, targets: list, tree: Optional[ast.Module] = None, index: Optional[ModuleIndex] = None
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
            by_statement.setdefault(id(statement), (statement, ancestors, []))[2].append(node)
    for statement, ancestors, nodes in by_statement.values():
        computed = locator.positions_in(statement, ancestors)
        for node in nodes:
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
        self, module: cst.Module, text: str, tree: Optional[ast.Module] = None, index: Optional[ModuleIndex] = None
    ) -> None:
        self.module = module
        self.text = text
        self._tree: Optional[ast.Module] = tree
        self._failed = False
        self._lines: Optional[list] = None
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
    def block_statement(ancestors: list) -> Optional[cst.BaseStatement]:
        """The innermost statement of the chain that sits directly in a block's body list."""
        for i in range(len(ancestors) - 1, 0, -1):
            node, parent = ancestors[i], ancestors[i - 1]
            if isinstance(node, cst.BaseStatement) and isinstance(parent, (cst.Module, cst.IndentedBlock)):
                return node
        return None

    def _ast(self) -> Optional[ast.Module]:
        if self._tree is None and not self._failed:
            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                self._failed = True
        return self._tree

    def _source_lines(self) -> list:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        return self._lines

    def positions_in(self, statement: cst.BaseStatement, ancestors: list) -> Optional[dict]:
        """Ranges of every node inside `statement`, or None when it cannot be placed exactly."""
        tree = self._ast()
        if tree is None:
            return None
        start = _start_line(tree, ancestors, statement)
        lines = self._source_lines()
        if start is None or not 1 <= start <= len(lines):
            return None
        text = lines[start - 1]
        indent = text[: len(text) - len(text.lstrip(" \t\f"))]
        bare = statement.with_changes(leading_lines=())
        recorder = _Recorder()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=recorder,
            indent_tokens=[indent],
            line=start,
        )
        bare._codegen(state)
        generated = "".join(state.tokens)
        first = _NEWLINE.split(generated, 1)[0]
        if first != text:
            return None
        computed = recorder._computed
        if bare in computed:
            computed[statement] = computed[bare]
        return computed


def top_level_spans(tree: ast.Module) -> tuple:
    """(first line, last line) of each top-level statement of `tree`, the first decorator's
    line for a decorated definition (as `_first_line` places it): where the previews cut the
    module's code by statement (core.fix.pieces)."""
    spans = []
    for stmt in tree.body:
        decorators = getattr(stmt, "decorator_list", None)
        spans.append((decorators[0].lineno if decorators else stmt.lineno, stmt.end_lineno))
    return tuple(spans)


def _start_line(tree: ast.Module, ancestors: list, target: cst.BaseStatement) -> Optional[int]:
    """The source line where `target` (without its leading blank and comment lines) starts,
    found by walking LibCST's ancestor chain and the `ast` tree side by side."""
    block = list(tree.body)
    i = 1
    while i < len(ancestors):
        node = ancestors[i]
        container = ancestors[i - 1]
        if not isinstance(node, cst.BaseStatement) or not isinstance(container, (cst.Module, cst.IndentedBlock)):
            i += 1
            continue
        statement = _matching(container.body, node, block)
        if statement is None:
            return None
        if node is target:
            return _first_line(node, statement)
        block = _inner_block(node, statement, ancestors[i + 1 :])
        if block is None:
            return None
        i += 1
    return None


def _matching(body, node: cst.BaseStatement, block: list) -> Optional[ast.stmt]:
    """The ast statement that `node` (an element of LibCST's `body`) starts with."""
    index = 0
    for sibling in body:
        if sibling is node:
            return block[index] if index < len(block) else None
        index += len(sibling.body) if isinstance(sibling, cst.SimpleStatementLine) else 1
    return None


def _first_line(node: cst.BaseStatement, statement: ast.stmt) -> int:
    decorators = getattr(node, "decorators", ())
    if decorators:
        return statement.decorator_list[0].lineno
    return statement.lineno


def _inner_block(node: cst.BaseStatement, statement: ast.stmt, below: list) -> Optional[list]:
    """The ast statement list of the block of `node` that the chain continues into."""
    for child in below:
        if isinstance(child, cst.IndentedBlock):
            if getattr(node, "body", None) is child:
                return list(getattr(statement, "body", ()) or ())
            return None
        if isinstance(child, (cst.Else, cst.Finally)):
            field = "finalbody" if isinstance(child, cst.Finally) else "orelse"
            return _nested(child, getattr(statement, field, None), below)
        if isinstance(child, cst.If) and getattr(node, "orelse", None) is child:
            orelse = getattr(statement, "orelse", None)
            if not orelse or not isinstance(orelse[0], ast.If):
                return None
            return _inner_block(child, orelse[0], below[below.index(child) + 1 :])
        if isinstance(child, cst.ExceptHandler) or type(child).__name__ == "ExceptStarHandler":
            return _clause(node, "handlers", child, statement, below)
        if isinstance(child, cst.MatchCase):
            return _clause(node, "cases", child, statement, below)
    return None


def _clause(node: cst.CSTNode, field: str, child: cst.CSTNode, statement: ast.stmt, below: list) -> Optional[list]:
    """The statements of the `field` clause (an except handler, a match case) that `child` is,
    matched by its index among LibCST's and ast's clauses of the same statement."""
    clauses = list(getattr(node, field, ()))
    ast_clauses = getattr(statement, field, [])
    index = next((i for i, clause in enumerate(clauses) if clause is child), -1)
    if index < 0 or index >= len(ast_clauses):
        return None
    return _nested(child, ast_clauses[index].body, below)


def _nested(owner: cst.CSTNode, statements: Optional[list], below: list) -> Optional[list]:
    """The statements of `owner`'s indented block (an else, finally, except or case clause)."""
    if statements is None:
        return None
    rest = below[below.index(owner) + 1 :]
    if rest and isinstance(rest[0], cst.IndentedBlock) and rest[0] is getattr(owner, "body", None):
        return list(statements)
    return None
