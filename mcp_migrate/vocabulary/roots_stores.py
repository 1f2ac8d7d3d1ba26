"""A project's own roots store: a class whose methods are all roots setters and getters of what
they store (`RootsManager`: `add_root` appends to `self._roots`, `list_roots` returns it), and
where the rest of the project hands one on (a parameter typed with it, an instance passed to a
call), in the same module or one import away. RT002 owns one `RootsStores` per file."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.vocabulary.roots_api import returns_stored, stored_roots_attributes
from mcp_migrate.vocabulary.wrappers import ImportedHelpers


class RootsStores:
    """What one file says about roots stores: its own (known at the end of each class), and
    the sites that hand one on (a class of this file: known at the end of the file)."""

    def __init__(self, path: str, tokens: tuple, analyse, max_size: int, view) -> None:
        #: id of a class -> (first setter's name, the `self.<attr>` names its setters store into)
        self._stored: dict = {}
        #: names of this file's roots-store classes
        self.classes: set = set()
        #: (site, class name) typed with a class of this file: a site if that class is a store
        self._local: list = []
        #: the project's other modules' stores (`RootsManager` from `.session`)
        self.imported = ImportedHelpers(path, tokens, analyse, max_size, view)

    def setter(self, owner, func: cst.FunctionDef) -> None:
        """A roots setter reported in a class body: what it stores there."""
        attributes = stored_roots_attributes(func) if isinstance(owner, cst.ClassDef) else set()
        if attributes:
            name, known = self._stored.get(id(owner), (func.name.value, set()))
            self._stored[id(owner)] = (name, known | attributes)

    def getters(self, node: cst.ClassDef, reported: set) -> tuple:
        """(setter name, getters) when the class is a store (every method not already reported
        is a getter of what its setters store), else (None, []). A class with other work besides
        (a client that also keeps a provider) is not one."""
        stored = self._stored.get(id(node))
        if stored is None:
            return None, []
        setter, attributes = stored
        methods = [s for s in node.body.body if isinstance(s, cst.FunctionDef) and not s.name.value.startswith("__")]
        getters = [m for m in methods if id(m) not in reported and returns_stored(m, attributes)]
        if not getters or any(id(m) not in reported and m not in getters for m in methods):
            return None, []
        self.classes.add(node.name.value)
        return setter, getters

    def typed(self, site, qualified: str | None, name: str) -> str | None:
        """The store class `site` (a parameter, an argument) is typed with, when one of another
        module; one of this file's classes is held for `local_sites`."""
        if qualified is None or "." not in qualified:
            self._local.append((site, name))
            return None
        return qualified.rpartition(".")[2] if self.imported.defined(qualified) is not None else None

    def local_sites(self) -> list:
        """(site, class name) typed with a store of this file (at the end of the file)."""
        return [(site, name) for site, name in self._local if name in self.classes]
