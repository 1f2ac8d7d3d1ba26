"""Fix mode's core: apply the edits rules described, bytes in, bytes out.

One transformer pass applies every selected edit of a file; imports that the edits made
unused are removed with LibCST's RemoveImportsVisitor (imports that were unused before are
left alone); the output must parse (LibCST and CPython) or it is dropped. Passes repeat while
new fixable findings appear, at most MAX_PASSES times, so overlapping fixes converge.
"""

from __future__ import annotations

import ast
import functools
import sys
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Optional

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

from mcp_migrate.core.deep import call_deep
from mcp_migrate.core.engine import analyze
from mcp_migrate.core.findings import FileError, FileResult
from mcp_migrate.core.fixes import (
    AddComment,
    Insert,
    RemoveArg,
    RemoveElement,
    RemoveStatement,
    Replace,
    ReplaceSignature,
    Unwrap,
)
from mcp_migrate.core.preserve import exact_output
from mcp_migrate.core.settings import Settings
from mcp_migrate.core.syntax import code_of, iter_nodes
from mcp_migrate.core.walk import children, walk

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_PASSES = 5
DEFAULT_LINE_LENGTH = 88


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
                self.unwrap[id(edit.node)] = edit.keep
            elif isinstance(edit, ReplaceSignature):
                self.signatures[id(edit.func)] = edit
            elif isinstance(edit, AddComment):
                self.comments.setdefault(id(edit.statement), []).append(edit.text)
        #: Statement lines all of whose small statements were removed (by identity of the result).
        #: id -> node: the nodes are kept alive here, so a freed placeholder's id can never be
        #: reused by a new node that would then be dropped by mistake.
        self.emptied: dict = {}

    def on_leave(self, original_node, updated_node):
        key = id(original_node)
        new = self.replacements.get(key)
        if new is not None:
            return new
        if key in self.statements and isinstance(original_node, cst.BaseCompoundStatement):
            placeholder = cst.SimpleStatementLine([cst.Pass()], leading_lines=updated_node.leading_lines)
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
        return updated_node.with_changes(elements=_remove_items(original_node.elements, updated_node.elements, doomed))

    # --- statement removal ----------------------------------------------------------------------
    def _kept_smalls(self, original, updated) -> Optional[list]:
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
        present = {code_of(stmt).strip() for stmt in updated_body}
        out = []
        for original, updated in zip(original_body, updated_body):
            for stmt in self.before.get(id(original), ()):
                if _add_once(stmt, present):
                    out.append(stmt)
            keep = self.unwrap.get(id(original))
            if keep is not None and isinstance(updated, cst.If):
                out.extend(_branch(updated, keep))
            else:
                out.append(updated)
            for stmt in self.after.get(id(original), ()):
                if _add_once(stmt, present):
                    out.append(stmt)
        return out

    def visit_IndentedBlock(self, node) -> None:
        self.depth += 1

    def leave_IndentedBlock(self, original_node, updated_node):
        self.depth -= 1
        updated_node = updated_node.with_changes(body=self._inserted(original_node.body, updated_node.body))
        body, footer = self._drop_emptied(updated_node.body)
        if body is None:
            return updated_node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=footer)]
            footer = []
        return updated_node.with_changes(body=body, footer=footer + list(updated_node.footer))

    def leave_Module(self, original_node, updated_node):
        updated_node = updated_node.with_changes(body=self._inserted(original_node.body, updated_node.body))
        body, footer = self._drop_emptied(updated_node.body)
        if body is None:
            return updated_node
        return updated_node.with_changes(body=body, footer=footer + list(updated_node.footer))

    def _drop_emptied(self, statements):
        """Remove emptied lines; their leading comments and blank lines move to the next statement."""
        if not any(id(s) in self.emptied for s in statements):
            return None, []
        body, carry = [], []
        for stmt in statements:
            if id(stmt) in self.emptied:
                carry.extend(stmt.leading_lines)
                continue
            if carry:
                stmt = stmt.with_changes(leading_lines=_merge_lines(carry, stmt.leading_lines, first=not body))
                carry = []
            body.append(stmt)
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


def _edit_transformer(module: cst.Module, edits: list, width: int) -> _ApplyEdits:
    """The transformer for `edits`: pruned to the paths from the module to the nodes they
    name, or the whole-tree one when some named node is not in the module (never guess)."""
    targets = {id(_edit_anchor(edit)) for edit in edits}
    keep: set = set()
    path: list = []

    def enter(node) -> None:
        path.append(node)
        if id(node) in targets:
            keep.update(id(n) for n in path)

    walk(module, enter, lambda node: path.pop())
    if not targets <= keep:
        return _ApplyEdits(edits, width, module.default_indent)
    return _PrunedApplyEdits(edits, keep, width, module.default_indent)


def _edit_anchor(edit) -> cst.CSTNode:
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


def wrap_comment(text: str, width: int) -> list:
    """A `# ...` comment as lines within `width`: the first keeps its marker form, the rest
    continue it as `#   ...`."""
    body = text[1:].strip() if text.startswith("#") else text
    lines = textwrap.wrap(body, width=max(width - 4, 40), break_long_words=False, break_on_hyphens=False)
    return [f"# {lines[0]}", *(f"#   {line}" for line in lines[1:])] if lines else [text]


def line_length(path: str) -> int:
    """The project's line length, found the way ruff finds its configuration: the nearest
    folder with `.ruff.toml`, `ruff.toml` or a pyproject.toml wins ([tool.ruff], else
    [tool.black] there); 88, ruff's and black's default, when none says."""
    try:
        start = Path(path).resolve().parent
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    return _configured_length(start)


#: Per folder, in ruff's order of precedence: (file name, the tables that may hold line-length).
_LENGTH_SOURCES = (
    (".ruff.toml", ((),)),
    ("ruff.toml", ((),)),
    ("pyproject.toml", (("tool", "ruff"), ("tool", "black"))),
)


@functools.lru_cache(maxsize=256)
def _configured_length(folder: Path) -> int:
    for candidate in (folder, *folder.parents):
        for name, tables in _LENGTH_SOURCES:
            config = candidate / name
            if config.is_file():
                return _length_in(config, tables)
    return DEFAULT_LINE_LENGTH


def _length_in(config: Path, tables: tuple) -> int:
    """`line-length` from the first of `tables` (key paths into the TOML) that sets it."""
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    for keys in tables:
        table = data
        for key in keys:
            table = table.get(key, {}) if isinstance(table, dict) else {}
        value = table.get("line-length") if isinstance(table, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def _branch(node: cst.If, keep: str) -> list:
    """The statements of one branch of an `if`, the `if`'s leading comments on the first."""
    block = node.body if keep == "body" else node.orelse.body
    statements = (
        list(block.body) if isinstance(block, cst.IndentedBlock) else [cst.SimpleStatementLine(list(block.body))]
    )
    if statements:
        statements[0] = statements[0].with_changes(leading_lines=[*node.leading_lines, *statements[0].leading_lines])
    return statements


def _add_once(stmt, present: set) -> bool:
    code = code_of(stmt).strip()
    if code in present:
        return False
    present.add(code)
    return True


def _merge_lines(carried, own, first: bool = False) -> list:
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


# ----- imports ------------------------------------------------------------------------------
def _imported_names(module: cst.Module) -> list:
    """(bound name, module, obj, asname) for every absolute import in the module, in source
    order. Read with the engine's field walk: LibCST's visitor rebuilds every node it passes."""
    found = []
    for node in iter_nodes(module):
        if type(node) is cst.Import:
            for alias in node.names:
                full = code_of(alias.name)
                found.append((_asname(alias) or full.partition(".")[0], full, None, _asname(alias)))
        elif type(node) is cst.ImportFrom:
            if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
                continue
            mod = code_of(node.module)
            for alias in node.names:
                if isinstance(alias.name, cst.Name):
                    found.append((_asname(alias) or alias.name.value, mod, alias.name.value, _asname(alias)))
    return found


def _asname(alias: cst.ImportAlias) -> Optional[str]:
    return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None


def name_uses(module: cst.Module) -> dict:
    """How often each identifier is used outside import statements and definitions' names.
    Not counted: `x.name`'s `name` (not a use of a variable called name), `f(name=...)`'s
    keyword; counted: `__all__` entries and string annotations that are one identifier (they
    keep a name alive). One walk over the node fields (core.walk), no LibCST visitor: a preview
    of a 12,000-line module counts its names several times."""
    counts: dict = defaultdict(int)
    stack = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Attribute or kind is cst.Arg:
            stack.append(node.value)
            continue
        if kind is cst.Name:
            counts[node.value] += 1
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            counts[node.name.value] -= 1  # the definition's own name is not a use
            if getattr(node, "type_parameters", None) is not None:  # not among walk's fields
                stack.append(node.type_parameters)
        elif kind is cst.SimpleString:
            value = node.value.strip("\"'")
            if value.isidentifier():
                counts[value] += 1
        stack.extend(children(node))
    return counts


def _remove_orphaned_imports(before: cst.Module, after: cst.Module, used_before: Optional[dict] = None) -> cst.Module:
    if used_before is None:
        used_before = name_uses(before)
    used_after = name_uses(after)
    context = CodemodContext()
    words: set = set()
    for bound, mod, obj, asname in _imported_names(after):
        if used_before.get(bound, 0) > 0 and used_after.get(bound, 0) <= 0:
            RemoveImportsVisitor.remove_unused_import(context, mod, obj, asname)
            words.add(bound)
    if not words:
        return after
    return _separate_sections(_no_new_leading_blank(after, _remove_imports(context, after, words)))


def _remove_imports(context: CodemodContext, module: cst.Module, words: set) -> cst.Module:
    """RemoveImportsVisitor's result for the imports scheduled in `context`, computed on the
    top-level statements that can matter, then put back in place. Its scope analysis costs
    seconds per 100 KB of module; whether an import is in use depends only on the statements
    that hold an import or mention a name it binds (`words`: as a Name, or inside a string,
    which may be an annotation or an `__all__` entry; `import a.b` binds `a`, and every use of
    `a.b` mentions `a`), so the others are left out of the analysis."""
    relevant = [index for index, stmt in enumerate(module.body) if _may_touch_imports(stmt, words)]
    if len(relevant) == len(module.body):
        return RemoveImportsVisitor(context).transform_module(module)
    visitor = _TopLevelRemoveImports(context)
    visitor.transform_module(module.with_changes(body=[module.body[index] for index in relevant]))
    body = list(module.body)
    for position, index in reversed(list(enumerate(relevant))):
        new = visitor.results[position]
        # What LibCST's body visit does with a statement whose removal emptied it.
        if isinstance(new, cst.RemovalSentinel) or (new._is_removable() and not body[index]._is_removable()):
            del body[index]
        else:
            body[index] = new
    return module.with_changes(body=body)


def _may_touch_imports(stmt: cst.CSTNode, words: set) -> bool:
    """Does `stmt` hold an import, a Name that is one of `words`, or a string mentioning one?"""
    for node in iter_nodes(stmt):
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            return True
        if getattr(node, "type_parameters", None) is not None:  # not among walk's fields: keep it
            return True
        if kind is cst.Name and node.value in words:
            return True
        if (kind is cst.SimpleString or kind is cst.FormattedStringText) and any(w in node.value for w in words):
            return True
    return False


class _TopLevelRemoveImports(RemoveImportsVisitor):
    """RemoveImportsVisitor that also records what each top-level statement became
    (`results`, by position), so the caller can put the statements back into the module
    they were taken from."""

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._top = {id(stmt): position for position, stmt in enumerate(node.body)}
        self.results: dict = {}

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        position = self._top.get(id(original_node))
        if position is not None:
            self.results[position] = result
        return result


def _separate_sections(module: cst.Module) -> cst.Module:
    """One blank line between import sections at the top of the module (removing or adding an
    import can take away or leave out the line that separated two sections)."""
    block = _top_imports(module)
    if any(a[2][0] > b[2][0] for a, b in zip(block, block[1:])):
        return module  # sections out of order already: not ours to rearrange
    body = list(module.body)
    changed = False
    for (_, _, before), (index, stmt, key) in zip(block, block[1:]):
        if before[0] != key[0] and not any(line.comment is None for line in stmt.leading_lines):
            body[index] = stmt.with_changes(leading_lines=[cst.EmptyLine(), *stmt.leading_lines])
            changed = True
    return module.with_changes(body=body) if changed else module


def _no_new_leading_blank(before: cst.Module, after: cst.Module) -> cst.Module:
    """Removing a module's first import must not leave the file starting with a blank line."""
    if before.header or not after.body or not before.body:
        return after
    had_blank = bool(before.body[0].leading_lines) and before.body[0].leading_lines[0].comment is None
    lines = list(after.body[0].leading_lines)
    if had_blank or not lines or lines[0].comment is not None:
        return after
    while lines and lines[0].comment is None:
        lines.pop(0)
    return after.with_changes(body=[after.body[0].with_changes(leading_lines=lines), *after.body[1:]])


def _remove_orphan_functions(module: cst.Module, names: set) -> cst.Module:
    """Unsafe follow-up: delete module-level functions nothing in the file refers to any more."""
    uses = name_uses(module)
    doomed = {n for n in names if uses.get(n, 0) <= 0}
    if not doomed:
        return module
    body = []
    carry = []
    removed = False
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in doomed:
            carry.extend(line for line in stmt.leading_lines if line.comment is not None)
            removed = True
            continue
        if removed and body and _is_import_line(body[-1]) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            # Now right after the imports: one blank line, as isort puts it before plain code.
            own = list(stmt.leading_lines)
            while own and own[0].comment is None:
                own.pop(0)
            stmt = stmt.with_changes(leading_lines=[cst.EmptyLine(), *own])
        removed = False
        if carry:
            stmt = stmt.with_changes(leading_lines=_merge_lines(carry, stmt.leading_lines))
            carry = []
        body.append(stmt)
    carry = [line for line in carry if line.comment is not None]
    return module.with_changes(body=body, footer=carry + list(module.footer))


def _is_import_line(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body
    )


# ----- the fix loop ---------------------------------------------------------------------------
def fix_once(data: bytes, path: str, settings: Settings, unsafe: bool):
    """One pass: (new bytes or None, applied [(code, line)], analysis of `data`)."""
    analysis = analyze(data, path, settings)
    wanted = (lambda finding: finding.fix in ("safe", "unsafe")) if unsafe else (lambda finding: finding.fix == "safe")
    new, applied = _apply_pass(data, analysis, path, wanted, unsafe)
    return new, applied, analysis


def _apply_pass(data: bytes, analysis, path: str, wanted, unsafe: bool, used_before: Optional[dict] = None):
    """Apply, in one transform, the fixes of the findings `wanted` accepts that do not overlap
    one already chosen: (new bytes or None, applied [(code, line)]). `used_before`: the
    module's name_uses, when the caller already counted them."""
    chosen, applied, orphans, imports = [], [], set(), []
    taken: set = set()
    for report, finding in analysis.pairs:
        if report.fix is not None and wanted(finding):
            touched = _touched(report.fix)
            if touched & taken:
                continue  # overlaps a fix already chosen: the next pass sees the new code
            taken |= touched
            chosen.extend(report.fix.edits)
            imports.extend(report.fix.imports)
            applied.append((finding.code, finding.line))
            if unsafe:
                orphans.update(report.fix.orphans)
    if not chosen:
        return None, []
    module = without_form_feed_indent(analysis.module)
    width = line_length(path)
    try:
        new_module = module.visit(_edit_transformer(module, chosen, width))
    except cst.CSTValidationError:  # `return"x" % p` -> `returnPath(p)...`: needs a separator
        new_module = module.visit(_edit_transformer(module, _separated(chosen), width))
    if orphans:
        new_module = _remove_orphan_functions(new_module, orphans)
    new_module = _remove_orphaned_imports(module, new_module, used_before)
    if imports:
        new_module = _add_imports(new_module, imports)
    return exact_output(data, module.bytes, new_module.bytes), applied


def _separated(edits: list) -> list:
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


def rule_previews(data: bytes, path: str, settings: Settings) -> dict:
    """(code, unsafe?) -> the file's bytes after that rule's fixes of that kind (see
    analysis_previews), for a caller that has not analysed `data` yet."""
    return analysis_previews(analyze(data, path, settings), data, path)


def analysis_previews(analysis, data: bytes, path: str) -> dict:
    """(code, unsafe?) -> the file's bytes after that rule's fixes of that kind: one transform
    per (rule, fix kind) of the tree the check already parsed and walked (`analysis`, from
    engine.analyze of `data`), the module's name uses counted once for all of them. A preview
    is one pass, like the first pass of `fix`; what `fix` writes is still verified there.
    Runs on the deep-stack thread; a preview that cannot be computed is left out (the finding
    is still reported)."""
    try:
        return call_deep(_analysis_previews, analysis, data, path)
    except Exception:  # noqa: BLE001 - previews only illustrate findings
        return {}


def _analysis_previews(analysis, data: bytes, path: str) -> dict:
    previews: dict = {}
    if analysis.module is None:
        return previews
    keys = dict.fromkeys((f.code, f.fix == "unsafe") for _, f in analysis.pairs if f.fix != "none")
    used_before = name_uses(analysis.module) if keys else None
    for code, unsafe in keys:
        kind = "unsafe" if unsafe else "safe"
        new, _ = _apply_pass(
            data, analysis, path, lambda f, c=code, k=kind: f.code == c and f.fix == k, unsafe, used_before
        )
        if new is not None and new != data:
            previews[(code, unsafe)] = new
    return previews


def _touched(fix) -> set:
    """Identities of the original nodes a fix rewrites; two fixes that share one conflict."""

    ids = set()
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
            ids.update(id(n) for n in iter_nodes(edit.node.test))
    return ids


def _add_imports(module: cst.Module, imports: list) -> cst.Module:
    """Add what the edits need where an isort-style tool would put it: into an existing
    `from m import ...` (names in order, its one-per-line layout kept), else as a new line in
    its section of the top import block; a name any module-level import already binds (a
    conditional one included) is not imported twice. Without a top import block, LibCST's
    AddImportsVisitor places it."""
    leftover = []
    for mod, name in dict.fromkeys(imports):
        if (name or mod.partition(".")[0]) in _module_import_bindings(module):
            continue
        placed = _merge_into_from(module, mod, name) if name else None
        if placed is None:
            placed = _insert_sorted(module, mod, name)
        if placed is None:
            leftover.append((mod, name))
        else:
            module = placed
    if not leftover:
        return _separate_sections(module)
    context = CodemodContext()
    for mod, name in leftover:
        AddImportsVisitor.add_needed_import(context, mod, name)
    return AddImportsVisitor(context).transform_module(module)


def _module_import_bindings(module: cst.Module) -> set:
    """Names bound by imports outside functions and classes (inside try/if included)."""
    names = set()

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node) -> bool:
            return False

        def visit_ClassDef(self, node) -> bool:
            return False

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            names.add(node.evaluated_alias or node.evaluated_name.partition(".")[0])

    module.visit(Collect())
    return names


def _top_imports(module: cst.Module) -> list:
    """(index in module.body, statement, sort key) of the import lines at the top of the
    module (after the docstring and `from __future__`), up to the first other statement."""
    out = []
    for index, stmt in enumerate(module.body):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            key = _import_key(small)
            if key is not None:
                out.append((index, stmt, key))
                continue
        if index == 0 and small is not None and isinstance(small, cst.Expr):
            continue  # the docstring
        break
    return out


def _import_key(small) -> Optional[tuple]:
    """isort's default order: section (future, stdlib, third party), `import x` before
    `from x import`, then the module name; relative imports come last (local section)."""
    if isinstance(small, cst.ImportFrom):
        if small.relative:
            return (4, 1, "")
        mod = code_of(small.module) if small.module is not None else ""
        return (_section(mod), 1, mod.lower())
    return (_section(code_of(small.names[0].name)), 0, code_of(small.names[0].name).lower())


def _section(mod: str) -> int:
    top = mod.partition(".")[0]
    if top == "__future__":
        return 0
    return 1 if top in _stdlib_names() else 2


def _stdlib_names() -> frozenset:
    import sys

    names = getattr(sys, "stdlib_module_names", None)
    if names is None:  # Python < 3.10: the modules this package ever imports
        names = {"os", "pathlib", "typing", "urllib", "sys", "asyncio", "json", "re"}
    return frozenset(names)


def _merge_into_from(module: cst.Module, mod: str, name: str) -> Optional[cst.Module]:
    """Add `name` to an existing top-level `from mod import ...`, in order."""
    for index, stmt, _ in _top_imports(module):
        small = stmt.body[0]
        if not (
            isinstance(small, cst.ImportFrom)
            and not small.relative
            and small.module is not None
            and code_of(small.module) == mod
            and not isinstance(small.names, cst.ImportStar)
        ):
            continue
        names = list(small.names)
        at = sum(1 for alias in names if _member_key(code_of(alias.name)) < _member_key(name))
        template = names[at - 1].comma if at > 0 else names[0].comma
        if not isinstance(template, cst.Comma):
            template = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        new = cst.ImportAlias(cst.Name(name), comma=template)
        if at == len(names):  # the new last name takes over the old last one's (lack of) comma
            new = new.with_changes(comma=names[-1].comma)
            names[-1] = names[-1].with_changes(comma=template)
        names.insert(at, new)
        if small.rpar is None and len(names) > 1 and any("\n" in code_of(a) for a in names):
            return None
        new_stmt = stmt.with_changes(body=[small.with_changes(names=names)])
        return module.with_changes(body=[*module.body[:index], new_stmt, *module.body[index + 1 :]])
    return None


def _member_key(name: str) -> tuple:
    """isort's order-by-type for imported names: CONSTANTS, Classes, functions."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def _insert_sorted(module: cst.Module, mod: str, name: Optional[str]) -> Optional[cst.Module]:
    """A new import line at its place in the top import block, a blank line between sections."""
    block = _top_imports(module)
    if not block:
        return None
    text = f"from {mod} import {name}\n" if name else f"import {mod}\n"
    new = cst.parse_statement(text)
    key = _import_key(new.body[0])
    body = list(module.body)
    after = [item for item in block if item[2] > key]
    if after:
        index, follower, follower_key = after[0]
        previous = next((item for item in reversed(block) if item[0] < index), None)
        if previous is None:  # the new first import: it takes the follower's leading lines
            new = new.with_changes(leading_lines=follower.leading_lines)
            gap = [cst.EmptyLine()] if follower_key[0] != key[0] else []
            body[index] = follower.with_changes(leading_lines=gap)
        elif previous[2][0] != key[0]:
            new = new.with_changes(leading_lines=[cst.EmptyLine()])
            if follower_key[0] == key[0]:
                body[index] = follower.with_changes(leading_lines=[])
        body.insert(index, new)
    else:
        index, last, last_key = block[-1]
        if last_key[0] != key[0]:
            new = new.with_changes(leading_lines=[cst.EmptyLine()])
        body.insert(index + 1, new)
    return module.with_changes(body=body)


def verify_parses(data: bytes, path: str, *, compiles: bool = True) -> Optional[str]:
    """Why `data` is unusable as fix output, or None. LibCST must parse it; CPython must compile
    it when it compiled the input (`compiles`): syntax newer than this interpreter (a 3.12
    `type` statement on 3.11) is checked by the parser that accepted the input, LibCST."""
    try:
        cst.parse_module(data)
    except Exception as exc:  # noqa: BLE001 - any failure means the fix is unusable
        return f"{type(exc).__name__}: {exc}"
    if compiles:
        return _cpython_problem(data, path)
    return None


def _cpython_problem(data: bytes, path: str) -> Optional[str]:
    try:
        compile(data, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except Exception as exc:  # noqa: BLE001 - any failure means the code does not compile
        return f"{type(exc).__name__}: {exc}"
    return None


def fix_bytes(data: bytes, path: str, settings: Optional[Settings] = None, *, unsafe: bool = False) -> FileResult:
    """Fix one file's bytes. `fixed_source` is None when nothing changed; `findings` are what
    remains after fixing; a fix whose output does not parse is dropped with a FileError. Never
    raises: an internal error leaves the file untouched and is one of the result's `errors`.
    Runs on the deep-stack thread (core.deep): the transforms recurse as deep as the syntax."""
    settings = settings or Settings.default()
    try:
        return call_deep(_fix_bytes, data, path, settings, unsafe)
    except Exception as exc:  # noqa: BLE001 - bytes in, a result out: never an exception
        return _untouched(data, path, settings, "internal", f"fix raised {type(exc).__name__}: {exc}")


def _untouched(data: bytes, path: str, settings: Settings, code: str, message: str) -> FileResult:
    """The result of a fix that cannot be made: the input's own findings plus the error."""
    try:
        result = analyze(data, path, settings).result
    except Exception:  # noqa: BLE001 - the error below is what matters
        result = FileResult(path)
    result.errors.append(FileError(path, code, " ".join(f"{message}; file left untouched".split())))
    return result


def _fix_bytes(data: bytes, path: str, settings: Settings, unsafe: bool) -> FileResult:
    current, applied = data, []
    compiles = None  # does this interpreter compile the input? asked once, when a fix applies
    for _ in range(MAX_PASSES):
        try:
            new, done, analysis = fix_once(current, path, settings, unsafe)
        except RecursionError:
            return _untouched(data, path, settings, "internal", "too deeply nested to fix")
        if new is None or new == current:
            break
        if compiles is None:
            compiles = _cpython_problem(data, path) is None
        problem = verify_parses(new, path, compiles=compiles)
        if problem is not None:
            codes = ",".join(sorted({code for code, _ in done}))
            if not compiles:
                problem += f"; Python {sys.version_info[0]}.{sys.version_info[1]} cannot compile the input either"
            return _untouched(data, path, settings, codes or "internal", f"fix output does not parse ({problem})")
        current = new
        applied.extend(done)
    else:
        analysis = analyze(current, path, settings)
    result = analysis.result
    result.fixed_source = current if current != data else None
    result.applied = applied
    return result


def fix_source(source, path: str = "<string>", *, settings: Optional[Settings] = None, unsafe: bool = False):
    """The fixed text (same type as given: str or bytes); unchanged input when nothing applies,
    and when an internal error stops the fix (never an exception: `fix_bytes` gives the same
    fix with its findings and errors)."""
    data = source.encode("utf-8") if isinstance(source, str) else source
    result = fix_bytes(data, path, settings, unsafe=unsafe)
    fixed = result.fixed_source if result.fixed_source is not None else data
    return fixed.decode("utf-8") if isinstance(source, str) else fixed


def without_form_feed_indent(module: cst.Module) -> cst.Module:
    """LibCST takes the first indented line's whitespace, form feed included, for the file's
    indent unit; a block the fix adds would then nest as "\\f    \\f    ", which Python rejects.
    The unit without form feeds (the original's form feeds are copied back by exact_output)."""
    if "\f" not in module.default_indent:
        return module
    return module.with_changes(default_indent=module.default_indent.replace("\f", "") or "    ")
