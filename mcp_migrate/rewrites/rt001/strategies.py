"""The three migration strategies of RT001, one class each: where the directories come from
(a tool parameter, file:// URIs given as a tool parameter, or server configuration)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.sdk import SERVER_CLASSES
from mcp_migrate.rewrites.rt001.outcomes import CannotApply

URI_HELPER = "_file_uri_to_path"


PARAM_DESCRIPTION = "Absolute paths of the directories to work in."


URI_DESCRIPTION = "file:// URIs of the directories to work in."


def constant_name(env_var: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in env_var.upper())
    return name if name and not name[0].isdigit() else f"_{name}"


def uri_prologue(target: str, optional: bool) -> str:
    """resource-uri's first line: the paths of the given URIs (none when `uris` is optional)."""
    return f"{target} = [{URI_HELPER}(uri) for uri in {'uris or []' if optional else 'uris'}]"


def config_anchor(module: cst.Module, resolver) -> cst.BaseStatement:
    """The statement after which module-level configuration goes: the server's assignment, else
    the last import at the top of the module."""
    last_import = None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                    if resolver.sdk_name(small.value.func) in SERVER_CLASSES:
                        return stmt
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    last_import = stmt
    if last_import is None:
        raise CannotApply("no module-level place for the configuration")
    return last_import


def is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
