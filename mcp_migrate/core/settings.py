"""What one file is checked with: the selected rules, a team's wrapper APIs, the migration
strategy and the names rewrites introduce. Built by `project.selection`, read by the engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import DEFAULT_MAX_FILE_SIZE

#: Migration strategies for RT001-RT003 rewrites, in the order the CLI lists them.
STRATEGIES = ("tool-parameter", "resource-uri", "server-config")


@dataclass(frozen=True)
class Settings:
    """What to check: the selected rule codes and a team's own wrapper APIs."""

    select: frozenset = frozenset()
    #: rule code -> qualified names of a team's wrappers that count as that rule's API.
    extend_apis: tuple = ()
    #: Migration strategy (one of STRATEGIES), or None for the per-site default; and the
    #: names the rewrites introduce.
    strategy: Optional[str] = None
    parameter: str = "directories"
    env_var: str = "MCP_ROOTS"
    #: (tool name, parameter name) of tools anywhere in the run that a rewrite gives a
    #: directories parameter, so a client in the same repository can start passing it.
    migrated_tools: tuple = ()
    #: Also compute each fixable rule's change (FileResult.fix_previews) from the check's own
    #: parse, for reporters that show fixes (full text, SARIF) without running the fixer.
    fix_previews: bool = False
    #: Files larger than this many bytes (or tokens x 4) are reported (E997), not parsed; 0: no limit.
    max_file_size: int = DEFAULT_MAX_FILE_SIZE

    @classmethod
    def default(cls) -> Settings:
        return cls(select=frozenset(load_catalog()))
