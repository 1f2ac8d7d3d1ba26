"""A team's own wrappers (`[tool.mcp-migrate.extend-apis]`) reported like the SDK's APIs.

`RT001 = ["myapp.mcp.get_client_roots"]` makes every call that resolves, through the file's
imports, to `myapp.mcp.get_client_roots` an RT001 finding."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from mcp_migrate.checks.base import Rule
from mcp_migrate.core.catalog import load_catalog

#: "`myapp.get_roots` wraps roots-request (a server asks the client for its roots (roots/list)) ..."
MSG = "`{name}` wraps {rule} ({summary_lower}); configured in extend-apis"


def wrapper_rule_for(settings, data: bytes) -> Optional[type]:
    """A rule class reporting calls to the configured wrappers, or None when the file cannot
    mention any of them (the last component of a qualified name must occur in the bytes)."""
    targets = {
        qname: code
        for code, names in settings.extend_apis
        if code in settings.select
        for qname in names
        if qname.rpartition(".")[2].encode() in data
    }
    if not targets:
        return None

    class WrapperCalls(Rule):
        CODE = "extend-apis"

        def visit_Call(self, node: cst.Call) -> None:
            qname = self.resolver.qualified(node.func)
            code = targets.get(qname) if qname else None
            if code is not None:
                info = load_catalog()[code]
                summary = info.summary[:1].lower() + info.summary[1:]
                message = MSG.format(name=qname, rule=info.name, summary_lower=summary.rstrip("."))
                self.context.report(code, node, message)

    return WrapperCalls
