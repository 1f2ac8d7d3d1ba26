"""The records a check produces: findings and per-file errors, shared by every reporter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from mcp_migrate.core.coordination import FileNotes

#: The notes of a file whose rewrites tell the run nothing.
_NO_NOTES = FileNotes()

#: What a finding's `fix` may say: no fix; a fix `fix` applies; one only `fix --unsafe-fixes`
#: applies; a suggestion shown, never applied (ruff's display-only); or only a review marker,
#: a comment `fix --unsafe-fixes` leaves for a human (the code is unchanged and the finding
#: stays, so it is never counted or shown as fixable). The JSON schema's enum is this tuple.
FIX_KINDS = ("none", "safe", "unsafe", "display", "marker")
#: The kinds that change code: what "fixable" counts.
FIXING_KINDS = ("safe", "unsafe")


class Related(NamedTuple):
    """Another place a finding concerns: a caller of the helper the finding is in (SARIF's
    relatedLocations). Lines and columns are 1-based, as the finding's own."""

    path: str
    line: int
    column: int
    message: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message}


class Via(NamedTuple):
    """What a caller's finding stands for: a call of the helper `owner.name` (owner: its class,
    or None) in the file at `path` ("" for the caller's own file), whose `code` finding is the
    real one. core.callers folds such findings into that finding as Related locations."""

    code: str
    path: str
    owner: str | None
    name: str


class HelperSite(NamedTuple):
    """Where the first `code` finding of a helper (`owner.name`) of this file is: what a
    caller's Via leads to."""

    code: str
    owner: str | None
    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Finding:
    """One diagnostic. Lines and columns are 1-based; the end is exclusive, like ruff's."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    severity: str
    fix: str = "none"
    #: What to do about it (core.messages); the message says only what is wrong.
    help: str = ""
    #: Related locations (its helper's callers, core.callers), sorted; reported with the finding.
    related: tuple = ()
    #: Set on a caller's finding: the helper finding it stands for (core.callers); never reported.
    via: Via | None = None

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "help": self.help,
            "severity": self.severity,
            "fix": self.fix,
            **({"related": [r.to_json() for r in self.related]} if self.related else {}),
        }


@dataclass(frozen=True)
class FileError:
    """Something went wrong inside mcp_migrate for one file (a rule raised, a fix broke the code).

    The file's other results survive; the run reports this and exits 2."""

    path: str
    code: str  # the rule code involved, or "internal"
    message: str

    def to_json(self) -> dict:
        return {"path": self.path, "code": self.code, "message": self.message}


#: What an applied edit did: rewrote the code (the finding is gone) or only left a
#: `# mcp-migrate: CODE review:` marker above it (the finding stays, with an RT901 beside it).
FIXED, MARKED = "fix", "marker"


class Applied(NamedTuple):
    """One fix that fix mode applied: the finding's rule and line, and whether it rewrote the
    code (FIXED) or only left a review marker (MARKED: the finding remains)."""

    code: str
    line: int
    kind: str = FIXED


class Suppressed(NamedTuple):
    """A finding an inline comment silenced: which kind of comment, and the reason it gives."""

    finding: Finding
    kind: str  # "noqa" | "ignore" | "lint-fixme" | "deprecated" (core.deprecated)
    reason: str


@dataclass
class FileResult:
    """Everything one file produced; picklable so it can cross a process boundary."""

    path: str
    findings: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    #: Set by fix mode: the new bytes, or None when nothing changed.
    fixed_source: bytes | None = None
    #: Set by fix mode: an Applied record (code, line, kind) per fix applied, review markers
    #: included (kind MARKED); `fixed` and `marked` split them.
    applied: list = field(default_factory=list)
    #: Findings silenced by an inline suppression (Suppressed records).
    suppressed: list = field(default_factory=list)
    #: What this file's rewrites tell the rest of a fix run (core.coordination.FileNotes).
    notes: FileNotes = field(default_factory=FileNotes)
    #: With Settings.fix_previews: (code, unsafe?) -> the file's bytes after that rule's fixes
    #: of that kind, one pass over the checked tree (core.fix.loop.analysis_previews).
    fix_previews: dict = field(default_factory=dict)
    #: With Settings.fix_previews: (code, line, column, unsafe?) -> the hunks of that finding's
    #: own fix, [(first old line, last old line, removed lines, added lines)], for findings
    #: whose rule has other fixes in the file (core.fix.loop.finding_previews).
    finding_fixes: dict = field(default_factory=dict)
    #: Whether the previews above were computed for this result (a run that shows fixes
    #: treats a cached result without them as not yet checked for it).
    previewed: bool = False
    #: The other files the check read, (path, size, mtime ns) each (core.dependencies): a
    #: cached result holds only while they are unchanged.
    depends: tuple = ()
    #: HelperSite per helper of this file whose body holds a finding that callers stand for
    #: (one call away): where a caller's Via leads (core.callers).
    helpers: tuple = ()
    #: The questions the check asked of its run's plan, with their answers
    #: (core.coordination.AskedPlan): the run need not check the file again under a plan that
    #: answers them alike. None where they are not known (a result from the results cache).
    plan_asked: tuple | None = None
    #: (view table, key, held answer) of what the check worked out or used that its check
    #: again under the run's plan would work out again, in whichever worker process takes it (a
    #: huge test module's partial source, core.engine._in_part; the analyses of the helper
    #: modules a rule follows, core.project_view.using): the run hands it over
    #: (run.coordination). Neither compared nor stored in the results cache.
    handed: tuple = field(default=(), compare=False, repr=False)

    def says_nothing(self) -> bool:
        """Whether nothing here reaches a report, a run's plan or a caller's finding: no
        finding, error, suppression, fix, note, preview or helper (most of a tree's files). A
        check run keeps only the others (issue 37: a warm run over 16 copies of a tree held
        17,040 such results). What it does not count: `previewed`, `depends` and `plan_asked`
        say how far the result holds, which the results cache asks before handing it out."""
        return not (
            self.findings
            or self.errors
            or self.fixed_source is not None
            or self.applied
            or self.suppressed
            or self.fix_previews
            or self.finding_fixes
            or self.helpers
            or self.notes != _NO_NOTES
        )

    @property
    def fixed(self) -> list:
        """The applied fixes that rewrote code (their findings are gone)."""
        return [a for a in self.applied if getattr(a, "kind", FIXED) == FIXED]

    @property
    def marked(self) -> list:
        """The applied fixes that only left a review marker (their findings remain)."""
        return [a for a in self.applied if getattr(a, "kind", FIXED) == MARKED]
