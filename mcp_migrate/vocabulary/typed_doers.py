"""The byte and syntax screens' twin of the resolver's project types (core.project_types): the
project classes a file can reach from its imports by types (a method's return annotation, an
attribute `__init__` types, a base), and whether one of them has a method whose body does what
a rule reports that the file spells (`session.connector.set_roots(...)` with `session` from
`client.get_session()`, `MCPClient` imported).

Why: the rules follow a call on a typed receiver into the project module that defines the
method (vocabulary.wrappers `imported_target`); a screen that only knew the modules a file
imports would drop the file before the rule saw it (`tests/test_screens.py`). Read through the
run's project view, for files that mention MCP only (as the resolver types them)."""

from __future__ import annotations

import re

from mcp_migrate.core.line_scan import line_matches
from mcp_migrate.core.project_types import reachable
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.sdk import MENTIONS_MCP, SDK_PACKAGES
from mcp_migrate.vocabulary.effects import module_effects
from mcp_migrate.vocabulary.imported_asks import from_imports

#: `import pkg.mod` / `import pkg.mod as m` (one module per statement).
_IMPORT = re.compile(rb"(?m)import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$")
#: The view's table: (path, size, hash of the bytes) -> (classes, module files consulted).
_TABLE = "typed doers: classes"


def typed_classes(data: bytes, path: str, view: ProjectView) -> list:
    """The project classes (core.project_types.ProjectClass) the file at `path` reaches by
    types from its imports; none for a file that does not mention MCP or has no path."""
    if not path or path.startswith("<") or MENTIONS_MCP.search(data) is None:
        return []
    known = view.table(_TABLE)
    key = (path, len(data), hash(data))
    held = known.get(key)
    if held is not None:
        for source in held[1]:
            view.consulted(source)  # the check under way depends on them too
        return held[0]
    with view.recording() as seen:
        classes = reachable(view, path, _imported_names(data))
    for entry in seen:
        view.consulted(entry[0])
    known[key] = (classes, tuple(entry[0] for entry in seen))
    return classes


def _imported_names(data: bytes) -> list:
    """The qualified names a file imports (`pkg.client.MCPClient`, `.session.Session`), and
    `m.Name` for each `Name` it spells after a module bound by `import pkg.mod as m`."""
    names = []
    for module, imported in from_imports(data):
        if module.partition(".")[0] in SDK_PACKAGES:
            continue
        for name, _ in imported:
            names.append(module + name if module.endswith(".") else f"{module}.{name}")
    for match in line_matches(_IMPORT, data):
        module = match.group(1).decode("ascii", "replace")
        if module.partition(".")[0] in SDK_PACKAGES:
            continue
        bound = match.group(2) or match.group(1)
        for spelled in re.finditer(rb"\b" + re.escape(bound) + rb"\.(\w+)", data):
            names.append(f"{module}.{spelled.group(1).decode('ascii', 'replace')}")
    return names


def typed_doer(data: bytes, path: str, view: ProjectView, limit: int, effect: str) -> bool:
    """Whether a project class the file reaches by types has a method whose own body has
    `effect` (vocabulary.effects) and that the file spells as `.method`."""
    for cls in typed_classes(data, path, view):
        local = cls.name.rpartition(".")[2]
        for owner, method in module_effects(cls.source, view, limit).doing(effect):
            if owner == local and _spells(data, b"." + method.encode()):
                return True
    return False


def typed_module_files(data: bytes, path: str, view: ProjectView) -> list:
    """The module files of the classes the file reaches by types (the syntax screen's twin of
    `typed_doer`: where a call on a typed receiver may run a helper)."""
    return sorted({cls.source for cls in typed_classes(data, path, view)})


def _spells(data: bytes, text: bytes) -> bool:
    return re.search(re.escape(text) + rb"(?!\w)", data) is not None
