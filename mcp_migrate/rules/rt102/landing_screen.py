"""Where an assembled `file://` URI lands, on the standard library's nodes: RT102's syntax
screen asks `vocabulary.lands_in_root`'s question before LibCST reads the file.

Why: an assembled URI (`f"file://{p}"`, `"file://" + p`, `"file://{}".format(p)`) is RT102's
only where it becomes a root, and a file that names a root somewhere is not enough to say so.
A gateway's test modules build resources' URIs the same way (`ResourceCreate(uri=f"file:///
res{i}.txt")`) and say "root" elsewhere; three of them (590 KB) were parsed with LibCST for no
finding (issue 37). The walk here is the rule's, upwards from the URI to its statement: a
root-named call, keyword or `"roots"` entry; a comparison with a root-named operand; an
assignment to a root-named target, or to a plain local one of whose uses in the same function
lands so (the rule's one step of flow). Where the rule follows further than its statement, the
screen says yes: a value returned (the function's name, annotations and callers decide), a
module-level local, a tree whose columns are not the file's."""

from __future__ import annotations

import ast

from mcp_migrate.core.identifiers import words
from mcp_migrate.core.screen import holds, last_identifier, statements_in, string


def says_root(name: str | None) -> bool:
    """An identifier whose words name a root or roots (`roots`, `ClientRoot`, `root_uri`,
    `_make_list_roots_result`, `mock_root`)."""
    if not name:
        return False
    return bool({"root", "roots"} & set(words(name)))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Where the rule's walk upwards stops with no root: a statement, a lambda's body.
_STOPS = (ast.stmt, ast.Lambda, ast.excepthandler, ast.match_case)


def lands_in_root_somewhere(syntax, nodes) -> bool:
    """Whether any of `nodes` (assembled URIs of `syntax`'s tree) may become a root."""
    if not syntax.exact:
        return bool(nodes)  # its columns are not the file's: no statement can be told apart
    parents_of: dict = {}  # id(scope) -> parent map of the scope (a function, or the module)
    for node in nodes:
        scope = _scope_of(syntax.tree, node)
        parents = parents_of.get(id(scope))
        if parents is None:
            parents = parents_of[id(scope)] = _parents(scope)
        if node not in parents:
            return True  # positions that lead elsewhere (a nested f-string's, before 3.12)
        function = _function_of(node, parents) or scope

        def follow(name: str, function=function, parents=parents) -> bool:
            return _local_lands(function, name, parents)

        if _lands(node, parents, follow):
            return True
    return False


def _function_of(node, parents: dict):
    """The innermost function around `node` within the parent map (the rule's `_function_of`)."""
    here = parents.get(node)
    while here is not None and here.__class__ not in _DEFS:
        here = parents.get(here)
    return here


def _lands(node, parents: dict, follow=None) -> bool:
    """`vocabulary.lands_in_root` on `ast` nodes, upwards from `node`; `follow(name)` for a plain
    local the value is assigned to."""
    child, here = node, parents.get(node)
    while here is not None:
        kind = here.__class__
        if kind is ast.Call and says_root(last_identifier(here.func)):
            return True
        if kind is ast.keyword and says_root(here.arg):
            return True
        if kind is ast.Dict:
            for key, value in zip(here.keys, here.values):
                if value is child and key is not None and says_root(string(key)):
                    return True
        elif kind is ast.Compare:
            return any(_names_root(op) for op in (here.left, *here.comparators) if op is not child)
        elif kind is ast.Assign or kind is ast.AnnAssign:
            targets = here.targets if kind is ast.Assign else [here.target]
            if any(_names_root(target) for target in targets):
                return True
            plain = [target.id for target in targets if target.__class__ is ast.Name]
            return follow is not None and any(follow(name) for name in plain)
        elif kind is ast.Return:
            return True  # the rule asks the function (its name, annotations, callers)
        elif isinstance(here, _STOPS):
            return False
        child, here = here, parents.get(here)
    return False


def _names_root(expr) -> bool:
    """`vocabulary.names_root` on `ast` nodes: a name, attribute, keyword or parameter whose
    words name a root, or a string saying "root" (any spelling of it: a superset of the rule's
    words, so the screen never says no where the rule could say yes)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            found = says_root(node.id)
        elif isinstance(node, ast.Attribute):
            found = says_root(node.attr)
        elif isinstance(node, (ast.keyword, ast.arg)):
            found = says_root(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = "root" in node.value.lower()
        else:
            continue
        if found:
            return True
    return False


def _local_lands(scope, name: str, parents: dict) -> bool:
    """The rule's one step of flow (`_local_lands_in_root`): a use of the local `name` in the
    same function (`scope`; a module-level local: the screen says yes) that lands in a root.
    A use is every spelling of the name the rule's index keeps: a name read, an attribute's or
    a keyword's name, but not a target the name is assigned to."""
    if scope.__class__ not in _DEFS:
        return True
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFS):
            continue  # another function's uses (`_function_of` differs)
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Name):
            used = node.id == name and not _assigned(node, parents)
        elif isinstance(node, ast.Attribute):
            used = node.attr == name
        elif isinstance(node, ast.keyword):
            used = node.arg == name
        else:
            continue
        if used and _lands(node, parents):
            return True
    return False


def _assigned(node: ast.Name, parents: dict) -> bool:
    holder = parents.get(node)
    return holder.__class__ is ast.Assign and any(target is node for target in holder.targets)


def _scope_of(tree: ast.Module, node):
    """The innermost function whose code holds `node` (its signature and body, not its
    decorators: the rule's `_function_of` on the statement the node is in), else the module;
    found by positions, statement by statement."""
    scope: ast.AST = tree
    statements: list = tree.body
    where = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    while statements:
        holder = next((s for s in statements if holds(s, where)), None)
        if holder is None:
            break
        if holder.__class__ in _DEFS:
            scope = holder
        statements = statements_in(holder)
    return scope


def _parents(scope) -> dict:
    """node -> its parent, for every node under `scope` (a function or the module)."""
    return {child: parent for parent in ast.walk(scope) for child in ast.iter_child_nodes(parent)}
