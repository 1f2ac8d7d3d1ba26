"""Which receivers are MCP SDK objects: by annotation/assignment type, or by the SDK's own
shape (`ctx.session`, `request_context.session`) in a file that imports an MCP SDK."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.resolve import Resolver
from mcp_migrate.core.sdk import BASE_SESSION, HOST_FRAMEWORKS, sdk_or_framework, sdk_symbol

#: A `<something>.session` (or a name bound to one) whose side is unknown: matches either set.
SESSION_SHAPE = sdk_symbol(BASE_SESSION)


def is_session_shape(expr: cst.BaseExpression, resolver: Resolver) -> bool:
    """`<anything>.session` or a name called `session`, in a file that imports an MCP SDK."""
    if not resolver.imports_sdk:
        return False
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "session"
    return False


def is_sdk_receiver(
    expr: cst.BaseExpression, resolver: Resolver, classes: frozenset, member: str | None = None
) -> bool:
    """An SDK object of one of `classes`, or a host framework's class of the same name (mcp-agent
    re-exports and subclasses the SDK's Context); a project class that subclasses one, for a
    `member` it inherits (core.resolve: `sdk_instance`)."""
    kind = resolver.sdk_instance(expr, member) or _host_kind(expr, resolver)
    if kind is not None:
        return kind in classes or kind == SESSION_SHAPE
    if isinstance(expr, cst.Attribute) and expr.attr.value == "session":
        return is_session_shape(expr, resolver)
    return False


def _host_kind(expr: cst.BaseExpression, resolver: Resolver):
    return sdk_symbol(resolver.instance_type(expr), HOST_FRAMEWORKS)


def _unknown_or_mcp(qualified: str) -> bool:
    """A type that says nothing against an MCP session: `Any`, `object`, or an MCP class."""
    return qualified in ("typing.Any", "typing_extensions.Any", "object") or sdk_or_framework(qualified)


def is_session_name(expr: cst.BaseExpression, resolver) -> bool:
    """A receiver named like a session (`session`, `self._server_session`, `client_session`)
    whose value the resolver knows nothing about (not an import, not a typed non-SDK object)."""
    if isinstance(expr, cst.Name):
        name = expr.value
        binding = resolver.lookup(name)
        if binding is not None and (binding.is_import or not _unknown_or_mcp(binding.name)):
            return False
    elif isinstance(expr, cst.Attribute):
        name = expr.attr.value
    else:
        return False
    return name == "session" or name.endswith("_session")
