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


def _modules() -> list:
    """Every module of this package, sub-packages' modules included (`rt102.rule`), imported
    in name order."""
    return [importlib.import_module(info.name) for info in pkgutil.walk_packages(__path__, __name__ + ".")]


@lru_cache(maxsize=1)
def all_rules() -> tuple:
    """The rule classes, ordered by code: each `core.rule.Rule` subclass with a `CODE` defined
    in a module of this package (a class a module only imports is its own module's)."""
    found = {
        value
        for module in _modules()
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Rule)
        and value.__module__ == module.__name__
        and "CODE" in vars(value)
    }
    return tuple(sorted(found, key=lambda rule: rule.CODE))
