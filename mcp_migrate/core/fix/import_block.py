"""The module's top import block: isort's order of its lines and sections, and the imports a
fix needs added where an isort-style tool would put them (merged into a `from m import ...`
already there, else a new line in its section). LibCST's AddImportsVisitor places one only
where the module has no top import block: importing `libcst.codemod` costs a quarter of a
second, which a preview that adds an import beside others must not pay."""

from __future__ import annotations

import sys
from functools import lru_cache

import libcst as cst

from mcp_migrate.core.fix.shared_statements import per_node, per_statement
from mcp_migrate.core.syntax import code_of
from mcp_migrate.core.walk import children


def add_imports(module: cst.Module, imports: list) -> cst.Module:
    """Add what the edits need where an isort-style tool would put it: into an existing
    `from m import ...` (names in order, its one-per-line layout kept), else as a new line in
    its section of the top import block; a name any module-level import already binds (a
    conditional one included) is not imported twice. Without a top import block, LibCST's
    AddImportsVisitor places it."""
    leftover = []
    original = module
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
        return separate_sections(module, original)
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    context = CodemodContext()
    for mod, name in leftover:
        AddImportsVisitor.add_needed_import(context, mod, name)
    return AddImportsVisitor(context).transform_module(module)


def unconditional_import_names(module: cst.Module) -> set:
    """Names the module's imports bind on every platform and version (see
    `_module_import_bindings`): what a fix may use without importing it again."""
    return _module_import_bindings(module)


def _module_import_bindings(module: cst.Module) -> set:
    """Names bound by imports outside functions and classes: inside try/except included (one
    branch or the other binds), inside an `if` only when every branch binds the name (an import
    under `if os.name == "nt":` is unbound elsewhere, issue 20 §4). The module's are its
    statements' together, each statement's remembered across a file's preview passes."""
    names: set = set()
    for found in per_statement("bindings", module, _import_bindings):
        names |= found
    return names


def _import_bindings(node: cst.CSTNode) -> set:
    """A walk of the statements only (an expression holds no import), not LibCST's visitor,
    which rebuilds every node it passes: each added import of each preview asks this."""
    names: set = set()
    stack: list = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ImportAlias):
            names.add(node.evaluated_alias or node.evaluated_name.partition(".")[0])
        elif isinstance(node, cst.If):
            if node.orelse is not None:
                names.update(_import_bindings(node.body) & _import_bindings(node.orelse))
        elif not isinstance(node, (cst.BaseExpression, cst.FunctionDef, cst.ClassDef)):
            stack.extend(children(node))
    return names


def _top_imports(module: cst.Module) -> list:
    """(index in module.body, statement, sort key) of the import lines at the top of the
    module (after the docstring and `from __future__`), up to the first other statement."""
    out = []
    for index, stmt in enumerate(module.body):
        small, key = per_node("top import", stmt, _import_line)
        if key is not None:
            out.append((index, stmt, key))
            continue
        if index == 0 and small is not None and isinstance(small, cst.Expr):
            continue  # the docstring
        break
    return out


def _import_line(stmt: cst.BaseStatement) -> tuple:
    """(the statement's one small statement or None, its import sort key or None)."""
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    return small, _import_key(small) if isinstance(small, (cst.Import, cst.ImportFrom)) else None


def _import_key(small) -> tuple:
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
    names = getattr(sys, "stdlib_module_names", None)
    if names is None:  # Python < 3.10: the modules this package ever imports
        names = {"os", "pathlib", "typing", "urllib", "sys", "asyncio", "json", "re"}
    return frozenset(names)


def _merge_into_from(module: cst.Module, mod: str, name: str) -> cst.Module | None:
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


@lru_cache(maxsize=256)
def _import_statement(text: str) -> cst.SimpleStatementLine:
    """The parsed import line (nodes are immutable: each preview pass may insert the same)."""
    stmt = cst.parse_statement(text)
    if not isinstance(stmt, cst.SimpleStatementLine):
        raise TypeError(f"not an import line: {text!r}")
    return stmt


def _member_key(name: str) -> tuple:
    """isort's order-by-type for imported names: CONSTANTS, Classes, functions."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def _insert_sorted(module: cst.Module, mod: str, name: str | None) -> cst.Module | None:
    """A new import line at its place in the top import block, a blank line between sections."""
    block = _top_imports(module)
    if not block:
        return None
    new = _import_statement(f"from {mod} import {name}\n" if name else f"import {mod}\n")
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


def separate_sections(module: cst.Module, before: cst.Module | None = None) -> cst.Module:
    """One blank line between import sections at the top of the module (removing or adding an
    import can take away or leave out the line that separated two sections), unless the module
    as it was (`before`) writes its sections together (mcp-devtools' `from typing import ...`
    straight above `from mcp.server import Server`): its style is kept."""
    if before is not None and _sections_together(before):
        return module
    block = _top_imports(module)
    if any(a[2][0] > b[2][0] for a, b in zip(block, block[1:])):
        return module  # sections out of order already: not ours to rearrange
    body = list(module.body)
    changed = False
    for index, stmt in _section_starts(block):
        if not _blank_above(stmt):
            body[index] = stmt.with_changes(leading_lines=[cst.EmptyLine(), *stmt.leading_lines])
            changed = True
    return module.with_changes(body=body) if changed else module


def _sections_together(module: cst.Module) -> bool:
    """Whether the module's top import block has two sections next to each other and no blank
    line between any two sections."""
    starts = _section_starts(_top_imports(module))
    return bool(starts) and not any(_blank_above(stmt) for _, stmt in starts)


def _section_starts(block: list) -> list:
    """(index, statement) of each line of a top import block that starts a new section."""
    return [(index, stmt) for (_, _, previous), (index, stmt, key) in zip(block, block[1:]) if previous[0] != key[0]]


def _blank_above(stmt: cst.SimpleStatementLine) -> bool:
    return any(line.comment is None for line in stmt.leading_lines)
