"""A definition read alone (core.partial): the syntax screens of one top-level function or
class with the module's statements around it that it can read, and the names a statement
spells. A definition on which no left rule's screen holds so, and that nothing kept points at,
is left out of a huge test module's partial parse."""

from __future__ import annotations

import ast
from typing import Any

from mcp_migrate.core.ast_nodes import DEFINITIONS, index_nodes
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.screen import Syntax
from mcp_migrate.core.sdk import mcp_module


class Indexed:
    """Each definition's nodes by kind (core.ast_nodes.index_nodes), walked once for every question
    the partial parse asks of it: its syntax screens read alone, the names it spells, the
    attributes it keeps (issue 37: a 1.26 MB test module's 531 definitions were walked four
    times each)."""

    def __init__(self) -> None:
        self._by: dict = {}

    def of(self, stmt: ast.stmt) -> dict:
        """The nodes of `stmt` (a statement of the tree being read: kept by its id) by kind."""
        found = self._by.get(id(stmt))
        if found is None:
            found = self._by[id(stmt)] = index_nodes(stmt)
        return found


def screened_alone(tree: ast.Module, data: bytes, path: str, rules, settings, indexed: Indexed | None = None):
    """Whether a left rule's syntax screen (core.screen) holds on a definition read alone with
    the module's statements outside definitions (its settings, and the imports it can read:
    `_imports_spelled`): where a rule's evidence lies, by the rule's own reasoning (a `root_uri`
    parameter parsed with urlparse, a `"file"` scheme test, a call of an imported helper that
    asks), not by a word. The definition's index (`indexed`) is the module's read alone, with
    the imports' nodes after it, in the order `Syntax` would walk that module."""
    context = [stmt for stmt in tree.body if not isinstance(stmt, DEFINITIONS)]
    around = set().union(*(names_read(stmt) for stmt in context if type(stmt) not in _IMPORTS))
    indexed = Indexed() if indexed is None else indexed

    def holds(stmt: ast.stmt) -> bool:
        own = indexed.of(stmt)
        spelled = around | names_read(stmt, inside_strings=True, index=own)
        narrowed = [part for part in (_imports_spelled(node, spelled) for node in context) if part is not None]
        module = ast.Module(body=[*narrowed, stmt], type_ignores=[])
        by: dict = {ast.Module: [module]}
        by.update((kind, list(found)) for kind, found in own.items())
        for node in reversed(narrowed):  # the walk's stack takes the module's last statement first
            index_nodes(node, by)
        syntax = Syntax(module, data, path, index=by)
        return any(rule.screen_tree(syntax, settings) for rule in rules)

    return holds


_IMPORTS = (ast.Import, ast.ImportFrom)


_WORD = lazy_compile(r"[^\W\d]\w*")


def _imports_spelled(node: ast.stmt, spelled: set) -> ast.stmt | None:
    """A top-level import statement with only the names in `spelled` (what the definition read
    alone and the module's other statements spell), or None where it binds none of them; any
    other statement as it is. A name the definition cannot read cannot carry its findings, while
    kept, an import of a helper that asks made every definition of a test module stay (issue
    37: the tests of a gateway import its services, and each test calls a few). What is evidence
    of MCP code whatever it binds (an import from an MCP module, core.sdk.mcp_module: `import
    mcp`), a star and a `__future__` import stay whole."""
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if module == "__future__" or mcp_module(module) or any(alias.name == "*" for alias in node.names):
            return node
        names = [alias for alias in node.names if (alias.asname or alias.name) in spelled]
        narrowed: ast.stmt = ast.ImportFrom(node.module, names, node.level)
    elif isinstance(node, ast.Import):
        names = [
            alias
            for alias in node.names
            if mcp_module(alias.name) or (alias.asname or alias.name.partition(".")[0]) in spelled
        ]
        narrowed = ast.Import(names)
    else:
        return node
    if len(names) == len(node.names):
        return node
    return ast.copy_location(narrowed, node) if names else None


def names_read(stmt: Any, inside_strings: bool = False, index: dict | None = None) -> set:
    """Every identifier a statement spells as a name, an attribute or a string: wider than a
    use, as a name can reach a function (`getattr(module, "name")`). With `inside_strings`, the
    identifiers inside its strings too (a string annotation `"Client | None"` reads `Client`).
    `index`: the statement's nodes by kind, where the caller has them (`Indexed`)."""
    by = index_nodes(stmt) if index is None else index
    found = {node.id for node in by.get(ast.Name, ())}
    found.update(node.attr for node in by.get(ast.Attribute, ()))
    for node in by.get(ast.Constant, ()):
        value = node.value
        if type(value) is str:
            if value.isidentifier():
                found.add(value)
            if inside_strings:
                found.update(_WORD.findall(value))
    return found
