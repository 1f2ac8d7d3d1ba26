"""The byte and syntax screens' twin of the resolver's project types (core.project_types): the
project classes a file can reach from its imports by types (a method's return annotation, an
attribute `__init__` types, a base), and whether one of them has a method whose body does what
a rule reports that the file spells (`session.connector.set_roots(...)` with `session` from
`client.get_session()`, `MCPClient` imported).

Why: the rules follow a call on a typed receiver into the project module that defines the
method (vocabulary.wrappers `imported_target`); a screen that only knew the modules a file
imports would drop the file before the rule saw it (`tests/test_screens.py`). Read through the
run's project view, for files that mention MCP only (as the resolver types them).

The same walk of the import graph says under which names the modules a file's imports reach do
an effect, and so gates both of RT001's and RT004's import followers (`follows_to_a_doer`)."""

from __future__ import annotations

import os
from typing import NamedTuple

from mcp_migrate.core.byte_code import names_after, spelled
from mcp_migrate.core.modules import file_folder, folder_may_have_submodules
from mcp_migrate.core.project_types import reachable
from mcp_migrate.core.project_view import MODULE_LIMIT, ProjectView
from mcp_migrate.core.sdk import SDK_PACKAGES, mentions_mcp
from mcp_migrate.vocabulary.effects import ROOTS_WORDS, module_effects
from mcp_migrate.vocabulary.imported_asks import (
    file_imports,
    file_plain_imports,
    folder_source,
    imports_a_doer,
    module_read,
    named_module,
)

#: The view's table: (path, size, hash of the bytes) -> (classes, the module files' stamps read).
_TABLE = "typed doers: classes"
#: The view's table: module file -> its `_Read`.
_EDGES = "typed doers: imports"
#: The view's table: (module file, limit, effect) -> the names of the methods with the effect
#: of every module its imports reach (`imported_methods`).
_METHODS = "typed doers: methods reached"
#: The view's table (for the results cache): module file -> the stamps of every module its
#: imports reach, itself included, worked out once per strongly connected component.
_CLOSURE = "typed doers: modules reached"
#: The view's table: module file -> the modules its imports reach, itself included, that hold a
#: roots word or were not read (vocabulary.effects.ROOTS_WORDS), once per component.
_ROOTED = "typed doers: modules holding a roots word"
#: The view's table: module file -> {effect: the names, as bytes, under which a module its
#: imports reach, itself included, does it} (`_doing_names`), or None where one was not read,
#: once per component.
_NAMES = "typed doers: doing names reached"


class _Read(NamedTuple):
    """What the walk reads of one module file (`_module`)."""

    #: The project files its imports name (`_imported_files`).
    edges: tuple
    #: vocabulary.effects.possible_effects of its bytes; None where they were not read.
    effects: frozenset | None
    #: Whether its bytes hold a roots word (True where they were not read).
    roots: bool


def follows_to_a_doer(data: bytes, path: str, view: ProjectView, limit: int, effect: str) -> bool:
    """RT001's and RT004's import followers: a project function, method, alias or module
    imported here whose body has `effect` (vocabulary.imported_asks.imports_a_doer), or a
    typed receiver's method that has it (`typed_doer`). Both find a doer only where the file
    spells its name (the name it imports, `module.name` or `.method`), so they are asked only
    where the file spells a name under which a project file they would read, or a module its
    imports reach, does the effect (or one of them was not read). In a project where none does
    (one migrated already, or one that never asked), and in the many files of a project whose
    few doers they never name, the search of every imported name is not made (issue 37: 546
    searches of fast-agent's files, none of which found a doer; in projects without a doer,
    64-224 ms of the checks of four MCP projects)."""
    if not path or path.startswith("<"):
        return False
    starts = _walked(data, path, view, limit, None)  # (settled for every effect at once)
    if not _spells_a_doing_name(data, starts, effect, view):
        beyond = _file_reach(data, path, view)[1]
        if not _spells_a_doing_name(data, _walk_from(beyond, view, limit, None), effect, view):
            return False
    return imports_a_doer(data, path, limit, view, effect) or typed_doer(data, path, view, limit, effect)


def _spells_a_doing_name(data: bytes, files: list, effect: str, view: ProjectView) -> bool:
    """Whether the bytes hold a name under which a module one of the walked `files` reaches,
    itself included, does `effect`, or one of those modules was not read."""
    reached = view.table(_NAMES)
    asked: set = set()
    for file in files:
        names = reached[file]
        if names is None:
            return True
        doing = names.get(effect, frozenset())
        if id(doing) not in asked:  # a component's members share their answer
            asked.add(id(doing))
            if any(name in data for name in doing):
                return True
    return False


def typed_classes(data: bytes, path: str, view: ProjectView) -> list:
    """The project classes (core.project_types.ProjectClass) the file at `path` reaches by
    types from its imports; none for a file that does not mention MCP or has no path."""
    if not path or path.startswith("<") or not mentions_mcp(data):
        return []
    return view.remembered(
        _TABLE,
        (path, len(data), hash(data)),
        lambda: reachable(view, path, _imported_names(data, file_imports(data, view), file_plain_imports(data, view))),
    )


def _imported_names(data: bytes, imports: list, plain: list) -> list:
    """The qualified names a file imports (`pkg.client.MCPClient`, `.session.Session`; its
    `from_imports`), and `m.Name` for each `Name` it spells after a module bound by
    `import pkg.mod as m` (`plain`: its `plain_imports`)."""
    names = []
    for module, imported in imports:
        if module.partition(".")[0] in SDK_PACKAGES:
            continue
        for name, _ in imported:
            names.append(module + name if module.endswith(".") else f"{module}.{name}")
    for module, bound in dict.fromkeys(plain):  # (`import json` in each of a test module's tests)
        if module.partition(".")[0] in SDK_PACKAGES:
            continue
        for name in names_after(data, bound.encode()):
            names.append(f"{module}.{name.decode('ascii', 'replace')}")
    return list(dict.fromkeys(names))


def typed_doer(data: bytes, path: str, view: ProjectView, limit: int, effect: str) -> bool:
    """Whether a project class the file reaches by types has a method whose own body has
    `effect` (vocabulary.effects) and that the file spells as `.method`. The walk over the
    modules' types is made only where the file spells a method with the effect of a class of a
    module its imports reach (`imported_methods`)."""
    if not any(spelled(data, b"." + method.encode()) for method in imported_methods(data, path, view, limit, effect)):
        return False
    for cls in typed_classes(data, path, view):
        local = cls.name.rpartition(".")[2]
        for owner, method in module_effects(cls.source, view, limit).doing(effect):
            if owner == local and spelled(data, b"." + method.encode()):
                return True
    return False


def typed_module_files(data: bytes, path: str, view: ProjectView, tokens: tuple, worth=None) -> list:
    """The module files of the classes the file reaches by types (the syntax screen's twin of
    `typed_doer`: where a call on a typed receiver may run a helper), for a screen that asks
    which of them hold one of `tokens`. Each is a module the file's imports reach
    (`imported_methods`), so where every token holds a roots word and no module reached holds
    one, there are none worth asking about, and the walk over the modules' types, which parses
    each with `ast`, is not made (issue 37: 66 modules for 4 of fast-agent's files). Nor is it
    where `worth` (the rule's question of a module: helper_screens.module_may_do) holds of no
    module reached that holds a roots word (issue 37: 220 modules' types read for 3 of
    fast-agent's files, 0.4 s, where no module reached passed)."""
    if _rooted(tokens):
        # Every module a typed class comes from is reached, and a module whose screen lets the
        # rule through holds a token, so a roots word; one that passes by re-exporting names
        # imports the module that may do it, reached as well.
        files = _rooted_reached(data, path, view)
        if not files or (worth is not None and not any(worth(file) for file in sorted(files))):
            return []
    return sorted({cls.source for cls in typed_classes(data, path, view)})


def _rooted(tokens: tuple) -> bool:
    """Every token holds a roots word (vocabulary.effects.ROOTS_WORDS)."""
    return all(any(word in token for word in ROOTS_WORDS) for token in tokens)


def _rooted_reached(data: bytes, path: str, view: ProjectView) -> frozenset:
    """The project modules the file's imports reach, at any depth, that hold a roots word or
    were not read (`_ROOTED`); none for a file that does not mention MCP or has no path, whose
    `typed_classes` are none."""
    if not path or path.startswith("<") or not mentions_mcp(data):
        return frozenset()
    rooted = view.table(_ROOTED)
    return frozenset().union(*(rooted[start] for start in _walked(data, path, view, MODULE_LIMIT, None)))


def imported_methods(data: bytes, path: str, view: ProjectView, limit: int, effect: str) -> frozenset:
    """The names of the methods with `effect` of the classes of every project module the file
    reaches through its imports, at any depth. A class `typed_classes` reaches is defined in
    such a module: the file imports its name, or a module reached so names it, which it can
    only do by importing it (or defining it). So a file that spells none of these names has no
    typed doer, and the walk over the modules' types, which parses each module with `ast`, is
    not made (issue 37: that walk cost 7 of the 15 s of a 1,580-file agent framework's check).
    Each module's imports are read from its import lines once per view, and its answer is
    worked out once for its strongly connected component of the import graph (Tarjan's
    algorithm: packages import each other in cycles). Every module reached is a file the
    answer depends on, noted for the results cache from its component's closure, also once."""
    if not path or path.startswith("<") or not mentions_mcp(data):
        return frozenset()
    solved = view.table(_METHODS)
    return frozenset().union(*(solved[(start, limit, effect)] for start in _walked(data, path, view, limit, effect)))


def _walked(data: bytes, path: str, view: ProjectView, limit: int, effect: str | None) -> list:
    """The project files the file's imports name, each with its answer for `effect` (None: only
    whether a roots word is reached, `_ROOTED`, which any effect's walk has settled already)
    worked out, and the modules they reach noted as consulted by the check under way."""
    return _walk_from(_file_reach(data, path, view)[0], view, limit, effect)


def _file_reach(data: bytes, path: str, view: ProjectView) -> tuple:
    """(the project files the file's imports name, `_imported_files`; the files
    imported_asks.imports_a_doer would read beyond them, sorted), from one resolution of its
    imports, kept for the next question about the same file."""
    return view.of_last(
        "typed doers: last file",
        data,
        path,
        lambda: _resolved(path, view, file_imports(data, view), file_plain_imports(data, view), data),
    )


def _walk_from(starts: list, view: ProjectView, limit: int, effect: str | None) -> list:
    """`starts`, each with its answer for `effect` worked out (`_walked`)."""
    for start in starts:
        if not _settled(start, view, limit, effect):
            _solve(start, view, limit, effect)
    if view.stamps:
        closures = view.table(_CLOSURE)
        for start in starts:
            view.consulted_again(closures[start])
    return starts


def _settled(module: str, view: ProjectView, limit: int, effect: str | None) -> bool:
    """Whether `module`'s answer for `effect` is known: its methods (`_METHODS`), or for None
    whether it reaches a roots word, which the walk of any effect settles (`_ROOTED`)."""
    if effect is None:
        return module in view.table(_ROOTED)
    return (module, limit, effect) in view.table(_METHODS)


def _solve(root: str, view: ProjectView, limit: int, effect: str | None) -> None:
    """Put into the view's tables the answer of every module reached from `root` whose answer is
    not there yet (Tarjan's strongly connected components, without recursion)."""
    index: dict = {root: 0}
    low: dict = {root: 0}
    stack, on_stack = [root], {root}
    work = [(root, iter(_edges(root, view)))]
    while work:
        node, successors = work[-1]
        for successor in successors:
            if _settled(successor, view, limit, effect):
                continue
            if successor not in index:
                index[successor] = low[successor] = len(index)
                stack.append(successor)
                on_stack.add(successor)
                work.append((successor, iter(_edges(successor, view))))
                break
            if successor in on_stack:
                low[node] = min(low[node], index[successor])
        else:
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                _settle(component, view, limit, effect)


def _settle(component: list, view: ProjectView, limit: int, effect: str | None) -> None:
    """The one answer of a strongly connected component: the modules it reaches that hold a roots
    word (`_ROOTED`) and the names they do an effect under (`_NAMES`), whatever the effect; for an
    effect, its modules' own methods with it and the answers of the components it imports (all
    settled before it)."""
    members = set(component)
    rooted = view.table(_ROOTED)
    if component[0] not in rooted:
        files = _union(component, members, view, _ROOTED, lambda member, read: (member,) if read.roots else ())
        names = _doing_names(component, members, view)
        known = view.table(_NAMES)
        for member in component:
            rooted[member] = files
            known[member] = names
    if effect is not None:
        solved = view.table(_METHODS)
        methods: set = set()
        for member in component:
            if _may_do(member, view, effect):
                summary = module_effects(member, view, limit)
                methods.update(name for owner, name in summary.doing(effect) if owner is not None)
            for successor in _edges(member, view):
                if successor not in members:
                    methods |= solved[(successor, limit, effect)]
        answer = frozenset(methods)
        for member in component:
            solved[(member, limit, effect)] = answer
    closures = view.table(_CLOSURE)
    if view.stamps and component[0] not in closures:
        reached = {view.entry(member) for member in component}
        for member in component:
            for successor in _edges(member, view):
                if successor not in members:
                    reached |= closures[successor]
        frozen = frozenset(reached)
        for member in component:
            closures[member] = frozen


def _union(component: list, members: set, view: ProjectView, table: str, own) -> frozenset | None:
    """A component's answer in `table` (`_ROOTED`), its successors' settled: what
    `own(member, read)` gives of each member and the answers of the components it imports,
    together; None where one of them is None (a module whose effects were not read)."""
    known = view.table(table)
    found: set = set()
    for member in component:
        read = _module(member, view)
        mine = own(member, read)
        if mine is None:
            return None
        found.update(mine)
        for successor in read.edges:
            if successor not in members:
                theirs = known[successor]
                if theirs is None:
                    return None
                found |= theirs
    return frozenset(found)


def _doing_names(component: list, members: set, view: ProjectView) -> dict | None:
    """A component's answer in `_NAMES`, its successors' settled: for each effect, the names of
    its members' functions and methods whose own body has it and their aliases (the effects
    summary, read only of a module whose bytes hold one of the effect's tokens), the names its
    successors' answers hold, and the names a member re-exports one of these under
    (`from .dirs import get_dirs as allowed`, as imported_asks' `_doers` composes them); None
    where a module reached was not read (its imports are not followed). Every name
    `imports_a_doer` or `typed_doer` can find a doer under is among them: the summary is the
    one they read, here at the walk's size limit (a rule's own limit reads no module the walk
    did not read, or fewer)."""
    known = view.table(_NAMES)
    found: dict = {}
    for member in component:
        read = _module(member, view)
        if read.effects is None:
            return None
        if read.effects:
            summary = module_effects(member, view, MODULE_LIMIT)
            for effect in read.effects:
                names = found.setdefault(effect, set())
                names.update(name.encode() for _, name in summary.doing(effect))
                names.update(alias.encode() for alias in summary.aliases)
        for successor in read.edges:
            if successor not in members:
                theirs = known[successor]
                if theirs is None:
                    return None
                for effect, names in theirs.items():
                    found.setdefault(effect, set()).update(names)
    for member in component:
        facts = module_read(member, view)
        for _, imported in facts.imports if facts is not None else ():
            for name, bound in imported:
                if bound != name:
                    for names in found.values():
                        if name.encode() in names:
                            names.add(bound.encode())
    return {effect: frozenset(names) for effect, names in found.items()}


def _edges(source: str, view: ProjectView) -> tuple:
    """The project files the imports of the module file `source` name (read once per view)."""
    return _module(source, view).edges


def _may_do(source: str, view: ProjectView, effect: str) -> bool:
    """Whether a function of the module file `source` may have `effect` (its bytes hold a token
    of it, vocabulary.effects.possible_effects, or were not read: then its summary says)."""
    possible = _module(source, view).effects
    return possible is None or effect in possible


def _module(source: str, view: ProjectView) -> _Read:
    """What the walk reads of the module file `source`, from the one reading per view the import
    followers share (vocabulary.imported_asks.module_read): the project files its imports name,
    the effects its bytes may hold (None where they were not read, over MODULE_LIMIT or
    unreadable) and whether they hold a roots word (True where not read). Most modules a walk
    reaches hold no effect's token, and their summaries are then not asked for (a second reading
    of each)."""
    edges = view.table(_EDGES)
    found = edges.get(source)
    if found is None:
        facts = module_read(source, view)
        if facts is None:
            found = edges[source] = _Read((), None, True)
        else:
            imported = tuple(_imported_files(source, view, facts.imports, facts.plain))
            found = edges[source] = _Read(imported, facts.effects, facts.roots)
    return found


def _imported_files(path: str, view: ProjectView, imports, plain) -> list:
    """The project files the imports of the file at `path` name (`imports`: its `from_imports`;
    `plain`: its `plain_imports`): the modules, and for a package, the submodules `from package
    import name` may mean. An SDK package's name counts where it is a project file (the SDK's
    own repository, or a package of the project named `mcp`, as `imports_a_doer` reads it);
    the walk used to leave it out and count such a module as able to do anything, which made
    every module of fast-agent, whose `fast_agent/mcp/` package its siblings' `from mcp import`
    resolves to, a reason to search every imported name (issue 37)."""
    return _resolved(path, view, imports, plain, None)[0]


def _resolved(path: str, view: ProjectView, imports, plain, data: bytes | None) -> tuple:
    """(`_imported_files`; given the file's bytes `data`, the files imported_asks.imports_a_doer
    reads for it that those do not hold: the modules it imports from and whole, and the
    submodules its names are, `named_module`), sorted. The two look up the same modules, once
    here (issue 37: they were two passes over each file's imports, the second a fifth of
    mcp-cli's import followers)."""
    folder = file_folder(view, path)
    found: set = set()
    followed: set = set()
    for module, names in imports:
        source = folder_source(view, folder, module)
        if data is not None:
            followed.add(source)
            if folder_may_have_submodules(view, folder, module):
                followed.update(named_module(data, folder, module, name, bound, source, view) for name, bound in names)
        if source is None and not module.startswith("."):
            continue  # not in the project (`typing`, `httpx`): nor are its submodules
        found.add(source)
        if source is None or os.path.basename(source) == "__init__.py":
            for name, _ in names:
                found.add(folder_source(view, folder, module + name if module.endswith(".") else f"{module}.{name}"))
    whole = {folder_source(view, folder, module) for module, _ in plain}
    found |= whole
    found.discard(None)
    found.discard(path)
    if data is None:
        return sorted(found), []
    followed |= whole
    followed.discard(None)
    return sorted(found), sorted(followed.difference(found))
