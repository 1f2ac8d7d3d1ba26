"""LibCST's code for a parsed module, by top-level statement: what the previews of one file
reuse across their passes, where each pass regenerates only the statements it changed.

LibCST writes a module as its header lines, each statement (its leading blank and comment
lines first, the footers of the blocks it ends with last), then its footer lines. Where that
code is the file's text, each statement's code is a slice of the file, from its leading lines
to the next statement's. Where a statement starts comes from `ast` (the engine's screen
parsed the file: `Analysis.spans`); the lines between two statements' code are checked
against LibCST's tree (the leading lines, the block footers, the header and the footer as
LibCST writes them). LibCST's code is not always the text: it loses a form feed, a lone CR,
and some comment and blank lines at the end of a module; each of these shows in those checks
or is declined outright. Where anything does not hold, every statement's code is generated,
as before. Below a changed top-level class or function, its body's statements (and a replaced
method's) are cut from its code the same way, with `ast`'s spans of them (core.positions.Span)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import NamedTuple, cast

import libcst as cst
from libcst._nodes.internal import CodegenState

from mcp_migrate.core.positions import top_level_spans
from mcp_migrate.core.walk import NO_STATEMENT_BELOW, StatementsReplaced, children


class Pieces(NamedTuple):
    """LibCST's code for the module the analysis parsed, whole (`bytes`) and by top-level
    statement (id -> (statement, code)). The previews of one file make many passes over it;
    each compares that code with the file's bytes, and each pass's new module shares most of
    its statements with it: only the statements a pass changed need their code generated."""

    bytes: bytes
    module: cst.Module
    statements: dict
    #: id(statement below the top level) -> its `_Written` (its code at each indentation),
    #: filled when a pass first changes a compound statement (`_changed_code`): a pass that
    #: changes one method of a class writes the other methods' code from here.
    inner: dict
    #: ids of the parsed module's top-level statements whose statements below are in `inner`.
    below: set
    #: id(top-level class or function) -> (the spans of its body's statements,
    #: core.positions.Span.body; the file's 0-based line its code begins at), where the module
    #: was sliced (`_bodies`).
    bodies: dict | None = None
    #: id(statement of an expanded class's or function's body) -> what `_body_written` cuts its
    #: own body's statements with, once a pass replaces it (`_cut_replaced`).
    later: dict | None = None


def module_pieces(module: cst.Module, data: bytes, spans: tuple | None) -> Pieces:
    """The parsed module's code by statement, and whole: sliced from `data` where the
    boundaries hold (`sliced`), else generated statement by statement and joined (as every
    preview's new module is), not generated a second time."""
    found = sliced(module, data, spans)
    if found is not None:
        return found
    statements = {id(stmt): (stmt, module.code_for_node(stmt)) for stmt in module.body}
    return Pieces(
        module_bytes(module, Pieces(b"", module, statements, {}, set())), module, statements, {}, set(), None, {}
    )


def module_bytes(new: cst.Module, pieces: Pieces) -> bytes:
    """`new.bytes`, with the code of each statement it shares with the parsed module reused
    (Module._codegen_impl: header, statements and footer in turn, each from a fresh state at
    the top level; the trailing newline as it adds it)."""
    old = pieces.module
    if (new.default_indent, new.default_newline, new.encoding) != (
        old.default_indent,
        old.default_newline,
        old.encoding,
    ):
        return new.bytes
    parts = [new.code_for_node(line) for line in new.header]
    present: set | None = None  # ids of the new module's top-level statements, once asked
    for stmt in new.body:
        known = pieces.statements.get(id(stmt))
        if known is not None and known[0] is stmt:
            parts.append(known[1])
            continue
        if present is None and not isinstance(stmt, cst.SimpleStatementLine):
            present = {id(other) for other in new.body}
        parts.append(_changed_code(new, stmt, pieces, present))
    parts.extend(new.code_for_node(line) for line in new.footer)
    code = "".join(parts)
    if new.has_trailing_newline:
        return (code or new.default_newline).encode(new.encoding)
    # A file without a newline at its end: LibCST drops the last token of the module's code,
    # always a newline token. Where it cannot be told from the joined code (a CR), generate.
    if "\r" in code or (code and not code.endswith("\n")):
        return new.bytes
    return code[:-1].encode(new.encoding)


def _changed_code(new: cst.Module, stmt: cst.BaseStatement, pieces: Pieces, present: set | None) -> str:
    """The code of a top-level statement a pass changed, with each statement below it that the
    parsed module holds written once per file and indentation (`_Written`): a class a fix
    changes in one method has its other methods' code cut from the file (`_body_written`), and
    the changed method's other statements once a pass replaces it (`_cut_replaced`); where a
    cut declines, the first pass that writes a statement generates its code for the rest
    (issue 37: most of langroid's previews, an 860-line client class). The statements below are
    those of the parsed module's top-level statements the pass replaced (not `present` in the
    new module: the changed one comes from one of them), each looked for once per file."""
    if isinstance(stmt, cst.SimpleStatementLine) or present is None:
        return new.code_for_node(stmt)
    for old in pieces.module.body:
        if id(old) in present or isinstance(old, cst.SimpleStatementLine):
            continue
        if id(old) not in pieces.below:
            pieces.below.add(id(old))
            below = _statements_below(old)
            spans, offset = pieces.bodies.get(id(old), (None, 0)) if pieces.bodies else (None, 0)
            code = pieces.statements[id(old)][1]
            for key, written in _body_written(old, code, new.default_indent, spans, offset, later=pieces.later):
                below[key].known.append(written)
            pieces.inner.update(below)
        _cut_replaced(old, stmt, pieces)
    if not pieces.inner:
        return new.code_for_node(stmt)
    return new.code_for_node(cast(cst.CSTNode, stmt.visit(StatementsReplaced(pieces.inner))))


def _cut_replaced(old: cst.BaseStatement, new: cst.BaseStatement, pieces: Pieces) -> None:
    """The code of the statements of each method (or inner function) of `old`'s body that the
    pass's `new` statement no longer holds, cut from the file on the first pass that replaces
    it: the changed method's other statements are written from them (issue 37: xiaozhi's
    previews). Only those: every other method is written whole from its own cut."""
    block = _one_block(old)
    if pieces.later is None or block is None:
        return
    now = _one_block(new)
    kept = {id(member) for member in now.body} if now is not None else set()
    for member in block.body:
        cut = pieces.later.pop(id(member), None) if id(member) not in kept else None
        for key, written in _body_written(*cut) if cut is not None else ():
            pieces.inner[key].known.append(written)


def _body_written(
    statement: cst.BaseStatement,
    code: str,
    default_indent: str,
    spans: tuple | None = None,
    offset: int = 0,
    indents: tuple = (),
    later: dict | None = None,
) -> list:
    """(id, (indentation, code)) for each statement of a class's or function's body, and of the
    bodies of the classes and functions among them (a method's statements), its code cut from
    the statement's own (`code`, LibCST's) where `ast` places every boundary and the lines
    between agree with LibCST's tree, as `sliced` cuts the module's (issue 37: the first pass
    that changed one method of langroid's 860-line client class wrote all of it with LibCST's
    codegen, about half of its previews). `spans`: the body's statements'
    (core.positions.Span), their lines counted from `offset` lines before the code's first,
    where the engine's `ast` tree gave them (`Pieces.bodies`); else `code` is read with `ast`.
    `indents`: the indentation of the blocks the statement is in. `later`, where given, keeps
    what cuts each method's body instead (`Pieces.later`). Empty where anything disagrees: the
    statements' code is then generated on first use, as before."""
    block = _one_block(statement)
    if block is None or not block.body:
        return []
    if spans is None:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        spans, offset = (top_level_spans(tree)[0].body if len(tree.body) == 1 else None), 0
        if spans is None:  # (not a class or a function)
            return []
    inner = (*indents, default_indent if block.indent is None else block.indent)
    lines = code.split("\n")[:-1]  # the code ends with a newline: no line after it
    here = tuple((span[0] - offset, span[1] - offset) for span in spans)
    bounds = _bounds(block.body, block.footer, here, lines, default_indent, "".join(inner), None)
    if bounds is None:
        return []
    starts = _line_starts(lines)
    found, taken = [], 0
    for stmt, begin, end in zip(block.body, bounds, bounds[1:]):
        piece = code[starts[begin] : starts[end]]
        found.append((id(stmt), (inner, piece)))
        body = spans[taken][2] if len(spans[taken]) > 2 else None
        taken += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        if body and later is not None:
            later[id(stmt)] = (stmt, piece, default_indent, body, offset + begin, inner)
        elif body:  # a method's statements, cut from the method's own code
            found += _body_written(stmt, piece, default_indent, body, offset + begin, inner)
    return found


def _one_block(statement: cst.BaseStatement) -> cst.IndentedBlock | None:
    """The block of a class or a function, whose statements `_body_written` cuts (those whose
    spans a core.positions.Span holds); None for another statement or a one-line body."""
    if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and isinstance(statement.body, cst.IndentedBlock):
        return statement.body
    return None


def _statements_below(statement: cst.BaseStatement) -> dict:
    """id -> `_Written` for every statement of a block below a top-level statement. An `elif`'s
    `if` is not one: the `if` it belongs to writes its keyword; a simple line holds none."""
    found: dict = {}
    stack = children(statement)
    while stack:
        node = stack.pop()
        if type(node) is cst.IndentedBlock:
            found.update((id(stmt), _Written([stmt])) for stmt in node.body)
        if type(node) is not cst.SimpleStatementLine:
            stack.extend(child for child in children(node) if type(child) not in NO_STATEMENT_BELOW)
    return found


@dataclass(frozen=True)
class _Written(cst.BaseStatement):
    """A statement of the parsed module, its code written once per indentation it is written
    at and kept in `known` ([statement, (indentation, code), ...]). Lives only in the trees
    `_changed_code` writes, in place of the statement (core.walk.StatementsReplaced)."""

    known: list

    def _visit_and_replace_children(self, visitor: cst.CSTVisitorT) -> _Written:
        return self

    def _codegen_impl(self, state: CodegenState, **kwargs) -> None:
        if kwargs:  # a block writes its statements without any; written as LibCST writes it
            self.known[0]._codegen(state, **kwargs)
            return
        indent = tuple(state.indent_tokens)
        for written_at, code in self.known[1:]:
            if written_at == indent:
                state.tokens.append(code)
                return
        start = len(state.tokens)
        self.known[0]._codegen(state)
        code = "".join(state.tokens[start:])
        state.tokens[start:] = [code]
        self.known.append((indent, code))


def sliced(module: cst.Module, data: bytes, spans: tuple | None) -> Pieces | None:
    """Pieces cut from the file's text, or None where a boundary is not certain. `spans`: the
    (first line, last line) of each of `ast`'s top-level statements (the first decorator's
    line for a decorated definition)."""
    if (
        spans is None
        or not module.body
        or b"\r" in data
        or b"\f" in data
        or data.startswith(b"\xef\xbb\xbf")
        or data.endswith(b"\n") != module.has_trailing_newline
        or module.default_newline != "\n"
    ):
        return None
    try:
        text = data.decode(module.encoding)
    except (LookupError, UnicodeDecodeError):
        return None
    if not module.has_trailing_newline:
        # LibCST writes such a module's code with its last newline dropped (`module_bytes`):
        # each statement's code is cut from the text with that newline put back.
        text += "\n"
    lines = text.split("\n")[:-1]  # the text ends with a newline: no line after it
    starts = _line_starts(lines)
    bounds = _boundaries(module, spans, lines)
    if bounds is None:
        return None
    statements = {}
    for stmt, begin, end in zip(module.body, bounds, bounds[1:]):
        statements[id(stmt)] = (stmt, text[starts[begin] : starts[end]])
    return Pieces(data, module, statements, {}, set(), _bodies(module, spans, bounds), {})


def _bodies(module: cst.Module, spans: tuple, bounds: list) -> dict:
    """id(top-level class or function) -> (its body's spans, core.positions.Span.body, the
    file's 0-based line its code begins at): what `_body_written` reads the code `sliced` cut
    with."""
    found: dict = {}
    taken = 0
    for stmt, begin in zip(module.body, bounds):
        span = spans[taken]
        taken += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        body = span[2] if len(span) > 2 else None  # (a partial source's spans hold no bodies)
        if body:
            found[id(stmt)] = (body, begin)
    return found


def _line_starts(lines: list) -> list:
    """Offset of each line's first character, and one past the end (0-based lines)."""
    starts, offset = [0], 0
    for line in lines:
        offset += len(line) + 1
        starts.append(offset)
    return starts


def _boundaries(module: cst.Module, spans: tuple, lines: list) -> list | None:
    """The 0-based line where each top-level statement's code begins, then where the footer
    begins; None where the text does not agree with LibCST's tree."""
    header = len(module.header)
    if not _written_as(module.header, lines[:header]):
        return None
    return _bounds(module.body, module.footer, spans, lines, module.default_indent, "", header)


def _bounds(
    body, footer, spans: tuple, lines: list, default_indent: str, indent: str, start: int | None
) -> list | None:
    """The 0-based line where the code of each statement of `body` begins (statements `indent`
    deep, placed by `ast`'s `spans`), then where `footer` begins (its empty lines, the last of
    `lines`); None where the text does not agree with LibCST's tree. `start`: the line the
    first statement's code begins at (after a module's header); None for a block, whose
    compound statement's header is above its first statement."""
    end = len(lines) - len(footer)
    if end < (start or 0) or not _written_as(footer, lines[end:], indent):
        return None
    bounds, taken, previous_end = [], 0, start or 0  # previous_end: 0-based line after the last code line
    previous: cst.BaseStatement | None = None
    for stmt in body:
        count = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        if taken + count > len(spans):
            return None
        first, last = spans[taken][0] - 1, spans[taken + count - 1][1]  # 0-based first, end
        taken += count
        leading = list(stmt.leading_lines)
        decorators = getattr(stmt, "decorators", ())
        if decorators:
            leading += decorators[0].leading_lines
        begin = first - len(leading)
        if (
            first >= len(lines)
            or begin < max(previous_end, 1 if start is None else 0)  # (a block's header is above it)
            or last <= first
            or not lines[first].startswith(indent)
            or not _code_line(lines[first][len(indent) :])
            or not _written_as(leading, lines[begin:first], indent)
            or not (
                (previous is None and start is None)
                or _ends_as(previous, lines[previous_end:begin], default_indent, indent)
            )
        ):
            return None
        bounds.append(begin)
        previous, previous_end = stmt, last
    if (
        taken != len(spans)
        or previous_end > end
        or not _ends_as(previous, lines[previous_end:end], default_indent, indent)
    ):
        return None
    bounds.append(end)
    return bounds


def _ends_as(stmt: cst.BaseStatement | None, lines: list, default_indent: str, base: str = "") -> bool:
    """Whether the lines after a statement's last code line (up to the next statement's
    leading lines) are the footers of the blocks it ends with, as LibCST writes them: nothing
    of the text between two statements is missing from the tree (LibCST drops a blank line
    before an indented comment at the end of a module, for one). `base`: the indentation the
    statement itself is written at."""
    if stmt is None:
        return not lines
    blocks: list = []
    node = _last_suite(stmt)
    while node is not None:
        blocks.append(node)
        node = _last_suite(node.body[-1]) if node.body else None
    written: list = []
    indent = base
    indents = []
    for block in blocks:  # outermost first: each block's footer at its own depth
        indent += default_indent if block.indent is None else block.indent
        indents.append(indent)
    for block, depth in zip(reversed(blocks), reversed(indents)):  # the innermost footer first
        written.extend((line, depth) for line in block.footer)
    if len(written) != len(lines):
        return False
    return all(_written_as((node,), [text], depth) for (node, depth), text in zip(written, lines))


#: The clauses a compound statement may end with, each holding its own block.
_CLAUSES = (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.If, cst.MatchCase)


def _last_suite(node: cst.CSTNode) -> cst.IndentedBlock | None:
    """The indented block a statement's code ends with, or None (a simple statement, a
    one-line suite)."""
    if isinstance(node, cst.SimpleStatementLine):
        return None
    for child in reversed(children(node)):
        if type(child) is cst.IndentedBlock:
            return child
        if type(child) is cst.SimpleStatementSuite:
            return None
        if isinstance(child, _CLAUSES):
            return _last_suite(child)
    return None


def _written_as(empty_lines, lines: list, indent: str = "") -> bool:
    """Whether these EmptyLine nodes are written as exactly these lines (EmptyLine._codegen:
    the block's indent when the line takes it, whitespace, comment, newline; no indent at the
    module's level)."""
    if len(empty_lines) != len(lines):
        return False
    for node, line in zip(empty_lines, lines):
        comment = node.comment.value if node.comment is not None else ""
        newline = node.newline.value
        written = (indent if node.indent else "") + node.whitespace.value + comment
        if (newline is not None and newline != "\n") or written != line:
            return False
    return True


def _code_line(line: str) -> bool:
    """A top-level statement's first line: code from its first column."""
    return bool(line) and line[0] not in " \t#"
