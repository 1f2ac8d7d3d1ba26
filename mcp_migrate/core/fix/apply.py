"""Applying edits: one LibCST transformer pass puts every chosen edit of a file in place,
keyed by the identity of the original nodes the edits name, and keeps punctuation, comments and
blank lines valid around what it removes or inserts."""

from __future__ import annotations

from collections import defaultdict
from typing import cast

import libcst as cst

from mcp_migrate.core.fix.edits import (
    AddComment,
    Insert,
    RemoveArg,
    RemoveElement,
    RemoveStatement,
    Replace,
    ReplaceSignature,
    Unwrap,
)
from mcp_migrate.core.fix.layout import DEFAULT_LINE_LENGTH, wrap_comment
from mcp_migrate.core.syntax import code_of, iter_nodes, parents_below


class _ApplyEdits(cst.CSTTransformer):
    """Applies edits keyed by the identity of the original nodes they name."""

    def __init__(self, edits, width: int = DEFAULT_LINE_LENGTH, indent_unit: str = "    ") -> None:
        super().__init__()
        self.width = width
        self.indent_unit = indent_unit
        self.depth = 0
        self.statements = set()
        self.args = defaultdict(set)
        self.elements = defaultdict(set)
        self.replacements = {}
        self.after: dict = {}
        self.before: dict = {}
        self.comments: dict = {}
        self.unwrap: dict = {}
        self.signatures: dict = {}
        for edit in edits:
            if isinstance(edit, RemoveStatement):
                self.statements.add(id(edit.node))
            elif isinstance(edit, RemoveArg):
                self.args[id(edit.call)].add(id(edit.arg))
            elif isinstance(edit, RemoveElement):
                self.elements[id(edit.container)].add(id(edit.element))
            elif isinstance(edit, Replace):
                self.replacements[id(edit.node)] = edit.new
            elif isinstance(edit, Insert):
                where = self.before if edit.before else self.after
                where.setdefault(id(edit.anchor), []).extend(edit.statements)
            elif isinstance(edit, Unwrap):
                self.unwrap[id(edit.node)] = edit
            elif isinstance(edit, ReplaceSignature):
                self.signatures[id(edit.func)] = edit
            elif isinstance(edit, AddComment):
                self.comments.setdefault(id(edit.statement), []).append(edit.text)
        #: Statement lines all of whose small statements were removed (by identity of the result).
        #: id -> node: the nodes are kept alive here, so a freed placeholder's id can never be
        #: reused by a new node that would then be dropped by mistake.
        self.emptied: dict = {}
        #: The `pass` lines put into blocks all of whose statements went (kept alive, as above):
        #: an unwrapped branch drops them where other statements stand beside them.
        self.placeholders: dict = {}

    def on_leave(self, original_node, updated_node):
        key = id(original_node)
        new = self.replacements.get(key)
        if new is not None:
            return new
        if key in self.statements and isinstance(original_node, cst.BaseCompoundStatement):
            placeholder = cst.SimpleStatementLine([cst.Pass()], leading_lines=_unattached(updated_node.leading_lines))
            self.emptied[id(placeholder)] = placeholder
            return placeholder
        updated_node = super().on_leave(original_node, updated_node)
        texts = self.comments.get(key)
        if texts and isinstance(updated_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            present = {line.comment.value for line in updated_node.leading_lines if line.comment}
            width = self.width - len(self.indent_unit) * self.depth
            extra = [
                cst.EmptyLine(comment=cst.Comment(line))
                for t in dict.fromkeys(texts)
                for line in wrap_comment(t, width)
                if wrap_comment(t, width)[0] not in present
            ]
            if extra:
                emptied = id(updated_node) in self.emptied
                updated_node = updated_node.with_changes(leading_lines=[*updated_node.leading_lines, *extra])
                if emptied:  # a removed statement's note moves on with its other comments
                    self.emptied[id(updated_node)] = updated_node
        return updated_node

    def leave_FunctionDef(self, original_node, updated_node):
        edit = self.signatures.get(id(original_node))
        if edit is None:
            return updated_node
        return updated_node.with_changes(params=edit.params, whitespace_before_params=edit.whitespace_before_params)

    # --- argument and element removal ---------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        doomed = self.args.get(id(original_node))
        if not doomed:
            return updated_node
        args = _remove_items(original_node.args, updated_node.args, doomed, trailing_ws=True)
        return updated_node.with_changes(args=args)

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.Dict:
        doomed = self.elements.get(id(original_node))
        if not doomed:
            return updated_node
        kept = _remove_items(original_node.elements, updated_node.elements, doomed)
        if not kept and "#" not in code_of(original_node):
            # The last entry gone: `{}`, not the lines the entries stood on (blank, indented).
            empty = cst.SimpleWhitespace("")
            return updated_node.with_changes(
                elements=[],
                lbrace=cst.LeftCurlyBrace(whitespace_after=empty),
                rbrace=cst.RightCurlyBrace(whitespace_before=empty),
            )
        return updated_node.with_changes(elements=kept)

    # --- statement removal ----------------------------------------------------------------------
    def _kept_smalls(self, original, updated) -> list | None:
        if not any(id(o) in self.statements for o in original.body):
            return None
        kept = [u for o, u in zip(original.body, updated.body) if id(o) not in self.statements]
        if kept:
            kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return kept

    def leave_SimpleStatementLine(self, original_node, updated_node):
        kept = self._kept_smalls(original_node, updated_node)
        if kept is None:
            return updated_node
        if kept:
            return updated_node.with_changes(body=kept)
        placeholder = updated_node.with_changes(body=[cst.Pass()])
        self.emptied[id(placeholder)] = placeholder
        return placeholder

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        kept = self._kept_smalls(original_node, updated_node)
        if kept is None:
            return updated_node
        return updated_node.with_changes(body=kept or [cst.Pass()])

    def _inserted(self, original_body, updated_body) -> list:
        """The body with inserted statements placed (skipping ones already there)."""
        if not any(id(o) in self.after or id(o) in self.before or id(o) in self.unwrap for o in original_body):
            return list(updated_body)
        present = _Present(updated_body)
        out = []
        for original, updated in zip(original_body, updated_body):
            for stmt in self.before.get(id(original), ()):
                if present.add_once(stmt):
                    out.append(stmt)
            unwrap = self.unwrap.get(id(original))
            if unwrap is not None and isinstance(updated, (cst.If, cst.Try)):
                out.extend(_branch(updated, unwrap.keep, unwrap.first, self.placeholders))
            else:
                out.append(updated)
            for stmt in self.after.get(id(original), ()):
                if present.add_once(stmt):
                    out.append(stmt)
        return out

    def visit_IndentedBlock(self, node) -> None:
        self.depth += 1

    def leave_IndentedBlock(self, original_node, updated_node):
        self.depth -= 1
        updated_node = updated_node.with_changes(body=self._inserted(original_node.body, updated_node.body))
        body, footer = self._drop_emptied(updated_node.body, block=True)
        if body is None:
            return updated_node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=footer)]
            self.placeholders[id(body[0])] = body[0]
            footer = []
        return updated_node.with_changes(body=body, footer=footer + list(updated_node.footer))

    def leave_Module(self, original_node, updated_node):
        updated_node = updated_node.with_changes(body=self._inserted(original_node.body, updated_node.body))
        body, footer = self._drop_emptied(updated_node.body)
        if body is None:
            return updated_node
        return updated_node.with_changes(body=body, footer=footer + list(updated_node.footer))

    def _drop_emptied(self, statements, block: bool = False):
        """Remove emptied lines; their leading comments and blank lines move to the next statement.
        In an indented `block` whose first statement goes, the new first one starts right under
        its header (`class T:` then the next method, no blank line between)."""
        if not any(id(s) in self.emptied for s in statements):
            return None, []
        body: list = []
        carry: list[cst.EmptyLine] = []
        for stmt in statements:
            if id(stmt) in self.emptied:
                carry = _joined_gaps(carry, stmt.leading_lines)
                continue
            if carry:
                stmt = stmt.with_changes(leading_lines=merge_lines(carry, stmt.leading_lines, first=not body))
                carry = []
            body.append(stmt)
        if block and body and id(statements[0]) in self.emptied:
            lines = list(body[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body[0] = body[0].with_changes(leading_lines=lines)
        # Nothing follows: keep the removed statements' comments, not their blank lines.
        return body, [line for line in carry if line.comment is not None]


class _PrunedApplyEdits(_ApplyEdits):
    """_ApplyEdits that passes by every subtree holding no edited node: LibCST's transformer
    rebuilds and re-validates each node it enters, so a fix of a few places in a
    12,000-line module would otherwise rebuild all of it. Exact: an untouched subtree comes
    out of _ApplyEdits unchanged, and its hooks keyed by node identity never fire there."""

    def __init__(self, edits, keep: set, width: int, indent_unit: str) -> None:
        super().__init__(edits, width, indent_unit)
        self.keep = keep

    def on_visit(self, node) -> bool:
        if id(node) not in self.keep:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        if id(original_node) not in self.keep:
            return updated_node
        return super().on_leave(original_node, updated_node)


def edit_transformer(module: cst.Module, edits: list, width: int, parents: dict | None = None) -> _ApplyEdits:
    """The transformer for `edits`: pruned to the paths from the module to the nodes they
    name, or the whole-tree one when some named node is not in the module (never guess).
    `parents`: the module's parent map (`parents_below`), when the caller keeps one for many
    passes over the same module (a file's previews)."""
    targets = {id(edit_anchor(edit)) for edit in edits}
    if parents is None:
        parents = parents_below(module)
    keep: set = set()
    for target in targets:
        node_id = target
        while node_id not in keep:
            keep.add(node_id)
            parent = parents.get(node_id)
            if parent is None:
                break
            node_id = id(parent)
    if any(target != id(module) and target not in parents for target in targets):
        return _ApplyEdits(edits, width, module.default_indent)
    return _PrunedApplyEdits(edits, keep, width, module.default_indent)


def edit_anchor(edit) -> cst.CSTNode:
    """The original node whose hooks apply `edit` (its container for removals of parts)."""
    if isinstance(edit, RemoveArg):
        return edit.call
    if isinstance(edit, RemoveElement):
        return edit.container
    if isinstance(edit, Insert):
        return edit.anchor
    if isinstance(edit, ReplaceSignature):
        return edit.func
    if isinstance(edit, AddComment):
        return edit.statement
    return edit.node  # RemoveStatement, Replace, Unwrap


def _branch(node: cst.If | cst.Try, keep: str, first: tuple = (), placeholders: dict | None = None) -> list:
    """The statements of one branch of an `if` (or a `try`'s body), after `first`, the node's
    leading comments on the first of them; an emptied branch's `pass` (in `placeholders`) only
    where nothing else stands."""
    if keep == "body":
        block = node.body
    else:
        assert isinstance(node, cst.If) and node.orelse is not None, (
            "Unwrap keeps the `else` only of an `if` that has one"
        )
        block = node.orelse.body
    # (A block holds lines and compound statements, the only kinds of BaseStatement; a suite
    # that is no IndentedBlock is a SimpleStatementSuite.)
    statements = cast(
        "list[cst.SimpleStatementLine | cst.BaseCompoundStatement]",
        list(block.body)
        if isinstance(block, cst.IndentedBlock)
        else [cst.SimpleStatementLine(list(cast(cst.SimpleStatementSuite, block).body))],
    )
    kept = [*first, *(s for s in statements if id(s) not in (placeholders or {}))]
    statements = kept or statements
    if statements:
        statements[0] = statements[0].with_changes(leading_lines=[*node.leading_lines, *statements[0].leading_lines])
    return statements


class _Present:
    """The code of a block's statements, for inserting a statement only where its text is not
    there yet. Only the statements that could have the same text are generated (same kind,
    same name, same small statements): an insertion at the top of a module does not generate
    the whole module."""

    def __init__(self, body) -> None:
        self.by_shape: dict = {}
        for stmt in body:
            self.by_shape.setdefault(_shape(stmt), []).append(stmt)
        self.codes: set = set()  # the texts of the statements generated so far, and inserted
        self.generated: set = set()

    def add_once(self, stmt) -> bool:
        code = code_of(stmt).strip()
        shape = _shape(stmt)
        if shape not in self.generated:
            self.generated.add(shape)
            self.codes.update(code_of(other).strip() for other in self.by_shape.get(shape, ()))
        if code in self.codes:
            return False
        self.codes.add(code)
        return True


def _shape(stmt) -> tuple:
    """What two statements of the same text share: their kind, a definition's name, the kinds
    of a line's small statements."""
    name = getattr(stmt, "name", None)
    smalls = tuple(type(small) for small in stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else ()
    return type(stmt), name.value if isinstance(name, cst.Name) else None, smalls


#: Comments that are instructions to a tool, not words about the statement below them.
_PRAGMAS = ("# mcp-migrate", "# type:", "# noqa", "# fmt:", "# pylint:", "# pragma", "# isort:", "# ruff:")


def _unattached(lines) -> list:
    """A removed block's leading lines without the comments written right above it (no blank
    line between: `# Try to get the directory from roots first` over the `if` that does it),
    which would otherwise move onto the next statement and describe code that is gone. A
    comment a blank line separates, and a tool's pragma, stay."""
    lines = list(lines)
    end = len(lines)
    while end and lines[end - 1].comment is not None and not lines[end - 1].comment.value.startswith(_PRAGMAS):
        end -= 1
    return lines[:end]


def _joined_gaps(carried: list, lines) -> list:
    """The leading lines of two removed statements in a row, as one: where a blank gap ends
    the first and another begins the second, the longer of the two stands for both (two
    removed statements each after a blank line leave one blank line, not two)."""
    lines = list(lines)
    tail = 0
    while tail < len(carried) and carried[-1 - tail].comment is None:
        tail += 1
    head = 0
    while head < len(lines) and lines[head].comment is None:
        head += 1
    if not tail or not head:
        return carried + lines
    return carried[: len(carried) - tail] + lines[: max(tail, head)] + lines[head:]


def merge_lines(carried, own, first: bool = False) -> list:
    """Leading lines of a removed statement joined to the next one's: comments survive; the
    removed statement's blank lines are dropped when the next statement brings its own."""
    own = list(own)
    if own and own[0].comment is None:
        carried = [line for line in carried if line.comment is not None]
        gap = []
        while own and own[0].comment is None:  # the gap stays above the comments it separated
            gap.append(own.pop(0))
        return (carried + gap if first else gap + carried) + own
    return list(carried) + own


def _remove_items(originals, updated, doomed: set, trailing_ws: bool = False) -> list:
    """Drop the doomed items of an argument or element list, keeping its punctuation valid:
    when the last item goes, the new last item takes over its comma (or lack of one) and the
    whitespace before the closing bracket; a comment after the new last item's own comma stays."""
    kept = [u for o, u in zip(originals, updated) if id(o) not in doomed]
    if kept and id(originals[-1]) in doomed:
        last = updated[-1]
        own = kept[-1].comma
        if _trailing_comment(own):
            kept[-1] = kept[-1].with_changes(comma=_comma_keeping_comment(own, last))
            if trailing_ws and hasattr(last, "whitespace_after_arg"):
                kept[-1] = kept[-1].with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
            return kept
        changes = {"comma": last.comma}
        if trailing_ws and hasattr(last, "whitespace_after_arg"):
            changes["whitespace_after_arg"] = last.whitespace_after_arg
        kept[-1] = kept[-1].with_changes(**changes)
    return kept


def _trailing_comment(comma) -> bool:
    ws = getattr(comma, "whitespace_after", None)
    return isinstance(ws, cst.ParenthesizedWhitespace) and ws.first_line.comment is not None


def _comma_keeping_comment(own: cst.Comma, removed) -> cst.Comma:
    """`x,  # note` stays; the line break before the bracket comes from the removed item."""
    ws = own.whitespace_after
    before_bracket = getattr(removed.comma, "whitespace_after", None)
    if not isinstance(before_bracket, cst.ParenthesizedWhitespace):
        before_bracket = getattr(removed, "whitespace_after_arg", None)
    if isinstance(before_bracket, cst.ParenthesizedWhitespace):
        ws = ws.with_changes(empty_lines=[], indent=before_bracket.indent, last_line=before_bracket.last_line)
    return own.with_changes(whitespace_after=ws)


def separated(edits: list) -> list:
    """The edits with every replacement that starts with a letter where the original started
    with a quote or bracket put in parentheses: a keyword may touch the original (`return"x"`,
    `if(x)`), and LibCST refuses the new node there without a space."""
    out = []
    for edit in edits:
        if (
            isinstance(edit, Replace)
            and isinstance(edit.new, cst.BaseExpression)
            and not code_of(edit.node)[:1].isidentifier()
            and code_of(edit.new)[:1].isidentifier()
        ):
            edit = Replace(edit.node, edit.new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        out.append(edit)
    return out


def touched(fix) -> set:
    """Identities of the original nodes a fix rewrites; two fixes that share one conflict."""

    ids: set[int] = set()
    for edit in fix.edits:
        if isinstance(edit, (Replace, RemoveStatement)):
            ids.update(id(n) for n in iter_nodes(edit.node))
        elif isinstance(edit, RemoveArg):
            ids.update(id(n) for n in iter_nodes(edit.arg))
        elif isinstance(edit, RemoveElement):
            ids.update(id(n) for n in iter_nodes(edit.element))
        elif isinstance(edit, ReplaceSignature):
            ids.update(id(n) for n in iter_nodes(edit.func.params))
        elif isinstance(edit, Unwrap):
            ids.add(id(edit.node))
            if isinstance(edit.node, cst.If):
                ids.update(id(n) for n in iter_nodes(edit.node.test))
            else:  # a `try`: its handlers go
                ids.update(id(n) for handler in edit.node.handlers for n in iter_nodes(handler))
    return ids
