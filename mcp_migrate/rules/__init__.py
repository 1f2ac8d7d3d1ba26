"""The rules, one module (or package) each: this package holds rule code only, and its rule
classes are found by walking it (as Fixit's `walk_module` / `find_rules`), not by a list that
each new rule must join. What a rule's visits share with other rules lives one floor down, in
`mcp_migrate.vocabulary`; what the run knows of a rule without importing it (gate, side, tags)
lives on its page in the catalog (`rules/<CODE>-<name>.md` at the top of the repository, which
ships as `mcp_migrate._catalog`: pages there, code here)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from mcp_migrate.core.rule import Rule


def _modules(screens: bool) -> list:
    """The modules of this package, sub-packages' modules included (`rt102.rule`), imported in
    name order: the screen modules (`*_screen`, `rt102.screen`) or the others."""
    names = [info.name for info in pkgutil.walk_packages(__path__, __name__ + ".")]
    return [importlib.import_module(name) for name in names if is_screen_module(name) == screens]


def is_screen_module(name: str) -> bool:
    """A module of a rule's screens, by its name: `rt001_screen`, `rt102.screen`."""
    last = name.rpartition(".")[2]
    return last == "screen" or last.endswith("_screen")


def _classes(screens: bool) -> tuple:
    """Each `core.rule.Rule` subclass with a `CODE` defined in a module of that kind (a class a
    module only imports is its own module's), ordered by code."""
    found = {
        value
        for module in _modules(screens)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Rule)
        and value.__module__ == module.__name__
        and getattr(value, "CODE", "")
    }
    return tuple(sorted(found, key=lambda rule: rule.CODE))


@lru_cache(maxsize=1)
def all_rules() -> tuple:
    """The rule classes, ordered by code: the classes of the rule modules."""
    return _classes(screens=False)


@lru_cache(maxsize=1)
def all_screens() -> tuple:
    """Each rule's screens, ordered by code: the class its rule class inherits them from, in a
    module of its own without LibCST (`<rule>_screen`), which a run tests files with before it
    imports a rule (core.screening)."""
    return _classes(screens=True)
