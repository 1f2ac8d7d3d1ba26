"""Generic syntax questions every rule and rewrite asks: source text of a node, literal values,
call arguments, parents, references and module-level bindings. Nothing here knows about Roots
(that vocabulary lives in `mcp_migrate.vocabulary.wire`)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import TypeVar, overload

import libcst as cst

from mcp_migrate.core.messages import shorten
from mcp_migrate.core.walk import Walked, children, index_tree

_EMPTY = cst.Module([])


def code_of(node: cst.CSTNode) -> str:
    """A node's source text (for messages and for comparing small snippets)."""
    return _EMPTY.code_for_node(node)


def short(node: cst.CSTNode, limit: int = 50) -> str:
    return shorten(code_of(node), limit)


def literal(expr: cst.CSTNode | None) -> str | None:
    """The value of a plain string literal (implicit concatenation included), else None.
    Linear in the number of pieces: a concatenation's pieces are walked once, without
    recursion (thousands of pieces nest thousands deep)."""
    if isinstance(expr, cst.SimpleString):
        return _simple_value(expr)
    if not isinstance(expr, cst.ConcatenatedString):
        return None
    parts: list[str] = []
    stack: list[cst.BaseExpression] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ConcatenatedString):
            stack.extend((node.right, node.left))
            continue
        value = _simple_value(node) if isinstance(node, cst.SimpleString) else None
        if value is None:
            return None
        parts.append(value)
    return "".join(parts)


def _simple_value(expr: cst.SimpleString) -> str | None:
    plain = plain_value(expr.value)
    if plain is not None:
        return plain
    if "b" in expr.prefix.lower():
        return None
    try:
        value = expr.evaluated_value  # compiles the literal: about 5 us each
    except Exception:
        return None
    return value if isinstance(value, str) else None


def plain_value(text: str) -> str | None:
    """A str literal's value read from its text (`text`: a SimpleString's `value`) where no
    evaluation can change it: no prefix but `r` or `u`, no backslash, CR or NUL in it. Then
    the body between the quotes is what `evaluated_value` gives; None where it must decide
    (escapes, bytes, a CR the compiler would translate, a NUL it refuses)."""
    if "\\" in text or "\r" in text or "\0" in text:
        return None
    body = text.lstrip("rRuU")
    if len(text) - len(body) > 1 or body[:1] not in ("'", '"') or body[:1] != body[-1:]:
        return None
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    return body[len(quote) : -len(quote)] if len(body) >= 2 * len(quote) else None


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list:
    return [a for a in call.args if a.keyword is None and not a.star]


def method_name(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def is_false_or_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("False", "None")


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Pre-order walk over `node` and the syntax nodes below it (no whitespace/punctuation)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


_PARENT_MAPS: dict = {}


def parent_map(root: cst.CSTNode) -> dict:
    """id(child) -> parent for every syntax node below `root` (the last few maps are kept:
    one rewrite asks for the same function's map several times). A whole module's map is
    kept by the file's ModuleIndex, so no file's tree outlives its check in this cache."""
    cached = _PARENT_MAPS.get(id(root))
    if cached is not None and cached[0] is root:
        return cached[1]
    parents = parents_below(root)
    if len(_PARENT_MAPS) > 8:
        _PARENT_MAPS.clear()
    _PARENT_MAPS[id(root)] = (root, parents)
    return parents


def parents_below(root: cst.CSTNode) -> dict:
    """id(child) -> parent for every syntax node below `root`, built now."""
    parents = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents


class ModuleIndex:
    """One module's whole-tree indexes, built together by one walk on first use (or taken from
    the rules' walk, when it is over first) and kept with the file's work (its FileContext,
    then its Analysis): the rewrites, the positions and the previews of one file share them,
    and a rewrite asking once per finding (1,889 findings in one 1.26 MB module) never walks
    the module again."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module

    def learn(self, walked: Walked) -> None:
        """Take the indexes the rules' walk of this module built on its way (core.walk), when
        nothing asked for them during it: what asks later walks nothing again."""
        self.__dict__.setdefault("_walked", walked)

    @cached_property
    def _walked(self) -> Walked:
        return index_tree(self.module)

    @property
    def parents(self) -> dict:
        """id(node) -> parent for every syntax node of the module."""
        return self._walked.parents

    @property
    def _by_kind(self) -> dict:
        return self._walked.by_kind

    @cached_property
    def _names(self) -> dict:
        by_value: dict = {}
        for node in self._by_kind.get(cst.Name, ()):
            by_value.setdefault(node.value, []).append(node)
        return by_value

    def nodes(self, kind: type) -> list:
        """The module's syntax nodes of exactly type `kind`, in source order."""
        return self._by_kind.get(kind, [])

    def names_called(self, value: str) -> list:
        """The module's `Name` nodes that spell `value`, in source order."""
        return self._names.get(value, [])


def is_reference(node: cst.Name, parent: cst.CSTNode | None) -> bool:
    """A Name that reads or writes a variable (not an attribute, keyword, or definition name)."""
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, (cst.Arg,)) and parent.keyword is node:
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
        return False
    if isinstance(parent, (cst.ImportAlias, cst.AsName)):
        return False
    if isinstance(parent, cst.Param) and parent.name is node:
        return False
    return True


def parse_expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def parse_stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


def module_binding(module: cst.Module, name: str):
    """What a module-level `def name` or `name = value` binds: the FunctionDef or the value."""
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    return small.value
    return None


_Node = TypeVar("_Node", bound=cst.CSTNode)
_Other = TypeVar("_Other", bound=cst.CSTNode)


@overload
def enclosing(ancestors: list, kinds: type[_Node]) -> _Node | None: ...
@overload
def enclosing(ancestors: list, kinds: tuple[type[_Node], type[_Other]]) -> _Node | _Other | None: ...
@overload
def enclosing(ancestors: list, kinds: tuple[type, ...]) -> cst.CSTNode | None: ...
def enclosing(ancestors: list, kinds) -> cst.CSTNode | None:
    """The innermost of `ancestors` of one of `kinds` (a node class, or a tuple of them)."""
    for node in reversed(ancestors):
        if isinstance(node, kinds):
            return node
    return None


def statement_of(node: cst.CSTNode, parents: dict) -> cst.SimpleStatementLine | cst.BaseCompoundStatement | None:
    """The statement that holds `node` (a line of small statements, or a compound statement).
    `parents`: id(node) -> parent."""
    here: cst.CSTNode | None = node
    while here is not None:
        if isinstance(here, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return here
        here = parents.get(id(here))
    return None


def sole_small(statement: cst.CSTNode | None) -> cst.BaseSmallStatement | None:
    """The small statement of a line that holds only it (`x = 1`, not `x = 1; y = 2`), or None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def attribute_root(expr: cst.BaseExpression) -> str | None:
    """The name an attribute chain starts from: `ctx` in `ctx.request_context.session`,
    `settings` in `settings.allowed_directories`; None for anything but a chain on a name."""
    if not isinstance(expr, cst.Attribute):
        return None
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def all_params(params: cst.Parameters) -> list:
    """A function's named parameters: positional-only, regular and keyword-only."""
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def required_params(params: cst.Parameters) -> list:
    """The named parameters a call must pass (no default; `*args`/`**kwargs` never are)."""
    return [p for p in all_params(params) if p.default is None]


def docstring_text(statement: cst.CSTNode | None) -> str | None:
    """The text of a statement that is a string literal alone (a docstring, when it comes
    first), or None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = small.value if isinstance(small, cst.Expr) else None
    text = value.evaluated_value if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)) else None
    return text if isinstance(text, str) else None


def is_docstring(statement: cst.CSTNode) -> bool:
    """A statement that is a string literal alone: a module's, class's or function's docstring
    when it comes first."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def ancestry(node: cst.CSTNode, parents: dict) -> list:
    """The nodes from the root of `parents` (id(node) -> parent, as parents_below makes it) down
    to `node` itself."""
    chain = [node]
    while id(chain[-1]) in parents:
        chain.append(parents[id(chain[-1])])
    chain.reverse()
    return chain


def name_paths(func: cst.FunctionDef, name: str) -> list:
    """The ancestry (from `func` down, core.syntax.ancestry) of every Name `name` in the
    function's body, bindings included: where a local is read or bound, with what holds it."""
    parents = parent_map(func)
    return [ancestry(n, parents) for n in iter_nodes(func.body) if isinstance(n, cst.Name) and n.value == name]


def is_call_of(ref: cst.Name, parents: dict) -> bool:
    """Whether the name `ref` is what a call calls: `name(...)` or `x.name(...)`."""
    parent = parents.get(id(ref))
    if isinstance(parent, cst.Call) and parent.func is ref:
        return True
    if isinstance(parent, cst.Attribute) and parent.attr is ref:
        grand = parents.get(id(parent))
        return isinstance(grand, cst.Call) and grand.func is parent
    return False
