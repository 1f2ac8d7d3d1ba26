"""Code its project has already deprecated for Roots: a function or class under
`@deprecated("... SEP-2577 ...")` (typing_extensions, `warnings` in 3.13, the `deprecated`
package), whose body starts by warning about it (`warnings.warn("... SEP-2577 ...")`, what
RT001-RT006's suggested deprecations insert), or whose docstring says so in a sentence of its
own ("Deprecated in 2026-07-28 (SEP-2577)", "Removed in protocol 2026-07-28", a
`.. deprecated::` directive): the `mcp` SDK's protocol types, which its own code still builds
for 2025-era peers and so cannot warn, and what a suggested deprecation of a class writes. That
is the migration a library merges for its public Roots API (the `mcp` SDK, upstream 4573e4ac3): the method keeps serving the 2025-era
peers that still call it, and warns them. A Roots construct inside it is migrated, not a
finding: the engine keeps it aside as suppressed, with the definition's name as the reason, and
a re-run after `fix --apply-suggestions` has nothing left to say there."""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.syntax import docstring_text, is_docstring, iter_nodes, sole_small

#: The kind of suppression (core.findings.Suppressed) of a finding inside such a definition.
DEPRECATED = "deprecated"
#: Words a deprecation message names Roots by.
_ROOTS_WORDS = ("sep-2577", "roots")
#: A sentence of a docstring that says its definition is deprecated: "Deprecated in ...", a
#: Sphinx `.. deprecated::` directive, "Removed in protocol 2026-07-28" (python-sdk's
#: RootsListChangedNotification); not "roots are deprecated, so ..." in passing.
_DEPRECATED_SENTENCE = lazy_compile(r"(?:\A|[.!?]\s+|\n\s*)(?:(?:\.\.\s*)?deprecated\b|removed in\b)", re.IGNORECASE)
#: How many leading statements (after a docstring) a deprecation warning may stand among.
LEADING = 3


def deprecated_for_roots(node: cst.CSTNode, ancestors) -> str | None:
    """The reason a finding at `node` is already migrated (the deprecated definition holding
    it, innermost first), or None. `ancestors`: the walk's ancestors of `node`."""
    for holder in (node, *reversed(tuple(ancestors))):
        if isinstance(holder, (cst.FunctionDef, cst.ClassDef)) and _deprecated(holder):
            where = "" if node is holder or node is holder.name else "inside "
            return f"{where}`{holder.name.value}`, which its project deprecated for Roots"
    return None


def deprecated_functions(functions) -> list:
    """Those of `functions` (FunctionDef nodes) their project already deprecated for Roots: the
    project's own calls of them keep working (core.fix.kept_working.calls)."""
    return [function for function in functions if _deprecated(function)]


def _deprecated(definition: cst.FunctionDef | cst.ClassDef) -> bool:
    if any(_is_roots_deprecation(d.decorator) for d in definition.decorators):
        return True
    if not isinstance(definition.body, cst.IndentedBlock):
        return False
    body = list(definition.body.body)
    if body and is_docstring(body[0]):
        if documents_deprecation(body[0]):
            return True
        body = body[1:]
    return isinstance(definition, cst.FunctionDef) and any(_warns_about_roots(s) for s in body[:LEADING])


def documents_deprecation(docstring: cst.BaseStatement) -> bool:
    """Whether a docstring statement says, in a sentence of its own, that its definition is
    deprecated, and names Roots."""
    text = docstring_text(docstring)
    if text is None:
        return False
    return bool(_DEPRECATED_SENTENCE.search(text)) and any(word in text.lower() for word in _ROOTS_WORDS)


def _is_roots_deprecation(decorator: cst.BaseExpression) -> bool:
    """`@deprecated("...roots...")`, `@typing_extensions.deprecated(...)`."""
    if not isinstance(decorator, cst.Call):
        return False
    func = decorator.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name == "deprecated" and _mentions_roots(decorator)


def _warns_about_roots(statement: cst.CSTNode) -> bool:
    """`warnings.warn("...SEP-2577...", ...)` as a statement of its own (not under an `if`: a
    parameter's deprecation warns only when the parameter is given)."""
    small = sole_small(statement)
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return False
    func = small.value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name == "warn" and _mentions_roots(small.value)


def _mentions_roots(call: cst.Call) -> bool:
    """The call's first argument is text naming Roots."""
    if not call.args:
        return False
    for node in iter_nodes(call.args[0].value):
        if isinstance(node, cst.SimpleString) and any(word in node.value.lower() for word in _ROOTS_WORDS):
            return True
    return False
