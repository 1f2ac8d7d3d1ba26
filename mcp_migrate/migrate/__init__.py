"""Migration rewrites off Roots (SEP-2577): tool parameters, resource URIs, server configuration.

Rules call these builders when they report; the builders return a `Fix` (always unsafe: the
tool's interface or the server's start-up contract changes) or say why no rewrite applies.

The engine hands rules this package as `FileContext.rewrites`, so rules and rewrites never import
each other: a rule says where a rewrite is wanted, the rewrite decides whether one is safe.
"""

from mcp_migrate.migrate.client import (
    note_still_asks,
    remove_provider_arg,
    remove_provider_statement,
    server_still_asks,
)
from mcp_migrate.migrate.server import plan_request_rewrite

__all__ = [
    "note_still_asks",
    "plan_request_rewrite",
    "remove_provider_arg",
    "remove_provider_statement",
    "server_still_asks",
]
