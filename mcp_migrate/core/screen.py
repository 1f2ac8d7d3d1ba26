"""The syntax screen: a file that passed the byte screens, read with the standard library's
parser (`ast`, about ten times faster than LibCST on the same bytes) into an index of what its
code calls, names and spells. Each rule's `screen_tree` (core.rule) asks that index whether the
rule's finding can be in the file: only the rules that can report run, and a file none of them
can report on is never handed to LibCST.

A screen is a shortcut and must never lose a finding: it answers with the same reasoning its
rule applies, at the level of names, calls, keywords and literals (no positions, no fixes),
and whatever the index cannot tell it lets through. What the index holds is code only: a word
in a comment or the name of a module in a docstring is not in it. `tests/test_screens.py`
checks every screen against every fixture and rule example, `benchmarks/run.py --lossless`
against the development corpus."""

from __future__ import annotations

import ast
import re
import sys
import warnings
from functools import cached_property

from mcp_migrate.core.ast_nodes import DEFINITIONS, child_nodes, index_nodes
from mcp_migrate.core.collector import collector_paused
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.sdk import mcp_module


def read(data: bytes, path: str = "", view=None, keep: bool = True) -> Syntax | None:
    """The index of a file's code, or None when the standard library's parser cannot read it
    (a syntax error, syntax newer than this Python, a bad coding cookie, nesting beyond its
    limits): then no screen can answer and every rule the byte screens let through runs.
    Before Python 3.12 a module with `type` alias statements is read with each one as the
    assignment it is to the screens (`Syntax.exact` is then False). With the run's `view`
    (core.project_view), the reading another reader of the same bytes made is served
    (`ProjectView.kept_reading`), as seen from `path`, and one made now is kept for the next
    reader unless `keep` is False: a file's own screens, whose readings hardly any other
    reader asks for (issue 37: 1 of the 22 a gateway's screens kept; fast-agent's 18 kept,
    566 KB of source, were 21 MB of its 101 MB peak, and none was asked for again)."""
    if view is None:
        return _read(data, path)
    found = view.kept_reading(data, lambda: _read(data, path), keep)
    return found if found is None or found.path == path else found.at(path)


def kept_tree(data: bytes, view) -> ast.Module | None:
    """The tree of `data` that a reading the `view` keeps (`read`) holds, where it reads the
    file as it is (`Syntax.exact`); else None, and the caller parses the bytes itself."""
    found = view.kept_reading(data)
    return found.tree if found is not None and found.exact else None


def _read(data: bytes, path: str) -> Syntax | None:
    tree = parsed(data)
    if tree is not None:
        return Syntax(tree, data, path)
    tree = read_aliases_assigned(data)
    return None if tree is None else Syntax(tree, data, path, exact=False)


def read_aliases_assigned(source: bytes | str) -> ast.Module | None:
    """`ast`'s tree of a module this Python's parser refuses, read with each `type` alias
    statement as the assignment it is (before 3.12; None where there is none, or it does not
    help): its lines are the file's, its columns on an `alias_line` are not."""
    if TYPE_ALIASES_READ:
        return None
    if isinstance(source, str):
        text, count = _TYPE_ALIAS_TEXT.subn(r"\1", source) if "type" in source else (source, 0)
        return parsed(text) if count else None
    data, count = _TYPE_ALIAS.subn(rb"\1", source) if b"type" in source else (source, 0)
    return parsed(data) if count else None


#: Whether this Python's parser reads PEP 695's `type Name = value` statement (3.12 and later).
TYPE_ALIASES_READ = sys.version_info >= (3, 12)
#: The start of a `type` alias statement on its own line (`type Name = ...`, `type Name[T] = ...`):
#: two names side by side, which no code before Python 3.12 can hold. fast-agent's modules
#: are full of them, and on Python 3.11 each such module went to LibCST with every rule its
#: bytes let through (4 of the 6 modules it parsed without a finding).
_TYPE_ALIAS = lazy_compile(rb"(?m)^([ \t]*)type[ \t]+(?=[A-Za-z_][A-Za-z0-9_]*[ \t]*[=\[])")
_TYPE_ALIAS_TEXT = lazy_compile(_TYPE_ALIAS.pattern.decode("ascii"))


def alias_line(line: bytes | str) -> bool:
    """Whether `line` begins a `type` alias statement: one whose columns a tree `read` made
    inexact are not the file's (`Syntax.exact`); every other line's are."""
    if isinstance(line, str):
        return _TYPE_ALIAS_TEXT.match(line) is not None
    return _TYPE_ALIAS.match(line) is not None


def parsed(data: bytes | str) -> ast.Module | None:
    """`ast`'s tree of `data`, or None where the parser refuses it."""
    try:
        with collector_paused(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `"\d"` and friends: the parser's business, not ours
            return ast.parse(data)
    except Exception:  # noqa: BLE001 - SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError
        return None


class Syntax:
    """What one file's code holds: its nodes by kind, and the identifiers and strings of its
    code; `path` is the file's (a screen may look beside it: RT001's imported helpers);
    `outer`, the module's Syntax where this one reads a definition alone.
    `exact` is False where `tree` was read from the file with its `type` alias statements
    turned into assignments (`read`): its names, calls, literals and lines are the file's, its
    columns on those lines are not, so no position is taken from it."""

    def __init__(
        self, tree: ast.Module, data: bytes, path: str = "", exact: bool = True, outer=None, index: dict | None = None
    ) -> None:
        self.tree, self.data, self.path, self.exact = tree, data, path, exact
        #: For a definition read alone (`helper_screens.doing_words`), its module's Syntax: what
        #: the module imports and binds around it. Else None.
        self.outer = outer
        #: `index`: `index_nodes(tree)`, where the caller made it from parts it had indexed already
        #: (core.alone: a definition read alone with the imports it can read).
        self._by = index_nodes(tree) if index is None else index

    def at(self, path: str) -> Syntax:
        """This reading as the screens of the file `path` see it: the same tree, index and
        answers worked out so far (none of them depends on the path)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.path = path
        return other

    def of(self, *kinds: type) -> list:
        """The nodes of these kinds (in no particular order)."""
        if len(kinds) == 1:
            return self._by.get(kinds[0], [])
        return [node for kind in kinds for node in self._by.get(kind, ())]

    # ----- words of the code ------------------------------------------------------------------
    @cached_property
    def strings(self) -> frozenset:
        """Every str literal's value (implicit concatenation joined, as LibCST's literal())."""
        return frozenset(node.value for node in self.of(ast.Constant) if node.value.__class__ is str)

    @cached_property
    def _string_text(self) -> str:
        """The text `mentions` searches besides identifiers: every str literal but a statement's
        lone string (a docstring), which no code reads or resolves (issue 37: Dev10x's lifespan,
        whose docstring names ``RootsListChangedNotification``, was parsed for RT005)."""
        alone = {id(node.value) for node in self.of(ast.Expr)}
        return "\0".join(
            {node.value for node in self.of(ast.Constant) if node.value.__class__ is str and id(node) not in alone}
        )

    @cached_property
    def names(self) -> frozenset:
        return frozenset(node.id for node in self.of(ast.Name))

    @cached_property
    def attributes(self) -> frozenset:
        return frozenset(node.attr for node in self.of(ast.Attribute))

    @cached_property
    def identifiers(self) -> frozenset:
        """Every identifier the code spells: names, attributes, imported names and modules,
        definitions, parameters and keyword arguments."""
        return self.spelled_but_as_attributes | self.attributes

    @cached_property
    def spelled_but_as_attributes(self) -> frozenset:
        """The identifiers the code spells other than as an attribute's name (`identifiers`
        without the attributes that appear nowhere else)."""
        found = set(self.names)
        for node in self.of(ast.alias):
            found.update(node.name.split("."))
            if node.asname:
                found.add(node.asname)
        for node in self.of(ast.ImportFrom):
            if node.module:
                found.update(node.module.split("."))
        found.update(node.name for node in self.of(*DEFINITIONS))
        found.update(node.arg for node in self.of(ast.arg))
        found.update(node.arg for node in self.of(ast.keyword) if node.arg)
        return frozenset(found)

    @cached_property
    def bound_by_code(self) -> frozenset:
        """The names the code binds other than by an import: stored, a parameter, a definition,
        a global or nonlocal declaration, an exception or a match capture (scopes ignored: a
        superset of any one scope's)."""
        found = {node.id for node in self.of(ast.Name) if node.ctx.__class__ is not ast.Load}
        found.update(node.arg for node in self.of(ast.arg))
        found.update(node.name for node in self.of(*DEFINITIONS))
        for node in self.of(ast.Global, ast.Nonlocal):
            found.update(node.names)
        found.update(node.name for node in self.of(ast.ExceptHandler, ast.MatchAs, ast.MatchStar) if node.name)
        return frozenset(found)

    def mentions(self, word: str) -> bool:
        """`word` is an identifier of the code, or inside a string literal (a string
        annotation `"ListRootsResult"` names a type the resolver reads)."""
        return word in self.identifiers or word in self._string_text

    def mentions_any(self, words) -> bool:
        return any(self.mentions(word) for word in words)

    # ----- what a name may stand for ------------------------------------------------------------
    @cached_property
    def aliases(self) -> dict:
        """name -> the last components of what it may be bound to through imports and
        assignments of names (`from m import A as B`: B -> {A}; `C = t.D`: C -> {D}; `E = A if x
        else B`: E -> {A, B}; chains followed). Scopes are ignored: a superset of what the resolver can conclude."""
        found: dict = {}
        for node in self.of(ast.alias):
            if node.asname:
                found.setdefault(node.asname, set()).add(node.name.rpartition(".")[2])
        pending: list = []
        for node in self.of(ast.Assign):
            # `C = A if x else B` may be either branch (the resolver keeps the class they share).
            values = (node.value.body, node.value.orelse) if isinstance(node.value, ast.IfExp) else (node.value,)
            for value in values:
                if isinstance(value, (ast.Name, ast.Attribute)):
                    pending.extend((target, value) for target in node.targets)
        for node in self.of(ast.AnnAssign):
            if isinstance(node.value, (ast.Name, ast.Attribute)):
                pending.append((node.target, node.value))
        for node in self.of(ast.withitem):
            if node.optional_vars is not None and isinstance(node.context_expr, (ast.Name, ast.Attribute)):
                pending.append((node.optional_vars, node.context_expr))
        named = [(t.id, v) for t, v in pending if isinstance(t, ast.Name)]
        changed = True
        while changed and named:  # a chain of n assignments settles in n rounds
            changed = False
            for name, value in named:
                new = self._symbols_with(value, found)
                known = found.setdefault(name, set())
                if not new <= known:
                    known |= new
                    changed = True
        return found

    def _symbols_with(self, expr, aliases: dict) -> set:
        if isinstance(expr, ast.Attribute):
            return {expr.attr}
        if isinstance(expr, ast.Name):
            return {expr.id} | aliases.get(expr.id, set())
        return set()

    def symbols(self, expr) -> set:
        """The last components the resolver may give `expr`'s qualified name: an attribute's
        own name, or a name and whatever it may be an alias of."""
        return self._symbols_with(expr, self.aliases)

    def names_symbol(self, expr, symbols) -> bool:
        """`expr` may name one of `symbols` (a str or a set of them)."""
        found = self.symbols(expr)
        return (symbols in found) if isinstance(symbols, str) else bool(found & symbols)

    @cached_property
    def _calls_by_symbol(self) -> dict:
        found: dict = {}
        aliases = self.aliases
        for call in self.of(ast.Call):
            for symbol in self._symbols_with(call.func, aliases):
                found.setdefault(symbol, []).append(call)
        return found

    @property
    def called_symbols(self):
        """Every symbol a call's function may resolve to (`calls_to`'s keys): what the file can
        run under a name, aliases followed."""
        return self._calls_by_symbol.keys()

    def calls_to(self, *symbols: str) -> list:
        """Calls whose function may resolve to one of these symbols (`ClientSession(...)`,
        `types.ClientSession(...)`, `CS(...)` after `from mcp import ClientSession as CS`)."""
        return [call for symbol in symbols for call in self._calls_by_symbol.get(symbol, ())]

    @cached_property
    def imported(self) -> tuple:
        """The qualified name of everything imported, at any depth (`from a import b`: `a.b`,
        `import a.b`: `a.b`; relative ones keep their dots: `.x.y`)."""
        found = [alias.name for node in self.of(ast.Import) for alias in node.names]
        for node in self.of(ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.extend(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
        return tuple(found)

    @cached_property
    def imports_mcp(self) -> bool:
        """Something is imported from an MCP SDK, a host framework or a module with an `mcp`
        component, at any depth: what the resolver's `imports_sdk` / `imports_mcp` and the
        rules' `module_imports()` tests need (a superset of each)."""
        return any(mcp_module(name.lstrip(".")) or mcp_module(name) for name in self.imported)

    # ----- calls ---------------------------------------------------------------------------------
    def calls(self) -> list:
        return self.of(ast.Call)

    @cached_property
    def _keyword_calls(self) -> dict:
        found: dict = {}
        for call in self.of(ast.Call):
            for kw in call.keywords:
                if kw.arg:
                    found.setdefault(kw.arg, []).append((call, kw.value))
        return found

    def keyword_calls(self, name: str) -> list:
        """(call, value) for every call given keyword `name`."""
        return self._keyword_calls.get(name, [])

    @cached_property
    def _method_calls(self) -> dict:
        found: dict = {}
        for call in self.of(ast.Call):
            func = call.func
            if func.__class__ is ast.Attribute:
                found.setdefault(func.attr, []).append(call)
        return found

    def method_calls(self, name: str) -> list:
        """Calls of `<anything>.name(...)`."""
        return self._method_calls.get(name, [])

    def identifiers_matching(self, pattern: re.Pattern) -> bool:
        return any(pattern.search(name) for name in self.identifiers)


# ----- questions about one node -----------------------------------------------------------------
def string(node) -> str | None:
    """The value of a str literal, else None."""
    if node.__class__ is ast.Constant and node.value.__class__ is str:
        return node.value
    return None


def none_or_false(node) -> bool:
    """The literal None or False (LibCST's `is_false_or_none`)."""
    return node.__class__ is ast.Constant and (node.value is None or node.value is False)


def last_identifier(node) -> str | None:
    if node.__class__ is ast.Name:
        return node.id
    if node.__class__ is ast.Attribute:
        return node.attr
    return None


def positional(call: ast.Call) -> list:
    """The positional arguments, without `*args` (LibCST's `positional`)."""
    return [arg for arg in call.args if arg.__class__ is not ast.Starred]


def keyword(call: ast.Call, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def within(node, kinds, stop=()) -> list:
    """The nodes of `kinds` below `node`, not looking inside nodes of `stop` kinds."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kinds):
            found.append(current)
        for child in child_nodes(current):
            if not isinstance(child, stop):
                stack.append(child)
    return found


def holding_statement(tree: ast.Module, node):
    """The innermost statement of `tree` whose own code holds `node` (not a statement nested in
    it), found by positions statement by statement, or None where none holds them."""
    where = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    holder, statements = None, tree.body
    while statements:
        inner = next((s for s in statements if holds(s, where)), None)
        if inner is None:
            break
        holder, statements = inner, statements_in(inner)
    return holder


def holds(statement, where: tuple) -> bool:
    """Whether `statement` spans the positions `where` (line, column, end line, end column)."""
    line, column, end_line, end_column = where
    return (statement.lineno, statement.col_offset) <= (line, column) and (end_line, end_column) <= (
        statement.end_lineno,
        statement.end_col_offset,
    )


def statements_in(statement) -> list:
    """The statements and `except` clauses directly inside `statement` (a `match` case's
    statements, the case having no position of its own)."""
    found = []
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, (ast.stmt, ast.excepthandler)):
            found.append(child)
        elif child.__class__ is ast.match_case:
            found.extend(child.body)
    return found
