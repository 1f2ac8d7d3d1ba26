"""Code its project has already deprecated for Roots: a function or class under
`@deprecated("... SEP-2577 ...")` (typing_extensions, `warnings` in 3.13, the `deprecated`
package), or whose body starts by warning about it (`warnings.warn("... SEP-2577 ...")`, what
RT001-RT006's suggested deprecations insert). That is the migration a library merges for its
public Roots API (the `mcp` SDK, upstream 4573e4ac3): the method keeps serving the 2025-era
peers that still call it, and warns them. A Roots construct inside it is migrated, not a
finding: the engine keeps it aside as suppressed, with the definition's name as the reason, and
a re-run after `fix --apply-suggestions` has nothing left to say there."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.syntax import is_docstring, iter_nodes, sole_small

#: The kind of suppression (core.findings.Suppressed) of a finding inside such a definition.
DEPRECATED = "deprecated"
#: Words a deprecation message names Roots by.
_ROOTS_WORDS = ("sep-2577", "roots")
#: How many leading statements (after a docstring) a deprecation warning may stand among.
_LEADING = 3


def deprecated_for_roots(node: cst.CSTNode, ancestors) -> str | None:
    """The reason a finding at `node` is already migrated (the deprecated definition holding
    it, innermost first), or None. `ancestors`: the walk's ancestors of `node`."""
    for holder in (node, *reversed(tuple(ancestors))):
        if isinstance(holder, (cst.FunctionDef, cst.ClassDef)) and _deprecated(holder):
            return f"inside `{holder.name.value}`, which its project deprecated for Roots"
    return None


def _deprecated(definition: cst.FunctionDef | cst.ClassDef) -> bool:
    if any(_is_roots_deprecation(d.decorator) for d in definition.decorators):
        return True
    if not isinstance(definition, cst.FunctionDef) or not isinstance(definition.body, cst.IndentedBlock):
        return False
    body = list(definition.body.body)
    if body and is_docstring(body[0]):
        body = body[1:]
    return any(_warns_about_roots(statement) for statement in body[:_LEADING])


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
