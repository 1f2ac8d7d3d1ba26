"""Per-file state shared by every rule during the engine's one traversal."""

from __future__ import annotations

from typing import Any

import libcst as cst

from mcp_migrate.core.coordination import FileNotes
from mcp_migrate.core.messages import fit, split
from mcp_migrate.core.record import field, record
from mcp_migrate.core.resolve import Resolver
from mcp_migrate.core.sdk import Evidence, file_evidence, project_module_is_mcp
from mcp_migrate.core.settings import Settings
from mcp_migrate.core.syntax import ModuleIndex


@record
class Report:
    """What a rule said about one node, before positions and suppressions are applied."""

    code: str
    node: cst.CSTNode
    message: str
    severity: str | None
    fix: Any = None
    #: The walk's ancestor chain when the report was made: where to look for the node's
    #: statement when positions are computed (core.positions).
    ancestors: tuple = ()
    #: What to do about it (core.messages): shown under the snippet, carried apart in JSON.
    help: str = ""
    #: The fix kind the engine settled on when it differs from the Fix's own (a withheld or
    #: coordinated fix: core.engine._decide_fixes); None: the Fix says.
    kind: str | None = None
    #: A caller's report: the helper finding it stands for (core.findings.Via, core.callers).
    via: Any = None
    #: False where removing the reported construct would change what the code means rather
    #: than drop Roots (`roots=` in the capabilities a check compares with: without it the check
    #: always passes): no suggested removal is written for it (core.fix.suggested).
    removable: bool = True
    #: The report whose fix deletes this one's construct, when this one goes with it
    #: (core.fix.carried; its help names the carrier's line once positions are known).
    carrier: Any = None
    #: Why the finding is already migrated, where the engine decides it (a pass-through of a
    #: parameter its function already deprecates): kept aside as suppressed, kind `deprecated`
    #: (core.deprecated says the same of code inside a deprecated definition).
    migrated: str | None = None


@record
class FileContext:
    """Per-file state: the tree, the resolver, the settings, the walk's ancestors and reports."""

    path: str
    module: cst.Module
    resolver: Resolver
    settings: Settings
    #: The raw bytes, for cheap whole-file questions ("is there a def of this name?").
    data: bytes = b""
    #: The nodes from the module down to (and including) the node being visited.
    ancestors: list = field(default_factory=list)
    reports: list = field(default_factory=list)
    #: ids of nodes already covered by a report, so an enclosing report is not repeated inside.
    claimed: set = field(default_factory=set)
    #: What this file's rewrites tell the rest of the run (core.coordination).
    notes: FileNotes = field(default_factory=FileNotes)
    #: Per-file answers a rewrite computes once and asks again (e.g. the registered tools).
    memo: dict = field(default_factory=dict)
    #: (code, owner, name) of a helper of this file whose body holds a finding -> the node of
    #: its first report: where its callers' findings lead (core.findings.HelperSite).
    helper_sites: dict = field(default_factory=dict)
    _evidence: Evidence | None = None
    #: The module's whole-tree indexes (parents, nodes by kind, names), built on first use.
    index: ModuleIndex = field(init=False)

    def __post_init__(self) -> None:
        self.index = ModuleIndex(self.module)

    @property
    def evidence(self) -> Evidence:
        """Is this file MCP code, and which side (core.sdk.file_evidence), asked once."""
        if self._evidence is None:
            imports = self.resolver.module_imports() + self.resolver.imported_modules
            self._evidence = file_evidence(
                imports,
                self.data,
                self.path,
                project=lambda name: project_module_is_mcp(self.settings.view, self.path, name),
            )
        return self._evidence

    def report(self, code, node, message, *, severity=None, fix=None, help=None, via=None, removable=True) -> None:
        """`message`: a core.messages.Message (message and help), or the message alone. A message
        over MAX_MESSAGE characters is fitted (never cutting a name) and given whole as the help."""
        text, advice = split(message, help)
        short = fit(text)
        if short != text:
            text, advice = short, f"{text}; {advice}" if advice else text
        report = Report(code, node, text, severity, fix, tuple(self.ancestors), advice, via=via, removable=removable)
        self.reports.append(report)

    def claim(self, node: cst.CSTNode) -> None:
        self.claimed.add(id(node))

    def is_claimed(self, node: cst.CSTNode) -> bool:
        return id(node) in self.claimed
