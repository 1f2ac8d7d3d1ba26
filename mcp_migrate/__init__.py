"""mcp_migrate: find and migrate uses of MCP Roots (deprecated by SEP-2577, 2026-07-28).

The public API (mcp_migrate.api) is the pure core the CLI is built on:
    check_source(source, path="<string>", settings=None) -> list[Finding]
    fix_source(source, path="<string>", settings=None, unsafe=False) -> fixed source
Attributes load lazily so `mcp-migrate rules` / `explain` start without importing LibCST.
"""

__version__ = "0.2.0"

_LAZY = {
    "Settings": "mcp_migrate.core.settings",
    "check_bytes": "mcp_migrate.api",
    "check_source": "mcp_migrate.api",
    "default_settings": "mcp_migrate.api",
    "fix_bytes": "mcp_migrate.api",
    "fix_source": "mcp_migrate.api",
    "Finding": "mcp_migrate.core.findings",
    "FileError": "mcp_migrate.core.findings",
    "FileResult": "mcp_migrate.core.findings",
}
__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_migrate' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
