"""Imports around a fix: the imports the edits made unused are removed (with LibCST's
RemoveImportsVisitor, on the statements that can matter); the imports the edits need are
added by core.fix.import_block.

LibCST's codemod visitors are imported only when an import is to be removed (or added where
there is no import block): importing `libcst.codemod` loads `libcst.matchers`, a quarter of a
second, which a fix or preview that touches no import must not pay."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from typing import cast

import libcst as cst

from mcp_migrate.core.fix.import_block import separate_sections
from mcp_migrate.core.fix.read_strings import line_import, module_facts, read_string_mentions
from mcp_migrate.core.fix.shared_statements import per_node, per_statement, sharing
from mcp_migrate.core.syntax import code_of, iter_nodes
from mcp_migrate.core.walk import NO_STATEMENT_BELOW, StatementsReplaced, children


def _imported_names(module: cst.Module) -> list:
    """(bound name, module, obj, asname) for every absolute import in the module, in source
    order. Read with the engine's field walk: LibCST's visitor rebuilds every node it passes."""
    return [item for found in per_statement("imports", module, _imports_in) for item in found]


def _imports_in(root: cst.CSTNode) -> tuple:
    """The imports of `_imported_names` in one node. Within `statements_shared()`, a block's
    statements are each read once (`per_node`), as `_uses_in` counts them: a pass that changes
    one method of a class reads that method again, not the class's other methods."""
    found: list[tuple[str, str, str | None, str | None]] = []
    shared = sharing()
    for node in _statement_nodes(root, cst.IndentedBlock) if shared else _statement_nodes(root):
        if shared and type(node) is cst.IndentedBlock:  # its statements' answers, each remembered
            for stmt in node.body:
                found.extend(per_node("imports", stmt, _imports_in))
        elif type(node) is cst.Import:
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
    return tuple(found)


def _statement_nodes(root: cst.CSTNode, stop: type | None = None):
    """`iter_nodes(root)` without what lies below an expression, in the same order: no
    statement, so no import, is ever inside one (a class's whole body of calls and literals
    is not walked to find the imports a preview's changed statement holds). Nor below a node
    of type `stop`, which is yielded."""
    stack = [root]
    while stack:
        current = stack.pop()
        yield current
        if type(current) is not stop:
            stack.extend(child for child in reversed(children(current)) if type(child) not in NO_STATEMENT_BELOW)


def _asname(alias: cst.ImportAlias) -> str | None:
    return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None


def name_uses(module: cst.Module) -> dict:
    """How often each identifier is used outside import statements and definitions' names.
    Not counted: `x.name`'s `name` (not a use of a variable called name), `f(name=...)`'s
    keyword; counted: `__all__` entries and string annotations that are one identifier (they
    keep a name alive). One walk over the node fields (core.walk), no LibCST visitor: a preview
    of a 12,000-line module counts its names several times, so a module's count is the sum of
    its statements' counts, each unchanged statement counted once."""
    if type(module) is not cst.Module:
        return _uses_in(module)
    counts: dict = defaultdict(int)
    for found in per_statement("uses", module, _uses_in):
        for name, count in found.items():
            counts[name] += count
    return counts


def _uses_in(root: cst.CSTNode) -> dict:
    """`name_uses` of one node. Within `statements_shared()`, a block's statements are counted
    each once (`per_node`) and their counts added: a preview pass that changes one method of a
    class makes the class anew, whose other statements are the parsed module's own (issue 37:
    counting langroid's 860-line client class again was 30 % of its previews)."""
    counts: dict = defaultdict(int)
    shared = sharing()
    stack: list = [root]  # of any syntax node: each kind is told apart by its type below
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.IndentedBlock and shared:  # (its header and footer hold no name)
            for stmt in node.body:
                for name, count in per_node("uses", stmt, _uses_in).items():
                    counts[name] += count
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


def remove_orphaned_imports(
    before: cst.Module, after: cst.Module, used_before: dict | None = None, kept: Callable | None = None
) -> cst.Module:
    """`after` without the imports its edits left unused (they were used in `before`), but those
    binding a name in `kept()`: other modules import it from this one (run.reexports). `kept`
    is called only when an import was left unused (it asks the run's plan)."""
    if used_before is None:
        used_before = name_uses(before)
    used_after = name_uses(after)
    orphaned = [
        (bound, mod, obj, asname)
        for bound, mod, obj, asname in _imported_names(after)
        if used_before.get(bound, 0) > 0 and used_after.get(bound, 0) <= 0
    ]
    if orphaned and kept is not None:
        names = kept()
        orphaned = [entry for entry in orphaned if entry[0] not in names]
    if not orphaned:
        return after
    words = {bound for bound, _, _, _ in orphaned}
    fast = _plain_removal(after, orphaned, words)
    if fast is not None:
        return separate_sections(_closing_on_its_line(after, _no_new_leading_blank(after, fast)), after)
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    context = CodemodContext()
    for _bound, mod, obj, asname in orphaned:
        RemoveImportsVisitor.remove_unused_import(context, mod, obj, asname)
    removed = _remove_imports(context, after, words)
    return separate_sections(_closing_on_its_line(after, _no_new_leading_blank(after, removed)), after)


def _closing_on_its_line(before: cst.Module, after: cst.Module) -> cst.Module:
    """A `from m import (` one name a line whose last names went keeps its closing parenthesis
    on its own line, with a trailing comma (RemoveImportsVisitor leaves `    Tool)`: mcp-devtools,
    session 50's first look). Only imports the removal changed. The statements alone are walked
    (`_statement_nodes`), and the imports of `before` generated only where one of `after`'s
    closes on its last name: every preview's removal walked both modules whole and generated
    each import's code (issue 37: 11 % of python-sdk's `test_otel.py` check, its previews')."""
    closing = [n for n in _statement_nodes(after) if isinstance(n, cst.ImportFrom) and _closes_on_last(n)]
    if not closing:
        return after
    kept = {code_of(n) for n in _statement_nodes(before) if isinstance(n, cst.ImportFrom)}
    changed = [n for n in closing if code_of(n) not in kept]
    for node in changed:  # untouched subtrees keep their identity across deep_replace
        replaced = after.deep_replace(node, _with_closing_line(node))
        after = replaced if isinstance(replaced, cst.Module) else after
    return after


def _closes_on_last(node: cst.ImportFrom) -> bool:
    """`from m import (\n    a,\n    b)`: one name a line, the parenthesis after the last."""
    if node.rpar is None or node.lpar is None or isinstance(node.names, cst.ImportStar) or not node.names:
        return False
    names = list(cast("tuple[cst.ImportAlias, ...]", node.names))
    if isinstance(names[-1].comma, cst.Comma):
        return False
    first = node.lpar.whitespace_after
    return isinstance(first, cst.ParenthesizedWhitespace) and all(
        isinstance(a.comma, cst.Comma) and isinstance(a.comma.whitespace_after, cst.ParenthesizedWhitespace)
        for a in names[:-1]
    )


def _with_closing_line(node: cst.ImportFrom) -> cst.ImportFrom:
    names = list(cast("tuple[cst.ImportAlias, ...]", node.names))
    line = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(""))
    names[-1] = names[-1].with_changes(comma=cst.Comma(whitespace_after=line))
    return node.with_changes(names=names)


def _plain_removal(module: cst.Module, orphaned: list, words: set) -> cst.Module | None:
    """What RemoveImportsVisitor makes of `module` for the `orphaned` imports, without it (its
    package loads `libcst.matchers`, a quarter of a second, and its scope analysis costs more),
    where nothing but an import's own alias can keep one of `words` alive: no string the visitor
    reads as code mentions one (a string annotation, an `__all__` entry: core.fix.read_strings;
    a docstring or a log message it never reads), and every import binding one is a line of
    that import alone, at the top level or in a block (the SDK imported under `try:`; issue 37:
    the visitor's package and scope analysis were 0.3-1.3 s of four corpus projects' checks).
    The aliases are then unused by any measure (name_uses counted none), and they are removed
    as the visitor removes them: a trailing comma dropped, a comment after a removed alias's
    comma kept on the alias before it (or the opening parenthesis), a line left empty
    deleted. None where those conditions do not hold: the visitor decides."""
    if any(mod == "__future__" for _, mod, _, _ in orphaned):
        return None
    if read_string_mentions(module, words):
        return None
    below: dict = {}  # index of a top-level statement -> its lines of one import binding a word
    for index, facts in enumerate(module_facts(module)):  # each read once across the passes
        if facts.generic or any(_binds(node) & words for node in facts.nested_imports):
            return None
        mine = [line for line in facts.nested_lines if _binds(line.body[0]) & words]
        if mine:
            below[index] = mine
    lines = [index for index, stmt in enumerate(module.body) if line_import(stmt) is not None]
    modules = {mod: asname for _, mod, obj, asname in orphaned if obj is None}
    objects: dict = {}
    for _, mod, obj, asname in orphaned:
        if obj is not None:
            objects.setdefault(mod, set()).add((obj, asname))
    body: list = list(module.body)  # the lines of one import (`lines`) are SimpleStatementLines
    for index, mine in below.items():
        body[index] = _without_in_blocks(body[index], mine, modules, objects)
    for index in reversed(lines):
        new = _line_without(body[index], modules, objects)
        if new is None:
            del body[index]
        else:
            body[index] = new
    return module.with_changes(body=body)


def _line_without(line: cst.SimpleStatementLine, modules: dict, objects: dict):
    """A line of one import without the scheduled aliases: None where none is left, `line`
    itself where none went."""
    small = line.body[0]
    if isinstance(small, cst.Import):
        new = _without_module_aliases(small, modules)
    else:
        new = _without_object_aliases(cast(cst.ImportFrom, small), objects)
    if new is None or new is small:
        return None if new is None else line
    return line.with_changes(body=[new])


def _without_in_blocks(statement, lines: list, modules: dict, objects: dict):
    """A top-level statement with its `lines` of one import (in blocks below it: a `try:`, an
    `if TYPE_CHECKING:`, a function) edited as RemoveImportsVisitor edits them: the scheduled
    aliases gone, a line left without one removed from its block (which LibCST writes as
    `pass` where nothing is left). Nothing but the aliases uses the words anywhere in the
    module (`_plain_removal`), so which scope a line is in does not matter."""
    edits = {}
    for line in lines:
        new = _line_without(line, modules, objects)
        if new is not line:
            edits[id(line)] = cst.RemoveFromParent() if new is None else new
    return statement.visit(StatementsReplaced(edits)) if edits else statement


def _binds(node) -> set:
    """The names an import statement binds (none for a star or relative import)."""
    if isinstance(node, cst.ImportFrom) and (node.relative or isinstance(node.names, cst.ImportStar)):
        return set()
    if isinstance(node, cst.Import):
        return {_asname(a) or code_of(a.name).partition(".")[0] for a in node.names}
    return {_asname(a) or code_of(a.name) for a in node.names}


def _without_module_aliases(node: cst.Import, modules: dict):
    """`import a, b` without the scheduled modules (None: nothing left; `node`: unchanged)."""
    names = list(node.names)
    keep = [a for a in names if not (a.evaluated_name in modules and a.evaluated_alias == modules[a.evaluated_name])]
    return _kept(node, names, keep, {})


def _without_object_aliases(node: cst.ImportFrom, objects: dict):
    """`from m import a, b` without the scheduled names, as RemoveImportsVisitor does it."""
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return node
    wanted = objects.get(code_of(node.module))
    if not wanted:
        return node
    names = list(node.names)
    keep: list = []
    updates: dict = {}
    for alias in names:
        if (alias.evaluated_name, alias.evaluated_alias) not in wanted:
            keep.append(alias)
            continue
        comma = alias.comma
        if not isinstance(comma, cst.Comma):
            continue
        if keep:  # a comment after the removed alias's comma moves to the alias before it
            prev = keep[-1]
            if isinstance(prev.comma, cst.Comma):
                merged = _merge_after(prev.comma.whitespace_after, comma.whitespace_after)
                prev = prev.with_deep_changes(prev.comma, whitespace_after=merged)
            else:
                prev = prev.with_changes(comma=comma)
            keep[-1] = prev
        elif isinstance(node.lpar, cst.LeftParen):
            lpar = updates.get("lpar", node.lpar)
            updates["lpar"] = lpar.with_changes(
                whitespace_after=_merge_after(lpar.whitespace_after, comma.whitespace_after)
            )
    return _kept(node, names, keep, updates)


def _kept(node, names: list, keep: list, updates: dict):
    if len(keep) == len(names) and all(a is b for a, b in zip(keep, names)) and not updates:
        return node
    if not keep:
        return None
    if keep[-1] is not names[-1]:  # no trailing comma left behind by a removed last name
        keep = [*keep[:-1], keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return node.with_changes(names=keep, **updates)


def _merge_after(left, right):
    """The whitespace after a kept comma when the next alias goes: its own, with the comment
    lines the removed one's comma carried."""
    if not isinstance(right, cst.ParenthesizedWhitespace):
        return left
    if not isinstance(left, cst.ParenthesizedWhitespace):
        return right
    return left.with_changes(empty_lines=tuple(line for line in right.empty_lines if line.comment is not None))


def _remove_imports(context, module: cst.Module, words: set) -> cst.Module:
    """RemoveImportsVisitor's result for the imports scheduled in `context`, computed on the
    top-level statements that can matter, then put back in place. Its scope analysis costs
    seconds per 100 KB of module; whether an import is in use depends only on the statements
    that hold an import or mention a name it binds (`words`: as a Name, or inside a string,
    which may be an annotation or an `__all__` entry; `import a.b` binds `a`, and every use of
    `a.b` mentions `a`), so the others are left out of the analysis."""
    from libcst.codemod.visitors import RemoveImportsVisitor

    relevant = [index for index, stmt in enumerate(module.body) if _may_touch_imports(stmt, words)]
    if len(relevant) == len(module.body):
        return RemoveImportsVisitor(context).transform_module(module)
    visitor = _top_level_remover()(context)
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
        if kind is cst.Name and cast(cst.Name, node).value in words:  # (exact types tested: `kind`)
            return True
        if kind is cst.SimpleString or kind is cst.FormattedStringText:
            text = cast("cst.SimpleString | cst.FormattedStringText", node).value
            if any(w in text for w in words):
                return True
    return False


@lru_cache(maxsize=1)
def _top_level_remover() -> type:
    """RemoveImportsVisitor that also records what each top-level statement became
    (`results`, by position), so the caller can put the statements back into the module
    they were taken from. Made on first use (LibCST's codemod package is slow to import)."""
    from libcst.codemod.visitors import RemoveImportsVisitor

    class TopLevelRemoveImports(RemoveImportsVisitor):
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

    return TopLevelRemoveImports


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
