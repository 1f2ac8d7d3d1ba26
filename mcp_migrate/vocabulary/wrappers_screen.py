"""The extend-apis wrappers' screens, without LibCST: which configured wrappers a file can name,
and the project files a file's calls may reach one call away (`imported_module_files`, the
syntax screen's twin of `vocabulary.wrappers.ImportedHelpers`, which RT001 and RT004 follow)."""

from __future__ import annotations

import ast
import os

from mcp_migrate.core.gates import wrapper_tokens
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.modules import from_imports, module_file
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.sdk import SDK_PACKAGES


def wrapper_targets(settings, data: bytes) -> dict:
    """Qualified wrapper name -> rule code, for the configured wrappers `data` can mention
    (the last component of a qualified name must occur in the bytes)."""
    return {
        qname: code
        for code, names in settings.extend_apis
        if code in settings.select
        for qname in names
        if qname.rpartition(".")[2].encode() in data
    }


def imported_module_files(syntax, view: ProjectView) -> list:
    """The syntax screen's twin of `ImportedHelpers.helper`: the project files a call in this
    file may run a helper of (one call away), found as `helper` finds them. A call's callee
    names a module through an import (`from app.binding import f`: `app.binding`), an
    attribute chain on an imported name (`app.binding.f(...)`), or an instance of an imported
    class; every prefix of every such qualified name is a candidate. SDK and relative names are
    not followed; neither is a file without a path (standard input)."""
    path = syntax.path
    if not path or path.startswith("<"):
        return []
    directory = os.path.dirname(os.path.abspath(path))
    relative = _relative_module_files(syntax, directory)
    bound = {}
    for node in syntax.of(ast.Import):
        for alias in node.names:
            bound[alias.asname or alias.name.partition(".")[0]] = (
                alias.name if alias.asname else alias.name.partition(".")[0]
            )
    for node in syntax.of(ast.ImportFrom):
        if node.level == 0 and node.module:
            for name, module, imported in from_imports(node):
                bound[name] = f"{module}.{imported}"
    if not bound:
        return relative
    qualified = set(bound.values())
    for chain in _dotted_chains(syntax):
        head, _, rest = chain.partition(".")
        if head in bound and rest:
            qualified.add(f"{bound[head]}.{rest}")
    modules: set[str] = set()
    for name in qualified:
        parts = name.split(".")
        if parts[0] in SDK_PACKAGES:
            continue
        modules.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    found = {file for module in modules if (file := module_file(view, directory, module)) is not None}
    return sorted(found.union(relative))


def _relative_module_files(syntax, directory: str) -> list:
    """The files relative imports name (`from . import scope`, `from .binding import f`): not
    followed by `ImportedHelpers` yet, let through so that following them needs no screen change."""
    found: list = []
    for node in syntax.of(ast.ImportFrom):
        if not node.level:
            continue
        base = directory
        for _ in range(node.level - 1):
            base = os.path.dirname(base)
        module = os.path.join(base, *node.module.split(".")) if node.module else base
        candidates = [module + ".py", os.path.join(module, "__init__.py")]
        candidates += [os.path.join(module, alias.name + ".py") for alias in node.names if alias.name != "*"]
        found.extend(c for c in candidates if os.path.isfile(c))
    return found


_DOTTED = lazy_compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


def _dotted_chains(syntax) -> set:
    """`a.b.c` for every attribute chain on a name in the code, and every string that spells one
    (a string annotation `"app.models.Session"` is read by the resolver)."""
    chains = set()
    for node in syntax.of(ast.Attribute):
        parts = [node.attr]
        value = node.value
        while value.__class__ is ast.Attribute:
            parts.append(value.attr)
            value = value.value
        if value.__class__ is ast.Name:
            parts.append(value.id)
            chains.add(".".join(reversed(parts)))
    chains.update(text for text in syntax.strings if "." in text and len(text) < 200 and _DOTTED.match(text))
    return chains


class WrapperCallsScreen(Rule):
    """The screens `WrapperCalls` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "extend-apis"

    @classmethod
    def gate_tokens(cls, settings) -> tuple:
        return wrapper_tokens(settings.extend_apis)

    @classmethod
    def runs_on(cls, data: bytes, settings) -> bool:
        return bool(wrapper_targets(settings, data))
