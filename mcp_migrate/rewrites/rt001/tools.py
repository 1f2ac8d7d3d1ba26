"""Tool discovery: which functions are tools of an MCP server, and the names clients call them by."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.sdk import TOOL_SERVERS
from mcp_migrate.core.syntax import (
    iter_nodes,
    keyword,
    literal,
    positional,
)


def is_tool_function(func: cst.FunctionDef, context) -> bool:
    """Registered with `@<server>.tool(...)` / `@<server>.tool`, or `<server>.add_tool(func)`."""
    resolver = context.resolver
    for dec in func.decorators:
        target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if isinstance(target, cst.Attribute) and target.attr.value == "tool":
            kind = resolver.sdk_instance(target.value)
            if kind in TOOL_SERVERS or (kind is None and resolver.imports_sdk):
                return True
    return func.name.value in _registered_tools(context)


def tool_name(func: cst.FunctionDef) -> str:
    """The name clients call the tool by: `@mcp.tool(name="...")`, else the function's name."""
    for dec in func.decorators:
        call = dec.decorator
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "tool":
            named = keyword(call, "name")
            if named is not None and isinstance(named.value, cst.SimpleString):
                return str(named.value.evaluated_value)
            args = positional(call)
            if args and isinstance(args[0].value, cst.SimpleString):
                return str(args[0].value.evaluated_value)
    return func.name.value


def served_tools(context) -> list:
    """The names of every tool the module serves: its tool functions, and the tools its
    low-level server lists by hand (`Tool(name="...")` of an MCP SDK), sorted; once a file."""
    cached = context.memo.get("served_tools")
    if cached is not None:
        return cached
    names = set()
    for node in context.index.nodes(cst.FunctionDef):
        if is_tool_function(node, context):
            names.add(tool_name(node))
    for node in context.index.nodes(cst.Call):
        if context.resolver.sdk_name(node.func) == "Tool":
            named = keyword(node, "name")
            name = literal(named.value) if named is not None else None
            if name is not None:
                names.add(name)
    context.memo["served_tools"] = sorted(names)
    return context.memo["served_tools"]


def _registered_tools(context) -> set:
    cached = context.memo.get("registered_tools")
    if cached is None:
        cached = set()
        for node in iter_nodes(context.module):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "add_tool"
            ):
                args = positional(node)
                if args and isinstance(args[0].value, cst.Name):
                    cached.add(args[0].value.value)
        context.memo["registered_tools"] = cached
    return cached
