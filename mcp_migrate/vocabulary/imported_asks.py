"""One import away, by bytes: does a file import a project function (or a method's class, or a
module) whose body can hold a rule's finding? The byte screen of a caller that names nothing of
Roots itself (`allowed = await get_allowed_dirs(ctx)` with `get_allowed_dirs` imported from the
project's `file_io` package, which asks for roots).

A project module's "doing" names are found from its bytes and, only when it holds one of the
effect's tokens, the standard library's parse: the top-level functions and class methods whose
lines hold a token, the module-level names bound to an expression that names one of those
(`Pinned = Annotated[ListRootsResult, Resolve(_ask)]`), and the names it re-exports from a
module that has them (one hop). Everything is kept in the run's project view
(core.project_view) per module file, size and mtime: a tree's callers import the same few
helpers."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from mcp_migrate.core.byte_code import spelled
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.modules import (
    file_folder,
    folder_may_have_submodules,
    module_file,
    relative_module_file,
)
from mcp_migrate.core.project_view import MODULE_LIMIT, ProjectView, read
from mcp_migrate.vocabulary.effects import (
    ASKS,
    NOTIFIES,
    ROOTS_WORDS,
    local_via,
    module_effects,
    possible_effects,
)

#: `from pkg.mod import a, b as c` and the parenthesised, multi-line form (at a line's start:
#: core.line_scan).
_FROM = lazy_compile(rb"from[ \t]+(\.+[\w.]*|[\w.]+)[ \t]+import[ \t]+(?:\(([^)]*)\)|([^\n#;]*))")
#: `import pkg.mod` / `import pkg.mod as m` (one module per statement; the common form).
_IMPORT = lazy_compile(rb"(?m)import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$")
_ALIAS = lazy_compile(rb"([\w.]+)(?:\s+as\s+(\w+))?")


class Doers(NamedTuple):
    """A module's names that can hold the rule's finding: top-level functions and aliases
    (`functions`), and `(class, method)` pairs (`methods`)."""

    functions: frozenset = frozenset()
    methods: frozenset = frozenset()

    def __bool__(self) -> bool:
        return bool(self.functions or self.methods)


#: The view's tables (core.project_view): a module's own doers, by (file, mtime, size, effect);
#: and (module file, hops, effect) -> (its own entry, [re-exported-from file], Doers).
_OWN, _COMPOSED = "imported asks: own", "imported asks: composed"


def imports_a_doer(data: bytes, path: str, limit: int = 0, view: ProjectView | None = None, effect: str = ASKS) -> bool:
    """Whether the file at `path` (its bytes `data`) imports, from a project module, a name
    whose body has `effect` (vocabulary.effects; its module holds one of the effect's tokens): a
    function or alias (imported by name), a class with such a method (whose name the file spells
    as `.method`), or a module with one (spelled `module.name`). The project is read through
    `view` (a fresh one when None)."""
    if not path or path.startswith("<"):
        return False
    view = view if view is not None else ProjectView()
    folder = file_folder(view, path)
    for module, names in file_imports(data, view):
        source = folder_source(view, folder, module)
        doers = _doers(source, limit, view, effect=effect) if source else Doers()
        submodules = folder_may_have_submodules(view, folder, module)
        for name, bound in names:
            if name in doers.functions and data.count(bound.encode()) > 1:  # imported and used
                return True
            if any(cls == name and spelled(data, b"." + method.encode()) for cls, method in doers.methods):
                return True
            named = named_module(data, folder, module, name, bound, source, view) if submodules else None
            if named is not None and _module_spelled(data, named, bound, limit, view, effect):
                return True
    for module, bound in file_plain_imports(data, view):
        if _module_spelled(data, module_source(path, module, view), bound, limit, view, effect):
            return True
    return False


def named_module(data: bytes, folder: str, module: str, name: str, bound: str, source, view) -> str | None:
    """The project module a name imported from `module` (whose file is `source`) by a file in
    `folder` (core.modules.file_folder's) is, when the bytes spell `bound.` (`from . import
    scope`, then `scope.Pinned`). The cheaper test first: a name imported from a module file is
    searched for in the bytes (it is rarely a module); one from a package or from outside the
    project is looked up (a folder listing answers most). Asked with the folder its caller holds:
    each name asked with the file's path made the folder again, with the working folder's
    system call (issue 37: 275 of mcp-cli's)."""
    submodule = f"{module}.{name}" if module != "." * len(module) else module + name
    if source is not None and os.path.basename(source) != "__init__.py":
        return folder_source(view, folder, submodule) if data.find(bound.encode() + b".") >= 0 else None
    found = folder_source(view, folder, submodule)
    return found if found is not None and data.find(bound.encode() + b".") >= 0 else None


def file_imports(data: bytes, view: ProjectView) -> list:
    """`from_imports` of the file being screened, kept in the view for the next question about
    the same bytes (RT001's and RT004's import followers and typed followers ask one after the
    other)."""
    return _file_statements(data, view)[0]


def file_plain_imports(data: bytes, view: ProjectView) -> list:
    """`plain_imports` of the file being screened, kept in the view as `file_imports` is."""
    return _file_statements(data, view)[1]


def _file_statements(data: bytes, view: ProjectView) -> tuple:
    return view.of_last("imported asks: last file", data, None, lambda: statements_in(data, view))


def statements_in(data: bytes, view: ProjectView) -> tuple:
    """`import_statements` of the bytes, with the statements the run's view has read already."""
    return import_statements(data, view.table(_STATEMENTS))


#: The view's table: an import statement's text -> what `import_statements` reads of it.
_STATEMENTS = "imported asks: import statements"


def names_a_doer(path: str, qualified: str | None, limit: int = 0, view: ProjectView | None = None) -> bool:
    """Whether `qualified` (`.scope.Pinned`, `pkg.helpers.get_dirs`) names a doer of its project
    module, by that module's bytes: the cheap question before a rule analyses the module."""
    if not qualified or not path or path.startswith("<") or "." not in qualified.lstrip("."):
        return False
    view = view if view is not None else ProjectView()
    module, _, name = qualified.rpartition(".")
    source = module_source(path, module, view)
    return source is not None and name in _doers(source, limit, view).functions


def _module_spelled(data: bytes, source: str | None, bound: str, limit: int, view, effect: str = ASKS) -> bool:
    """`bound.<doer>` in the bytes, for a module bound to `bound` whose doers are known."""
    if source is None:
        return False
    doers = _doers(source, limit, view, effect=effect)
    if not doers:
        return False
    prefix = bound.encode() + b"."
    if any(spelled(data, prefix + name.encode()) for name in doers.functions):
        return True
    return any(spelled(data, b"." + method.encode()) for _, method in doers.methods)


def imports_a_module_defining(data: bytes, path: str, pattern, limit: int, view: ProjectView) -> bool:
    """Whether the file at `path` (its bytes `data`) imports from a project module whose bytes
    match `pattern` (a definition of its own: `def set_roots`), each module read once per view."""
    if not path or path.startswith("<"):
        return False
    for module, _names in file_imports(data, view):
        source = module_source(path, module, view)
        if source is not None and view.per_file(
            _DEFINES, source, pattern.pattern, lambda stat, s=source: _matches(s, stat, limit, pattern), False
        ):
            return True
    return False


def _matches(source: str, stat, limit: int, pattern) -> bool:
    data = read(source, stat, limit)
    return data is not None and pattern.search(data) is not None


#: The project view's table of imports_a_module_defining's answers.
_DEFINES = "imported_asks.defines"


def from_imports(data: bytes) -> list:
    """(module, [(name, bound name)]) for each `from module import ...` statement."""
    return import_statements(data)[0]


def plain_imports(data: bytes) -> list:
    """(module, bound name) for each `import a.b` / `import a.b as m` statement."""
    return import_statements(data)[1]


def import_statements(data: bytes, known: dict | None = None) -> tuple:
    """(`from_imports`, `plain_imports`) of the bytes, in one pass: each statement of either kind
    holds the word `import`, which `bytes.find` finds far faster than the patterns' own search,
    and a statement is read where the word begins its line (a plain import) or its line begins
    with `from` (core.line_scan's rule: only blanks before, a match hiding nothing of its own kind
    after its start but what it spans). `known`: the statements read so far, by their text
    (a table of the run's project view): a project's files repeat the same import lines, and
    working out their names was most of the import followers' reading (issue 37: 152 of mcp-cli's
    1,511 M instructions). A statement's reading, its list of names included, is shared by every
    file that repeats it: its readers never change it."""
    known = {} if known is None else known
    froms: list = []
    plains: list = []
    find, rfind = data.find, data.rfind
    from_end = plain_end = 0
    start = find(b"import")
    while start >= 0:
        line = rfind(b"\n", 0, start) + 1
        head = data[line:start].lstrip(b" \t")
        if not head:
            if start >= plain_end:
                match = _IMPORT.match(data, start)
                if match is not None:
                    plain_end = match.end()
                    plains.append(_kept(match, known, _plain))
        elif head.startswith(b"from"):
            begin = start - len(head)
            if begin >= from_end:
                match = _FROM.match(data, begin)
                if match is not None:
                    from_end = match.end()
                    found = _kept(match, known, _from)
                    if found:
                        froms.append(found)
        start = find(b"import", start + 1)
    return froms, plains


def _kept(match: re.Match, known: dict, reading) -> tuple:
    """`reading(match)`, kept in `known` by the statement's text."""
    text = match.group()
    found = known.get(text)
    if found is None:
        found = known[text] = reading(match)
    return found


def _from(match: re.Match) -> tuple:
    """(module, [(name, bound name)]) of a `_FROM` match, or () where it imports no plain name."""
    names = []
    for alias in _ALIAS.finditer(match.group(2) or match.group(3) or b""):
        name = alias.group(1).decode("ascii", "replace")
        if "." not in name and name != "*":
            names.append((name, (alias.group(2) or alias.group(1)).decode("ascii", "replace")))
    return (match.group(1).decode("ascii", "replace"), names) if names else ()


def _plain(match: re.Match) -> tuple:
    """(module, bound name) of an `_IMPORT` match."""
    return match.group(1).decode("ascii", "replace"), (match.group(2) or match.group(1)).decode("ascii", "replace")


def module_source(path: str, module: str, view: ProjectView) -> str | None:
    """The project file of `module` as the file at `path` imports it (relative or absolute),
    kept in the view: a file's screens ask for each of its imports again (RT001's, RT004's).
    A file without a path has no relative imports."""
    if module.startswith(".") and (not path or path.startswith("<")):
        return None
    return folder_source(view, file_folder(view, path), module)


def folder_source(view: ProjectView, folder: str, module: str) -> str | None:
    """`module_source` for a file in `folder` (the absolute folder core.modules.file_folder
    gives), kept per folder and module: the answer depends on the folder only, and a folder's
    files import the same modules (issue 37: fast-agent's followers asked of 16,978 (file,
    module) pairs, 5,736 (folder, module) ones). A follower asking of each import of a file
    takes its folder once."""
    known = view.table(_SOURCES)
    key = (folder, module)
    found = known.get(key, _UNASKED)
    if found is _UNASKED:
        found = known[key] = (
            relative_module_file(folder, module + ".x") if module.startswith(".") else module_file(view, folder, module)
        )
    return found


#: The view's table: (folder of the importing file, module as it imports it) -> the module's
#: file or None.
_SOURCES = "imported asks: module source"
_UNASKED = object()


def _doers(source: str, limit: int, view: ProjectView, hops: int = 1, effect: str = ASKS) -> Doers:
    """A module's doers of `effect`: its own (kept by its size and mtime) and, `hops` deep,
    those it re-exports (composed once per view, which stats each file once)."""
    own = _own(source, limit, view, effect)
    if own is None:
        return Doers()
    functions, methods, imports = own
    if not hops or not imports:
        return Doers(functions, methods)
    key = (source, hops, effect)
    composed = view.table(_COMPOSED)
    memo = composed.get(key)
    if memo is not None and memo[0] is own:  # a view stats each file once: its modules are as they were
        for other in memo[1]:
            view.consulted(other)
        return memo[2]
    used = []
    functions, methods = set(functions), set(methods)
    for module, names in imports:
        other = module_source(source, module, view)
        if other is None or other == source:
            continue
        theirs = _doers(other, limit, view, hops - 1, effect)
        used.append(other)
        for name, bound in names:
            if name in theirs.functions:
                functions.add(bound)
            methods.update((bound, method) for cls, method in theirs.methods if cls == name)
    found = Doers(frozenset(functions), frozenset(methods))
    composed[key] = (own, used, found)
    return found


def _own(source: str, limit: int, view: ProjectView, effect: str) -> tuple | None:
    """(functions, methods, from-imports) of one module file: its doers only where its bytes
    may hold the effect (vocabulary.effects.possible_effects, from the one reading the followers
    share), read from its effects summary."""
    return view.per_file(_OWN, source, effect, lambda stat: _read_own(source, limit or MODULE_LIMIT, view, effect))


def _read_own(source: str, limit: int, view: ProjectView, effect: str) -> tuple | None:
    found = module_read(source, view, limit)
    if found is None:
        return None
    functions, methods = _own_doers(source, limit, view, effect) if effect in found.effects else (set(), set())
    return frozenset(functions), frozenset(methods), found.imports


class ModuleRead(NamedTuple):
    """What the import followers (`imports_a_doer`, vocabulary.typed_doers' walk) read of a
    project module's bytes, from one reading per view. Each follower used to read the modules
    itself, the ASKS and the NOTIFIES follower once each and the walk a third time (issue 37:
    2,147 readings of 678 modules on fast-agent)."""

    #: `from_imports`
    imports: tuple
    #: `plain_imports`
    plain: tuple
    #: vocabulary.effects.possible_effects
    effects: frozenset
    #: Whether the bytes hold a roots word (vocabulary.effects.ROOTS_WORDS).
    roots: bool


#: The view's table (core.project_view): (module file, mtime, size, limit) -> its ModuleRead.
_READ = "imported asks: module read"


def module_read(source: str, view: ProjectView, limit: int = MODULE_LIMIT) -> ModuleRead | None:
    """The ModuleRead of the module file `source`, or None when it is over `limit` bytes or
    cannot be read."""
    return view.per_file(_READ, source, limit, lambda stat: _read_module(source, stat, limit, view))


def _read_module(source: str, stat, limit: int, view: ProjectView) -> ModuleRead | None:
    data = read(source, stat, limit)
    if data is None:
        return None
    roots = any(word in data for word in ROOTS_WORDS)
    effects = possible_effects(data) if roots else frozenset()  # it asks the same words first
    imports, plain = statements_in(data, view)
    return ModuleRead(tuple(imports), tuple(plain), effects, roots)


def _own_doers(source: str, limit: int, view: ProjectView, effect: str = ASKS) -> tuple:
    """(functions and aliases, (class, method) pairs) of a module whose code (not its comments
    or docstrings) has `effect` (asks for roots: its effects summary's ASKS, vocabulary.effects);
    an alias of an asking function asks too."""
    summary = module_effects(source, view, limit)
    asking = summary.doing(effect)
    functions = {name for owner, name in asking if owner is None} | (summary.aliases if effect == ASKS else set())
    return functions, {key for key in asking if key[0] is not None}


def imported_effects(
    path: str, module: str, key: tuple, view: ProjectView, limit: int = 0, full: bool = False
) -> tuple | None:
    """(module file, key, FunctionEffects) of the function or method `key` of the project module
    `module` as the file at `path` imports it (relative or absolute, `src/` layouts), through one
    re-export (`from .send_messages import f` in a package's `__init__.py`); None when the project
    defines no such function with an effect (with `full`: no such function in a module whose
    bytes can hold an effect; vocabulary.effects.effects_in)."""
    source = module_source(path, module, view)
    if source is None:
        return None
    summary = module_effects(source, view, limit, full)
    found = summary.of(key)
    if found is None:  # a package re-exporting the name: the module that defines it, one hop
        name = key[0] or key[1]
        origin = summary.imports.get(name, (None, name))
        other = next(iter(reexport_sources(source, lambda word: word == name, view)), None)
        if other is None:
            return None
        key = (origin[1], key[1]) if key[0] else (None, origin[1])
        source, found = other, module_effects(other, view, limit, full).of(key)
        if found is None:
            return None
    return source, key, found


def effects_via(source: str, key: tuple, view: ProjectView, limit: int = 0) -> dict:
    """effect -> (module file, function key) it comes from, for the function `key` of the module
    file `source`: its own effects (from itself), then ASKS and NOTIFIES one hop away through the
    functions it calls, in its module (`helper()`, `self.helper()`) or imported from the
    project's others. One hop only: a caller of a caller does not ask."""
    summary = module_effects(source, view, limit, full=True)
    own = summary.of(key)
    if own is None:
        return {}
    found = {effect: (source, key) for effect in own.effects}
    for effect, callee in local_via(summary, key).items():
        found.setdefault(effect, (source, callee))
    for owner, name in own.callees:
        origin = summary.imports.get(name) if owner is None else None
        if origin is None:
            continue
        theirs = imported_effects(source, origin[0], (None, origin[1]), view, limit)
        for effect in (ASKS, NOTIFIES):
            if theirs is not None and effect in theirs[2].effects:
                found.setdefault(effect, (theirs[0], theirs[1]))
    return found


#: The view's table (core.project_view): (module file, mtime, size) -> its from-imports
_IMPORTS = "imported asks: imports"


def imports_of(source: str, view: ProjectView) -> tuple:
    """A module's `from ... import ...` statements (its first MiB)."""
    return view.per_file(
        _IMPORTS, source, (), lambda stat: tuple(statements_in(read(source, stat, 0, 1024 * 1024) or b"", view)[0]), ()
    )


def reexport_sources(source: str, wanted, view: ProjectView) -> list:
    """The files a module imports from on a statement that names a word `wanted` accepts
    (`from .helpers import get_dirs`, the parenthesised form too): where a re-exported name
    comes from (`ImportedHelpers`), and the syntax screen's twin of it (`wanted` tells the names
    the calling file spells)."""
    found = []
    for module, names in imports_of(source, view):
        if not any(wanted(name) or wanted(bound) for name, bound in names):
            continue
        file = module_source(source, module, view)
        if file is not None and file != source and file not in found:
            found.append(file)
    return found
