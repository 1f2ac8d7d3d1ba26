"""The Roots protocol types of a project's own MCP implementation, and the MCP symbols an
annotation or a signature names."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.sdk import PROVIDER_SIGNATURE_TYPES, ROOTS_TYPE_NAMES


def roots_type_definition(node: cst.ClassDef, data: bytes) -> str | None:
    """The Roots protocol type a class defines (its own ListRootsRequest, ListRootsResult,
    RootsListChangedNotification, a `Root` beside its own ListRootsResult or with a `uri`
    field (issue 19 §1: `Root` next to `uri=`), a ListRootsFn
    callback Protocol), else None."""
    name = node.name.value
    if name in ROOTS_TYPE_NAMES or name.startswith("ListRootsFn"):
        return name
    if name == "Root" and (b"class ListRootsResult" in data or _declares_uri(node)):
        return name
    return None


def _declares_uri(node: cst.ClassDef) -> bool:
    """A `uri` field in the class body (`uri: str`, `uri = Field(...)`): the spec's Root, whose
    one required member is its URI."""
    for stmt in getattr(node.body, "body", ()):
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            targets = [small.target] if isinstance(small, cst.AnnAssign) else []
            if isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
            if any(isinstance(t, cst.Name) and t.value == "uri" for t in targets):
                return True
    return False


def inside_roots_type_definition(ancestors: list, data: bytes) -> bool:
    """A wire string inside a re-implemented Roots type (`method: Literal["roots/list"]`) is
    part of that one construct, reported at the class."""
    return any(isinstance(a, cst.ClassDef) and roots_type_definition(a, data) for a in ancestors[:-1])


def annotation_symbols(resolver, annotation) -> set:
    """The MCP symbols an annotation names (`ListRootsResult | ErrorData` -> both)."""
    found = set()
    stack = [annotation]
    while stack:
        expr = stack.pop()
        if isinstance(expr, (cst.Name, cst.Attribute)):
            symbol = resolver.mcp_name(expr)
            if symbol:
                found.add(symbol)
            continue
        stack.extend(_annotation_parts(expr))
    return found


def annotation_names(annotation) -> list:
    """The names an annotation is made of (`RootsManager | None` -> `RootsManager`, `None`;
    `Optional["Pinned"]` -> `Optional`, `Pinned`)."""
    found, stack = [], [annotation]
    while stack:
        expr = stack.pop()
        if isinstance(expr, (cst.Name, cst.Attribute)):
            found.append(expr)
        else:
            stack.extend(_annotation_parts(expr))
    return found


def _annotation_parts(expr) -> list:
    """The annotations inside one: a subscript's head and items, both sides of `X | Y`, the
    expression a string annotation holds."""
    if isinstance(expr, cst.Subscript):
        return [expr.value, *(e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index))]
    if isinstance(expr, cst.BinaryOperation):
        return [expr.left, expr.right]
    if isinstance(expr, cst.SimpleString):
        try:
            return [cst.parse_expression(expr.evaluated_value)]
        except Exception:
            return []
    return []


def param_symbols(resolver, params: cst.Parameters) -> set:
    """The MCP symbols a function's parameter annotations name."""
    every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    found = set()
    for param in every:
        if param.annotation is not None:
            found |= annotation_symbols(resolver, param.annotation.annotation)
    return found


#: The name of a type that provides roots: a project's own provider, handler or callback type
#: (`RootsProvider`, `ListRootsFn`), the SDK's and fastmcp's too. Not `*RootsManager`: a host's
#: allow-list manager and a server's manager of the client's roots are called that too.
_PROVIDER_TYPE_NAME = lazy_compile(
    r"(?:^|[a-z_])Roots(?:Provider|Handler|Callback|Fn|FnT|List)$|^Root(?:Provider|Handler|Callback)$|^ListRootsFn"
)


def provider_types(resolver, annotation) -> set:
    """The roots-provider types an annotation names: by name (a project's own `RootsProvider`,
    whatever module it lives in), or a callable that takes a ListRootsRequest or gives a
    ListRootsResult (`Callable[[ListRootsRequest], Awaitable[ListRootsResult]]`)."""
    found = set()
    stack = [annotation]
    while stack:
        expr = stack.pop()
        if isinstance(expr, (cst.Name, cst.Attribute)):
            name = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value
            if _PROVIDER_TYPE_NAME.search(name):
                found.add(name)
            continue
        if isinstance(expr, cst.Subscript):
            head = expr.value.attr.value if isinstance(expr.value, cst.Attribute) else getattr(expr.value, "value", "")
            inner = annotation_symbols(resolver, expr)
            if head == "Callable" and inner & PROVIDER_SIGNATURE_TYPES:
                found.add("Callable")  # a callable that takes a ListRootsRequest or gives a ListRootsResult
                continue
        stack.extend(_annotation_parts(expr))
    return found
