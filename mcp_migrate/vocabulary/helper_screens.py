"""One call away, on the syntax screen: can a project module a call may run hold a helper that
does what the rule reports (`module_may_do`)? RT001's and RT004's `screen_tree` ask it of the
modules a file's imports and typed receivers reach; the names a caller must spell to run such a
helper are the module's `doing_words`, worked out once per module file and tokens, and its
re-exports from modules that may do it once per module (vocabulary.imported_asks reads the
bytes; this reads what a caller spells)."""

from __future__ import annotations

import ast

from mcp_migrate.core.line_scan import token_lines
from mcp_migrate.core.project_view import ProjectView, read
from mcp_migrate.core.screen import Syntax, alias_line, string
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.vocabulary.effects import aliases_of
from mcp_migrate.vocabulary.imported_asks import imports_of, module_source

#: The view's table (core.project_view): (module file, mtime, size, tokens) -> whether its
#: syntax screen lets the rule through.
_MAY_DO = "imported asks: may do"


def module_may_do(source: str, limit: int, tokens: tuple, screen, mentioned, view: ProjectView, runs=None) -> bool:
    """The syntax screen's test of a module a call may run a helper of: whether it can hold a
    helper that does what the rule reports, as `ImportedHelpers._keys` would find it (the same
    size limit and tokens), by `screen` (the rule's own syntax screen) and the names of its
    definitions that can hold one (`doing_words`), one of which the calling file must spell
    where it can run it (`runs`, by default wherever it is `mentioned`); or re-exports, on a
    statement naming something the calling file mentions, one from a module that can."""
    runs = runs or mentioned
    if _spells_a_doer(_may_do(source, limit, tokens, screen, view), runs):
        return True
    return any(
        any(mentioned(name) for name in names) and _spells_a_doer(words, runs)
        for names, words in _doing_reexports(source, limit, tokens, screen, view)
    )


def runs_by(syntax, annotations: bool):
    """A test of a word: whether the file spells it where it can run another module's helper as
    the rules follow one: the name a call's callee ends with (`helper(...)`, `module.helper(...)`,
    `instance.helper(...)`: `wrappers.imported_target`; or what an alias it calls stands for,
    `dirs_of(...)` after `import allowed_dirs as dirs_of`), and with `annotations` a word a
    parameter's annotation spells (RT001's `visit_Param`: a type alias whose marker asks,
    `p: scope.Pinned`). A helper's name only read, patched or quoted runs nothing (issue 37: a
    gateway's tests patch `root_service.list_roots` by its dotted name, and `list_roots` was a
    word of the gateway's main module)."""
    called = set(syntax.called_symbols)  # aliases followed
    texts: list = []
    if annotations:
        for arg in syntax.of(ast.arg):
            for node in ast.walk(arg.annotation) if arg.annotation is not None else ():
                if isinstance(node, (ast.Name, ast.Attribute)):
                    called |= syntax.symbols(node)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    texts.append(node.value)
    return lambda word: word in called or any(word in text for text in texts)


#: The view's table: (module file, limit, tokens) -> (its re-exports from a module that may do
#: what the rule reports, the files read to tell).
_REEXPORTS = "imported asks: doing re-exports"


def _doing_reexports(source: str, limit: int, tokens: tuple, screen, view: ProjectView) -> tuple:
    """(names the statement imports, bound or not; that module's answer, `_may_do`) for each
    `from ... import` of the module `source` whose project module may do what the rule reports:
    `reexport_sources` asked once per module, not once per calling file's question (issue 37:
    a 1.26 MB test module's screens asked it 54,000 times about the same few modules). Every
    module the statements name is noted as consulted by each check that asks, as a cached
    answer's dependencies are."""
    return view.remembered(_REEXPORTS, (source, limit, tokens), lambda: _reexports(source, limit, tokens, screen, view))


def _reexports(source: str, limit: int, tokens: tuple, screen, view: ProjectView) -> tuple:
    found = []
    for module, names in imports_of(source, view):
        file = module_source(source, module, view)
        if file is None or file == source:
            continue
        words = _may_do(file, limit, tokens, screen, view)
        if words:
            found.append((frozenset(word for pair in names for word in pair), words))
    return tuple(found)


def _spells_a_doer(words, mentioned) -> bool:
    """Whether a module's answer (`_reads_as_doing`) leaves a helper the caller can run: any of
    its definitions (True), or one whose name the calling file spells."""
    return words is True or (bool(words) and any(mentioned(word) for word in words))


def _may_do(source: str, limit: int, tokens: tuple, screen, view: ProjectView):
    """A module's answer (`_reads_as_doing`), handed over (core.project_view.per_file): a few
    words, worked out from the module's `ast` parse, which the other worker of a pool asked
    for as well (issue 37: fast-agent's two workers worked out 497 answers where one process
    works out 281, 0.11 s of CPU more)."""
    return view.per_file(
        _MAY_DO,
        source,
        tokens,
        lambda stat: _reads_as_doing(source, stat, limit, tokens, screen, view),
        False,
        handed=True,
    )


def _reads_as_doing(source: str, stat, limit: int, tokens: tuple, screen, view: ProjectView):
    """False where the module cannot hold a helper; else the names a caller must spell to run
    one (`doing_words`), or True where any of its definitions may be one."""
    data = read(source, stat, limit)
    if data is None or not any(token in data for token in tokens):
        return False
    syntax = read_syntax(data, source, view)
    if syntax is None:
        return True
    return doing_words(syntax.tree, data, tokens, syntax.exact, screen, source, syntax) if screen(syntax) else False


def doing_words(
    tree: ast.Module, data: bytes, tokens: tuple, exact: bool = True, screen=None, path: str = "", outer=None
):
    """The names under which another module can run a definition of this one whose body holds
    one of `tokens`: what a rule's analysis of the module keys (`ImportedHelpers`: a function or
    method is a helper when its own body holds a finding, and every finding spells a token).
    The outermost `def` around each token's line (decorators included), by its name (a caller
    spells `helper(...)`, `module.helper(...)` or `instance.helper(...)`), and the names bound
    to an expression naming one of those (`Pinned = Annotated[..., Resolve(_ask)]`). True where
    a token lies outside every `def` (a constant a function reads, a class attribute): then any
    definition may be a helper, as the module-wide screen always said. An import whose tokens
    each stay under their own name (`from mcp.types import ListRootsResult`) is not such a place:
    a definition that uses the name spells the token itself (issue 37: fast-agent's callback
    module, whose imports made every one of its definitions a possible helper, sent a 2,230-line
    caller's screen through 220 modules' types). Nor is an assignment whose tokens lie only in
    its target or annotation (`list_roots_callback: ListRootsFnT | None = field(init=False)`):
    a definition that reads the name spells it, and an annotation carries no value. `exact`:
    the tree's columns are the file's (core.screen.Syntax.exact); where they are not, those of
    a `type` alias statement's line are not, and such a statement is not read so. `screen`
    (the rule's syntax screen, as `module_may_do` gives it) is asked of each such definition
    alone: one whose tokens lie only in its docstring, in a log message or in a handler table's
    key cannot hold the rule's finding (issue 37: Dev10x's roots module made its wiring function
    a helper of RT001's and RT004's for every caller), and its lines are then covered; `outer`,
    the module's Syntax, goes with each (what the module imports around the definition)."""
    lines = token_lines(data, tokens)
    text = data.splitlines()  # (as the parser splits them)
    words: set = set()
    covered: set = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if node.__class__ in _DEFS:
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            held = {line for line in lines if first <= line <= (node.end_lineno or node.lineno)}
            if held:
                if screen is None or screen(Syntax(ast.Module([node], []), data, path, exact, outer)):
                    words.add(node.name)
                covered |= held
        elif node.__class__ is ast.Expr and string(node.value) is not None:  # a docstring: read by no code
            covered.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif node.__class__ in _IMPORTS and not _carries_a_token(node, tokens):
            covered.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif (
            node.__class__ in _BINDINGS
            and (exact or not alias_line(text[node.lineno - 1]))
            and not _value_holds(node.value, text, tokens)
        ):
            covered.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        else:  # a class's body, `if TYPE_CHECKING:`, `try:`: the definitions inside
            stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    uncovered = lines - covered
    if uncovered:  # a comment alone is read by no code either
        if any(not text[line - 1].lstrip().startswith(b"#") for line in uncovered):
            return True
    return frozenset(words | aliases_of(tree, words))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


_IMPORTS = (ast.Import, ast.ImportFrom)
_BINDINGS = (ast.Assign, ast.AnnAssign)


def _carries_a_token(node, tokens: tuple) -> bool:
    """Whether an import can hand a token's meaning to a name that does not spell it: a name
    holding a token bound under another (`import ListRootsRequest as Ask`), or every name of a
    module whose name holds one (`from .roots_list import *`)."""
    for alias in node.names:
        name = alias.name.encode()
        if alias.name == "*":
            name = (node.module or "").encode()
        elif alias.asname is None or alias.asname == alias.name:
            continue
        if any(token in name for token in tokens):
            return True
    return False


def _value_holds(value, text: list, tokens: tuple) -> bool:
    """Whether an assignment's value (None: an annotation alone) spells one of `tokens`, read
    from the file's lines (`text`) by the node's lines and UTF-8 column offsets."""
    if value is None:
        return False
    lines = text[value.lineno - 1 : value.end_lineno]
    if not lines:
        return True
    if len(lines) == 1:
        segment = lines[0][value.col_offset : value.end_col_offset]
    else:
        segment = b"\n".join([lines[0][value.col_offset :], *lines[1:-1], lines[-1][: value.end_col_offset]])
    return any(token in segment for token in tokens)
