"""What the RT001 rewrite's parts tell each other: the plan's outcome for a site, the consumers'
plan of edits, and why a part gives up (another strategy might apply; no strategy may, and a
review marker says what to decide; the roots carry data rather than directories)."""

from __future__ import annotations

from mcp_migrate.core.fix.edits import Fix
from mcp_migrate.core.record import field, record


@record
class Outcome:
    fix: Fix | None
    applicable: tuple
    reason: str = ""
    #: What a human must decide, where the site's roots are not directories at all (the rule
    #: says this instead of "take the directories as ...").
    decide: str = ""
    #: The fix only leaves a `# mcp-migrate:` review marker: the site stays a finding.
    marker_only: bool = False
    #: Why the rewrite is only suggested (a display fix), or empty.
    suggested: str = ""


class NotUnderstood(Exception):
    """A use of the roots result that no rewrite covers; the message says which."""


class SideChannel(NotUnderstood):
    """The roots carry something other than directories: no rewrite at all, not even a
    value of the same shape (it would carry made-up data)."""


@record
class UsePlan:
    edits: list = field(default_factory=list)
    #: Nodes whose subtrees disappear (for "is `ctx` still used?" questions).
    dropped: list = field(default_factory=list)
    needs_path: bool = False
    #: Why the rewrite is only a suggestion (a helper now given the directory): empty if not.
    suggested: str = ""


class CannotApply(Exception):
    """The chosen strategy cannot rewrite this site (another one might)."""


class NoRewrite(CannotApply):
    """No strategy can rewrite this site without changing behaviour: report, and leave a
    review marker that says what a human must decide."""


class SideChannelSite(NoRewrite):
    """The roots carry data, not directories: there is nothing to pass as directories."""
