"""What one file is checked with: the selected rules, a team's wrapper APIs, the migration
strategy and the names rewrites introduce. Built by `mcp_migrate.api` (which alone knows the
rule classes), read by the engine. It also carries the project view (core.project_view): the
other files of the project as the run sees them, the engine's only way to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcp_migrate.core.codes import DEFAULT_MAX_FILE_SIZE
from mcp_migrate.core.coordination import RunPlan
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.record import replace

if TYPE_CHECKING:  # the rule contract loads LibCST, which a file no rule can report on never needs
    from mcp_migrate.core.rule import Rule

#: Migration strategies for RT001-RT003 rewrites, in the order the CLI lists them.
STRATEGIES = ("tool-parameter", "resource-uri", "server-config")


@dataclass(frozen=True)
class Settings:
    """What to check: the selected rule codes and a team's own wrapper APIs."""

    select: frozenset[str] = frozenset()
    #: The rule classes that run (core.rule.Rule subclasses): the selection's rules, chosen by
    #: mcp_migrate.api; the engine runs exactly these and knows no others.
    rules: tuple[type[Rule], ...] = ()
    #: rule code -> qualified names of a team's wrappers that count as that rule's API.
    extend_apis: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Migration strategy (one of STRATEGIES), or None for the per-site default; and the
    #: names the rewrites introduce.
    strategy: str | None = None
    parameter: str = "directories"
    env_var: str = "MCP_ROOTS"
    #: What the run's other files' rewrites told this one (core.coordination): the tools that
    #: gain a directories parameter, and whether a server in the run still asks for roots.
    run: RunPlan = RunPlan()
    #: Also compute each fixable rule's change (FileResult.fix_previews) from the check's own
    #: parse, for reporters that show fixes (full text, SARIF) without running the fixer.
    fix_previews: bool = False
    #: `fix --apply-suggestions`: also apply the display-only fixes (suggestions `check` shows
    #: and `fix` alone never applies: a security rewrite, a client removal held while a server
    #: still asks). They stay suggestions in what `check` reports.
    apply_suggestions: bool = False
    #: Files larger than this many bytes (or tokens x 4) are reported (E997), not parsed; 0: no limit.
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    #: The project's other files as this run sees them (core.project_view), None until a run
    #: or the API gives one (`with_view`). Not part of what is checked: two Settings that
    #: differ only in their view are equal, and the results cache's key leaves it out.
    view: ProjectView | None = field(default=None, compare=False, hash=False, repr=False)


def with_view(settings: Settings) -> Settings:
    """`settings` when it carries a project view, else the same with a fresh one (kept only for
    the check or fix it is given to)."""
    if settings.view is not None:
        return settings
    return replace(settings, view=ProjectView())
